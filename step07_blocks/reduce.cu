/* step07_blocks — Reduction 7 (document 003: 设置合适的block数量): a fixed grid, many
 * elements per thread
 *
 * Before: step06 launched one block per 2 * blockDim.x elements: 65536 blocks of 256
 *         threads for 2^25 elements. Each thread loaded two values and then spent most of
 *         its life in the tree; the GPU started, ran and retired 65536 trees.
 * Here:   a fixed grid (by default enough blocks to fill every SM once; --blocks B; never
 *         fewer than 8 elements per thread) walks the input with a grid-stride loop
 *         (documents 000, 001, 004): thread g adds in[g], in[g + stride], ... in a
 *         register, stride = gridDim.x * BLOCK_SIZE, and step06's templated tree runs once
 *         per block. Document 003 makes N and NUMSPERTHREAD compile-time constants: its
 *         loop has a fixed trip count and no bounds check, and it silently drops the last
 *         N mod (blocks * threads) elements.
 *         Here n arrives at run time: every load checks i < n, and the loop takes
 *         LOADS_IN_FLIGHT loads at a time, all issued before the first is added, so that a
 *         thread waits for DRAM once per batch, not once per element.
 *         --clock: thread 0 of each block stamps clock64() at the block's start and end
 *         (document 004's in-kernel timing). --variant thread0: document 004's block sum
 *         by thread 0 alone, a loop over the block's partial sums, against the tree.
 * Profile: DRAM throughput well above step06's; a loop over --blocks B --csv shows the time
 *         against the grid size (README); the second launch sums only the grid's block sums. */
#include "reduce.h"

enum { WARP_SIZE = 32, LOADS_IN_FLIGHT = 4 };

/* The CUDA guide's pattern. `partial[t] += partial[t + len]; __syncwarp();` alone would
 * still race: inside that one statement lane t + len writes partial[t + len] while lane t
 * reads it. So every level reads into a register, waits for the warp, writes, waits.
 * Lanes t < 32 of warp 0; leaves the block's sum in partial[0]. Lanes 16..31 read
 * partial[32..47] and compute sums nobody reads: hence at least 64 threads a block. */
static __device__ void last_warp_syncwarp(float *partial, unsigned t)
{
    float sum = partial[t];
#pragma unroll
    for (unsigned len = WARP_SIZE / 2; len > 0; len /= 2) {
        sum += partial[t + len];
        __syncwarp();
        partial[t] = sum;
        __syncwarp();
    }
}

/* Document 004's second kernel: after the barrier, thread 0 alone adds the block's
 * BLOCK_SIZE partial sums in a loop while the other threads wait. */
template <unsigned BLOCK_SIZE>
static __device__ void thread0_sum(float *partial, unsigned t)
{
    if (t != 0) return;
    for (unsigned i = 1; i < BLOCK_SIZE; i++) partial[0] += partial[i];
}

/* Document 003's ladder with its bugs fixed: a barrier after every level, the 512 level
 * included (each level reads what other warps wrote in the level before), and a rung for
 * 1024 threads. */
template <unsigned BLOCK_SIZE>
static __device__ void tree_sum(float *partial, unsigned t)
{
    if (BLOCK_SIZE >= 1024) {
        if (t < 512) partial[t] += partial[t + 512];
        __syncthreads();
    }
    if (BLOCK_SIZE >= 512) {
        if (t < 256) partial[t] += partial[t + 256];
        __syncthreads();
    }
    if (BLOCK_SIZE >= 256) {
        if (t < 128) partial[t] += partial[t + 128];
        __syncthreads();
    }
    if (BLOCK_SIZE >= 128) {
        if (t < 64) partial[t] += partial[t + 64];
        __syncthreads();
    }
    if (BLOCK_SIZE >= 64) {
        if (t < 32) partial[t] += partial[t + 32];
        __syncthreads();
    }
    if (t < WARP_SIZE) last_warp_syncwarp(partial, t);
}

template <unsigned BLOCK_SIZE, bool THREAD0>
__global__ __launch_bounds__(BLOCK_SIZE) void reduce_grid_stride(const float *in, size_t n,
                                                                 float *block_sums,
                                                                 long long *block_clocks)
{
    static_assert(BLOCK_SIZE >= 2 * WARP_SIZE && BLOCK_SIZE <= 1024 &&
                      (BLOCK_SIZE & (BLOCK_SIZE - 1)) == 0,
                  "a power of two from 64 (the last warp reads partial[47]) to 1024");
    __shared__ float partial[BLOCK_SIZE];
    unsigned t = threadIdx.x;
    if (block_clocks != NULL && t == 0) block_clocks[2 * blockIdx.x] = clock64();
    size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    float sum = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK_SIZE + t; i < n; i += LOADS_IN_FLIGHT * stride) {
        float loaded[LOADS_IN_FLIGHT];
#pragma unroll
        for (unsigned k = 0; k < LOADS_IN_FLIGHT; k++)
            loaded[k] = i + k * stride < n ? in[i + k * stride] : 0.0f;
#pragma unroll
        for (unsigned k = 0; k < LOADS_IN_FLIGHT; k++) sum += loaded[k];
    }
    partial[t] = sum;
    __syncthreads();
    if (THREAD0)
        thread0_sum<BLOCK_SIZE>(partial, t);
    else
        tree_sum<BLOCK_SIZE>(partial, t);
    if (t == 0) block_sums[blockIdx.x] = partial[0];
    if (block_clocks != NULL && t == 0) block_clocks[2 * blockIdx.x + 1] = clock64();
}

typedef void (*block_kernel)(const float *in, size_t n, float *block_sums, long long *block_clocks);

/* One instantiation per block size that host.c accepts, for each way to add up a block. */
/* A kernel and its name as the source spells it: what the report names. */
struct named_kernel {
    block_kernel kernel;
    const char *name;
};
struct instantiation {
    unsigned block_size;
    struct named_kernel tree, thread0;
};
#define BOTH(size)                                                                                 \
    {                                                                                              \
        size, {KERNEL_AND_NAME(reduce_grid_stride<size, false>)},                                  \
        {                                                                                          \
            KERNEL_AND_NAME(reduce_grid_stride<size, true>)                                        \
        }                                                                                          \
    }
static const struct instantiation KERNELS_BY_BLOCK_SIZE[] = {
    BOTH(64), BOTH(128), BOTH(256), BOTH(512), BOTH(1024),
};

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, int variant, long long *clocks,
                                     struct launched *launched)
{
    for (const struct instantiation &instance : KERNELS_BY_BLOCK_SIZE) {
        if (instance.block_size != threads) continue;
        const struct named_kernel *chosen = variant == VARIANT_THREAD0 ? &instance.thread0
                                                                       : &instance.tree;
        launched->kernel = chosen->name;
        chosen->kernel<<<blocks, threads>>>(in, n, block_sums, clocks);
        return cudaGetLastError();
    }
    return cudaErrorInvalidConfiguration;
}
