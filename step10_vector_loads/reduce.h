/* step10_vector_loads: the launcher that reduce.cu defines and host.c calls. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A float4 is four floats: 16 bytes, read by one load instruction. */
enum { FLOATS_PER_VECTOR = 4 };

/* The order of host.c's variants: how the blocks of one launch agree on who finishes. */
enum { VARIANT_FENCE, VARIANT_ATOMIC_REF, VARIANT_ATOMIC_ADD };

/* One launch of `blocks` blocks of `threads` threads (32, 64, ... 1024) that stride over
 * in[0..n), as float4 where they can (any alignment of `in`), and leave the sum in *total.
 * block_sums has room for `blocks` floats; *ticket_counter is 0 before the launch, and the
 * launch leaves it 0. VARIANT_ATOMIC_ADD adds into *total, which must be 0 before the launch.
 * *launched: the kernel that ran and its finish, as reduce.cu names them. */
cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                 unsigned *ticket_counter, float *total, unsigned blocks,
                                 unsigned threads, int variant, struct launched *launched);

#ifdef __cplusplus
}
#endif
#endif
