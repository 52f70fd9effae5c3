/* lab02 starter — step04_idle's kernel with its lessons cut out (labs/lab02/README.md)
 *
 * Before: step02 packed the working threads into the lowest warps, but its index 2*len*t
 *         put lanes t and t + 16 of a warp on the same shared-memory bank; and from step00
 *         on, half of the threads loaded one element and then idled through the whole tree.
 * Here:   you write the two holes. TODO(lab2) A: each thread adds two elements of its
 *         block's own slice while loading them, so a block covers 2 * blockDim.x elements
 *         (host.c launches half as many blocks: ELEMENTS_PER_THREAD = 2); and, for the lab's
 *         questions, the two elements of document 003's plan A (--variant plan-a), its
 *         mistake kept. TODO(lab2) B: the tree with sequential addressing, no bank
 *         conflicts. As shipped the holes leave zeros, so ./labs/lab02/run --check fails;
 *         step04_idle/reduce.cu is one answer. The host program, step04_idle/host.c and
 *         plan_a.c, is unchanged.
 * Profile: shared load bank conflicts near 0 (step02 had many); half the blocks and far fewer
 *         warp instructions for the same input; DRAM throughput up. */
#include "reduce.h"

/* PLAN_A: document 003's plan A, kept to show its mistake (question 4): the pair it adds
 * overlaps the pairs of other blocks, and the top of the array is never read. */
template <bool PLAN_A>
__global__ void reduce_first_add(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    /* TODO(lab2) A: thread t adds two elements of in while loading them and stores the sum
     * in partial[t]; an element whose index is n or more counts as 0, and an index may pass
     * 2^32 (n goes up to 2^32). Which two? Without PLAN_A, block b owns the
     * 2 * blockDim.x elements that start at b * 2 * blockDim.x, and both loads of a warp
     * must read 32 consecutive floats. With PLAN_A, document 003's own pair, tidx1 and
     * tidx2 as step04's problem section quotes them: the pairing question 4 is about. */
    partial[t] = 0.0f;
    __syncthreads();
    /* TODO(lab2) B: the tree, from blockDim.x values in partial[] down to partial[0]: fold
     * the upper half of the values onto the lower half, then the upper half of what is left
     * onto its lower half, and so on, each thread of the lower half adding one value, so
     * that the 32 lanes of a warp touch 32 consecutive words: 32 different banks. A level
     * must be complete before the next one reads it. */
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, int variant, struct launched *launched)
{
    size_t shared_bytes = threads * sizeof(float);
    if (variant == VARIANT_PLAN_A) {
        launched->kernel = "reduce_first_add<true>";
        reduce_first_add<true><<<blocks, threads, shared_bytes>>>(in, n, block_sums);
    } else {
        launched->kernel = "reduce_first_add<false>";
        reduce_first_add<false><<<blocks, threads, shared_bytes>>>(in, n, block_sums);
    }
    return cudaGetLastError();
}
