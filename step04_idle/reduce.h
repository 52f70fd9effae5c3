/* step04_idle: what host.c, plan_a.c and reduce.cu agree on. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The order of host.c's variants: which two elements a thread adds while loading. */
enum { VARIANT_PAIRS, VARIANT_PLAN_A };

/* One launch of `blocks` blocks of `threads` threads: block b adds its elements of in[0..n),
 * two per thread, and writes the sum to block_sums[b]. *launched->kernel: the kernel it
 * launched, as reduce.cu names it. */
cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                          unsigned threads, int variant, struct launched *launched);

/* plan_a.c: the first launch of plan A again, checked the way document 003 checks it. */
bool plan_a_document_check(const struct input *input, unsigned threads, float *block_sums);

#ifdef __cplusplus
}
#endif
#endif
