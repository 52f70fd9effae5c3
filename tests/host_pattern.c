/* common/pattern.c on the host: the input data every step and test reduces. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* Large enough that every one of the 100 values appears and the mean settles. */
enum { LARGE_N = 1 << 20, SMALL_N = 1000, ONEHOT_INDEX = 123 };
/* The documents' rand() % 100: stated here, not taken from pattern.h, so that a change there
 * shows. */
enum { DOCUMENTS_VALUES = 100 };
static const uint64_t SEED = 2026, OTHER_SEED = 2027;

/* Mean of the integers 0..99. The standard error of the mean of LARGE_N of them is about
 * 28.9 / 1024 = 0.03, so 0.5 is far outside chance yet catches a shifted or skewed range. */
static const double UNIFORM_MEAN = (DOCUMENTS_VALUES - 1) / 2.0;
static const double MEAN_TOLERANCE = 0.5;

/* Published outputs of splitmix64 from state 0 (Steele, Lea, Flood 2014; Vigna's
 * splitmix64.c): what "the same data on every machine" rests on. */
static const uint64_t SPLITMIX64_FROM_ZERO[] = {0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull,
                                                0x06C45D188009454Full};
enum { SPLITMIX64_KNOWN = sizeof SPLITMIX64_FROM_ZERO / sizeof SPLITMIX64_FROM_ZERO[0] };

/* Filled with a value no pattern writes, so that a fill that skips an element shows. */
static const float GARBAGE = -7.5f;

static float *allocate_garbage(size_t n)
{
    float *data = malloc(n * sizeof *data);
    cr_assert_not_null(data);
    for (size_t i = 0; i < n; i++) data[i] = GARBAGE;
    return data;
}

static float *filled(size_t n, struct pattern pattern, uint64_t seed)
{
    float *data = allocate_garbage(n);
    pattern_fill(data, n, &pattern, seed);
    return data;
}

static const struct pattern UNIFORM = {.kind = PATTERN_UNIFORM};
static const struct pattern ONES = {.kind = PATTERN_ONES};

Test(host_pattern, generator_is_splitmix64)
{
    uint64_t state = 0;
    for (int i = 0; i < SPLITMIX64_KNOWN; i++) {
        uint64_t value = random_next(&state);
        cr_expect_eq(value, SPLITMIX64_FROM_ZERO[i], "output %d: %#llx", i,
                     (unsigned long long)value);
    }
}

Test(host_pattern, uniform_is_the_generator_modulo_100)
{
    float *data = filled(SPLITMIX64_KNOWN, UNIFORM, 0);
    for (int i = 0; i < SPLITMIX64_KNOWN; i++)
        cr_expect_eq(data[i], (float)(SPLITMIX64_FROM_ZERO[i] % DOCUMENTS_VALUES), "element %d: %g", i,
                     data[i]);
    free(data);
}

Test(host_pattern, uniform_is_integers_0_to_99_and_uses_all_of_them)
{
    float *data = filled(LARGE_N, UNIFORM, SEED);
    bool seen[DOCUMENTS_VALUES] = {false};
    for (size_t i = 0; i < LARGE_N; i++) {
        float x = data[i];
        cr_assert(x >= 0 && x < DOCUMENTS_VALUES && x == floorf(x), "element %zu is %g", i, x);
        seen[(int)x] = true;
    }
    for (int v = 0; v < DOCUMENTS_VALUES; v++) cr_expect(seen[v], "%d never appears", v);
    free(data);
}

Test(host_pattern, uniform_mean_is_near_49_5)
{
    float *data = filled(LARGE_N, UNIFORM, SEED);
    double sum = 0;
    for (size_t i = 0; i < LARGE_N; i++) sum += data[i];
    double mean = sum / LARGE_N;
    cr_expect_leq(fabs(mean - UNIFORM_MEAN), MEAN_TOLERANCE, "mean %.4f", mean);
    free(data);
}

Test(host_pattern, uniform_is_deterministic_per_seed)
{
    float *first = filled(LARGE_N, UNIFORM, SEED), *second = filled(LARGE_N, UNIFORM, SEED);
    cr_expect_eq(memcmp(first, second, LARGE_N * sizeof *first), 0);
    free(first);
    free(second);
}

Test(host_pattern, uniform_differs_across_seeds)
{
    float *first = filled(SMALL_N, UNIFORM, SEED), *second = filled(SMALL_N, UNIFORM, OTHER_SEED);
    size_t equal = 0;
    for (size_t i = 0; i < SMALL_N; i++) equal += first[i] == second[i];
    /* Independent streams agree on about 1 element in 100; a quarter would mean they share. */
    cr_expect_lt(equal, SMALL_N / 4, "%zu of %d elements equal", equal, SMALL_N);
    free(first);
    free(second);
}

Test(host_pattern, ones_are_all_one)
{
    float *data = filled(SMALL_N, ONES, SEED);
    for (size_t i = 0; i < SMALL_N; i++) cr_assert_eq(data[i], 1.0f, "element %zu", i);
    free(data);
}

/* Exactly one element is 1, at `expected`, and every other one is 0. */
static void expect_one_hot_at(const float *data, size_t n, size_t expected)
{
    size_t nonzero = 0;
    for (size_t i = 0; i < n; i++) {
        if (data[i] == 0.0f) continue;
        nonzero++;
        cr_expect_eq(i, expected, "element %zu is %g", i, data[i]);
        cr_expect_eq(data[i], 1.0f, "element %zu is %g", i, data[i]);
    }
    cr_expect_eq(nonzero, 1, "%zu nonzero elements", nonzero);
}

Test(host_pattern, onehot_k_sets_exactly_element_k)
{
    struct pattern pattern = {.kind = PATTERN_ONEHOT, .onehot_index = ONEHOT_INDEX};
    float *data = filled(SMALL_N, pattern, SEED);
    expect_one_hot_at(data, SMALL_N, ONEHOT_INDEX);
    free(data);
}

Test(host_pattern, onehot_at_the_ends)
{
    struct pattern first = {.kind = PATTERN_ONEHOT, .onehot_index = 0};
    float *data = filled(SMALL_N, first, SEED);
    expect_one_hot_at(data, SMALL_N, 0);
    free(data);

    struct pattern last = {.kind = PATTERN_ONEHOT, .onehot_last = true};
    data = filled(SMALL_N, last, SEED);
    expect_one_hot_at(data, SMALL_N, SMALL_N - 1);
    free(data);

    data = filled(1, last, SEED);
    expect_one_hot_at(data, 1, 0);
    free(data);
}

Test(host_pattern, onehot_position_resolves_last_against_n)
{
    struct pattern last = {.kind = PATTERN_ONEHOT, .onehot_last = true};
    struct pattern k = {.kind = PATTERN_ONEHOT, .onehot_index = ONEHOT_INDEX};
    size_t position = 0;
    cr_expect(pattern_onehot_position(&last, SMALL_N, &position));
    cr_expect_eq(position, SMALL_N - 1);
    cr_expect(pattern_onehot_position(&k, ONEHOT_INDEX + 1, &position));
    cr_expect_eq(position, ONEHOT_INDEX);
    cr_expect_not(pattern_onehot_position(&k, ONEHOT_INDEX, &position), "index == n");
}

Test(host_pattern, onehot_position_for_n_0_does_not_exist)
{
    struct pattern last = {.kind = PATTERN_ONEHOT, .onehot_last = true};
    struct pattern zero = {.kind = PATTERN_ONEHOT, .onehot_index = 0};
    size_t position;
    cr_expect_not(pattern_onehot_position(&last, 0, &position), "onehot:last, n = 0");
    cr_expect_not(pattern_onehot_position(&zero, 0, &position), "onehot:0, n = 0");
}

Test(host_pattern, onehot_beyond_n_leaves_all_zeros)
{
    struct pattern beyond = {.kind = PATTERN_ONEHOT, .onehot_index = SMALL_N};
    float *data = filled(SMALL_N, beyond, SEED);
    for (size_t i = 0; i < SMALL_N; i++) cr_assert_eq(data[i], 0.0f, "element %zu", i);
    free(data);
}

Test(host_pattern, parse_and_describe_round_trip)
{
    static const char *const TEXTS[] = {"uniform", "ones", "onehot:0", "onehot:123",
                                        "onehot:last", "onehot:18446744073709551615"};
    for (size_t i = 0; i < sizeof TEXTS / sizeof TEXTS[0]; i++) {
        struct pattern pattern;
        char described[64];
        cr_assert(pattern_parse(TEXTS[i], &pattern), "'%s' refused", TEXTS[i]);
        cr_expect_str_eq(pattern_describe(&pattern, described, sizeof described), TEXTS[i]);
    }
}

Test(host_pattern, parse_gives_the_right_kind)
{
    struct pattern pattern;
    cr_assert(pattern_parse("ones", &pattern));
    cr_expect_eq(pattern.kind, PATTERN_ONES);
    cr_assert(pattern_parse("onehot:42", &pattern));
    cr_expect_eq(pattern.kind, PATTERN_ONEHOT);
    cr_expect_eq(pattern.onehot_index, 42);
    cr_expect_not(pattern.onehot_last);
    cr_assert(pattern_parse("uniform", &pattern));
    cr_expect_eq(pattern.kind, PATTERN_UNIFORM);
    cr_expect_not(pattern.onehot_last, "a previous parse must not leak into this one");
}

Test(host_pattern, parse_refuses_anything_else)
{
    static const char *const BAD[] = {"", "Uniform", "one", "ones ", "onehot", "onehot:",
                                      "onehot:x", "onehot:-1", "onehot:+1", "onehot: 1",
                                      "onehot:1x", "onehot:lastx", "onehot:LAST",
                                      "onehot:18446744073709551616", "zeros"};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        struct pattern pattern;
        cr_expect_not(pattern_parse(BAD[i], &pattern), "'%s' accepted", BAD[i]);
    }
}
