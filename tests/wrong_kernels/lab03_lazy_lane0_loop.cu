/* Lazy kernel for lab03 (step05_unroll_warp): correct, and the lesson skipped.
 *
 * The shortcut: TODO(lab3) written as one __syncwarp() (so that the compiled code holds one,
 * as the checker asked), then lane 0 adds the 32 partial sums one after another while the
 * other 31 lanes of the last warp wait: no level of the warp's tree at all, where lab03 asks
 * for every lane of the last warp to work at each level (16, 8, 4, 2, 1). The sums are right,
 * the sanitizers clean; on an H200 it ran at 0.99x step05's kernel (the last warp is a small
 * part of the time) and passed the grader before it had a lesson column.
 * The checker must say: lesson: every lane of the last warp working in each level ... lane 0
 * adds the 32 sums (`lesson` 0); every other column 1. */
#include "reduce.h"

enum { WARP_SIZE = 32 };

/* The last warp's code, in the order of step05's variants in host.c. */
enum last_warp {
    LAST_WARP_SYNCWARP,
    LAST_WARP_VOLATILE,
    LAST_WARP_WRONG_LOOP,
    LAST_WARP_WRONG_UNROLLED,
};

/* The CUDA guide's pattern. `partial[t] += partial[t + len]; __syncwarp();` alone would
 * still race: inside that one statement lane t + len writes partial[t + len] while lane t
 * reads it. So every level reads into a register, waits for the warp, writes, waits. */
static __device__ void last_warp_syncwarp(float *partial, unsigned t)
{
    __syncwarp();
    if (t == 0) {
        float sum = partial[0];
        for (unsigned k = 1; k < WARP_SIZE; k++) sum += partial[k];
        partial[0] = sum;
    }
}

/* Document 003's unrolled tail. With Shared = volatile float each += is a load from and a
 * store to shared memory, in program order; with Shared = float the compiler may keep
 * values in registers and read a neighbour's slot before the neighbour has written it
 * (the document's 做法 2; the document runs it in lanes t < 16, the fix in t < 32). Both
 * assume that all 32 lanes read before any of them writes: lock-step. */
template <typename Shared>
static __device__ void last_warp_lockstep(Shared *partial, unsigned t)
{
    partial[t] += partial[t + 16];
    partial[t] += partial[t + 8];
    partial[t] += partial[t + 4];
    partial[t] += partial[t + 2];
    partial[t] += partial[t + 1];
}

/* Document 003's 做法 1: step04's loop with `if (len>16 ) __syncthreads();`. Cut at
 * len = 16, its last five levels are this loop: the same additions, no barrier between. */
static __device__ void last_warp_wrong_loop(float *partial, unsigned t)
{
    for (unsigned len = WARP_SIZE / 2; len > 0; len /= 2)
        if (t < len) partial[t] += partial[t + len];
}

/* Lanes t < 32 of warp 0; leaves the block's sum in partial[0]. Lanes 16..31 read
 * partial[32..47] and compute sums nobody reads: hence at least 64 threads a block. */
template <enum last_warp FORM>
static __device__ void reduce_last_warp(float *partial, unsigned t)
{
    if constexpr (FORM == LAST_WARP_SYNCWARP)
        last_warp_syncwarp(partial, t);
    else if constexpr (FORM == LAST_WARP_VOLATILE)
        last_warp_lockstep<volatile float>(partial, t);
    else if constexpr (FORM == LAST_WARP_WRONG_LOOP)
        last_warp_wrong_loop(partial, t);
    else
        last_warp_lockstep<float>(partial, t);
}

template <enum last_warp FORM>
__global__ void reduce_unroll_warp(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + t;
    float first = i < n ? in[i] : 0.0f;
    float second = i + blockDim.x < n ? in[i + blockDim.x] : 0.0f;
    partial[t] = first + second;
    __syncthreads();
    for (unsigned len = blockDim.x / 2; len >= WARP_SIZE; len /= 2) {
        if (t < len) partial[t] += partial[t + len];
        __syncthreads();
    }
    if (t < WARP_SIZE) reduce_last_warp<FORM>(partial, t);
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

typedef void (*block_kernel)(const float *in, size_t n, float *block_sums);

/* A kernel and its name as the source spells it: what the report names. */
struct named_kernel {
    block_kernel kernel;
    const char *name;
};
/* Indexed by the variant: the order of enum last_warp and of host.c's variants. */
static const struct named_kernel KERNELS_BY_VARIANT[] = {
    {KERNEL_AND_NAME(reduce_unroll_warp<LAST_WARP_SYNCWARP>)},
    {KERNEL_AND_NAME(reduce_unroll_warp<LAST_WARP_VOLATILE>)},
    {KERNEL_AND_NAME(reduce_unroll_warp<LAST_WARP_WRONG_LOOP>)},
    {KERNEL_AND_NAME(reduce_unroll_warp<LAST_WARP_WRONG_UNROLLED>)},
};
enum { VARIANT_COUNT = sizeof KERNELS_BY_VARIANT / sizeof KERNELS_BY_VARIANT[0] };

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, int variant, struct launched *launched)
{
    if (variant < 0 || variant >= VARIANT_COUNT) return cudaErrorInvalidValue;
    const struct named_kernel *chosen = &KERNELS_BY_VARIANT[variant];
    launched->kernel = chosen->name;
    chosen->kernel<<<blocks, threads, threads * sizeof(float)>>>(in, n, block_sums);
    return cudaGetLastError();
}
