/* step13's --vectors: the float4 each thread of the grid keeps in flight. For a grid the
 * gatherer finishes the host picks 4 or 8, the fewest whose grid it still reads; for a larger
 * grid 8 or 12, from the card's bandwidth per SM (Little's law, step13_gather/reduce.h). A card
 * picks one of the last two, so --check runs every count here, and the report names the count
 * it launched. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "toolbox.h"

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

/* Past the gatherer's grids (2^26 floats) the kernel that ran is the ticket's, instantiated
 * for the count given: the report's kernel line names it as reduce.cu does, from the launcher,
 * not from the host's request. */
Test(gpu, step13_launch_line_names_the_vectors_it_ran, .timeout = RUN_TIMEOUT_S)
{
    static const char *const NAMES[COUNT_COUNT] = {"FEWEST_VECTORS", "FEW_VECTORS", "MANY_VECTORS"};
    require_gpu("step13");
    for (int c = 0; c < COUNT_COUNT; c++) {
        char expected[LINE_SIZE], line[LINE_SIZE];
        struct finished run = STEP_RUN(step13(), GPUS_VISIBLE, "-n", "2^26", "--iters", "2",
                                       "--no-cub", "--threads", "512", "--vectors", COUNTS[c]);
        snprintf(expected, sizeof expected, "reduce_last_block<512, %s, VARIANT_TICKET%s>",
                 NAMES[c], step13_loads_suffix((size_t)1 << 26));
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
