/* step14_generic: what host.c and reduce.cu agree on. reduce.cu instantiates one kernel
 * template for each operator and type; host.c picks an instantiation by (op, type) and
 * reads its result as doubles, so the host never needs to know the accumulator's layout. */
#ifndef STEP_REDUCE_H
#define STEP_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "toolbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --op and --type, in the order of their names (generic.h) and of reduce.cu's table. half is
 * IEEE binary16 (cuda_fp16.h's __half), bf16 is bfloat16 (cuda_bf16.h's __nv_bfloat16). */
enum op { OP_SUM, OP_MIN, OP_MAX, OP_SUMSQ, OP_DOT, OPS };
enum element_type { TYPE_INT, TYPE_FLOAT, TYPE_DOUBLE, TYPE_HALF, TYPE_BF16, TYPES };

/* Each round a thread issues ELEMENTS_PER_ROUND loads before it combines any; the last block
 * reads PARTIALS_IN_FLIGHT block results per thread at once. Both are merged as trees of
 * pairs, so both are powers of two. */
enum { ELEMENTS_PER_ROUND = 4, PARTIALS_IN_FLIGHT = 8 };
/* sumsq's result is two values, the sum and the sum of squares; the largest accumulator
 * (two long long or two double) takes 16 bytes. */
enum { MAX_RESULT_VALUES = 2, MAX_ACCUMULATOR_BYTES = 16 };

/* One launch of the instantiation for (op, type), or with input_accumulator (--accumulate
 * input: a sum of half or bf16 only) the one that accumulates in the elements' own type:
 * `blocks` blocks of `threads` threads
 * (32 .. 1024, a power of two) over a[0..n), and for dot b[0..n) too. partials has room for
 * `blocks` accumulators. total NULL: every block leaves its result in partials and the host
 * finishes (document 001). Otherwise the last block to finish merges the partials into
 * *total; *ticket_counter is 0 before the launch and the launch leaves it 0. */
struct generic_launch {
    enum op op;
    enum element_type type;
    bool input_accumulator;
    const void *a, *b; /* n elements of the type; b: dot only */
    size_t n;
    unsigned blocks, threads;
    void *partials, *total;
    unsigned *ticket_counter;
};
/* *launched: the kernel's instantiation and who merged the partials (the last block, or the
 * host after result_read). */
cudaError_t reduce_generic(const struct generic_launch *launch, struct launched *launched);

/* After the launch: the total where the last block left it, or (total NULL) the partials
 * copied back and merged on the host in the accumulator's own type, with the same operator
 * as on the GPU. Widened to double, which holds every such result exactly; sumsq gives two. */
cudaError_t result_read(const struct generic_launch *launch, double values[MAX_RESULT_VALUES]);

/* out[i] = in[i] converted to the type (int: the integer part, exact for integer data; half
 * and bf16: rounded to nearest, ties to even, as low_precision.c rounds on the host). */
cudaError_t convert_floats(const float *in, size_t n, enum element_type type, void *out);

/* The instantiation's template arguments, e.g. "SumAndSquares<long long> over Elements<int>";
 * "none" where (op, type, input_accumulator) has none. */
const char *instantiation_name(enum op op, enum element_type type, bool input_accumulator);

#ifdef __cplusplus
}
#endif
#endif
