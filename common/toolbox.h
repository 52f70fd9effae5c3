/* The toolbox every step program uses: plain functions on plain values, one section per file
 * of common/. A step's host.c reads top to bottom; this page says what each call does. */
#ifndef REDUCE_TOOLBOX_H
#define REDUCE_TOOLBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#ifdef __cplusplus
extern "C" {
#endif

/* ---- device.c: every CUDA call is checked; the GPU and its bandwidth ceiling ------------ */
/* A failed call prints where and why and gives false; the caller unwinds and exits 3.
 * In C, _Generic refuses anything but a cudaError_t. */
bool cuda_succeeded(cudaError_t status, const char *call, const char *file, int line);
#ifdef __cplusplus
#define CUDA_OK(call) cuda_succeeded((call), #call, __FILE__, __LINE__)
#else
#define CUDA_OK(call)                                                                              \
    cuda_succeeded(_Generic((call), cudaError_t : (call)), #call, __FILE__, __LINE__)
#endif
#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        if (!CUDA_OK(call)) return false;                                                          \
    } while (0)
struct device_info {
    char name[256];
    int sm_count, cc_major, cc_minor, sm_clock_khz, max_threads_per_sm, max_blocks_per_sm;
    size_t l2_bytes;
    double peak_gb_per_s; /* 2 x memory clock x bus width */
    int runtime_version;  /* 13000: CUDA 13.0 */
};
bool device_open(struct device_info *device, const char *program); /* no GPU: says what works */
/* The same for device `number`, the only one it touches (step15: each process its own GPU). */
bool device_open_number(struct device_info *device, const char *program, int number);
/* NULL when a CUDA device answers; otherwise why none does, in device_open's words. */
const char *no_device_reason(void);
bool device_memory_fits(const struct device_info *device, size_t bytes, const char *what);
unsigned filling_grid(const struct device_info *device, unsigned threads); /* every SM full */
/* --blocks B when given (blocks > 0), otherwise filling_grid: a step's most blocks. */
unsigned blocks_or_filling(const struct device_info *device, unsigned threads, unsigned blocks);
/* ceil(n / per_block) blocks, and one even for n = 0: an empty input still has a total (0). */
unsigned blocks_to_cover(size_t n, size_t per_block);
double effective_gb_per_s(double bytes, double milliseconds);
/* A kernel that never writes its result must leave a NaN, not the previous case's total: every
 * byte OUTPUT_POISON_BYTE, a NaN as float, double, half and bf16, and -1 as int and long long.
 * Called on a launch's outputs before each --check case and each timed run, never on what a
 * kernel needs zeroed (a ticket counter, step13's gatherer's words). */
#define OUTPUT_POISON_BYTE 0xFF
bool outputs_poison(void *device, size_t bytes);
bool total_read(const float *device_total, float *total); /* NULL: the host has it already */
bool sum_on_host(const float *block_sums, size_t count, float *total); /* documents 001, 004 */

/* ---- scratch.c: one launch in flight per scratch, for kernels used as a library --------- */
/* A kernel that finishes through block sums and a ticket counter (steps 12 and 13) mixes two
 * launches that share them and run at once: the gatherer can wait forever, or the total can
 * be stale. scratch_claim, just before the launch on `stream`, makes the stream wait for the
 * scratch's latest launch (cudaStreamWaitEvent) unless that launch was on the same stream
 * from the same host thread, where launches run in order anyway: two launches on one scratch
 * never run at once, whatever their streams (cudaStreamPerThread from two threads included),
 * and one already ordered after the other goes ahead (the added wait is met). scratch_release,
 * just after the launch with its status, remembers it: an event recorded on the stream after
 * the launch. A claim fails only on a CUDA error, or while launches on more than 64 scratches
 * may still run (a message, cudaErrorNotPermitted). A successful claim holds a lock that the
 * release gives back: call both, or neither. */
cudaError_t scratch_claim(const void *ticket_counter, cudaStream_t stream);
cudaError_t scratch_release(const void *ticket_counter, cudaStream_t stream, cudaError_t launch);

/* ---- options.c: the command line -------------------------------------------------------- */
enum exit_code { EXIT_CORRECT = 0, EXIT_WRONG = 1, EXIT_USAGE = 2, EXIT_ENVIRONMENT = 3 };
enum { OPTIONS_RUN = -1, MAX_EXTRA_OPTIONS = 4, MAX_BUFFERS = 8 };
enum finish { FINISH_GPU, FINISH_CPU };
/* How the L2 is emptied before each timed run (docs/measuring.md): by reading, which leaves
 * clean lines, or by writing, which leaves dirty lines the timed run must write back. */
enum flush { FLUSH_READ, FLUSH_WRITE };
#define DEFAULT_N ((size_t)32 * 1024 * 1024) /* the documents' N = 32*1024*1024 */
#define MAX_N ((size_t)1 << 32)
struct variant {
    const char *name, *about;
};
struct extra_option {
    const char *name, *value_name, *about;
};                                                      /* value_name NULL: a flag */
struct step_info {                                      /* what the step's command line offers */
    const char *name, *title;                           /* "step04", a line for --help */
    unsigned min_threads, max_threads, default_threads; /* powers of two; 0: no --threads */
    bool host_finish, grid_size;                        /* --finish cpu, --blocks */
    const struct variant *variants;    /* NULL, or ends with {NULL}; [0]: the default */
    const struct extra_option *extras; /* the step's own options: NULL, or ends with {NULL} */
    /* --help's words for -n, --no-cub and --threads where the step reads them its own way;
     * NULL: the shared words (for --threads, followed by the range and the default) */
    const char *n_about, *no_cub_about, *threads_about;
};
enum pattern_kind {
    PATTERN_UNIFORM,
    PATTERN_ONES,
    PATTERN_ONEHOT,
    PATTERN_REAL,
    PATTERN_NORMAL,
    PATTERN_WIDE,
    PATTERN_CANCEL
};
struct pattern {
    enum pattern_kind kind;
    bool onehot_last;
    size_t onehot_index;
};
struct options {
    size_t n, n_last; /* -n A..B: A, 2A, 4A, ... up to B */
    struct pattern pattern;
    uint64_t seed;
    int iters, warmup, buffers, variant;
    unsigned threads, blocks; /* blocks 0: the step chooses */
    enum finish finish;
    enum flush flush;
    bool check, cub, csv, quiet;
    bool threads_given; /* without --threads a step may choose other than its default */
    const char *extra[MAX_EXTRA_OPTIONS]; /* per extras entry: NULL absent, "" a flag given */
};
/* OPTIONS_RUN, or the exit code after --help (0) or a usage error that names the value (2). */
int options_parse(int argc, char **argv, const struct step_info *step, struct options *options);
bool parse_size(const char *text, size_t *value); /* 1000003, 2^25, 32M, 4K, 1G */

/* ---- pattern.c: the input data; element i depends only on the seed and i ---------------- */
/* Integer patterns make small sums exact (a lost element shows); real-valued ones show
 * rounding (docs/accuracy.md). */
bool pattern_parse(const char *text, struct pattern *pattern);
const char *pattern_name(const struct pattern *pattern, char *buffer, size_t size);
bool pattern_onehot_position(const struct pattern *pattern, size_t n, size_t *position);
void pattern_fill(float *data, size_t n, const struct pattern *pattern, uint64_t seed);
uint64_t random_at(uint64_t seed, uint64_t i); /* splitmix64: same on every machine */

/* ---- bf16.c: bfloat16 on the host, a float's upper half --------------------------------- */
/* Rounded to nearest, ties to even, as the GPU's __float2bfloat16_rn rounds: too large a
 * magnitude gives infinity, a NaN stays a (quiet) NaN. Widening back to float is exact. */
uint16_t bf16_from_float(float x);
float bf16_to_float(uint16_t b);

/* ---- verify.c: the reference and the error bound (docs/verification.md) ----------------- */
struct reference {
    double sum, abs_sum; /* compensated double sums of x and of |x| */
    size_t n;
    bool integer_valued; /* then sum is exact */
};
#define FLOAT_EXACT_INTEGER_LIMIT 16777216.0 /* 2^24: integer sums below it are exact floats */
struct reference reference_compute(const float *data, size_t n);
/* pattern.c: the reference of a pattern whose sum is known without its elements, as
 * reference_compute would find it: ones (n) and one-hot (1, or 0 with the hot index past the
 * end). False for the other patterns. */
bool pattern_reference(const struct pattern *pattern, size_t n, struct reference *reference);
bool reference_is_exact(const struct reference *reference); /* integers, sum|x| <= 2^24 */
/* gamma(k) = k u / (1 - k u) (Higham, Accuracy and Stability of Numerical Algorithms, 3.1) */
double rounding_gamma(double roundings, double unit_roundoff);
/* gamma(depth) * sum|x| (Higham, eq. 4.4) when no element passes through more than `depth`
 * float additions, plus the reference's own error; 0 when the sum must be exact. */
double error_bound(const struct reference *reference, unsigned depth);
/* Whether a bound can judge a result: a finite one below sum|x| (or 0 for no magnitude). A
 * bound of sum|x| or more passes 0 whatever the data, as if every element were lost: such a
 * case cannot be judged, and result_within never passes it. */
bool bound_judges(const struct reference *reference, double bound);
bool result_within(float result, const struct reference *reference, double bound);
unsigned tree_levels(size_t count); /* ceil(log2(count)) */

/* ---- memory.c: how many copies of the input fit, decided before any of them is made ------ */
/* A run needs some memory once (the step's fixed bytes: dot's second array, a staging buffer,
 * CUB's temporary storage) and the rest per copy of its input. The plan makes the most copies,
 * up to the wanted number, whose need fits the free memory; 0 means not even one fits. Each
 * allocation is counted in whole ALLOCATION_GRANULEs, a margin for the driver's rounding up
 * (its granularity: cuMemGetAllocationGranularity, CUDA Driver API); a second and later copy
 * also leave RUNTIME_HEADROOM free for what the runtime allocates on its own. */
#define ALLOCATION_GRANULE ((size_t)2 << 20)
#define RUNTIME_HEADROOM ((size_t)256 << 20)
struct memory_plan {
    size_t fixed_bytes, copy_bytes, free_bytes;
    int copies;
};
size_t memory_rounded(size_t bytes); /* whole granules, at least one */
struct memory_plan memory_plan_make(size_t fixed_bytes, size_t copy_bytes, size_t free_bytes,
                                    int wanted);
size_t memory_plan_need(const struct memory_plan *plan, int copies);
/* "not enough device memory for one copy of <what>: it needs X MiB (Y MiB the copy,
 * Z MiB <fixed_what>), and F MiB are free on <device>" */
void memory_plan_explain(const struct memory_plan *plan, const char *what, const char *fixed_what,
                         const char *device_name);
/* A run's fixed bytes made of several allocations (a step's buffers, CUB's storage): each
 * counted in whole granules, as memory_rounded counts it, and named, in the order added, for
 * memory_plan_explain's fixed_what ("the row sums, CUB's temporary storage"). */
enum { MEMORY_FIXED_NAMES = 160 };
struct memory_fixed {
    size_t bytes;
    char names[MEMORY_FIXED_NAMES];
};
void memory_fixed_add(struct memory_fixed *fixed, size_t bytes, const char *name);

/* ---- timing.cu: the input's copies; CUDA events from a cold L2; CUB timed the same way ---- */
/* Each timed run reads the next copy of the input, one the L2 does not hold. The copies are
 * options->buffers, or as many as memory_plan_make finds room for beside CUB's temporary
 * storage (unless --no-cub); not even one: a message that names the need. Allocate the step's own
 * buffers first: the plan counts what they leave free. ones and one-hot are made on the device
 * and have no host copy (host NULL; pattern_reference gives their sums); the other patterns
 * are made on the host and uploaded. input_create_on_host makes only the host's data and its
 * reference, for a step that makes its device copies itself. */
struct input {
    size_t n;
    float *host;
    struct reference reference;
    float *copies[MAX_BUFFERS];
    int count;
};
bool input_create(struct input *input, const struct options *options, size_t n,
                  const struct device_info *device);
bool input_create_on_host(struct input *input, const struct options *options, size_t n);
void input_free(struct input *input);
struct timing {
    double median_ms, min_ms, max_ms;
    int runs;
}; /* runs 0: not measured */
struct timer {
    cudaEvent_t start, stop;
    void *scratch;
    size_t scratch_bytes;
    enum flush flush;
    double *samples;
    int runs, capacity;
};
/* Room for options->iters samples; the L2 emptied as options->flush says. */
bool timer_make(struct timer *timer, const struct device_info *device,
                const struct options *options);
bool timer_start(struct timer *timer);            /* empties the L2 (untimed), records the start */
bool timer_stop(struct timer *timer, bool keep);  /* waits; keeps the sample unless warm-up */
struct timing timer_summary(struct timer *timer); /* of the samples kept since the last one */
void timer_free(struct timer *timer);
/* timer_samples.c: a timer that only keeps samples measured elsewhere (no events, no flush),
 * and one such sample, kept as timer_stop keeps its own; timer_summary and timer_free as usual. */
bool timer_make_samples(struct timer *timer, int capacity);
void timer_keep(struct timer *timer, double milliseconds);
/* The bytes cub_time allocates for n floats: CUB's temporary storage and the total. */
size_t cub_temp_bytes(size_t n);
/* CUB's total against the data's exact sum, within the bound of a chain as long as any grid
 * with a warp an SM would give a thread (CUB documents no order); a wrong one is reported. */
bool cub_total_right(const struct input *input, float total);
/* cub::DeviceReduce::Sum over the same copies, the same way; its total in *total (or NULL).
 * Its last total is checked (cub_total_right): a wrong one stops the run, since no ratio to an
 * unchecked time means anything. */
bool cub_time(const struct input *input, const struct options *options, struct timer *timer,
              struct timing *timing, float *total);

/* ---- report.c: what a run prints -------------------------------------------------------- */
/* What a run launched, set by the code that launched it (a step's launcher in reduce.cu, or
 * its host.c for a finish on the host), never taken from the options: the kernel as its
 * source names it, template arguments and all, and how the blocks' sums became one total. */
struct launched {
    const char *kernel, *finish; /* NULL: not recorded */
};
/* The finishes of steps 00 to 08 (reduce() in their host.c): more launches of the same
 * kernel over the block sums, or the host adding them (documents 001 and 004). */
#define FINISH_BY_LAUNCHES "launches"
#define FINISH_ON_HOST "host"
/* For a launcher's table in reduce.cu: a kernel and its name as the source spells it.
 * {KERNEL_AND_NAME(reduce_shuffle<256>)} is {reduce_shuffle<256>, "reduce_shuffle<256>"}. */
#define KERNEL_AND_NAME(...) __VA_ARGS__, #__VA_ARGS__
struct report {
    const struct step_info *step;
    const struct device_info *device;
    const char *variant; /* NULL: the step has none */
    struct launched launched;
    size_t n;
    char pattern[48], launch[160]; /* launch: the step's words for its grid */
    float result;
    struct reference reference;
    unsigned depth;
    double bound; /* 0: the result must be exact */
    bool ok;
    struct timing time, cub;
};
struct report report_start(const struct step_info *step, const struct device_info *device,
                           const struct options *options, size_t n);
void report_judge(struct report *report, const struct reference *reference, unsigned depth);
void report_csv_header(void);
void report_print(const struct report *report, const struct options *options);
const char *recorded_or_dash(const char *what); /* a launched field for printing: NULL is "-" */

/* ---- check.c: --check, the correctness matrix (docs/verification.md) -------------------- */
/* The program takes the cases one by one, runs each with its own code and hands the total
 * back. A failing case prints a line; the summary comes last. */
#define CHECK_LARGEST_N (((size_t)1 << 25) + 1)
struct check_case {
    const float *input, *host; /* on the device (0..3 floats past alignment), host */
    size_t n;
    unsigned threads, blocks; /* blocks 0: the step's own choice */
    enum finish finish;
    bool repeat; /* the case before again: the same bits expected */
    bool fresh;  /* new data: what a step derives from it, once */
    struct reference reference;
};
struct check;
struct check *check_start(const struct step_info *step, const struct options *options,
                          const struct device_info *device); /* NULL after saying why */
bool check_next(struct check *check, struct check_case *next);
void check_record(struct check *check, const struct check_case *done, float total, unsigned depth);
/* A case the step judged itself (a result that is not one float). */
void check_verdict(struct check *check, const struct check_case *done, bool passed,
                   const char *what);
int check_finish(struct check *check, bool ran); /* the summary; the exit code; frees */

#ifdef __cplusplus
}
#endif
#endif
