/* step16_rows: what host.c and the kernels agree on. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One launch of launch->kernel (never KERNEL_AUTO: launch_plan has chosen), enqueued on
 * `stream`: out[r] = the sum of row r of the rows x cols row-major matrix at `in` (floats, or
 * bf16 as their 16-bit patterns, added in float), for every row, any alignment of `in` to
 * its element size. No rows: nothing is launched.
 * For split: tagged_sums has room for launch->blocks 64-bit words and tickets for one
 * unsigned per row, both zeroed before the first launch; each launch leaves them zeroed.
 * The other kernels do not touch them (NULL is fine). */
cudaError_t rows_reduce(const void *in, enum element_type type, struct matrix_shape shape,
                        const struct rows_launch *launch, float *out,
                        unsigned long long *tagged_sums, unsigned *tickets, cudaStream_t stream);

/* cub::DeviceSegmentedReduce::Sum over the same rows into out (segmented.cu): with temp NULL
 * it sets *temp_bytes, as CUB does. */
cudaError_t cub_rows_sum(void *temp, size_t *temp_bytes, const void *in, enum element_type type,
                         struct matrix_shape shape, float *out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
