/* The sizes and settings the other GPU tests leave out. n = 2^31 + 1, one past the largest int
 * element count, on steps 09 to 15 (the steps whose kernels index with size_t and stride over
 * the grid; step15 on one GPU and on two): each run must be correct, or say that the GPU's
 * memory does not hold it, in the program's own words (a skip that quotes it, never a pass). And --flush write, the L2 emptied
 * by writing, on every step: the same verdict as reading, and the CSV names the flush. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

/* 2^31 + 1 floats are 8 GiB on the host and on the device: the data alone take a while. */
static const double LARGE_TIMEOUT_S = 1200, RUN_TIMEOUT_S = 300;
static const char LARGE_N[] = "2147483649"; /* 2^31 + 1 */
static const char STEP14_PROGRAM[] = "step14_generic/run", STEP14[] = "step14";
static const char NO_MEMORY[] = "not enough device memory", NO_HOST_MEMORY[] = "not enough host";
/* One large run at a time across the test processes: each plans its copies from the memory it
 * finds free, and another large run allocating beside it would take that memory away. */
static const char LARGE_RUN_LOCK[] = "/tmp/reduce-tests-large-run.lock";
enum { FIRST_LARGE_STEP = 9, LARGE_STEPS = LADDER_STEPS - FIRST_LARGE_STEP, LINE_SIZE = 1024 };

/* Holds the lock until the test's process exits, which releases it. */
static void wait_for_the_large_run_lock(void)
{
    int fd = open(LARGE_RUN_LOCK, O_CREAT | O_RDWR, 0666);
    cr_assert_geq(fd, 0, "cannot open %s", LARGE_RUN_LOCK);
    cr_assert_eq(flock(fd, LOCK_EX), 0, "cannot lock %s", LARGE_RUN_LOCK);
}

/* A run that the memory did not allow: skipped with the program's first line about it. */
static void skip_when_memory_is_short(const char *step, const struct finished *run)
{
    char line[LINE_SIZE];
    const char *cursor = run->err;
    if (run->exit_code != EXIT_ENVIRONMENT) return;
    while (next_line(&cursor, line, sizeof line))
        if (strstr(line, NO_MEMORY) != NULL || strstr(line, NO_HOST_MEMORY) != NULL)
            cr_skip_test("%s: n = 2^31 + 1 does not fit this machine: %s", step, line);
}

/* The run's one --quiet line: the step's name, n, and CORRECT. */
static void expect_correct_large_run(const char *step, struct finished *run, const char *what)
{
    char line[LINE_SIZE], n_word[64];
    skip_when_memory_is_short(step, run);
    cr_assert_eq(run->exit_code, EXIT_CORRECT, "%s %s: exit %d; stderr:\n%s", step, what,
                 run->exit_code, run->err);
    last_line(run->out, line, sizeof line);
    snprintf(n_word, sizeof n_word, " n=%s ", LARGE_N);
    cr_expect(starts_with(line, step) && strstr(line, n_word) != NULL &&
                  ends_with(line, " CORRECT"),
              "%s %s: %s", step, what, line);
    finished_free(run);
}

ParameterizedTestParameters(gpu_large, two_to_31_plus_1_is_correct)
{
    static int indices[LARGE_STEPS];
    for (int s = 0; s < LARGE_STEPS; s++) indices[s] = FIRST_LARGE_STEP + s;
    return cr_make_param_array(int, indices, LARGE_STEPS);
}

ParameterizedTest(int *index, gpu_large, two_to_31_plus_1_is_correct, .timeout = LARGE_TIMEOUT_S)
{
    const struct ladder_step *step = &LADDER[*index];
    require_gpu(step->name);
    wait_for_the_large_run_lock();
    struct finished run = STEP_RUN(step, GPUS_VISIBLE, "--quiet", "-n", LARGE_N, "--buffers", "1",
                                   "--iters", "1", "--warmup", "0", "--no-cub");
    expect_correct_large_run(step->name, &run, "-n 2^31+1");
}

/* step14 in the types whose copies differ in size: int (4 bytes), double (8) with dot's
 * second array beside it (2 x 16 GiB, converted from the host in parts), and float. The
 * parameters are indices into these: Criterion copies them into the process that runs the
 * test, where a pointer would not be valid. */
static const char *const LARGE_OPS[] = {"sum", "max", "dot"};
static const char *const LARGE_TYPES[] = {"int", "float", "double"};
enum { STEP14_LARGE_CASES = sizeof LARGE_OPS / sizeof LARGE_OPS[0] };

ParameterizedTestParameters(gpu_large, step14_two_to_31_plus_1_is_correct)
{
    static int cases[STEP14_LARGE_CASES];
    for (int c = 0; c < STEP14_LARGE_CASES; c++) cases[c] = c;
    return cr_make_param_array(int, cases, STEP14_LARGE_CASES);
}

ParameterizedTest(int *c, gpu_large, step14_two_to_31_plus_1_is_correct, .timeout = LARGE_TIMEOUT_S)
{
    const char *op = LARGE_OPS[*c], *type = LARGE_TYPES[*c];
    char what[64], named[96];
    snprintf(what, sizeof what, "--op %s --type %s -n 2^31+1", op, type);
    snprintf(named, sizeof named, "%s %s", STEP14, what);
    require_gpu(named);
    wait_for_the_large_run_lock();
    struct finished run = program_run(
        STEP14_PROGRAM, GPUS_VISIBLE,
        (const char *const[]){"--quiet", "-n", LARGE_N, "--op", op, "--type", type, "--buffers",
                              "1", "--iters", "1", "--warmup", "0", "--no-cub", NULL});
    expect_correct_large_run(STEP14, &run, what);
}

/* ---- step15 at 2^31 + 1 ------------------------------------------------------------------ */

static const char STEP15_PROGRAM[] = "step15_multi_gpu/run", STEP15[] = "step15";

/* One GPU reduces all 2^31 + 1 floats as its one shard; two GPUs, where the machine shows
 * two, reduce shards of 2^30 + 1 and 2^30 floats, and NCCL adds the two totals. */
ParameterizedTestParameters(gpu_large, step15_two_to_31_plus_1_is_correct)
{
    static int gpus[] = {1, 2};
    return cr_make_param_array(int, gpus, sizeof gpus / sizeof gpus[0]);
}

ParameterizedTest(int *gpus, gpu_large, step15_two_to_31_plus_1_is_correct,
                  .timeout = LARGE_TIMEOUT_S)
{
    char count[16], what[64];
    snprintf(count, sizeof count, "%d", *gpus);
    snprintf(what, sizeof what, "-n 2^31+1 --gpus %d", *gpus);
    require_gpus(STEP15, *gpus);
    wait_for_the_large_run_lock();
    struct finished run = program_run(
        STEP15_PROGRAM, GPUS_VISIBLE,
        (const char *const[]){"--quiet", "--gpus", count, "-n", LARGE_N, "--buffers", "1",
                              "--iters", "1", "--warmup", "0", "--no-cub", NULL});
    expect_correct_large_run(STEP15, &run, what);
}

/* ---- --flush write ----------------------------------------------------------------------- */

/* One CSV row, judged: exit 0, ok = 1, and the flush column says "write". */
static void expect_flush_write_row(const char *step, struct finished *run)
{
    char line[LINE_SIZE], *fields[CSV_COLUMNS];
    cr_assert_eq(run->exit_code, EXIT_CORRECT, "%s --flush write: exit %d; stderr:\n%s", step,
                 run->exit_code, run->err);
    last_line(run->out, line, sizeof line);
    cr_assert(csv_split(line, fields), "%s: not %d columns: %s", step, CSV_COLUMNS, line);
    cr_expect_str_eq(fields[COL_STEP], step);
    cr_expect_str_eq(fields[COL_FLUSH], "write", "%s: %s", step, line);
    cr_expect_str_eq(fields[COL_OK], "1", "%s: %s", step, line);
    cr_expect_gt(strtod(fields[COL_MS_MEDIAN], NULL), 0.0, "%s: %s", step, line);
    finished_free(run);
}

ParameterizedTestParameters(gpu_large, flush_write_is_correct_and_named)
{
    return ladder_indices();
}

ParameterizedTest(int *index, gpu_large, flush_write_is_correct_and_named, .timeout = RUN_TIMEOUT_S)
{
    const struct ladder_step *step = &LADDER[*index];
    require_gpu(step->name);
    struct finished run = STEP_RUN(step, GPUS_VISIBLE, "--csv", "--flush", "write", "-n", "1000003",
                                   "--iters", "3", "--warmup", "1");
    expect_flush_write_row(step->name, &run);
}

Test(gpu_large, step14_flush_write_is_correct_and_named, .timeout = RUN_TIMEOUT_S)
{
    require_gpu(STEP14);
    struct finished run = program_run(
        STEP14_PROGRAM, GPUS_VISIBLE,
        (const char *const[]){"--csv", "--flush", "write", "-n", "1000003", "--op", "dot", "--type",
                              "double", "--iters", "3", "--warmup", "1", NULL});
    expect_flush_write_row(STEP14, &run);
}
