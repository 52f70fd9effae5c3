/* step03_bank — "Reduction 3: Bank Conflict": sequential addressing, no bank conflicts
 *
 * Before: step02's index = 2*len*t made a warp's 32 threads touch addresses 2*len apart,
 *         so several of them land in the same one of the 32 banks and are served one by one.
 * Here:   the tree folds the upper half onto the lower half: thread t < len adds
 *         partial[t + len]. A warp reads 32 consecutive words, one per bank.
 * Profile: the shared-memory bank-conflict counters drop to about zero; half of the
 *         threads already sit idle in the first level (document 003's "idle线程"): step04. */
#include "reduce.h"

__global__ void reduce_sequential(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned len = blockDim.x / 2; len > 0; len /= 2) {
        if (t < len) partial[t] += partial[t + len];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, struct launched *launched)
{
    launched->kernel = "reduce_sequential";
    reduce_sequential<<<blocks, threads, threads * sizeof(float)>>>(in, n, block_sums);
    return cudaGetLastError();
}
