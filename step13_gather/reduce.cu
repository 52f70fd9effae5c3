/* step13_gather — the finish without a fence: the block that starts last gathers the sums
 *
 * Before: step12's grid ends with step09's ticket. Every block writes its sum, then thread 0
 *         takes a ticket with an acquire-release atomic: the release waits until the sum has
 *         reached memory, the atomic waits for its answer, and the last block then reads every
 *         sum. Those three trips to memory, one after another, follow the last block's loads,
 *         so they add their latency to every launch, whatever n is.
 * Here:   each block draws a ticket when it starts (a relaxed atomicAdd that overlaps its loads),
 *         and publishes its sum as one 64-bit word: the float's bits beside a flag that says
 *         "written". A word is stored whole, so whoever sees the flag sees the sum, and no fence is
 *         needed. The block that drew the last ticket knows that every other block has started, so
 *         they will all finish: it waits for their words (all or nearly all there by the time it
 *         has done its own loads), adds them in a fixed order, the same on every run, and clears
 *         them for the next launch; up to WARP_GATHER_MOST_BLOCKS words its warp 0 reads them
 *         alone, so no barrier and no second block sum follow the read. One block reading every
 *         word costs more than the ticket's trips once there are thousands of them, so past
 *         GATHER_MOST_BLOCKS blocks each block adds its sum, with one relaxed atomic, into a bin: a
 *         64-bit integer per exponent that holds the sum of the significands added to it and how
 *         many were. Integers add exactly, in any order, so the bins end with the same bits on
 *         every run; the block that drew the last ticket reads the 258 bins until their counts make
 *         the grid, and turns them into the total. The ticket alone stays as --variant ticket, to
 *         be measured beside it. And the float4 each thread keeps in flight are not step12's fixed
 *         8. Whatever the variant, the host takes the fewest of 4 and 8 that make a grid of at most
 *         GATHER_MOST_BLOCKS blocks (one the gatherer can read): with 4, the same bytes in twice
 *         the blocks, with fewer registers, so more of them fit on an SM and, once there are more
 *         than fit, the gatherer starts after most have finished. A larger grid takes the card's
 *         count: a card with more bandwidth per SM needs more bytes on their way (Little's law), so
 *         the host picks 8 or 12 from the card (reduce.h). Up to STREAMING_MOST_L2S times the L2
 *         the loads are streaming ones (__ldcs), whose lines the caches evict first: an L2 full of
 *         another kernel's dirty lines then keeps them instead of writing them back during this
 *         one. Past LARGE_GRID_BLOCKS blocks of 512 threads, the host takes blocks of 1024 (a rule
 *         the ticket set: each of its blocks waits once for its answer).
 * Profile: per launch, one atomic per block at its start instead of a fence and an atomic at its
 *         end, and past GATHER_MOST_BLOCKS one more, a 64-bit RED that nothing waits for; the
 *         gatherer's loads of the sums, each thread TAGS_IN_FLIGHT at a time (each lane of warp 0
 *         WARP_GATHER_TAGS, for a grid it reads alone); at n = 2^22 and 512 threads, 512 blocks of
 *         40 registers a thread with 4 float4 (three an SM at a time) where 8 make 256 blocks of 52
 *         (two an SM, all at once); with 12, more registers and fewer blocks an SM, the same bytes
 *         in flight per SM but in blocks that live longer; LDG.E.EF.128 (evict first) where the
 *         loads stream, and the DRAM writes during the kernel after a --flush write. */
#include <stdint.h>
#include <cuda/atomic>
#include <math_constants.h>

#include "reduce.h"
#include "toolbox.h"

enum { WARP_SIZE = 32, LOADS_IN_FLIGHT = 4, TAGS_IN_FLIGHT = 8 };
/* Each lane of a gathering warp loads all its words at once (at most 4). */
enum { WARP_GATHER_TAGS = WARP_GATHER_MOST_BLOCKS / WARP_SIZE };
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

/* One float4 of the input, read once: through the read-only path (__ldg), or as streaming
 * data (__ldcs, ld.global.cs: "Cache streaming, likely to be accessed once", the PTX ISA's
 * cache operators, which allocate its lines evict-first), so that the lines that were there
 * stay. */
template <int LOADS>
static __device__ float4 load_once(const float4 *vector)
{
    return LOADS == STREAMING_LOADS ? __ldcs(vector) : __ldg(vector);
}

/* Block b owns BLOCK_SIZE * VECTORS consecutive float4; thread t reads the ones at
 * t, t + BLOCK_SIZE, ... (a warp's load covers 512 contiguous bytes), all before the first
 * add. Only the last block tests each load: behind a test apiece, the compiler keeps fewer
 * loads in flight. Threads 0..2 of the grid also add a float of the head and of the tail. */
template <unsigned BLOCK_SIZE, unsigned VECTORS, int LOADS>
static __device__ float thread_sum(const float *in, size_t n)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    struct split_input split = split_at_alignment(in, n);
    size_t thread = (size_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    size_t first = (size_t)blockIdx.x * BLOCK_SIZE * VECTORS + threadIdx.x;
    float4 loaded[VECTORS], sum = zero;
    if (first + (VECTORS - 1) * BLOCK_SIZE < split.body_vectors) { /* all in bounds */
#pragma unroll
        for (unsigned k = 0; k < VECTORS; k++)
            loaded[k] = load_once<LOADS>(split.body + first + k * BLOCK_SIZE);
    } else {
#pragma unroll
        for (unsigned k = 0; k < VECTORS; k++)
            loaded[k] = first + k * BLOCK_SIZE < split.body_vectors
                            ? load_once<LOADS>(split.body + first + k * BLOCK_SIZE)
                            : zero;
    }
#pragma unroll
    for (unsigned k = 0; k < VECTORS; k++) sum = plus(sum, loaded[k]);
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

/* A block sum as the gatherer sees it: the float's bits in the low half, WRITTEN in the high
 * half. 0 is "not yet": the gatherer leaves every word 0 for the next launch. */
static constexpr unsigned long long WRITTEN = 1ull << 32;
using published_sum = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

static __device__ void publish(unsigned long long *tagged_sums, float sum)
{
    published_sum(tagged_sums[blockIdx.x])
        .store(WRITTEN | __float_as_uint(sum), cuda::memory_order_relaxed);
}

/* The gatherer's first READERS threads: thread t adds the sums of blocks t, t + READERS, ...
 * in that order, loading TAGS words at a time and loading them again until all are written. */
template <unsigned READERS, unsigned TAGS>
static __device__ float gather_block_sums(unsigned long long *tagged_sums, unsigned count)
{
    float sum = 0.0f;
    for (unsigned first = threadIdx.x; first < count; first += TAGS * READERS) {
        unsigned long long word[TAGS];
        bool all_written;
        do {
            all_written = true;
#pragma unroll
            for (unsigned k = 0; k < TAGS; k++) {
                unsigned i = first + k * READERS;
                word[k] = i < count ? published_sum(tagged_sums[i]).load(cuda::memory_order_relaxed)
                                    : WRITTEN;
                all_written = all_written && word[k] >= WRITTEN;
            }
        } while (!all_written);
#pragma unroll
        for (unsigned k = 0; k < TAGS; k++) {
            unsigned i = first + k * READERS;
            sum += __uint_as_float((unsigned)word[k]);
            if (i < count) tagged_sums[i] = 0;
        }
    }
    return sum;
}

/* A block sum as the bins hold it: its float's significand as a signed integer, times
 * 2^COUNT_BITS, plus 1 for the count. The significand's scale is its bin's: the float's
 * exponent field (subnormals share bin 1's scale). Infinities and NaNs add only a count, to a
 * bin of their own. Integers add in any order to the same bits, so the bins' words do not
 * depend on which block adds first. */
enum { SIGNIFICAND_BITS = 23, EXPONENT_FIELD = 0xff, SIGN_SHIFT = 31, FLOAT_EXPONENT_BIAS = 127 };
/* A significand in bin b (b >= 1) counts units of 2^(b - SCALE_OFFSET). */
enum { SCALE_OFFSET = FLOAT_EXPONENT_BIAS + SIGNIFICAND_BITS };
static constexpr unsigned long long ONE_COUNT = 1, COUNT_MASK = (1ull << COUNT_BITS) - 1;
static constexpr long long PER_SIGNIFICAND = 1ll << COUNT_BITS;

static __device__ void add_to_bins(unsigned long long *bins, float sum)
{
    unsigned bits = __float_as_uint(sum), exponent = bits >> SIGNIFICAND_BITS & EXPONENT_FIELD;
    unsigned fraction = bits & ((1u << SIGNIFICAND_BITS) - 1);
    bool negative = bits >> SIGN_SHIFT;
    unsigned bin = exponent;
    long long significand = 0;
    if (exponent == EXPONENT_FIELD)
        bin = fraction ? NAN_BIN : negative ? MINUS_INFINITY_BIN : PLUS_INFINITY_BIN;
    else
        significand = exponent ? fraction | 1u << SIGNIFICAND_BITS : fraction;
    long long scaled = (negative ? -significand : significand) * PER_SIGNIFICAND;
    /* atomicAdd is relaxed at device scope, as the loads that wait for it; on a pointer the
     * compiler knows is global and with its answer unused, it becomes a RED that the thread
     * does not wait for (an atomic_ref's fetch_add here compiled to a generic ATOM). */
    atomicAdd(&bins[bin], (unsigned long long)scaled + ONE_COUNT);
}

enum { BINS_PER_LANE = (BINS + WARP_SIZE - 1) / WARP_SIZE };
enum { DOUBLE_EXPONENT_BIAS = 1023, DOUBLE_EXPONENT_SHIFT = 20 }; /* in the double's high word */

/* 2^exponent as a double, built from its bits, for an exponent a double holds as a normal
 * number (every bin's is): one multiply scales a bin, where ldexp() would check its range. */
static __device__ double power_of_two(int exponent)
{
    return __hiloint2double((exponent + DOUBLE_EXPONENT_BIAS) << DOUBLE_EXPONENT_SHIFT, 0);
}

static __device__ unsigned warp_total(unsigned value)
{
#pragma unroll
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        value += __shfl_xor_sync(FULL_WARP_MASK, value, offset);
    return value;
}

/* In warp 0 of the block that drew the last ticket: lane l reads bins l, l + 32, ... until
 * their counts add up to the grid. Then every block has added, and since a word's count and
 * its significands change in one atomic, every word is final. */
static __device__ void wait_for_bins(unsigned long long *bins, unsigned long long *word)
{
    unsigned counted;
    do {
        counted = 0;
#pragma unroll
        for (unsigned k = 0; k < BINS_PER_LANE; k++) {
            unsigned bin = threadIdx.x + k * WARP_SIZE;
            word[k] = bin < BINS ? published_sum(bins[bin]).load(cuda::memory_order_relaxed) : 0;
            counted += (unsigned)(word[k] & COUNT_MASK);
        }
    } while (warp_total(counted) != gridDim.x);
}

/* The total of the final words: each finite bin becomes a double exactly (significands times
 * its power of two), the warp adds them in a fixed order, and the double rounds to a float
 * once. A NaN, or infinities of both signs, make a NaN, as float additions would. The bins
 * are left 0 for the next launch. */
static __device__ float total_of_bins(unsigned long long *bins)
{
    unsigned long long word[BINS_PER_LANE];
    wait_for_bins(bins, word);
    double sum = 0.0;
    bool nan = false, plus_infinity = false, minus_infinity = false;
#pragma unroll
    for (unsigned k = 0; k < BINS_PER_LANE; k++) {
        unsigned bin = threadIdx.x + k * WARP_SIZE;
        unsigned long long count = word[k] & COUNT_MASK;
        long long significands = (long long)(word[k] - count) / PER_SIGNIFICAND;
        if (bin < FINITE_BINS && significands != 0)
            sum += (double)significands * power_of_two((int)(bin > 1 ? bin : 1) - SCALE_OFFSET);
        nan = nan || (bin == NAN_BIN && count);
        plus_infinity = plus_infinity || (bin == PLUS_INFINITY_BIN && count);
        minus_infinity = minus_infinity || (bin == MINUS_INFINITY_BIN && count);
        if (word[k] != 0) bins[bin] = 0;
    }
#pragma unroll
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(FULL_WARP_MASK, sum, offset);
    nan = __any_sync(FULL_WARP_MASK, nan);
    plus_infinity = __any_sync(FULL_WARP_MASK, plus_infinity);
    minus_infinity = __any_sync(FULL_WARP_MASK, minus_infinity);
    if (nan || (plus_infinity && minus_infinity)) return CUDART_NAN_F;
    if (plus_infinity || minus_infinity) return plus_infinity ? CUDART_INF_F : -CUDART_INF_F;
    return (float)sum;
}

template <unsigned BLOCK_SIZE, unsigned VECTORS, int VARIANT, int LOADS = CACHED_LOADS>
__global__ __launch_bounds__(BLOCK_SIZE) void reduce_last_block(const float *in, size_t n,
                                                                float *block_sums,
                                                                unsigned *ticket_counter,
                                                                float *total)
{
    __shared__ unsigned start_ticket;
    unsigned drawn = 0;
    /* Drawn before the loads are issued, used after them: the loads do not wait for it. */
    const bool starts = VARIANT == VARIANT_GATHER || VARIANT == VARIANT_BINS;
    if (starts && threadIdx.x == 0) drawn = atomicAdd(ticket_counter, 1u);
    float sum = thread_sum<BLOCK_SIZE, VECTORS, LOADS>(in, n);
    if (starts && threadIdx.x == 0) start_ticket = drawn;
    sum = block_sum<BLOCK_SIZE>(sum);
    if (VARIANT == VARIANT_BINS) {
        /* The bins are the gatherer's first words: a grid this large never gathers. */
        unsigned long long *bins = reinterpret_cast<unsigned long long *>(block_sums);
        if (threadIdx.x == 0) add_to_bins(bins, sum);
        if (start_ticket != gridDim.x - 1 || threadIdx.x >= WARP_SIZE) return;
        sum = total_of_bins(bins);
        if (threadIdx.x == 0) {
            *total = sum;
            *ticket_counter = 0; /* every block has added: nobody draws again */
        }
        return;
    }
    if (VARIANT == VARIANT_GATHER) {
        /* start_ticket was written before block_sum's barrier, so every thread reads it. */
        unsigned long long *tagged_sums = reinterpret_cast<unsigned long long *>(block_sums);
        if (threadIdx.x == 0) publish(tagged_sums, sum);
        if (start_ticket != gridDim.x - 1) return;
        if (gridDim.x <= WARP_GATHER_MOST_BLOCKS) {
            if (threadIdx.x >= WARP_SIZE) return;
            sum = warp_sum(gather_block_sums<WARP_SIZE, WARP_GATHER_TAGS>(tagged_sums, gridDim.x));
        } else {
            __syncthreads(); /* warp 0 is done reading warp_sums before block_sum again */
            sum = block_sum<BLOCK_SIZE>(
                gather_block_sums<BLOCK_SIZE, TAGS_IN_FLIGHT>(tagged_sums, gridDim.x));
        }
        if (threadIdx.x == 0) {
            *total = sum;
            *ticket_counter = 0; /* every block has drawn its ticket */
        }
        return;
    }
    if (VARIANT == VARIANT_ATOMIC_ADD) {
        if (threadIdx.x == 0) atomicAdd(total, sum);
        return;
    }
    /* Past the gatherer's words: they stay 0 for the next launch that gathers. */
    float *ticket_sums = block_sums + TICKET_SUMS_OFFSET;
    if (threadIdx.x == 0) ticket_sums[blockIdx.x] = sum;
    if (!last_block_atomic_ref(ticket_counter)) return;
    /* Every block sum is written and visible. __syncthreads_or was also the barrier that
     * block_sum needs before it runs again: warp 0 is done reading warp_sums. */
    sum = block_sum<BLOCK_SIZE>(sum_of_block_sums<BLOCK_SIZE>(ticket_sums, gridDim.x));
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
/* One instantiation per block size that host.c accepts and per count of float4 a thread, for
 * each variant, with each kind of load. */
struct instantiation {
    unsigned block_size, vectors;
    struct named_kernel by_variant[4], streaming_by_variant[4];
};
#define VARIANTS(size, vectors)                                                                    \
    {                                                                                              \
        {KERNEL_AND_NAME(reduce_last_block<size, vectors, VARIANT_GATHER>), "gather"},             \
            {KERNEL_AND_NAME(reduce_last_block<size, vectors, VARIANT_TICKET>),                    \
             "atomic_ref ticket"},                                                                 \
            {KERNEL_AND_NAME(reduce_last_block<size, vectors, VARIANT_ATOMIC_ADD>), "atomicAdd"},  \
        {                                                                                          \
            KERNEL_AND_NAME(reduce_last_block<size, vectors, VARIANT_BINS>), "exact bins"          \
        }                                                                                          \
    }
#define STREAMING_VARIANTS(size, vectors)                                                          \
    {                                                                                              \
        {KERNEL_AND_NAME(reduce_last_block<size, vectors, VARIANT_GATHER, STREAMING_LOADS>),       \
         "gather"},                                                                                \
            {KERNEL_AND_NAME(reduce_last_block<size, vectors, VARIANT_TICKET, STREAMING_LOADS>),   \
             "atomic_ref ticket"},                                                                 \
            {KERNEL_AND_NAME(                                                                      \
                 reduce_last_block<size, vectors, VARIANT_ATOMIC_ADD, STREAMING_LOADS>),           \
             "atomicAdd"},                                                                         \
        {                                                                                          \
            KERNEL_AND_NAME(reduce_last_block<size, vectors, VARIANT_BINS, STREAMING_LOADS>),      \
                "exact bins"                                                                       \
        }                                                                                          \
    }
#define BOTH_LOADS(size, vectors)                                                                  \
    {                                                                                              \
        size, vectors, VARIANTS(size, vectors), STREAMING_VARIANTS(size, vectors)                  \
    }
#define EVERY_COUNT(size)                                                                          \
    BOTH_LOADS(size, FEWEST_VECTORS), BOTH_LOADS(size, FEW_VECTORS), BOTH_LOADS(size, MANY_VECTORS)
static const struct instantiation KERNELS[] = {
    EVERY_COUNT(32),  EVERY_COUNT(64),  EVERY_COUNT(128),
    EVERY_COUNT(256), EVERY_COUNT(512), EVERY_COUNT(1024),
};

/* One block per threads * vectors float4, at least one: every float4 of the body, at most
 * n / 4 of them, has a thread. */
extern "C" unsigned grid_blocks(size_t n, unsigned threads, unsigned vectors)
{
    size_t per_block = (size_t)threads * vectors * FLOATS_PER_VECTOR;
    return n > per_block ? (unsigned)((n + per_block - 1) / per_block) : 1;
}

extern "C" unsigned threads_for(size_t n, unsigned threads, unsigned vectors)
{
    bool large = grid_blocks(n, threads, vectors) > LARGE_GRID_BLOCKS;
    return large ? (unsigned)LARGE_GRID_THREADS : threads;
}

/* FEW_VECTORS scaled by the card's bandwidth per SM over the one where they are enough, then
 * rounded up to a count the kernel is compiled for. */
extern "C" unsigned card_vectors(double gb_per_s_per_sm)
{
    double wanted = FEW_VECTORS * gb_per_s_per_sm / FEW_VECTORS_ENOUGH_GB_PER_S_PER_SM;
    return wanted <= FEW_VECTORS ? FEW_VECTORS : MANY_VECTORS;
}

extern "C" unsigned vectors_per_thread(size_t n, unsigned threads, unsigned card)
{
    if (grid_blocks(n, threads, FEWEST_VECTORS) <= GATHER_MOST_BLOCKS) return FEWEST_VECTORS;
    if (grid_blocks(n, threads, FEW_VECTORS) <= GATHER_MOST_BLOCKS) return FEW_VECTORS;
    return card;
}

/* The gatherer's words, then the ticket's floats: the total goes after both. */
extern "C" size_t block_sums_bytes(unsigned blocks)
{
    return TICKET_SUMS_OFFSET * sizeof(float) + (size_t)blocks * sizeof(float);
}

extern "C" bool launch_scratch_create(struct launch_scratch *s, unsigned blocks)
{
    size_t bytes = block_sums_bytes(blocks);
    CUDA_TRY(cudaMalloc((void **)&s->block_sums, bytes + sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&s->ticket_counter, sizeof(unsigned)));
    s->total = (float *)((char *)s->block_sums + bytes);
    CUDA_TRY(cudaMemset(s->block_sums, 0, bytes));
    return CUDA_OK(cudaMemset(s->ticket_counter, 0, sizeof(unsigned)));
}

extern "C" void launch_scratch_free(struct launch_scratch *s)
{
    CUDA_OK(cudaFree(s->block_sums));
    CUDA_OK(cudaFree(s->ticket_counter));
}

/* What a launch writes and its finish reads: the ticket's block sums and, after them, the
 * total; never the gatherer's words or the ticket counter, which a launch needs at 0. */
extern "C" bool launch_scratch_poison(const struct launch_scratch *s)
{
    float *outputs = s->block_sums + TICKET_SUMS_OFFSET;
    return outputs_poison(outputs, (size_t)(s->total + 1 - outputs) * sizeof(float));
}

/* One block reads every published word: past GATHER_MOST_BLOCKS of them that read costs more
 * than the blocks' adds into the bins, which finish instead, up to BINS_MOST_BLOCKS (then the
 * ticket). Every other variant runs as asked. */
extern "C" int finish_for(unsigned blocks, int variant)
{
    if (variant != VARIANT_GATHER || blocks <= GATHER_MOST_BLOCKS) return variant;
    return blocks <= BINS_MOST_BLOCKS ? VARIANT_BINS : VARIANT_TICKET;
}

/* Chains of float additions, for the error bound (docs/verification.md): a warp's shuffles, a
 * float4's lanes, the 0..3 floats after the last whole float4; the bins' two: their double's
 * additions (all together far below one float rounding), then that rounding. */
enum { WARP_LEVELS = 5, LANE_LEVELS = 2, EDGE_LEVELS = 1, BINS_LEVELS = 2 };

extern "C" unsigned finish_depth(unsigned blocks, unsigned threads, int variant)
{
    unsigned per_round = threads * FLOATS_PER_VECTOR;
    switch (finish_for(blocks, variant)) {
    case VARIANT_GATHER: /* a reader's words, then one warp's shuffles or the block's */
        if (blocks <= WARP_GATHER_MOST_BLOCKS)
            return (blocks + WARP_SIZE - 1) / WARP_SIZE + WARP_LEVELS;
        return (blocks + threads - 1) / threads + 2 * WARP_LEVELS;
    case VARIANT_BINS:
        return BINS_LEVELS;
    case VARIANT_ATOMIC_ADD:
        return blocks;
    default:
        return (blocks + per_round - 1) / per_round + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    }
}

extern "C" int loads_for(size_t n, size_t l2_bytes)
{
    return n * sizeof(float) <= STREAMING_MOST_L2S * l2_bytes ? STREAMING_LOADS : CACHED_LOADS;
}

extern "C" cudaError_t reduce_in_one_launch(const float *in, size_t n, float *block_sums,
                                            unsigned *ticket_counter, float *total, unsigned blocks,
                                            unsigned threads, unsigned vectors, int variant,
                                            int loads, cudaStream_t stream,
                                            struct launched *launched)
{
    if (variant < VARIANT_GATHER || variant > VARIANT_ATOMIC_ADD) return cudaErrorInvalidValue;
    if (loads != CACHED_LOADS && loads != STREAMING_LOADS) return cudaErrorInvalidValue;
    variant = finish_for(blocks, variant);
    for (const struct instantiation &instance : KERNELS) {
        if (instance.block_size != threads || instance.vectors != vectors) continue;
        /* After the scratch's latest launch, whatever its stream (reduce.h). */
        cudaError_t claimed = scratch_claim(ticket_counter, stream);
        if (claimed != cudaSuccess) return claimed;
        const struct named_kernel *chosen = loads == STREAMING_LOADS
                                                ? &instance.streaming_by_variant[variant]
                                                : &instance.by_variant[variant];
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
