/* step14_generic — any type, any operator (document 002)
 *
 * Before: step12 read floats as fast as the memory allows, but only floats, and only to add
 *         them: every piece of the ladder (the loads, the shuffles, the array of warp sums,
 *         the block sums, the total) was written for float and +. A minimum, a sum of
 *         squares (document 004), a dot product (document 001), or the sum of an int array
 *         would each need another copy of it.
 * Here:   step09's one launch (a grid-stride loop, shuffles, the last block finishes after an
 *         acquire-release ticket) written once, as templates, the way document 002
 *         generalises its kernel: the Reader gives the elements of type T (the document's T),
 *         the ReductionType accumulates them (the document's ReductionType). A ReductionType
 *         says what an empty reduction gives (identity), how an element becomes one (of),
 *         how two combine (merge: the document's operator+=) and how one moves down a warp
 *         (shuffled_down). The warp results go to dynamic shared memory obtained through
 *         document 002's SharedMemory<T>, with the specialisation that types aligned to 8
 *         bytes need (README: "The trap"). Integer sums accumulate in long long.
 *         merge is also a host function: document 001's CPU finish (total == nullptr) merges
 *         the block results on the host with the very operator the GPU used.
 *         Loads are one element of T at a time, ELEMENTS_PER_ROUND in flight per thread, not
 *         step12's float4: the lesson here is the genericity (an exercise vectorises them).
 *         half and bf16 elements are widened to float as they are read, and every operator
 *         accumulates them in float; one more pair sums them in their own type, to measure
 *         what that loses (NOTES.md: "Low precision").
 * Profile: the time follows the bytes read: double takes about twice as long as float or int,
 *         dot twice as long as sum (two arrays), sumsq no longer than sum (one pass gives
 *         both). Against step12, `--op sum --type float` shows what the 16-byte loads were
 *         worth. The 64-bit and two-member accumulators cost more registers and shuffles,
 *         which hide behind the memory time unless occupancy drops. half and bf16 read half
 *         the bytes of float, and should take about half its time. */
#include <stdlib.h>
#include <cuda/atomic>
#include <cuda/std/limits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "reduce.h"

enum { WARP_SIZE = 32, MAX_BLOCK_SIZE = 1024 }; /* host.c's --threads takes 32 .. 1024 */
static const unsigned FULL_WARP_MASK = 0xffffffffu;
static_assert((ELEMENTS_PER_ROUND & (ELEMENTS_PER_ROUND - 1)) == 0 &&
                  (PARTIALS_IN_FLIGHT & (PARTIALS_IN_FLIGHT - 1)) == 0,
              "loads are merged as trees of pairs");

/* ---- ReductionTypes: what is accumulated, and how ------------------------------------- */

/* The identities of min and max: infinity where the type has one, else its extreme. */
template <typename T>
__host__ __device__ constexpr T highest()
{
    return cuda::std::numeric_limits<T>::has_infinity ? cuda::std::numeric_limits<T>::infinity()
                                                      : cuda::std::numeric_limits<T>::max();
}
template <typename T>
__host__ __device__ constexpr T lowest()
{
    return cuda::std::numeric_limits<T>::has_infinity ? -cuda::std::numeric_limits<T>::infinity()
                                                      : cuda::std::numeric_limits<T>::lowest();
}

/* Plain aggregates: CUDA runs no constructor for shared memory, so identity() does the job
 * of the document's constructor. identity and merge are __host__ too, for the CPU finish. */
template <typename Wide>
struct Sum {
    static constexpr int values = 1;
    Wide value;

    static __host__ __device__ Sum identity() { return {Wide(0)}; }
    template <typename X>
    static __device__ Sum of(X x)
    {
        return {Wide(x)};
    }
    static __host__ __device__ Sum merge(Sum a, Sum b) { return {a.value + b.value}; }
    __device__ Sum shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP_MASK, value, offset)};
    }
    void widen(double out[]) const { out[0] = (double)value; }
};

/* min and max keep T; of(x) widens a half or bf16 to float, which holds it exactly, so the
 * extreme is the same element's value. */
template <typename T>
struct Minimum {
    static constexpr int values = 1;
    T value;

    static __host__ __device__ Minimum identity() { return {highest<T>()}; }
    template <typename X>
    static __device__ Minimum of(X x)
    {
        return {T(x)};
    }
    static __host__ __device__ Minimum merge(Minimum a, Minimum b)
    {
        return {b.value < a.value ? b.value : a.value};
    }
    __device__ Minimum shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP_MASK, value, offset)};
    }
    void widen(double out[]) const { out[0] = (double)value; }
};

template <typename T>
struct Maximum {
    static constexpr int values = 1;
    T value;

    static __host__ __device__ Maximum identity() { return {lowest<T>()}; }
    template <typename X>
    static __device__ Maximum of(X x)
    {
        return {T(x)};
    }
    static __host__ __device__ Maximum merge(Maximum a, Maximum b)
    {
        return {b.value > a.value ? b.value : a.value};
    }
    __device__ Maximum shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP_MASK, value, offset)};
    }
    void widen(double out[]) const { out[0] = (double)value; }
};

/* Document 002's CReduction_Sumi_isq and document 004's sum of squares: two statistics in one
 * pass. Both members are Wide: the document's `int sum` overflows long before its sumsq. */
template <typename Wide>
struct SumAndSquares {
    static constexpr int values = 2;
    Wide sum, squares;

    static __host__ __device__ SumAndSquares identity() { return {Wide(0), Wide(0)}; }
    template <typename X>
    static __device__ SumAndSquares of(X x)
    {
        return {Wide(x), Wide(x) * Wide(x)};
    }
    static __host__ __device__ SumAndSquares merge(SumAndSquares a, SumAndSquares b)
    {
        return {a.sum + b.sum, a.squares + b.squares};
    }
    /* A shuffle moves one register per lane: a struct moves member by member. */
    __device__ SumAndSquares shuffled_down(unsigned offset) const
    {
        return {__shfl_down_sync(FULL_WARP_MASK, sum, offset),
                __shfl_down_sync(FULL_WARP_MASK, squares, offset)};
    }
    void widen(double out[]) const
    {
        out[0] = (double)sum;
        out[1] = (double)squares;
    }
};

/* ---- Readers: what element i is ------------------------------------------------------- */

template <typename T>
struct Elements {
    const T *values;

    static Elements over(const void *a, const void *) { return {static_cast<const T *>(a)}; }
    __device__ T operator[](size_t i) const { return __ldg(values + i); }
};

/* Document 001's a[i] * b[i], formed in a type that holds it: int x int needs long long. */
template <typename T>
struct ProductOf {
    using type = T;
};
template <>
struct ProductOf<int> {
    using type = long long;
};
/* half x half has at most 11 + 11 significant bits, bf16 x bf16 at most 8 + 8: a float's 24
 * hold either product exactly (unless it overflows or underflows float's range). */
template <>
struct ProductOf<__half> {
    using type = float;
};
template <>
struct ProductOf<__nv_bfloat16> {
    using type = float;
};

template <typename T>
struct Products {
    using Product = typename ProductOf<T>::type;
    const T *a, *b;

    static Products over(const void *a, const void *b)
    {
        return {static_cast<const T *>(a), static_cast<const T *>(b)};
    }
    __device__ Product operator[](size_t i) const
    {
        return Product(__ldg(a + i)) * Product(__ldg(b + i));
    }
};

/* ---- Document 002's SharedMemory<T> ----------------------------------------------------- */

/* Dynamic shared memory is one `extern __shared__` array per kernel, sized at launch. In a
 * template, `extern __shared__ T warp_results[];` declares the same symbol with a different
 * type in each instantiation: nvcc 13 stops at the second one ("declaration is incompatible
 * with previous"). The CUDA SDK's idiom, which document 002 copies, declares the raw array
 * once, with one fixed type, and casts. An array declared as int is only promised int's
 * alignment (4 bytes), so types aligned to 8 bytes get a specialisation whose array is
 * declared as long long: their own correctly aligned array (the document specialises per
 * type; one specialisation per alignment does the same). Any other alignment stops at the
 * static_assert instead of misaligning silently. nvcc 13 in fact aligns every extern shared
 * array to 16 bytes (see the PTX), but nothing in the int declaration says so. */
template <typename T, size_t ALIGNMENT = alignof(T)>
struct SharedMemory {
    static_assert(ALIGNMENT <= alignof(int),
                  "a type aligned beyond int needs a SharedMemory specialisation");
    __device__ operator T *()
    {
        extern __shared__ int shared_words[];
        return reinterpret_cast<T *>(shared_words);
    }
};

template <typename T>
struct SharedMemory<T, alignof(long long)> {
    __device__ operator T *()
    {
        extern __shared__ long long shared_doublewords[];
        return reinterpret_cast<T *>(shared_doublewords);
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

/* Grid-stride rounds: a block takes ELEMENTS_PER_ROUND * blockDim.x consecutive elements per
 * round, thread t the ones at t, t + blockDim.x, ... (each load of a warp is coalesced), and
 * all loads of a round are issued before any is combined. The last round, cut short by the
 * end of the input, is filled with the identity: 0 would be a wrong minimum. */
template <typename ReductionType, typename Reader>
static __device__ ReductionType thread_reduce(Reader input, size_t n)
{
    const size_t step = blockDim.x, stride = (size_t)gridDim.x * blockDim.x * ELEMENTS_PER_ROUND;
    size_t i = (size_t)blockIdx.x * blockDim.x * ELEMENTS_PER_ROUND + threadIdx.x;
    ReductionType mine = ReductionType::identity(), group[ELEMENTS_PER_ROUND];
    for (; i + (ELEMENTS_PER_ROUND - 1) * step < n; i += stride) {
#pragma unroll
        for (int k = 0; k < ELEMENTS_PER_ROUND; k++)
            group[k] = ReductionType::of(input[i + k * step]);
        mine = ReductionType::merge(mine, merge_tree(group));
    }
    if (i < n) {
#pragma unroll
        for (int k = 0; k < ELEMENTS_PER_ROUND; k++)
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
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        mine = ReductionType::merge(mine, mine.shuffled_down(offset));
    return mine;
}

/* step08's block result, in thread 0: the warps' results meet in the launch's dynamic shared
 * memory (blockDim.x / 32 accumulators). A second call must follow a barrier, since warp 0
 * may still be reading: took_last_ticket's __syncthreads_or is that barrier. */
template <typename ReductionType>
static __device__ ReductionType block_reduce(ReductionType mine)
{
    ReductionType *warp_results = SharedMemory<ReductionType>();
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    mine = warp_reduce(mine);
    if (lane == 0) warp_results[warp] = mine;
    __syncthreads();
    if (warp == 0)
        mine = warp_reduce(lane < blockDim.x / WARP_SIZE ? warp_results[lane]
                                                         : ReductionType::identity());
    return mine;
}

/* The last block reads the partials with its whole width, PARTIALS_IN_FLIGHT per thread at
 * once, each thread a fixed subset. Plain loads, not __ldg: other blocks wrote them during
 * this launch. */
template <typename ReductionType>
static __device__ ReductionType merge_partials(const ReductionType *partials)
{
    const unsigned count = gridDim.x, step = blockDim.x;
    ReductionType mine = ReductionType::identity();
    for (unsigned first = threadIdx.x; first < count; first += PARTIALS_IN_FLIGHT * step) {
        ReductionType group[PARTIALS_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < PARTIALS_IN_FLIGHT; k++)
            group[k] = first + k * step < count ? partials[first + k * step]
                                                : ReductionType::identity();
        mine = ReductionType::merge(mine, merge_tree(group));
    }
    return block_reduce(mine);
}

/* step09's guard in its acquire-release form: thread 0 publishes this block's partial and
 * learns whether it was the last; the barrier tells the block. */
static __device__ bool took_last_ticket(unsigned *ticket_counter)
{
    bool last = false;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*ticket_counter);
        last = ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    return __syncthreads_or(last);
}

template <typename ReductionType, typename Reader>
__global__ __launch_bounds__(MAX_BLOCK_SIZE) void reduce_any(Reader input, size_t n,
                                                             ReductionType *partials,
                                                             ReductionType *total,
                                                             unsigned *ticket_counter)
{
    ReductionType block_result = block_reduce(thread_reduce<ReductionType>(input, n));
    if (total != nullptr && gridDim.x == 1) { /* a small n: this block's result is the total */
        if (threadIdx.x == 0) *total = block_result;
        return;
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = block_result;
    if (total == nullptr || !took_last_ticket(ticket_counter))
        return; /* no total: the host finishes */
    ReductionType result = merge_partials(partials);
    if (threadIdx.x == 0) {
        *total = result;
        *ticket_counter = 0; /* ready for the next launch */
    }
}

/* ---- What each instantiation offers the host -------------------------------------------- */

template <typename ReductionType, typename Reader>
static cudaError_t launch(const struct generic_launch *job)
{
    static_assert(sizeof(ReductionType) <= MAX_ACCUMULATOR_BYTES &&
                      ReductionType::values <= MAX_RESULT_VALUES,
                  "reduce.h sizes the partials and the results");
    size_t warp_results_bytes = job->threads / WARP_SIZE * sizeof(ReductionType);
    reduce_any<ReductionType, Reader><<<job->blocks, job->threads, warp_results_bytes>>>(
        Reader::over(job->a, job->b), job->n, static_cast<ReductionType *>(job->partials),
        static_cast<ReductionType *>(job->total), job->ticket_counter);
    return cudaGetLastError();
}

/* Document 001's CPU finish: the block results in block order, merged with the GPU's merge. */
template <typename ReductionType>
static cudaError_t merge_on_host(const void *partials, unsigned blocks, ReductionType *result)
{
    ReductionType *copy = static_cast<ReductionType *>(malloc(blocks * sizeof *copy));
    if (copy == nullptr) return cudaErrorMemoryAllocation;
    cudaError_t status = cudaMemcpy(copy, partials, blocks * sizeof *copy, cudaMemcpyDeviceToHost);
    for (unsigned b = 0; status == cudaSuccess && b < blocks; b++)
        *result = ReductionType::merge(*result, copy[b]);
    free(copy);
    return status;
}

template <typename ReductionType>
static cudaError_t read(const struct generic_launch *job, double values[])
{
    ReductionType result = ReductionType::identity();
    cudaError_t status = job->total != nullptr ? cudaMemcpy(&result, job->total, sizeof result,
                                                            cudaMemcpyDeviceToHost)
                                               : merge_on_host(job->partials, job->blocks, &result);
    result.widen(values);
    return status;
}

struct instantiation {
    const char *name, *kernel;
    cudaError_t (*launch)(const struct generic_launch *job);
    cudaError_t (*read)(const struct generic_launch *job, double values[]);
};
#define INSTANCE(ReductionType, Reader)                                                            \
    {                                                                                              \
#ReductionType " over " #Reader, "reduce_any<" #ReductionType ", " #Reader ">",            \
            launch < ReductionType, Reader>, read < ReductionType>                                 \
    }

/* Rows: --op; columns: --type int, float, double, half, bf16. The int sums accumulate in long
 * long: 2^25 values of 99 (3,321,888,768) exceed INT32_MAX. half and bf16 accumulate in
 * float: a bf16 sum stops growing long before 2^20 values of about 1 (NOTES.md). */
static const struct instantiation INSTANTIATIONS[OPS][TYPES] = {
    {INSTANCE(Sum<long long>, Elements<int>), INSTANCE(Sum<float>, Elements<float>),
     INSTANCE(Sum<double>, Elements<double>), INSTANCE(Sum<float>, Elements<__half>),
     INSTANCE(Sum<float>, Elements<__nv_bfloat16>)},
    {INSTANCE(Minimum<int>, Elements<int>), INSTANCE(Minimum<float>, Elements<float>),
     INSTANCE(Minimum<double>, Elements<double>), INSTANCE(Minimum<float>, Elements<__half>),
     INSTANCE(Minimum<float>, Elements<__nv_bfloat16>)},
    {INSTANCE(Maximum<int>, Elements<int>), INSTANCE(Maximum<float>, Elements<float>),
     INSTANCE(Maximum<double>, Elements<double>), INSTANCE(Maximum<float>, Elements<__half>),
     INSTANCE(Maximum<float>, Elements<__nv_bfloat16>)},
    {INSTANCE(SumAndSquares<long long>, Elements<int>),
     INSTANCE(SumAndSquares<float>, Elements<float>),
     INSTANCE(SumAndSquares<double>, Elements<double>),
     INSTANCE(SumAndSquares<float>, Elements<__half>),
     INSTANCE(SumAndSquares<float>, Elements<__nv_bfloat16>)},
    {INSTANCE(Sum<long long>, Products<int>), INSTANCE(Sum<float>, Products<float>),
     INSTANCE(Sum<double>, Products<double>), INSTANCE(Sum<float>, Products<__half>),
     INSTANCE(Sum<float>, Products<__nv_bfloat16>)},
};

/* --accumulate input: the sums of half and bf16 added up in their own type (PTX add.f16 and,
 * on sm_90, add.bf16; elsewhere a float addition rounded back to bf16), for comparison only. */
static const struct instantiation INPUT_TYPE_SUMS[] = {
    INSTANCE(Sum<__half>, Elements<__half>), INSTANCE(Sum<__nv_bfloat16>, Elements<__nv_bfloat16>)};

static const struct instantiation *instantiation_of(enum op op, enum element_type type,
                                                    bool input_accumulator)
{
    if ((unsigned)op >= OPS || (unsigned)type >= TYPES) return nullptr;
    if (!input_accumulator) return &INSTANTIATIONS[op][type];
    if (op != OP_SUM || (type != TYPE_HALF && type != TYPE_BF16)) return nullptr;
    return &INPUT_TYPE_SUMS[type == TYPE_HALF ? 0 : 1];
}

extern "C" cudaError_t reduce_generic(const struct generic_launch *job, struct launched *launched)
{
    const struct instantiation *instance = instantiation_of(job->op, job->type,
                                                            job->input_accumulator);
    if (instance == nullptr) return cudaErrorInvalidValue;
    *launched = {instance->kernel, job->total != nullptr ? "last block" : FINISH_ON_HOST};
    return instance->launch(job);
}

extern "C" cudaError_t result_read(const struct generic_launch *job,
                                   double values[MAX_RESULT_VALUES])
{
    const struct instantiation *instance = instantiation_of(job->op, job->type,
                                                            job->input_accumulator);
    return instance != nullptr ? instance->read(job, values) : cudaErrorInvalidValue;
}

extern "C" const char *instantiation_name(enum op op, enum element_type type,
                                          bool input_accumulator)
{
    const struct instantiation *instance = instantiation_of(op, type, input_accumulator);
    return instance != nullptr ? instance->name : "none";
}

/* ---- The data in the type: the pattern's floats converted on the GPU ---------------------- */

enum { CONVERT_THREADS = 256, CONVERT_MOST_BLOCKS = 4096 };

/* A float as the type: the constructor for int, float and double; round to nearest, ties to
 * even for half and bf16 (CUDA Math API, "Half Precision Conversion and Data Movement" and
 * "Bfloat16 Precision Conversion and Data Movement"), which low_precision.c repeats on the
 * host. */
template <typename T>
static __device__ T narrowed(float x)
{
    return T(x);
}
template <>
__device__ __half narrowed<__half>(float x)
{
    return __float2half_rn(x);
}
template <>
__device__ __nv_bfloat16 narrowed<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

template <typename T>
__global__ void convert(const float *in, size_t n, T *out)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = narrowed<T>(in[i]);
}

extern "C" cudaError_t convert_floats(const float *in, size_t n, enum element_type type, void *out)
{
    size_t wanted = (n + CONVERT_THREADS - 1) / CONVERT_THREADS;
    unsigned blocks = wanted < CONVERT_MOST_BLOCKS ? (unsigned)wanted
                                                   : (unsigned)CONVERT_MOST_BLOCKS;
    if (n == 0) return cudaSuccess;
    if (type == TYPE_INT)
        convert<<<blocks, CONVERT_THREADS>>>(in, n, static_cast<int *>(out));
    else if (type == TYPE_FLOAT)
        convert<<<blocks, CONVERT_THREADS>>>(in, n, static_cast<float *>(out));
    else if (type == TYPE_DOUBLE)
        convert<<<blocks, CONVERT_THREADS>>>(in, n, static_cast<double *>(out));
    else if (type == TYPE_HALF)
        convert<<<blocks, CONVERT_THREADS>>>(in, n, static_cast<__half *>(out));
    else if (type == TYPE_BF16)
        convert<<<blocks, CONVERT_THREADS>>>(in, n, static_cast<__nv_bfloat16 *>(out));
    else
        return cudaErrorInvalidValue;
    return cudaGetLastError();
}
