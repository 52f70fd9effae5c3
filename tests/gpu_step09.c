/* step09 beyond the registry's matrix (tests/gpu_steps.c runs that for step09 too):
 * bit-identical totals over repeated runs, input pointers that are not 16-byte aligned,
 * the ticket counter resetting itself, grids forced far from the default, and the grid's
 * size following n. Every total is checked against common/verify.c's host reference.
 * Without a device every test is skipped, never passed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "../step09_single_pass/single_pass.h"
#include "gpu_support.h"
#include "verify.h"

extern const struct step step09;

enum { REPEATS = 20, MAX_OFFSET = 3, TEST_TIMEOUT_S = 900 };
/* Random floats in [0, 1) with 24 significant bits: every addition rounds. */
enum { FRACTION_BITS = 24, RANDOM_BITS = 64 };
static const size_t DETERMINISM_SIZES[] = {ONE_BLOCK_ELEMENTS - 3, 1000003, (1u << 22) + 1,
                                           1u << 25};
static const size_t ALIGNMENT_LARGE_SIZES[] = {4095, 4096, 4097, 65537, 1000003, (1u << 20) + 3};
enum { ALIGNMENT_SMALL_LAST_N = 64 };
static const unsigned FORCED_BLOCKS[] = {1, 2, 3, 1000, 5000};
static const size_t FORCED_BLOCKS_SIZES[] = {0, 1, 33, 4097, 1000003};

static float *allocate_floats(size_t n)
{
    float *data = malloc((n ? n : 1) * sizeof *data);
    cr_assert_not_null(data, "out of host memory for %zu floats", n);
    return data;
}

static float *pattern_data(enum pattern_kind kind, size_t n, uint64_t seed)
{
    float *data = allocate_floats(n);
    struct pattern pattern = {.kind = kind};
    pattern_fill(data, n, &pattern, seed);
    return data;
}

static float *fractional_data(size_t n, uint64_t seed)
{
    float *data = allocate_floats(n);
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++)
        data[i] = (float)ldexp((double)(random_next(&state) >> (RANDOM_BITS - FRACTION_BITS)),
                               -FRACTION_BITS);
    return data;
}

static struct launch_request default_request(void)
{
    require_cuda_device();
    return test_request(&step09, 0, 0);
}

static float run_once(const struct reduction_buffers *buffers, size_t n,
                      const struct launch_request *request)
{
    struct reduction_outcome outcome;
    float total = NAN;
    cr_assert(reduction_run(&step09, buffers, n, request, FINISH_GPU, 0, &outcome) &&
                  reduction_total(&outcome, &total) && cudaDeviceSynchronize() == cudaSuccess,
              "step09 n=%zu: a CUDA call failed (see stderr)", n);
    return total;
}

/* ---- determinism ------------------------------------------------------------------------ */

/* Right once (against the reference), then the same bits REPEATS times. */
static void expect_repeatable(const float *data, size_t n, const char *what)
{
    struct launch_request request = default_request();
    struct reduction_buffers buffers;
    cr_assert(reduction_buffers_create(&buffers, &step09, n, &request, false));
    expect_correct_total(&step09, &buffers, &request, FINISH_GPU, data, n, what);
    float first = run_once(&buffers, n, &request);
    for (int run = 1; run < REPEATS; run++) {
        float total = run_once(&buffers, n, &request);
        cr_expect(memcmp(&total, &first, sizeof total) == 0,
                  "%s n=%zu: run %d gave %a, the first run %a", what, n, run, total, first);
    }
    reduction_buffers_destroy(&buffers);
}

Test(gpu_step09, same_input_gives_bit_identical_totals, .timeout = TEST_TIMEOUT_S)
{
    for (size_t i = 0; i < sizeof DETERMINISM_SIZES / sizeof *DETERMINISM_SIZES; i++) {
        size_t n = DETERMINISM_SIZES[i];
        float *uniform = pattern_data(PATTERN_UNIFORM, n, n);
        expect_repeatable(uniform, n, "uniform");
        free(uniform);
        float *fractions = fractional_data(n, n);
        expect_repeatable(fractions, n, "fractions in [0, 1)");
        free(fractions);
    }
}

/* ---- alignment ---------------------------------------------------------------------------- */

/* Every float of the buffer outside [offset, offset + n) is NaN: reading one by mistake
 * turns the total into NaN, which no bound accepts. */
static void poison(const struct reduction_buffers *buffers, size_t count)
{
    float *nans = allocate_floats(count);
    for (size_t i = 0; i < count; i++) nans[i] = NAN;
    cr_assert(reduction_upload(buffers, nans, count));
    free(nans);
}

static void expect_correct_at_offsets(size_t n)
{
    struct launch_request request = default_request();
    struct reduction_buffers buffers;
    cr_assert(reduction_buffers_create(&buffers, &step09, n + MAX_OFFSET, &request, false));
    const struct pattern patterns[] = {{.kind = PATTERN_UNIFORM}, {.kind = PATTERN_ONES},
                                       {PATTERN_ONEHOT, false, 0}, {PATTERN_ONEHOT, true, 0}};
    float *data = allocate_floats(n);
    for (size_t offset = 0; offset <= MAX_OFFSET; offset++) {
        struct reduction_buffers shifted = buffers;
        shifted.input = buffers.input + offset;
        for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
            char what[96], name[64];
            pattern_fill(data, n, &patterns[p], n + p);
            snprintf(what, sizeof what, "%s at offset %zu",
                     pattern_describe(&patterns[p], name, sizeof name), offset);
            poison(&buffers, n + MAX_OFFSET);
            expect_correct_total(&step09, &shifted, &request, FINISH_GPU, data, n, what);
        }
    }
    free(data);
    reduction_buffers_destroy(&buffers);
}

Test(gpu_step09, pointers_off_the_16_byte_boundary_small_n, .timeout = TEST_TIMEOUT_S)
{
    for (size_t n = 1; n <= ALIGNMENT_SMALL_LAST_N; n++) expect_correct_at_offsets(n);
}

Test(gpu_step09, pointers_off_the_16_byte_boundary_large_n, .timeout = TEST_TIMEOUT_S)
{
    for (size_t i = 0; i < sizeof ALIGNMENT_LARGE_SIZES / sizeof *ALIGNMENT_LARGE_SIZES; i++)
        expect_correct_at_offsets(ALIGNMENT_LARGE_SIZES[i]);
}

/* ---- the ticket counter ------------------------------------------------------------------- */

static unsigned read_counter(const struct reduction_buffers *buffers)
{
    unsigned counter = ~0u;
    cr_assert_eq(cudaMemcpy(&counter, buffers->ticket_counter, sizeof counter,
                            cudaMemcpyDeviceToHost),
                 cudaSuccess);
    return counter;
}

/* Two different inputs in a row (a stale total or a counter left at the grid size would
 * show in the second), then one block, then many again; the counter is 0 after each. */
Test(gpu_step09, the_counter_resets_itself_between_launches, .timeout = TEST_TIMEOUT_S)
{
    struct launch_request request = default_request();
    const size_t large = 1000003, one_block = (size_t)request.threads * FLOATS_PER_ITERATION;
    const size_t sizes[] = {large, large, one_block, large, one_block + 1};
    struct reduction_buffers buffers;
    cr_assert(reduction_buffers_create(&buffers, &step09, large, &request, false));
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        float *data = pattern_data(PATTERN_UNIFORM, sizes[i], i);
        expect_correct_total(&step09, &buffers, &request, FINISH_GPU, data, sizes[i], "uniform");
        cr_expect_eq(read_counter(&buffers), 0u, "n=%zu: the counter was not reset", sizes[i]);
        free(data);
    }
    reduction_buffers_destroy(&buffers);
}

/* ---- grids -------------------------------------------------------------------------------- */

/* --blocks B: the ticket must work for any grid, including one with many empty blocks. */
Test(gpu_step09, forced_grids_from_one_block_to_many_empty_ones, .timeout = TEST_TIMEOUT_S)
{
    struct launch_request request = default_request();
    const struct pattern patterns[] = {{.kind = PATTERN_UNIFORM}, {.kind = PATTERN_ONES},
                                       {PATTERN_ONEHOT, true, 0}};
    for (size_t b = 0; b < sizeof FORCED_BLOCKS / sizeof *FORCED_BLOCKS; b++) {
        request.blocks = FORCED_BLOCKS[b];
        for (size_t i = 0; i < sizeof FORCED_BLOCKS_SIZES / sizeof *FORCED_BLOCKS_SIZES; i++) {
            size_t n = FORCED_BLOCKS_SIZES[i];
            struct reduction_buffers buffers;
            float *data = allocate_floats(n);
            cr_assert(reduction_buffers_create(&buffers, &step09, n, &request, false));
            for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
                char what[96], name[64];
                if (n == 0 && patterns[p].kind == PATTERN_ONEHOT) continue;
                pattern_fill(data, n, &patterns[p], n + p);
                snprintf(what, sizeof what, "%s with %u blocks",
                         pattern_describe(&patterns[p], name, sizeof name), request.blocks);
                expect_correct_total(&step09, &buffers, &request, FINISH_GPU, data, n, what);
            }
            reduction_buffers_destroy(&buffers);
            free(data);
        }
    }
}

/* Up to ONE_BLOCK_ELEMENTS the one-block kernel, with its own block size whatever the
 * request's; above, one grid-kernel block up to FLOATS_PER_ITERATION * threads elements;
 * more blocks as n grows; never more than the device holds at once; a request's block
 * count wins. */
Test(gpu_step09, the_grid_follows_n_up_to_the_device)
{
    struct launch_request request = default_request();
    struct launch_request wide = test_request(&step09, 1024, 0);
    struct pass_plan small = step09.plan(ONE_BLOCK_ELEMENTS, &wide);
    cr_expect(small.blocks == 1 && small.threads == ONE_BLOCK_THREADS,
              "n=%d with 1024 threads asked: %u x %u, not the one-block kernel's 1 x %d",
              ONE_BLOCK_ELEMENTS, small.blocks, small.threads, ONE_BLOCK_THREADS);
    struct pass_plan above = step09.plan(ONE_BLOCK_ELEMENTS + 1, &wide);
    cr_expect(above.blocks == 1 && above.threads == 1024,
              "n=%d with 1024 threads asked: %u x %u, not one grid-kernel block of 1024",
              ONE_BLOCK_ELEMENTS + 1, above.blocks, above.threads);
    unsigned most = (unsigned)(request.sm_count * request.max_blocks_per_sm);
    size_t one_block = (size_t)request.threads * FLOATS_PER_ITERATION;
    cr_expect_eq(step09.plan(1, &request).blocks, 1u);
    cr_expect_eq(step09.plan(one_block, &request).blocks, 1u);
    cr_expect_eq(step09.plan(one_block + 1, &request).blocks, 2u);
    unsigned previous = 0;
    for (size_t n = 1; n <= (size_t)1 << 32; n *= 2) {
        unsigned blocks = step09.plan(n, &request).blocks;
        cr_expect_geq(blocks, previous, "n=%zu: %u blocks, fewer than for n/2", n, blocks);
        cr_expect_leq(blocks, most, "n=%zu: %u blocks, more than the device holds", n, blocks);
        previous = blocks;
    }
    cr_expect_geq(previous, (unsigned)request.sm_count, "the largest n leaves SMs idle");
    request.blocks = 77;
    cr_expect_eq(step09.plan(1, &request).blocks, 77u);
}
