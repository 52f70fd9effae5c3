/* One point of the benchmark: one step (or CUB) at one n, checked and then timed. */
#ifndef BENCH_POINTS_H
#define BENCH_POINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "inputs.h"
#include "l2_flush.h"
#include "step.h"
#include "timing.h"
#include "verify.h"

/* The input of every point of one size: the same data, in the same device buffers. */
struct dataset {
    struct input_copies *inputs;
    size_t n;
    struct reference reference;
};

/* CUB's temporary storage: kept across points, allocated again only when a size needs
 * more, and never inside a timed run. */
struct cub_storage {
    void *temp;
    size_t capacity;
};

/* What the points share: where they run and how many runs they get. */
struct bench_context {
    const struct device_info *device;
    const struct l2_flusher *flusher;
    struct cub_storage *cub;
    int max_samples;
    bool ladder;                      /* this n is the ladder's */
};

enum point_status { POINT_TIMED, POINT_WRONG, POINT_SKIPPED, POINT_FAILED };

struct point {
    struct timing timing;             /* POINT_TIMED */
    float result;                     /* POINT_WRONG: what came back, and what was due */
    double expected;
    double bound;
    double needed_mib, free_mib;      /* POINT_SKIPPED: it did not fit */
};

/* The step as its binary runs it with default options: common/passes.h's buffers and
 * runs, the GPU finish. */
enum point_status measure_step(const struct step *step, const struct dataset *data,
                               const struct bench_context *context, struct point *point);

/* cub::DeviceReduce::Sum on the same data, timed the same way. */
enum point_status measure_cub(const struct dataset *data, const struct bench_context *context,
                              struct point *point);

void cub_storage_release(struct cub_storage *storage);

#endif
