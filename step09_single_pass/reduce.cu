/* step09_single_pass — one launch to one value, as fast as the memory allows
 *
 * Before: step08 reduced each block with shuffles, but the per-block partials still took a
 *         second launch (document 000's first solution: the launch boundary is the only
 *         grid-wide barrier), and its four 4-byte loads kept only 16 bytes per thread in
 *         flight.
 * Here:   document 000's last-block guard finishes inside the same launch. Every block writes
 *         its partial and thread 0 takes a ticket with an atomic add that is ordered both
 *         ways (release: the document's __threadfence(); acquire: the half it forgets); the
 *         block that drew the last ticket (all its threads learn it through
 *         __syncthreads_or) reads every partial, writes the total and sets the counter back
 *         to 0 for the next launch. Threads load float4 (16 bytes), four independent loads
 *         per iteration. The grid fills the GPU once, or is just large enough to cover a
 *         small n in one iteration: a single block needs no partials and no ticket. Up to
 *         4096 floats a kernel of its own does it all: one block of a size known at
 *         compile time, one group of loads per thread, no grid machinery.
 *         A pointer that is not 16-byte aligned is split into a head (at most 3 floats), an
 *         aligned body of float4, and a tail (at most 3 floats).
 *         Deterministic: which block finishes varies from run to run, what it computes does
 *         not (each element has a fixed thread, and every sum, the partials' included, is
 *         made in a fixed order).
 * Profile: one kernel in the timeline instead of two. For large n, Nsight Compute should show
 *         DRAM throughput near its peak, LDG.E.128 in the SASS and warps stalled mostly on
 *         "long scoreboard" (waiting for memory: the goal). For small n the time is the
 *         launch, one trip to memory, and the atomic plus a read of the partials from L2.
 */
#include <stdint.h>

#include "last_block.cuh"
#include "single_pass.h"

enum { WARP_SIZE = 32, MAX_WARPS = 32 /* 1024 threads */ };
enum { CLOCK_START = 0, CLOCK_END = 1, CLOCK_STAMPS_PER_BLOCK = 2 };
static const unsigned FULL_WARP = 0xffffffffu;

static_assert((VECTORS_PER_ITERATION & (VECTORS_PER_ITERATION - 1)) == 0 &&
                  (PARTIALS_IN_FLIGHT & (PARTIALS_IN_FLIGHT - 1)) == 0,
              "load groups are summed as trees of pairs");

/* in[0..n) as the kernel reads it: floats up to the first 16-byte boundary, float4 after
 * it, and the floats left over after the last whole float4. */
struct split_input {
    const float *head;
    size_t head_length;                /* 0..3 */
    const float4 *body;
    size_t body_vectors;
    const float *tail;
    size_t tail_length;                /* 0..3 */
};

static __device__ struct split_input split_at_alignment(const float *in, size_t n)
{
    size_t floats_past_boundary =
        reinterpret_cast<uintptr_t>(in) % sizeof(float4) / sizeof(float);
    size_t head = floats_past_boundary ? FLOATS_PER_VECTOR - floats_past_boundary : 0;
    struct split_input split;
    split.head = in;
    split.head_length = head < n ? head : n;
    split.body = reinterpret_cast<const float4 *>(in + split.head_length);
    split.body_vectors = (n - split.head_length) / FLOATS_PER_VECTOR;
    split.tail = in + split.head_length + split.body_vectors * FLOATS_PER_VECTOR;
    split.tail_length = n - split.head_length - split.body_vectors * FLOATS_PER_VECTOR;
    return split;
}

static __device__ float4 plus(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

/* A fixed tree: the same four vectors are always added in the same order. */
static __device__ float4 sum_group(float4 group[VECTORS_PER_ITERATION])
{
#pragma unroll
    for (int width = VECTORS_PER_ITERATION / 2; width > 0; width /= 2)
#pragma unroll
        for (int k = 0; k < width; k++) group[k] = plus(group[k], group[k + width]);
    return group[0];
}

/* Grid-stride over the aligned body. A block takes VECTORS_PER_ITERATION * blockDim.x
 * consecutive vectors per iteration; thread t reads the ones at t, t + blockDim.x, ... so
 * that each load instruction of a warp covers 512 contiguous bytes. All loads of a group
 * are issued before any of them is added: that is what keeps them in flight together. */
static __device__ float4 accumulate_body(const float4 *body, size_t vectors, float4 acc)
{
    const size_t step = blockDim.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x * VECTORS_PER_ITERATION;
    size_t i = (size_t)blockIdx.x * blockDim.x * VECTORS_PER_ITERATION + threadIdx.x;
    float4 group[VECTORS_PER_ITERATION];
    for (; i + (VECTORS_PER_ITERATION - 1) * step < vectors; i += stride) {
#pragma unroll
        for (int k = 0; k < VECTORS_PER_ITERATION; k++) group[k] = __ldg(body + i + k * step);
        acc = plus(acc, sum_group(group));
    }
    if (i < vectors) { /* the last group, cut short by the end of the body */
        const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < VECTORS_PER_ITERATION; k++)
            group[k] = i + k * step < vectors ? __ldg(body + i + k * step) : zero;
        acc = plus(acc, sum_group(group));
    }
    return acc;
}

/* The first threads of the grid also take the head and the tail, one float each. */
static __device__ float thread_sum(const float *in, size_t n)
{
    struct split_input split = split_at_alignment(in, n);
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (thread < split.head_length) acc.x = split.head[thread];
    if (thread < split.tail_length) acc.y = split.tail[thread];
    acc = accumulate_body(split.body, split.body_vectors, acc);
    return (acc.x + acc.y) + (acc.z + acc.w);
}

/* Lane 0 ends with the sum of lanes 0 .. 2 * first_offset - 1. */
static __device__ float shuffle_sum(float value, int first_offset)
{
#pragma unroll
    for (int offset = first_offset; offset > 0; offset /= 2)
        value += __shfl_down_sync(FULL_WARP, value, offset);
    return value;
}

/* step08's warp level: five shuffles, lane 0 ends with the warp's sum. */
static __device__ float warp_sum(float value) { return shuffle_sum(value, WARP_SIZE / 2); }

/* The sum of a block of `warps` warps, in thread 0: every warp sums itself, then warp 0
 * adds the warp sums with shuffles from first_offset down. A second call must be separated
 * from the first by a barrier (warp 0 may still be reading warp_sums): in the grid kernel,
 * __syncthreads_or is it. */
static __device__ float sum_over_warps(float value, unsigned warps, int first_offset)
{
    __shared__ float warp_sums[MAX_WARPS];
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    value = warp_sum(value);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) value = shuffle_sum(lane < warps ? warp_sums[lane] : 0.0f, first_offset);
    return value;
}

/* A block size known only at run time: up to 32 warps, so five shuffles over their sums. */
static __device__ float block_sum(float value)
{
    return sum_over_warps(value, blockDim.x / WARP_SIZE, WARP_SIZE / 2);
}

/* The last block reads the partials with its whole width: each thread loads up to
 * PARTIALS_IN_FLIGHT of them at once (a fixed subset; missing ones read as 0), adds them as
 * a fixed tree, then the block reduces the threads' sums like any block. A plain loop
 * would wait for each load before issuing the next: one trip to L2 per partial. */
static __device__ float sum_of_partials(const float *partials)
{
    const unsigned count = gridDim.x, step = blockDim.x;
    float sum = 0.0f;
    for (unsigned first = threadIdx.x; first < count; first += PARTIALS_IN_FLIGHT * step) {
        float group[PARTIALS_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < PARTIALS_IN_FLIGHT; k++)
            group[k] = first + k * step < count ? partials[first + k * step] : 0.0f;
#pragma unroll
        for (int width = PARTIALS_IN_FLIGHT / 2; width > 0; width /= 2)
#pragma unroll
            for (int k = 0; k < width; k++) group[k] += group[k + width];
        sum += group[0];
    }
    return block_sum(sum);
}

static __device__ void reduce_to_total(const float *in, size_t n, float *partials,
                                       unsigned *ticket_counter, float *total)
{
    prefetch_ticket_counter(ticket_counter);
    float block_total = block_sum(thread_sum(in, n));
    if (gridDim.x == 1) { /* --blocks 1, or n up to 16 x threads: its sum is the total */
        if (threadIdx.x == 0) *total = block_total;
        return;
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = block_total;
    if (!took_last_ticket(ticket_counter)) return;
    float grand_total = sum_of_partials(partials);
    if (threadIdx.x == 0) {
        *total = grand_total;
        *ticket_counter = 0; /* every other block has its ticket: nobody else touches it now */
    }
}

static __device__ void stamp_clock(long long *block_clocks, int which)
{
    if (block_clocks != NULL && threadIdx.x == 0)
        block_clocks[CLOCK_STAMPS_PER_BLOCK * blockIdx.x + which] = clock64();
}

__global__ void reduce_single_pass(const float *in, size_t n, float *partials,
                                   unsigned *ticket_counter, float *total, long long *block_clocks)
{
    stamp_clock(block_clocks, CLOCK_START);
    reduce_to_total(in, n, partials, ticket_counter, total);
    stamp_clock(block_clocks, CLOCK_END);
}

/* ---- small n: one block, a kernel of its own -------------------------------------------- */

/* block_sum for a block the compiler knows the size of: the second level takes
 * log2(ONE_BLOCK_WARPS) shuffles instead of five, and nothing is computed from blockDim. */
static const int ONE_BLOCK_WARPS = ONE_BLOCK_THREADS / WARP_SIZE;
static_assert(ONE_BLOCK_THREADS % WARP_SIZE == 0 && ONE_BLOCK_WARPS <= MAX_WARPS &&
                  (ONE_BLOCK_WARPS & (ONE_BLOCK_WARPS - 1)) == 0,
              "the warp sums are added by one warp, in halving steps");

static __device__ float one_block_sum(float value)
{
    return sum_over_warps(value, ONE_BLOCK_WARPS, ONE_BLOCK_WARPS / 2);
}

/* Up to ONE_BLOCK_ELEMENTS floats. The grid kernel above handles one block too, but pays
 * for what a grid needs: the loop and its 64-bit strides, the checks of gridDim, a block
 * size known only at run time. Here each thread makes one guarded group of loads with
 * 32-bit indices, the head and tail floats are loaded after the vectors (they are rarely
 * there, and never worth waiting for first), and the block size is a constant. On the H100
 * `make bench` put it at 3.97 and 4.10 us at n = 4096 (CUB's single-tile kernel: 4.10 and
 * 4.13), where the grid kernel with one block took 4.21 to 4.32 (CUB: 4.06 to 4.19).
 * Same order of additions on every run: still deterministic. */
__global__ void __launch_bounds__(ONE_BLOCK_THREADS)
    reduce_in_one_block(const float *in, unsigned n, float *total, long long *block_clocks)
{
    stamp_clock(block_clocks, CLOCK_START);
    struct split_input split = split_at_alignment(in, n);
    unsigned vectors = (unsigned)split.body_vectors;
    float4 group[VECTORS_PER_ITERATION];
#pragma unroll
    for (int k = 0; k < VECTORS_PER_ITERATION; k++) {
        unsigned i = threadIdx.x + k * ONE_BLOCK_THREADS;
        group[k] = i < vectors ? __ldg(split.body + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float head = threadIdx.x < split.head_length ? __ldg(split.head + threadIdx.x) : 0.0f;
    float tail = threadIdx.x < split.tail_length ? __ldg(split.tail + threadIdx.x) : 0.0f;
    float4 sum = sum_group(group);
    float block_total = one_block_sum(((sum.x + sum.y) + (sum.z + sum.w)) + (head + tail));
    if (threadIdx.x == 0) *total = block_total;
    stamp_clock(block_clocks, CLOCK_END);
}

extern "C" cudaError_t step09_launch(const float *in, size_t n, struct pass_plan plan,
                                     float *partials, unsigned *ticket_counter, float *total,
                                     cudaStream_t stream)
{
    reduce_single_pass<<<plan.blocks, plan.threads, 0, stream>>>(in, n, partials, ticket_counter,
                                                                 total, plan.block_clocks);
    return cudaGetLastError();
}

extern "C" cudaError_t step09_launch_one_block(const float *in, unsigned n, float *total,
                                               long long *block_clocks, cudaStream_t stream)
{
    reduce_in_one_block<<<1, ONE_BLOCK_THREADS, 0, stream>>>(in, n, total, block_clocks);
    return cudaGetLastError();
}

/* Asked on every run (the plan is made inside the timed region), so the answer is kept for
 * each block size: 32, 64, ... 1024 threads are slots 1 .. MAX_WARPS. */
extern "C" int step09_resident_blocks_per_sm(unsigned threads)
{
    static int resident[MAX_WARPS + 1];
    if (threads < WARP_SIZE || threads > MAX_WARPS * WARP_SIZE) return 0;
    int *slot = &resident[threads / WARP_SIZE];
    if (*slot == 0) {
        cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            slot, reduce_single_pass, (int)threads, 0);
        if (status != cudaSuccess) *slot = 0;
    }
    return *slot;
}
