#include "passes.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "verify.h"

enum { CLOCK_STAMPS_PER_BLOCK = 2 };
/* The host finish sums in double, then rounds to float once. Its double error is below
 * one float rounding for fewer than 2^29 partials (we never have more than 2^27), so the
 * finish adds two float roundings to the depth. */
enum { HOST_FINISH_DEPTH = 2 };

static struct pass_plan second_plan(const struct step *step, struct pass_plan first,
                                    const struct launch_request *request)
{
    return step->plan(first.blocks, request);
}

size_t reduction_device_bytes(const struct step *step, size_t n,
                              const struct launch_request *request, bool with_clocks)
{
    struct pass_plan first = step->plan(n, request);
    struct pass_plan second = second_plan(step, first, request);
    size_t copies = step->destroys_input ? 2 : 1;
    size_t bytes = copies * n * sizeof(float);
    bytes += ((size_t)first.blocks + second.blocks) * sizeof(float);
    if (step->reduce != NULL) bytes += sizeof(unsigned);
    if (with_clocks) bytes += (size_t)CLOCK_STAMPS_PER_BLOCK * first.blocks * sizeof(long long);
    return bytes;
}

/* cudaMalloc(0) is allowed but gives NULL; keep one element so every buffer is real. */
static cudaError_t allocate(void **pointer, size_t bytes)
{
    return cudaMalloc(pointer, bytes > 0 ? bytes : sizeof(float));
}

bool reduction_buffers_create(struct reduction_buffers *buffers, const struct step *step,
                              size_t n, const struct launch_request *request, bool with_clocks)
{
    memset(buffers, 0, sizeof *buffers);
    struct pass_plan first = step->plan(n, request);
    struct pass_plan second = second_plan(step, first, request);
    buffers->partials_capacity[0] = first.blocks;
    buffers->partials_capacity[1] = second.blocks;
    buffers->host_capacity = first.blocks;
    CUDA_TRY(allocate((void **)&buffers->input, n * sizeof(float)));
    if (step->destroys_input) CUDA_TRY(allocate((void **)&buffers->pristine, n * sizeof(float)));
    for (int i = 0; i < 2; i++)
        CUDA_TRY(allocate((void **)&buffers->partials[i],
                          buffers->partials_capacity[i] * sizeof(float)));
    if (step->reduce != NULL) {
        CUDA_TRY(allocate((void **)&buffers->ticket_counter, sizeof(unsigned)));
        CUDA_TRY(cudaMemset(buffers->ticket_counter, 0, sizeof(unsigned)));
    }
    if (with_clocks)
        CUDA_TRY(allocate((void **)&buffers->block_clocks,
                          CLOCK_STAMPS_PER_BLOCK * first.blocks * sizeof(long long)));
    CUDA_TRY(cudaMallocHost((void **)&buffers->host_partials,
                            (buffers->host_capacity + 1) * sizeof(float)));
    return true;
}

void reduction_buffers_destroy(struct reduction_buffers *buffers)
{
    /* Frees are checked too: a failure here reports a fault left by an earlier launch. */
    void *device[] = {buffers->input, buffers->pristine, buffers->partials[0],
                      buffers->partials[1], buffers->ticket_counter, buffers->block_clocks};
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++)
        if (device[i] != NULL) CUDA_OK(cudaFree(device[i]));
    if (buffers->host_partials != NULL) CUDA_OK(cudaFreeHost(buffers->host_partials));
    memset(buffers, 0, sizeof *buffers);
}

bool reduction_upload(const struct reduction_buffers *buffers, const float *data, size_t n)
{
    size_t bytes = n * sizeof(float);
    if (bytes == 0) return true;
    CUDA_TRY(cudaMemcpy(buffers->input, data, bytes, cudaMemcpyHostToDevice));
    if (buffers->pristine != NULL)
        CUDA_TRY(cudaMemcpy(buffers->pristine, data, bytes, cudaMemcpyHostToDevice));
    return true;
}

bool reduction_restore(const struct step *step, const struct reduction_buffers *buffers, size_t n)
{
    if (!step->destroys_input || n == 0) return true;
    CUDA_TRY(cudaMemcpy(buffers->input, buffers->pristine, n * sizeof(float),
                        cudaMemcpyDeviceToDevice));
    return true;
}

static bool finish_on_host(const struct reduction_buffers *buffers, const float *partials,
                           size_t count, cudaStream_t stream, struct reduction_outcome *outcome)
{
    CUDA_TRY(cudaMemcpyAsync(buffers->host_partials, partials, count * sizeof(float),
                             cudaMemcpyDeviceToHost, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += buffers->host_partials[i];
    outcome->host_total = (float)sum;
    outcome->on_host = true;
    return true;
}

static bool plan_fits(const struct step *step, struct pass_plan plan, size_t m, size_t capacity)
{
    if (plan.blocks <= capacity && (m <= 1 || plan.blocks < m)) return true;
    fprintf(stderr, "%s: a pass over %zu values planned %u blocks (room for %zu): it must shrink\n",
            step->name, m, plan.blocks, capacity);
    return false;
}

static bool run_passes(const struct step *step, const struct reduction_buffers *buffers,
                       size_t n, const struct launch_request *request, enum finish finish,
                       cudaStream_t stream, struct reduction_outcome *outcome)
{
    float *in = buffers->input;
    size_t m = n;
    int which = 0;
    do {
        struct pass_plan plan = step->plan(m, request);
        if (outcome->passes == 0) {
            plan.block_clocks = buffers->block_clocks;
            outcome->first_plan = plan;
        }
        if (!plan_fits(step, plan, m, buffers->partials_capacity[which])) return false;
        CUDA_TRY(step->launch(in, m, buffers->partials[which], plan, stream));
        in = buffers->partials[which];
        m = plan.blocks;
        which ^= 1;
        outcome->passes++;
    } while (finish == FINISH_GPU && m > 1);
    if (finish == FINISH_CPU) return finish_on_host(buffers, in, m, stream, outcome);
    outcome->device_total = in;
    return true;
}

bool reduction_run(const struct step *step, const struct reduction_buffers *buffers, size_t n,
                   const struct launch_request *request, enum finish finish,
                   cudaStream_t stream, struct reduction_outcome *outcome)
{
    memset(outcome, 0, sizeof *outcome);
    if (step->reduce == NULL)
        return run_passes(step, buffers, n, request, finish, stream, outcome);
    float *total = NULL;
    outcome->first_plan = step->plan(n, request);
    outcome->passes = 1;
    CUDA_TRY(step->reduce(buffers, n, request, &total, stream));
    outcome->device_total = total;
    return true;
}

bool reduction_total(const struct reduction_outcome *outcome, float *total)
{
    if (outcome->on_host) {
        *total = outcome->host_total;
        return true;
    }
    CUDA_TRY(cudaMemcpy(total, outcome->device_total, sizeof *total, cudaMemcpyDeviceToHost));
    return true;
}

unsigned reduction_depth(const struct step *step, size_t n, const struct launch_request *request,
                         enum finish finish)
{
    if (step->accumulation_depth != NULL) return step->accumulation_depth(n, request);
    unsigned depth = 0;
    size_t m = n;
    do {
        struct pass_plan plan = step->plan(m, request);
        depth += plan.elements_per_thread + tree_levels(plan.threads);
        m = plan.blocks;
    } while (finish == FINISH_GPU && m > 1);
    return finish == FINISH_CPU ? depth + HOST_FINISH_DEPTH : depth;
}

bool reduce_host_array(const struct step *step, const float *data, size_t n,
                       const struct launch_request *request, enum finish finish, float *total)
{
    struct reduction_buffers buffers;
    struct reduction_outcome outcome;
    bool ok = reduction_buffers_create(&buffers, step, n, request, false) &&
              reduction_upload(&buffers, data, n) &&
              reduction_run(step, &buffers, n, request, finish, 0, &outcome) &&
              reduction_total(&outcome, total) && CUDA_OK(cudaDeviceSynchronize());
    reduction_buffers_destroy(&buffers);
    return ok;
}
