/* step12_small_n — a kernel of its own for small n
 *
 * Before: step11's grid kernel pays at every n for what a grid needs: 64-bit indices, a block
 *         sum written to memory, a ticket (an atomic on a counter in global memory) and the
 *         last block's pass over the block sums. For a few thousand floats, that is most of
 *         the time.
 * Here:   up to ONE_BLOCK_ELEMENTS floats, reduce_small does it all in one block of
 *         ONE_BLOCK_THREADS: one group of ONE_BLOCK_VECTORS float4 a thread, 32-bit indices,
 *         the block's sum written as the total. Larger n take step11's kernel, unchanged.
 *         The launchers take a stream, so that another program can use this file as it is.
 * Profile: at n <= ONE_BLOCK_ELEMENTS one kernel of one block, whose time is close to that
 *         of an empty launch (./step12/run --ceilings prints both). */
#include <stdint.h>
#include <cuda/atomic>

#include "reduce.h"
#include "toolbox.h"

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

/* Block b owns BLOCK_SIZE * VECTORS_PER_THREAD consecutive float4; thread t reads the ones at
 * t, t + BLOCK_SIZE, ... (a warp's load covers 512 contiguous bytes), all before the first
 * add. Only the last block tests each load: behind a test apiece, the compiler keeps fewer
 * loads in flight. Threads 0..3 of the grid also add a float of the head and of the tail. */
template <unsigned BLOCK_SIZE>
static __device__ float thread_sum(const float *in, size_t n)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    struct split_input split = split_at_alignment(in, n);
    size_t thread = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t first = (size_t)blockIdx.x * BLOCK_SIZE * VECTORS_PER_THREAD + threadIdx.x;
    float4 loaded[VECTORS_PER_THREAD], sum = zero;
    if (first + (VECTORS_PER_THREAD - 1) * BLOCK_SIZE < split.body_vectors) { /* all in bounds */
#pragma unroll
        for (unsigned k = 0; k < VECTORS_PER_THREAD; k++)
            loaded[k] = __ldg(split.body + first + k * BLOCK_SIZE);
    } else {
#pragma unroll
        for (unsigned k = 0; k < VECTORS_PER_THREAD; k++)
            loaded[k] = first + k * BLOCK_SIZE < split.body_vectors
                            ? __ldg(split.body + first + k * BLOCK_SIZE)
                            : zero;
    }
#pragma unroll
    for (unsigned k = 0; k < VECTORS_PER_THREAD; k++) sum = plus(sum, loaded[k]);
    float edges = (thread < split.head_length ? split.head[thread] : 0.0f) +
                  (thread < split.tail_length ? split.tail[thread] : 0.0f);
    return sum_lanes(sum) + edges;
}

/* The block sums as float4, then the 0..3 after the last whole one. Not __ldg: other blocks
 * wrote them during this launch, and the read-only path is for data nothing writes meanwhile. */
template <unsigned BLOCK_SIZE>
static __device__ float sum_of_block_sums(const float *block_sums, unsigned count)
{
    unsigned whole = count / FLOATS_PER_VECTOR, rest = whole * FLOATS_PER_VECTOR + threadIdx.x;
    float4 sum = strided_sum(reinterpret_cast<const float4 *>(block_sums), whole, threadIdx.x,
                             BLOCK_SIZE);
    return sum_lanes(sum) + (rest < count ? block_sums[rest] : 0.0f);
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
    if (!last_block_atomic_ref(ticket_counter)) return;
    /* Every block sum is written and visible. __syncthreads_or was also the barrier that
     * block_sum needs before it runs again: warp 0 is done reading warp_sums. */
    sum = block_sum<BLOCK_SIZE>(sum_of_block_sums<BLOCK_SIZE>(block_sums, gridDim.x));
    if (threadIdx.x == 0) {
        *total = sum;
        *ticket_counter = 0; /* every other block has its ticket: nobody else reads it */
    }
}

/* Up to ONE_BLOCK_ELEMENTS floats: step11's loads and block sum in one block whose size the
 * compiler knows, with 32-bit indices; the block's sum is the total, so no ticket. */
__global__ __launch_bounds__(ONE_BLOCK_THREADS) void reduce_small(const float *in, unsigned n,
                                                                  float *total)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    struct split_input split = split_at_alignment(in, n);
    unsigned vectors = (unsigned)split.body_vectors;
    float4 loaded[ONE_BLOCK_VECTORS], sum = zero;
#pragma unroll
    for (unsigned k = 0; k < ONE_BLOCK_VECTORS; k++) {
        unsigned i = threadIdx.x + k * ONE_BLOCK_THREADS;
        loaded[k] = i < vectors ? __ldg(split.body + i) : zero;
    }
#pragma unroll
    for (unsigned k = 0; k < ONE_BLOCK_VECTORS; k++) sum = plus(sum, loaded[k]);
    float edges = (threadIdx.x < split.head_length ? split.head[threadIdx.x] : 0.0f) +
                  (threadIdx.x < split.tail_length ? split.tail[threadIdx.x] : 0.0f);
    float block_total = block_sum<ONE_BLOCK_THREADS>(sum_lanes(sum) + edges);
    if (threadIdx.x == 0) *total = block_total;
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
    struct named_kernel by_variant[2];
};
#define VARIANTS(size)                                                                             \
    {                                                                                              \
        size,                                                                                      \
        {                                                                                          \
            {KERNEL_AND_NAME(reduce_last_block<size, VARIANT_TICKET>), "atomic_ref ticket"},       \
                {KERNEL_AND_NAME(reduce_last_block<size, VARIANT_ATOMIC_ADD>), "atomicAdd"},       \
        }                                                                                          \
    }
static const struct instantiation KERNELS_BY_BLOCK_SIZE[] = {
    VARIANTS(32), VARIANTS(64), VARIANTS(128), VARIANTS(256), VARIANTS(512), VARIANTS(1024),
};

/* One block per block_size * FLOATS_PER_THREAD floats, at least one: every float4 of the
 * body, at most n / 4 of them, has a thread. */
extern "C" unsigned grid_blocks(size_t n, unsigned block_size)
{
    size_t per_block = (size_t)block_size * FLOATS_PER_THREAD;
    return n > per_block ? (unsigned)((n + per_block - 1) / per_block) : 1;
}

extern "C" cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                            unsigned *ticket_counter, float *total, unsigned blocks,
                                            unsigned threads, int variant, cudaStream_t stream,
                                            struct launched *launched)
{
    if (variant < VARIANT_TICKET || variant > VARIANT_ATOMIC_ADD) return cudaErrorInvalidValue;
    for (const struct instantiation &instance : KERNELS_BY_BLOCK_SIZE) {
        if (instance.block_size != threads) continue;
        /* After the scratch's latest launch, whatever its stream (reduce.h). */
        cudaError_t claimed = scratch_claim(ticket_counter, stream);
        if (claimed != cudaSuccess) return claimed;
        const struct named_kernel *chosen = &instance.by_variant[variant];
        *launched = {chosen->name, chosen->finish};
        chosen->kernel<<<blocks, threads, 0, stream>>>(in, n, block_sums, ticket_counter, total);
        return scratch_release(ticket_counter, stream, cudaGetLastError());
    }
    return cudaErrorInvalidConfiguration;
}

extern "C" cudaError_t reduce_in_one_block(const float *in, unsigned n, float *total,
                                           cudaStream_t stream, struct launched *launched)
{
    *launched = {"reduce_small", "none: one block"};
    reduce_small<<<1, ONE_BLOCK_THREADS, 0, stream>>>(in, n, total);
    return cudaGetLastError();
}
