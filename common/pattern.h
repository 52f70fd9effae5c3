/* Input data. Every pattern is integer-valued so that small sums are exact (see
 * docs/verification.md); onehot proves one chosen element is counted exactly once. */
#ifndef REDUCE_PATTERN_H
#define REDUCE_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pattern_kind { PATTERN_UNIFORM, PATTERN_ONES, PATTERN_ONEHOT };

/* The documents' rand() % 100: integers 0..UNIFORM_VALUES-1, stored as float. */
enum { UNIFORM_VALUES = 100 };

struct pattern {
    enum pattern_kind kind;
    bool onehot_last;                 /* onehot:last, resolved against n when filling */
    size_t onehot_index;              /* onehot:K */
};

/* "uniform", "ones", "onehot:K", "onehot:last". Returns false on anything else. */
bool pattern_parse(const char *text, struct pattern *pattern);

/* "onehot:last" or "onehot:123": writes into buffer, returns it. */
const char *pattern_describe(const struct pattern *pattern, char *buffer, size_t size);

/* The onehot position for this n; false when n has no such element (e.g. n = 0). */
bool pattern_onehot_position(const struct pattern *pattern, size_t n, size_t *position);

/* Fills data[0..n). The same seed gives the same data on every machine. */
void pattern_fill(float *data, size_t n, const struct pattern *pattern, uint64_t seed);

/* A small, portable generator (splitmix64): libc's rand() differs between systems. */
uint64_t random_next(uint64_t *state);

#ifdef __cplusplus
}
#endif
#endif
