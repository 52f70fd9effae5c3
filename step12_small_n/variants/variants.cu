/* step12_small_n/variants: the kernels this step was chosen from, timed side by side.
 *
 * Each variant changes one thing in step12's grid kernel (reduce.cu): how a float4 is loaded,
 * how many threads a block has, how many float4 a thread reads, how the blocks finish, or
 * whether the grid is persistent (step09's shape: a grid that fills the GPU once and strides
 * over the input). All are timed like every step (the L2 flushed before each run, the input's
 * copies read in turn, CUDA events, the median) in one process with cub::DeviceReduce::Sum,
 * and each total is checked against the host's exact sum.
 *   make step12-variants && ./step12_small_n/variants/run -n 2^20..2^32 [--iters I]
 * It needs inputs that start on a 16-byte boundary and n a multiple of 4 (powers of two). */
#include <cstdint>
#include <cstring>
#include <cuda/atomic>

#include "toolbox.h"

enum { WARP_SIZE = 32, FLOATS_PER_VECTOR = 4, PARTIALS_PER_THREAD = 4 };
enum load { LOAD_LDG, LOAD_NO_ALLOCATE, LOAD_EVICT_FIRST };
enum finish_kind { FINISH_TICKET, FINISH_ATOMIC };
static const unsigned FULL_WARP = 0xffffffffu;

template <int LOAD>
static __device__ float4 load(const float4 *p)
{
    float4 v;
    if (LOAD == LOAD_LDG) return __ldg(p);
    if (LOAD == LOAD_NO_ALLOCATE) {
        asm("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
            : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
        return v;
    }
    uint64_t policy;    /* evict first from L2 too: the bytes are not read again */
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
    return v;
}

static __device__ float4 plus(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
static __device__ float lanes(float4 v) { return (v.x + v.y) + (v.z + v.w); }

template <unsigned THREADS>
static __device__ float block_sum(float value)
{
    __shared__ float warp_sums[THREADS / WARP_SIZE];
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2) value += __shfl_down_sync(FULL_WARP, value, offset);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < THREADS / WARP_SIZE ? warp_sums[lane] : 0.0f;
        for (unsigned offset = WARP_SIZE / 2; offset > 0; offset /= 2) value += __shfl_down_sync(FULL_WARP, value, offset);
    }
    return value;
}

/* The finish after every block has its sum: step12's ticket, or an atomicAdd per block. */
template <unsigned THREADS, int FINISH>
static __device__ void finish(float sum, float *block_sums, unsigned *ticket, float *total)
{
    if (FINISH == FINISH_ATOMIC) {
        if (threadIdx.x == 0) atomicAdd(total, sum);
        return;
    }
    bool last = false;
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = sum;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
        last = counter.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    if (!__syncthreads_or(last)) return;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float4 *sums = reinterpret_cast<const float4 *>(block_sums);
    for (unsigned i = threadIdx.x; i < gridDim.x / FLOATS_PER_VECTOR; i += THREADS) acc = plus(acc, sums[i]);
    unsigned rest = gridDim.x / FLOATS_PER_VECTOR * FLOATS_PER_VECTOR + threadIdx.x;
    sum = block_sum<THREADS>(lanes(acc) + (rest < gridDim.x ? block_sums[rest] : 0.0f));
    if (threadIdx.x == 0) {
        *total = sum;
        *ticket = 0;
    }
}

/* Short blocks, as in step12: each thread reads VECTORS float4 once. */
template <unsigned THREADS, int VECTORS, int LOAD, int FINISH>
__global__ void __launch_bounds__(THREADS) short_blocks(const float4 *in, size_t vectors, float *block_sums,
                                                        unsigned *ticket, float *total)
{
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
__global__ void __launch_bounds__(THREADS) persistent(const float4 *in, size_t vectors, float *block_sums,
                                                      unsigned *ticket, float *total)
{
    size_t stride = (size_t)gridDim.x * THREADS * VECTORS;
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (size_t i = (size_t)blockIdx.x * THREADS * VECTORS + threadIdx.x; i < vectors; i += stride) {
        float4 group[VECTORS];
#pragma unroll
        for (int k = 0; k < VECTORS; k++)
            group[k] = i + k * THREADS < vectors ? __ldg(in + i + k * THREADS) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < VECTORS; k++) acc = plus(acc, group[k]);
    }
    finish<THREADS, FINISH_TICKET>(block_sum<THREADS>(lanes(acc)), block_sums, ticket, total);
}

typedef void (*kernel)(const float4 *, size_t, float *, unsigned *, float *);
struct kernel_variant {
    const char *name, *about;
    kernel launch;
    unsigned threads, vectors;
    bool persistent_grid, atomic;
};
static const struct kernel_variant VARIANTS[] = {
    {"step12", "512 threads x 8 float4, L1::no_allocate, ticket (the step's choice)",
     short_blocks<512, 8, LOAD_NO_ALLOCATE, FINISH_TICKET>, 512, 8, false, false},
    {"ldg", "the same with plain __ldg loads", short_blocks<512, 8, LOAD_LDG, FINISH_TICKET>, 512, 8, false, false},
    {"evict-first", "the same, also evict-first from L2", short_blocks<512, 8, LOAD_EVICT_FIRST, FINISH_TICKET>, 512, 8, false, false},
    {"256-threads", "256 threads x 8 float4", short_blocks<256, 8, LOAD_NO_ALLOCATE, FINISH_TICKET>, 256, 8, false, false},
    {"1024-threads", "1024 threads x 8 float4", short_blocks<1024, 8, LOAD_NO_ALLOCATE, FINISH_TICKET>, 1024, 8, false, false},
    {"4-vectors", "512 threads x 4 float4 (64 bytes a thread)", short_blocks<512, 4, LOAD_NO_ALLOCATE, FINISH_TICKET>, 512, 4, false, false},
    {"16-vectors", "512 threads x 16 float4 (256 bytes a thread)", short_blocks<512, 16, LOAD_NO_ALLOCATE, FINISH_TICKET>, 512, 16, false, false},
    {"atomic-add", "step12's loads, an atomicAdd per block (order varies)", short_blocks<512, 8, LOAD_NO_ALLOCATE, FINISH_ATOMIC>, 512, 8, false, true},
    {"persistent", "a grid that fills the GPU once, 256 threads, 4 float4 per iteration", persistent<256, 4>, 256, 4, true, false},
};
enum { VARIANT_COUNT = sizeof VARIANTS / sizeof VARIANTS[0] };

static unsigned grid_of(const struct kernel_variant *v, size_t vectors, const struct device_info *device)
{
    size_t per_block = (size_t)v->threads * v->vectors, blocks = (vectors + per_block - 1) / per_block;
    int resident = 0;
    if (v->persistent_grid && CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, v->launch, (int)v->threads, 0)) &&
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
    size_t finish = v->atomic ? blocks : blocks / (FLOATS_PER_VECTOR * v->threads) + 2 * WARP_SIZE;
    return (unsigned)(per_thread + 2 + 2 * WARP_SIZE + finish);
}

struct scratch {
    float *block_sums, *total;
    unsigned *ticket;
};

/* Times one variant like a step; checks its last total against the reference. */
static bool time_variant(const struct kernel_variant *v, struct input *input, const struct options *o, struct timer *timer,
                         const struct scratch *s, const struct device_info *device, struct timing *timing, float *total)
{
    size_t vectors = input->n / FLOATS_PER_VECTOR;
    unsigned blocks = grid_of(v, vectors, device);
    for (int run = 0; run < o->warmup + o->iters; run++) {
        if (v->atomic) CUDA_TRY(cudaMemsetAsync(s->total, 0, sizeof(float), 0));
        if (!timer_start(timer)) return false;
        v->launch<<<blocks, v->threads>>>((const float4 *)input->copies[run % input->count], vectors, s->block_sums,
                                          s->ticket, s->total);
        if (!timer_stop(timer, run >= o->warmup)) return false;
    }
    *timing = timer_summary(timer);
    return total_read(s->total, total);
}

static const struct step_info STEP = {"step12-variants",
    "step12's kernel and the variants it was chosen from, beside CUB", 512, 512, 512, false, false, NULL, NULL};

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
    bool ok = CUDA_OK(cudaMalloc((void **)&s.block_sums, (most_blocks + 1) * sizeof(float))) &&
              CUDA_OK(cudaMalloc((void **)&s.ticket, sizeof(unsigned))) && CUDA_OK(cudaMemset(s.ticket, 0, sizeof(unsigned))) &&
              timer_make(&timer, &device, o.iters);
    s.total = s.block_sums + most_blocks;
    printf("%s, CUDA %d.%d: %% of the peak %.0f GB/s, and speed relative to cub::DeviceReduce::Sum\n", device.name,
           device.runtime_version / 1000, device.runtime_version % 1000 / 10, device.peak_gb_per_s);
    for (int v = 0; ok && v < VARIANT_COUNT; v++) printf("  %-13s %s\n", VARIANTS[v].name, VARIANTS[v].about);
    printf("%12s %10s", "n", "cub");
    for (int v = 0; ok && v < VARIANT_COUNT; v++) printf(" %13s", VARIANTS[v].name);
    printf("\n");
    for (size_t n = o.n; ok && n <= o.n_last; n *= 2) {
        struct input input = {};
        struct timing cub, t[VARIANT_COUNT];
        float total;
        ok = input_create(&input, &o, n, &device) && cub_time(&input, &o, &timer, &cub, NULL);
        printf("%12zu %9.2f%%", n, ok ? 100 * effective_gb_per_s(n * 4.0, cub.median_ms) / device.peak_gb_per_s : 0);
        for (int v = 0; ok && v < VARIANT_COUNT; v++) {
            ok = time_variant(&VARIANTS[v], &input, &o, &timer, &s, &device, &t[v], &total);
            bool right = result_within(total, &input.reference, error_bound(&input.reference, depth(&VARIANTS[v], n, &device)));
            if (!right) worst = EXIT_WRONG;
            printf(" %6.2f%% %4.2fx%s", 100 * effective_gb_per_s(n * 4.0, t[v].median_ms) / device.peak_gb_per_s,
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
