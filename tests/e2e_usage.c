/* Every step's program, run as a student runs it, on any machine: bad command lines, --help,
 * and a machine that shows it no GPU (CUDA_VISIBLE_DEVICES set to the empty string hides
 * every GPU, so these run the same with or without one). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

enum { MAX_BAD_LINES = 24, MAX_WORDS = 4, TEXT_SIZE = 64 };

/* step12 and step13 time the ceilings of a read (--ceilings) beside their own run. */
static bool offers_ceilings(const struct ladder_step *step)
{
    return strcmp(step->name, "step12") == 0 || strcmp(step->name, "step13") == 0;
}

static const struct ladder_step *begin(const int *index)
{
    cr_log_info("%s (%s/run)", LADDER[*index].name, LADDER[*index].directory);
    return &LADDER[*index];
}

#define EVERY_STEP(test)                                                                           \
    ParameterizedTestParameters(usage, test)                                                       \
    {                                                                                              \
        return ladder_indices();                                                                   \
    }

/* A command line the program must refuse, and what its message must quote. */
struct bad_line {
    const char *words[MAX_WORDS]; /* up to the first NULL */
    char named[TEXT_SIZE];
};

static const struct bad_line EVERY_STEPS_BAD_LINES[] = {
    {{"-n", "abc"}, "'abc'"},
    {{"-n", "2^33"}, "'2^33'"},
    {{"-n", "8..4"}, "'8..4'"},
    {{"--threads", "48"}, "'48'"},
    {{"--threads", "2048"}, "'2048'"},
    {{"--pattern", "onehot:x"}, "'onehot:x'"},
    {{"--pattern", "onehot:5", "-n", "5"}, "n = 5"},
    {{"--iters", "0"}, "'0'"},
    {{"--buffers", "9"}, "'9'"},
    {{"--bogus"}, "'--bogus'"},
    {{"-n"}, "'-n'"},
    {{"stray"}, "'stray'"},
};

/* The shared bad lines, then the step's own: options it lacks, and values its options refuse. */
static int bad_lines_for(const struct ladder_step *step, struct bad_line *lines)
{
    int count = sizeof EVERY_STEPS_BAD_LINES / sizeof EVERY_STEPS_BAD_LINES[0];
    memcpy(lines, EVERY_STEPS_BAD_LINES, sizeof EVERY_STEPS_BAD_LINES);
    static char below_minimum[sizeof "4294967295"];
    snprintf(below_minimum, sizeof below_minimum, "%u", step->min_threads / 2);
    lines[count] = (struct bad_line){{"--threads", below_minimum}, ""};
    snprintf(lines[count++].named, TEXT_SIZE, "'%s'", below_minimum);
    lines[count++] = step->grid_size ? (struct bad_line){{"--blocks", "0"}, "'0'"}
                                     : (struct bad_line){{"--blocks", "3"}, "'--blocks'"};
    lines[count++] = step->host_finish ? (struct bad_line){{"--finish", "gpu2"}, "'gpu2'"}
                                       : (struct bad_line){{"--finish", "cpu"}, "'--finish'"};
    lines[count++] = step->correct[0] != NULL
                         ? (struct bad_line){{"--variant", "nope"}, "'nope'"}
                         : (struct bad_line){{"--variant", "nope"}, "'--variant'"};
    if (strcmp(step->name, "step07") != 0)
        lines[count++] = (struct bad_line){{"--clock"}, "'--clock'"};
    if (!offers_ceilings(step))
        lines[count++] = (struct bad_line){{"--ceilings"}, "'--ceilings'"};
    else { /* its ceilings print beside the full report only */
        lines[count++] = (struct bad_line){{"--ceilings", "--csv"}, "'--ceilings'"};
        lines[count++] = (struct bad_line){{"--ceilings", "--quiet"}, "'--ceilings'"};
        lines[count++] = (struct bad_line){{"--check", "--ceilings"}, "'--ceilings'"};
    }
    return count;
}

EVERY_STEP(bad_command_lines_exit_2_naming_the_value)
ParameterizedTest(int *index, usage, bad_command_lines_exit_2_naming_the_value)
{
    const struct ladder_step *step = begin(index);
    struct bad_line lines[MAX_BAD_LINES];
    char help[TEXT_SIZE];
    snprintf(help, sizeof help, "%s/run --help", step->name);
    for (int i = 0, count = bad_lines_for(step, lines); i < count; i++) {
        const char *args[MAX_WORDS + 1] = {NULL};
        memcpy(args, lines[i].words, sizeof lines[i].words);
        /* GPUs hidden: the command line is refused before any device is looked at */
        struct finished run = step_run(step, GPUS_HIDDEN, args);
        const char *what = lines[i].words[0], *value = lines[i].words[1] ? lines[i].words[1] : "";
        cr_expect_eq(run.exit_code, EXIT_USAGE, "%s %s %s: exit %d", step->name, what, value,
                     run.exit_code);
        cr_expect_not_null(strstr(run.err, lines[i].named),
                           "%s %s %s: stderr does not name %s:\n%s", step->name, what, value,
                           lines[i].named, run.err);
        cr_expect_not_null(strstr(run.err, help), "%s %s %s: stderr does not point to --help:\n%s",
                           step->name, what, value, run.err);
        cr_expect_str_empty(run.out, "%s %s %s: stdout: %s", step->name, what, value, run.out);
        finished_free(&run);
    }
}

EVERY_STEP(help_exits_0_with_the_steps_usage_on_stdout)
ParameterizedTest(int *index, usage, help_exits_0_with_the_steps_usage_on_stdout)
{
    const struct ladder_step *step = begin(index);
    char usage[TEXT_SIZE], threads[TEXT_SIZE];
    snprintf(usage, sizeof usage, "usage: %s/run [options]\n", step->name);
    snprintf(threads, sizeof threads, "%u..%u", step->min_threads, step->max_threads);
    static const char *const FLAGS[] = {"--help", "-h"};
    for (int f = 0; f < 2; f++) {
        struct finished run = STEP_RUN(step, GPUS_HIDDEN, FLAGS[f]);
        const char *out = run.out;
        cr_expect_eq(run.exit_code, EXIT_CORRECT, "%s %s: exit %d", step->name, FLAGS[f],
                     run.exit_code);
        cr_expect(starts_with(out, usage), "%s %s: stdout:\n%s", step->name, FLAGS[f], out);
        cr_expect_str_empty(run.err, "%s %s: stderr: %s", step->name, FLAGS[f], run.err);
        cr_expect_not_null(strstr(out, threads), "%s: no thread range %s:\n%s", step->name, threads,
                           out);
        cr_expect_eq(strstr(out, "--blocks") != NULL, step->grid_size, "%s: --blocks:\n%s",
                     step->name, out);
        cr_expect_eq(strstr(out, "--finish") != NULL, step->host_finish, "%s: --finish:\n%s",
                     step->name, out);
        cr_expect_eq(strstr(out, "--variant") != NULL, step->correct[0] != NULL, "%s: --variant",
                     step->name);
        for (int v = 0; v < MAX_LISTED_VARIANTS; v++) {
            if (step->correct[v] != NULL)
                cr_expect_not_null(strstr(out, step->correct[v]), "%s", step->correct[v]);
            if (step->other[v] != NULL)
                cr_expect_not_null(strstr(out, step->other[v]), "%s", step->other[v]);
        }
        finished_free(&run);
    }
}

/* make also links stepNN to the ladder's stepNN_<name>: ./stepNN/run is the same program. */
EVERY_STEP(the_short_name_runs_the_same_program)
ParameterizedTest(int *index, usage, the_short_name_runs_the_same_program)
{
    const struct ladder_step *step = begin(index);
    char target[TEXT_SIZE] = "", short_path[TEXT_SIZE];
    ssize_t length = readlink(step->name, target, sizeof target - 1);
    cr_assert_gt(length, 0, "%s is not a link: %s", step->name, strerror(errno));
    target[length] = '\0';
    if (strcmp(target, step->directory) != 0)
        cr_skip_test("%s links to %s, not to this copy of the step", step->name, target);
    snprintf(short_path, sizeof short_path, "%s/run", step->name);
    struct finished by_directory = STEP_RUN(step, GPUS_HIDDEN, "--help");
    struct finished by_short_name = program_run(short_path, GPUS_HIDDEN,
                                                (const char *const[]){"--help", NULL});
    cr_expect_eq(by_short_name.exit_code, EXIT_CORRECT, "%s: exit %d", short_path,
                 by_short_name.exit_code);
    cr_expect_str_eq(by_short_name.out, by_directory.out);
    finished_free(&by_directory);
    finished_free(&by_short_name);
}

/* Without a device: exit 3, the reason on stderr, nothing on stdout (not even a CSV header). */
static void expect_no_device(const struct ladder_step *step, const char *const *args,
                             const char *what)
{
    char said[TEXT_SIZE];
    snprintf(said, sizeof said, "%s: no CUDA device", step->name);
    struct finished run = step_run(step, GPUS_HIDDEN, args);
    cr_expect_eq(run.exit_code, EXIT_ENVIRONMENT, "%s %s: exit %d; stderr:\n%s", step->name, what,
                 run.exit_code, run.err);
    cr_expect_not_null(strstr(run.err, said), "%s %s: stderr:\n%s", step->name, what, run.err);
    cr_expect_str_empty(run.out, "%s %s: stdout: %s", step->name, what, run.out);
    finished_free(&run);
}

EVERY_STEP(hidden_gpus_exit_3_saying_no_cuda_device)
ParameterizedTest(int *index, usage, hidden_gpus_exit_3_saying_no_cuda_device)
{
    const struct ladder_step *step = begin(index);
    expect_no_device(step, (const char *const[]){NULL}, "(no options)");
    expect_no_device(step, (const char *const[]){"--check", NULL}, "--check");
    expect_no_device(step, (const char *const[]){"--csv", "-n", "2^10..2^12", NULL}, "--csv");
    expect_no_device(step, (const char *const[]){"--quiet", NULL}, "--quiet");
}

/* Every option the step offers is accepted: the program gets as far as looking for a device. */
EVERY_STEP(every_offered_option_is_accepted)
ParameterizedTest(int *index, usage, every_offered_option_is_accepted)
{
    const struct ladder_step *step = begin(index);
    char max_threads[TEXT_SIZE];
    snprintf(max_threads, sizeof max_threads, "%u", step->max_threads);
    expect_no_device(step,
                     (const char *const[]){"-n", "2^10..2^12", "--pattern", "onehot:last", "--seed",
                                           "7", "--iters", "1", "--warmup", "0", "--buffers", "2",
                                           "--threads", max_threads, "--no-cub", "--csv", NULL},
                     "shared options");
    if (step->grid_size)
        expect_no_device(step, (const char *const[]){"--blocks", "3", NULL}, "--blocks 3");
    if (step->host_finish)
        expect_no_device(step, (const char *const[]){"--finish", "cpu", NULL}, "--finish cpu");
    if (strcmp(step->name, "step07") == 0)
        expect_no_device(step, (const char *const[]){"--clock", NULL}, "--clock");
    if (offers_ceilings(step))
        expect_no_device(step, (const char *const[]){"--ceilings", "-n", "2^10..2^12", NULL},
                         "--ceilings");
    for (int v = 0; v < MAX_LISTED_VARIANTS; v++) {
        if (step->correct[v] != NULL)
            expect_no_device(step, (const char *const[]){"--variant", step->correct[v], NULL},
                             step->correct[v]);
        if (step->other[v] != NULL)
            expect_no_device(step, (const char *const[]){"--variant", step->other[v], NULL},
                             step->other[v]);
    }
}
