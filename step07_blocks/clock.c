/* step07_blocks: --clock, document 004's timing inside the kernel.
 * Document 004 has thread 0 of each block call clock() at the block's start and end, and
 * reports the latest end minus the earliest start. Each SM has its own clock, and the clocks
 * are not synchronised, so that span mixes counters; within one block both stamps come from
 * the same SM and the difference is the block's own time in cycles. This prints both. */
#include <stdlib.h>

#include "reduce.h"

enum { STAMPS_PER_BLOCK = 2, KHZ_PER_MHZ = 1000 };

bool clock_buffer(long long **stamps, unsigned blocks)
{
    return CUDA_OK(
        cudaMalloc((void **)stamps, STAMPS_PER_BLOCK * (size_t)blocks * sizeof(long long)));
}

static int by_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

bool clock_report(const long long *stamps, unsigned blocks, const struct device_info *device)
{
    size_t count = STAMPS_PER_BLOCK * (size_t)blocks;
    long long *s = malloc(count * sizeof *s), *cycles = malloc(blocks * sizeof *cycles);
    bool ok = false;
    if (s == NULL || cycles == NULL) {
        fprintf(stderr, "not enough host memory for the clocks of %u blocks\n", blocks);
        goto done;
    }
    if (!CUDA_OK(cudaMemcpy(s, stamps, count * sizeof *s, cudaMemcpyDeviceToHost))) goto done;
    long long first_start = s[0], last_end = s[1];
    for (unsigned b = 0; b < blocks; b++) {
        long long start = s[STAMPS_PER_BLOCK * b], end = s[STAMPS_PER_BLOCK * b + 1];
        cycles[b] = end - start;
        if (start < first_start) first_start = start;
        if (end > last_end) last_end = end;
    }
    double mhz = (double)device->sm_clock_khz / KHZ_PER_MHZ;
    qsort(cycles, blocks, sizeof *cycles, by_value);
    long long least = cycles[0], median = cycles[blocks / 2], most = cycles[blocks - 1];
    printf("clock      per block, first launch of the last run: %lld / %lld / %lld cycles "
           "(min / median / max) = %.2f / %.2f / %.2f us at %.0f MHz\n",
           least, median, most, least / mhz, median / mhz, most / mhz, mhz);
    printf("clock      document 004's figure, latest end - earliest start over all SMs: %lld "
           "cycles (their clocks are not synchronised: not a duration)\n",
           last_end - first_start);
    ok = true;
done:
    free(s);
    free(cycles);
    return ok;
}
