/* step04_idle — "Reduction 4: Idle Thread": the first add during the load
 *
 * Before: in step03 half of the threads only loaded one value and then idled through the
 *         whole tree (document 003's "idle线程"); a block of 256 threads covered 256 elements.
 * Here:   each thread adds two elements while loading them, a block covers 2 * blockDim.x
 *         elements, and half as many blocks do the same work. The pair is in[i] and
 *         in[i + blockDim.x] inside the block's own slice: the last of document 003's three
 *         ways (还有一种, "there is one more"). Its planA pairs in[i] with in[i + gridDim.x]:
 *         that reads some elements twice and others never, and its host check repeats the
 *         same indexing, so it cannot see the mistake; --variant plan-a runs it (README).
 * Profile: the same tree over half the blocks: about half the warp instructions
 *         (smsp__inst_executed.sum) for the same input, and a higher DRAM throughput. */
#include "reduce.h"

/* PLAN_A: document 003's planA, kept to show its mistake. Thread t of block b adds
 * in[b * blockDim.x + t] and in[b * blockDim.x + t + gridDim.x]: the blocks' first elements
 * overlap the second ones of other blocks, and the top of the array is never read. For
 * n = 2 * blockDim.x * gridDim.x: [gridDim.x, n/2) is read twice, [n/2 + gridDim.x, n) never. */
template <bool PLAN_A>
__global__ void reduce_first_add(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (PLAN_A ? blockDim.x : 2 * blockDim.x) + t;
    size_t partner = i + (PLAN_A ? gridDim.x : blockDim.x);
    float first = i < n ? in[i] : 0.0f;
    float second = partner < n ? in[partner] : 0.0f;
    partial[t] = first + second;
    __syncthreads();
    for (unsigned len = blockDim.x / 2; len > 0; len /= 2) {
        if (t < len) partial[t] += partial[t + len];
        __syncthreads();
    }
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
