/* Wrong submission for lab01 (step02_divergence): the sum is done on the host.
 *
 * The mistake (on purpose): the launcher copies the input back to the host, adds it on the
 * CPU and writes the total as the first block sum, the others 0. Every sum is right, every
 * sanitizer clean; only the time would show it. The kernel is step02's, never launched.
 * The checker must say, before running anything: the host code is not the starter's (the
 * launcher reduce_blocks was changed), and run nothing. */
#include <vector>

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
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, struct launched *launched)
{
    launched->kernel = "reduce_strided_index";
    std::vector<float> copy(n);
    cudaError_t status = cudaMemcpy(copy.data(), in, n * sizeof(float), cudaMemcpyDeviceToHost);
    if (status != cudaSuccess) return status;
    double total = 0.0;
    for (float value : copy) total += value;
    std::vector<float> sums(blocks, 0.0f);
    if (blocks > 0) sums[0] = (float)total;
    (void)threads;
    return cudaMemcpy(block_sums, sums.data(), blocks * sizeof(float), cudaMemcpyHostToDevice);
}
