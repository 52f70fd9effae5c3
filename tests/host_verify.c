/* common/verify.c on the host: the reference sum, when a float total must be exact, and the
 * error bound otherwise (docs/verification.md). Expected values come from independent
 * arithmetic here: integer sums, and Higham's gamma written out again. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

static const double FLOAT_U = 0x1p-24, DOUBLE_U = 0x1p-53; /* unit roundoffs */
static const double TWO_TO_24 = 16777216.0, SAME_DOUBLE = 1e-12;
/* A magnitude that swallows 1 in double: the spacing of doubles at 2^60 is 2^8. */
static const float SWALLOWS_ONE = 0x1p60f;
static const float ONE_UNIFORM_ELEMENT = 50.0f;
enum {
    ONES_N = 4096,
    UNIFORM_N = 65536,
    LARGE_N = 1000003,
    HIDDEN_ONES = 1000,
    SOME_DEPTH = 17,
    DEEPEST = 100,
    MANY_THREADS = 4,
    REAL_STEPS_PER_UNIT = 1 << 23,
    DEPTH_WITHOUT_BOUND = 1 << 23 /* gamma(2^23) in float is 1 */
};

/* gamma(k) = k u / (1 - k u) */
static double gamma_of(double k, double u)
{
    return k * u / (1 - k * u);
}

static float *filled(size_t n, enum pattern_kind kind, uint64_t seed)
{
    float *data = malloc((n ? n : 1) * sizeof *data);
    cr_assert_not_null(data);
    pattern_fill(data, n, &(struct pattern){.kind = kind, .onehot_last = true}, seed);
    return data;
}

/* Integer data with sum|x| just above 2^24: not exact, so the bound is gamma * sum|x|. */
static struct reference inexact_integer_reference(void)
{
    static const float data[] = {16777216.0f, 1.0f};
    struct reference reference = reference_compute(data, 2);
    cr_assert(reference.integer_valued && !reference_is_exact(&reference));
    return reference;
}

/* ---- reference_compute -------------------------------------------------------------------- */

Test(verify, reference_sums_values_and_magnitudes_and_counts)
{
    static const float data[] = {1.0f, -2.0f, 3.0f};
    struct reference reference = reference_compute(data, 3);
    cr_expect_eq(reference.sum, 2.0);
    cr_expect_eq(reference.abs_sum, 6.0);
    cr_expect_eq(reference.n, 3);
    cr_expect(reference.integer_valued);
}

Test(verify, reference_of_nothing_is_an_exact_zero)
{
    static const float unused = 0;
    struct reference reference = reference_compute(&unused, 0);
    cr_expect(reference.sum == 0 && reference.abs_sum == 0 && reference.n == 0);
    cr_expect(reference_is_exact(&reference));
    cr_expect(result_within(0.0f, &reference, error_bound(&reference, SOME_DEPTH)));
}

Test(verify, integer_valued_is_false_for_any_fraction)
{
    static const float fraction[] = {1.0f, 2.0f, 0.5f, 4.0f}, negative_half[] = {-0.5f};
    cr_expect_not(reference_compute(fraction, 4).integer_valued);
    cr_expect_eq(reference_compute(fraction, 4).sum, 7.5);
    cr_expect_not(reference_compute(negative_half, 1).integer_valued);
    static const float integers[] = {-3.0f, 0.0f, 16777216.0f};
    cr_expect(reference_compute(integers, 3).integer_valued);
}

Test(verify, reference_is_exact_for_integer_data_of_any_size)
{
    float *data = filled(LARGE_N, PATTERN_UNIFORM, 2026);
    uint64_t exact = 0;
    for (size_t i = 0; i < LARGE_N; i++) exact += (uint64_t)data[i];
    struct reference reference = reference_compute(data, LARGE_N);
    cr_expect_eq(reference.sum, (double)exact, "%.17g, the integer sum is %llu", reference.sum,
                 (unsigned long long)exact);
    cr_expect_eq(reference.abs_sum, (double)exact);
    free(data);
}

/* real's values are multiples of 2^-23, so their sum in units of 2^-23 is an exact integer. */
Test(verify, reference_is_exact_for_the_real_pattern_and_the_same_on_any_thread_count)
{
    float *data = filled(LARGE_N, PATTERN_REAL, 2026);
    int64_t units = 0;
    for (size_t i = 0; i < LARGE_N; i++) units += (int64_t)((double)data[i] * REAL_STEPS_PER_UNIT);
    omp_set_num_threads(1);
    struct reference one = reference_compute(data, LARGE_N);
    omp_set_num_threads(MANY_THREADS);
    struct reference many = reference_compute(data, LARGE_N);
    cr_expect_eq(one.sum, (double)units / REAL_STEPS_PER_UNIT, "%.17g", one.sum);
    cr_expect_eq(one.sum, many.sum, "1 thread %.17g, %d threads %.17g", one.sum, MANY_THREADS,
                 many.sum);
    cr_expect_not(one.integer_valued);
    free(data);
}

/* 2^60, a thousand ones, -2^60: a plain double sum loses every one of them. */
Test(verify, compensated_sum_keeps_what_a_plain_double_sum_loses)
{
    float data[HIDDEN_ONES + 2];
    double plain = 0;
    data[0] = SWALLOWS_ONE;
    for (int i = 1; i <= HIDDEN_ONES; i++) data[i] = 1.0f;
    data[HIDDEN_ONES + 1] = -SWALLOWS_ONE;
    for (int i = 0; i < HIDDEN_ONES + 2; i++) plain += data[i];
    cr_assert_eq(plain, 0.0, "the case is not hard: a plain sum gives %g", plain);
    cr_expect_eq(reference_compute(data, HIDDEN_ONES + 2).sum, (double)HIDDEN_ONES);
}

/* ---- reference_is_exact ------------------------------------------------------------------- */

Test(verify, integer_data_up_to_2_to_24_is_exact_and_above_is_not)
{
    static const float at_limit[] = {16777215.0f, 1.0f}, above[] = {16777215.0f, 2.0f};
    struct reference at = reference_compute(at_limit, 2), over = reference_compute(above, 2);
    cr_expect_eq(at.abs_sum, TWO_TO_24);
    cr_expect(reference_is_exact(&at), "sum|x| = 2^24 is still exact");
    cr_expect_not(reference_is_exact(&over), "sum|x| = 2^24 + 1 is not");
}

Test(verify, the_limit_is_on_the_absolute_sum_not_the_sum)
{
    /* The sum is 0, but adding the two positives first reaches 2^24 + 3: not a float. */
    static const float data[] = {8388609.0f, 8388610.0f, -8388609.0f, -8388610.0f};
    struct reference reference = reference_compute(data, 4);
    cr_expect_eq(reference.sum, 0.0);
    cr_expect_not(reference_is_exact(&reference));
}

/* ---- rounding_gamma and error_bound ------------------------------------------------------- */

Test(verify, rounding_gamma_is_k_u_over_1_minus_k_u_and_infinite_past_1)
{
    cr_expect_eq(rounding_gamma(0, FLOAT_U), 0.0);
    cr_expect_leq(fabs(rounding_gamma(26, FLOAT_U) - gamma_of(26, FLOAT_U)),
                  SAME_DOUBLE * gamma_of(26, FLOAT_U));
    cr_expect_leq(fabs(rounding_gamma(0x1p23, FLOAT_U) - 1.0), SAME_DOUBLE, "k u = 1/2 gives 1");
    cr_expect(isinf(rounding_gamma(0x1p24, FLOAT_U)), "k u = 1: no bound");
    cr_expect(isinf(rounding_gamma(0x1p25, FLOAT_U)), "k u > 1: no bound");
}

Test(verify, bound_is_zero_when_exact_at_every_depth)
{
    float *ones = filled(ONES_N, PATTERN_ONES, 0);
    struct reference reference = reference_compute(ones, ONES_N);
    for (unsigned depth = 0; depth <= DEEPEST; depth++)
        cr_expect_eq(error_bound(&reference, depth), 0.0, "depth %u", depth);
    free(ones);
}

Test(verify, bound_for_inexact_integer_data_is_gamma_of_depth_times_abs_sum)
{
    struct reference reference = inexact_integer_reference();
    static const unsigned DEPTHS[] = {1, 2, 10, 26, 1000};
    for (size_t i = 0; i < sizeof DEPTHS / sizeof DEPTHS[0]; i++) {
        double expected = gamma_of(DEPTHS[i], FLOAT_U) * reference.abs_sum;
        double bound = error_bound(&reference, DEPTHS[i]);
        cr_expect_leq(fabs(bound - expected), SAME_DOUBLE * expected,
                      "depth %u: %.17g, expected %.17g", DEPTHS[i], bound, expected);
    }
}

Test(verify, bound_for_real_data_adds_the_double_references_own_error)
{
    static const float data[] = {16777216.0f, 0.5f, -3.25f};
    struct reference reference = reference_compute(data, 3);
    double expected = (gamma_of(SOME_DEPTH, FLOAT_U) + gamma_of(3, DOUBLE_U)) * reference.abs_sum;
    double bound = error_bound(&reference, SOME_DEPTH);
    cr_expect_leq(fabs(bound - expected), SAME_DOUBLE * expected, "%.17g, expected %.17g", bound,
                  expected);
}

Test(verify, bound_grows_with_depth)
{
    struct reference reference = inexact_integer_reference();
    for (unsigned depth = 1; depth < DEEPEST; depth++)
        cr_expect_lt(error_bound(&reference, depth), error_bound(&reference, depth + 1), "depth %u",
                     depth);
}

/* ---- result_within ------------------------------------------------------------------------ */

Test(verify, result_within_refuses_nan_and_infinity_even_with_an_infinite_bound)
{
    static const float data[] = {1.0f, 2.0f};
    struct reference reference = reference_compute(data, 2);
    cr_expect_not(result_within(NAN, &reference, INFINITY));
    cr_expect_not(result_within(INFINITY, &reference, INFINITY));
    cr_expect_not(result_within(-INFINITY, &reference, INFINITY));
    cr_expect(result_within(3.0f, &reference, 0), "the right total passes with no slack");
}

Test(verify, result_within_includes_the_bound_itself)
{
    static const float data[] = {100.0f};
    struct reference reference = reference_compute(data, 1);
    cr_expect(result_within(101.0f, &reference, 1.0));
    cr_expect(result_within(99.0f, &reference, 1.0));
    cr_expect_not(result_within(101.0f, &reference, nextafter(1.0, 0)));
    cr_expect_not(result_within(99.0f, &reference, nextafter(1.0, 0)));
}

/* An infinite bound is no bound: nothing passes it, not even the right total. */
Test(verify, result_within_refuses_every_result_with_an_infinite_bound)
{
    static const float data[] = {1.0f, 2.0f};
    struct reference reference = reference_compute(data, 2);
    cr_expect_not(bound_judges(&reference, INFINITY));
    cr_expect_not(bound_judges(&reference, NAN));
    cr_expect_not(result_within(3.0f, &reference, INFINITY), "the right total cannot be judged");
    cr_expect_not(result_within(0.0f, &reference, INFINITY), "every element lost");
}

/* A bound of sum|x| or more passes 0, the sum of nothing: it judges no result. Just below
 * sum|x| it still judges, and 0 fails it. */
Test(verify, a_bound_as_wide_as_the_sum_of_magnitudes_judges_nothing)
{
    struct reference reference = inexact_integer_reference();
    double wide = reference.abs_sum, narrower = nextafter(reference.abs_sum, 0);
    cr_expect_not(bound_judges(&reference, wide));
    cr_expect_not(bound_judges(&reference, 2 * wide));
    cr_expect_not(result_within(0.0f, &reference, wide), "every element lost passed");
    cr_expect_not(result_within((float)reference.sum, &reference, wide),
                  "the right total cannot be judged either");
    cr_expect(bound_judges(&reference, narrower));
    cr_expect(result_within((float)reference.sum, &reference, narrower));
    cr_expect_not(result_within(0.0f, &reference, narrower));
}

/* A chain of 2^23 float additions gives the bound sum|x| (step16's warp kernel at 1 x 2^30
 * has depth 8,388,617); one addition fewer, and the bound judges. */
Test(verify, a_chain_of_2_to_23_float_additions_cannot_be_judged)
{
    struct reference reference = inexact_integer_reference();
    double at_half = error_bound(&reference, DEPTH_WITHOUT_BOUND),
           below = error_bound(&reference, DEPTH_WITHOUT_BOUND - 1);
    cr_expect_geq(at_half, reference.abs_sum);
    cr_expect_not(bound_judges(&reference, at_half));
    cr_expect_not(result_within((float)reference.sum, &reference, at_half));
    cr_expect(bound_judges(&reference, below), "%.17g below %.17g", below, reference.abs_sum);
    cr_expect(result_within((float)reference.sum, &reference, below));
}

/* Zeros have sum|x| = 0: their bound of 0 still judges (exactly). */
Test(verify, a_bound_of_zero_judges_data_without_magnitude)
{
    static const float zeros[] = {0.0f, -0.0f};
    struct reference reference = reference_compute(zeros, 2);
    cr_expect(bound_judges(&reference, 0));
    cr_expect(result_within(0.0f, &reference, error_bound(&reference, SOME_DEPTH)));
}

/* What every step relies on: one element lost or counted twice fails. */
Test(verify, a_lost_or_doubled_element_fails)
{
    float *ones = filled(ONES_N, PATTERN_ONES, 0), *onehot = filled(ONES_N, PATTERN_ONEHOT, 0);
    struct reference r_ones = reference_compute(ones, ONES_N),
                     r_hot = reference_compute(onehot, ONES_N);
    double bound = error_bound(&r_ones, tree_levels(ONES_N)),
           hot_bound = error_bound(&r_hot, SOME_DEPTH);
    cr_expect(result_within((float)ONES_N, &r_ones, bound));
    cr_expect_not(result_within((float)(ONES_N - 1), &r_ones, bound), "one element lost");
    cr_expect_not(result_within((float)(ONES_N + 1), &r_ones, bound), "one element twice");
    cr_expect(result_within(1.0f, &r_hot, hot_bound));
    cr_expect_not(result_within(0.0f, &r_hot, hot_bound), "the hot element lost");
    cr_expect_not(result_within(2.0f, &r_hot, hot_bound), "the hot element twice");
    free(ones);
    free(onehot);
}

Test(verify, a_uniform_total_missing_one_element_fails_while_exact)
{
    float *data = filled(UNIFORM_N, PATTERN_UNIFORM, 2026);
    struct reference reference = reference_compute(data, UNIFORM_N);
    cr_assert(reference_is_exact(&reference), "the case needs an exact total");
    double bound = error_bound(&reference, tree_levels(UNIFORM_N) + 1);
    cr_expect(result_within((float)reference.sum, &reference, bound));
    cr_expect_not(result_within((float)reference.sum - ONE_UNIFORM_ELEMENT, &reference, bound));
    free(data);
}

/* CUB's total (common/timing.cu): its own sum passes, a lost block (of 2^20 uniform), a
 * missing write (the NaN poison) and a doubled total fail. No GPU: the bound then assumes one
 * SM, the loosest it takes. */
Test(verify, cub_total_is_judged_against_the_data)
{
    enum { N = 1 << 20, LOST_BLOCK = 4096 };
    struct input input = {.n = N, .host = filled(N, PATTERN_UNIFORM, 2026)};
    input.reference = reference_compute(input.host, N);
    double lost = 0;
    for (size_t i = 0; i < LOST_BLOCK; i++) lost += input.host[i];
    cr_expect(cub_total_right(&input, (float)input.reference.sum));
    struct capture capture;
    capture_begin(&capture, STDERR_FILENO);
    bool lost_passed = cub_total_right(&input, (float)(input.reference.sum - lost)),
         nan_passed = cub_total_right(&input, NAN),
         doubled_passed = cub_total_right(&input, (float)(2 * input.reference.sum));
    char *said = capture_end(&capture);
    cr_expect_not(lost_passed, "a block of %d elements lost", LOST_BLOCK);
    cr_expect_not(nan_passed, "nothing written");
    cr_expect_not(doubled_passed, "the total twice");
    cr_expect_not_null(strstr(said, "cub::DeviceReduce::Sum gave"), "%s", said);
    free(said);
    free(input.host);
}

/* ---- tree_levels -------------------------------------------------------------------------- */

Test(verify, tree_levels_is_ceil_log2)
{
    static const struct {
        size_t count;
        unsigned levels;
    } CASES[] = {
        {0, 0},
        {1, 0},
        {2, 1},
        {3, 2},
        {4, 2},
        {5, 3},
        {32, 5},
        {33, 6},
        {256, 8},
        {257, 9},
        {1024, 10},
        {1025, 11},
        {(size_t)1 << 32, 32},
        {((size_t)1 << 32) + 1, 33},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        cr_expect_eq(tree_levels(CASES[i].count), CASES[i].levels, "tree_levels(%zu) = %u",
                     CASES[i].count, tree_levels(CASES[i].count));
}
