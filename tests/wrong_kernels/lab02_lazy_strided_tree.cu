/* Lazy kernel for lab02 (step04_idle): correct, and the lesson skipped.
 *
 * The shortcut: TODO(lab2) B left as step02's tree, the strided index 2*len*t (lanes t and
 * t + 16 on one shared-memory bank: the bank conflicts lab02 is about removing), and
 * TODO(lab2) A's two elements an adjacent pair, in[2t] and in[2t + 1] of the block's slice,
 * so that each of the warp's two loads reads every other float. The sums are right, the
 * sanitizers clean; on an H200 it ran at 0.79x step04's kernel and passed the grader before
 * it had a lesson column. Plan A (--variant plan-a) is kept as the starter asks.
 * The checker must say: lesson: sequential addressing ... the strided index 2*len*t
 * (`lesson` 0); every other column 1. That the adjacent pair is a less coalesced load the PTX
 * cannot tell (an address pattern, not an instruction): only a GPU measurement shows it. */
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
    size_t i = PLAN_A ? (size_t)blockIdx.x * blockDim.x + t
                      : (size_t)blockIdx.x * (2 * blockDim.x) + 2 * t;
    size_t partner = i + (PLAN_A ? gridDim.x : 1);
    float first = i < n ? in[i] : 0.0f;
    float second = partner < n ? in[partner] : 0.0f;
    partial[t] = first + second;
    __syncthreads();
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        unsigned index = 2 * len * t;
        if (index < blockDim.x) partial[index] += partial[index + len];
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
