/* Each program says what ran: every variant of every step, run once with --csv, names in its
 * kernel and finish columns the kernel that variant launches, as reduce.cu spells it, and how
 * its blocks' sums became the total. The names below are what each step's README teaches,
 * written out here (not read from the step's code): a variant that launched another variant's
 * kernel fails. Without a CUDA device every test here is skipped, never passed. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "harness.h"
#include "toolbox.h"

static const double RUN_TIMEOUT_S = 900;
enum { LINE_SIZE = 1024 };
/* 2^20 floats: past the one-block kernels of steps 12 and 13 (up to 4096 floats), and at 256
 * threads 128 blocks of step13, few enough for its gatherer (up to 2048). */
#define RUN_N "2^20"
#define RUN_THREADS "256"

/* A step's variant (NULL: the step has none) and what its report must name. */
struct expected_launch {
    const char *step, *variant, *kernel, *finish;
};

static const struct expected_launch EXPECTED[] = {
    {"step00", NULL, "reduce_in_global", FINISH_BY_LAUNCHES},
    {"step01", NULL, "reduce_in_shared", FINISH_BY_LAUNCHES},
    {"step02", NULL, "reduce_strided_index", FINISH_BY_LAUNCHES},
    {"step03", NULL, "reduce_sequential", FINISH_BY_LAUNCHES},
    {"step04", "pairs", "reduce_first_add<false>", FINISH_BY_LAUNCHES},
    {"step04", "plan-a", "reduce_first_add<true>", FINISH_BY_LAUNCHES},
    {"step05", "syncwarp", "reduce_unroll_warp<LAST_WARP_SYNCWARP>", FINISH_BY_LAUNCHES},
    {"step05", "volatile", "reduce_unroll_warp<LAST_WARP_VOLATILE>", FINISH_BY_LAUNCHES},
    {"step05", "wrong-loop", "reduce_unroll_warp<LAST_WARP_WRONG_LOOP>", FINISH_BY_LAUNCHES},
    {"step05", "wrong-unrolled", "reduce_unroll_warp<LAST_WARP_WRONG_UNROLLED>",
     FINISH_BY_LAUNCHES},
    {"step06", NULL, "reduce_full_unroll<256>", FINISH_BY_LAUNCHES},
    {"step07", "tree", "reduce_grid_stride<256, false>", FINISH_BY_LAUNCHES},
    {"step07", "thread0", "reduce_grid_stride<256, true>", FINISH_BY_LAUNCHES},
    {"step08", NULL, "reduce_shuffle<256>", FINISH_BY_LAUNCHES},
    {"step09", "fence", "reduce_last_block<256, VARIANT_FENCE>", "fence ticket"},
    {"step09", "atomic-ref", "reduce_last_block<256, VARIANT_ATOMIC_REF>", "atomic_ref ticket"},
    {"step09", "atomic-add", "reduce_last_block<256, VARIANT_ATOMIC_ADD>", "atomicAdd"},
    {"step10", "fence", "reduce_last_block<256, VARIANT_FENCE>", "fence ticket"},
    {"step10", "atomic-ref", "reduce_last_block<256, VARIANT_ATOMIC_REF>", "atomic_ref ticket"},
    {"step10", "atomic-add", "reduce_last_block<256, VARIANT_ATOMIC_ADD>", "atomicAdd"},
    {"step11", "ticket", "reduce_last_block<256, VARIANT_TICKET>", "atomic_ref ticket"},
    {"step11", "atomic-add", "reduce_last_block<256, VARIANT_ATOMIC_ADD>", "atomicAdd"},
    {"step12", "ticket", "reduce_last_block<256, VARIANT_TICKET>", "atomic_ref ticket"},
    {"step12", "atomic-add", "reduce_last_block<256, VARIANT_ATOMIC_ADD>", "atomicAdd"},
    /* 2^20 floats are 4 MiB, fewer than STREAMING_MOST_L2S L2s on any card: streaming loads. */
    {"step13", "gather", "reduce_last_block<256, FEWEST_VECTORS, VARIANT_GATHER, STREAMING_LOADS>",
     "gather"},
    {"step13", "ticket", "reduce_last_block<256, FEWEST_VECTORS, VARIANT_TICKET, STREAMING_LOADS>",
     "atomic_ref ticket"},
    {"step13", "atomic-add",
     "reduce_last_block<256, FEWEST_VECTORS, VARIANT_ATOMIC_ADD, STREAMING_LOADS>", "atomicAdd"},
};
enum { EXPECTED_COUNT = sizeof EXPECTED / sizeof EXPECTED[0] };

static const struct ladder_step *ladder_step(const char *name)
{
    for (int s = 0; s < LADDER_STEPS; s++)
        if (strcmp(LADDER[s].name, name) == 0) return &LADDER[s];
    cr_assert_fail("no %s in the ladder", name);
    return NULL;
}

/* How many rows of the table above are for this step and variant (NULL: none). */
static int rows_for(const char *step, const char *variant)
{
    int rows = 0;
    for (int e = 0; e < EXPECTED_COUNT; e++)
        rows += strcmp(EXPECTED[e].step, step) == 0 &&
                (variant == NULL
                     ? EXPECTED[e].variant == NULL
                     : EXPECTED[e].variant && strcmp(EXPECTED[e].variant, variant) == 0);
    return rows;
}

/* Runs on any machine: the table names every variant of the ladder once. */
Test(variants, the_expected_kernels_cover_every_variant_of_the_ladder)
{
    for (int s = 0; s < LADDER_STEPS; s++) {
        const struct ladder_step *step = &LADDER[s];
        if (step->correct[0] == NULL)
            cr_expect_eq(rows_for(step->name, NULL), 1, "%s without a variant", step->name);
        for (int v = 0; v < MAX_LISTED_VARIANTS; v++) {
            if (step->correct[v] != NULL)
                cr_expect_eq(rows_for(step->name, step->correct[v]), 1, "%s %s", step->name,
                             step->correct[v]);
            if (step->other[v] != NULL)
                cr_expect_eq(rows_for(step->name, step->other[v]), 1, "%s %s", step->name,
                             step->other[v]);
        }
    }
}

/* The CSV row of one run of `step` (with more arguments after the common ones) into line and
 * fields; a wrong variant may exit 1 (its total is WRONG), but it still reports. */
static struct finished csv_run(const struct ladder_step *step, const char *variant, const char *n,
                               const char *threads, char *line, char *fields[CSV_COLUMNS])
{
    struct finished run = variant ? STEP_RUN(step, GPUS_VISIBLE, "--csv", "--no-cub", "--iters",
                                             "2", "--warmup", "0", "-n", n, "--threads", threads,
                                             "--variant", variant)
                                  : STEP_RUN(step, GPUS_VISIBLE, "--csv", "--no-cub", "--iters",
                                             "2", "--warmup", "0", "-n", n, "--threads", threads);
    cr_assert(run.exit_code == EXIT_CORRECT || run.exit_code == EXIT_WRONG,
              "%s %s: exit %d; stderr:\n%s", step->name, variant ? variant : "", run.exit_code,
              run.err);
    cr_assert_eq(line_count(run.out), 2, "%s %s: stdout:\n%s", step->name, variant ? variant : "",
                 run.out);
    last_line(run.out, line, LINE_SIZE);
    cr_assert(csv_split(line, fields), "%s %s: not %d columns: %s", step->name,
              variant ? variant : "", CSV_COLUMNS, line);
    return run;
}

ParameterizedTestParameters(variants, each_variant_reports_its_own_kernel)
{
    static int rows[EXPECTED_COUNT];
    for (int e = 0; e < EXPECTED_COUNT; e++) rows[e] = e;
    return cr_make_param_array(int, rows, EXPECTED_COUNT);
}
ParameterizedTest(int *row, variants, each_variant_reports_its_own_kernel, .timeout = RUN_TIMEOUT_S)
{
    const struct expected_launch *e = &EXPECTED[*row];
    require_gpu(e->step);
    cr_log_info("%s %s", e->step, e->variant ? e->variant : "");
    char line[LINE_SIZE], *fields[CSV_COLUMNS];
    struct finished run = csv_run(ladder_step(e->step), e->variant, RUN_N, RUN_THREADS, line,
                                  fields);
    cr_expect_str_eq(fields[COL_VARIANT], e->variant ? e->variant : "-");
    cr_expect_str_eq(fields[COL_KERNEL], e->kernel, "%s %s launched %s", e->step,
                     e->variant ? e->variant : "", fields[COL_KERNEL]);
    cr_expect_str_eq(fields[COL_FINISH], e->finish, "%s %s finished by %s", e->step,
                     e->variant ? e->variant : "", fields[COL_FINISH]);
    finished_free(&run);
}

/* The finish the code chose, not the option: up to 4096 floats steps 12 and 13 launch their
 * one-block kernel whatever --variant says; --finish cpu leaves the block sums to the host. */
Test(variants, a_small_n_reports_the_one_block_kernel, .timeout = RUN_TIMEOUT_S)
{
    static const char *const STEPS[] = {"step12", "step13"};
    require_gpu("step12 and step13");
    for (size_t s = 0; s < sizeof STEPS / sizeof STEPS[0]; s++) {
        char line[LINE_SIZE], *fields[CSV_COLUMNS];
        struct finished run = csv_run(ladder_step(STEPS[s]), "atomic-add", "4096", RUN_THREADS,
                                      line, fields);
        cr_expect_str_eq(fields[COL_KERNEL], "reduce_small", "%s", STEPS[s]);
        cr_expect_str_eq(fields[COL_FINISH], "none: one block", "%s", STEPS[s]);
        finished_free(&run);
    }
}

Test(variants, a_host_finish_reports_the_host, .timeout = RUN_TIMEOUT_S)
{
    require_gpu("step08");
    struct finished run = STEP_RUN(ladder_step("step08"), GPUS_VISIBLE, "--csv", "--no-cub",
                                   "--iters", "2", "--warmup", "0", "-n", RUN_N, "--finish", "cpu");
    char line[LINE_SIZE], *fields[CSV_COLUMNS];
    cr_assert_eq(run.exit_code, EXIT_CORRECT, "exit %d; stderr:\n%s", run.exit_code, run.err);
    last_line(run.out, line, sizeof line);
    cr_assert(csv_split(line, fields), "%s", line);
    cr_expect(starts_with(fields[COL_KERNEL], "reduce_shuffle<"), "%s", fields[COL_KERNEL]);
    cr_expect_str_eq(fields[COL_FINISH], FINISH_ON_HOST);
    finished_free(&run);
}

/* 2^22 floats at 32 threads are 4096 blocks of step13 with 8 float4 a thread (2731 with 12),
 * more than its gatherer reads: the gather variant launches the bins' kernel, with the card's
 * count of float4, and says so. */
Test(variants, step13_gather_past_its_limit_reports_the_bins, .timeout = RUN_TIMEOUT_S)
{
    require_gpu("step13");
    char line[LINE_SIZE], *fields[CSV_COLUMNS];
    struct finished run = csv_run(ladder_step("step13"), "gather", "2^22", "32", line, fields);
    char few[LINE_SIZE], many[LINE_SIZE];
    const char *loads = step13_loads_suffix((size_t)1 << 22);
    snprintf(few, sizeof few, "reduce_last_block<32, FEW_VECTORS, VARIANT_BINS%s>", loads);
    snprintf(many, sizeof many, "reduce_last_block<32, MANY_VECTORS, VARIANT_BINS%s>", loads);
    cr_expect(strcmp(fields[COL_KERNEL], few) == 0 || strcmp(fields[COL_KERNEL], many) == 0,
              "kernel %s", fields[COL_KERNEL]);
    cr_expect_str_eq(fields[COL_FINISH], "exact bins");
    finished_free(&run);
}

/* step14 has no variants: its kernel is the instantiation of its template for --op and
 * --type, and the last block merges unless --finish cpu. */
Test(variants, step14_reports_its_instantiation, .timeout = RUN_TIMEOUT_S)
{
    static const char *const PROGRAM = "./step14_generic/run";
    require_gpu("step14");
    struct finished run = program_run_beside(
        PROGRAM, (const char *const[]){"--csv", "--no-cub", "--iters", "2", "--warmup", "0", "-n",
                                       RUN_N, "--op", "max", "--type", "int", NULL});
    char line[LINE_SIZE], *fields[CSV_COLUMNS];
    cr_assert_eq(run.exit_code, EXIT_CORRECT, "exit %d; stderr:\n%s", run.exit_code, run.err);
    last_line(run.out, line, sizeof line);
    cr_assert(csv_split(line, fields), "%s", line);
    cr_expect_str_eq(fields[COL_KERNEL], "reduce_any<Maximum<int>, Elements<int>>");
    cr_expect_str_eq(fields[COL_FINISH], "last block");
    finished_free(&run);
}
