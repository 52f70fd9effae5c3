/* Lazy kernel for lab04 (step08_shuffle): right below 2^31 elements, and the lesson skipped.
 *
 * The shortcut: TODO(lab4) A's grid-stride loop with an `int` index and one load added at a
 * time (no loads in flight: each add waits for its load), TODO(lab4) B's shuffles with a
 * literal 0xffffffff (a full mask, not named). --check passes; at n = 2^32 the int index
 * wraps. On an H200 it failed the grader only at n = 2^32.
 * The checker must say: lesson: 64-bit indexing in the grid-stride loop ... and loads in
 * flight ... (`lesson` 0), and 64-bit index: wrong or no result at n = 4294967296
 * (`index64` 0). The literal mask is the full one: the PTX cannot tell a literal from a named
 * constant, and neither is reported. */
#include "reduce.h"

enum { WARP_SIZE = 32 };
/* Every lane of the warp takes part in every shuffle. */

/* Lane l adds the value of lane l + offset, for offset 16, 8, 4, 2, 1: after the five
 * steps lane 0 holds the sum of all 32. A lane above 31 - offset gets its own value back
 * and ends with a sum that lane 0 never reads. All 32 lanes must call it: reading a lane
 * outside the mask is undefined. */
static __device__ float warp_sum(float value)
{
#pragma unroll
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        value += __shfl_down_sync(0xffffffff, value, offset);
    return value;
}

/* step07's grid-stride loop: thread g adds in[g], in[g + stride], ... with LOADS_IN_FLIGHT
 * loads issued before the first is added. */
template <unsigned BLOCK_SIZE>
static __device__ float thread_sum(const float *in, size_t n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += gridDim.x * BLOCK_SIZE)
        sum += in[i];
    return sum;
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
