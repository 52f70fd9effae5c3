/* step12_small_n: what host.c and reduce.cu agree on. */
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
/* Up to ONE_BLOCK_ELEMENTS floats, a kernel of its own: one block of ONE_BLOCK_THREADS, each
 * thread one group of ONE_BLOCK_VECTORS float4. */
enum { ONE_BLOCK_THREADS = 256, ONE_BLOCK_VECTORS = 4 };
enum { ONE_BLOCK_ELEMENTS = ONE_BLOCK_THREADS * ONE_BLOCK_VECTORS * FLOATS_PER_VECTOR };

/* The order of host.c's variants: how the blocks of one launch agree on who finishes. */
enum { VARIANT_TICKET, VARIANT_ATOMIC_ADD };

/* The grid kernel's block count for n floats: one block per block_size * FLOATS_PER_THREAD. */
unsigned grid_blocks(size_t n, unsigned block_size);

/* One launch, enqueued on `stream`, of `blocks` blocks of `threads` threads (32, 64, ... 1024)
 * over in[0..n), any alignment of `in`, that leaves the sum in *total. Each thread reads its
 * share once, so `blocks` must cover n: grid_blocks(n, threads).
 * block_sums has room for `blocks` floats and starts on a 16-byte boundary (as cudaMalloc's
 * memory does); *ticket_counter is 0 before the launch, and the launch leaves it 0.
 * VARIANT_ATOMIC_ADD adds into *total, which must be 0 before the launch.
 * The library's contract: block_sums, *ticket_counter and *total are one launch's scratch.
 * Launches on one stream run one after another and may share it; two launches that may run
 * at once (on two streams, or two host threads with streams of their own) would mix their
 * tickets: a block may count itself last before every sum is written, and the total may be
 * wrong or stale. So a launch on another stream, or from another host thread, is made to
 * wait for the scratch's latest launch (common/scratch.c): launches on one scratch run one
 * after another whatever their streams; launches meant to overlap need a scratch each.
 * *launched: the kernel that ran and its finish, as reduce.cu names them. */
cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                 unsigned *ticket_counter, float *total, unsigned blocks,
                                 unsigned threads, int variant, cudaStream_t stream,
                                 struct launched *launched);

/* n <= ONE_BLOCK_ELEMENTS, any alignment of `in`: one block of ONE_BLOCK_THREADS, enqueued on
 * `stream`, leaves the sum in *total.
 * *launched: the kernel that ran. */
cudaError_t reduce_in_one_block(const float *in, unsigned n, float *total, cudaStream_t stream,
                                struct launched *launched);

#ifdef __cplusplus
}
#endif
#endif
