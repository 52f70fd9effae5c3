/* step12_small_n: --ceilings, what the same bytes cost when nothing is added. One tool for
 * every step that offers the option: step13's host.c includes this header, and the Makefile
 * links this step's object into any step whose host.c does. */
#ifndef STEP_CEILINGS_H
#define STEP_CEILINGS_H

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ceilings {
    float *scratch;       /* where the write and the copy go: room for n floats */
    struct timing write;  /* cudaMemset of the input's bytes */
    struct timing copy;   /* cudaMemcpy of them, device to device: read and written */
    struct timing launch; /* a kernel that does nothing */
    struct timing drain;  /* the read that puts a write's dirty lines in memory; alone */
};

/* --ceilings prints under the full report: with --check, --csv or --quiet it says why not on
 * stderr and gives false (the program exits EXIT_USAGE). */
bool ceilings_allowed(const struct options *options, const char *step_name);

/* The scratch for n floats. Made before the input's copies, so that input_create makes as
 * many of them as still fit. */
bool ceilings_create(struct ceilings *ceilings, size_t n, const struct device_info *device);

/* Times the three as the step is timed: options->warmup untimed runs, then options->iters,
 * the L2 flushed before each (timer_start). The write and the copy go to the scratch; the
 * copy reads the input's copies in turn. Each is followed, inside its timed region, by the
 * drain, whose median (timed alone) ceilings_measure then subtracts from theirs: what is left
 * is the time until every byte is in memory. */
bool ceilings_measure(struct ceilings *ceilings, const struct input *input,
                      const struct options *options, struct timer *timer);

/* Five lines under the report: each ceiling and the drain, then the step's time and CUB's
 * beside them. */
void ceilings_print(const struct ceilings *ceilings, const struct report *report);

void ceilings_free(struct ceilings *ceilings);

#ifdef __cplusplus
}
#endif
#endif
