#include <errno.h>
#include <math.h>
#include <string.h>

#include "toolbox.h"

static const char *const NAMES[] = {"uniform", "ones", "onehot", "real",
                                    "normal",  "wide", "cancel"};
/* Smaller inputs are filled by one thread: waking a team of threads costs more than it saves,
 * and thousands of small fills in --check would spend their time waking it. */
enum { PARALLEL_FROM = 1 << 20 };
enum {
    UNIFORM_VALUES = 100,
    RANDOM_BITS = 24,
    WIDE_LOWEST = -30,
    WIDE_EXPONENTS = 62,
    CANCEL_LOWEST = 10,
    CANCEL_EXPONENTS = 10,
    SIGN_BIT = 1 << 7
};
static const uint64_t SECOND_STREAM = 0x5bd1e995u;
static const double TWO_PI = 6.283185307179586;

uint64_t random_at(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* [0, 1) with RANDOM_BITS bits: exactly a float. */
static double fraction(uint64_t bits)
{
    return ldexp((double)(bits >> (64 - RANDOM_BITS)), -RANDOM_BITS);
}

/* 1.f x 2^(lowest + bits % exponents), with a random sign. */
static float magnitude(uint64_t bits, int lowest, int exponents)
{
    float value = (float)ldexp(1 + fraction(bits << 8), lowest + (int)(bits % (uint64_t)exponents));
    return bits & SIGN_BIT ? -value : value;
}

static float value_at(enum pattern_kind kind, uint64_t seed, size_t i)
{
    uint64_t bits = random_at(seed, i), other = random_at(seed ^ SECOND_STREAM, i);
    switch (kind) {
    case PATTERN_UNIFORM:
        return (float)(bits % UNIFORM_VALUES);
    case PATTERN_ONES:
        return 1.0f;
    case PATTERN_REAL:
        return (float)(2 * fraction(bits) - 1);
    case PATTERN_NORMAL: /* Box-Muller; 1 - fraction is in (0, 1], so the logarithm is finite */
        return (float)(sqrt(-2 * log(1 - fraction(bits))) * cos(TWO_PI * fraction(other)));
    case PATTERN_WIDE:
        return magnitude(bits, WIDE_LOWEST, WIDE_EXPONENTS);
    case PATTERN_CANCEL: { /* x at an even index, -x + r (r in [-1, 1)) after it */
        float large = magnitude(random_at(seed, i & ~(size_t)1), CANCEL_LOWEST, CANCEL_EXPONENTS);
        return i % 2 == 0 ? large : -large + (float)(2 * fraction(other) - 1);
    }
    default:
        return 0.0f;
    }
}

void pattern_fill(float *data, size_t n, const struct pattern *pattern, uint64_t seed)
{
    size_t hot;
#pragma omp parallel for schedule(static) if (n >= PARALLEL_FROM)
    for (size_t i = 0; i < n; i++) data[i] = value_at(pattern->kind, seed, i);
    if (pattern_onehot_position(pattern, n, &hot)) data[hot] = 1.0f;
}

bool pattern_parse(const char *text, struct pattern *pattern)
{
    char *end = NULL;
    memset(pattern, 0, sizeof *pattern);
    if (strncmp(text, "onehot:", strlen("onehot:")) == 0) {
        text += strlen("onehot:");
        pattern->kind = PATTERN_ONEHOT;
        pattern->onehot_last = strcmp(text, "last") == 0;
        errno = 0;
        pattern->onehot_index = strtoull(text, &end, 10);
        return pattern->onehot_last || (*text >= '0' && *text <= '9' && *end == '\0' && errno == 0);
    }
    for (size_t k = 0; k < sizeof NAMES / sizeof NAMES[0]; k++)
        if (k != PATTERN_ONEHOT && strcmp(text, NAMES[k]) == 0) {
            pattern->kind = (enum pattern_kind)k;
            return true;
        }
    return false;
}

const char *pattern_name(const struct pattern *pattern, char *buffer, size_t size)
{
    if (pattern->kind != PATTERN_ONEHOT)
        snprintf(buffer, size, "%s", NAMES[pattern->kind]);
    else if (pattern->onehot_last)
        snprintf(buffer, size, "onehot:last");
    else
        snprintf(buffer, size, "onehot:%zu", pattern->onehot_index);
    return buffer;
}

bool pattern_onehot_position(const struct pattern *pattern, size_t n, size_t *position)
{
    *position = pattern->onehot_last ? n - 1 : pattern->onehot_index;
    return pattern->kind == PATTERN_ONEHOT && n > 0 && *position < n;
}

bool pattern_reference(const struct pattern *pattern, size_t n, struct reference *reference)
{
    size_t hot;
    double sum;
    if (pattern->kind == PATTERN_ONES)
        sum = (double)n;
    else if (pattern->kind == PATTERN_ONEHOT)
        sum = pattern_onehot_position(pattern, n, &hot) ? 1.0 : 0.0;
    else
        return false;
    *reference = (struct reference){.sum = sum, .abs_sum = sum, .n = n, .integer_valued = true};
    return true;
}
