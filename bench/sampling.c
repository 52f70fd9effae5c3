#include "sampling.h"

#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "options.h"

/* GPU time one point may take in timed runs; with about 230 points and most far below it,
 * the whole sweep spends well under a minute in timed runs. */
static const double POINT_BUDGET_MS = 250.0;
/* Runs before the timed ones: the first launch of a kernel pays for loading its module;
 * the others give the time per run that sets the sample count. */
enum { WARMUP_RUNS = 3 };

int samples_for(double milliseconds_per_run, int max_samples, bool ladder)
{
    if (ladder) return max_samples > LADDER_SAMPLES ? max_samples : LADDER_SAMPLES;
    double affordable = milliseconds_per_run > 0 ? POINT_BUDGET_MS / milliseconds_per_run
                                                 : max_samples;
    if (affordable > max_samples) return max_samples;
    if (affordable < MIN_SAMPLES) return MIN_SAMPLES;
    return (int)affordable;
}

static bool prepare_and_flush(const struct timed_work *work, const struct l2_flusher *flusher)
{
    if (work->prepare != NULL && !work->prepare(work->context)) return false;
    CUDA_TRY(l2_flush(flusher, 0));
    return true;
}

bool run_untimed(const struct timed_work *work, const struct l2_flusher *flusher)
{
    if (!prepare_and_flush(work, flusher) || !work->enqueue(work->context)) return false;
    CUDA_TRY(cudaDeviceSynchronize());
    CUDA_TRY(cudaGetLastError());
    return true;
}

/* The flush and the preparation are enqueued before the start event: they finish before
 * it is recorded, so they are outside the measured interval. */
static bool timed_run(const struct timed_work *work, const struct l2_flusher *flusher,
                      cudaEvent_t events[2], double *milliseconds)
{
    if (!prepare_and_flush(work, flusher)) return false;
    CUDA_TRY(cudaEventRecord(events[0], 0));
    if (!work->enqueue(work->context)) return false;
    CUDA_TRY(cudaEventRecord(events[1], 0));
    CUDA_TRY(cudaEventSynchronize(events[1]));
    CUDA_TRY(cudaGetLastError());
    float elapsed = 0;
    CUDA_TRY(cudaEventElapsedTime(&elapsed, events[0], events[1]));
    *milliseconds = elapsed;
    return true;
}

static bool sample(const struct timed_work *work, const struct l2_flusher *flusher,
                   cudaEvent_t events[2], int max_samples, bool ladder, struct timing *timing)
{
    double fastest_warmup = 0;
    for (int i = 0; i < WARMUP_RUNS; i++) {
        double milliseconds = 0;
        if (!timed_run(work, flusher, events, &milliseconds)) return false;
        if (i == 0 || milliseconds < fastest_warmup) fastest_warmup = milliseconds;
    }
    int count = samples_for(fastest_warmup, max_samples, ladder);
    double *samples = malloc((size_t)count * sizeof *samples);
    if (samples == NULL) return false;
    bool ok = true;
    for (int i = 0; ok && i < count; i++) ok = timed_run(work, flusher, events, &samples[i]);
    if (ok) *timing = timing_summarize(samples, count);
    free(samples);
    return ok;
}

bool time_work(const struct timed_work *work, const struct l2_flusher *flusher, int max_samples,
               bool ladder, struct timing *timing)
{
    cudaEvent_t events[2] = {NULL, NULL};
    bool ok = CUDA_OK(cudaEventCreate(&events[0])) && CUDA_OK(cudaEventCreate(&events[1])) &&
              sample(work, flusher, events, max_samples, ladder, timing);
    for (int i = 0; i < 2; i++)
        if (events[i] != NULL) ok = CUDA_OK(cudaEventDestroy(events[i])) && ok;
    return ok;
}
