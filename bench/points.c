#include "points.h"

#include <string.h>
#include <cuda_runtime_api.h>

#include "cli.h"
#include "cub_sum.h"
#include "cuda_check.h"
#include "passes.h"
#include "run.h"
#include "sampling.h"

static const double BYTES_PER_MIB = 1024.0 * 1024.0;
/* Left free beside our buffers: the CUDA context and the library's own allocations. */
static const size_t FREE_MEMORY_MARGIN = (size_t)256 << 20;
enum { WARP_SIZE = 32 };
/* Levels of the trees in which CUB's per-thread sums meet, with room to spare: two
 * kernels of at most 1024 threads are 20 levels. */
enum { CUB_TREE_LEVELS_ALLOWANCE = 64 };

static bool fits_in_free_memory(size_t needed, struct point *point)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (!CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes))) return false;
    point->needed_mib = needed / BYTES_PER_MIB;
    point->free_mib = free_bytes / BYTES_PER_MIB;
    return needed + FREE_MEMORY_MARGIN <= free_bytes;
}

static bool check(float result, const struct reference *reference, double bound,
                  struct point *point)
{
    point->result = result;
    point->expected = reference->sum;
    point->bound = bound;
    return result_within(result, reference, bound);
}

/* A point's work, with what its checks need: where its total comes from and the depth of
 * its additions (the error bound's d). */
struct checked_work {
    struct timed_work work;
    bool (*read_total)(void *context, float *total);
    unsigned depth;
};

static enum point_status check_total(const struct checked_work *checked,
                                     const struct dataset *data, struct point *point)
{
    float total = 0;
    if (!checked->read_total(checked->work.context, &total)) return POINT_FAILED;
    double bound = error_bound(&data->reference, checked->depth);
    return check(total, &data->reference, bound, point) ? POINT_TIMED : POINT_WRONG;
}

/* Checked once before timing, and again on the last timed run's total. Every point reads
 * the input copies in the same order, from the first. */
static enum point_status check_and_time(const struct checked_work *checked,
                                        const struct dataset *data,
                                        const struct bench_context *context, struct point *point)
{
    input_copies_rewind(data->inputs);
    if (!run_untimed(&checked->work, context->flusher)) return POINT_FAILED;
    enum point_status status = check_total(checked, data, point);
    if (status != POINT_TIMED) return status;
    if (!time_work(&checked->work, context->flusher, context->max_samples, context->ladder,
                   &point->timing))
        return POINT_FAILED;
    return check_total(checked, data, point);
}

/* ---- a step, through common/passes.h ---- */

struct step_run {
    const struct step *step;
    struct reduction_buffers buffers;
    float *own_input;                 /* the buffers' own input, freed with them */
    struct input_copies *inputs;
    size_t n;
    struct launch_request request;
    struct reduction_outcome outcome;
};

/* A step that leaves its input alone reads the next copy where it lies; a step that works
 * in place gets its own buffer refilled from it (untimed), so the copies stay intact. */
static bool take_next_input(void *context)
{
    struct step_run *run = context;
    float *copy = input_copies_next(run->inputs);
    if (!run->step->destroys_input) {
        run->buffers.input = copy;
        return true;
    }
    if (run->n > 0)
        CUDA_TRY(cudaMemcpy(run->own_input, copy, run->n * sizeof(float),
                            cudaMemcpyDeviceToDevice));
    return true;
}

static bool run_step_passes(void *context)
{
    struct step_run *run = context;
    return reduction_run(run->step, &run->buffers, run->n, &run->request, FINISH_GPU, 0,
                         &run->outcome);
}

/* The request the step's binary makes with no options: its default block size, grid
 * and variant (variants[0]). */
static struct launch_request default_request(const struct step *step,
                                             const struct device_info *device)
{
    struct options defaults;
    memset(&defaults, 0, sizeof defaults);
    return launch_request_for(step, &defaults, device);
}

static bool read_step_total(void *context, float *total)
{
    struct step_run *run = context;
    return reduction_total(&run->outcome, total);
}

static enum point_status check_and_time_step(struct step_run *run, const struct dataset *data,
                                             const struct bench_context *context,
                                             struct point *point)
{
    struct checked_work checked = {
        {take_next_input, run_step_passes, run}, read_step_total,
        reduction_depth(run->step, run->n, &run->request, FINISH_GPU)};
    return check_and_time(&checked, data, context, point);
}

enum point_status measure_step(const struct step *step, const struct dataset *data,
                               const struct bench_context *context, struct point *point)
{
    memset(point, 0, sizeof *point);
    struct step_run run = {.step = step, .inputs = data->inputs, .n = data->n};
    run.request = default_request(step, context->device);
    size_t needed = reduction_device_bytes(step, data->n, &run.request, false);
    if (!fits_in_free_memory(needed, point)) return POINT_SKIPPED;
    enum point_status status = POINT_FAILED;
    if (reduction_buffers_create(&run.buffers, step, data->n, &run.request, false)) {
        run.own_input = run.buffers.input;
        status = check_and_time_step(&run, data, context, point);
    }
    if (run.own_input != NULL) run.buffers.input = run.own_input;
    reduction_buffers_destroy(&run.buffers);
    return status;
}

/* ---- CUB ---- */

struct cub_run {
    struct input_copies *inputs;
    const float *input;               /* the copy this run reads */
    size_t n;
    float *total;
    size_t temp_bytes;
    const struct cub_storage *storage;
};

static bool take_next_cub_input(void *context)
{
    struct cub_run *run = context;
    run->input = input_copies_next(run->inputs);
    return true;
}

static bool run_cub(void *context)
{
    struct cub_run *run = context;
    CUDA_TRY(cub_sum(run->storage->temp, run->temp_bytes, run->input, run->n, run->total, 0));
    return true;
}

static bool reserve_cub_temp(struct cub_storage *storage, size_t bytes)
{
    if (storage->temp != NULL && bytes <= storage->capacity) return true;
    cub_storage_release(storage);
    CUDA_TRY(cudaMalloc(&storage->temp, bytes > 0 ? bytes : 1));
    storage->capacity = bytes;
    return true;
}

void cub_storage_release(struct cub_storage *storage)
{
    if (storage->temp != NULL) CUDA_OK(cudaFree(storage->temp));
    storage->temp = NULL;
    storage->capacity = 0;
}

/* CUB's order of additions is its own. The bound assumes only that it spreads the input
 * over at least one warp of independent running sums per SM, and then adds those up in
 * trees: a generous depth, enough to catch a wrong call (a wrong count, a wrong pointer). */
static unsigned cub_depth(size_t n, const struct device_info *device)
{
    size_t accumulators = (size_t)(device->sm_count > 0 ? device->sm_count : 1) * WARP_SIZE;
    return (unsigned)((n + accumulators - 1) / accumulators) + CUB_TREE_LEVELS_ALLOWANCE;
}

static bool read_cub_total(void *context, float *total)
{
    struct cub_run *run = context;
    return CUDA_OK(cudaMemcpy(total, run->total, sizeof *total, cudaMemcpyDeviceToHost));
}

static enum point_status check_and_time_cub(struct cub_run *run, const struct dataset *data,
                                            const struct bench_context *context,
                                            struct point *point)
{
    if (!reserve_cub_temp(context->cub, run->temp_bytes)) return POINT_FAILED;
    struct checked_work checked = {{take_next_cub_input, run_cub, run}, read_cub_total,
                                   cub_depth(data->n, context->device)};
    return check_and_time(&checked, data, context, point);
}

enum point_status measure_cub(const struct dataset *data, const struct bench_context *context,
                              struct point *point)
{
    memset(point, 0, sizeof *point);
    size_t temp_bytes = 0;
    if (!CUDA_OK(cub_sum_temp_bytes(data->n, &temp_bytes))) return POINT_FAILED;
    if (!fits_in_free_memory(temp_bytes + sizeof(float), point)) return POINT_SKIPPED;
    float *total = NULL;
    enum point_status status = POINT_FAILED;
    if (CUDA_OK(cudaMalloc((void **)&total, sizeof(float)))) {
        struct cub_run run = {data->inputs, NULL, data->n, total, temp_bytes, context->cub};
        status = check_and_time_cub(&run, data, context, point);
    }
    if (total != NULL && !CUDA_OK(cudaFree(total))) status = POINT_FAILED;
    return status;
}
