/* step09_single_pass — what host.c and reduce.cu agree on: how much a thread reads per
 * iteration of its loop, and the two entry points into the .cu file. */
#ifndef STEP09_SINGLE_PASS_H
#define STEP09_SINGLE_PASS_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each iteration a thread issues this many independent 16-byte loads before it adds any of
 * them: the bytes it keeps in flight are what hide the memory's latency. */
enum { VECTORS_PER_ITERATION = 4, FLOATS_PER_VECTOR = 4 };
enum { FLOATS_PER_ITERATION = VECTORS_PER_ITERATION * FLOATS_PER_VECTOR };
/* The block that finishes loads this many partials per thread at once. */
enum { PARTIALS_IN_FLIGHT = 8 };
/* Up to ONE_BLOCK_ELEMENTS floats, a kernel of its own: one block of ONE_BLOCK_THREADS,
 * one group of loads per thread, no grid behind it (reduce.cu says why). */
enum { ONE_BLOCK_THREADS = 256, ONE_BLOCK_ELEMENTS = ONE_BLOCK_THREADS * FLOATS_PER_ITERATION };

/* Reduces in[0..n) to *total in one launch of plan.blocks x plan.threads. partials has room
 * for plan.blocks floats; *ticket_counter is 0 before the launch and 0 again after it.
 * plan.block_clocks: NULL, or room for two clock64() stamps per block (--clock). */
cudaError_t step09_launch(const float *in, size_t n, struct pass_plan plan, float *partials,
                          unsigned *ticket_counter, float *total, cudaStream_t stream);

/* Reduces in[0..n), n <= ONE_BLOCK_ELEMENTS, to *total with one block of ONE_BLOCK_THREADS.
 * block_clocks: NULL, or room for the block's two clock64() stamps (--clock). */
cudaError_t step09_launch_one_block(const float *in, unsigned n, float *total,
                                    long long *block_clocks, cudaStream_t stream);

/* Blocks of this size one SM holds at once (registers, shared memory, its block limit);
 * 0 when the runtime cannot say. */
int step09_resident_blocks_per_sm(unsigned threads);

#ifdef __cplusplus
}
#endif
#endif
