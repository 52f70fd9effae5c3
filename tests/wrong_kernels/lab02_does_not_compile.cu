/* Wrong kernel for lab02 (step04_idle): it does not compile.
 *
 * The mistake: the first add names `second`, a variable the student meant to declare and
 * did not.
 * The checker must say: does not compile, with the compiler's first error (identifier
 * "second" is undefined). */
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
    partial[t] = first + (partner < n ? second : 0.0f);
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
