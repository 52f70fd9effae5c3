/* step00_global — Reduction 0: add in place in global memory (全局内存)
 *
 * Before: nothing; this is where the ladder starts (document 003, Reduction 0).
 * Here:   each block sums its blockDim.x elements as a tree, in place in the input.
 *         At level `len`, thread t with t % (2*len) == 0 adds the element len to its right.
 * Profile: every partial sum goes to DRAM and back (a load and a store per addition per
 *         level); inside a warp only every 2nd, 4th, ... thread works (warp divergence,
 *         线程束分化), and its accesses are strided (half of every memory transaction wasted).
 *         The input is destroyed, so a timing loop must restore it. */
#include "reduce.h"

__global__ void reduce_in_global(float *data, size_t n, float *block_sums)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        /* i + len < n: a partner past the end counts as 0, so any n is safe. */
        if (threadIdx.x % (2 * len) == 0 && i + len < n)
            data[i] += data[i + len];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = i < n ? data[i] : 0.0f;
}

extern "C" cudaError_t reduce_blocks(float *data, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads)
{
    reduce_in_global<<<blocks, threads>>>(data, n, block_sums);
    return cudaGetLastError();
}
