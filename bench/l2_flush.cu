/* The flush reads a scratch buffer several times the L2's size. Reading, rather than
 * writing it with cudaMemsetAsync, leaves the L2 full of clean lines: the timed run that
 * follows can evict them for free, where dirty lines from a memset would have to be
 * written back to DRAM inside the timed region. */
#include "l2_flush.h"

#include "cuda_check.h"

enum { FLUSH_THREADS = 256, FLUSH_BLOCKS = 1024 };  /* enough warps to keep DRAM busy */
static const size_t BYTES_PER_VECTOR = sizeof(float4);

__global__ void read_to_evict(const float4 *scratch, size_t vectors, float *sink)
{
    float sum = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        float4 v = scratch[i];
        sum += v.x + v.y + v.z + v.w;
    }
    /* The scratch is all zeros, so this never stores; the compiler cannot know that, so it
     * must keep every load. */
    if (sum != 0.0f) *sink = sum;
}

static size_t scratch_bytes(size_t l2_bytes)
{
    size_t bytes = (size_t)L2_FLUSH_CAPACITIES * l2_bytes;
    return bytes - bytes % BYTES_PER_VECTOR;          /* whole float4s */
}

extern "C" size_t l2_flusher_bytes(size_t l2_bytes)
{
    return scratch_bytes(l2_bytes) + sizeof(float);
}

extern "C" bool l2_flusher_create(struct l2_flusher *flusher, size_t l2_bytes)
{
    flusher->scratch = NULL;
    flusher->sink = NULL;
    flusher->bytes = scratch_bytes(l2_bytes);
    if (flusher->bytes == 0) return true;           /* a GPU without L2: nothing to flush */
    if (!CUDA_OK(cudaMalloc(&flusher->scratch, flusher->bytes)) ||
        !CUDA_OK(cudaMalloc((void **)&flusher->sink, sizeof(float))) ||
        !CUDA_OK(cudaMemset(flusher->scratch, 0, flusher->bytes))) {
        l2_flusher_destroy(flusher);
        return false;
    }
    return true;
}

extern "C" void l2_flusher_destroy(struct l2_flusher *flusher)
{
    if (flusher->scratch != NULL) CUDA_OK(cudaFree(flusher->scratch));
    if (flusher->sink != NULL) CUDA_OK(cudaFree(flusher->sink));
    flusher->scratch = NULL;
    flusher->sink = NULL;
}

extern "C" cudaError_t l2_flush(const struct l2_flusher *flusher, cudaStream_t stream)
{
    if (flusher->scratch == NULL) return cudaSuccess;
    read_to_evict<<<FLUSH_BLOCKS, FLUSH_THREADS, 0, stream>>>(
        (const float4 *)flusher->scratch, flusher->bytes / BYTES_PER_VECTOR, flusher->sink);
    return cudaGetLastError();
}
