/* step02_divergence — "Reduction 2: Wrap Divergence" (the document's slip for warp): whole
 * warps busy or idle, with the document's "official" strided index (官方做法)
 *
 * Before: step01 chose its working threads with t % (2*len) == 0: at every level the
 *         workers are scattered over all warps, so every warp issues the add for a few lanes.
 * Here:   thread t works on index = 2*len*t, so the workers are the lowest-numbered threads,
 *         packed into as few warps as possible; whole warps skip the branch together.
 * Profile: warp instructions executed (smsp__inst_executed.sum) fall by almost half. The new
 *         cost: at len = 1 threads t and t+16 hit the same bank (document 003's "bank
 *         conflict"), and later levels put more lanes on one bank (8 at 256 threads);
 *         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum shows it. step03 fixes it. */
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
    reduce_strided_index<<<blocks, threads, threads * sizeof(float)>>>(in, n, block_sums);
    return cudaGetLastError();
}
