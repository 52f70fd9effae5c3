/* step00_global: the launcher that reduce.cu defines and host.c calls. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One launch of `blocks` blocks of `threads` threads: block b adds its elements of data[0..n) in
 * place, destroying them, and writes the sum to block_sums[b]. *launched->kernel: the kernel it
 * launched, as reduce.cu names it. */
cudaError_t reduce_blocks(float *data, size_t n, float *block_sums, unsigned blocks,
                          unsigned threads, struct launched *launched);

#ifdef __cplusplus
}
#endif
#endif
