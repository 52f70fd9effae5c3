/* Lazy kernel for lab01 (step02_divergence): correct, and the lesson skipped.
 *
 * The shortcut: TODO(lab1) B written as step01's level, `if (t % (2 * len) == 0)
 * partial[t] += partial[t + len]`: the working threads are chosen by a per-thread modulo
 * test, scattered over every warp, which is the divergence lab01 is about removing (whole
 * warps busy or idle). The sums are right, the sanitizers clean, the index 64-bit; on an H200
 * it ran at 0.62x step02's kernel and passed the grader before it had a lesson column.
 * The checker must say: lesson: whole warps busy or idle ... a per-thread modulo test
 * (`lesson` 0); every other column 1. */
#include "reduce.h"

__global__ void reduce_strided_index(const float *in, size_t n, float *block_sums)
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
    launched->kernel = "reduce_strided_index";
    reduce_strided_index<<<blocks, threads, threads * sizeof(float)>>>(in, n, block_sums);
    return cudaGetLastError();
}
