/* step15_multi_gpu: what host.c, team.c and reduce.c agree on. The kernels are step13's,
 * compiled from step13_gather/reduce.cu (the Makefile links its object into this step): a
 * fix there reaches this step too. What is new is the choice of kernel for n, on a stream of
 * the caller's choice, one per GPU. */
#ifndef STEP15_REDUCE_H
#define STEP15_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "../step13_gather/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The block sizes step13's grid kernel is compiled for, and the default. AUTO_THREADS: the
 * threads step13 takes for n without --threads (DEFAULT_THREADS, or threads_for's). */
enum { FEWEST_THREADS = 128, MOST_THREADS = 1024, DEFAULT_THREADS = 512, AUTO_THREADS = 0 };

/* Device memory the launch needs beside its input, on the GPU that runs it. */
struct scratch {
    float *block_sums;        /* block_sums_bytes(grid_blocks()) bytes, zeroed once */
    float *total;             /* where the launch leaves the sum */
    unsigned *ticket_counter; /* 0 before and after every launch */
    unsigned card_vectors;    /* float4 a thread for the card: card_vectors() of step13 */
    size_t l2_bytes;          /* one card's L2, for step13's loads_for() */
};

/* The threads a block of the grid kernel for n elements: `threads`, or for AUTO_THREADS
 * step13's choice. */
unsigned reduce_threads(size_t n, unsigned threads, unsigned card_vectors);

/* The longest chain of float additions any element goes through in reduce_on_stream over n
 * elements (docs/verification.md): what the error bound of a float total is made of. */
unsigned reduce_depth(size_t n, unsigned threads, unsigned card_vectors);

/* The sum of in[0..n), any n and any alignment of `in`, into *s->total, enqueued on `stream`
 * of the current device: the one-block kernel up to ONE_BLOCK_ELEMENTS, otherwise one launch
 * of the grid kernel, whose block that starts last gathers the block sums; past
 * GATHER_MOST_BLOCKS blocks the block that takes the last ticket adds them instead (step13).
 * *launched: the kernel that ran and its finish. */
cudaError_t reduce_on_stream(const float *in, size_t n, unsigned threads, const struct scratch *s,
                             cudaStream_t stream, struct launched *launched);

#ifdef __cplusplus
}
#endif
#endif
