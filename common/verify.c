#include "verify.h"

#include <float.h>
#include <math.h>

/* Unit roundoff: half the distance from 1 to the next float (double). */
static const double FLOAT_UNIT_ROUNDOFF = FLT_EPSILON / 2;
static const double DOUBLE_UNIT_ROUNDOFF = DBL_EPSILON / 2;

struct reference reference_compute(const float *data, size_t n)
{
    struct reference reference = {.sum = 0, .abs_sum = 0, .n = n, .integer_valued = true};
    for (size_t i = 0; i < n; i++) {
        double x = data[i];
        reference.sum += x;
        reference.abs_sum += fabs(x);
        if (x != floor(x)) reference.integer_valued = false;
    }
    return reference;
}

bool reference_is_exact(const struct reference *reference)
{
    return reference->integer_valued && reference->abs_sum <= FLOAT_EXACT_INTEGER_LIMIT;
}

double rounding_gamma(double roundings, double unit_roundoff)
{
    double nu = roundings * unit_roundoff;
    return nu < 1 ? nu / (1 - nu) : INFINITY;
}

double error_bound(const struct reference *reference, unsigned depth)
{
    if (reference_is_exact(reference)) return 0;
    double float_part = rounding_gamma(depth, FLOAT_UNIT_ROUNDOFF) * reference->abs_sum;
    double reference_part = reference->integer_valued
                                ? 0
                                : rounding_gamma((double)reference->n, DOUBLE_UNIT_ROUNDOFF) *
                                      reference->abs_sum;
    return float_part + reference_part;
}

bool result_within(float result, const struct reference *reference, double bound)
{
    if (!isfinite(result)) return false;
    return fabs((double)result - reference->sum) <= bound;
}

unsigned tree_levels(unsigned threads)
{
    unsigned levels = 0;
    while ((1ull << levels) < threads) levels++;
    return levels;
}
