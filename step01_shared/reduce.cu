/* step01_shared — "Reduction 1: Shared Memory": the same tree on a shared-memory copy
 *
 * Before: step00 ran every level of its tree through global memory and destroyed its input.
 * Here:   each block first copies its elements into shared memory, on chip, and runs the same
 *         loop there. Global memory is read once, coalesced, and written once per block.
 * Profile: fewer warp instructions and a shorter kernel than step00. Compare the DRAM
 *         bytes of both kernels at a small and a large n: while step00's partial sums stay
 *         in the caches, shared memory saves little DRAM traffic (NOTES.md has the
 *         figures). What remains is the loop itself: the
 *         `t % (2*len)` test keeps the working lanes scattered over every warp (document 003's
 *         "Warp Divergence"), and it is an integer remainder by a run-time value. */
#include "reduce.h"

__global__ void reduce_in_shared(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        if (t % (2 * len) == 0) partial[t] += partial[t + len];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, struct launched *launched)
{
    launched->kernel = "reduce_in_shared";
    reduce_in_shared<<<blocks, threads, threads * sizeof(float)>>>(in, n, block_sums);
    return cudaGetLastError();
}
