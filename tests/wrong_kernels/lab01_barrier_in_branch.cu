/* Wrong kernel for lab01 (step02_divergence): the tree's barrier inside the working threads'
 * branch.
 *
 * The mistake: `if (index < blockDim.x) { partial[index] += ...; __syncthreads(); }`. Only the
 * working threads reach that barrier; the others go straight on to the next level. A barrier
 * that not every thread of the block reaches is undefined, and a GPU may still let the
 * working threads through in the right order: the sums can be right, and compute-sanitizer's
 * synccheck need not report it.
 * The checker must say, from the PTX: a barrier that not every thread of the block reaches
 * (bar.sync behind the branch on index < blockDim.x). */
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
        if (index < blockDim.x) {
            partial[index] += partial[index + len];
            __syncthreads();
        }
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
