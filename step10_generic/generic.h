/* step10_generic — the C face of the templated kernels. reduce.cu instantiates the one
 * kernel template for each (operator, type) and offers each instantiation through one
 * extern "C" function; host.c names them in one table and drives them with the functions
 * below, which the tests use too. */
#ifndef STEP10_GENERIC_H
#define STEP10_GENERIC_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each iteration a thread issues this many independent loads before combining any. */
enum { GENERIC_ELEMENTS_PER_ITERATION = 4 };
/* The block that finishes loads this many partials per thread at once. */
enum { GENERIC_PARTIALS_IN_FLIGHT = 8 };
/* sumsq gives two values: the sum and the sum of squares. */
enum { GENERIC_MAX_VALUES = 2 };

enum generic_scalar { SCALAR_INT32, SCALAR_INT64, SCALAR_FLOAT, SCALAR_DOUBLE };
enum generic_op { OP_SUM, OP_MIN, OP_MAX, OP_SUMSQ, OP_DOT };

/* One launch: arrays, grid, and where the partials, the ticket and the total live. */
struct generic_launch {
    const void *first;                /* n elements of the input type */
    const void *second;               /* dot: the other array; otherwise not read */
    size_t n;
    unsigned blocks, threads;
    void *partials;                   /* room for `blocks` accumulators */
    unsigned *ticket_counter;         /* 0 before the first launch; every launch leaves 0 */
    void *total;                      /* one accumulator */
};

/* What one instantiation of the templates offers the host. The accumulator (the document's
 * ReductionType) is an array of result_values scalars of type `result`. */
struct generic_kernel {
    enum generic_scalar input;        /* the document's T */
    int arrays;                       /* 2 for the dot product */
    enum generic_scalar result;
    int result_values;
    size_t accumulator_bytes;
    cudaError_t (*launch)(const struct generic_launch *launch, cudaStream_t stream);
    int (*resident_blocks_per_sm)(unsigned threads);   /* 0 when the runtime cannot say */
};

/* The instantiations, defined in reduce.cu: step10_<op>_<type>. */
struct generic_kernel step10_sum_int(void), step10_sum_float(void), step10_sum_double(void),
    step10_min_int(void), step10_min_float(void), step10_min_double(void),
    step10_max_int(void), step10_max_float(void), step10_max_double(void),
    step10_sumsq_int(void), step10_sumsq_float(void), step10_sumsq_double(void),
    step10_dot_int(void), step10_dot_float(void), step10_dot_double(void);

/* A row of host.c's table: the names --op and --type accept, and the instantiation. */
struct generic_entry {
    const char *op_name;
    enum generic_op op;
    const char *type_name;
    struct generic_kernel (*instantiate)(void);
};

extern const struct generic_entry generic_table[];
extern const int generic_table_count;

/* NULL names mean the defaults (sum, float). NULL when no row matches. */
const struct generic_entry *generic_find(const char *op, const char *type);

size_t generic_scalar_bytes(enum generic_scalar scalar);

/* The grid for n elements: request->blocks when set, else the GPU filled once, or fewer
 * blocks when one iteration of each thread covers n. */
struct pass_plan generic_plan(const struct generic_kernel *kernel, size_t n,
                              const struct launch_request *request);

/* Longest chain of additions (or comparisons) any element goes through; a product's own
 * rounding (dot, and the squares of sumsq) is not included. */
unsigned generic_depth(size_t n, struct pass_plan plan);

struct generic_buffers {
    void *first, *second;             /* second: dot only, else NULL */
    void *partials;
    unsigned partials_capacity;       /* accumulators */
    void *total;
    unsigned *ticket_counter;         /* zeroed once here; the kernel resets it */
};

/* Device bytes the buffers take, to compare with free memory before allocating. */
size_t generic_device_bytes(const struct generic_kernel *kernel, size_t n, unsigned blocks);
bool generic_buffers_create(struct generic_buffers *buffers, const struct generic_kernel *kernel,
                            size_t n, unsigned blocks);
void generic_buffers_destroy(struct generic_buffers *buffers);
/* Copies n elements of each input array (second: dot only) to the device. Not timed. */
bool generic_upload(const struct generic_buffers *buffers, const struct generic_kernel *kernel,
                    const void *first, const void *second, size_t n);
/* Enqueues the one launch. */
cudaError_t generic_enqueue(const struct generic_buffers *buffers,
                            const struct generic_kernel *kernel, size_t n, struct pass_plan plan,
                            cudaStream_t stream);
/* Waits for the stream and reads the result, widened to double: exact for every value the
 * patterns can produce (integers below 2^53, the float and double results themselves). */
bool generic_read(const struct generic_buffers *buffers, const struct generic_kernel *kernel,
                  double values[GENERIC_MAX_VALUES]);

#ifdef __cplusplus
}
#endif
#endif
