/* step06_full_unroll — Reduction 6 (document 003: 完全展开循环): the whole tree unrolled
 * for a block size known at compile time
 *
 * Before: step05's tree was a loop over len with blockDim.x known only at run time: every
 *         level paid for the loop's counter, compare and branch, and the compiler could not
 *         tell which levels a block has.
 * Here:   the block size is a template parameter. Document 003's ladder of
 *         `if (THREADSPERNUM>=512 )` rungs (BLOCK_SIZE here) is decided at compile time: a
 *         level the block does not have is no code at all, the others are straight-line code
 *         with their barrier, and the last warp's loop is unrolled too (#pragma unroll).
 *         --threads picks one of the five instantiations, 64 ... 1024. step05's correct
 *         last warp (syncwarp) stays; its other variants are gone.
 * Profile: fewer warp instructions executed per block and no loop left in the PTX; the
 *         barriers stay the same (three after the load for 256 threads, four in all), so
 *         the barrier stall per instruction rises while the time falls. */
#include "reduce.h"

enum { WARP_SIZE = 32 };

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

/* Document 003's ladder with its bugs fixed: a barrier after every level, the 512 level
 * included (each level reads what other warps wrote in the level before), and a rung for
 * 1024 threads. */
template <unsigned BLOCK_SIZE>
__global__ __launch_bounds__(BLOCK_SIZE) void reduce_full_unroll(const float *in, size_t n,
                                                                 float *block_sums)
{
    static_assert(BLOCK_SIZE >= 2 * WARP_SIZE && BLOCK_SIZE <= 1024 &&
                      (BLOCK_SIZE & (BLOCK_SIZE - 1)) == 0,
                  "a power of two from 64 (the last warp reads partial[47]) to 1024");
    __shared__ float partial[BLOCK_SIZE];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * BLOCK_SIZE) + t;
    float first = i < n ? in[i] : 0.0f;
    float second = i + BLOCK_SIZE < n ? in[i + BLOCK_SIZE] : 0.0f;
    partial[t] = first + second;
    __syncthreads();
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
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

typedef void (*block_kernel)(const float *in, size_t n, float *block_sums);

/* One instantiation per block size that host.c accepts. */
struct instantiation {
    unsigned block_size;
    block_kernel kernel;
    const char *name;
};
#define INSTANCE(size)                                                                             \
    {                                                                                              \
        size, KERNEL_AND_NAME(reduce_full_unroll<size>)                                            \
    }
static const struct instantiation KERNELS_BY_BLOCK_SIZE[] = {
    INSTANCE(64), INSTANCE(128), INSTANCE(256), INSTANCE(512), INSTANCE(1024),
};

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, struct launched *launched)
{
    for (const struct instantiation &instance : KERNELS_BY_BLOCK_SIZE) {
        if (instance.block_size != threads) continue;
        launched->kernel = instance.name;
        instance.kernel<<<blocks, threads>>>(in, n, block_sums);
        return cudaGetLastError();
    }
    return cudaErrorInvalidConfiguration;
}
