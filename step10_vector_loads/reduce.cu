/* step10_vector_loads — 16 bytes a load: float4, with the input split at its alignment
 *
 * Before: step09 read four bytes a load: every float cost a load instruction and its address
 *         arithmetic, and a warp's load instruction covered only 128 bytes.
 * Here:   every load of the input is a float4: a warp's load instruction covers 512 bytes,
 *         and four times fewer instructions read the same bytes. A float4 must start on a
 *         16-byte boundary, and the input may not (in + 1 does not): a head of 0 to 3 floats,
 *         a body of whole float4, a tail of 0 to 3 floats, and the grid's first threads add
 *         the head and the tail. The rest is step09's: the grid, the loop, the finishes.
 * Profile: LDG.E.128 in the SASS where step09 had LDG.E; global load instructions
 *         (smsp__inst_executed_op_global_ld.sum) fall about fourfold. */
#include <stdint.h>
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

/* in[0..n) as float4 can read it: the floats up to the first 16-byte boundary (head), the
 * whole float4 after it (body), and the floats after the last whole float4 (tail). */
struct split_input {
    const float *head, *tail;
    unsigned head_length, tail_length; /* 0..3 each */
    const float4 *body;
    size_t body_vectors;
};

static __device__ struct split_input split_at_alignment(const float *in, size_t n)
{
    size_t past_boundary = reinterpret_cast<uintptr_t>(in) % sizeof(float4) / sizeof(float);
    size_t head = past_boundary ? FLOATS_PER_VECTOR - past_boundary : 0;
    struct split_input split;
    split.head = in;
    split.head_length = (unsigned)(head < n ? head : n);
    split.body = reinterpret_cast<const float4 *>(in + split.head_length);
    split.body_vectors = (n - split.head_length) / FLOATS_PER_VECTOR;
    split.tail = in + split.head_length + split.body_vectors * FLOATS_PER_VECTOR;
    split.tail_length = (unsigned)(n - split.head_length - split.body_vectors * FLOATS_PER_VECTOR);
    return split;
}

static __device__ float4 plus(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

static __device__ float sum_lanes(float4 v)
{
    return (v.x + v.y) + (v.z + v.w);
}

/* Vector i, i + stride, ... of vectors[0..count), LOADS_IN_FLIGHT loads issued before the
 * first is added: step09's loop, over float4. */
static __device__ float4 strided_sum(const float4 *vectors, size_t count, size_t i, size_t stride)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 sum = zero;
    for (; i < count; i += LOADS_IN_FLIGHT * stride) {
        float4 loaded[LOADS_IN_FLIGHT];
#pragma unroll
        for (unsigned k = 0; k < LOADS_IN_FLIGHT; k++)
            loaded[k] = i + k * stride < count ? vectors[i + k * stride] : zero;
#pragma unroll
        for (unsigned k = 0; k < LOADS_IN_FLIGHT; k++) sum = plus(sum, loaded[k]);
    }
    return sum;
}

/* Thread g of the grid strides over the body as step09 did over the floats; threads 0..3 of
 * the grid also add a float of the head and of the tail. */
template <unsigned BLOCK_SIZE>
static __device__ float thread_sum(const float *in, size_t n)
{
    struct split_input split = split_at_alignment(in, n);
    size_t thread = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    float4 sum = strided_sum(split.body, split.body_vectors, thread,
                             (size_t)gridDim.x * BLOCK_SIZE);
    float edges = (thread < split.head_length ? split.head[thread] : 0.0f) +
                  (thread < split.tail_length ? split.tail[thread] : 0.0f);
    return sum_lanes(sum) + edges;
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
    if (last) __threadfence();
    return __syncthreads_or(last);
}

/* Document 000's guard in the C++ memory model: one read-modify-write with acquire-release
 * order at device scope orders both sides of the ticket, as a fence before it and one after do. */
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
