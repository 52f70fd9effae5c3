#include <float.h>
#include <math.h>

#include "toolbox.h"

static const double FLOAT_UNIT_ROUNDOFF = FLT_EPSILON / 2, DOUBLE_UNIT_ROUNDOFF = DBL_EPSILON / 2;
enum { CHUNK = 1 << 16 }; /* fixed chunks: the same sum on any number of threads */

/* Neumaier's compensated sum: *error keeps what each addition to *sum rounded away. */
static void add(double *sum, double *error, double x)
{
    double next = *sum + x;
    *error += fabs(*sum) >= fabs(x) ? (*sum - next) + x : (x - next) + *sum;
    *sum = next;
}

struct reference reference_compute(const float *data, size_t n)
{
    size_t chunks = (n + CHUNK - 1) / CHUNK;
    struct reference *parts = malloc((chunks > 0 ? chunks : 1) * sizeof *parts),
                     total = {0, 0, n, true};
    double error = 0;
    if (parts == NULL) abort();
#pragma omp parallel for schedule(static) if (chunks > 1) /* one chunk: no team to wake */
    for (size_t c = 0; c < chunks; c++) {
        struct reference part = {0, 0, 0, true};
        double part_error = 0;
        for (size_t i = c * CHUNK; i < n && i < (c + 1) * CHUNK; i++) {
            add(&part.sum, &part_error, data[i]);
            part.abs_sum += fabs((double)data[i]);
            part.integer_valued = part.integer_valued && data[i] == floorf(data[i]);
        }
        part.sum += part_error;
        parts[c] = part;
    }
    for (size_t c = 0; c < chunks; c++) {
        add(&total.sum, &error, parts[c].sum);
        total.abs_sum += parts[c].abs_sum;
        total.integer_valued = total.integer_valued && parts[c].integer_valued;
    }
    total.sum += error;
    free(parts);
    return total;
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

/* The reference's own error is bounded like a double sum of n terms. */
double error_bound(const struct reference *reference, unsigned depth)
{
    if (reference_is_exact(reference)) return 0;
    double own = reference->integer_valued
                     ? 0
                     : rounding_gamma((double)reference->n, DOUBLE_UNIT_ROUNDOFF);
    return (rounding_gamma(depth, FLOAT_UNIT_ROUNDOFF) + own) * reference->abs_sum;
}

bool bound_judges(const struct reference *reference, double bound)
{
    return isfinite(bound) && (bound < reference->abs_sum || reference->abs_sum == 0);
}

bool result_within(float result, const struct reference *reference, double bound)
{
    return bound_judges(reference, bound) && isfinite(result) &&
           fabs((double)result - reference->sum) <= bound;
}

unsigned tree_levels(size_t count)
{
    unsigned levels = 0;
    while (((size_t)1 << levels) < count) levels++;
    return levels;
}
