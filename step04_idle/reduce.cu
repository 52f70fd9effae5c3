/* step04_idle — Reduction 4: first add during load (no idle threads, idle线程)
 *
 * Before: in step03 half of the threads only loaded one value and then idled through the
 *         whole tree; a block of 256 threads covered just 256 elements.
 * Here:   each thread adds two elements while loading them, a block covers 2 * blockDim.x
 *         elements, and half as many blocks do the same work. The pair is in[i] and
 *         in[i + blockDim.x] inside the block's own slice (document 003's "third variant").
 *         Document 003's plan A pairs in[i] with in[i + gridDim.x]: that skips and repeats
 *         elements, and its host check repeats the same mistake; see the README.
 * Profile: same tree, half the blocks: time per element drops, and the DRAM throughput
 *         counter rises toward the memory's limit. */
#include "step.h"

__global__ void reduce_first_add(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;
    float first = i < n ? in[i] : 0.0f;
    float second = i + blockDim.x < n ? in[i + blockDim.x] : 0.0f;
    partial[t] = first + second;
    __syncthreads();
    for (unsigned len = blockDim.x / 2; len > 0; len /= 2) {
        if (t < len)
            partial[t] += partial[t + len];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" PASS_LAUNCHER(step04_launch)
{
    size_t shared_bytes = plan.threads * sizeof(float);
    reduce_first_add<<<plan.blocks, plan.threads, shared_bytes, stream>>>(in, n, out);
    return cudaGetLastError();
}
