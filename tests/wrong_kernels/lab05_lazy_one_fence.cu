/* Lazy kernel for lab05 (step09_last_block): the sums right on the GPU, and the lesson
 * skipped.
 *
 * The shortcut: TODO(lab5) A with one fence, the release before the ticket, and none after
 * it in the last block (the acquire): the last block may read another block's sum before
 * that block's write is visible to it. Task B is written as the step's. A GPU forgives it:
 * --check and the sanitizers pass. On an H200 it failed the grader on its compiled code.
 * The checker must say: compiled code: ... no fence between taking the ticket and reading
 * the other blocks' sums (`instructions` 0), and lesson: both fences ... (`lesson` 0). */
#include <cuda/atomic>

#include "reduce.h"

enum { WARP_SIZE = 32, LOADS_IN_FLIGHT = 4 };
/* Every lane of the warp takes part in every shuffle. */
static constexpr unsigned FULL_WARP_MASK = 0xffffffffu;

/* Lane l adds the value of lane l + offset, for offset 16, 8, 4, 2, 1: after the five
 * steps lane 0 holds the sum of all 32. A lane above 31 - offset gets its own value back
 * and ends with a sum that lane 0 never reads. All 32 lanes must call it: reading a lane
 * outside the mask is undefined. */
static __device__ float warp_sum(float value)
{
#pragma unroll
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        value += __shfl_down_sync(FULL_WARP_MASK, value, offset);
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

/* Document 000's lastBlock(), with the acquire half added. Every thread fences (as the
 * document does; the fence that matters is thread 0's, after its store of the block sum);
 * thread 0 takes a ticket; __syncthreads_or tells the whole block whether it was the last. */
static __device__ bool last_block_fence(unsigned *ticket_counter)
{
    __threadfence();
    bool last = false;
    if (threadIdx.x == 0) last = atomicAdd(ticket_counter, 1u) == gridDim.x - 1;
    return __syncthreads_or(last);
}

/* The same guard in the C++ memory model: one read-modify-write with acquire-release order at
 * device scope does what the two fences do. */
static __device__ bool last_block_atomic_ref(unsigned *ticket_counter)
{
    bool last = false;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*ticket_counter);
        last = ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    return __syncthreads_or(last);
}

template <unsigned BLOCK_SIZE, int VARIANT>
__global__ __launch_bounds__(BLOCK_SIZE) void reduce_last_block(const float *in, size_t n,
                                                                float *block_sums,
                                                                unsigned *ticket_counter,
                                                                float *total)
{
    float sum = block_sum<BLOCK_SIZE>(thread_sum<BLOCK_SIZE>(in, n));
    if (VARIANT == VARIANT_ATOMIC_ADD) {
        if (threadIdx.x == 0) atomicAdd(total, sum);
        return;
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
    bool last = VARIANT == VARIANT_FENCE ? last_block_fence(ticket_counter)
                                         : last_block_atomic_ref(ticket_counter);
    if (!last) return;
    /* Every block sum is written and visible. __syncthreads_or was also the barrier that
     * block_sum needs before it runs again: warp 0 is done reading warp_sums. */
    sum = 0.0f;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BLOCK_SIZE) sum += block_sums[i];
    sum = block_sum<BLOCK_SIZE>(sum);
    if (threadIdx.x == 0) {
        *total = sum;
        *ticket_counter = 0; /* every other block has its ticket: nobody else reads it */
    }
}

typedef void (*block_kernel)(const float *in, size_t n, float *block_sums, unsigned *ticket_counter,
                             float *total);

/* A kernel, its name, and how its blocks' sums become the total: what the report names. */
struct named_kernel {
    block_kernel kernel;
    const char *name, *finish;
};
/* One instantiation per block size that host.c accepts, for each variant. */
struct instantiation {
    unsigned block_size;
    struct named_kernel by_variant[3];
};
#define VARIANTS(size)                                                                             \
    {                                                                                              \
        size,                                                                                      \
        {                                                                                          \
            {KERNEL_AND_NAME(reduce_last_block<size, VARIANT_FENCE>), "fence ticket"},             \
                {KERNEL_AND_NAME(reduce_last_block<size, VARIANT_ATOMIC_REF>),                     \
                 "atomic_ref ticket"},                                                             \
                {KERNEL_AND_NAME(reduce_last_block<size, VARIANT_ATOMIC_ADD>), "atomicAdd"},       \
        }                                                                                          \
    }
static const struct instantiation KERNELS_BY_BLOCK_SIZE[] = {
    VARIANTS(32), VARIANTS(64), VARIANTS(128), VARIANTS(256), VARIANTS(512), VARIANTS(1024),
};

extern "C" cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                            unsigned *ticket_counter, float *total, unsigned blocks,
                                            unsigned threads, int variant,
                                            struct launched *launched)
{
    if (variant < VARIANT_FENCE || variant > VARIANT_ATOMIC_ADD) return cudaErrorInvalidValue;
    for (const struct instantiation &instance : KERNELS_BY_BLOCK_SIZE) {
        if (instance.block_size != threads) continue;
        const struct named_kernel *chosen = &instance.by_variant[variant];
        *launched = {chosen->name, chosen->finish};
        chosen->kernel<<<blocks, threads>>>(in, n, block_sums, ticket_counter, total);
        return cudaGetLastError();
    }
    return cudaErrorInvalidConfiguration;
}
