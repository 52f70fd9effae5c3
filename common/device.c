#include <string.h>

#include "toolbox.h"

static const double BYTES_PER_GB = 1e9, BYTES_PER_MIB = 1024.0 * 1024.0;
enum { HZ_PER_KHZ = 1000, BITS_PER_BYTE = 8, DOUBLE_DATA_RATE = 2 };

bool cuda_succeeded(cudaError_t status, const char *call, const char *file, int line)
{
    if (status != cudaSuccess)
        fprintf(stderr, "CUDA error at %s:%d: %s\n  in %s\n  (%s)\n", file, line,
                cudaGetErrorString(status), call, cudaGetErrorName(status));
    return status == cudaSuccess;
}

/* No GPU and no driver both land here, with the words a student can act on: the runtime's
 * own string for a missing driver speaks of upgrading one, which does not help on a machine
 * without an NVIDIA GPU. */
const char *no_device_reason(void)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count > 0) return NULL;
    if (status == cudaSuccess || status == cudaErrorNoDevice)
        return "no CUDA-capable GPU was found";
    if (status == cudaErrorInsufficientDriver)
        return "no NVIDIA driver answered (none is loaded, or it is older than this CUDA)";
    return cudaGetErrorString(status);
}

/* Without a GPU the message says what works without one. */
static void explain_no_device(const char *program, const char *reason)
{
    fprintf(
        stderr,
        "%s: no CUDA device: %s.\n  The kernels run on an NVIDIA GPU with its driver loaded, and "
        "this machine offers none.\n  Without one you can still build every step (make), run the "
        "tests that "
        "need no GPU (make test\n  says how many it skipped) and read the kernels' PTX (make ptx): "
        "see \"Without "
        "a GPU\" in README.md.\n",
        program, reason);
}

bool device_open(struct device_info *d, const char *program)
{
    return device_open_number(d, program, 0);
}

bool device_open_number(struct device_info *d, const char *program, int number)
{
    int memory_khz = 0, bus_bits = 0, l2 = 0;
    struct cudaDeviceProp prop;
    const char *reason = no_device_reason();
    memset(d, 0, sizeof *d);
    if (reason != NULL) {
        explain_no_device(program, reason);
        return false;
    }
    CUDA_TRY(cudaSetDevice(number));
    CUDA_TRY(cudaGetDeviceProperties(&prop, number));
    CUDA_TRY(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, number));
    CUDA_TRY(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, number));
    CUDA_TRY(cudaDeviceGetAttribute(&d->sm_clock_khz, cudaDevAttrClockRate, number));
    CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, number));
    CUDA_TRY(cudaDeviceGetAttribute(&d->max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor,
                                    number));
    CUDA_TRY(cudaRuntimeGetVersion(&d->runtime_version));
    snprintf(d->name, sizeof d->name, "%s", prop.name);
    d->sm_count = prop.multiProcessorCount, d->cc_major = prop.major, d->cc_minor = prop.minor;
    d->max_threads_per_sm = prop.maxThreadsPerMultiProcessor, d->l2_bytes = (size_t)l2;
    /* data moves on both clock edges (x2) over the whole bus */
    d->peak_gb_per_s = DOUBLE_DATA_RATE * (double)memory_khz * HZ_PER_KHZ * bus_bits /
                       BITS_PER_BYTE / BYTES_PER_GB;
    return true;
}

bool device_memory_fits(const struct device_info *device, size_t bytes, const char *what)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (!CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes))) return false;
    if (bytes > free_bytes)
        fprintf(stderr,
                "not enough device memory for %s: it needs %.1f MiB, %.1f MiB of %.1f MiB are free "
                "on %s\n",
                what, bytes / BYTES_PER_MIB, free_bytes / BYTES_PER_MIB,
                total_bytes / BYTES_PER_MIB, device->name);
    return bytes <= free_bytes;
}

unsigned filling_grid(const struct device_info *device, unsigned threads)
{
    unsigned per_sm = device->max_threads_per_sm / threads,
             limit = (unsigned)device->max_blocks_per_sm;
    return device->sm_count * (per_sm < limit ? per_sm : limit);
}

unsigned blocks_or_filling(const struct device_info *device, unsigned threads, unsigned blocks)
{
    return blocks > 0 ? blocks : filling_grid(device, threads);
}

unsigned blocks_to_cover(size_t n, size_t per_block)
{
    return n > per_block ? (unsigned)((n + per_block - 1) / per_block) : 1;
}

double effective_gb_per_s(double bytes, double milliseconds)
{
    return milliseconds > 0 ? bytes / (milliseconds * 1e-3) / BYTES_PER_GB : 0;
}

bool outputs_poison(void *device, size_t bytes)
{
    return CUDA_OK(cudaMemset(device, OUTPUT_POISON_BYTE, bytes));
}

bool total_read(const float *device_total, float *total)
{
    return device_total == NULL ||
           CUDA_OK(cudaMemcpy(total, device_total, sizeof *total, cudaMemcpyDeviceToHost));
}

bool sum_on_host(const float *block_sums, size_t count, float *total)
{
    float *copy = malloc(count * sizeof(float));
    double sum = 0;
    if (copy == NULL) {
        fprintf(stderr, "not enough host memory for %zu block sums\n", count);
        return false;
    }
    bool ok = CUDA_OK(cudaMemcpy(copy, block_sums, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; ok && i < count; i++) sum += copy[i];
    *total = (float)sum;
    free(copy);
    return ok;
}
