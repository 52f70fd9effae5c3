/* Every step of the registry (and every correct variant of it) against the reference:
 * the foundation's N x pattern matrix, both finishes, every N up to 4096, every block size.
 * Steps with their own runner (step10) bring their own tests. Without a device every test
 * here is skipped, never passed. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_support.h"
#include "registry.h"
#include "run.h"

enum { MAX_CASES = 64, SWEEP_LAST_N = 4096, TEST_TIMEOUT_S = 900 };
static const size_t BLOCK_SIZE_TEST_SIZES[] = {1, 33, 1025, 65537, 1000003};

struct step_case {
    int step_index;
    int variant;
};

static size_t collect_cases(struct step_case *cases, bool host_finish_only)
{
    size_t count = 0;
    for (int s = 0; s < all_steps_count; s++) {
        const struct step *step = all_steps[s];
        if (step->run != NULL || (host_finish_only && step->reduce != NULL)) continue;
        int variants = step_variant_count(step);
        for (int v = 0; v < (variants ? variants : 1); v++)
            if (variants == 0 || step->variants[v].correct)
                cases[count++] = (struct step_case){s, v};
    }
    return count;
}

static const struct step *begin(const struct step_case *c)
{
    require_cuda_device();
    const struct step *step = all_steps[c->step_index];
    cr_log_info("%s%s%s", step->name, step->variants ? " variant " : "",
                step->variants ? step->variants[c->variant].name : "");
    return step;
}

static float *allocate_floats(size_t n)
{
    float *data = malloc((n ? n : 1) * sizeof *data);
    cr_assert_not_null(data, "out of host memory for %zu floats", n);
    return data;
}

/* The matrix's patterns for one n: uniform, ones, onehot first, last, and random. */
static void check_patterns(const struct step *step, const struct launch_request *request,
                           enum finish finish, size_t n, float *data,
                           const struct reduction_buffers *buffers)
{
    uint64_t state = n;
    struct pattern patterns[5] = {{.kind = PATTERN_UNIFORM}, {.kind = PATTERN_ONES},
                                  {PATTERN_ONEHOT, false, 0},
                                  {PATTERN_ONEHOT, true, 0},
                                  {PATTERN_ONEHOT, false, n ? random_next(&state) % n : 0}};
    for (int p = 0; p < 5; p++) {
        size_t position;
        /* n = 0 has no element to make hot: the CLI rejects it, so there is no case. */
        if (patterns[p].kind == PATTERN_ONEHOT &&
            !pattern_onehot_position(&patterns[p], n, &position))
            continue;
        char name[64];
        pattern_fill(data, n, &patterns[p], n + (uint64_t)p);
        expect_correct_total(step, buffers, request, finish, data, n,
                             pattern_describe(&patterns[p], name, sizeof name));
    }
}

static void check_matrix(const struct step *step, const struct launch_request *request,
                         enum finish finish)
{
    for (int i = 0; i < MATRIX_SIZES_COUNT; i++) {
        size_t n = MATRIX_SIZES[i];
        float *data = allocate_floats(n);
        struct reduction_buffers buffers;
        cr_assert(reduction_buffers_create(&buffers, step, n, request, false));
        check_patterns(step, request, finish, n, data, &buffers);
        reduction_buffers_destroy(&buffers);
        free(data);
    }
}

ParameterizedTestParameters(gpu_steps, matrix)
{
    static struct step_case cases[MAX_CASES];
    return cr_make_param_array(struct step_case, cases, collect_cases(cases, false));
}

ParameterizedTest(struct step_case *c, gpu_steps, matrix, .timeout = TEST_TIMEOUT_S)
{
    const struct step *step = begin(c);
    struct launch_request request = test_request(step, 0, c->variant);
    check_matrix(step, &request, FINISH_GPU);
}

ParameterizedTestParameters(gpu_steps, host_finish)
{
    static struct step_case cases[MAX_CASES];
    return cr_make_param_array(struct step_case, cases, collect_cases(cases, true));
}

ParameterizedTest(struct step_case *c, gpu_steps, host_finish, .timeout = TEST_TIMEOUT_S)
{
    const struct step *step = begin(c);
    struct launch_request request = test_request(step, 0, c->variant);
    check_matrix(step, &request, FINISH_CPU);
}

ParameterizedTestParameters(gpu_steps, every_size_to_4096)
{
    static struct step_case cases[MAX_CASES];
    return cr_make_param_array(struct step_case, cases, collect_cases(cases, false));
}

/* Exact patterns at every n: a lost or double-counted element changes the total by 1. */
ParameterizedTest(struct step_case *c, gpu_steps, every_size_to_4096, .timeout = TEST_TIMEOUT_S)
{
    const struct step *step = begin(c);
    struct launch_request request = test_request(step, 0, c->variant);
    struct reduction_buffers buffers;
    float *ones = allocate_floats(SWEEP_LAST_N), *last_hot = allocate_floats(SWEEP_LAST_N);
    struct pattern ones_pattern = {.kind = PATTERN_ONES};
    pattern_fill(ones, SWEEP_LAST_N, &ones_pattern, 0);
    memset(last_hot, 0, SWEEP_LAST_N * sizeof *last_hot);
    cr_assert(reduction_buffers_create(&buffers, step, SWEEP_LAST_N, &request, false));
    for (size_t n = 1; n <= SWEEP_LAST_N; n++) {
        expect_correct_total(step, &buffers, &request, FINISH_GPU, ones, n, "ones");
        last_hot[n - 1] = 1.0f;
        expect_correct_total(step, &buffers, &request, FINISH_GPU, last_hot, n, "onehot:last");
        last_hot[n - 1] = 0.0f;
    }
    reduction_buffers_destroy(&buffers);
    free(ones);
    free(last_hot);
}

ParameterizedTestParameters(gpu_steps, every_block_size)
{
    static struct step_case cases[MAX_CASES];
    return cr_make_param_array(struct step_case, cases, collect_cases(cases, false));
}

ParameterizedTest(struct step_case *c, gpu_steps, every_block_size, .timeout = TEST_TIMEOUT_S)
{
    const struct step *step = begin(c);
    for (unsigned threads = step->threads.min; threads <= step->threads.max; threads *= 2) {
        struct launch_request request = test_request(step, threads, c->variant);
        for (size_t i = 0; i < sizeof BLOCK_SIZE_TEST_SIZES / sizeof *BLOCK_SIZE_TEST_SIZES; i++) {
            size_t n = BLOCK_SIZE_TEST_SIZES[i];
            float *data = allocate_floats(n);
            struct reduction_buffers buffers;
            cr_assert(reduction_buffers_create(&buffers, step, n, &request, false));
            check_patterns(step, &request, FINISH_GPU, n, data, &buffers);
            reduction_buffers_destroy(&buffers);
            free(data);
        }
    }
}

/* Steps that destroy their input (step00) must give the same total after a restore. */
ParameterizedTestParameters(gpu_steps, repeatable_after_restore)
{
    static struct step_case cases[MAX_CASES];
    return cr_make_param_array(struct step_case, cases, collect_cases(cases, false));
}

ParameterizedTest(struct step_case *c, gpu_steps, repeatable_after_restore)
{
    const struct step *step = begin(c);
    struct launch_request request = test_request(step, 0, c->variant);
    enum { N = 1000003 };
    float *data = allocate_floats(N), totals[2];
    struct pattern uniform = {.kind = PATTERN_UNIFORM};
    pattern_fill(data, N, &uniform, 7);
    struct reduction_buffers buffers;
    cr_assert(reduction_buffers_create(&buffers, step, N, &request, false) &&
              reduction_upload(&buffers, data, N));
    for (int run = 0; run < 2; run++) {
        struct reduction_outcome outcome;
        cr_assert(reduction_restore(step, &buffers, N) &&
                  reduction_run(step, &buffers, N, &request, FINISH_GPU, 0, &outcome) &&
                  reduction_total(&outcome, &totals[run]));
    }
    cr_expect_eq(totals[0], totals[1], "%s: %.9g then %.9g on the same input", step->name,
                 totals[0], totals[1]);
    reduction_buffers_destroy(&buffers);
    free(data);
}
