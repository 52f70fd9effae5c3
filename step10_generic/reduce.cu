/* step10_generic — any type, any operator (document 002)
 *
 * Before: step09 reduced floats with +; every piece of it (the loads, the shuffle, the
 *         shared array of warp sums, the partials, the total) was written for float.
 * Here:   the same one-launch machinery written once, as templates, the way document 002
 *         generalises its kernel: T is the type read, ReductionType the type accumulated,
 *         so one kernel computes a sum, a minimum, a maximum, a sum together with a sum of
 *         squares, or a dot product, of int, float or double. A ReductionType says what its
 *         identity is, how one element becomes an accumulator (of), how two accumulators
 *         combine (merge: the document spells it operator+=) and how one moves down a warp
 *         (shuffled_down: a shuffle moves 32 bits, the long long and double overloads are
 *         two shuffles, a struct shuffles each member). The warp results live in a static
 *         __shared__ array of ReductionType: document 002's SharedMemory<T> and the
 *         specialisation it needs per type are not needed (README: "SharedMemory<T>").
 *         The int sums accumulate in long long: 2^25 values of 99 exceed INT32_MAX.
 *         Loads are scalar, GENERIC_ELEMENTS_PER_ITERATION in flight per thread, not
 *         step09's float4: the lesson is the genericity (an exercise vectorises them).
 * Profile: the time follows the bytes read: double takes twice as long as float and int,
 *         sumsq no longer than sum (one pass for both), dot twice as long (two arrays; its
 *         GB/s counts both). The extra shuffles of 64-bit and two-member accumulators do
 *         not show next to the memory time.
 */
#include <cuda/std/limits>

#include "generic.h"
#include "last_block.cuh"

enum { WARP_SIZE = 32, MAX_WARPS = 32 /* 1024 threads */ };
static const unsigned FULL_WARP = 0xffffffffu;

static_assert((GENERIC_ELEMENTS_PER_ITERATION & (GENERIC_ELEMENTS_PER_ITERATION - 1)) == 0 &&
                  (GENERIC_PARTIALS_IN_FLIGHT & (GENERIC_PARTIALS_IN_FLIGHT - 1)) == 0,
              "load groups are merged as trees of pairs");

/* ---- The host's name for each scalar type ---------------------------------------------- */

template <typename Scalar> struct scalar_kind;
template <> struct scalar_kind<int> { static constexpr generic_scalar value = SCALAR_INT32; };
template <> struct scalar_kind<long long> { static constexpr generic_scalar value = SCALAR_INT64; };
template <> struct scalar_kind<float> { static constexpr generic_scalar value = SCALAR_FLOAT; };
template <> struct scalar_kind<double> { static constexpr generic_scalar value = SCALAR_DOUBLE; };

/* Identities of min and max: infinity where the type has one, else its extreme. */
template <typename T> __device__ constexpr T highest()
{
    using limits = cuda::std::numeric_limits<T>;
    return limits::has_infinity ? limits::infinity() : limits::max();
}

template <typename T> __device__ constexpr T lowest()
{
    using limits = cuda::std::numeric_limits<T>;
    return limits::has_infinity ? -limits::infinity() : limits::lowest();
}

/* ---- ReductionTypes: what is accumulated, and how ------------------------------------- */

template <typename Wide> struct Sum {
    using Scalar = Wide;
    static constexpr int values = 1;
    Wide value;

    static __device__ Sum identity() { return {Wide(0)}; }
    template <typename X> static __device__ Sum of(X x) { return {Wide(x)}; }
    static __device__ Sum merge(Sum a, Sum b) { return {a.value + b.value}; }
    __device__ Sum shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP, value, offset)};
    }
};

template <typename T> struct Minimum {
    using Scalar = T;
    static constexpr int values = 1;
    T value;

    static __device__ Minimum identity() { return {highest<T>()}; }
    static __device__ Minimum of(T x) { return {x}; }
    static __device__ Minimum merge(Minimum a, Minimum b)
    {
        return {b.value < a.value ? b.value : a.value};
    }
    __device__ Minimum shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP, value, offset)};
    }
};

template <typename T> struct Maximum {
    using Scalar = T;
    static constexpr int values = 1;
    T value;

    static __device__ Maximum identity() { return {lowest<T>()}; }
    static __device__ Maximum of(T x) { return {x}; }
    static __device__ Maximum merge(Maximum a, Maximum b)
    {
        return {b.value > a.value ? b.value : a.value};
    }
    __device__ Maximum shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP, value, offset)};
    }
};

/* Document 002's CReduction_Sumi_isq (and document 004's sum of squares): two statistics in
 * one pass over the data. Both members are Wide: the document's int sum would overflow. */
template <typename Wide> struct SumAndSquares {
    using Scalar = Wide;
    static constexpr int values = 2;
    Wide sum;
    Wide squares;

    static __device__ SumAndSquares identity() { return {Wide(0), Wide(0)}; }
    template <typename X> static __device__ SumAndSquares of(X x)
    {
        Wide wide = Wide(x);
        return {wide, wide * wide};
    }
    static __device__ SumAndSquares merge(SumAndSquares a, SumAndSquares b)
    {
        return {a.sum + b.sum, a.squares + b.squares};
    }
    /* A shuffle moves one register per lane: a struct moves member by member. */
    __device__ SumAndSquares shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP, sum, offset),
                __shfl_down_sync(FULL_WARP, squares, offset)};
    }
};

/* ---- Readers: what element i is --------------------------------------------------------- */

template <typename T> struct Elements {
    using Element = T;
    static constexpr int arrays = 1;
    const T *values;

    static Elements over(const void *first, const void *)
    {
        return {static_cast<const T *>(first)};
    }
    __device__ T operator[](size_t i) const { return __ldg(values + i); }
};

/* Document 001's a[i] * b[i], formed in Product: long long for int (exact), else T (one
 * rounding per product, which the error bound counts). */
template <typename T, typename Product> struct Products {
    using Element = T;
    static constexpr int arrays = 2;
    const T *first;
    const T *second;

    static Products over(const void *first, const void *second)
    {
        return {static_cast<const T *>(first), static_cast<const T *>(second)};
    }
    __device__ Product operator[](size_t i) const
    {
        return Product(__ldg(first + i)) * Product(__ldg(second + i));
    }
};

/* ---- step09's machinery, for any ReductionType ------------------------------------------ */

/* A fixed tree of pairs: the same group is always combined in the same order. */
template <typename ReductionType, int COUNT>
static __device__ ReductionType merge_tree(ReductionType (&group)[COUNT])
{
#pragma unroll
    for (int width = COUNT / 2; width > 0; width /= 2)
#pragma unroll
        for (int k = 0; k < width; k++) group[k] = ReductionType::merge(group[k], group[k + width]);
    return group[0];
}

/* Grid-stride: a block takes GENERIC_ELEMENTS_PER_ITERATION * blockDim.x consecutive elements
 * per iteration, thread t the ones at t, t + blockDim.x, ...; all loads of a group are
 * issued before any is combined. */
template <typename ReductionType, typename Reader>
static __device__ ReductionType thread_accumulate(Reader input, size_t n)
{
    const size_t step = blockDim.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x * GENERIC_ELEMENTS_PER_ITERATION;
    size_t i = (size_t)blockIdx.x * blockDim.x * GENERIC_ELEMENTS_PER_ITERATION + threadIdx.x;
    ReductionType mine = ReductionType::identity();
    ReductionType group[GENERIC_ELEMENTS_PER_ITERATION];
    for (; i + (GENERIC_ELEMENTS_PER_ITERATION - 1) * step < n; i += stride) {
#pragma unroll
        for (int k = 0; k < GENERIC_ELEMENTS_PER_ITERATION; k++)
            group[k] = ReductionType::of(input[i + k * step]);
        mine = ReductionType::merge(mine, merge_tree(group));
    }
    if (i < n) { /* the last group, cut short by the end of the input */
#pragma unroll
        for (int k = 0; k < GENERIC_ELEMENTS_PER_ITERATION; k++)
            group[k] = i + k * step < n ? ReductionType::of(input[i + k * step])
                                        : ReductionType::identity();
        mine = ReductionType::merge(mine, merge_tree(group));
    }
    return mine;
}

template <typename ReductionType>
static __device__ ReductionType warp_reduce(ReductionType mine)
{
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        mine = ReductionType::merge(mine, mine.shuffled_down(offset));
    return mine;
}

/* The block's result, in thread 0. The warp results sit in a static __shared__ array of
 * the template type: its size (one per warp) is known when compiling, so neither the
 * document's `extern __shared__` nor a SharedMemory<T> specialisation is needed. A second
 * call must follow a barrier (warp 0 may still read warp_results): __syncthreads_or is it. */
template <typename ReductionType>
static __device__ ReductionType block_reduce(ReductionType mine)
{
    __shared__ ReductionType warp_results[MAX_WARPS];
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    mine = warp_reduce(mine);
    if (lane == 0) warp_results[warp] = mine;
    __syncthreads();
    if (warp == 0)
        mine = warp_reduce(lane < blockDim.x / WARP_SIZE ? warp_results[lane]
                                                         : ReductionType::identity());
    return mine;
}

/* The last block reads the partials with its whole width, GENERIC_PARTIALS_IN_FLIGHT per
 * thread at once, each thread a fixed subset. */
template <typename ReductionType>
static __device__ ReductionType merge_partials(const ReductionType *partials)
{
    const unsigned count = gridDim.x, step = blockDim.x;
    ReductionType mine = ReductionType::identity();
    for (unsigned first = threadIdx.x; first < count; first += GENERIC_PARTIALS_IN_FLIGHT * step) {
        ReductionType group[GENERIC_PARTIALS_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < GENERIC_PARTIALS_IN_FLIGHT; k++)
            group[k] = first + k * step < count ? partials[first + k * step]
                                                : ReductionType::identity();
        mine = ReductionType::merge(mine, merge_tree(group));
    }
    return block_reduce(mine);
}

template <typename ReductionType, typename Reader>
__global__ void reduce_generic(Reader input, size_t n, ReductionType *partials,
                               unsigned *ticket_counter, ReductionType *total)
{
    prefetch_ticket_counter(ticket_counter);
    ReductionType block_result = block_reduce(thread_accumulate<ReductionType>(input, n));
    if (gridDim.x == 1) { /* small n: the only block's result is the total */
        if (threadIdx.x == 0) *total = block_result;
        return;
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = block_result;
    if (!took_last_ticket(ticket_counter)) return;
    ReductionType result = merge_partials(partials);
    if (threadIdx.x == 0) {
        *total = result;
        *ticket_counter = 0; /* ready for the next launch */
    }
}

/* ---- What each instantiation offers the host -------------------------------------------- */

template <typename ReductionType, typename Reader>
static cudaError_t launch(const struct generic_launch *job, cudaStream_t stream)
{
    reduce_generic<ReductionType, Reader><<<job->blocks, job->threads, 0, stream>>>(
        Reader::over(job->first, job->second), job->n,
        static_cast<ReductionType *>(job->partials), job->ticket_counter,
        static_cast<ReductionType *>(job->total));
    return cudaGetLastError();
}

/* Kept per block size (32 .. 1024 threads: slots 1 .. MAX_WARPS): the host asks on every run. */
template <typename ReductionType, typename Reader>
static int resident_blocks_per_sm(unsigned threads)
{
    static int resident[MAX_WARPS + 1];
    if (threads < WARP_SIZE || threads > MAX_WARPS * WARP_SIZE) return 0;
    int *slot = &resident[threads / WARP_SIZE];
    if (*slot == 0) {
        cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            slot, reduce_generic<ReductionType, Reader>, (int)threads, 0);
        if (status != cudaSuccess) *slot = 0;
    }
    return *slot;
}

template <typename ReductionType, typename Reader>
static struct generic_kernel describe()
{
    using Scalar = typename ReductionType::Scalar;
    static_assert(sizeof(ReductionType) == ReductionType::values * sizeof(Scalar) &&
                      ReductionType::values <= GENERIC_MAX_VALUES &&
                      sizeof(Scalar) <= sizeof(double),
                  "the host reads an accumulator as an array of at most two scalars");
    struct generic_kernel kernel = {};
    kernel.input = scalar_kind<typename Reader::Element>::value;
    kernel.arrays = Reader::arrays;
    kernel.result = scalar_kind<Scalar>::value;
    kernel.result_values = ReductionType::values;
    kernel.accumulator_bytes = sizeof(ReductionType);
    kernel.launch = launch<ReductionType, Reader>;
    kernel.resident_blocks_per_sm = resident_blocks_per_sm<ReductionType, Reader>;
    return kernel;
}

/* One extern "C" function per instantiation: host.c's table names them. The int sums
 * accumulate in long long: 2^25 values of 99 (3,321,888,768) exceed INT32_MAX. */
extern "C" struct generic_kernel step10_sum_int(void)
{
    return describe<Sum<long long>, Elements<int>>();
}

extern "C" struct generic_kernel step10_sum_float(void)
{
    return describe<Sum<float>, Elements<float>>();
}

extern "C" struct generic_kernel step10_sum_double(void)
{
    return describe<Sum<double>, Elements<double>>();
}

extern "C" struct generic_kernel step10_min_int(void)
{
    return describe<Minimum<int>, Elements<int>>();
}

extern "C" struct generic_kernel step10_min_float(void)
{
    return describe<Minimum<float>, Elements<float>>();
}

extern "C" struct generic_kernel step10_min_double(void)
{
    return describe<Minimum<double>, Elements<double>>();
}

extern "C" struct generic_kernel step10_max_int(void)
{
    return describe<Maximum<int>, Elements<int>>();
}

extern "C" struct generic_kernel step10_max_float(void)
{
    return describe<Maximum<float>, Elements<float>>();
}

extern "C" struct generic_kernel step10_max_double(void)
{
    return describe<Maximum<double>, Elements<double>>();
}

extern "C" struct generic_kernel step10_sumsq_int(void)
{
    return describe<SumAndSquares<long long>, Elements<int>>();
}

extern "C" struct generic_kernel step10_sumsq_float(void)
{
    return describe<SumAndSquares<float>, Elements<float>>();
}

extern "C" struct generic_kernel step10_sumsq_double(void)
{
    return describe<SumAndSquares<double>, Elements<double>>();
}

extern "C" struct generic_kernel step10_dot_int(void)
{
    return describe<Sum<long long>, Products<int, long long>>();
}

extern "C" struct generic_kernel step10_dot_float(void)
{
    return describe<Sum<float>, Products<float, float>>();
}

extern "C" struct generic_kernel step10_dot_double(void)
{
    return describe<Sum<double>, Products<double, double>>();
}
