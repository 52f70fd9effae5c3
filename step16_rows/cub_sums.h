/* step16_rows: CUB beside the step (cub_sums.c). */
#ifndef STEP_CUB_SUMS_H
#define STEP_CUB_SUMS_H

#include "matrix.h"
#include "toolbox.h"

/* CUB's temporary storage: the larger of its two sums' (none with --no-cub). */
bool cub_storage_bytes(const struct options *o, const struct matrix *mx, size_t *bytes);
/* cub::DeviceSegmentedReduce into `out`, timed and poisoned like the step; its last row sums
 * into `sums`. */
bool cub_segmented_time(const struct options *o, const struct matrix *mx, struct timer *timer,
                        float *out, struct timing *timing, float *sums);
/* cub::DeviceReduce::Sum of the same floats, checked against the whole matrix's reference
 * (bf16: not measured); its total into *total. */
bool cub_flat_time(const struct options *o, const struct matrix *mx,
                   const struct reference *references, struct timer *timer, struct timing *timing,
                   float *total);

#endif
