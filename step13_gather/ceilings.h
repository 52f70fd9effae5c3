/* step13_gather: --ceilings, what the same bytes cost when nothing is added. */
#ifndef STEP_CEILINGS_H
#define STEP_CEILINGS_H

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ceilings {
    struct timing write;  /* cudaMemset of the input's bytes */
    struct timing copy;   /* cudaMemcpy of them, device to device: read and written */
    struct timing launch; /* a kernel that does nothing */
    struct timing drain;  /* the read that puts a write's dirty lines in memory; alone */
};

/* Times the three as the step is timed: options->warmup untimed runs, then options->iters,
 * the L2 flushed before each (timer_start). The write and the copy go to `scratch`, which
 * has room for input->n floats; the copy reads the input's copies in turn. Each is followed,
 * inside its timed region, by the drain, whose median (timed alone) ceilings_measure then
 * subtracts from theirs: what is left is the time until every byte is in memory. */
bool ceilings_measure(const struct input *input, const struct options *options, struct timer *timer,
                      float *scratch, struct ceilings *ceilings);

/* Five lines under the report: each ceiling and the drain, then the step's time and CUB's
 * beside them. */
void ceilings_print(const struct ceilings *ceilings, const struct report *report);

#ifdef __cplusplus
}
#endif
#endif
