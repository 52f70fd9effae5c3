/* Is a float total right? Exact where exactness is possible, otherwise within a bound
 * that follows from how deep the step's chain of float additions is.
 * docs/verification.md derives it. */
#ifndef REDUCE_VERIFY_H
#define REDUCE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct reference {
    double sum;                       /* in double: exact for integer data below 2^53 */
    double abs_sum;                   /* sum of |x|: what float rounding scales with */
    size_t n;
    bool integer_valued;
};

/* Every integer of magnitude up to 2^24 is a float: integer partial sums below it are exact. */
#define FLOAT_EXACT_INTEGER_LIMIT 16777216.0

struct reference reference_compute(const float *data, size_t n);

/* True when any order of float additions gives the exact sum: integer data whose
 * absolute sum (the largest any partial sum can be) is at most 2^24. */
bool reference_is_exact(const struct reference *reference);

/* The most a float total may differ from reference->sum when every element passes
 * through at most depth additions: gamma(depth) * abs_sum (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., eq. 4.4), plus the double reference's own
 * error. 0 when reference_is_exact. */
double error_bound(const struct reference *reference, unsigned depth);

/* gamma(k) = k u / (1 - k u): the relative error k roundings with unit roundoff u can
 * accumulate (Higham, Lemma 3.1); infinite once k u >= 1. step10 uses it for double too. */
double rounding_gamma(double roundings, double unit_roundoff);

/* |result - sum| <= bound, and result finite. */
bool result_within(float result, const struct reference *reference, double bound);

/* Steps of the tree in which `threads` values become one: ceil(log2(threads)). */
unsigned tree_levels(unsigned threads);

#ifdef __cplusplus
}
#endif
#endif
