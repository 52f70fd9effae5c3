/* Wrong kernel for lab04 (step08_shuffle): after the first shuffle, only half the warp goes on.
 *
 * The mistake: after the step at offset 16 only lanes 0..15 hold values lane 0 still needs,
 * so warp_sum lets only they call the next shuffles, still with the full mask 0xffffffff.
 * Lanes 16..31 are named by the mask and never reach those shuffles: undefined behaviour
 * (PTX ISA, shfl.sync: every lane in the mask must execute the same shfl.sync), which a GPU
 * may forgive with the right sums.
 * The checker must say, from the PTX: a warp instruction that part of the warp skips
 * (shfl.sync reached by only part of the warp, the branch at `if (lane < ...)`). */
#include "reduce.h"

enum { WARP_SIZE = 32, LOADS_IN_FLIGHT = 4 };
/* Every lane of the warp is named in every shuffle. */
static constexpr unsigned FULL_WARP_MASK = 0xffffffffu;

/* Lane l adds the value of lane l + offset, for offset 16, 8, 4, 2, 1: after the five
 * steps lane 0 holds the sum of all 32. After the first step only the lower half of the
 * warp goes on, since lane 0 reads nothing from the upper half any more. */
static __device__ float warp_sum(float value)
{
    unsigned lane = threadIdx.x % WARP_SIZE;
    value += __shfl_down_sync(FULL_WARP_MASK, value, WARP_SIZE / 2);
    if (lane < WARP_SIZE / 2) {
#pragma unroll
        for (unsigned offset = WARP_SIZE / 4; offset > 0; offset /= 2)
            value += __shfl_down_sync(FULL_WARP_MASK, value, offset);
    }
    return value;
}

/* step07's grid-stride loop: thread g adds in[g], in[g + stride], ... with LOADS_IN_FLIGHT
 * loads issued before the first is added. */
template <unsigned BLOCK_SIZE>
static __device__ float thread_sum(const float *in, size_t n)
{
    size_t stride = (size_t)gridDim.x * BLOCK_SIZE;
    float sum = 0.0f;
    for (size_t i = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n;
         i += LOADS_IN_FLIGHT * stride) {
        float loaded[LOADS_IN_FLIGHT];
#pragma unroll
        for (unsigned k = 0; k < LOADS_IN_FLIGHT; k++)
            loaded[k] = i + k * stride < n ? in[i + k * stride] : 0.0f;
#pragma unroll
        for (unsigned k = 0; k < LOADS_IN_FLIGHT; k++) sum += loaded[k];
    }
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
