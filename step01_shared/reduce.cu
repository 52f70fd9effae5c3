/* step01_shared — Reduction 1: the same tree on a shared-memory copy (共享内存)
 *
 * Before: step00 sent every partial sum through DRAM (显存) and back, and destroyed its input.
 * Here:   each block first copies its elements into shared memory, on-chip and about a hundred
 *         times closer, and runs the same loop there. Global memory is read once, coalesced.
 * Profile: DRAM traffic falls to one read of the input; what remains is the loop itself: the
 *         `t % (2*len)` test keeps warps divergent (线程束分化), and the modulo is slow. */
#include "reduce.h"

__global__ void reduce_in_shared(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        if (t % (2 * len) == 0)
            partial[t] += partial[t + len];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads)
{
    reduce_in_shared<<<blocks, threads, threads * sizeof(float)>>>(in, n, block_sums);
    return cudaGetLastError();
}
