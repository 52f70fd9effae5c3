// Kernel comparison 2 (2026-11-23, output in kernels_2.txt): short-block kernels with a two-level
// finish, block and vector counts, load hints, an empty kernel (the floor of a timed launch).
// step10_vector_loads/variants/ is the maintained form of such a comparison.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda/atomic>
#include <cub/device/device_reduce.cuh>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3);} } while (0)

static const unsigned FULL = 0xffffffffu;

__device__ __forceinline__ float4 add4(float4 a, float4 b) { return make_float4(a.x+b.x, a.y+b.y, a.z+b.z, a.w+b.w); }
__device__ __forceinline__ float hsum(float4 a) { return (a.x + a.y) + (a.z + a.w); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(FULL, v, o);
    return v;
}

template <int THREADS>
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float ws[32];
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) ws[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < THREADS / 32 ? ws[lane] : 0.f;
#pragma unroll
        for (int o = THREADS / 64; o > 0; o /= 2) v += __shfl_down_sync(FULL, v, o);
    }
    return v;
}

__device__ __forceinline__ bool last_ticket(unsigned *counter) {
    bool last = false;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> t(*counter);
        last = t.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    return __syncthreads_or(last);
}

template <int HINT>
__device__ __forceinline__ float4 load4(const float4 *p) {
    float4 v;
    if (HINT == 0) return __ldg(p);
    if (HINT == 1) asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    if (HINT == 2) asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    if (HINT == 3) {
        uint64_t policy;
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
        asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
    }
    return v;
}

// The last block: partials as float4 (count padded with zeros by the kernel), 4 in flight.
template <int THREADS>
__device__ float sum_partials(const float *partials, unsigned count) {
    const float4 *p4 = reinterpret_cast<const float4 *>(partials);
    unsigned vecs = count / 4;
    float4 acc = make_float4(0, 0, 0, 0);
    for (unsigned i = threadIdx.x; i < vecs; i += 4 * THREADS) {
        float4 g[4];
#pragma unroll
        for (int k = 0; k < 4; k++) g[k] = i + k * THREADS < vecs ? p4[i + k * THREADS] : make_float4(0, 0, 0, 0);
        acc = add4(acc, add4(add4(g[0], g[1]), add4(g[2], g[3])));
    }
    float s = hsum(acc);
    for (unsigned i = vecs * 4 + threadIdx.x; i < count; i += THREADS) s += partials[i];
    return block_sum<THREADS>(s);
}

// Non-persistent: each block reads THREADS*VECS float4 once. n multiple of 4 assumed (probe).
template <int THREADS, int VECS, bool ATOMIC>
__global__ void __launch_bounds__(THREADS) chunk(const float4 *in, size_t vecs, float *partials, unsigned *counter, float *total) {
    size_t base = (size_t)blockIdx.x * THREADS * VECS + threadIdx.x;
    float4 g[VECS];
    if (base + (VECS - 1) * THREADS < vecs) {
#pragma unroll
        for (int k = 0; k < VECS; k++) g[k] = __ldg(in + base + k * THREADS);
    } else {
#pragma unroll
        for (int k = 0; k < VECS; k++) g[k] = base + k * THREADS < vecs ? __ldg(in + base + k * THREADS) : make_float4(0, 0, 0, 0);
    }
    float4 a = g[0];
#pragma unroll
    for (int k = 1; k < VECS; k++) a = add4(a, g[k]);
    float s = block_sum<THREADS>(hsum(a));
    if (ATOMIC) {
        if (threadIdx.x == 0) atomicAdd(total, s);
        return;
    }
    if (gridDim.x == 1) { if (threadIdx.x == 0) *total = s; return; }
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
    if (!last_ticket(counter)) return;
    float t = sum_partials<THREADS>(partials, gridDim.x);
    if (threadIdx.x == 0) { *total = t; *counter = 0; }
}

template <int THREADS>
__device__ __forceinline__ bool last_of(unsigned *counter, unsigned members) {
    bool last = false;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> t(*counter);
        last = t.fetch_add(1u, cuda::memory_order_acq_rel) == members - 1;
    }
    return __syncthreads_or(last);
}
// Two-level finish: the last block of each GROUP consecutive blocks sums the group's partials.
template <int THREADS, int VECS, int GROUP, int HINT>
__global__ void __launch_bounds__(THREADS) chunk2(const float4 *in, size_t vecs, float *partials, unsigned *counter, float *total) {
    size_t base = (size_t)blockIdx.x * THREADS * VECS + threadIdx.x;
    float4 g[VECS];
    if (base + (VECS - 1) * THREADS < vecs) {
#pragma unroll
        for (int k = 0; k < VECS; k++) g[k] = load4<HINT>(in + base + k * THREADS);
    } else {
#pragma unroll
        for (int k = 0; k < VECS; k++) g[k] = base + k * THREADS < vecs ? load4<HINT>(in + base + k * THREADS) : make_float4(0, 0, 0, 0);
    }
    float4 a = g[0];
#pragma unroll
    for (int k = 1; k < VECS; k++) a = add4(a, g[k]);
    float s = block_sum<THREADS>(hsum(a));
    if (gridDim.x == 1) { if (threadIdx.x == 0) *total = s; return; }
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
    unsigned groups = (gridDim.x + GROUP - 1) / GROUP;
    unsigned group = blockIdx.x / GROUP;
    unsigned members = min(GROUP, gridDim.x - group * GROUP);
    float *group_sums = partials + (1u << 22) - 4096;   // probe: far from the block partials
    unsigned *group_counters = counter + 1;
    if (groups > 1) {
        if (!last_of<THREADS>(group_counters + group, members)) return;
        float t = 0.f;
        for (unsigned i = threadIdx.x; i < members; i += THREADS) t += partials[group * GROUP + i];
        t = block_sum<THREADS>(t);
        if (threadIdx.x == 0) { group_sums[group] = t; group_counters[group] = 0; }
        if (!last_of<THREADS>(counter, groups)) return;
        float u = 0.f;
        for (unsigned i = threadIdx.x; i < groups; i += THREADS) u += group_sums[i];
        u = block_sum<THREADS>(u);
        if (threadIdx.x == 0) { *total = u; *counter = 0; }
    } else {
        if (!last_of<THREADS>(counter, gridDim.x)) return;
        float t = sum_partials<THREADS>(partials, gridDim.x);
        if (threadIdx.x == 0) { *total = t; *counter = 0; }
    }
}
__global__ void empty_kernel() {}

// Persistent grid-stride (today's step09 shape): VECS float4 per iteration, grid from occupancy.
template <int THREADS, int VECS>
__global__ void __launch_bounds__(THREADS) persistent(const float4 *in, size_t vecs, float *partials, unsigned *counter, float *total) {
    const size_t stride = (size_t)gridDim.x * THREADS * VECS;
    size_t i = (size_t)blockIdx.x * THREADS * VECS + threadIdx.x;
    float4 acc = make_float4(0, 0, 0, 0);
    float4 g[VECS];
    for (; i + (VECS - 1) * THREADS < vecs; i += stride) {
#pragma unroll
        for (int k = 0; k < VECS; k++) g[k] = __ldg(in + i + k * THREADS);
#pragma unroll
        for (int k = 1; k < VECS; k++) g[0] = add4(g[0], g[k]);
        acc = add4(acc, g[0]);
    }
    if (i < vecs) {
#pragma unroll
        for (int k = 0; k < VECS; k++) g[k] = i + k * THREADS < vecs ? __ldg(in + i + k * THREADS) : make_float4(0, 0, 0, 0);
#pragma unroll
        for (int k = 1; k < VECS; k++) g[0] = add4(g[0], g[k]);
        acc = add4(acc, g[0]);
    }
    float s = block_sum<THREADS>(hsum(acc));
    if (gridDim.x == 1) { if (threadIdx.x == 0) *total = s; return; }
    if (threadIdx.x == 0) partials[blockIdx.x] = s;
    if (!last_ticket(counter)) return;
    float t = sum_partials<THREADS>(partials, gridDim.x);
    if (threadIdx.x == 0) { *total = t; *counter = 0; }
}

__global__ void fill(float *d, size_t n, uint64_t seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = seed + i * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; z ^= z >> 31;
        d[i] = (float)(z % 100);
    }
}
__global__ void flush_read(const float4 *s, size_t v, float *sink) {
    float acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < v; i += (size_t)gridDim.x * blockDim.x) acc += hsum(s[i]);
    if (acc != 0.f) *sink = acc;
}

struct Ctx {
    float *buf[4]; int nbuf; size_t n;
    float4 *flush; size_t flush_vecs; float *sink;
    float *partials; unsigned *counter; float *total;
    void *cub_temp; size_t cub_bytes;
    cudaEvent_t e0, e1;
    int sms;
};

typedef void (*Launch)(Ctx &, const float *);

template <int T, int V, bool A> void run_chunk(Ctx &c, const float *in) {
    size_t vecs = c.n / 4;
    size_t blocks = (vecs + (size_t)T * V - 1) / ((size_t)T * V);
    if (blocks == 0) blocks = 1;
    if (A) CK(cudaMemsetAsync(c.total, 0, 4));
    chunk<T, V, A><<<(unsigned)blocks, T>>>((const float4 *)in, vecs, c.partials, c.counter, c.total);
}
template <int T, int V> void run_persist(Ctx &c, const float *in) {
    static int resident = 0;
    if (!resident) CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, persistent<T, V>, T, 0));
    size_t vecs = c.n / 4;
    size_t cover = (vecs + (size_t)T * V - 1) / ((size_t)T * V);
    size_t fillb = (size_t)resident * c.sms;
    size_t blocks = std::min(cover, fillb);
    if (!blocks) blocks = 1;
    persistent<T, V><<<(unsigned)blocks, T>>>((const float4 *)in, vecs, c.partials, c.counter, c.total);
}
template <int T, int V, int G, int H> void run_chunk2(Ctx &c, const float *in) {
    size_t vecs = c.n / 4;
    size_t blocks = (vecs + (size_t)T * V - 1) / ((size_t)T * V);
    if (blocks == 0) blocks = 1;
    chunk2<T, V, G, H><<<(unsigned)blocks, T>>>((const float4 *)in, vecs, c.partials, c.counter, c.total);
}
void run_empty(Ctx &c, const float *) { empty_kernel<<<1, 32>>>(); }
void run_cub(Ctx &c, const float *in) {
    if (c.n <= (size_t)INT32_MAX) CK(cub::DeviceReduce::Sum(c.cub_temp, c.cub_bytes, in, c.total, (int)c.n));
    else CK(cub::DeviceReduce::Sum(c.cub_temp, c.cub_bytes, in, c.total, (long long)c.n));
}

struct K { const char *name; Launch f; };

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); size_t m = v.size() / 2; return v.size() % 2 ? v[m] : (v[m-1] + v[m]) / 2; }

static double time_it(Ctx &c, Launch f, int samples, float *result) {
    std::vector<double> t;
    int which = 0;
    for (int i = 0; i < samples + 3; i++) {
        const float *in = c.buf[which]; which = (which + 1) % c.nbuf;
        flush_read<<<1024, 256>>>(c.flush, c.flush_vecs, c.sink);
        CK(cudaEventRecord(c.e0));
        f(c, in);
        CK(cudaEventRecord(c.e1));
        CK(cudaEventSynchronize(c.e1));
        CK(cudaGetLastError());
        float ms; CK(cudaEventElapsedTime(&ms, c.e0, c.e1));
        if (i >= 3) t.push_back(ms);
    }
    CK(cudaMemcpy(result, c.total, 4, cudaMemcpyDeviceToHost));
    return median(t);
}

int main(int argc, char **argv) {
    int maxlog = argc > 1 ? atoi(argv[1]) : 30;
    int dev = 0; CK(cudaSetDevice(dev));
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, dev));
    int clk, bus, l2; CK(cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, dev));
    CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    double peak = 2.0 * clk * 1e3 * bus / 8 / 1e9;
    printf("# %s, %d SMs, peak %.0f GB/s, L2 %d MiB\n", p.name, p.multiProcessorCount, peak, l2 >> 20);
    Ctx c = {};
    c.sms = p.multiProcessorCount;
    c.flush_vecs = (size_t)4 * l2 / 16;
    CK(cudaMalloc(&c.flush, c.flush_vecs * 16)); CK(cudaMemset(c.flush, 0, c.flush_vecs * 16));
    CK(cudaMalloc(&c.sink, 4));
    CK(cudaMalloc(&c.partials, (size_t)4 << 22)); CK(cudaMemset(c.partials, 0, (size_t)4 << 22));
    CK(cudaMalloc(&c.counter, 4 * 8192)); CK(cudaMemset(c.counter, 0, 4 * 8192));
    CK(cudaMalloc(&c.total, 4));
    CK(cudaEventCreate(&c.e0)); CK(cudaEventCreate(&c.e1));
    K ks[] = {
        {"cub", run_cub},
        {"empty", run_empty},
        {"atomic512x3", run_chunk<512, 3, true>},
        {"chunk512x8", run_chunk<512, 8, false>},
        {"c2_512x8", run_chunk2<512, 8, 512, 0>},
        {"c2_512x8b", run_chunk2<512, 8, 512, 0>},
        {"c2_512x4", run_chunk2<512, 4, 512, 0>},
        {"c2_512x16", run_chunk2<512, 16, 512, 0>},
        {"c2_1024x8", run_chunk2<1024, 8, 1024, 0>},
        {"c2_256x16", run_chunk2<256, 16, 256, 0>},
        {"c2_256x8", run_chunk2<256, 8, 256, 0>},
        {"c2_128x8", run_chunk2<128, 8, 128, 0>},
        {"c2_512x8na", run_chunk2<512, 8, 512, 1>},
        {"c2_512x8pf", run_chunk2<512, 8, 512, 2>},
        {"c2_512x8ef", run_chunk2<512, 8, 512, 3>},
        {"c2_512x8g2k", run_chunk2<512, 8, 2048, 0>},
    };
    const int NK = sizeof ks / sizeof ks[0];
    int logs[] = {10, 12, 13, 14, 16, 18, 20, 21, 22, 23, 24, 25, 26, 28, 30, 32};
    printf("%-6s", "log2n");
    for (int k = 0; k < NK; k++) printf(" %12s", ks[k].name);
    printf("\n");
    for (int li = 0; li < (int)(sizeof logs / sizeof logs[0]); li++) {
        int lg = logs[li];
        if (lg > maxlog) break;
        c.n = (size_t)1 << lg;
        size_t freeb, totb; CK(cudaMemGetInfo(&freeb, &totb));
        c.nbuf = lg >= 31 ? 2 : 4;
        if ((size_t)c.nbuf * c.n * 4 + ((size_t)1 << 30) > freeb) c.nbuf = 1;
        for (int b = 0; b < c.nbuf; b++) { CK(cudaMalloc(&c.buf[b], c.n * 4)); fill<<<4096, 256>>>(c.buf[b], c.n, 2026); }
        c.cub_bytes = 0;
        if (c.n <= (size_t)INT32_MAX) CK(cub::DeviceReduce::Sum(nullptr, c.cub_bytes, c.buf[0], c.total, (int)c.n));
        else CK(cub::DeviceReduce::Sum(nullptr, c.cub_bytes, c.buf[0], c.total, (long long)c.n));
        CK(cudaMalloc(&c.cub_temp, c.cub_bytes ? c.cub_bytes : 1));
        int samples = lg <= 22 ? 300 : lg <= 26 ? 150 : 30;
        double t[64]; float r[64];
        for (int k = 0; k < NK; k++) t[k] = time_it(c, ks[k].f, samples, &r[k]);
        printf("%-6d", lg);
        for (int k = 0; k < NK; k++) printf(" %12.2f", t[k] * 1e3);
        printf("   us\n%-6s", "");
        for (int k = 0; k < NK; k++) printf(" %11.1f%%", 100.0 * c.n * 4 / (t[k] * 1e-3) / 1e9 / peak);
        printf("\n%-6s", "");
        for (int k = 0; k < NK; k++) printf(" %11.3fx", t[0] / t[k]);
        printf("\n%-6s", "");
        for (int k = 0; k < NK; k++) printf(" %12s", k == 1 || fabs(r[k] - r[0]) <= 1e-5 * fabs(r[0]) ? "ok" : "DIFF");
        printf("\n");
        fflush(stdout);
        CK(cudaFree(c.cub_temp));
        for (int b = 0; b < c.nbuf; b++) CK(cudaFree(c.buf[b]));
    }
    return 0;
}
