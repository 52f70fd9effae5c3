/* From a device-resident input to one value: the buffers, and the loop of launches
 * (document 000's "launch again on the partials") or the host finish (documents 001, 004). */
#ifndef REDUCE_PASSES_H
#define REDUCE_PASSES_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

struct reduction_buffers {
    float *input;                     /* n elements on the device */
    float *pristine;                  /* a copy to restore from, for steps that destroy input */
    float *partials[2];               /* per-block results, ping-pong between passes */
    size_t partials_capacity[2];
    unsigned *ticket_counter;         /* for one-launch steps: zeroed once, resets itself */
    long long *block_clocks;          /* --clock: two stamps per first-pass block, or NULL */
    float *host_partials;             /* --finish cpu */
    size_t host_capacity;
};

struct reduction_outcome {
    const float *device_total;        /* GPU finish: where the total is */
    float host_total;                 /* CPU finish */
    bool on_host;
    unsigned passes;                  /* kernel launches */
    struct pass_plan first_plan;
};

/* Device bytes the buffers will take, to compare with free memory before allocating. */
size_t reduction_device_bytes(const struct step *step, size_t n,
                              const struct launch_request *request, bool with_clocks);

bool reduction_buffers_create(struct reduction_buffers *buffers, const struct step *step,
                              size_t n, const struct launch_request *request, bool with_clocks);
void reduction_buffers_destroy(struct reduction_buffers *buffers);

/* Copies host data in (and keeps a pristine copy where the step needs one). Not timed. */
bool reduction_upload(const struct reduction_buffers *buffers, const float *data, size_t n);

/* Undoes an in-place step's damage before the next run. Not timed. */
bool reduction_restore(const struct step *step, const struct reduction_buffers *buffers, size_t n);

/* Everything the timed region holds: every launch, and the host finish where chosen. */
bool reduction_run(const struct step *step, const struct reduction_buffers *buffers, size_t n,
                   const struct launch_request *request, enum finish finish,
                   cudaStream_t stream, struct reduction_outcome *outcome);

/* After the timed region: the total, on the host. */
bool reduction_total(const struct reduction_outcome *outcome, float *total);

/* Longest chain of float additions any element passes through: the error bound's depth. */
unsigned reduction_depth(const struct step *step, size_t n, const struct launch_request *request,
                         enum finish finish);

/* One complete reduction, untimed: upload, run, read. For tests. */
bool reduce_host_array(const struct step *step, const float *data, size_t n,
                       const struct launch_request *request, enum finish finish, float *total);

#ifdef __cplusplus
}
#endif
#endif
