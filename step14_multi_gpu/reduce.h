/* step14_multi_gpu: what host.c and reduce.cu agree on. The kernel is step12's; what is new
 * is that it runs on a stream of the caller's choice, one per GPU. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* step12's shape: each thread of the grid kernel reads VECTORS_PER_THREAD float4, all
 * issued before the first is added; up to ONE_BLOCK_ELEMENTS floats, one block of
 * ONE_BLOCK_THREADS does it all; the last block reads the block sums SUM_VECTORS_IN_FLIGHT
 * float4 at a time per thread. */
enum { VECTORS_PER_THREAD = 8, FLOATS_PER_VECTOR = 4 };
enum { FLOATS_PER_THREAD = VECTORS_PER_THREAD * FLOATS_PER_VECTOR };
enum { ONE_BLOCK_THREADS = 256, ONE_BLOCK_VECTORS = 4 };
enum { ONE_BLOCK_ELEMENTS = ONE_BLOCK_THREADS * ONE_BLOCK_VECTORS * FLOATS_PER_VECTOR };
enum { SUM_VECTORS_IN_FLIGHT = 4 };
/* The block sizes the grid kernel is compiled for: 128, 256, 512, 1024. */
enum { FEWEST_THREADS = 128, MOST_THREADS = 1024, DEFAULT_THREADS = 512 };

/* Device memory the launch needs beside its input, on the GPU that runs it. */
struct scratch {
    float *block_sums;               /* room for reduce_blocks() floats, rounded up to float4 */
    float *total;                    /* where the launch leaves the sum */
    unsigned *ticket_counter;        /* 0 before and after every launch */
};

/* The grid kernel's block count for n floats and `threads` threads (128 .. 1024). */
unsigned reduce_blocks(size_t n, unsigned threads);

/* The longest chain of float additions any element goes through in reduce_on_stream over n
 * elements (docs/verification.md): what the error bound of a float total is made of. */
unsigned reduce_depth(size_t n, unsigned threads);

/* The sum of in[0..n), any n and any alignment of `in`, into *s->total, enqueued on `stream`
 * of the current device: the one-block kernel up to ONE_BLOCK_ELEMENTS, otherwise one launch
 * of the grid kernel, whose last block adds the block sums (step09's ticket). */
cudaError_t reduce_on_stream(const float *in, size_t n, unsigned threads, const struct scratch *s,
                             cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
