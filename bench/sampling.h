/* How one point is timed: the same method for the steps and for CUB. Before every run its
 * untimed preparation (e.g. restoring a destroyed input) and an L2 flush; around the run's
 * work, CUDA events on stream 0; the median of the runs is what the tables show. */
#ifndef BENCH_SAMPLING_H
#define BENCH_SAMPLING_H

#include <stdbool.h>

#include "l2_flush.h"
#include "timing.h"

struct timed_work {
    bool (*prepare)(void *context);   /* untimed, before each run; may be NULL */
    bool (*enqueue)(void *context);   /* the timed region: enqueues the work on stream 0 */
    void *context;
};

/* One run, prepared and flushed like a timed one, waited for. For the checks. */
bool run_untimed(const struct timed_work *work, const struct l2_flusher *flusher);

/* Untimed warm-up runs, then `samples` timed ones. samples is chosen from how long the
 * warm-up runs took: samples_for() below. */
bool time_work(const struct timed_work *work, const struct l2_flusher *flusher, int max_samples,
               bool ladder, struct timing *timing);

/* A point gets as many runs as fit POINT_BUDGET_MS, within [MIN_SAMPLES, max_samples];
 * the ladder's point gets max(max_samples, LADDER_SAMPLES) whatever they cost. */
int samples_for(double milliseconds_per_run, int max_samples, bool ladder);

#endif
