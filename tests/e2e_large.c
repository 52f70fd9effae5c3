/* The sizes and settings the other GPU tests leave out. n = 2^31 + 1, one past the largest int
 * element count, on steps 09 to 15 (the steps whose kernels index with size_t and stride over
 * the grid; step15 on one GPU and on two), and step16's matrices of more than 2^31 elements
 * (every kernel, float and bf16, integer or one-hot data: every row must be exact): each run
 * must be correct, or be refused up front by the program's own plan, in its own words (a skip
 * that quotes it, never a pass). A run that fails for memory after its plan said it fits is a
 * failure: the plan was wrong. And --flush write, the L2 emptied by writing, on every step:
 * the same verdict as reading, and the CSV names the flush. */
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
static const double LARGE_TIMEOUT_S = 1200, RUN_TIMEOUT_S = 900;
static const char LARGE_N[] = "2147483649"; /* 2^31 + 1 */
static const char STEP14_PROGRAM[] = "step14_generic/run", STEP14[] = "step14";
static const char NO_MEMORY[] = "not enough device memory for ",
                  NO_HOST_MEMORY[] = "not enough host memory for ";
/* What the programs print for a failed call (common/device.c, step15's team.c and processes.c):
 * a CUDA, NCCL or MPI error. */
static const char FAILED_CALL[] = " error at ";
/* One large run at a time across the test processes: each plans its copies from the memory it
 * finds free, and another large run allocating beside it would take that memory away. */
static const char LARGE_RUN_LOCK[] = "/tmp/reduce-tests-large-run.lock";
enum { FIRST_LARGE_STEP = 9, LARGE_STEPS = LADDER_STEPS - FIRST_LARGE_STEP, LINE_SIZE = 1024 };

/* Holds the lock until the test's process exits, which releases it. */
static void wait_for_the_large_run_lock(void)
{
    int fd = open(LARGE_RUN_LOCK, O_CREAT | O_RDWR | O_CLOEXEC, 0666);
    cr_assert_geq(fd, 0, "cannot open %s", LARGE_RUN_LOCK);
    cr_assert_eq(flock(fd, LOCK_EX), 0, "cannot lock %s", LARGE_RUN_LOCK);
}

/* The program's refusal of a run before it allocated what did not fit: exit code 3, and its
 * first line on stderr is the plan's "not enough device memory for ..." (memory_plan_explain,
 * device_memory_fits) or "not enough host memory for ...", with no failed call anywhere. That
 * line into `line`, or NULL: a run that ran out of memory after its plan said it fits (a CUDA
 * error, out of memory), or that failed before its plan spoke, is no refusal. */
static const char *refused_up_front(const struct finished *run, char *line, size_t size)
{
    const char *cursor = run->err;
    if (run->exit_code != EXIT_ENVIRONMENT || strstr(run->err, FAILED_CALL) != NULL) return NULL;
    if (!next_line(&cursor, line, size)) return NULL;
    return strstr(line, NO_MEMORY) != NULL || strstr(line, NO_HOST_MEMORY) != NULL ? line : NULL;
}

/* A run that this machine's memory did not allow: skipped with the program's refusal. */
static void skip_when_memory_is_short(const char *step, const char *what,
                                      const struct finished *run)
{
    char line[LINE_SIZE];
    if (refused_up_front(run, line, sizeof line) != NULL)
        cr_skip_test("%s: %s does not fit this machine: %s", step, what, line);
}

/* The rule, on the host: what may skip and what must fail. */
static struct finished stderr_only(int exit_code, const char *err)
{
    return (struct finished){.exit_code = exit_code, .out = "", .err = (char *)err};
}

Test(gpu_large, only_a_plan_that_refused_up_front_may_skip)
{
    static const char PLAN[] = "not enough device memory for one copy of the input: it needs "
                               "8194 MiB (8194 MiB the copy), and 4096 MiB are free on GPU\n",
                      MATRIX[] = "not enough device memory for the matrix: it needs 8192.1 MiB, "
                                 "4096.0 MiB of 8192.0 MiB are free on GPU\n",
                      HOST[] = "step15: not enough host memory for 2147483649 floats\n",
                      OUT_OF_MEMORY[] = "CUDA error at common/timing.cu:41: out of memory\n"
                                        "  in cudaMalloc(...)\n  (cudaErrorMemoryAllocation)\n";
    char line[LINE_SIZE], both[2 * LINE_SIZE];
    struct finished plan = stderr_only(EXIT_ENVIRONMENT, PLAN),
                    matrix = stderr_only(EXIT_ENVIRONMENT, MATRIX),
                    host = stderr_only(EXIT_ENVIRONMENT, HOST);
    cr_expect_not_null(refused_up_front(&plan, line, sizeof line));
    cr_expect(strncmp(line, PLAN, strlen(line)) == 0, "the refusal quoted: %s", line);
    cr_expect_not_null(refused_up_front(&matrix, line, sizeof line));
    cr_expect_not_null(refused_up_front(&host, line, sizeof line));

    /* the plan said it fits, then an allocation failed */
    struct finished ran_out = stderr_only(EXIT_ENVIRONMENT, OUT_OF_MEMORY);
    cr_expect_null(refused_up_front(&ran_out, line, sizeof line));
    /* a later plan's refusal after an allocation failed: the first plan was wrong */
    snprintf(both, sizeof both, "%s%s", OUT_OF_MEMORY, MATRIX);
    struct finished later = stderr_only(EXIT_ENVIRONMENT, both);
    cr_expect_null(refused_up_front(&later, line, sizeof line));
    /* a refusal after a failed call */
    snprintf(both, sizeof both, "%s%s", MATRIX, OUT_OF_MEMORY);
    struct finished then_failed = stderr_only(EXIT_ENVIRONMENT, both);
    cr_expect_null(refused_up_front(&then_failed, line, sizeof line));
    /* another exit code is no refusal */
    struct finished wrong = stderr_only(EXIT_WRONG, PLAN), usage = stderr_only(EXIT_USAGE, PLAN);
    cr_expect_null(refused_up_front(&wrong, line, sizeof line));
    cr_expect_null(refused_up_front(&usage, line, sizeof line));
}

/* The run's one --quiet line: the step's name, n, and CORRECT. */
static void expect_correct_large_run(const char *step, struct finished *run, const char *what)
{
    char line[LINE_SIZE], n_word[64];
    skip_when_memory_is_short(step, what, run);
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
    struct finished run = program_run_alone(
        STEP14_PROGRAM,
        (const char *const[]){"--quiet", "-n", LARGE_N, "--op", op, "--type", type, "--buffers",
                              "1", "--iters", "1", "--warmup", "0", "--no-cub", NULL});
    expect_correct_large_run(STEP14, &run, what);
}

/* ---- step15 at 2^31 + 1 ------------------------------------------------------------------ */

static const char STEP15_PROGRAM[] = "step15_multi_gpu/run", STEP15[] = "step15";
/* tests/e2e_step15.c: skips where make left step15 out for want of NCCL, saying so. */
void require_step15_built(void);

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
    require_step15_built();
    wait_for_the_large_run_lock();
    struct finished run = program_run_alone(
        STEP15_PROGRAM,
        (const char *const[]){"--quiet", "--gpus", count, "-n", LARGE_N, "--buffers", "1",
                              "--iters", "1", "--warmup", "0", "--no-cub", NULL});
    expect_correct_large_run(STEP15, &run, what);
}

/* ---- step16 past 2^31 elements ----------------------------------------------------------- */

static const char STEP16_PROGRAM[] = "step16_rows/run", STEP16[] = "step16";

/* Two shapes of more than 2^31 elements, each with data whose every row sum is exact in float
 * (step16 then requires each row to be exactly right, "every row exact"): (2^16 + 1) x 2^15 =
 * 2^31 + 2^15 elements of the integers 0..99, at most 99 x 2^15 < 2^24 a row; and one row of
 * 2^31 + 1 elements, all 0 but a 1 at the last, past index 2^31. bf16 holds both exactly. */
struct large_rows {
    const char *shape, *pattern, *rows;
};
static const struct large_rows LARGE_ROWS[] = {
    {"65537x32768", "uniform", "65537"},
    {"1x2147483649", "onehot:last", "1"},
};
static const char *const ROWS_KERNELS[] = {"warp", "block", "split"};
static const char *const ROWS_TYPES[] = {"float", "bf16"};
enum {
    ROWS_SHAPES = sizeof LARGE_ROWS / sizeof LARGE_ROWS[0],
    ROWS_KERNEL_COUNT = sizeof ROWS_KERNELS / sizeof ROWS_KERNELS[0],
    ROWS_TYPE_COUNT = sizeof ROWS_TYPES / sizeof ROWS_TYPES[0],
    ROWS_CASES = ROWS_SHAPES * ROWS_KERNEL_COUNT * ROWS_TYPE_COUNT
};

ParameterizedTestParameters(gpu_large, step16_past_2_to_31_elements_every_row_exact)
{
    static int cases[ROWS_CASES];
    for (int c = 0; c < ROWS_CASES; c++) cases[c] = c;
    return cr_make_param_array(int, cases, ROWS_CASES);
}

ParameterizedTest(int *c, gpu_large, step16_past_2_to_31_elements_every_row_exact,
                  .timeout = LARGE_TIMEOUT_S)
{
    const struct large_rows *rows = &LARGE_ROWS[*c / (ROWS_KERNEL_COUNT * ROWS_TYPE_COUNT)];
    const char *kernel = ROWS_KERNELS[*c / ROWS_TYPE_COUNT % ROWS_KERNEL_COUNT],
               *type = ROWS_TYPES[*c % ROWS_TYPE_COUNT];
    static const char EXACT[] = "check      every row exact", CORRECT[] = "-> CORRECT";
    char what[96], launch[64], counted[64], line[LINE_SIZE];
    snprintf(what, sizeof what, "-n %s --kernel %s --type %s", rows->shape, kernel, type);
    snprintf(launch, sizeof launch, "launch     %s: ", kernel);
    snprintf(counted, sizeof counted, " %s rows ", rows->rows);
    require_gpu(STEP16);
    wait_for_the_large_run_lock();
    struct finished run = program_run_alone(
        STEP16_PROGRAM, (const char *const[]){"-n", rows->shape, "--kernel", kernel, "--type", type,
                                              "--pattern", rows->pattern, "--buffers", "1",
                                              "--iters", "1", "--warmup", "0", "--no-cub", NULL});
    skip_when_memory_is_short(STEP16, what, &run);
    cr_assert_eq(run.exit_code, EXIT_CORRECT, "%s %s: exit %d\n%s%s", STEP16, what, run.exit_code,
                 run.out, run.err);
    cr_expect_eq(lines_starting(run.out, launch), 1, "%s %s: no '%s...' line:\n%s", STEP16, what,
                 launch, run.out);
    const char *cursor = run.out;
    bool judged = false;
    while (!judged && next_line(&cursor, line, sizeof line))
        judged = starts_with(line, EXACT) && strstr(line, counted) != NULL &&
                 ends_with(line, CORRECT);
    cr_expect(judged, "%s %s: no line '%s ...%s%s':\n%s", STEP16, what, EXACT, counted, CORRECT,
              run.out);
    finished_free(&run);
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
    struct finished run = program_run_alone(
        STEP14_PROGRAM,
        (const char *const[]){"--csv", "--flush", "write", "-n", "1000003", "--op", "dot", "--type",
                              "double", "--iters", "3", "--warmup", "1", NULL});
    expect_flush_write_row(STEP14, &run);
}
