/* Wrong kernel for lab01 (step02_divergence): the element's index in an int.
 *
 * The mistake: `int i = blockIdx.x * blockDim.x + t`. Below 2^31 elements nothing shows; from
 * element 2^31 on the index wraps to a negative int, which compared with the size_t n becomes
 * a huge number: those elements are read as 0. --check stops at 2^25 + 1 and passes.
 * The checker must say: 64-bit index: wrong at n = 4294967296 with --pattern onehot:last (the
 * index wraps past 2^31), where the GPU has the memory; "not checked: 64-bit index at
 * n = 4294967296: needs ... GiB", and no pass, where it has not. */
#include "reduce.h"

__global__ void reduce_strided_index(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        unsigned index = 2 * len * t;
        if (index < blockDim.x) partial[index] += partial[index + len];
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
