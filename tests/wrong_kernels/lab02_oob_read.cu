/* Wrong kernel for lab02 (step04_idle): no bounds checks on the two loads.
 *
 * The mistake: document 003's assumption that n is a multiple of 2 * blockDim.x. At an odd n
 * the last block reads up to 2 * blockDim.x - 1 floats past the end of the input: whatever
 * lies there joins the sum, and past the end of the allocation the read is out of bounds.
 * The checker must say: memcheck reports an invalid __global__ read (sanitizer_clean 0);
 * --check fails too wherever the floats past the end are not zeros. */
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
    float first = in[i];
    float second = in[partner];
    partial[t] = first + second;
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
