/* One step of the ladder, as the host sees it: a descriptor that the step binary,
 * the tests and the benchmark all drive the same way. C and CUDA both include it. */
#ifndef REDUCE_STEP_H
#define REDUCE_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How one kernel launch covers its input. elements_per_thread is the longest chain of
 * sequential additions a thread makes before the in-block tree: the error bound needs it. */
struct pass_plan {
    unsigned blocks;
    unsigned threads;
    unsigned elements_per_thread;
    int variant;                      /* index into step.variants, 0 for steps without */
    long long *block_clocks;          /* step07 --clock: 2 stamps per block, else NULL */
};

/* What the user (or a test) asked for; 0 means "the step's default". */
struct launch_request {
    unsigned threads;
    unsigned blocks;
    int variant;
    int sm_count;                     /* from the device: steps that size their grid by it */
    int max_blocks_per_sm;
};

struct variant {
    const char *name;
    bool correct;                     /* false: kept to show a bug; never counts as a pass */
    const char *about;
};

struct thread_range {
    unsigned fallback;                /* the step's default block size */
    unsigned min;
    unsigned max;                     /* every power of two in [min, max] is allowed */
};

typedef cudaError_t (*pass_launcher)(float *in, size_t n, float *out,
                                     struct pass_plan plan, cudaStream_t stream);

/* Declares or defines a launcher with exactly the pass_launcher signature, so that the
 * host file's declaration and the .cu file's definition cannot drift apart:
 *   host.c:    PASS_LAUNCHER(step03_launch);
 *   reduce.cu: extern "C" PASS_LAUNCHER(step03_launch) { ... } */
#define PASS_LAUNCHER(name)                                                               \
    cudaError_t name(float *in, size_t n, float *out, struct pass_plan plan,              \
                     cudaStream_t stream)

struct reduction_buffers;             /* common/passes.h */

/* A step that does not follow "launch until one value is left" (step09: one launch)
 * enqueues its own work; it leaves the total in *device_total. */
typedef cudaError_t (*custom_reducer)(const struct reduction_buffers *buffers, size_t n,
                                      const struct launch_request *request,
                                      float **device_total, cudaStream_t stream);

/* A step whose whole run differs (step10: other types and operators) brings its own main. */
struct options;
struct device_info;
typedef int (*custom_runner)(const struct options *options, const struct device_info *device);
/* Such a step checks the options only it understands (step10: --op, --type) while the
 * command line is parsed, before the device is looked at: EXIT_USAGE with `error` naming
 * the bad value, or EXIT_CORRECT. */
typedef int (*option_checker)(const struct options *options, char *error, size_t error_size);

struct step {
    const char *name;                 /* "step04" */
    const char *directory;            /* "step04_idle" */
    const char *title;
    const char *lesson;
    struct thread_range threads;
    const struct variant *variants;   /* terminated by a {NULL} entry; NULL if none */
    bool destroys_input;              /* step00 reduces in place */
    bool takes_block_count;           /* --blocks, --sweep-blocks, --clock */
    struct pass_plan (*plan)(size_t n, const struct launch_request *request);
    pass_launcher launch;
    custom_reducer reduce;            /* NULL: common/passes.c drives plan + launch */
    unsigned (*accumulation_depth)(size_t n, const struct launch_request *request);
                                      /* with reduce: the bound's depth; else derived */
    custom_runner run;                /* NULL: common/run.c */
    option_checker check_options;     /* NULL: nothing beyond common/cli.c's checks */
};

int step_variant_count(const struct step *step);
/* Blocks needed so that each takes elements_per_block; at least 1, so that n = 0 still
 * produces a (zero) total. */
unsigned blocks_covering(size_t n, size_t elements_per_block);
/* One launch in which every thread takes elements_per_thread elements: steps 00-06. */
struct pass_plan plan_fixed_elements(size_t n, unsigned threads, unsigned elements_per_thread);
/* A fixed grid whose threads stride over the input: steps 07 and later. request->blocks, or
 * by default enough blocks to fill every SM once (sm_count * max_blocks_per_sm); but never
 * more blocks than give each thread GRID_STRIDE_MIN_ELEMENTS elements (document 000: a
 * thread per element wastes the grid-stride loop), which also makes every pass over partial
 * sums shrink. elements_per_thread: the most elements any one thread adds. */
enum { GRID_STRIDE_MIN_ELEMENTS = 8 };
struct pass_plan plan_grid_stride(size_t n, const struct launch_request *request);
int step_find_variant(const struct step *step, const char *name);  /* -1 when unknown */

#ifdef __cplusplus
}
#endif
#endif
