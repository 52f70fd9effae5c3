/* step12_small_n: what host.c and reduce.cu agree on. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each thread of the grid kernel reads VECTORS_PER_THREAD float4 (16 bytes each), all issued
 * before the first is added, and nothing else: a block is short-lived. */
enum { VECTORS_PER_THREAD = 8, FLOATS_PER_VECTOR = 4 };
enum { FLOATS_PER_THREAD = VECTORS_PER_THREAD * FLOATS_PER_VECTOR };
/* Up to ONE_BLOCK_ELEMENTS floats, a kernel of its own: one block of ONE_BLOCK_THREADS. */
enum { ONE_BLOCK_THREADS = 256, ONE_BLOCK_VECTORS = 4 };
enum { ONE_BLOCK_ELEMENTS = ONE_BLOCK_THREADS * ONE_BLOCK_VECTORS * FLOATS_PER_VECTOR };
/* The last block reads the block sums as float4, this many at once per thread. */
enum { SUM_VECTORS_IN_FLIGHT = 4 };
/* The order of host.c's variants: how the blocks finish. */
enum { VARIANT_TICKET, VARIANT_ATOMIC_ADD };

/* One launch of `blocks` blocks of `threads` threads (128 .. 1024) over in[0..n), any
 * alignment of `in`; the total in *total. block_sums: room for `blocks` floats, rounded up to
 * whole float4. *ticket_counter is 0 before and after. VARIANT_ATOMIC_ADD adds into *total,
 * which must be 0 before the launch. */
cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                 unsigned *ticket_counter, float *total, unsigned blocks,
                                 unsigned threads, int variant);

/* n <= ONE_BLOCK_ELEMENTS: one block of ONE_BLOCK_THREADS does it all. */
cudaError_t reduce_in_one_block(const float *in, unsigned n, float *total);

#ifdef __cplusplus
}
#endif
#endif
