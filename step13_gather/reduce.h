/* step13_gather: what host.c and reduce.cu agree on. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A float4 is four floats: 16 bytes, read by one load instruction. Each thread of the grid
 * kernel reads FEWEST_VECTORS, FEW_VECTORS or MANY_VECTORS of them, all issued before the
 * first is added, and nothing else: the host chooses per launch (vectors_per_thread). */
enum { FLOATS_PER_VECTOR = 4, FEWEST_VECTORS = 4, FEW_VECTORS = 8, MANY_VECTORS = 12 };
/* Little's law: the bytes a card must keep in flight grow with its bandwidth per SM. 8 float4
 * a thread are step11's count, sized for the H100, whose peak by the formula (2 x memory clock
 * x bus width: 3352 GB/s) over 132 SMs is 25.4 GB/s per SM; the constant below sits just above
 * it, so that the H100 takes 8. A card with more bandwidth per SM and about the same latency
 * needs proportionally more: card_vectors gives it MANY_VECTORS, the one larger count the
 * kernel is compiled for, enough up to 12 / 8 x 26 = 39 GB/s per SM (the H200 has 4814 GB/s
 * over 132 SMs, 36.5), fewer than the law asks above that. */
#define FEW_VECTORS_ENOUGH_GB_PER_S_PER_SM 26.0
unsigned card_vectors(double gb_per_s_per_sm);
/* The float4 a thread for n floats, whatever the variant: the fewest of FEWEST_VECTORS and
 * FEW_VECTORS whose grid has at most GATHER_MOST_BLOCKS blocks (a grid the gatherer can read),
 * so that a gathered grid has the same bytes in more blocks of fewer registers, more of them
 * on an SM, and, once they are more than fit, a gatherer that starts after most have finished.
 * For a larger grid, `card` (card_vectors). */
unsigned vectors_per_thread(size_t n, unsigned threads, unsigned card);
/* Up to ONE_BLOCK_ELEMENTS floats, a kernel of its own: one block of ONE_BLOCK_THREADS, each
 * thread one group of ONE_BLOCK_VECTORS float4. */
enum { ONE_BLOCK_THREADS = 256, ONE_BLOCK_VECTORS = 4 };
enum { ONE_BLOCK_ELEMENTS = ONE_BLOCK_THREADS * ONE_BLOCK_VECTORS * FLOATS_PER_VECTOR };

/* The order of host.c's variants: how the blocks of one launch agree on who finishes. Then
 * VARIANT_BINS, which no option names: the gather's finish for a grid too large to gather. */
enum { VARIANT_GATHER, VARIANT_TICKET, VARIANT_ATOMIC_ADD, VARIANT_BINS };
/* The most blocks whose sums the gatherer reads; up to BINS_MOST_BLOCKS, a larger grid adds
 * them into the bins, and past that the ticket finishes. Up to WARP_GATHER_MOST_BLOCKS (4 words
 * a lane) the gatherer's warp 0 reads them alone: no barrier and no second block sum after the
 * read. At 256 blocks, 8 words a lane, it measured slower than the whole block (NOTES.md). */
enum { GATHER_MOST_BLOCKS = 2048, WARP_GATHER_MOST_BLOCKS = 128 };
/* The bins: one 64-bit word per exponent field of a finite float (a subnormal's is 0), then
 * one each for NaN, +inf and -inf. A word's low COUNT_BITS count the blocks that added to it;
 * the bits above hold the sum of their signed 24-bit significands. With at most
 * BINS_MOST_BLOCKS blocks neither part can overflow into the other or out of the word:
 * 2^19 x 2^24 = 2^43, and a sign, fit in the 44 bits above the count. */
enum { FINITE_BINS = 255, NAN_BIN = 255, PLUS_INFINITY_BIN, MINUS_INFINITY_BIN, BINS };
enum { COUNT_BITS = 20, BINS_MOST_BLOCKS = 1 << 19 };
/* block_sums holds the gatherer's GATHER_MOST_BLOCKS 64-bit words (two floats each; the bins
 * are the first BINS of them), then the ticket's plain float sums, one per block: the ticket
 * never writes where the gatherer reads, so it leaves nothing to clear. The offset, in floats, is a multiple of 4: float4 reads. */
enum { TICKET_SUMS_OFFSET = GATHER_MOST_BLOCKS * 2 };

/* The bytes of block_sums for a launch of `blocks` blocks, with any variant. */
size_t block_sums_bytes(unsigned blocks);

/* One launch's scratch, as reduce_in_one_launch below wants it, for launches of up to
 * `blocks` blocks: block_sums with its gatherer's words zeroed, *total after them, and
 * *ticket_counter at 0. The layout is this file's, so programs that use the launcher need not
 * know it. */
struct launch_scratch {
    float *block_sums, *total;
    unsigned *ticket_counter;
};
bool launch_scratch_create(struct launch_scratch *scratch, unsigned blocks);
void launch_scratch_free(struct launch_scratch *scratch);
/* Fills what a launch writes with a NaN (outputs_poison) before it, so that a total nobody
 * wrote cannot pass for this launch's. */
bool launch_scratch_poison(const struct launch_scratch *scratch);

/* The finish that a launch of `blocks` blocks with `variant` runs: the variant itself, or for
 * the gather past GATHER_MOST_BLOCKS blocks VARIANT_BINS, and past BINS_MOST_BLOCKS
 * VARIANT_TICKET. */
int finish_for(unsigned blocks, int variant);
/* The longest chain of float additions a block sum goes through in that finish, for the error
 * bound: the gatherer's loop over every threads-th sum and its shuffles; the bins', which add
 * the sums exactly and round once; the ticket's last block's loop over the sums as float4
 * and its shuffles; or atomicAdd's chain, one a block. */
unsigned finish_depth(unsigned blocks, unsigned threads, int variant);

/* How the grid kernel reads its input: through the read-only path, or as streaming data that
 * the caches evict first. Streaming pays while the input is at most STREAMING_MOST_L2S times
 * the L2 (an L2 left full of dirty lines keeps them, instead of writing them back during the
 * kernel); past that it costs (the step's NOTES.md has both measured). loads_for: the kind
 * for n floats on a card of l2_bytes. */
enum { CACHED_LOADS, STREAMING_LOADS };
enum { STREAMING_MOST_L2S = 8 };
int loads_for(size_t n, size_t l2_bytes);

/* The grid kernel's block count for n floats: one block per threads * vectors float4. */
unsigned grid_blocks(size_t n, unsigned threads, unsigned vectors);

/* A block the ticket finishes waits for its ticket's answer (a trip to memory and back)
 * before its SM can start the next block. Blocks of LARGE_GRID_THREADS carry twice the bytes
 * per wait. On H200s that paid from 2^30 floats and was mixed below, from 1.3 points slower to
 * 0.8 faster depending on the host (the step's NOTES.md): LARGE_GRID_BLOCKS puts the border at
 * 2^30 with 8 or 12 float4 a thread. threads_for: the threads a block when --threads is not
 * given, whatever the variant (as for the float4): `threads` (the step's default) with
 * `vectors` float4 each, or LARGE_GRID_THREADS once that grid has more than LARGE_GRID_BLOCKS
 * blocks. A grid that large has the card's count of float4 with either size
 * (vectors_per_thread). The gather's bins, which finish such grids, make no block wait: with
 * them the two sizes measured level at 2^30 and 2^32 on an H200 (NOTES.md), and the border
 * stays where the ticket put it. */
enum { LARGE_GRID_BLOCKS = 32768, LARGE_GRID_THREADS = 1024 };
unsigned threads_for(size_t n, unsigned threads, unsigned vectors);

/* One launch, enqueued on `stream`, of `blocks` blocks of `threads` threads (32, 64, ... 1024)
 * over in[0..n), any alignment of `in`, that leaves the sum in *total. Each thread reads its
 * `vectors` float4 (FEWEST_VECTORS, FEW_VECTORS or MANY_VECTORS) once, so `blocks` must cover n:
 * grid_blocks(n, threads, vectors).
 * block_sums has block_sums_bytes(blocks) bytes, starts on a 16-byte boundary (as cudaMalloc's
 * memory does), and its gatherer's words are zeroed before the first launch; every launch
 * leaves them zeroed. *ticket_counter is 0 before the launch, and the launch leaves it 0.
 * VARIANT_ATOMIC_ADD adds into *total, which must be 0 before the launch. `loads`:
 * CACHED_LOADS or STREAMING_LOADS (loads_for).
 * The library's contract: block_sums, *ticket_counter and *total are one launch's scratch.
 * Launches on one stream run one after another and may share it; two launches that may run
 * at once (on two streams, or two host threads with streams of their own) would let the
 * gatherer wait forever and the total be stale. So a launch on another stream, or from
 * another host thread, is made to wait for the scratch's latest launch (common/scratch.c):
 * launches on one scratch run one after another whatever their streams; launches meant to
 * overlap need a scratch each.
 * *launched: the kernel that ran and its finish, as reduce.cu names them (a gather
 * too large for the gatherer runs finish_for's). */
cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                 unsigned *ticket_counter, float *total, unsigned blocks,
                                 unsigned threads, unsigned vectors, int variant, int loads,
                                 cudaStream_t stream, struct launched *launched);

/* n <= ONE_BLOCK_ELEMENTS, any alignment of `in`: one block of ONE_BLOCK_THREADS, enqueued on
 * `stream`, leaves the sum in *total.
 * *launched: the kernel that ran. */
cudaError_t reduce_in_one_block(const float *in, unsigned n, float *total, cudaStream_t stream,
                                struct launched *launched);

#ifdef __cplusplus
}
#endif
#endif
