/* step13's --vectors: the float4 each thread of the grid keeps in flight. For a grid the
 * gatherer finishes the host picks 4 or 8, the fewest whose grid it still reads; for a larger
 * grid 8 or 12, from the card's bandwidth per SM (Little's law, step13_gather/reduce.h). A card
 * picks one of the last two, so --check runs every count here, and the report names the count
 * it launched. And its --threads: 512 unless that grid is past LARGE_GRID_BLOCKS blocks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "toolbox.h"
#include "../step13_gather/reduce.h"

static const double CHECK_TIMEOUT_S = 900, RUN_TIMEOUT_S = 900;
enum { LINE_SIZE = 1024 };
static const char *const COUNTS[] = {"4", "8", "12"};
enum { COUNT_COUNT = sizeof COUNTS / sizeof COUNTS[0] };

static const struct ladder_step *step13(void)
{
    for (int s = 0; s < LADDER_STEPS; s++)
        if (strcmp(LADDER[s].name, "step13") == 0) return &LADDER[s];
    cr_assert_fail("step13 is not in the ladder the tests know");
    return NULL;
}

Test(usage, step13_vectors_takes_4_8_12_or_auto_only)
{
    static const char *const bad[] = {"9", "0", "2", "twelve", "12x", ""};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        struct finished run = STEP_RUN(step13(), GPUS_HIDDEN, "--vectors", bad[b]);
        cr_expect_eq(run.exit_code, EXIT_USAGE, "--vectors '%s': exit %d\n%s", bad[b],
                     run.exit_code, run.err);
        cr_expect(strstr(run.err, "--vectors") != NULL, "the message names the option:\n%s",
                  run.err);
        finished_free(&run);
    }
    static const char *const good[] = {"4", "8", "12", "auto"};
    for (size_t g = 0; g < sizeof good / sizeof good[0]; g++) {
        struct finished run = STEP_RUN(step13(), GPUS_HIDDEN, "--vectors", good[g]);
        cr_expect_eq(run.exit_code, EXIT_ENVIRONMENT, "--vectors %s: exit %d\n%s", good[g],
                     run.exit_code, run.err);
        finished_free(&run);
    }
}

/* Every case of the matrix with each count, for the gather and the ticket finishes. */
Test(gpu, step13_check_passes_with_every_count_of_vectors, .timeout = CHECK_TIMEOUT_S)
{
    require_gpu("step13");
    static const char *const finishes[] = {"gather", "ticket"};
    char summary[LINE_SIZE];
    for (int c = 0; c < COUNT_COUNT; c++)
        for (size_t f = 0; f < sizeof finishes / sizeof finishes[0]; f++) {
            struct finished run = STEP_RUN(step13(), GPUS_VISIBLE, "--check", "--vectors",
                                           COUNTS[c], "--variant", finishes[f]);
            cr_expect_eq(run.exit_code, EXIT_CORRECT, "--vectors %s --variant %s:\n%s", COUNTS[c],
                         finishes[f], run.out);
            cr_expect(starts_with(last_line(run.out, summary, sizeof summary), "check: all "), "%s",
                      summary);
            finished_free(&run);
        }
}

/* The report's kernel line: what the launcher recorded as it launched (reduce.cu names each
 * instantiation), "" when there is none. */
static const char *kernel_line(const char *out, char *line, size_t size)
{
    static const char KERNEL[] = "kernel     ";
    for (const char *cursor = out; next_line(&cursor, line, size);)
        if (starts_with(line, KERNEL)) return line + strlen(KERNEL);
    return "";
}

/* Past the gatherer's grids (2^26 floats) the kernel that ran is the bins', instantiated for
 * the count given: the report's kernel line names it as reduce.cu does, from the launcher, not
 * from the host's request. */
Test(gpu, step13_launch_line_names_the_vectors_it_ran, .timeout = RUN_TIMEOUT_S)
{
    static const char *const NAMES[COUNT_COUNT] = {"FEWEST_VECTORS", "FEW_VECTORS", "MANY_VECTORS"};
    require_gpu("step13");
    for (int c = 0; c < COUNT_COUNT; c++) {
        char expected[LINE_SIZE], line[LINE_SIZE];
        struct finished run = STEP_RUN(step13(), GPUS_VISIBLE, "-n", "2^26", "--iters", "2",
                                       "--no-cub", "--threads", "512", "--vectors", COUNTS[c]);
        snprintf(expected, sizeof expected, "reduce_last_block<512, %s, VARIANT_BINS%s>", NAMES[c],
                 step13_loads_suffix((size_t)1 << 26));
        cr_expect_eq(run.exit_code, EXIT_CORRECT, "%s", run.out);
        cr_expect_str_eq(kernel_line(run.out, line, sizeof line), expected, "--vectors %s:\n%s",
                         COUNTS[c], run.out);
        finished_free(&run);
    }
}

/* auto at 512 threads: 4 float4 a thread while that grid is one the gatherer reads
 * (2^24 floats: 2048 blocks), 8 one float later (2049 blocks of 4 would be too many: 1025 of
 * 8 are not), and past the gatherer's grids the ticket with the card's count. */
Test(gpu, step13_auto_takes_the_fewest_vectors_the_gatherer_reads, .timeout = RUN_TIMEOUT_S)
{
    require_gpu("step13");
    static const struct {
        const char *n, *launch;
    } cases[] = {
        {"2^24", "2048 blocks x 512 threads, 4 float4 per thread"},
        {"16777217", "1025 blocks x 512 threads, 8 float4 per thread"},
        {"2^25", "2048 blocks x 512 threads, 8 float4 per thread"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct finished run = STEP_RUN(step13(), GPUS_VISIBLE, "-n", cases[c].n, "--iters", "2",
                                       "--no-cub", "--threads", "512");
        cr_expect_eq(run.exit_code, EXIT_CORRECT, "%s", run.out);
        cr_expect(strstr(run.out, cases[c].launch) != NULL, "'%s' in:\n%s", cases[c].launch,
                  run.out);
        finished_free(&run);
    }
}

/* The count of float4 a thread in a report's launch line "B blocks x T threads, V float4 per
 * thread", 0 when there is none. */
static unsigned launched_vectors(const char *out)
{
    const char *at = strstr(out, " threads, ");
    unsigned vectors = 0;
    return at != NULL && sscanf(at, " threads, %u float4 per thread", &vectors) == 1 ? vectors : 0;
}

static struct finished run_at(size_t n, const char *threads)
{
    char text[32];
    snprintf(text, sizeof text, "%zu", n);
    if (threads == NULL)
        return STEP_RUN(step13(), GPUS_VISIBLE, "-n", text, "--iters", "1", "--warmup", "0",
                        "--buffers", "1", "--no-cub");
    return STEP_RUN(step13(), GPUS_VISIBLE, "-n", text, "--iters", "1", "--warmup", "0",
                    "--buffers", "1", "--no-cub", "--threads", threads);
}

/* Without --threads: 512 threads a block up to a grid of LARGE_GRID_BLOCKS blocks, then
 * LARGE_GRID_THREADS, one float later; --threads 512 keeps 512 there. The border depends on
 * the card's count of float4 a thread, read from a run at 2^27 (at most 8192 blocks of 512). */
Test(gpu, step13_takes_1024_threads_past_the_large_grid_border, .timeout = RUN_TIMEOUT_S)
{
    require_gpu("step13");
    struct finished probe = run_at((size_t)1 << 27, NULL);
    unsigned vectors = launched_vectors(probe.out);
    cr_assert(vectors == FEW_VECTORS || vectors == MANY_VECTORS, "the card's count:\n%s",
              probe.out);
    finished_free(&probe);
    size_t border = (size_t)LARGE_GRID_BLOCKS * 512 * vectors * FLOATS_PER_VECTOR;
    /* border is whole blocks of LARGE_GRID_THREADS too; one float more takes one block more */
    size_t per_large_block = (size_t)LARGE_GRID_THREADS * vectors * FLOATS_PER_VECTOR;
    unsigned past_blocks = (unsigned)(border / per_large_block + 1);
    static const char *const DEFAULT = NULL;
    const struct {
        size_t n;
        const char *threads;
        unsigned blocks, block_size;
    } cases[] = {
        {border, DEFAULT, LARGE_GRID_BLOCKS, 512},
        {border + 1, DEFAULT, past_blocks, LARGE_GRID_THREADS},
        {border + 1, "512", LARGE_GRID_BLOCKS + 1, 512},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char launch[LINE_SIZE];
        snprintf(launch, sizeof launch, "%u blocks x %u threads, %u float4 per thread",
                 cases[c].blocks, cases[c].block_size, vectors);
        struct finished run = run_at(cases[c].n, cases[c].threads);
        cr_expect_eq(run.exit_code, EXIT_CORRECT, "%s", run.out);
        cr_expect(strstr(run.out, launch) != NULL, "n = %zu, --threads %s: '%s' in:\n%s",
                  cases[c].n, cases[c].threads ? cases[c].threads : "absent", launch, run.out);
        finished_free(&run);
    }
}

/* --help states the rule with reduce.h's numbers. */
Test(usage, step13_help_gives_the_large_grid_rule)
{
    char rule[LINE_SIZE];
    snprintf(rule, sizeof rule, "or %d where", LARGE_GRID_THREADS);
    struct finished run = STEP_RUN(step13(), GPUS_HIDDEN, "--help");
    cr_expect_eq(run.exit_code, EXIT_CORRECT, "%s", run.err);
    cr_expect(strstr(run.out, rule) != NULL, "'%s' in:\n%s", rule, run.out);
    snprintf(rule, sizeof rule, "more than %d blocks", LARGE_GRID_BLOCKS);
    cr_expect(strstr(run.out, rule) != NULL, "'%s' in:\n%s", rule, run.out);
    finished_free(&run);
}
