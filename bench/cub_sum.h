/* cub::DeviceReduce::Sum behind a C interface, so that the benchmark (C) can time the
 * library beside the ladder. The temporary storage is the caller's: it is allocated once,
 * outside the timed region. */
#ifndef BENCH_CUB_SUM_H
#define BENCH_CUB_SUM_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of temporary storage that cub_sum needs for n floats. Enqueues nothing. */
cudaError_t cub_sum_temp_bytes(size_t n, size_t *bytes);

/* *total = in[0] + ... + in[n-1], on the device. Only enqueues work on the stream. */
cudaError_t cub_sum(void *temp, size_t temp_bytes, const float *in, size_t n, float *total,
                    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
