/* step13_gather/variants: other ways to load and to finish, timed side by side.
 *
 * Each variant changes one thing in step12's grid kernel (reduce.cu): how a float4 is loaded,
 * how many threads a block has, how many float4 a thread reads, how the blocks finish, or
 * whether the grid is persistent (step09's shape: a grid that fills the GPU once and strides
 * over the input). All are timed like every step (the L2 flushed before each run, the input's
 * copies read in turn, CUDA events, the median) in one process with cub::DeviceReduce::Sum,
 * and each total is checked against the host's exact sum.
 *   make step13-variants && ./step13_gather/variants/run -n 2^20..2^32 [--iters I]
 * It needs inputs that start on a 16-byte boundary and n a multiple of 4 (powers of two). */
#include <cstdint>
#include <cstring>
#include <cuda/atomic>

#include "toolbox.h"

enum { WARP_SIZE = 32, FLOATS_PER_VECTOR = 4, PARTIALS_PER_THREAD = 4 };
enum load { LOAD_LDG, LOAD_NO_ALLOCATE, LOAD_EVICT_FIRST };
/* How the blocks' sums become the total: the last block by ticket; an atomicAdd per block;
 * each block stores its sum and a second kernel adds them (launched after the grid, or early
 * with programmatic dependent launch); or each block adds its sum, converted exactly to
 * integers, into fixed-point bins with integer atomics, which give the same bits in any order
 * (then the last block by ticket, or a second kernel, converts the bins back to a float). */
enum finish_kind {
    FINISH_TICKET,
    FINISH_ATOMIC,
    FINISH_STORE_TWO_KERNELS,
    FINISH_STORE_PDL,
    FINISH_FIXED_TICKET,
    FINISH_FIXED_PDL,
    FINISH_TAGGED_PDL,
    FINISH_TAGGED_TWO_KERNELS,
    FINISH_GATHERER
};
/* A float is M * 2^E with |M| < 2^24 and -172 <= E <= 104: E + FIXED_OFFSET picks a bin of
 * FIXED_BIN_BITS bits and a shift inside it, so M << shift has 24 + 15 bits and a bin can take
 * 2^24 such additions before it could overflow 64 bits. */
enum { FIXED_OFFSET = 172, FIXED_BIN_BITS = 16, FIXED_BINS = 18 };
static const unsigned FULL_WARP = 0xffffffffu;

template <int LOAD>
static __device__ float4 load(const float4 *p)
{
    float4 v;
    if (LOAD == LOAD_LDG) return __ldg(p);
    if (LOAD == LOAD_NO_ALLOCATE) {
        asm("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
            : "l"(p));
        return v;
    }
    uint64_t policy; /* evict first from L2 too: the bytes are not read again */
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p), "l"(policy));
    return v;
}

static __device__ float4 plus(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
static __device__ float lanes(float4 v)
{
    return (v.x + v.y) + (v.z + v.w);
}

template <unsigned THREADS>
static __device__ float block_sum(float value)
{
    __shared__ float warp_sums[THREADS / WARP_SIZE];
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
        value += __shfl_down_sync(FULL_WARP, value, offset);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < THREADS / WARP_SIZE ? warp_sums[lane] : 0.0f;
        for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2)
            value += __shfl_down_sync(FULL_WARP, value, offset);
    }
    return value;
}

static __device__ void fixed_add(unsigned long long *bins, float x)
{
    if (x == 0.0f) return;
    int exponent;
    float fraction = frexpf(x, &exponent); /* x = fraction * 2^exponent, 1/2 <= |fraction| < 1 */
    long long mantissa = (long long)ldexpf(fraction, 24);
    int shift = exponent - 24 + FIXED_OFFSET;
    atomicAdd(&bins[shift / FIXED_BIN_BITS],
              (unsigned long long)(mantissa << (shift % FIXED_BIN_BITS)));
}

/* One thread, a fixed order: the same bins give the same float. The bins are zeroed for the
 * next launch. */
static __device__ float fixed_total(unsigned long long *bins)
{
    double total = 0.0;
    for (int b = FIXED_BINS - 1; b >= 0; b--) {
        total += ldexp((double)(long long)bins[b], b * FIXED_BIN_BITS - FIXED_OFFSET);
        bins[b] = 0;
    }
    return (float)total;
}

template <unsigned THREADS>
static __device__ float sum_of_block_sums(const float *block_sums, unsigned count)
{
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float4 *sums = reinterpret_cast<const float4 *>(block_sums);
    for (unsigned i = threadIdx.x; i < count / FLOATS_PER_VECTOR; i += THREADS)
        acc = plus(acc, sums[i]);
    unsigned rest = count / FLOATS_PER_VECTOR * FLOATS_PER_VECTOR + threadIdx.x;
    return block_sum<THREADS>(lanes(acc) + (rest < count ? block_sums[rest] : 0.0f));
}

static __device__ bool took_last_ticket(unsigned *ticket)
{
    bool last = false;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
        last = counter.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    return __syncthreads_or(last);
}

/* The finish after every block has its sum. */
template <unsigned THREADS, int FINISH>
static __device__ void finish(float sum, float *block_sums, unsigned *ticket, float *total)
{
    unsigned long long *bins = reinterpret_cast<unsigned long long *>(ticket + 2);
    if (FINISH == FINISH_ATOMIC) {
        if (threadIdx.x == 0) atomicAdd(total, sum);
        return;
    }
    if (FINISH == FINISH_STORE_TWO_KERNELS || FINISH == FINISH_STORE_PDL) {
        if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
        return;
    }
    if (FINISH == FINISH_TAGGED_PDL || FINISH == FINISH_TAGGED_TWO_KERNELS) {
        /* the sum and this launch's number in one 64-bit store: whoever sees the number sees the sum */
        if (threadIdx.x == 0) {
            unsigned long long *tagged = reinterpret_cast<unsigned long long *>(block_sums);
            unsigned long long word = (unsigned long long)(ticket[1] + 1) << 32 |
                                      __float_as_uint(sum);
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(tagged[blockIdx.x])
                .store(word, cuda::memory_order_relaxed);
        }
        return;
    }
    if (FINISH == FINISH_FIXED_TICKET || FINISH == FINISH_FIXED_PDL) {
        if (threadIdx.x == 0) fixed_add(bins, sum);
        if (FINISH == FINISH_FIXED_PDL || !took_last_ticket(ticket)) return;
        if (threadIdx.x == 0) {
            *total = fixed_total(bins);
            *ticket = 0;
        }
        return;
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
    if (!took_last_ticket(ticket)) return;
    sum = sum_of_block_sums<THREADS>(block_sums, gridDim.x);
    if (threadIdx.x == 0) {
        *total = sum;
        *ticket = 0;
    }
}

/* The second kernel: one block adds what the grid left. With programmatic dependent launch it
 * starts while the grid runs and waits here for the grid's end and its memory. */
template <unsigned THREADS, bool FIXED>
__global__ __launch_bounds__(THREADS) void after_grid(const float *block_sums, unsigned count,
                                                      unsigned *ticket, float *total)
{
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
    if (FIXED) {
        if (threadIdx.x == 0)
            *total = fixed_total(reinterpret_cast<unsigned long long *>(ticket + 2));
        return;
    }
    float sum = sum_of_block_sums<THREADS>(block_sums, count);
    if (threadIdx.x == 0) *total = sum;
}

/* Short blocks, as in step12: each thread reads VECTORS float4 once. */
template <unsigned THREADS, int VECTORS, int LOAD, int FINISH>
__global__ __launch_bounds__(THREADS) void short_blocks(const float4 *in, size_t vectors,
                                                        float *block_sums, unsigned *ticket,
                                                        float *total)
{
#if __CUDA_ARCH__ >= 900
    if (FINISH == FINISH_STORE_PDL || FINISH == FINISH_FIXED_PDL || FINISH == FINISH_TAGGED_PDL)
        cudaTriggerProgrammaticLaunchCompletion();
#endif
    size_t first = (size_t)blockIdx.x * THREADS * VECTORS + threadIdx.x;
    float4 group[VECTORS], acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int k = 0; k < VECTORS; k++)
        group[k] = first + k * THREADS < vectors ? load<LOAD>(in + first + k * THREADS) : acc;
#pragma unroll
    for (int k = 0; k < VECTORS; k++) acc = plus(acc, group[k]);
    finish<THREADS, FINISH>(block_sum<THREADS>(lanes(acc)), block_sums, ticket, total);
}

/* A persistent grid (step09's shape with float4): as many blocks as the GPU holds, each
 * thread striding over the input VECTORS float4 at a time. */
template <unsigned THREADS, int VECTORS>
__global__ __launch_bounds__(THREADS) void persistent(const float4 *in, size_t vectors,
                                                      float *block_sums, unsigned *ticket,
                                                      float *total)
{
    size_t stride = (size_t)gridDim.x * THREADS * VECTORS;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (size_t i = (size_t)blockIdx.x * THREADS * VECTORS + threadIdx.x; i < vectors;
         i += stride) {
        float4 group[VECTORS];
#pragma unroll
        for (int k = 0; k < VECTORS; k++)
            group[k] = i + k * THREADS < vectors ? __ldg(in + i + k * THREADS)
                                                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < VECTORS; k++) acc = plus(acc, group[k]);
    }
    finish<THREADS, FINISH_TICKET>(block_sum<THREADS>(lanes(acc)), block_sums, ticket, total);
}

enum { TAGS_IN_FLIGHT = 8 };
/* The second kernel of the tagged finish: it does not wait for the grid's end; each thread
 * waits for its own block sums, TAGS_IN_FLIGHT loads at a time, and adds them in index order,
 * so the total has the same bits whatever order the blocks finished in. */
template <unsigned THREADS>
__global__ __launch_bounds__(THREADS) void gather_tagged(const float *block_sums, unsigned count,
                                                         unsigned *ticket, float *total)
{
    unsigned long long *tagged = reinterpret_cast<unsigned long long *>(
        const_cast<float *>(block_sums));
    unsigned launch = ticket[1] + 1;
    float sum = 0.0f;
    for (unsigned first = threadIdx.x; first < count; first += TAGS_IN_FLIGHT * THREADS) {
        unsigned long long word[TAGS_IN_FLIGHT];
        bool all;
        do {
            all = true;
#pragma unroll
            for (int k = 0; k < TAGS_IN_FLIGHT; k++) {
                unsigned i = first + k * THREADS;
                word[k] = i < count
                              ? cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
                                    tagged[i])
                                    .load(cuda::memory_order_relaxed)
                              : (unsigned long long)launch << 32;
            }
#pragma unroll
            for (int k = 0; k < TAGS_IN_FLIGHT; k++)
                all = all && (unsigned)(word[k] >> 32) == launch;
        } while (!all);
#pragma unroll
        for (int k = 0; k < TAGS_IN_FLIGHT; k++) sum += __uint_as_float((unsigned)word[k]);
    }
    sum = block_sum<THREADS>(sum);
    if (threadIdx.x == 0) {
        *total = sum;
        ticket[1] = launch;
    }
}

/* The tagged finish in one grid: every block draws a ticket when it starts; the block that
 * draws the last one knows that every other block has started, so it may wait for their
 * tagged sums without waiting on a block that has no place to run. */
template <unsigned THREADS, int VECTORS>
__global__ __launch_bounds__(THREADS) void gatherer(const float4 *in, size_t vectors,
                                                    float *block_sums, unsigned *ticket,
                                                    float *total)
{
    __shared__ unsigned start_ticket, launch;
    if (threadIdx.x == 0) {
        start_ticket = atomicAdd(&ticket[0], 1u);
        launch = ticket[1] + 1;
    }
    size_t first = (size_t)blockIdx.x * THREADS * VECTORS + threadIdx.x;
    float4 group[VECTORS], acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int k = 0; k < VECTORS; k++)
        group[k] = first + k * THREADS < vectors ? __ldg(in + first + k * THREADS) : acc;
#pragma unroll
    for (int k = 0; k < VECTORS; k++) acc = plus(acc, group[k]);
    float sum = block_sum<THREADS>(lanes(acc));
    unsigned long long *tagged = reinterpret_cast<unsigned long long *>(block_sums);
    if (threadIdx.x == 0)
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(tagged[blockIdx.x])
            .store((unsigned long long)launch << 32 | __float_as_uint(sum),
                   cuda::memory_order_relaxed);
    if (start_ticket != gridDim.x - 1) return;
    sum = 0.0f;
    for (unsigned first_sum = threadIdx.x; first_sum < gridDim.x;
         first_sum += TAGS_IN_FLIGHT * THREADS) {
        unsigned long long word[TAGS_IN_FLIGHT];
        bool all;
        do {
            all = true;
#pragma unroll
            for (int k = 0; k < TAGS_IN_FLIGHT; k++) {
                unsigned i = first_sum + k * THREADS;
                word[k] = i < gridDim.x
                              ? cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
                                    tagged[i])
                                    .load(cuda::memory_order_relaxed)
                              : (unsigned long long)launch << 32;
            }
#pragma unroll
            for (int k = 0; k < TAGS_IN_FLIGHT; k++)
                all = all && (unsigned)(word[k] >> 32) == launch;
        } while (!all);
#pragma unroll
        for (int k = 0; k < TAGS_IN_FLIGHT; k++) sum += __uint_as_float((unsigned)word[k]);
    }
    __syncthreads();
    sum = block_sum<THREADS>(sum);
    if (threadIdx.x == 0) {
        *total = sum;
        ticket[1] = launch;
        ticket[0] = 0;
    }
}

typedef void (*kernel)(const float4 *, size_t, float *, unsigned *, float *);
typedef void (*epilogue)(const float *, unsigned, unsigned *, float *);
struct kernel_variant {
    const char *name, *about;
    kernel launch;
    unsigned threads, vectors;
    bool persistent_grid;
    int finish;
    epilogue after;
};
#define SHORT(T, V, L, F) short_blocks<T, V, L, F>, T, V, false, F
static const struct kernel_variant VARIANTS[] = {
    {"step12", "512 threads x 8 float4, L1::no_allocate, ticket",
     SHORT(512, 8, LOAD_NO_ALLOCATE, FINISH_TICKET), NULL},
    {"ldg", "the same with plain __ldg loads", SHORT(512, 8, LOAD_LDG, FINISH_TICKET), NULL},
    {"evict-first", "no_allocate, and evict-first from L2",
     SHORT(512, 8, LOAD_EVICT_FIRST, FINISH_TICKET), NULL},
    {"atomic-na", "no_allocate loads, an atomicAdd per block",
     SHORT(512, 8, LOAD_NO_ALLOCATE, FINISH_ATOMIC), NULL},
    {"atomic", "__ldg loads, an atomicAdd per block (order varies)",
     SHORT(512, 8, LOAD_LDG, FINISH_ATOMIC), NULL},
    {"two-kernels", "__ldg, block sums stored, a second launch adds them",
     SHORT(512, 8, LOAD_LDG, FINISH_STORE_TWO_KERNELS), after_grid<512, false>},
    {"pdl", "__ldg, block sums stored, a second kernel launched early (PDL)",
     SHORT(512, 8, LOAD_LDG, FINISH_STORE_PDL), after_grid<512, false>},
    {"fixed-ticket", "__ldg, fixed-point bins by integer atomics, last block converts",
     SHORT(512, 8, LOAD_LDG, FINISH_FIXED_TICKET), NULL},
    {"fixed-pdl", "__ldg, fixed-point bins, a PDL kernel converts",
     SHORT(512, 8, LOAD_LDG, FINISH_FIXED_PDL), after_grid<512, true>},
    {"tagged-pdl",
     "__ldg, sums tagged with the launch number, a PDL kernel gathers them as they come",
     SHORT(512, 8, LOAD_LDG, FINISH_TAGGED_PDL), gather_tagged<512>},
    {"tagged-2k", "the same, the gathering kernel launched after the grid",
     SHORT(512, 8, LOAD_LDG, FINISH_TAGGED_TWO_KERNELS), gather_tagged<512>},
    {"gatherer", "__ldg, tagged sums, the block that starts last gathers them", gatherer<512, 8>,
     512, 8, false, FINISH_GATHERER, NULL},
    {"gatherer1k", "1024 threads x 8, the same", gatherer<1024, 8>, 1024, 8, false, FINISH_GATHERER,
     NULL},
    {"512x12", "512 threads x 12 float4, __ldg, ticket", SHORT(512, 12, LOAD_LDG, FINISH_TICKET),
     NULL},
    {"1024x16", "1024 threads x 16 float4, __ldg, ticket", SHORT(1024, 16, LOAD_LDG, FINISH_TICKET),
     NULL},
    {"1024x16-atom", "1024 threads x 16 float4, __ldg, atomicAdd",
     SHORT(1024, 16, LOAD_LDG, FINISH_ATOMIC), NULL},
    {"persistent", "a grid that fills the GPU once, 256 threads, 4 float4 per iteration",
     persistent<256, 4>, 256, 4, true, FINISH_TICKET, NULL},
};
enum { VARIANT_COUNT = sizeof VARIANTS / sizeof VARIANTS[0] };

static unsigned grid_of(const struct kernel_variant *v, size_t vectors,
                        const struct device_info *device)
{
    size_t per_block = (size_t)v->threads * v->vectors,
           blocks = (vectors + per_block - 1) / per_block;
    int resident = 0;
    if (v->persistent_grid &&
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, v->launch, (int)v->threads,
                                                              0)) &&
        (size_t)resident * device->sm_count < blocks)
        blocks = (size_t)resident * device->sm_count;
    return blocks > 0 ? (unsigned)blocks : 1;
}

/* The longest chain of additions (docs/verification.md): a thread's float4, its lanes, the
 * block's shuffles, then the block sums (a chain of atomicAdds, or the last block's loop). */
static unsigned depth(const struct kernel_variant *v, size_t n, const struct device_info *device)
{
    size_t vectors = n / FLOATS_PER_VECTOR, blocks = grid_of(v, vectors, device);
    size_t per_thread = (vectors + blocks * v->threads - 1) / (blocks * v->threads);
    size_t finish = v->finish == FINISH_ATOMIC
                        ? blocks
                        : blocks / (FLOATS_PER_VECTOR * v->threads) + 2 * WARP_SIZE;
    return (unsigned)(per_thread + 2 + 2 * WARP_SIZE + finish);
}

struct scratch {
    float *block_sums, *total;
    unsigned *ticket;
};

static cudaError_t launch_after(const struct kernel_variant *v, unsigned blocks,
                                const struct scratch *s)
{
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute early[1];
    config.gridDim = dim3(1);
    config.blockDim = dim3(v->threads);
    if (v->finish != FINISH_STORE_TWO_KERNELS && v->finish != FINISH_TAGGED_TWO_KERNELS) {
        early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        early[0].val.programmaticStreamSerializationAllowed = 1;
        config.attrs = early;
        config.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&config, v->after, (const float *)s->block_sums, blocks, s->ticket,
                              s->total);
}

/* Times one variant like a step; checks its last total against the reference. */
static bool time_variant(const struct kernel_variant *v, struct input *input,
                         const struct options *o, struct timer *timer, const struct scratch *s,
                         const struct device_info *device, struct timing *timing, float *total)
{
    size_t vectors = input->n / FLOATS_PER_VECTOR;
    unsigned blocks = grid_of(v, vectors, device);
    for (int run = 0; run < o->warmup + o->iters; run++) {
        if (!timer_start(timer)) return false;
        /* Inside the timed region, as the steps' atomic-add zeroes its total: part of its cost. */
        if (v->finish == FINISH_ATOMIC) CUDA_TRY(cudaMemsetAsync(s->total, 0, sizeof(float), 0));
        v->launch<<<blocks, v->threads>>>((const float4 *)input->copies[run % input->count],
                                          vectors, s->block_sums, s->ticket, s->total);
        CUDA_TRY(cudaGetLastError());
        if (v->after != NULL) CUDA_TRY(launch_after(v, blocks, s));
        if (!timer_stop(timer, run >= o->warmup)) return false;
    }
    *timing = timer_summary(timer);
    return total_read(s->total, total);
}

static const struct step_info STEP = {
    "step13-variants",
    "step12's grid kernel beside other loads and finishes, and CUB",
    512,
    512,
    512,
    false,
    false,
    NULL,
    NULL,
    NULL,
    NULL};

int main(int argc, char **argv)
{
    struct options o;
    struct device_info device;
    struct scratch s = {};
    int status = options_parse(argc, argv, &STEP, &o), worst = EXIT_CORRECT;
    if (status != OPTIONS_RUN) return status;
    if (!device_open(&device, STEP.name)) return EXIT_ENVIRONMENT;
    if (o.n % FLOATS_PER_VECTOR != 0) {
        fprintf(stderr, "%s: n must be a multiple of %d\n", STEP.name, FLOATS_PER_VECTOR);
        return EXIT_USAGE;
    }
    size_t most_blocks = o.n_last / FLOATS_PER_VECTOR / WARP_SIZE + FLOATS_PER_VECTOR;
    struct timer timer = {};
    bool ok = CUDA_OK(cudaMalloc((void **)&s.block_sums, (2 * most_blocks + 2) * sizeof(float))) &&
              CUDA_OK(cudaMemset(s.block_sums, 0, (2 * most_blocks + 2) * sizeof(float))) &&
              CUDA_OK(cudaMalloc((void **)&s.ticket,
                                 2 * sizeof(unsigned) + FIXED_BINS * sizeof(unsigned long long))) &&
              CUDA_OK(cudaMemset(s.ticket, 0,
                                 2 * sizeof(unsigned) + FIXED_BINS * sizeof(unsigned long long))) &&
              timer_make(&timer, &device, &o);
    s.total = s.block_sums + 2 * most_blocks;
    printf(
        "%s, CUDA %d.%d: %% of the peak %.0f GB/s, and speed relative to cub::DeviceReduce::Sum\n",
        device.name, device.runtime_version / 1000, device.runtime_version % 1000 / 10,
        device.peak_gb_per_s);
    for (int v = 0; ok && v < VARIANT_COUNT; v++)
        printf("  %-13s %s\n", VARIANTS[v].name, VARIANTS[v].about);
    printf("%12s %10s", "n", "cub");
    for (int v = 0; ok && v < VARIANT_COUNT; v++) printf(" %13s", VARIANTS[v].name);
    printf("\n");
    for (size_t n = o.n; ok && n <= o.n_last; n *= 2) {
        struct input input = {};
        struct timing cub, t[VARIANT_COUNT];
        float total;
        ok = input_create(&input, &o, n, &device) && cub_time(&input, &o, &timer, &cub, NULL);
        printf("%12zu %9.2f%%", n,
               ok ? 100 * effective_gb_per_s(n * 4.0, cub.median_ms) / device.peak_gb_per_s : 0);
        for (int v = 0; ok && v < VARIANT_COUNT; v++) {
            ok = time_variant(&VARIANTS[v], &input, &o, &timer, &s, &device, &t[v], &total);
            bool right = result_within(
                total, &input.reference,
                error_bound(&input.reference, depth(&VARIANTS[v], n, &device)));
            if (!right) worst = EXIT_WRONG;
            printf(" %6.2f%% %4.2fx%s",
                   100 * effective_gb_per_s(n * 4.0, t[v].median_ms) / device.peak_gb_per_s,
                   cub.median_ms / t[v].median_ms, right ? "" : "!");
        }
        printf("\n");
        fflush(stdout);
        input_free(&input);
    }
    timer_free(&timer);
    CUDA_OK(cudaFree(s.block_sums));
    CUDA_OK(cudaFree(s.ticket));
    return ok ? worst : EXIT_ENVIRONMENT;
}
