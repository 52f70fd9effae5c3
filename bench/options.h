/* The benchmark's command line: which steps, which sizes, how many runs, where to write. */
#ifndef BENCH_OPTIONS_H
#define BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "step.h"

/* The documents' N = 2^25: the ladder's size, timed with more runs than the sweep. */
enum { LADDER_LOG2 = 25 };
/* The sweep 2^10 ... 2^30 (the top is also limited by free device memory). */
enum { DEFAULT_MIN_LOG2 = 10, DEFAULT_MAX_LOG2 = 30, LARGEST_LOG2 = 32 };
/* Timed runs per point: at most --samples (DEFAULT_MAX_SAMPLES), fewer where a run is slow
 * (see sampling.h), never fewer than MIN_SAMPLES; the ladder's size always gets at least
 * LADDER_SAMPLES, since its table is the one people read. */
enum { DEFAULT_MAX_SAMPLES = 50, MIN_SAMPLES = 5, LADDER_SAMPLES = 100, MOST_SAMPLES = 10000 };

struct bench_options {
    const struct step **steps;        /* registry order; steps with the common flow only */
    int step_count;
    int min_log2, max_log2;           /* n = 2^min_log2 ... 2^max_log2 */
    int max_samples;                  /* timed runs per point, at most */
    const char *output;               /* NULL: the default path for this device */
    bool subset;                      /* --steps or --sizes: a quick check */
    bool list;
    bool help;
};

/* Parses argv. Returns 0, or EXIT_USAGE with the reason in `error`. Free with
 * bench_options_free either way. */
int bench_parse(int argc, char **argv, struct bench_options *options, char *error,
                size_t error_size);
void bench_options_free(struct bench_options *options);
void bench_usage(FILE *out);

/* Steps whose whole run is their own (step10) are not on the ladder. */
bool bench_covers(const struct step *step);

#endif
