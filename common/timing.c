#include "timing.h"

#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct timing timing_summarize(double *samples, int count)
{
    struct timing timing = {0, 0, 0, count};
    if (count <= 0) return timing;
    qsort(samples, (size_t)count, sizeof *samples, compare_doubles);
    timing.min_ms = samples[0];
    timing.max_ms = samples[count - 1];
    int middle = count / 2;
    timing.median_ms = count % 2 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2;
    return timing;
}

static bool timed_run(const struct step *step, const struct reduction_buffers *buffers, size_t n,
                      const struct launch_request *request, enum finish finish,
                      cudaEvent_t events[2], float *milliseconds,
                      struct reduction_outcome *outcome)
{
    if (!reduction_restore(step, buffers, n)) return false;
    CUDA_TRY(cudaEventRecord(events[0], 0));
    if (!reduction_run(step, buffers, n, request, finish, 0, outcome)) return false;
    CUDA_TRY(cudaEventRecord(events[1], 0));
    CUDA_TRY(cudaEventSynchronize(events[1]));
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventElapsedTime(milliseconds, events[0], events[1]));
    return true;
}

bool time_reduction(const struct step *step, const struct reduction_buffers *buffers, size_t n,
                    const struct launch_request *request, enum finish finish, int warmup,
                    int iters, double *samples, struct reduction_outcome *outcome)
{
    cudaEvent_t events[2] = {NULL, NULL};
    bool ok = CUDA_OK(cudaEventCreate(&events[0])) && CUDA_OK(cudaEventCreate(&events[1]));
    for (int i = 0; ok && i < warmup + iters; i++) {
        float milliseconds = 0;
        ok = timed_run(step, buffers, n, request, finish, events, &milliseconds, outcome);
        if (ok && i >= warmup) samples[i - warmup] = milliseconds;
    }
    for (int i = 0; i < 2; i++)
        if (events[i] != NULL) ok = CUDA_OK(cudaEventDestroy(events[i])) && ok;
    return ok;
}
