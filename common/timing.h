/* Timing with CUDA events around exactly the work that turns the device-resident input
 * into one value. docs/measuring.md explains the choices. */
#ifndef REDUCE_TIMING_H
#define REDUCE_TIMING_H

#include <stdbool.h>

#include "passes.h"

#ifdef __cplusplus
extern "C" {
#endif

struct timing {
    double median_ms;
    double min_ms;
    double max_ms;
    int runs;
};

/* Sorts samples in place. */
struct timing timing_summarize(double *samples, int count);

/* warmup untimed runs, then iters timed ones; each starts from a restored input. The last
 * run's outcome is left in *outcome. samples must hold iters values. */
bool time_reduction(const struct step *step, const struct reduction_buffers *buffers, size_t n,
                    const struct launch_request *request, enum finish finish, int warmup,
                    int iters, double *samples, struct reduction_outcome *outcome);

#ifdef __cplusplus
}
#endif
#endif
