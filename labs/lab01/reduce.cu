/* lab01 starter — step02_divergence's kernel with its lesson cut out (labs/lab01/README.md)
 *
 * Before: step00 ran the tree in global memory, and step01's tree in shared memory chose its
 *         working threads with t % (2*len) == 0: at every level each warp had a few working
 *         lanes and issued the add for all 32.
 * Here:   you write the kernel's two holes, TODO(lab1) A and B: the block's elements go into
 *         shared memory, and at each level of the tree the working threads are the
 *         lowest-numbered ones, packed into as few warps as possible. As shipped the holes
 *         leave zeros, so ./labs/lab01/run --check fails; step02_divergence/reduce.cu is one
 *         answer. The host program, step02_divergence/host.c, is unchanged.
 * Profile: warp instructions executed (smsp__inst_executed.sum) fall against step01; shared
 *         load bank conflicts (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum)
 *         rise, and lab02 removes them. */
#include "reduce.h"

__global__ void reduce_strided_index(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    /* TODO(lab1) A: block b's slice of `in` starts after the slices of blocks 0 to b - 1,
     * and thread t copies element t of that slice into partial[t], or 0 where its index is n
     * or more, so that any n works (a size_t index: n goes up to 2^32). Then no thread may
     * read another thread's slot before every thread has written its own: what makes sure of
     * that? */
    partial[t] = 0.0f;
    for (unsigned len = 1; len < blockDim.x; len *= 2) {
        /* TODO(lab1) B: one level of the tree, the same adds as step01's level, done by
         * other threads. step01 picks its working threads with t % (2*len) == 0, scattered
         * over every warp. Here the working threads must be 0, 1, 2, ..., packed into the
         * lowest warps: which slot does thread t add into, and how does a thread know that it
         * has one? Try it with 8 threads first. */
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
