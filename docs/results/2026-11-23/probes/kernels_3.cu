// Kernel comparison 3 (2026-11-23, output in kernels_3.txt): step10_vector_loads' grid kernel as it
// was that day, with its block size, float4 per thread, load instruction (__ldg, L1::no_allocate,
// evict-first from L2), the least blocks per SM and the finish (ticket or atomicAdd) as template
// parameters. The comment below is the step's own header of that day.
/* step10_vector_loads — read as fast as the memory allows
 *
 * Before: step09 finished in one launch, but each of its threads kept four 4-byte loads in
 *         flight and then waited for them before the next four: a grid that fills the GPU
 *         once still leaves DRAM idle between a warp's batches, and every float costs one load
 *         instruction and one address computation.
 * Here:   every load is a float4: 16 bytes, so a warp's load instruction covers 512
 *         contiguous bytes. Each thread issues VECTORS_PER_THREAD of them (128 bytes) before it
 *         adds any, and reads nothing else: blocks are short and many, launched in address
 *         order, so the grid streams through DRAM like a single reader with thousands of
 *         requests in flight, and an SM that finishes a block starts the next at once. The
 *         finish is step09's acquire-release ticket; the last block reads the block sums as
 *         float4 too. A float4 must start on a 16-byte boundary: an input pointer that does
 *         not is split into a head (0 to 3 floats), a body of float4, and a tail (0 to 3
 *         floats); the grid's first threads add the head and the tail. Up to
 *         ONE_BLOCK_ELEMENTS floats a kernel of its own does it all: one block whose size the
 *         compiler knows, one group of loads per thread, no ticket.
 *         Deterministic: each element has a fixed thread and every sum a fixed order, so the
 *         same input gives the same bits on every run. --variant atomic-add trades that for
 *         a shorter finish: each block atomicAdd()s its sum into the total.
 * Profile: LDG.E.128 in the SASS; for large n, DRAM throughput near its peak and warps
 *         stalled mostly on "long scoreboard" (waiting for memory, which is the goal); for
 *         small n the time is one launch, one trip to memory, the ticket and the read of the
 *         block sums from L2. */
#include <stdint.h>
#include <cuda/atomic>

#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cub/device/device_reduce.cuh>
enum { FLOATS_PER_VECTOR = 4, SUM_VECTORS_IN_FLIGHT = 4, VARIANT_TICKET = 0, VARIANT_ATOMIC_ADD = 1, ONE_BLOCK_THREADS = 256, ONE_BLOCK_VECTORS = 4 };
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3);} } while (0)
template <int HINT> __device__ __forceinline__ float4 load4(const float4 *p) {
    float4 v;
    if (HINT == 0) return __ldg(p);
    if (HINT == 1) { asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
    return v;
}

enum { WARP_SIZE = 32 };
static const unsigned FULL_WARP = 0xffffffffu;

/* in[0..n) as float4 can read it: floats up to the first 16-byte boundary, then float4,
 * then the floats after the last whole float4. */
struct split_input {
    const float *head;
    unsigned head_length;            /* 0..3 */
    const float4 *body;
    size_t body_vectors;
    const float *tail;
    unsigned tail_length;            /* 0..3 */
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

/* A fixed tree of pairs: the same group is always added in the same order. */
template <int COUNT>
static __device__ float4 sum_group(float4 (&group)[COUNT])
{
#pragma unroll
    for (int width = COUNT / 2; width > 0; width /= 2)
#pragma unroll
        for (int k = 0; k < width; k++) group[k] = plus(group[k], group[k + width]);
    return group[0];
}

static __device__ float sum_lanes(float4 v) { return (v.x + v.y) + (v.z + v.w); }

/* Lane 0 ends with the sum of the lanes below 2 * first_offset. */
static __device__ float shuffle_sum(float value, unsigned first_offset)
{
#pragma unroll
    for (unsigned offset = first_offset; offset > 0; offset /= 2)
        value += __shfl_down_sync(FULL_WARP, value, offset);
    return value;
}

/* step08's block sum, in thread 0, for a block size known when compiling. */
template <unsigned THREADS>
static __device__ float block_sum(float value)
{
    static_assert(THREADS % WARP_SIZE == 0 && THREADS <= WARP_SIZE * WARP_SIZE, "whole warps, at most 32");
    __shared__ float warp_sums[THREADS / WARP_SIZE];
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    value = shuffle_sum(value, WARP_SIZE / 2);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0 && THREADS > WARP_SIZE)
        value = shuffle_sum(lane < THREADS / WARP_SIZE ? warp_sums[lane] : 0.0f, THREADS / WARP_SIZE / 2);
    return value;
}

/* This thread's VECTORS_PER_THREAD float4: block b owns THREADS * VECTORS_PER_THREAD
 * consecutive vectors, thread t the ones at t, t + THREADS, ... so that each load
 * instruction of a warp covers 512 contiguous bytes. The grid's first threads also add the
 * head and the tail. */
template <unsigned THREADS, int VECTORS_PER_THREAD, int HINT>
static __device__ float thread_sum(const float *in, size_t n)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    struct split_input split = split_at_alignment(in, n);
    size_t first = (size_t)blockIdx.x * THREADS * VECTORS_PER_THREAD + threadIdx.x;
    size_t thread = (size_t)blockIdx.x * THREADS + threadIdx.x;
    float4 group[VECTORS_PER_THREAD];
    if (first + (VECTORS_PER_THREAD - 1) * THREADS < split.body_vectors) {
#pragma unroll
        for (int k = 0; k < VECTORS_PER_THREAD; k++) group[k] = load4<HINT>(split.body + first + k * THREADS);
    } else { /* the last block, cut short by the end of the body */
#pragma unroll
        for (int k = 0; k < VECTORS_PER_THREAD; k++)
            group[k] = first + k * THREADS < split.body_vectors ? load4<HINT>(split.body + first + k * THREADS) : zero;
    }
    float edges = (thread < split.head_length ? split.head[thread] : 0.0f) +
                  (thread < split.tail_length ? split.tail[thread] : 0.0f);
    return sum_lanes(sum_group(group)) + edges;
}

/* The last block reads the block sums as float4, SUM_VECTORS_IN_FLIGHT at once per thread,
 * each thread a fixed subset. Plain loads, not __ldg: other blocks wrote them during this
 * launch, and the read-only path may only be used for data that no one writes meanwhile. */
template <unsigned THREADS>
static __device__ float sum_of_block_sums(const float *block_sums, unsigned count)
{
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const float4 *vectors = reinterpret_cast<const float4 *>(block_sums);
    unsigned whole = count / FLOATS_PER_VECTOR;
    float4 acc = zero;
    for (unsigned i = threadIdx.x; i < whole; i += SUM_VECTORS_IN_FLIGHT * THREADS) {
        float4 group[SUM_VECTORS_IN_FLIGHT];
#pragma unroll
        for (int k = 0; k < SUM_VECTORS_IN_FLIGHT; k++) group[k] = i + k * THREADS < whole ? vectors[i + k * THREADS] : zero;
        acc = plus(acc, sum_group(group));
    }
    unsigned rest = whole * FLOATS_PER_VECTOR + threadIdx.x;
    return block_sum<THREADS>(sum_lanes(acc) + (rest < count ? block_sums[rest] : 0.0f));
}

/* step09's guard in its acquire-release form. */
static __device__ bool took_last_ticket(unsigned *ticket_counter)
{
    bool last = false;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(*ticket_counter);
        last = ticket.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    return __syncthreads_or(last);
}

template <unsigned THREADS, int VECTORS_PER_THREAD, int HINT, int MINB, int VARIANT>
__global__ void __launch_bounds__(THREADS, MINB)
reduce_vectors(const float *in, size_t n, float *block_sums, unsigned *ticket_counter, float *total)
{
    float sum = block_sum<THREADS>(thread_sum<THREADS, VECTORS_PER_THREAD, HINT>(in, n));
    if (VARIANT == VARIANT_ATOMIC_ADD) {
        if (threadIdx.x == 0) atomicAdd(total, sum);
        return;
    }
    if (gridDim.x == 1) {            /* a small n: this block's sum is the total */
        if (threadIdx.x == 0) *total = sum;
        return;
    }
    if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
    if (!took_last_ticket(ticket_counter)) return;  /* also the barrier block_sum needs again */
    sum = sum_of_block_sums<THREADS>(block_sums, gridDim.x);
    if (threadIdx.x == 0) {
        *total = sum;
        *ticket_counter = 0;
    }
}


__global__ void flush_read(const float4 *s, size_t v, float *sink) {
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < v; i += (size_t)gridDim.x * blockDim.x) acc += s[i].x + s[i].y + s[i].z + s[i].w;
    if (acc != 0.f) *sink = acc;
}
__global__ void fill(float *d, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = seed + i * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; z ^= z >> 31;
        d[i] = (float)(z % 100);
    }
}
struct Ctx { float *buf[4]; int nbuf; size_t n; float4 *flush; size_t flush_vecs; float *sink; float *partials; unsigned *counter; float *total; void *cub_temp; size_t cub_bytes; cudaEvent_t e0, e1; };
typedef void (*Launch)(Ctx &, const float *);
template <int T, int V, int H, int M, int VAR> void run_k(Ctx &c, const float *in) {
    size_t per = (size_t)T * V * 4;
    size_t blocks = (c.n + per - 1) / per;
    if (VAR == VARIANT_ATOMIC_ADD) CK(cudaMemsetAsync(c.total, 0, 4));
    reduce_vectors<T, V, H, M, VAR><<<(unsigned)blocks, T>>>(in, c.n, c.partials, c.counter, c.total);
}
void run_cub(Ctx &c, const float *in) {
    if (c.n <= (size_t)INT32_MAX) CK(cub::DeviceReduce::Sum(c.cub_temp, c.cub_bytes, in, c.total, (int)c.n));
    else CK(cub::DeviceReduce::Sum(c.cub_temp, c.cub_bytes, in, c.total, (long long)c.n));
}
struct K { const char *name; Launch f; };
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); size_t m = v.size() / 2; return v.size() % 2 ? v[m] : (v[m-1] + v[m]) / 2; }
static double time_it(Ctx &c, Launch f, int samples, float *result) {
    std::vector<double> t; int which = 0;
    for (int i = 0; i < samples + 3; i++) {
        const float *in = c.buf[which]; which = (which + 1) % c.nbuf;
        flush_read<<<1024, 256>>>(c.flush, c.flush_vecs, c.sink);
        CK(cudaEventRecord(c.e0)); f(c, in); CK(cudaEventRecord(c.e1)); CK(cudaEventSynchronize(c.e1)); CK(cudaGetLastError());
        float ms; CK(cudaEventElapsedTime(&ms, c.e0, c.e1)); if (i >= 3) t.push_back(ms);
    }
    CK(cudaMemcpy(result, c.total, 4, cudaMemcpyDeviceToHost));
    return median(t);
}
int main() {
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    int clk, bus, l2; CK(cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, 0)); CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0)); CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    double peak = 2.0 * clk * 1e3 * bus / 8 / 1e9;
    printf("# %s peak %.0f GB/s\n", p.name, peak);
    Ctx c = {}; c.flush_vecs = (size_t)4 * l2 / 16;
    CK(cudaMalloc(&c.flush, c.flush_vecs * 16)); CK(cudaMemset(c.flush, 0, c.flush_vecs * 16)); CK(cudaMalloc(&c.sink, 4));
    CK(cudaMalloc(&c.partials, (size_t)4 << 22)); CK(cudaMalloc(&c.counter, 4)); CK(cudaMemset(c.counter, 0, 4)); CK(cudaMalloc(&c.total, 4));
    CK(cudaEventCreate(&c.e0)); CK(cudaEventCreate(&c.e1));
    K ks[] = {
        {"cub", run_cub},
        {"t512v8", run_k<512, 8, 0, 1, 0>}, {"t512v8b", run_k<512, 8, 0, 1, 0>},
        {"t256v4", run_k<256, 4, 0, 1, 0>}, {"t256v8", run_k<256, 8, 0, 1, 0>}, {"t256v16", run_k<256, 16, 0, 1, 0>},
        {"t512v4", run_k<512, 4, 0, 1, 0>}, {"t512v16", run_k<512, 16, 0, 1, 0>},
        {"t1024v4", run_k<1024, 4, 0, 1, 0>}, {"t1024v8", run_k<1024, 8, 0, 1, 0>}, {"t1024v16", run_k<1024, 16, 0, 1, 0>},
        {"t512v8na", run_k<512, 8, 1, 1, 0>}, {"t512v8ef", run_k<512, 8, 2, 1, 0>},
        {"t1024v8na", run_k<1024, 8, 1, 1, 0>}, {"t1024v8ef", run_k<1024, 8, 2, 1, 0>},
        {"t512v4m4", run_k<512, 4, 0, 4, 0>}, {"t256v8m8", run_k<256, 8, 0, 8, 0>}, {"t1024v4m2", run_k<1024, 4, 0, 2, 0>},
        {"t512v8at", run_k<512, 8, 0, 1, 1>}, {"t1024v8at", run_k<1024, 8, 0, 1, 1>},
    };
    const int NK = sizeof ks / sizeof ks[0];
    int logs[] = {20, 22, 23, 24, 25, 26, 28, 30, 32};
    printf("%-6s", "log2n"); for (int k = 0; k < NK; k++) printf(" %10s", ks[k].name); printf("\n");
    for (int lg : logs) {
        c.n = (size_t)1 << lg; c.nbuf = lg >= 31 ? 2 : 4;
        for (int b = 0; b < c.nbuf; b++) { CK(cudaMalloc(&c.buf[b], c.n * 4)); fill<<<4096, 256>>>(c.buf[b], c.n, 2026); }
        c.cub_bytes = 0;
        if (c.n <= (size_t)INT32_MAX) CK(cub::DeviceReduce::Sum(nullptr, c.cub_bytes, c.buf[0], c.total, (int)c.n));
        else CK(cub::DeviceReduce::Sum(nullptr, c.cub_bytes, c.buf[0], c.total, (long long)c.n));
        CK(cudaMalloc(&c.cub_temp, c.cub_bytes ? c.cub_bytes : 1));
        int samples = lg <= 24 ? 300 : lg <= 26 ? 150 : 40;
        double t[64]; float r[64];
        for (int k = 0; k < NK; k++) t[k] = time_it(c, ks[k].f, samples, &r[k]);
        printf("%-6d", lg); for (int k = 0; k < NK; k++) printf(" %10.2f", t[k] * 1e3); printf("  us\n%-6s", "");
        for (int k = 0; k < NK; k++) printf(" %9.2f%%", 100.0 * c.n * 4 / (t[k] * 1e-3) / 1e9 / peak); printf("\n%-6s", "");
        for (int k = 0; k < NK; k++) printf(" %9.3fx", t[0] / t[k]); printf("\n%-6s", "");
        for (int k = 0; k < NK; k++) printf(" %10s", fabs(r[k] - r[0]) <= 2e-6 * fabs(r[0]) ? "ok" : "DIFF"); printf("\n");
        fflush(stdout);
        CK(cudaFree(c.cub_temp)); for (int b = 0; b < c.nbuf; b++) CK(cudaFree(c.buf[b]));
    }
    return 0;
}
