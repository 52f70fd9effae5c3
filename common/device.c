#include "device.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"

enum { HZ_PER_KHZ = 1000, BITS_PER_BYTE = 8, DOUBLE_DATA_RATE = 2 };
static const double BYTES_PER_GB = 1e9;

double peak_bandwidth_gb_per_s(int memory_clock_khz, int bus_width_bits)
{
    double hz = (double)memory_clock_khz * HZ_PER_KHZ;
    double bytes_per_edge = (double)bus_width_bits / BITS_PER_BYTE;
    return DOUBLE_DATA_RATE * hz * bytes_per_edge / BYTES_PER_GB;
}

double effective_gb_per_s(double bytes, double milliseconds)
{
    if (milliseconds <= 0) return 0;
    return bytes / (milliseconds * 1e-3) / BYTES_PER_GB;
}

static bool attribute(int *value, enum cudaDeviceAttr which, int id)
{
    return CUDA_OK(cudaDeviceGetAttribute(value, which, id));
}

bool device_query(struct device_info *device, char *why, size_t why_size)
{
    memset(device, 0, sizeof *device);
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        snprintf(why, why_size, "no CUDA device: %s",
                 status != cudaSuccess ? cudaGetErrorString(status) : "none found");
        return false;
    }
    struct cudaDeviceProp prop;
    int l2 = 0;
    if (!CUDA_OK(cudaSetDevice(device->id)) ||
        !CUDA_OK(cudaGetDeviceProperties(&prop, device->id)) ||
        !attribute(&device->memory_clock_khz, cudaDevAttrMemoryClockRate, device->id) ||
        !attribute(&device->bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, device->id) ||
        !attribute(&l2, cudaDevAttrL2CacheSize, device->id) ||
        !attribute(&device->max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, device->id) ||
        !CUDA_OK(cudaMemGetInfo(&device->free_bytes, &device->total_bytes)) ||
        !CUDA_OK(cudaRuntimeGetVersion(&device->runtime_version))) {
        snprintf(why, why_size, "could not query CUDA device %d (see the error above)",
                 device->id);
        return false;
    }
    snprintf(device->name, sizeof device->name, "%s", prop.name);
    device->sm_count = prop.multiProcessorCount;
    device->cc_major = prop.major;
    device->cc_minor = prop.minor;
    device->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    device->l2_bytes = (size_t)l2;
    device->peak_gb_per_s =
        peak_bandwidth_gb_per_s(device->memory_clock_khz, device->bus_width_bits);
    return true;
}
