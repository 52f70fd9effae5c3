/* The built step binaries, run as a user runs them: exit status, stdout and stderr.
 * Every step of the registry is covered (steps with their own runner, .run != NULL, bring
 * their own tests). `make test` builds the binaries first and runs this from the
 * repository root. Usage errors, --help and the missing-device exit need no GPU and always
 * run; the rest skip without a device (never pass). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "gpu_support.h"
#include "registry.h"

extern char **environ;

enum { MAX_STEPS = 64, MAX_ARGUMENTS = 16, PATH_SIZE = 256, GPU_RUN_TIMEOUT_S = 300 };

/* An empty CUDA_VISIBLE_DEVICES hides every GPU, so the no-device path runs anywhere. */
static const char HIDE_EVERY_GPU[] = "CUDA_VISIBLE_DEVICES=";

/* The issue fixes the CSV header, column for column. */
static const char CSV_HEADER[] =
    "step,n,pattern,result,expected,ok,ms_median,ms_min,gb_per_s,peak_pct,device";
enum { COLUMN_STEP, COLUMN_N, COLUMN_PATTERN, COLUMN_RESULT, COLUMN_EXPECTED, COLUMN_OK,
       COLUMN_MS_MEDIAN, COLUMN_MS_MIN, COLUMN_GB_PER_S, COLUMN_PEAK_PCT, COLUMN_DEVICE,
       CSV_COLUMNS };

enum gpus { GPUS_VISIBLE, GPUS_HIDDEN };

struct finished {
    int exit_code;                    /* -1 when a signal ended the process */
    char *out;
    char *err;
};

/* ---- running a binary ------------------------------------------------------------------ */

/* environ with CUDA_VISIBLE_DEVICES replaced by the empty value. */
static char **environment_without_gpus(void)
{
    size_t count = 0;
    while (environ[count] != NULL) count++;
    char **environment = calloc(count + 2, sizeof *environment);
    cr_assert_not_null(environment);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], HIDE_EVERY_GPU, strlen(HIDE_EVERY_GPU)) != 0)
            environment[kept++] = environ[i];
    environment[kept] = (char *)HIDE_EVERY_GPU;
    return environment;
}

/* The whole file, NUL-terminated; closes it. */
static char *read_and_close(FILE *file)
{
    cr_assert_eq(fseek(file, 0, SEEK_END), 0);
    long size = ftell(file);
    cr_assert_geq(size, 0);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    size_t got = fread(text, 1, (size_t)size, file);
    text[got] = '\0';
    fclose(file);
    return text;
}

static int wait_for_exit(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs path with args (NULL-terminated); stdout and stderr go to temporary files. */
static struct finished run_binary(const char *path, const char *const *args, enum gpus gpus)
{
    char *argv[MAX_ARGUMENTS + 2] = {(char *)path};
    for (int i = 0; args[i] != NULL; i++) {
        cr_assert_lt(i, MAX_ARGUMENTS, "too many arguments for this test helper");
        argv[i + 1] = (char *)args[i];
    }
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out != NULL && err != NULL, "tmpfile: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fileno(err), STDERR_FILENO);
    char **environment = gpus == GPUS_HIDDEN ? environment_without_gpus() : environ;
    pid_t pid;
    int spawn_error = posix_spawn(&pid, path, &actions, NULL, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    if (environment != environ) free(environment);
    cr_assert_eq(spawn_error, 0, "cannot start %s: %s", path, strerror(spawn_error));
    struct finished finished = {.exit_code = wait_for_exit(pid)};
    finished.out = read_and_close(out);
    finished.err = read_and_close(err);
    return finished;
}

/* The step's binary, as the Makefile builds it: stepNN_<name>/run. */
static struct finished run_step_binary(const struct step *step, enum gpus gpus,
                                       const char *const *args)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/run", step->directory);
    cr_assert_eq(access(path, X_OK), 0,
                 "%s is not built here: run the tests from the repository root after `make` "
                 "(`make test` does both)", path);
    return run_binary(path, args, gpus);
}

#define RUN_STEP(step, gpus, ...) \
    run_step_binary((step), (gpus), (const char *const[]){__VA_ARGS__, NULL})

static void finished_free(struct finished *finished)
{
    free(finished->out);
    free(finished->err);
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (const char *c = text; *c; c++) lines += *c == '\n';
    return lines;
}

/* ---- which steps ------------------------------------------------------------------------ */

/* Indices into all_steps (parameters must not be pointers: Criterion copies them). */
static size_t collect_steps(int *indices, bool host_finish_only)
{
    size_t count = 0;
    for (int s = 0; s < all_steps_count && count < MAX_STEPS; s++) {
        const struct step *step = all_steps[s];
        if (step->run != NULL || (host_finish_only && step->reduce != NULL)) continue;
        indices[count++] = s;
    }
    return count;
}

#define STEP_PARAMETERS(test_name, host_finish_only)                                       \
    ParameterizedTestParameters(e2e, test_name)                                           \
    {                                                                                     \
        static int indices[MAX_STEPS];                                                    \
        return cr_make_param_array(int, indices, collect_steps(indices, host_finish_only)); \
    }

static const struct step *begin(const int *index)
{
    const struct step *step = all_steps[*index];
    cr_log_info("%s (%s/run)", step->name, step->directory);
    return step;
}

static const struct step *begin_on_gpu(const int *index)
{
    require_cuda_device();
    return begin(index);
}

/* ---- without a GPU ----------------------------------------------------------------------- */

enum { MAX_BAD_ARGUMENTS = 4 };
struct bad_arguments {
    const char *args[MAX_BAD_ARGUMENTS];  /* ends at the first NULL */
    const char *named;                    /* stderr must contain this */
};

static const struct bad_arguments BAD_ARGUMENTS[] = {
    {{"-n", "abc"}, "'abc'"},
    {{"-n", "2^33"}, "'2^33'"},
    {{"--threads", "48"}, "'48'"},
    {{"--pattern", "onehot:x"}, "'onehot:x'"},
    {{"--pattern", "onehot:5", "-n", "5"}, "n = 5"},
    {{"--finish", "gpu2"}, "'gpu2'"},
    {{"--iters", "0"}, "'0'"},
    {{"--bogus"}, "'--bogus'"},
    {{"-n"}, "'-n'"},
    {{"stray"}, "'stray'"},
};

static void expect_usage_error(const struct step *step, const struct bad_arguments *bad)
{
    const char *args[MAX_BAD_ARGUMENTS + 1] = {NULL};
    memcpy(args, bad->args, sizeof bad->args);
    /* GPUs hidden: a usage error must be reported before the device is looked at. */
    struct finished finished = run_step_binary(step, GPUS_HIDDEN, args);
    char usage[PATH_SIZE];
    snprintf(usage, sizeof usage, "usage: %s/run", step->name);
    cr_expect_eq(finished.exit_code, EXIT_USAGE, "%s %s: exit %d", step->name, bad->args[0],
                 finished.exit_code);
    cr_expect_not_null(strstr(finished.err, bad->named), "%s: stderr does not name %s:\n%s",
                       step->name, bad->named, finished.err);
    cr_expect_not_null(strstr(finished.err, usage), "%s: no usage on stderr:\n%s", step->name,
                       finished.err);
    cr_expect_str_empty(finished.out, "%s: stdout: %s", step->name, finished.out);
    finished_free(&finished);
}

STEP_PARAMETERS(bad_arguments_exit_2_with_usage_naming_the_value, false)
ParameterizedTest(int *index, e2e, bad_arguments_exit_2_with_usage_naming_the_value)
{
    const struct step *step = begin(index);
    for (size_t i = 0; i < sizeof BAD_ARGUMENTS / sizeof BAD_ARGUMENTS[0]; i++)
        expect_usage_error(step, &BAD_ARGUMENTS[i]);
}

static void expect_help(const struct step *step, const char *flag)
{
    struct finished finished = RUN_STEP(step, GPUS_HIDDEN, flag);
    char usage[PATH_SIZE];
    snprintf(usage, sizeof usage, "usage: %s/run", step->name);
    cr_expect_eq(finished.exit_code, EXIT_CORRECT, "%s %s: exit %d", step->name, flag,
                 finished.exit_code);
    cr_expect_eq(strncmp(finished.out, usage, strlen(usage)), 0, "%s %s: stdout:\n%s",
                 step->name, flag, finished.out);
    cr_expect_not_null(strstr(finished.out, "--threads"), "%s", finished.out);
    cr_expect_str_empty(finished.err, "%s %s: stderr: %s", step->name, flag, finished.err);
    finished_free(&finished);
}

STEP_PARAMETERS(help_exits_0_with_usage_on_stdout, false)
ParameterizedTest(int *index, e2e, help_exits_0_with_usage_on_stdout)
{
    const struct step *step = begin(index);
    expect_help(step, "--help");
    expect_help(step, "-h");
}

STEP_PARAMETERS(hidden_gpus_exit_3_with_no_cuda_device, false)
ParameterizedTest(int *index, e2e, hidden_gpus_exit_3_with_no_cuda_device)
{
    const struct step *step = begin(index);
    struct finished finished = RUN_STEP(step, GPUS_HIDDEN, "-n", "1000", "--iters", "1");
    cr_expect_eq(finished.exit_code, EXIT_ENVIRONMENT, "exit %d; stderr:\n%s",
                 finished.exit_code, finished.err);
    cr_expect_not_null(strstr(finished.err, "no CUDA device"), "stderr:\n%s", finished.err);
    cr_expect_str_empty(finished.out, "stdout: %s", finished.out);
    finished_free(&finished);
}

/* ---- on a GPU ----------------------------------------------------------------------------- */

struct csv_row {
    char *fields[CSV_COLUMNS];
};

/* Splits the data row in place. Only the device name, last, may hold a comma (quoted), so
 * the first CSV_COLUMNS - 1 commas end the other fields. */
static bool split_row(char *row, struct csv_row *columns)
{
    char *rest = row;
    rest[strcspn(rest, "\n")] = '\0';
    for (int c = 0; c < COLUMN_DEVICE; c++) {
        columns->fields[c] = strsep(&rest, ",");
        if (rest == NULL) return false;
    }
    columns->fields[COLUMN_DEVICE] = rest;
    bool quoted = rest[0] == '"';
    return rest[0] != '\0' && (quoted || strpbrk(rest, ",\"") == NULL);
}

/* Checks stdout is the header plus one row, splits the row (in finished->out) and
 * expects its ok column to be 1. */
static struct csv_row expect_csv_with_ok_row(const struct step *step, struct finished *finished)
{
    cr_assert_eq(finished->exit_code, EXIT_CORRECT, "%s: exit %d; stderr:\n%s", step->name,
                 finished->exit_code, finished->err);
    cr_assert_eq(count_lines(finished->out), 2, "%s: stdout:\n%s", step->name, finished->out);
    char *row = strchr(finished->out, '\n') + 1;
    row[-1] = '\0';
    cr_expect_str_eq(finished->out, CSV_HEADER);
    struct csv_row columns;
    cr_assert(split_row(row, &columns), "%s: not %d fields: '%s'", step->name, CSV_COLUMNS, row);
    cr_expect_str_eq(columns.fields[COLUMN_STEP], step->name);
    cr_expect_str_eq(columns.fields[COLUMN_OK], "1", "%s: ok is '%s'", step->name,
                     columns.fields[COLUMN_OK]);
    return columns;
}

STEP_PARAMETERS(csv_prints_the_header_and_one_correct_row, false)
ParameterizedTest(int *index, e2e, csv_prints_the_header_and_one_correct_row,
                  .timeout = GPU_RUN_TIMEOUT_S)
{
    const struct step *step = begin_on_gpu(index);
    struct finished finished = RUN_STEP(step, GPUS_VISIBLE, "--csv", "-n", "1000003",
                                        "--pattern", "onehot:last", "--iters", "2");
    struct csv_row columns = expect_csv_with_ok_row(step, &finished);
    cr_expect_str_eq(columns.fields[COLUMN_N], "1000003");
    cr_expect_str_eq(columns.fields[COLUMN_PATTERN], "onehot:last");
    cr_expect_eq(strtod(columns.fields[COLUMN_RESULT], NULL), 1.0, "result '%s'",
                 columns.fields[COLUMN_RESULT]);
    cr_expect_gt(strtod(columns.fields[COLUMN_MS_MEDIAN], NULL), 0.0);
    cr_expect_gt(strtod(columns.fields[COLUMN_GB_PER_S], NULL), 0.0);
    finished_free(&finished);
}

STEP_PARAMETERS(n_0_sums_to_0, false)
ParameterizedTest(int *index, e2e, n_0_sums_to_0, .timeout = GPU_RUN_TIMEOUT_S)
{
    const struct step *step = begin_on_gpu(index);
    struct finished finished = RUN_STEP(step, GPUS_VISIBLE, "--csv", "-n", "0", "--iters", "2");
    struct csv_row columns = expect_csv_with_ok_row(step, &finished);
    cr_expect_str_eq(columns.fields[COLUMN_N], "0");
    char *end = NULL;
    double result = strtod(columns.fields[COLUMN_RESULT], &end);
    cr_expect(end != columns.fields[COLUMN_RESULT] && *end == '\0' && result == 0.0,
              "result '%s'", columns.fields[COLUMN_RESULT]);
    finished_free(&finished);
}

/* The human report of a correct run, with the given finish. */
static void expect_human_report(const struct step *step, const char *finish,
                                const char *finish_words)
{
    struct finished finished = RUN_STEP(step, GPUS_VISIBLE, "-n", "1000003", "--iters", "2",
                                        "--finish", finish);
    cr_expect_eq(finished.exit_code, EXIT_CORRECT, "%s --finish %s: exit %d; stderr:\n%s",
                 step->name, finish, finished.exit_code, finished.err);
    cr_expect_not_null(strstr(finished.out, "CORRECT"), "%s", finished.out);
    cr_expect_not_null(strstr(finished.out, "\ndevice     "), "%s", finished.out);
    cr_expect_not_null(strstr(finished.out, "% of peak"), "%s", finished.out);
    cr_expect_not_null(strstr(finished.out, finish_words), "no '%s' in:\n%s", finish_words,
                       finished.out);
    finished_free(&finished);
}

STEP_PARAMETERS(human_report_says_correct_with_device_and_peak, false)
ParameterizedTest(int *index, e2e, human_report_says_correct_with_device_and_peak,
                  .timeout = GPU_RUN_TIMEOUT_S)
{
    const struct step *step = begin_on_gpu(index);
    expect_human_report(step, "gpu", "GPU finish");
}

STEP_PARAMETERS(finish_cpu_is_correct, true)
ParameterizedTest(int *index, e2e, finish_cpu_is_correct, .timeout = GPU_RUN_TIMEOUT_S)
{
    const struct step *step = begin_on_gpu(index);
    expect_human_report(step, "cpu", "host finish");
}

STEP_PARAMETERS(quiet_prints_one_verdict_line, false)
ParameterizedTest(int *index, e2e, quiet_prints_one_verdict_line, .timeout = GPU_RUN_TIMEOUT_S)
{
    const struct step *step = begin_on_gpu(index);
    struct finished finished =
        RUN_STEP(step, GPUS_VISIBLE, "--quiet", "-n", "1000003", "--iters", "2");
    cr_expect_eq(finished.exit_code, EXIT_CORRECT, "exit %d; stderr:\n%s", finished.exit_code,
                 finished.err);
    cr_expect_eq(count_lines(finished.out), 1, "stdout:\n%s", finished.out);
    cr_expect_not_null(strstr(finished.out, step->name), "%s", finished.out);
    cr_expect_not_null(strstr(finished.out, "CORRECT"), "%s", finished.out);
    finished_free(&finished);
}
