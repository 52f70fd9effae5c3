/* Wrong kernel for lab01 (step02_divergence): the barrier inside the tree's loop is missing.
 *
 * The mistake: the __syncthreads() at the end of each level is gone, so level 2*len may read
 * a slot that another warp has not yet written at level len. The sums are right or wrong
 * depending on how the warps happen to run.
 * The checker must say: racecheck reports the hazards (sanitizer_clean 0); --check may also
 * fail. */
#include "reduce.h"

__global__ void reduce_strided_index(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        unsigned index = 2 * len * t;
        if (index < blockDim.x) partial[index] += partial[index + len];
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
