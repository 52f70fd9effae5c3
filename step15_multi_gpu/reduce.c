/* step15_multi_gpu — the same kernel, on every GPU at once
 *
 * Before: step13 read one GPU's memory about as fast as it allows. One GPU cannot go faster;
 *         only more memory read in parallel can, and that memory sits on other GPUs.
 * Here:   the kernels are step13's, unchanged and not copied: step13_gather/reduce.cu is
 *         compiled once and linked into this step too. host.c gives every GPU its shard of
 *         the input; each GPU reduces its shard where it lies, on a stream of its own, and
 *         NCCL combines the one float per GPU on the same stream, after the kernel. Only
 *         step13's deterministic finishes run (never its atomicAdd variant): the gather, and
 *         past GATHER_MOST_BLOCKS blocks the ticket, so that a GPU's total has the same bits
 *         on every run. The --variant options move the data instead, to show what that costs.
 * Profile: per GPU, the same as step13 (LDG.E.128, DRAM throughput near its peak). Across
 *         GPUs, use Nsight Systems (nsys profile --trace=cuda,nvtx ./step15/run): one row per
 *         GPU; the kernels should overlap in time, and the NCCL kernel after them should be
 *         a sliver for the default variant; for gather, the peer copies into GPU 0 and its
 *         one long kernel; for elementwise, the long NCCL kernel before the short ones. */
#include "reduce.h"
#include "toolbox.h"

enum { WARP_LEVELS = 5 }; /* shuffles within a warp, and again over the warp sums */
enum { LANE_LEVELS = 2, EDGE_LEVELS = 1 }; /* a float4's four lanes; the head and tail floats */

unsigned reduce_threads(size_t n, unsigned threads, unsigned card)
{
    if (threads != AUTO_THREADS) return threads;
    return threads_for(n, DEFAULT_THREADS, vectors_per_thread(n, DEFAULT_THREADS, card));
}

cudaError_t reduce_on_stream(const float *in, size_t n, unsigned threads, const struct scratch *s,
                             cudaStream_t stream, struct launched *launched)
{
    if (n <= ONE_BLOCK_ELEMENTS)
        return reduce_in_one_block(in, (unsigned)n, s->total, stream, launched);
    threads = reduce_threads(n, threads, s->card_vectors);
    unsigned vectors = vectors_per_thread(n, threads, s->card_vectors);
    return reduce_in_one_launch(in, n, s->block_sums, s->ticket_counter, s->total,
                                grid_blocks(n, threads, vectors), threads, vectors, VARIANT_GATHER,
                                loads_for(n, s->l2_bytes), stream, launched);
}

/* As step13's host.c counts it: a thread's float4 in a row, their lanes, the head and tail
 * floats, the block's shuffles; then the chain of the finish that ran (finish_depth). */
unsigned reduce_depth(size_t n, unsigned threads, unsigned card)
{
    if (n <= ONE_BLOCK_ELEMENTS)
        return ONE_BLOCK_VECTORS + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    threads = reduce_threads(n, threads, card);
    unsigned vectors = vectors_per_thread(n, threads, card);
    unsigned own = vectors + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    return own + finish_depth(grid_blocks(n, threads, vectors), threads, VARIANT_GATHER);
}
