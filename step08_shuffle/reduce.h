/* step08_shuffle: the launcher that reduce.cu defines and host.c calls. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One launch of `blocks` blocks of `threads` threads (32, 64, ... 1024) that stride over in[0..n):
 * block b writes the sum of what its threads added to block_sums[b]. *launched->kernel: the kernel
 * it launched, as reduce.cu names it. */
cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                          unsigned threads, struct launched *launched);

#ifdef __cplusplus
}
#endif
#endif
