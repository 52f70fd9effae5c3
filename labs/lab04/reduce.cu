/* lab04 starter — step08_shuffle's kernel with its lessons cut out (labs/lab04/README.md)
 *
 * Before: up to step06 the grid grew with the input, one block per 512 elements, each thread
 *         adding two elements before a tree through shared memory with a barrier or a
 *         __syncwarp() at every level.
 * Here:   you write the two holes. TODO(lab4) A: the grid is fixed (host.c fills the GPU
 *         once, or takes --blocks) and each thread walks over the input with a grid-stride
 *         loop, adding many elements in a register. TODO(lab4) B: a warp adds its 32 values
 *         with __shfl_down_sync, in registers, with no shared memory and no barrier;
 *         block_sum below puts the warps together. As shipped the holes give 0, so
 *         ./labs/lab04/run --check fails; step08_shuffle/reduce.cu is one answer. The host
 *         program, step08_shuffle/host.c, is unchanged.
 * Profile: one __syncthreads() per block, no __syncwarp(); shfl.sync.down.b32 five times per
 *         warp_sum in the PTX; at large n the time is set by DRAM, near CUB's. */
#include "reduce.h"

enum { WARP_SIZE = 32, LOADS_IN_FLIGHT = 4 };

/* TODO(lab4) B: lane 0 returns the sum of the 32 lanes' values. Five steps, offset = 16, 8,
 * 4, 2, 1: each lane adds the value that lane + offset holds, which __shfl_down_sync(mask,
 * value, offset) hands it. Every lane of the warp calls this function (block_sum makes sure
 * of that): which mask says so? Give it a name, a constant beside WARP_SIZE. */
static __device__ float warp_sum(float value)
{
    return value;
}

/* TODO(lab4) A: the sum of the elements this thread owns: thread g of the grid (the threads
 * of the blocks before this one, then its own place in the block) adds in[g],
 * in[g + stride], in[g + 2 * stride], ... while the index is below n, where stride is the
 * number of threads in the grid. A warp's 32 lanes then read 32 consecutive floats at every
 * step. For more speed issue LOADS_IN_FLIGHT loads before adding any of them (question 5 of
 * the handout measures it). */
template <unsigned BLOCK_SIZE>
static __device__ float thread_sum(const float *in, size_t n)
{
    return 0.0f;
}

/* The block's sum, in thread 0: each warp adds its 32 values with shuffles, lane 0 of each
 * warp leaves the warp's sum in shared memory, and after one barrier the first warp adds
 * those. */
template <unsigned BLOCK_SIZE>
static __device__ float block_sum(float sum)
{
    static_assert(BLOCK_SIZE >= WARP_SIZE && BLOCK_SIZE <= 1024 &&
                      (BLOCK_SIZE & (BLOCK_SIZE - 1)) == 0,
                  "a power of two from one warp to 1024 threads");
    __shared__ float warp_sums[WARP_SIZE];
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    sum = warp_sum(sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) sum = warp_sum(lane < BLOCK_SIZE / WARP_SIZE ? warp_sums[lane] : 0.0f);
    return sum;
}

template <unsigned BLOCK_SIZE>
__global__ __launch_bounds__(BLOCK_SIZE) void reduce_shuffle(const float *in, size_t n,
                                                             float *block_sums)
{
    float sum = block_sum<BLOCK_SIZE>(thread_sum<BLOCK_SIZE>(in, n));
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
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
        size, KERNEL_AND_NAME(reduce_shuffle<size>)                                                \
    }
static const struct instantiation KERNELS_BY_BLOCK_SIZE[] = {
    INSTANCE(32), INSTANCE(64), INSTANCE(128), INSTANCE(256), INSTANCE(512), INSTANCE(1024),
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
