/* step07_blocks: what host.c, clock.c and reduce.cu agree on. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The order of host.c's variants: how a block adds up its threads' sums. */
enum { VARIANT_TREE, VARIANT_THREAD0 };

/* One launch of `blocks` blocks of `threads` threads (64, 128, ... 1024) that stride over
 * in[0..n): block b writes the sum of what its threads added to block_sums[b]. clocks: NULL,
 * or room for two clock64() stamps per block (its start and its end). *launched->kernel: the
 * kernel it launched, as reduce.cu names it. */
cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                          unsigned threads, int variant, long long *clocks,
                          struct launched *launched);

/* clock.c: --clock, document 004's timing inside the kernel. */
bool clock_buffer(long long **stamps, unsigned blocks);
bool clock_report(const long long *stamps, unsigned blocks, const struct device_info *device);

#ifdef __cplusplus
}
#endif
#endif
