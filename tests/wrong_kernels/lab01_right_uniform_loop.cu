/* Right kernel for lab01 (step02_divergence): a loop with barriers that starts at threadIdx.x.
 *
 * Nothing is wrong: each block walks over tiles of blockDim.x elements, a grid apart, and adds
 * each tile with step02's tree before the next. The loop's index starts at the thread's own
 * element and stops at n rounded up to a whole tile, so every thread of a block runs it the
 * same number of times and reaches every __syncthreads() inside it.
 * The checker must say: PASSED (no barrier reported as skipped: the trip count is the same in
 * every thread). */
#include "reduce.h"

/* step02's tree over partial[0 .. blockDim.x): the sum ends in partial[0]. */
static __device__ void tile_tree(float *partial, unsigned t)
{
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        unsigned index = 2 * len * t;
        if (index < blockDim.x) partial[index] += partial[index + len];
        __syncthreads();
    }
}

__global__ void reduce_strided_index(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t tile = blockDim.x, stride = (size_t)gridDim.x * tile;
    size_t whole_tiles = (n + tile - 1) / tile * tile;
    float sum = 0.0f;
    for (size_t i = (size_t)blockIdx.x * tile + t; i < whole_tiles; i += stride) {
        partial[t] = i < n ? in[i] : 0.0f;
        __syncthreads();
        tile_tree(partial, t);
        if (t == 0) sum += partial[0];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = sum;
}

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, struct launched *launched)
{
    launched->kernel = "reduce_strided_index";
    reduce_strided_index<<<blocks, threads, threads * sizeof(float)>>>(in, n, block_sums);
    return cudaGetLastError();
}
