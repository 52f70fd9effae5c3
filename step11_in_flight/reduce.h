/* step11_in_flight: what host.c and reduce.cu agree on. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A float4 is four floats: 16 bytes, read by one load instruction. Each thread reads
 * VECTORS_PER_THREAD of them, all issued before the first is added, and nothing else. */
enum { FLOATS_PER_VECTOR = 4, VECTORS_PER_THREAD = 8 };
enum { FLOATS_PER_THREAD = VECTORS_PER_THREAD * FLOATS_PER_VECTOR };

/* The order of host.c's variants: how the blocks of one launch agree on who finishes. */
enum { VARIANT_TICKET, VARIANT_ATOMIC_ADD };

/* One launch of `blocks` blocks of `threads` threads (32, 64, ... 1024) over in[0..n), any
 * alignment of `in`, that leaves the sum in *total. Each thread reads its share once, so
 * `blocks` must cover n: at least n / (threads * FLOATS_PER_THREAD), rounded up.
 * block_sums has room for `blocks` floats and starts on a 16-byte boundary (as cudaMalloc's
 * memory does); *ticket_counter is 0 before the launch, and the launch leaves it 0.
 * VARIANT_ATOMIC_ADD adds into *total, which must be 0 before the launch.
 * *launched: the kernel that ran and its finish, as reduce.cu names them. */
cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                 unsigned *ticket_counter, float *total, unsigned blocks,
                                 unsigned threads, int variant, struct launched *launched);

#ifdef __cplusplus
}
#endif
#endif
