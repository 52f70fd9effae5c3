/* step00_global — "Reduction 0: Global Memory": the tree in place in global memory
 *
 * Before: nothing; this is where the ladder starts (document 003, Reduction 0).
 * Here:   each block sums its blockDim.x elements as a tree, in place in the input.
 *         At level `len`, thread t with t % (2*len) == 0 adds the element len to its right.
 * Profile: every level loads and stores its partial sums in global memory: 511 loads and
 *         256 stores per 256 elements. After the first level a block touches only its own
 *         1 KiB, which the caches hold: compare the L1/L2 traffic with the DRAM bytes, and
 *         both with step01's (NOTES.md says at which n they meet). Inside a warp only
 *         every 2nd, 4th, ... lane works (document 003's "Warp Divergence"), and those
 *         lanes' addresses are strided, so part of every memory transaction is wasted.
 *         The input is destroyed, so a timing loop must restore it. */
#include "reduce.h"

__global__ void reduce_in_global(float *data, size_t n, float *block_sums)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        /* i + len < n: a partner past the end counts as 0, so any n is safe. */
        if (threadIdx.x % (2 * len) == 0 && i + len < n) data[i] += data[i + len];
        __syncthreads();
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = i < n ? data[i] : 0.0f;
}

extern "C" cudaError_t reduce_blocks(float *data, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, struct launched *launched)
{
    launched->kernel = "reduce_in_global";
    reduce_in_global<<<blocks, threads>>>(data, n, block_sums);
    return cudaGetLastError();
}
