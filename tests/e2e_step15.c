/* step15_multi_gpu's program, run as a student runs it: its own option --gpus and its
 * variants, refused with exit code 2 and a message that names the bad value; --help; a
 * machine that shows it no GPU (exit 3). With a GPU: every variant's --check on all visible
 * GPUs and on one, n smaller than the number of GPUs (and 0), the report's own lines, and one
 * process per GPU under mpirun. Without a GPU, or without mpirun, those are skipped, never
 * passed. The tests run from the repository root after `make` (`make test` does both). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

extern char **environ;

static const char PROGRAM[] = "./step15_multi_gpu/run";
static const char MPIRUN[] = "mpirun";
static const char *const VARIANTS[] = {"local", "gather", "elementwise"};
enum { VARIANT_COUNT = sizeof VARIANTS / sizeof VARIANTS[0] };
/* An empty CUDA_VISIBLE_DEVICES hides every GPU, so these paths run the same anywhere. */
static const char HIDE_EVERY_GPU[] = "CUDA_VISIBLE_DEVICES=";
static const char CHECK_PASSED[] = "check: all ";
static const char WITHOUT_MPI[] = "built without MPI";
enum { MAX_WORDS = 16, GPU_TEST_TIMEOUT_S = 600 };
/* mpirun that cannot start its rank (a container without the network it expects) may wait
 * forever: coreutils' timeout ends it, and the test fails saying so. */
static const char MPIRUN_LIMIT_S[] = "300";

enum gpus { GPUS_SHOWN, GPUS_HIDDEN };
struct outcome {
    int exit_code; /* -1: a signal ended the program */
    char *out, *err;
};

/* ---- running the program ----------------------------------------------------------------- */

/* environ with CUDA_VISIBLE_DEVICES set to the empty string; every other variable kept. */
static char **environment_without_gpus(void)
{
    size_t count = 0, kept = 0;
    while (environ[count] != NULL) count++;
    char **environment = calloc(count + 2, sizeof *environment);
    cr_assert_not_null(environment);
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], HIDE_EVERY_GPU, strlen(HIDE_EVERY_GPU)) != 0)
            environment[kept++] = environ[i];
    environment[kept] = (char *)HIDE_EVERY_GPU;
    return environment;
}

/* The whole file as a string; closes it. */
static char *read_all(FILE *file)
{
    cr_assert_eq(fseek(file, 0, SEEK_END), 0);
    long size = ftell(file);
    cr_assert_geq(size, 0);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    text[fread(text, 1, (size_t)size, file)] = '\0';
    fclose(file);
    return text;
}

/* words[0] is the program (looked up on PATH); stdout and stderr each into a temporary file. */
static struct outcome run_words(const char *const *words, enum gpus gpus)
{
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out != NULL && err != NULL, "tmpfile: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fileno(err), STDERR_FILENO);
    char **environment = gpus == GPUS_HIDDEN ? environment_without_gpus() : environ;
    pid_t pid;
    int spawn_error = posix_spawnp(&pid, words[0], &actions, NULL, (char *const *)words,
                                   environment);
    posix_spawn_file_actions_destroy(&actions);
    if (environment != environ) free(environment);
    cr_assert_eq(spawn_error, 0, "cannot start %s: %s", words[0], strerror(spawn_error));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    struct outcome outcome = {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_all(out),
                              read_all(err)};
    cr_log_info("%s ... -> exit %d\n--- stdout\n%s--- stderr\n%s", words[0], outcome.exit_code,
                outcome.out, outcome.err);
    return outcome;
}

/* The step's program with up to MAX_WORDS - 2 arguments (NULL-terminated). */
static struct outcome run_program(enum gpus gpus, const char *const *args)
{
    const char *words[MAX_WORDS] = {PROGRAM};
    cr_assert_eq(access(PROGRAM, X_OK), 0,
                 "%s is not built here: run the tests from the repository root "
                 "after `make` (`make test` does both)",
                 PROGRAM);
    for (int i = 0; args[i] != NULL; i++) {
        cr_assert_lt(i + 2, MAX_WORDS, "too many arguments for this test");
        words[i + 1] = args[i];
    }
    return run_words(words, gpus);
}
#define RUN(gpus, ...) run_program((gpus), (const char *const[]){__VA_ARGS__, NULL})

static void outcome_free(struct outcome *outcome)
{
    free(outcome->out);
    free(outcome->err);
}

/* Skips the calling test (never a pass) when this machine shows the tests no CUDA device. */
static void require_gpu(void)
{
    const char *reason = no_device_reason();
    if (reason != NULL) cr_skip_test("%s: no CUDA device: %s", "step15", reason);
}

/* Whether `name` is an executable file in a directory of PATH. */
static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path != NULL ? path : ""), *saved = NULL, candidate[4096];
    bool found = false;
    cr_assert_not_null(copy);
    for (char *dir = strtok_r(copy, ":", &saved); dir != NULL && !found;
         dir = strtok_r(NULL, ":", &saved)) {
        snprintf(candidate, sizeof candidate, "%s/%s", dir, name);
        found = access(candidate, X_OK) == 0;
    }
    free(copy);
    return found;
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (; *text; text++) lines += *text == '\n';
    return lines;
}

/* --check's summary line is the last line of stdout. */
static void expect_check_passed(const struct outcome *o, const char *what)
{
    const char *summary = strstr(o->out, CHECK_PASSED);
    cr_expect_eq(o->exit_code, EXIT_CORRECT, "%s: exit %d\n%s%s", what, o->exit_code, o->out,
                 o->err);
    cr_expect(summary != NULL && strchr(summary, '\n') == summary + strlen(summary) - 1,
              "%s: no passing summary line '%s...' at the end of stdout:\n%s", what, CHECK_PASSED,
              o->out);
    cr_expect(strstr(o->out, "FAILED") == NULL, "%s: failing cases:\n%s", what, o->out);
}

/* ---- without a GPU ------------------------------------------------------------------------ */

Test(step15, help_lists_gpus_and_every_variant)
{
    struct outcome o = RUN(GPUS_HIDDEN, "--help");
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "--help: exit %d", o.exit_code);
    cr_expect(strstr(o.out, "usage: step15/run") != NULL, "--help:\n%s", o.out);
    cr_expect(strstr(o.out, "--gpus K") != NULL, "--help does not offer --gpus:\n%s", o.out);
    for (int v = 0; v < VARIANT_COUNT; v++)
        cr_expect(strstr(o.out, VARIANTS[v]) != NULL, "--help does not list variant %s:\n%s",
                  VARIANTS[v], o.out);
    outcome_free(&o);
}

/* A bad command line, and what the message must quote. */
struct bad_line {
    const char *words[3];
    const char *named;
};
static const struct bad_line BAD_LINES[] = {
    {{"--gpus", "0"}, "'0'"},
    {{"--gpus", "x"}, "'x'"},
    {{"--gpus", "-1"}, "'-1'"},
    {{"--gpus", "2x"}, "'2x'"},
    {{"--gpus", "65"}, "'65'"},
    {{"--gpus", ""}, "''"},
    {{"--gpus"}, "'--gpus'"},
    {{"--variant", "bogus"}, "'bogus'"},
    {{"--variant", "allreduce"}, "'allreduce'"},
    {{"--threads", "64"}, "'64'"},
};

Test(step15, bad_command_lines_exit_2_naming_the_value)
{
    for (size_t b = 0; b < sizeof BAD_LINES / sizeof BAD_LINES[0]; b++) {
        const struct bad_line *bad = &BAD_LINES[b];
        /* GPUs hidden: the command line must be refused before any device is looked at */
        struct outcome o = run_program(GPUS_HIDDEN, bad->words);
        cr_expect_eq(o.exit_code, EXIT_USAGE, "%s %s: exit %d, not %d", bad->words[0],
                     bad->words[1] ? bad->words[1] : "", o.exit_code, EXIT_USAGE);
        cr_expect(strstr(o.err, bad->named) != NULL, "%s: stderr does not name %s:\n%s",
                  bad->words[0], bad->named, o.err);
        cr_expect_eq(o.out[0], '\0', "%s: a usage error printed on stdout:\n%s", bad->words[0],
                     o.out);
        outcome_free(&o);
    }
}

Test(step15, no_gpu_exits_3_saying_so)
{
    const char *const *lines[] = {(const char *const[]){"-n", "7", NULL},
                                  (const char *const[]){"--check", "--gpus", "1", NULL},
                                  (const char *const[]){"--variant", "gather", NULL}};
    for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
        struct outcome o = run_program(GPUS_HIDDEN, lines[l]);
        cr_expect_eq(o.exit_code, EXIT_ENVIRONMENT, "%s: exit %d, not %d", lines[l][0], o.exit_code,
                     EXIT_ENVIRONMENT);
        cr_expect(strstr(o.err, "step15: no CUDA device") != NULL, "%s: stderr:\n%s", lines[l][0],
                  o.err);
        outcome_free(&o);
    }
}

/* ---- on a GPU ----------------------------------------------------------------------------- */

ParameterizedTestParameters(step15, check_passes_on_every_visible_gpu)
{
    static int variants[VARIANT_COUNT];
    for (int v = 0; v < VARIANT_COUNT; v++) variants[v] = v;
    return cr_make_param_array(int, variants, VARIANT_COUNT);
}

ParameterizedTest(int *variant, step15, check_passes_on_every_visible_gpu,
                  .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpu();
    struct outcome o = RUN(GPUS_SHOWN, "--check", "--variant", VARIANTS[*variant]);
    expect_check_passed(&o, VARIANTS[*variant]);
    outcome_free(&o);
}

Test(step15, check_passes_on_one_gpu, .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpu();
    struct outcome o = RUN(GPUS_SHOWN, "--gpus", "1", "--check");
    expect_check_passed(&o, "--gpus 1");
    outcome_free(&o);
}

/* n below the number of GPUs: some shards are empty, and the total must still be exact. */
Test(step15, fewer_elements_than_gpus_are_summed_exactly, .timeout = GPU_TEST_TIMEOUT_S)
{
    static const char *const SIZES[] = {"0", "1", "7"};
    require_gpu();
    for (int v = 0; v < VARIANT_COUNT; v++)
        for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
            struct outcome o = RUN(GPUS_SHOWN, "-n", SIZES[s], "--quiet", "--variant", VARIANTS[v],
                                   "--pattern", "uniform");
            cr_expect_eq(o.exit_code, EXIT_CORRECT, "-n %s --variant %s: exit %d\n%s", SIZES[s],
                         VARIANTS[v], o.exit_code, o.err);
            cr_expect(count_lines(o.out) == 1 && strstr(o.out, " CORRECT\n") != NULL,
                      "-n %s --variant %s --quiet: not one CORRECT line:\n%s", SIZES[s],
                      VARIANTS[v], o.out);
            outcome_free(&o);
        }
}

Test(step15, the_report_has_the_multi_gpu_lines, .timeout = GPU_TEST_TIMEOUT_S)
{
    static const char *const LINES[] = {"\ncheck ",   "\ntime ",    "\nbandwidth ", "\ngpus ",
                                        "\ncombine ", "\none GPU ", "\nspeed-up "};
    require_gpu();
    struct outcome o = RUN(GPUS_SHOWN, "-n", "2^20", "--iters", "3", "--warmup", "1", "--no-cub");
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "exit %d\n%s", o.exit_code, o.err);
    for (size_t l = 0; l < sizeof LINES / sizeof LINES[0]; l++)
        cr_expect(strstr(o.out, LINES[l]) != NULL, "no line starting '%s' in the report:\n%s",
                  LINES[l] + 1, o.out);
    cr_expect(strstr(o.out, "-> CORRECT") != NULL, "the report's verdict:\n%s", o.out);
    outcome_free(&o);
}

/* One process per GPU, as across machines: here a single process, so that it runs on any machine with one GPU.
 * As root, OpenMPI's mpirun refuses to start without --allow-run-as-root. */
Test(step15, check_passes_under_mpirun, .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpu();
    if (!on_path(MPIRUN))
        cr_skip_test("no %s on PATH: the one-process-per-GPU mode is not tried", MPIRUN);
    const char *words[MAX_WORDS] = {"timeout", MPIRUN_LIMIT_S, MPIRUN};
    int w = 3;
    if (geteuid() == 0) words[w++] = "--allow-run-as-root";
    words[w++] = "-np";
    words[w++] = "1";
    words[w++] = PROGRAM;
    words[w++] = "--check";
    struct outcome o = run_words(words, GPUS_SHOWN);
    if (o.exit_code == EXIT_ENVIRONMENT && strstr(o.err, WITHOUT_MPI) != NULL) {
        outcome_free(&o);
        cr_skip_test("%s was %s (no mpicc when it was built): rebuild it where mpicc is on PATH",
                     PROGRAM, WITHOUT_MPI);
    }
    cr_expect_neq(o.exit_code, 124, "mpirun -np 1 did not finish within %s s", MPIRUN_LIMIT_S);
    expect_check_passed(&o, "mpirun -np 1");
    outcome_free(&o);
}
