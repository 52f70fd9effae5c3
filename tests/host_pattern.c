/* common/pattern.c on the host: the data every step reduces. Each pattern keeps its promise
 * (range, distribution, exact sums where it promises them), and element i depends only on
 * the seed and i: on no other element, not on n, not on the number of host threads. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "toolbox.h"

enum {
    LARGE_N = 1 << 20,
    SMALL_N = 1000,
    ODD_N = 4099,
    ONEHOT_INDEX = 123,
    UNIFORM_VALUES = 100,
    WIDE_BINADES = 62,
    MANY_THREADS = 4
};
static const uint64_t SEED = 2026, OTHER_SEED = 2027;

/* Published outputs of splitmix64 from state 0 (Steele, Lea and Flood 2014; Vigna's
 * splitmix64.c): what "the same data on every machine" rests on. */
static const uint64_t SPLITMIX64_FROM_ZERO[] = {0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull,
                                                0x06C45D188009454Full};
enum { SPLITMIX64_KNOWN = sizeof SPLITMIX64_FROM_ZERO / sizeof SPLITMIX64_FROM_ZERO[0] };

/* Statistical tolerances at LARGE_N, each many standard errors wide yet far tighter than a
 * wrong distribution would land: uniform 0..99 has sd 28.9 (standard error of the mean 0.03);
 * [-1, 1) has sd 0.58 (0.0006); the normal's mean 0.001, its sd about 0.0007, and the share
 * within one sd (0.6827) 0.0005. */
static const double UNIFORM_MEAN = (UNIFORM_VALUES - 1) / 2.0, UNIFORM_MEAN_TOLERANCE = 0.5;
static const double REAL_MEAN_TOLERANCE = 0.005, NORMAL_MEAN_TOLERANCE = 0.01;
static const double NORMAL_SD_TOLERANCE = 0.01, WITHIN_ONE_SD = 0.6827, SHARE_TOLERANCE = 0.005;
static const double HALF = 0.5, SIGN_SHARE_TOLERANCE = 0.01;
/* A normal sample of 2^20 has about 66 elements beyond 4 sd: none would mean clipped tails. */
static const double NORMAL_TAIL = 4.0;
/* real: 24 random bits scaled to [-1, 1), so every value is a multiple of 2^-23. */
static const double REAL_STEP = 0x1p-23;
/* wide: magnitudes 1.f x 2^e for e in -30..31. */
static const double WIDE_LOWEST = 0x1p-30, WIDE_ABOVE = 0x1p32;
/* cancel: x (|x| in [2^10, 2^20)) then -x + r, r in [-1, 1), rounded to float: half an ulp at
 * 2^20 is 2^-5. */
static const double CANCEL_SMALLEST_LARGE = 0x1p10, CANCEL_PAIR_LIMIT = 1 + 0x1p-5;

static float *filled(size_t n, struct pattern pattern, uint64_t seed)
{
    float *data = malloc((n ? n : 1) * sizeof *data);
    cr_assert_not_null(data);
    for (size_t i = 0; i < n; i++) data[i] = NAN; /* an element the fill skips shows */
    pattern_fill(data, n, &pattern, seed);
    return data;
}
#define KIND(k) ((struct pattern){.kind = (k)})

static void expect_all_finite(const float *data, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(isfinite(data[i]), "%s: element %zu is %g", what, i, data[i]);
}

/* ---- the generator ---------------------------------------------------------------------- */

Test(pattern, random_at_is_splitmix64)
{
    for (int i = 0; i < SPLITMIX64_KNOWN; i++)
        cr_expect_eq(random_at(0, (uint64_t)i), SPLITMIX64_FROM_ZERO[i], "output %d: %#llx", i,
                     (unsigned long long)random_at(0, (uint64_t)i));
}

Test(pattern, uniform_is_the_generator_modulo_100)
{
    float *data = filled(SPLITMIX64_KNOWN, KIND(PATTERN_UNIFORM), 0);
    for (int i = 0; i < SPLITMIX64_KNOWN; i++)
        cr_expect_eq(data[i], (float)(SPLITMIX64_FROM_ZERO[i] % UNIFORM_VALUES), "element %d: %g",
                     i, data[i]);
    free(data);
}

/* ---- each pattern's promise --------------------------------------------------------------- */

Test(pattern, uniform_is_integers_0_to_99_all_of_them_mean_49_5)
{
    float *data = filled(LARGE_N, KIND(PATTERN_UNIFORM), SEED);
    bool seen[UNIFORM_VALUES] = {false};
    double sum = 0;
    for (size_t i = 0; i < LARGE_N; i++) {
        float x = data[i];
        cr_assert(x >= 0 && x < UNIFORM_VALUES && x == floorf(x), "element %zu is %g", i, x);
        seen[(int)x] = true;
        sum += x;
    }
    for (int v = 0; v < UNIFORM_VALUES; v++) cr_expect(seen[v], "%d never appears", v);
    cr_expect_leq(fabs(sum / LARGE_N - UNIFORM_MEAN), UNIFORM_MEAN_TOLERANCE, "mean %.4f",
                  sum / LARGE_N);
    free(data);
}

Test(pattern, ones_are_all_one)
{
    float *data = filled(SMALL_N, KIND(PATTERN_ONES), SEED);
    for (size_t i = 0; i < SMALL_N; i++)
        cr_assert_eq(data[i], 1.0f, "element %zu is %g", i, data[i]);
    free(data);
}

/* Exactly one element is 1, at `hot`; every other one is 0. */
static void expect_one_hot_at(const float *data, size_t n, size_t hot, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(data[i], i == hot ? 1.0f : 0.0f, "%s: element %zu is %g", what, i, data[i]);
}

Test(pattern, onehot_sets_exactly_the_first_the_last_or_element_k)
{
    struct pattern first = {.kind = PATTERN_ONEHOT, .onehot_index = 0};
    struct pattern last = {.kind = PATTERN_ONEHOT, .onehot_last = true};
    struct pattern k = {.kind = PATTERN_ONEHOT, .onehot_index = ONEHOT_INDEX};
    float *data = filled(SMALL_N, first, SEED);
    expect_one_hot_at(data, SMALL_N, 0, "onehot:0");
    free(data);
    data = filled(SMALL_N, last, SEED);
    expect_one_hot_at(data, SMALL_N, SMALL_N - 1, "onehot:last");
    free(data);
    data = filled(1, last, SEED);
    expect_one_hot_at(data, 1, 0, "onehot:last, n = 1");
    free(data);
    data = filled(SMALL_N, k, SEED);
    expect_one_hot_at(data, SMALL_N, ONEHOT_INDEX, "onehot:123");
    free(data);
}

Test(pattern, onehot_beyond_n_leaves_only_zeros)
{
    struct pattern beyond = {.kind = PATTERN_ONEHOT, .onehot_index = SMALL_N};
    float *data = filled(SMALL_N, beyond, SEED);
    expect_one_hot_at(data, SMALL_N, SMALL_N, "onehot:1000, n = 1000");
    free(data);
}

Test(pattern, onehot_position_resolves_last_against_n)
{
    struct pattern last = {.kind = PATTERN_ONEHOT, .onehot_last = true};
    struct pattern k = {.kind = PATTERN_ONEHOT, .onehot_index = ONEHOT_INDEX};
    struct pattern not_onehot = {.kind = PATTERN_UNIFORM};
    size_t position = 0;
    cr_expect(pattern_onehot_position(&last, SMALL_N, &position));
    cr_expect_eq(position, SMALL_N - 1);
    cr_expect(pattern_onehot_position(&k, ONEHOT_INDEX + 1, &position));
    cr_expect_eq(position, ONEHOT_INDEX);
    cr_expect_not(pattern_onehot_position(&k, ONEHOT_INDEX, &position), "index == n");
    cr_expect_not(pattern_onehot_position(&last, 0, &position), "onehot:last, n = 0");
    cr_expect_not(pattern_onehot_position(&not_onehot, SMALL_N, &position),
                  "uniform has no hot element");
}

Test(pattern, real_is_in_minus_1_to_1_in_steps_of_2_to_minus_23)
{
    float *data = filled(LARGE_N, KIND(PATTERN_REAL), SEED);
    double sum = 0, lowest = 1, highest = -1;
    size_t integers = 0;
    for (size_t i = 0; i < LARGE_N; i++) {
        double x = data[i];
        cr_assert(x >= -1 && x < 1, "element %zu is %.9g", i, x);
        cr_assert_eq(x / REAL_STEP, floor(x / REAL_STEP), "element %zu is %.9g", i, x);
        sum += x;
        lowest = fmin(lowest, x);
        highest = fmax(highest, x);
        integers += x == floor(x);
    }
    cr_expect_leq(fabs(sum / LARGE_N), REAL_MEAN_TOLERANCE, "mean %.5f", sum / LARGE_N);
    cr_expect_lt(lowest, -0.999, "lowest %.6f: the range is not filled", lowest);
    cr_expect_gt(highest, 0.999, "highest %.6f: the range is not filled", highest);
    cr_expect_lt(integers, LARGE_N / 100, "%zu integers: real data must round", integers);
    free(data);
}

Test(pattern, normal_has_mean_0_and_sd_1)
{
    float *data = filled(LARGE_N, KIND(PATTERN_NORMAL), SEED);
    expect_all_finite(data, LARGE_N, "normal");
    double sum = 0, squares = 0;
    size_t within_one = 0, tail = 0;
    for (size_t i = 0; i < LARGE_N; i++) {
        double x = data[i];
        sum += x;
        squares += x * x;
        within_one += fabs(x) < 1;
        tail += fabs(x) > NORMAL_TAIL;
    }
    double mean = sum / LARGE_N, sd = sqrt(squares / LARGE_N - mean * mean);
    cr_expect_leq(fabs(mean), NORMAL_MEAN_TOLERANCE, "mean %.5f", mean);
    cr_expect_leq(fabs(sd - 1), NORMAL_SD_TOLERANCE, "sd %.5f", sd);
    cr_expect_leq(fabs((double)within_one / LARGE_N - WITHIN_ONE_SD), SHARE_TOLERANCE,
                  "%.4f within 1 sd", (double)within_one / LARGE_N);
    cr_expect_gt(tail, 0, "no element beyond 4 sd: the tails are missing");
    free(data);
}

Test(pattern, wide_spans_2_to_minus_30_to_2_to_32_with_both_signs)
{
    float *data = filled(LARGE_N, KIND(PATTERN_WIDE), SEED);
    bool binade[WIDE_BINADES] = {false};
    size_t positive = 0;
    int binades = 0;
    for (size_t i = 0; i < LARGE_N; i++) {
        double magnitude = fabs(data[i]);
        cr_assert(magnitude >= WIDE_LOWEST && magnitude < WIDE_ABOVE, "element %zu is %g", i,
                  data[i]);
        int exponent;
        frexp(magnitude, &exponent); /* magnitude = m 2^exponent, m in [0.5, 1) */
        binade[exponent - 1 - (int)log2(WIDE_LOWEST)] = true;
        positive += data[i] > 0;
    }
    for (int b = 0; b < WIDE_BINADES; b++) binades += binade[b];
    cr_expect_eq(binades, WIDE_BINADES, "only %d of the %d binades appear", binades, WIDE_BINADES);
    cr_expect_leq(fabs((double)positive / LARGE_N - HALF), SIGN_SHARE_TOLERANCE,
                  "%zu positive of %d", positive, LARGE_N);
    free(data);
}

Test(pattern, cancel_pairs_are_large_and_sum_to_at_most_about_1)
{
    float *data = filled(ODD_N, KIND(PATTERN_CANCEL), SEED);
    size_t nonzero_pairs = 0;
    for (size_t i = 0; i + 1 < ODD_N; i += 2) {
        double pair = (double)data[i] + data[i + 1];
        cr_assert_geq(fabs(data[i]), CANCEL_SMALLEST_LARGE, "element %zu is %g", i, data[i]);
        cr_assert_leq(fabs(pair), CANCEL_PAIR_LIMIT, "elements %zu, %zu: %g + %g", i, i + 1,
                      data[i], data[i + 1]);
        nonzero_pairs += pair != 0;
    }
    cr_expect_geq(fabs(data[ODD_N - 1]), CANCEL_SMALLEST_LARGE, "the unpaired last element");
    cr_expect_gt(nonzero_pairs, ODD_N / 4, "the pairs must leave a remainder, not cancel exactly");
    struct reference reference = reference_compute(data, ODD_N - 1);
    cr_expect_lt(fabs(reference.sum), ODD_N * CANCEL_PAIR_LIMIT / 2);
    cr_expect_gt(reference.abs_sum, (ODD_N - 1) * CANCEL_SMALLEST_LARGE);
    free(data);
}

/* ---- element i depends only on the seed and i --------------------------------------------- */

static const enum pattern_kind RANDOM_KINDS[] = {PATTERN_UNIFORM, PATTERN_REAL, PATTERN_NORMAL,
                                                 PATTERN_WIDE, PATTERN_CANCEL};
enum { RANDOM_KIND_COUNT = sizeof RANDOM_KINDS / sizeof RANDOM_KINDS[0] };

Test(pattern, element_i_does_not_depend_on_n)
{
    for (int k = 0; k < RANDOM_KIND_COUNT; k++) {
        float *shorter = filled(SMALL_N, KIND(RANDOM_KINDS[k]), SEED);
        float *longer = filled(ODD_N, KIND(RANDOM_KINDS[k]), SEED);
        cr_expect_eq(memcmp(shorter, longer, SMALL_N * sizeof *shorter), 0, "kind %d",
                     RANDOM_KINDS[k]);
        free(shorter);
        free(longer);
    }
}

Test(pattern, element_i_does_not_depend_on_the_number_of_host_threads)
{
    for (int k = 0; k < RANDOM_KIND_COUNT; k++) {
        omp_set_num_threads(1);
        float *one = filled(LARGE_N + 1, KIND(RANDOM_KINDS[k]), SEED);
        omp_set_num_threads(MANY_THREADS);
        float *many = filled(LARGE_N + 1, KIND(RANDOM_KINDS[k]), SEED);
        cr_expect_eq(memcmp(one, many, (LARGE_N + 1) * sizeof *one), 0, "kind %d", RANDOM_KINDS[k]);
        free(one);
        free(many);
    }
}

Test(pattern, the_same_seed_gives_the_same_data_and_another_seed_other_data)
{
    for (int k = 0; k < RANDOM_KIND_COUNT; k++) {
        float *first = filled(SMALL_N, KIND(RANDOM_KINDS[k]), SEED);
        float *again = filled(SMALL_N, KIND(RANDOM_KINDS[k]), SEED);
        float *other = filled(SMALL_N, KIND(RANDOM_KINDS[k]), OTHER_SEED);
        size_t equal = 0;
        for (size_t i = 0; i < SMALL_N; i++) equal += first[i] == other[i];
        cr_expect_eq(memcmp(first, again, SMALL_N * sizeof *first), 0, "kind %d", RANDOM_KINDS[k]);
        /* uniform's independent streams agree on 1 element in 100; the others almost never */
        cr_expect_lt(equal, SMALL_N / 10, "kind %d: %zu of %d elements equal", RANDOM_KINDS[k],
                     equal, SMALL_N);
        free(first);
        free(again);
        free(other);
    }
}

/* ---- names -------------------------------------------------------------------------------- */

Test(pattern, parse_and_name_round_trip)
{
    static const char *const TEXTS[] = {
        "uniform", "ones",     "real",       "normal",      "wide",
        "cancel",  "onehot:0", "onehot:123", "onehot:last", "onehot:18446744073709551615"};
    for (size_t i = 0; i < sizeof TEXTS / sizeof TEXTS[0]; i++) {
        struct pattern pattern;
        char name[48];
        cr_assert(pattern_parse(TEXTS[i], &pattern), "'%s' refused", TEXTS[i]);
        cr_expect_str_eq(pattern_name(&pattern, name, sizeof name), TEXTS[i]);
    }
}

Test(pattern, parse_gives_the_kind_and_forgets_the_previous_parse)
{
    struct pattern pattern;
    cr_assert(pattern_parse("onehot:last", &pattern));
    cr_expect(pattern.kind == PATTERN_ONEHOT && pattern.onehot_last);
    cr_assert(pattern_parse("onehot:42", &pattern));
    cr_expect(pattern.kind == PATTERN_ONEHOT && !pattern.onehot_last && pattern.onehot_index == 42);
    cr_assert(pattern_parse("wide", &pattern));
    cr_expect(pattern.kind == PATTERN_WIDE && !pattern.onehot_last);
}

Test(pattern, parse_refuses_anything_else)
{
    static const char *const BAD[] = {
        "",          "Uniform",      "one",         "ones ",     "onehot",
        "onehot:",   "onehot:x",     "onehot:-1",   "onehot:+1", "onehot: 1",
        "onehot:1x", "onehot:lastx", "onehot:LAST", "zeros",     "real:1"};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        struct pattern pattern;
        cr_expect_not(pattern_parse(BAD[i], &pattern), "'%s' accepted", BAD[i]);
    }
}

/* ones and one-hot are made on the device with no host copy (input_create): the sums
 * pattern_reference gives must be what reference_compute finds in the same elements, and the
 * other patterns have none. */
Test(pattern, known_sums_are_what_the_elements_add_up_to)
{
    static const size_t SIZES[] = {0, 1, 2, 7, 4097, 1000003};
    const struct pattern known[] = {{PATTERN_ONES, false, 0},
                                    {PATTERN_ONEHOT, false, 0},
                                    {PATTERN_ONEHOT, true, 0},
                                    {PATTERN_ONEHOT, false, 4096},
                                    {PATTERN_ONEHOT, false, (size_t)1 << 40}};
    for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++)
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
            size_t n = SIZES[s];
            float *data = filled(n, known[k], SEED);
            struct reference computed = reference_compute(data, n), given;
            char name[48];
            pattern_name(&known[k], name, sizeof name);
            cr_assert(pattern_reference(&known[k], n, &given), "%s has no known sum", name);
            cr_expect(given.sum == computed.sum && given.abs_sum == computed.abs_sum &&
                          given.n == computed.n && given.integer_valued == computed.integer_valued,
                      "%s at n = %zu: given sum %g |sum| %g, the elements add up to %g |sum| %g",
                      name, n, given.sum, given.abs_sum, computed.sum, computed.abs_sum);
            free(data);
        }
    static const enum pattern_kind MADE_ON_THE_HOST[] = {
        PATTERN_UNIFORM, PATTERN_REAL, PATTERN_NORMAL, PATTERN_WIDE, PATTERN_CANCEL};
    for (size_t k = 0; k < sizeof MADE_ON_THE_HOST / sizeof MADE_ON_THE_HOST[0]; k++) {
        struct reference unused;
        cr_expect_not(pattern_reference(&KIND(MADE_ON_THE_HOST[k]), 1, &unused),
                      "pattern %d has a known sum", (int)MADE_ON_THE_HOST[k]);
    }
}
