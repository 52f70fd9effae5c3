/* step10_generic — host side, still C: the table that maps --op and --type to an extern "C"
 * instantiation of the templates, the grid, the buffers, and the run (data, reference,
 * timing, check, report) in the same shape as common/run.c's. */
#include "generic.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "report.h"
#include "run.h"
#include "verify.h"

const struct generic_entry generic_table[] = {
    {"sum", OP_SUM, "int", step10_sum_int},
    {"sum", OP_SUM, "float", step10_sum_float},
    {"sum", OP_SUM, "double", step10_sum_double},
    {"min", OP_MIN, "int", step10_min_int},
    {"min", OP_MIN, "float", step10_min_float},
    {"min", OP_MIN, "double", step10_min_double},
    {"max", OP_MAX, "int", step10_max_int},
    {"max", OP_MAX, "float", step10_max_float},
    {"max", OP_MAX, "double", step10_max_double},
    {"sumsq", OP_SUMSQ, "int", step10_sumsq_int},
    {"sumsq", OP_SUMSQ, "float", step10_sumsq_float},
    {"sumsq", OP_SUMSQ, "double", step10_sumsq_double},
    {"dot", OP_DOT, "int", step10_dot_int},
    {"dot", OP_DOT, "float", step10_dot_float},
    {"dot", OP_DOT, "double", step10_dot_double},
};
const int generic_table_count = sizeof generic_table / sizeof generic_table[0];

static const char *const OP_NAMES[] = {"sum", "min", "max", "sumsq", "dot"};
static const char *const TYPE_NAMES[] = {"int", "float", "double"};
static const char DEFAULT_OP[] = "sum", DEFAULT_TYPE[] = "float";
static const char *const VALUE_NAMES[][GENERIC_MAX_VALUES] = {
    [OP_SUM] = {"sum"}, [OP_MIN] = {"min"}, [OP_MAX] = {"max"},
    [OP_SUMSQ] = {"sum", "sum of squares"}, [OP_DOT] = {"dot"}};
static const char *const RESULT_TYPE_NAMES[] = {
    [SCALAR_INT32] = "int", [SCALAR_INT64] = "int64", [SCALAR_FLOAT] = "float",
    [SCALAR_DOUBLE] = "double"};
#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))

/* Inside a block: five shuffle levels within each warp, five over the warp results. */
enum { WARP_TREE_LEVELS = 5, BLOCK_TREE_LEVELS = 2 * WARP_TREE_LEVELS };
/* Every integer up to 2^53 is a double: integer sums below it are exact. */
static const double DOUBLE_EXACT_INTEGER_LIMIT = 9007199254740992.0;
static const double BYTES_PER_MIB = 1024.0 * 1024.0;
static const double PERCENT = 100.0;

const struct generic_entry *generic_find(const char *op, const char *type)
{
    if (op == NULL) op = DEFAULT_OP;
    if (type == NULL) type = DEFAULT_TYPE;
    for (int i = 0; i < generic_table_count; i++)
        if (strcmp(generic_table[i].op_name, op) == 0 &&
            strcmp(generic_table[i].type_name, type) == 0)
            return &generic_table[i];
    return NULL;
}

size_t generic_scalar_bytes(enum generic_scalar scalar)
{
    switch (scalar) {
    case SCALAR_INT32: return sizeof(int);
    case SCALAR_INT64: return sizeof(long long);
    case SCALAR_FLOAT: return sizeof(float);
    case SCALAR_DOUBLE: return sizeof(double);
    }
    return 0;
}

/* Element i of an array of `scalar`, as a double (exact for int32, float and double, and
 * for the int64 values the patterns produce). memcpy: the bytes may sit in any buffer. */
static double scalar_at(enum generic_scalar scalar, const void *array, size_t i)
{
    const char *bytes = (const char *)array + i * generic_scalar_bytes(scalar);
    int as_int;
    long long as_int64;
    float as_float;
    double as_double;
    switch (scalar) {
    case SCALAR_INT32: memcpy(&as_int, bytes, sizeof as_int); return as_int;
    case SCALAR_INT64: memcpy(&as_int64, bytes, sizeof as_int64); return (double)as_int64;
    case SCALAR_FLOAT: memcpy(&as_float, bytes, sizeof as_float); return as_float;
    case SCALAR_DOUBLE: memcpy(&as_double, bytes, sizeof as_double); return as_double;
    }
    return NAN;
}

/* ---- The grid and the error bound's depth ------------------------------------------------ */

static size_t divide_rounding_up(size_t a, size_t b) { return (a + b - 1) / b; }

static unsigned device_filling_blocks(const struct generic_kernel *kernel,
                                      const struct launch_request *request)
{
    int resident = kernel->resident_blocks_per_sm(request->threads);
    int per_sm = resident > 0 && resident < request->max_blocks_per_sm ? resident
                                                                       : request->max_blocks_per_sm;
    int blocks = request->sm_count * per_sm;
    return blocks > 0 ? (unsigned)blocks : 1u;
}

/* Iterations of a thread's loop: each takes GENERIC_ELEMENTS_PER_ITERATION per thread. */
static size_t iterations(size_t n, struct pass_plan plan)
{
    size_t per_iteration = (size_t)plan.blocks * plan.threads * GENERIC_ELEMENTS_PER_ITERATION;
    return divide_rounding_up(n, per_iteration);
}

struct pass_plan generic_plan(const struct generic_kernel *kernel, size_t n,
                              const struct launch_request *request)
{
    struct pass_plan plan = {.blocks = request->blocks, .threads = request->threads};
    if (plan.blocks == 0) {
        unsigned filling = device_filling_blocks(kernel, request);
        unsigned covering =
            blocks_covering(n, (size_t)request->threads * GENERIC_ELEMENTS_PER_ITERATION);
        plan.blocks = covering < filling ? covering : filling;
    }
    plan.elements_per_thread = (unsigned)(iterations(n, plan) * GENERIC_ELEMENTS_PER_ITERATION);
    return plan;
}

/* As step09's: a group of loads is merged as a tree (2 levels) and then into the thread's
 * accumulator, which takes one group per iteration (an element sees at most iterations + 2
 * merges); the block tree; and, with several blocks, the last block's groups of partials
 * (a tree of GENERIC_PARTIALS_IN_FLIGHT, then in sequence) and its block tree. */
unsigned generic_depth(size_t n, struct pass_plan plan)
{
    size_t in_thread = iterations(n, plan) + tree_levels(GENERIC_ELEMENTS_PER_ITERATION);
    size_t partials_per_group = (size_t)plan.threads * GENERIC_PARTIALS_IN_FLIGHT;
    size_t finish = 0;
    if (plan.blocks > 1)
        finish = divide_rounding_up(plan.blocks, partials_per_group) +
                 tree_levels(GENERIC_PARTIALS_IN_FLIGHT) + BLOCK_TREE_LEVELS;
    return (unsigned)(in_thread + BLOCK_TREE_LEVELS + finish);
}

/* ---- Device buffers ------------------------------------------------------------------------ */

static size_t input_bytes(const struct generic_kernel *kernel, size_t n)
{
    return n * generic_scalar_bytes(kernel->input);
}

size_t generic_device_bytes(const struct generic_kernel *kernel, size_t n, unsigned blocks)
{
    return (size_t)kernel->arrays * input_bytes(kernel, n) +
           ((size_t)blocks + 1) * kernel->accumulator_bytes + sizeof(unsigned);
}

/* cudaMalloc(0) gives NULL; keep one byte so that every buffer is real. */
static cudaError_t allocate(void **pointer, size_t bytes)
{
    return cudaMalloc(pointer, bytes > 0 ? bytes : 1);
}

bool generic_buffers_create(struct generic_buffers *buffers, const struct generic_kernel *kernel,
                            size_t n, unsigned blocks)
{
    memset(buffers, 0, sizeof *buffers);
    buffers->partials_capacity = blocks;
    CUDA_TRY(allocate(&buffers->first, input_bytes(kernel, n)));
    if (kernel->arrays == 2) CUDA_TRY(allocate(&buffers->second, input_bytes(kernel, n)));
    CUDA_TRY(allocate(&buffers->partials, (size_t)blocks * kernel->accumulator_bytes));
    CUDA_TRY(allocate(&buffers->total, kernel->accumulator_bytes));
    CUDA_TRY(allocate((void **)&buffers->ticket_counter, sizeof(unsigned)));
    CUDA_TRY(cudaMemset(buffers->ticket_counter, 0, sizeof(unsigned)));
    return true;
}

void generic_buffers_destroy(struct generic_buffers *buffers)
{
    void *device[] = {buffers->first, buffers->second, buffers->partials, buffers->total,
                      buffers->ticket_counter};
    for (size_t i = 0; i < COUNT_OF(device); i++)
        if (device[i] != NULL) CUDA_OK(cudaFree(device[i]));
    memset(buffers, 0, sizeof *buffers);
}

bool generic_upload(const struct generic_buffers *buffers, const struct generic_kernel *kernel,
                    const void *first, const void *second, size_t n)
{
    size_t bytes = input_bytes(kernel, n);
    if (bytes == 0) return true;
    CUDA_TRY(cudaMemcpy(buffers->first, first, bytes, cudaMemcpyHostToDevice));
    if (kernel->arrays == 2)
        CUDA_TRY(cudaMemcpy(buffers->second, second, bytes, cudaMemcpyHostToDevice));
    return true;
}

cudaError_t generic_enqueue(const struct generic_buffers *buffers,
                            const struct generic_kernel *kernel, size_t n, struct pass_plan plan,
                            cudaStream_t stream)
{
    /* Buffers made for a smaller grid have too few partials. */
    if (plan.blocks > buffers->partials_capacity) return cudaErrorInvalidValue;
    struct generic_launch launch = {
        .first = buffers->first,
        .second = buffers->second,
        .n = n,
        .blocks = plan.blocks,
        .threads = plan.threads,
        .partials = buffers->partials,
        .ticket_counter = buffers->ticket_counter,
        .total = buffers->total,
    };
    return kernel->launch(&launch, stream);
}

bool generic_read(const struct generic_buffers *buffers, const struct generic_kernel *kernel,
                  double values[GENERIC_MAX_VALUES])
{
    unsigned char accumulator[GENERIC_MAX_VALUES * sizeof(double)];  /* reduce.cu asserts it fits */
    CUDA_TRY(cudaMemcpy(accumulator, buffers->total, kernel->accumulator_bytes,
                        cudaMemcpyDeviceToHost));
    for (int v = 0; v < kernel->result_values; v++)
        values[v] = scalar_at(kernel->result, accumulator, (size_t)v);
    return true;
}

/* ---- The run: choose, make the data, reduce, time, check, report -------------------------- */

extern const struct step step10;

static int usage_error(char *error, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
    return EXIT_USAGE;
}

static bool name_listed(const char *name, const char *const *names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) return true;
    return false;
}

/* "sum|min|max|sumsq|dot" */
static const char *joined(char *buffer, size_t size, const char *const *names, size_t count)
{
    buffer[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (i > 0) strncat(buffer, "|", size - strlen(buffer) - 1);
        strncat(buffer, names[i], size - strlen(buffer) - 1);
    }
    return buffer;
}

/* Called by common/cli.c while parsing, before the device is looked at. */
static int check_options(const struct options *options, char *error, size_t size)
{
    char names[128];
    if (options->op != NULL && !name_listed(options->op, OP_NAMES, COUNT_OF(OP_NAMES)))
        return usage_error(error, size, "--op must be one of %s, not '%s'",
                           joined(names, sizeof names, OP_NAMES, COUNT_OF(OP_NAMES)), options->op);
    if (options->type != NULL && !name_listed(options->type, TYPE_NAMES, COUNT_OF(TYPE_NAMES)))
        return usage_error(error, size, "--type must be one of %s, not '%s'",
                           joined(names, sizeof names, TYPE_NAMES, COUNT_OF(TYPE_NAMES)),
                           options->type);
    if (options->sweep_blocks || options->clock)
        return usage_error(error, size, "--sweep-blocks and --clock are step09's, not step10's");
    if (options->finish == FINISH_CPU)
        return usage_error(error, size,
                           "step10 finishes inside its one launch: --finish cpu does not apply");
    return EXIT_CORRECT;
}

struct host_inputs {
    void *arrays[2];                  /* [1]: dot only */
};

static void free_inputs(struct host_inputs *inputs)
{
    free(inputs->arrays[0]);
    free(inputs->arrays[1]);
}

static void convert_floats(enum generic_scalar scalar, const float *from, void *to, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (scalar) {
        case SCALAR_INT32: ((int *)to)[i] = (int)from[i]; break;
        case SCALAR_INT64: ((long long *)to)[i] = (long long)from[i]; break;
        case SCALAR_FLOAT: ((float *)to)[i] = from[i]; break;
        case SCALAR_DOUBLE: ((double *)to)[i] = from[i]; break;
        }
    }
}

/* The pattern's values (integers 0..99, ones, one-hot), converted to the input type; the
 * dot product's second array comes from the next seed. */
static bool make_inputs(const struct generic_kernel *kernel, const struct options *options,
                        struct host_inputs *inputs)
{
    size_t n = options->n, slots = n > 0 ? n : 1;
    float *staging = malloc(slots * sizeof *staging);
    bool ok = staging != NULL;
    for (int a = 0; ok && a < kernel->arrays; a++) {
        inputs->arrays[a] = malloc(slots * generic_scalar_bytes(kernel->input));
        ok = inputs->arrays[a] != NULL;
        if (ok) {
            pattern_fill(staging, n, &options->pattern, options->seed + (uint64_t)a);
            convert_floats(kernel->input, staging, inputs->arrays[a], n);
        }
    }
    free(staging);
    if (!ok) fprintf(stderr, "not enough host memory for %zu elements\n", n);
    return ok;
}

/* What the host expects. Exact: every pattern value is an integer and every sum stays below
 * 2^53, so double holds each total exactly. */
struct expectation {
    double value[GENERIC_MAX_VALUES];
    double magnitude[GENERIC_MAX_VALUES];  /* sum of |term|: what rounding scales with */
    unsigned product_roundings[GENERIC_MAX_VALUES];  /* a product before the sum: 1 */
};

static void add_term(struct expectation *expected, int v, double term)
{
    expected->value[v] += term;
    expected->magnitude[v] += fabs(term);
}

static struct expectation expect(enum generic_op op, const struct generic_kernel *kernel,
                                 const struct host_inputs *inputs, size_t n)
{
    struct expectation expected = {.value = {0}};
    const void *a = inputs->arrays[0], *b = inputs->arrays[1];
    bool integer = kernel->input == SCALAR_INT32;
    if (op == OP_MIN) expected.value[0] = integer ? INT_MAX : INFINITY;  /* the identities */
    if (op == OP_MAX) expected.value[0] = integer ? INT_MIN : -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double x = scalar_at(kernel->input, a, i);
        switch (op) {
        case OP_SUM: add_term(&expected, 0, x); break;
        case OP_MIN: expected.value[0] = fmin(expected.value[0], x); break;
        case OP_MAX: expected.value[0] = fmax(expected.value[0], x); break;
        case OP_SUMSQ:
            add_term(&expected, 0, x);
            add_term(&expected, 1, x * x);
            break;
        case OP_DOT: add_term(&expected, 0, x * scalar_at(kernel->input, b, i)); break;
        }
    }
    if (op == OP_SUMSQ) expected.product_roundings[1] = 1;
    if (op == OP_DOT) expected.product_roundings[0] = 1;
    return expected;
}

/* 0: the result must be exact (integer accumulation, min and max, or floating sums whose
 * terms are integers with a total below the type's exact-integer limit). Otherwise Higham's
 * gamma(depth) * sum |term|, one more rounding where each term is a product. */
static double value_bound(const struct generic_kernel *kernel, enum generic_op op,
                          const struct expectation *expected, int v, unsigned depth)
{
    bool floating = kernel->result == SCALAR_FLOAT || kernel->result == SCALAR_DOUBLE;
    if (!floating || op == OP_MIN || op == OP_MAX) return 0;
    bool single = kernel->result == SCALAR_FLOAT;
    double exact_limit = single ? FLOAT_EXACT_INTEGER_LIMIT : DOUBLE_EXACT_INTEGER_LIMIT;
    if (expected->magnitude[v] <= exact_limit) return 0;
    double unit_roundoff = single ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    return rounding_gamma(depth + expected->product_roundings[v], unit_roundoff) *
           expected->magnitude[v];
}

struct outcome {
    const struct generic_entry *entry;
    struct generic_kernel kernel;
    struct pass_plan plan;
    double values[GENERIC_MAX_VALUES];
    struct expectation expected;
    double bound[GENERIC_MAX_VALUES];
    bool within[GENERIC_MAX_VALUES];
    bool ok;
    struct timing timing;
    double gb_per_s, peak_pct;
};

static void judge(struct outcome *outcome, size_t n)
{
    unsigned depth = generic_depth(n, outcome->plan);
    outcome->ok = true;
    for (int v = 0; v < outcome->kernel.result_values; v++) {
        double got = outcome->values[v], expected = outcome->expected.value[v];
        double bound = value_bound(&outcome->kernel, outcome->entry->op, &outcome->expected, v,
                                   depth);
        outcome->bound[v] = bound;
        outcome->within[v] = bound == 0 ? got == expected : fabs(got - expected) <= bound;
        outcome->ok = outcome->ok && outcome->within[v];
    }
}

static bool time_launches(const struct generic_buffers *buffers, struct outcome *outcome,
                          const struct options *options)
{
    double *samples = malloc((size_t)options->iters * sizeof *samples);
    if (samples == NULL) {
        fprintf(stderr, "not enough host memory for %d timings\n", options->iters);
        return false;
    }
    cudaEvent_t events[2] = {NULL, NULL};
    bool ok = CUDA_OK(cudaEventCreate(&events[0])) && CUDA_OK(cudaEventCreate(&events[1]));
    for (int i = 0; ok && i < options->warmup + options->iters; i++) {
        float milliseconds = 0;
        ok = CUDA_OK(cudaEventRecord(events[0], 0)) &&
             CUDA_OK(generic_enqueue(buffers, &outcome->kernel, options->n, outcome->plan, 0)) &&
             CUDA_OK(cudaEventRecord(events[1], 0)) && CUDA_OK(cudaEventSynchronize(events[1])) &&
             CUDA_OK(cudaEventElapsedTime(&milliseconds, events[0], events[1]));
        if (ok && i >= options->warmup) samples[i - options->warmup] = milliseconds;
    }
    if (ok) outcome->timing = timing_summarize(samples, options->iters);
    for (int i = 0; i < 2; i++)
        if (events[i] != NULL) ok = CUDA_OK(cudaEventDestroy(events[i])) && ok;
    free(samples);
    return ok;
}

static double bytes_read(const struct outcome *outcome, size_t n)
{
    return (double)outcome->kernel.arrays * n * generic_scalar_bytes(outcome->kernel.input);
}

static void derive_bandwidth(struct outcome *outcome, size_t n, const struct device_info *device)
{
    outcome->gb_per_s = effective_gb_per_s(bytes_read(outcome, n), outcome->timing.median_ms);
    outcome->peak_pct =
        device->peak_gb_per_s > 0 ? PERCENT * outcome->gb_per_s / device->peak_gb_per_s : 0;
}

/* ---- Printing: common/report.c's shapes, with one or two values ------------------------- */

static void format_value(char *buffer, size_t size, enum generic_scalar scalar, double value)
{
    if (scalar == SCALAR_FLOAT) snprintf(buffer, size, "%.9g", value);
    else snprintf(buffer, size, "%.17g", value);
}

/* "1650" or "1650;107250": the separator keeps a CSV field free of commas. */
static void format_values(char *buffer, size_t size, const struct outcome *outcome,
                          const double *values, enum generic_scalar scalar, const char *separator)
{
    size_t used = 0;
    buffer[0] = '\0';
    for (int v = 0; v < outcome->kernel.result_values && used < size; v++) {
        char one[64];
        format_value(one, sizeof one, scalar, values[v]);
        used += (size_t)snprintf(buffer + used, size - used, "%s%s", v ? separator : "", one);
    }
}

static const char *verdict_word(bool ok) { return ok ? "CORRECT" : "WRONG"; }

static void print_human(const struct outcome *outcome, const struct options *options,
                        const struct device_info *device, const char *pattern)
{
    const struct generic_entry *entry = outcome->entry;
    const struct generic_kernel *kernel = &outcome->kernel;
    printf("%s: %s\n", step10.name, step10.title);
    printf("lesson     %s\n", step10.lesson);
    printf("operation  %s of %s, accumulated as %s\n", entry->op_name, entry->type_name,
           RESULT_TYPE_NAMES[kernel->result]);
    printf("device     %s, %d SMs, sm_%d%d, peak %.0f GB/s\n", device->name, device->sm_count,
           device->cc_major, device->cc_minor, device->peak_gb_per_s);
    printf("input      n = %zu (%.1f MiB in %d array(s) of %s), pattern %s\n", options->n,
           bytes_read(outcome, options->n) / BYTES_PER_MIB, kernel->arrays, entry->type_name,
           pattern);
    printf("launch     %u blocks x %u threads, %u element(s) per thread; 1 launch(es), "
           "GPU finish\n",
           outcome->plan.blocks, outcome->plan.threads, outcome->plan.elements_per_thread);
    for (int v = 0; v < kernel->result_values; v++) {
        char got[64];
        format_value(got, sizeof got, kernel->result, outcome->values[v]);
        printf("result     %s %s   expected %.17g\n", VALUE_NAMES[entry->op][v], got,
               outcome->expected.value[v]);
        double error = fabs(outcome->values[v] - outcome->expected.value[v]);
        if (outcome->bound[v] == 0)
            printf("check      exact (integers, or integer terms below the type's limit): "
                   "error %.9g -> %s\n", error, verdict_word(outcome->within[v]));
        else
            printf("check      |error| %.9g <= bound %.9g (README: verification) -> %s\n", error,
                   outcome->bound[v], verdict_word(outcome->within[v]));
    }
    printf("time       %.4f ms median, %.4f .. %.4f ms over %d runs\n", outcome->timing.median_ms,
           outcome->timing.min_ms, outcome->timing.max_ms, outcome->timing.runs);
    printf("bandwidth  %.1f GB/s effective = %.1f%% of peak (every input array counted)\n",
           outcome->gb_per_s, outcome->peak_pct);
}

static void print_csv(const struct outcome *outcome, const struct options *options,
                      const struct device_info *device, const char *pattern)
{
    char name[64], result[160], expected[160];
    snprintf(name, sizeof name, "%s:%s:%s", step10.name, outcome->entry->op_name,
             outcome->entry->type_name);
    format_values(result, sizeof result, outcome, outcome->values, outcome->kernel.result, ";");
    format_values(expected, sizeof expected, outcome, outcome->expected.value, SCALAR_DOUBLE, ";");
    report_csv_header(stdout);
    csv_field(stdout, name);
    printf(",%zu,", options->n);
    csv_field(stdout, pattern);
    printf(",%s,%s,%d,%.6f,%.6f,%.2f,%.2f,", result, expected, outcome->ok ? 1 : 0,
           outcome->timing.median_ms, outcome->timing.min_ms, outcome->gb_per_s,
           outcome->peak_pct);
    csv_field(stdout, device->name);
    putchar('\n');
}

static void print_verdict(const struct outcome *outcome, const struct options *options,
                          const char *pattern)
{
    char result[160], expected[160];
    format_values(result, sizeof result, outcome, outcome->values, outcome->kernel.result, ";");
    format_values(expected, sizeof expected, outcome, outcome->expected.value, SCALAR_DOUBLE, ";");
    printf("%s %s:%s n=%zu pattern=%s result=%s expected=%s %s\n", step10.name,
           outcome->entry->op_name, outcome->entry->type_name, options->n, pattern, result,
           expected, verdict_word(outcome->ok));
}

static void print_outcome(const struct outcome *outcome, const struct options *options,
                          const struct device_info *device)
{
    char pattern[64];
    pattern_describe(&options->pattern, pattern, sizeof pattern);
    if (options->csv) print_csv(outcome, options, device, pattern);
    else if (options->quiet) print_verdict(outcome, options, pattern);
    else print_human(outcome, options, device, pattern);
}

/* Upload, time (the last timed run's total is the result), read. */
static bool reduce_and_time(const struct host_inputs *inputs, const struct options *options,
                            struct outcome *outcome)
{
    struct generic_buffers buffers;
    bool ok = generic_buffers_create(&buffers, &outcome->kernel, options->n,
                                     outcome->plan.blocks) &&
              generic_upload(&buffers, &outcome->kernel, inputs->arrays[0], inputs->arrays[1],
                             options->n) &&
              time_launches(&buffers, outcome, options) &&
              generic_read(&buffers, &outcome->kernel, outcome->values);
    generic_buffers_destroy(&buffers);
    return ok;
}

/* The options have passed check_options (common/cli.c calls it), and the table has every
 * op for every type (tests/gpu_step10.c checks): the entry exists. */
static int run(const struct options *options, const struct device_info *device)
{
    struct outcome outcome = {.entry = generic_find(options->op, options->type)};
    outcome.kernel = outcome.entry->instantiate();
    struct launch_request request = launch_request_for(&step10, options, device);
    outcome.plan = generic_plan(&outcome.kernel, options->n, &request);
    if (!device_memory_fits(device,
                            generic_device_bytes(&outcome.kernel, options->n, outcome.plan.blocks)))
        return EXIT_ENVIRONMENT;
    struct host_inputs inputs = {{NULL, NULL}};
    if (!make_inputs(&outcome.kernel, options, &inputs) ||
        !reduce_and_time(&inputs, options, &outcome)) {
        free_inputs(&inputs);
        return EXIT_ENVIRONMENT;
    }
    outcome.expected = expect(outcome.entry->op, &outcome.kernel, &inputs, options->n);
    free_inputs(&inputs);
    judge(&outcome, options->n);
    derive_bandwidth(&outcome, options->n, device);
    print_outcome(&outcome, options, device);
    return outcome.ok ? EXIT_CORRECT : EXIT_WRONG;
}

const struct step step10 = {
    .name = "step10",
    .directory = "step10_generic",
    .title = "Generic reduction - any type, any operator (document 002's templates)",
    .lesson = "one templated kernel: T is read, ReductionType accumulates; C picks an instance",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .takes_block_count = true,
    .run = run,
    .check_options = check_options,
};
