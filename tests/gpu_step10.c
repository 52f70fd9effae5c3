/* step10: every (operator, type) of its table against references computed here, on the host,
 * in long long: every value these tests reduce is an integer, so every exact total (sums,
 * sums of squares, dot products, minima, maxima) fits one. The foundation's N x pattern
 * matrix, every n up to 4096, every block size, forced grids, signed data, the int64
 * accumulator, and repeatability. The command-line checks need no GPU and always run; the
 * GPU tests are skipped without a device, never passed. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "../step10_generic/generic.h"
#include "device.h"
#include "gpu_support.h"

extern const struct step step10;

enum { MAX_ENTRIES = 64, SWEEP_LAST_N = 4096, REPEATS = 5, TEST_TIMEOUT_S = 900 };
enum { ERROR_SIZE = 512, MAX_ARGUMENTS = 12, REPORT_SIZE = 4096, CSV_OK_FIELD = 5 };
/* Signed data: integers in [-SIGNED_LIMIT, SIGNED_LIMIT], with one element beyond them. */
enum { SIGNED_LIMIT = 1000, SIGNED_EXTREME = 5000 };
/* 2^25 values of 99: the example of an int32 sum that overflows. */
enum { NINETY_NINE = 99, OVERFLOW_LOG2_N = 25 };
static const size_t BLOCK_SIZE_TEST_SIZES[] = {1, 33, 1025, 65537, 1000003};
static const unsigned FORCED_BLOCKS[] = {2, 3, 1000, 5000};
static const size_t FORCED_BLOCKS_SIZES[] = {1, 4097, 1000003};
static const size_t SIGNED_SIZES[] = {1, 1000, 65537, 1000003, (1u << 22) + 1};
static const char *const OPS[] = {"sum", "min", "max", "sumsq", "dot"};
static const char *const TYPES[] = {"int", "float", "double"};
static const char CSV_HEADER[] =
    "step,n,pattern,result,expected,ok,ms_median,ms_min,gb_per_s,peak_pct,device";

/* ---- the reference --------------------------------------------------------------------- */

struct expected {
    double value[GENERIC_MAX_VALUES];
    double magnitude[GENERIC_MAX_VALUES];  /* sum of |term| */
};

struct exact_sums {
    long long sum, abs_sum, squares, dot, abs_dot, least, most;
};

static struct exact_sums sums_of(const float *a, const float *b, size_t n)
{
    struct exact_sums s = {0, 0, 0, 0, 0, LLONG_MAX, LLONG_MIN};
    for (size_t i = 0; i < n; i++) {
        long long x = (long long)a[i];
        s.sum += x;
        s.abs_sum += llabs(x);
        s.squares += x * x;
        if (x < s.least) s.least = x;
        if (x > s.most) s.most = x;
        if (b != NULL) {
            long long product = x * (long long)b[i];
            s.dot += product;
            s.abs_dot += llabs(product);
        }
    }
    return s;
}

/* Of nothing, min and max are the operator's identity: the type's largest (smallest)
 * value, infinite for float and double. */
static struct expected reference(enum generic_op op, enum generic_scalar input, const float *a,
                                 const float *b, size_t n)
{
    struct exact_sums s = sums_of(a, b, n);
    bool integer = input == SCALAR_INT32;
    struct expected e = {.value = {0}};
    switch (op) {
    case OP_SUM:
        e.value[0] = (double)s.sum;
        e.magnitude[0] = (double)s.abs_sum;
        break;
    /* Each branch is a double: `integer ? INT_MAX : INFINITY` alone would be a float,
     * and INT_MAX as a float is 2^31. */
    case OP_MIN: e.value[0] = n ? (double)s.least : integer ? (double)INT_MAX : (double)INFINITY; break;
    case OP_MAX: e.value[0] = n ? (double)s.most : integer ? (double)INT_MIN : -(double)INFINITY; break;
    case OP_SUMSQ:
        e.value[0] = (double)s.sum;
        e.magnitude[0] = (double)s.abs_sum;
        e.value[1] = e.magnitude[1] = (double)s.squares;
        break;
    case OP_DOT:
        e.value[0] = (double)s.dot;
        e.magnitude[0] = (double)s.abs_dot;
        break;
    }
    return e;
}

/* Higham's gamma(k) = k u / (1 - k u). */
static double gamma_of(unsigned roundings, double unit_roundoff)
{
    double nu = roundings * unit_roundoff;
    return nu / (1 - nu);
}

/* 0 where the result must be exact: integer accumulators, min and max, and floating sums of
 * integer terms whose magnitudes add up to no more than the type's exact-integer limit. A
 * product (dot, the squares of sumsq) rounds once before it is added. */
static double allowed_error(enum generic_op op, enum generic_scalar result, int value,
                            double magnitude, unsigned depth)
{
    bool floating = result == SCALAR_FLOAT || result == SCALAR_DOUBLE;
    if (!floating || op == OP_MIN || op == OP_MAX) return 0;
    int significand_bits = result == SCALAR_FLOAT ? FLT_MANT_DIG : DBL_MANT_DIG;
    if (magnitude <= ldexp(1.0, significand_bits)) return 0;
    bool product = op == OP_DOT || (op == OP_SUMSQ && value == 1);
    return gamma_of(depth + (product ? 1 : 0), ldexp(1.0, -significand_bits)) * magnitude;
}

/* ---- the command line -------------------------------------------------------------------- */

struct parsed {
    int status;
    struct options options;
    char error[ERROR_SIZE];
};

static struct parsed parse_arguments(const char *const *args)
{
    char *argv[MAX_ARGUMENTS + 1];
    int argc = 0;
    argv[argc++] = "step10";
    for (; args[argc - 1] != NULL; argc++) {
        cr_assert_lt(argc, MAX_ARGUMENTS, "too many arguments for this test helper");
        argv[argc] = (char *)args[argc - 1];
    }
    argv[argc] = NULL;
    struct parsed parsed;
    parsed.status = cli_parse(argc, argv, &step10, &parsed.options, parsed.error,
                              sizeof parsed.error);
    return parsed;
}

#define PARSE(...) parse_arguments((const char *const[]){__VA_ARGS__, NULL})

/* ---- one reduction ----------------------------------------------------------------------- */

struct subject {
    const struct generic_entry *entry;
    struct generic_kernel kernel;
    struct launch_request request;
};

static struct subject begin(int index, unsigned threads)
{
    require_cuda_device();
    struct subject s = {.entry = &generic_table[index]};
    s.kernel = s.entry->instantiate();
    s.request = test_request(&step10, threads, 0);
    cr_log_info("step10 --op %s --type %s", s.entry->op_name, s.entry->type_name);
    return s;
}

static float *allocate_floats(size_t n)
{
    float *data = malloc((n ? n : 1) * sizeof *data);
    cr_assert_not_null(data, "out of host memory for %zu floats", n);
    return data;
}

/* The values converted to the kernel's input type, independently of host.c. */
static void *typed_copy(enum generic_scalar type, const float *values, size_t n)
{
    void *copy = malloc((n ? n : 1) * sizeof(double));
    cr_assert_not_null(copy);
    for (size_t i = 0; i < n; i++) {
        if (type == SCALAR_INT32) ((int *)copy)[i] = (int)values[i];
        else if (type == SCALAR_FLOAT) ((float *)copy)[i] = values[i];
        else ((double *)copy)[i] = values[i];
    }
    return copy;
}

static struct generic_buffers buffers_for(const struct subject *s, size_t n)
{
    struct generic_buffers buffers;
    struct pass_plan plan = generic_plan(&s->kernel, n, &s->request);
    cr_assert(generic_buffers_create(&buffers, &s->kernel, n, plan.blocks));
    return buffers;
}

/* Reduces a (and b, for dot) and checks every value against the reference. */
static void expect_correct(const struct subject *s, const struct generic_buffers *buffers,
                           const float *a, const float *b, size_t n, const char *what,
                           double got[GENERIC_MAX_VALUES])
{
    const struct generic_kernel *kernel = &s->kernel;
    void *first = typed_copy(kernel->input, a, n);
    void *second = kernel->arrays == 2 ? typed_copy(kernel->input, b, n) : NULL;
    struct pass_plan plan = generic_plan(kernel, n, &s->request);
    cr_assert(generic_upload(buffers, kernel, first, second, n));
    cr_assert_eq(generic_enqueue(buffers, kernel, n, plan, 0), cudaSuccess);
    cr_assert(generic_read(buffers, kernel, got) && cudaDeviceSynchronize() == cudaSuccess,
              "%s:%s %s n=%zu: a CUDA call failed (see stderr)", s->entry->op_name,
              s->entry->type_name, what, n);
    struct expected e = reference(s->entry->op, kernel->input, a, b, n);
    unsigned depth = generic_depth(n, plan);
    for (int v = 0; v < kernel->result_values; v++) {
        double bound = allowed_error(s->entry->op, kernel->result, v, e.magnitude[v], depth);
        bool ok = bound == 0 ? got[v] == e.value[v]
                             : isfinite(got[v]) && fabs(got[v] - e.value[v]) <= bound;
        cr_expect(ok, "%s:%s %s n=%zu blocks=%u threads=%u value %d: got %.17g, expected %.17g "
                      "(bound %.9g)",
                  s->entry->op_name, s->entry->type_name, what, n, plan.blocks, plan.threads, v,
                  got[v], e.value[v], bound);
    }
    free(first);
    free(second);
}

static void check(const struct subject *s, const struct generic_buffers *buffers,
                  const float *a, const float *b, size_t n, const char *what)
{
    double got[GENERIC_MAX_VALUES];
    expect_correct(s, buffers, a, b, n, what, got);
}

/* The dot product's other array: uniform data from another seed, moved up by one (1..100)
 * so that no element is 0. Pairing a[i] with anything but b[i] changes the result, and so
 * does losing the one element of a one-hot a. */
static float *second_array(size_t n, uint64_t seed)
{
    float *b = allocate_floats(n);
    struct pattern uniform = {.kind = PATTERN_UNIFORM};
    pattern_fill(b, n, &uniform, seed + 1);
    for (size_t i = 0; i < n; i++) b[i] += 1.0f;
    return b;
}

static void check_patterns(const struct subject *s, const struct generic_buffers *buffers,
                           size_t n)
{
    uint64_t state = n;
    struct pattern patterns[] = {{.kind = PATTERN_UNIFORM}, {.kind = PATTERN_ONES},
                                 {PATTERN_ONEHOT, false, 0}, {PATTERN_ONEHOT, true, 0},
                                 {PATTERN_ONEHOT, false, n ? random_next(&state) % n : 0}};
    float *a = allocate_floats(n), *b = second_array(n, n);
    for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
        size_t position;
        if (patterns[p].kind == PATTERN_ONEHOT &&
            !pattern_onehot_position(&patterns[p], n, &position))
            continue;
        char name[64];
        pattern_fill(a, n, &patterns[p], n + p);
        check(s, buffers, a, b, n, pattern_describe(&patterns[p], name, sizeof name));
    }
    free(a);
    free(b);
}

/* ---- GPU tests, one per (op, type) -------------------------------------------------------- */

#define EVERY_ENTRY(test_name)                                                             \
    ParameterizedTestParameters(gpu_step10, test_name)                                    \
    {                                                                                     \
        static int indices[MAX_ENTRIES];                                                  \
        int count = generic_table_count < MAX_ENTRIES ? generic_table_count : MAX_ENTRIES; \
        for (int i = 0; i < count; i++) indices[i] = i;                                   \
        return cr_make_param_array(int, indices, (size_t)count);                          \
    }

EVERY_ENTRY(matrix)
ParameterizedTest(int *index, gpu_step10, matrix, .timeout = TEST_TIMEOUT_S)
{
    struct subject s = begin(*index, 0);
    for (int i = 0; i < MATRIX_SIZES_COUNT; i++) {
        struct generic_buffers buffers = buffers_for(&s, MATRIX_SIZES[i]);
        check_patterns(&s, &buffers, MATRIX_SIZES[i]);
        generic_buffers_destroy(&buffers);
    }
}

/* Exact patterns at every n: a lost or double-counted element shows. */
EVERY_ENTRY(every_size_to_4096)
ParameterizedTest(int *index, gpu_step10, every_size_to_4096, .timeout = TEST_TIMEOUT_S)
{
    struct subject s = begin(*index, 0);
    struct generic_buffers buffers = buffers_for(&s, SWEEP_LAST_N);
    float *ones = allocate_floats(SWEEP_LAST_N), *last_hot = allocate_floats(SWEEP_LAST_N);
    float *b = second_array(SWEEP_LAST_N, SWEEP_LAST_N);
    struct pattern ones_pattern = {.kind = PATTERN_ONES};
    pattern_fill(ones, SWEEP_LAST_N, &ones_pattern, 0);
    memset(last_hot, 0, SWEEP_LAST_N * sizeof *last_hot);
    for (size_t n = 1; n <= SWEEP_LAST_N; n++) {
        check(&s, &buffers, ones, b, n, "ones");
        last_hot[n - 1] = 1.0f;
        check(&s, &buffers, last_hot, b, n, "onehot:last");
        last_hot[n - 1] = 0.0f;
    }
    free(ones);
    free(last_hot);
    free(b);
    generic_buffers_destroy(&buffers);
}

EVERY_ENTRY(every_block_size)
ParameterizedTest(int *index, gpu_step10, every_block_size, .timeout = TEST_TIMEOUT_S)
{
    for (unsigned threads = step10.threads.min; threads <= step10.threads.max; threads *= 2) {
        struct subject s = begin(*index, threads);
        for (size_t i = 0; i < sizeof BLOCK_SIZE_TEST_SIZES / sizeof *BLOCK_SIZE_TEST_SIZES; i++) {
            struct generic_buffers buffers = buffers_for(&s, BLOCK_SIZE_TEST_SIZES[i]);
            check_patterns(&s, &buffers, BLOCK_SIZE_TEST_SIZES[i]);
            generic_buffers_destroy(&buffers);
        }
    }
}

/* --blocks B: many blocks with nothing to read still take part in the ticket. */
EVERY_ENTRY(forced_grids)
ParameterizedTest(int *index, gpu_step10, forced_grids, .timeout = TEST_TIMEOUT_S)
{
    struct subject s = begin(*index, 0);
    for (size_t g = 0; g < sizeof FORCED_BLOCKS / sizeof *FORCED_BLOCKS; g++) {
        s.request.blocks = FORCED_BLOCKS[g];
        for (size_t i = 0; i < sizeof FORCED_BLOCKS_SIZES / sizeof *FORCED_BLOCKS_SIZES; i++) {
            struct generic_buffers buffers = buffers_for(&s, FORCED_BLOCKS_SIZES[i]);
            check_patterns(&s, &buffers, FORCED_BLOCKS_SIZES[i]);
            generic_buffers_destroy(&buffers);
        }
    }
}

/* Integers of both signs, with a unique minimum and a unique maximum at random places: min
 * and max must find them, sums must cancel. */
static void fill_signed(float *data, size_t n, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++)
        data[i] = (float)((long long)(random_next(&state) % (2 * SIGNED_LIMIT + 1)) - SIGNED_LIMIT);
    data[random_next(&state) % n] = -SIGNED_EXTREME;
    data[random_next(&state) % n] = SIGNED_EXTREME;
}

EVERY_ENTRY(signed_values)
ParameterizedTest(int *index, gpu_step10, signed_values, .timeout = TEST_TIMEOUT_S)
{
    struct subject s = begin(*index, 0);
    for (size_t i = 0; i < sizeof SIGNED_SIZES / sizeof *SIGNED_SIZES; i++) {
        size_t n = SIGNED_SIZES[i];
        float *a = allocate_floats(n), *b = allocate_floats(n);
        fill_signed(a, n, n);
        fill_signed(b, n, n + 1);
        struct generic_buffers buffers = buffers_for(&s, n);
        check(&s, &buffers, a, b, n, "signed");
        generic_buffers_destroy(&buffers);
        free(a);
        free(b);
    }
}

/* The same input, the same bits: fixed assignment of elements, fixed order of merging. */
EVERY_ENTRY(repeatable)
ParameterizedTest(int *index, gpu_step10, repeatable, .timeout = TEST_TIMEOUT_S)
{
    struct subject s = begin(*index, 0);
    size_t n = (size_t)1 << OVERFLOW_LOG2_N;
    float *a = allocate_floats(n), *b = second_array(n, n);
    struct pattern uniform = {.kind = PATTERN_UNIFORM};
    pattern_fill(a, n, &uniform, n);
    struct generic_buffers buffers = buffers_for(&s, n);
    double first[GENERIC_MAX_VALUES], again[GENERIC_MAX_VALUES];
    expect_correct(&s, &buffers, a, b, n, "uniform", first);
    for (int run = 1; run < REPEATS; run++) {
        expect_correct(&s, &buffers, a, b, n, "uniform", again);
        cr_expect(memcmp(first, again, (size_t)s.kernel.result_values * sizeof *first) == 0,
                  "run %d differs from the first: %.17g, first %.17g", run, again[0], first[0]);
    }
    generic_buffers_destroy(&buffers);
    free(a);
    free(b);
}

/* ---- the whole run, as the binary does it after parsing ------------------------------------ */

/* step10's runner with stdout sent to a temporary file: its exit code, and what it printed. */
static int run_capturing_stdout(const struct options *options, char *text, size_t size)
{
    struct device_info device;
    char why[256];
    cr_assert(device_query(&device, why, sizeof why), "%s", why);
    FILE *capture = tmpfile();
    cr_assert_not_null(capture);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    cr_assert(saved >= 0 && dup2(fileno(capture), STDOUT_FILENO) >= 0);
    int status = step10.run(options, &device);
    fflush(stdout);
    cr_assert(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    rewind(capture);
    size_t got = fread(text, 1, size - 1, capture);
    text[got] = '\0';
    fclose(capture);
    return status;
}

/* The CSV of common/report.c's columns: step10:<op>:<type> in the step column, ok = 1. */
EVERY_ENTRY(csv_row_is_correct_and_names_op_and_type)
ParameterizedTest(int *index, gpu_step10, csv_row_is_correct_and_names_op_and_type,
                  .timeout = TEST_TIMEOUT_S)
{
    struct subject s = begin(*index, 0);
    struct parsed parsed = PARSE("--csv", "-n", "1000003", "--iters", "2", "--op",
                                 s.entry->op_name, "--type", s.entry->type_name);
    cr_assert_eq(parsed.status, EXIT_CORRECT, "%s", parsed.error);
    char text[REPORT_SIZE], prefix[64];
    cr_expect_eq(run_capturing_stdout(&parsed.options, text, sizeof text), EXIT_CORRECT, "%s",
                 text);
    char *row = strchr(text, '\n');
    cr_assert_not_null(row, "no header line: %s", text);
    *row++ = '\0';
    cr_expect_str_eq(text, CSV_HEADER);
    snprintf(prefix, sizeof prefix, "step10:%s:%s,1000003,uniform,", s.entry->op_name,
             s.entry->type_name);
    cr_expect_eq(strncmp(row, prefix, strlen(prefix)), 0, "row '%s' does not start '%s'", row,
                 prefix);
    char *field = row;
    for (int f = 0; f < CSV_OK_FIELD && field != NULL; f++) {
        field = strchr(field, ',');
        if (field != NULL) field++;
    }
    cr_assert_not_null(field, "fewer than %d fields in '%s'", CSV_OK_FIELD + 1, row);
    cr_expect_eq(strncmp(field, "1,", 2), 0, "ok is not 1 in '%s'", row);
}

/* ---- the int64 accumulator ----------------------------------------------------------------- */

static const struct generic_entry *entry_named(const char *op, const char *type)
{
    const struct generic_entry *entry = generic_find(op, type);
    cr_assert_not_null(entry, "no %s of %s", op, type);
    return entry;
}

/* 2^25 * 99 = 3,321,888,768 > INT32_MAX: an int32 accumulator would wrap around. */
Test(gpu_step10, int_sums_of_2_25_nineties_need_int64, .timeout = TEST_TIMEOUT_S)
{
    size_t n = (size_t)1 << OVERFLOW_LOG2_N;
    const char *const ops[] = {"sum", "sumsq", "dot"};
    float *nineties = allocate_floats(n);
    for (size_t i = 0; i < n; i++) nineties[i] = NINETY_NINE;
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        const struct generic_entry *entry = entry_named(ops[o], "int");
        struct subject s = begin((int)(entry - generic_table), 0);
        struct generic_buffers buffers = buffers_for(&s, n);
        double got[GENERIC_MAX_VALUES];
        expect_correct(&s, &buffers, nineties, nineties, n, "all 99", got);
        cr_expect_gt(got[0], (double)INT_MAX, "%s: %.17g fits an int32?", ops[o], got[0]);
        generic_buffers_destroy(&buffers);
    }
    free(nineties);
}

/* ---- without a GPU: the table and the option checks ---------------------------------------- */

Test(step10_table, every_op_has_every_type_with_its_accumulator)
{
    for (size_t o = 0; o < sizeof OPS / sizeof *OPS; o++) {
        for (size_t t = 0; t < sizeof TYPES / sizeof *TYPES; t++) {
            const struct generic_entry *entry = entry_named(OPS[o], TYPES[t]);
            struct generic_kernel kernel = entry->instantiate();
            bool integer = strcmp(TYPES[t], "int") == 0;
            bool sum_like = entry->op == OP_SUM || entry->op == OP_SUMSQ || entry->op == OP_DOT;
            enum generic_scalar input = integer                       ? SCALAR_INT32
                                        : strcmp(TYPES[t], "float") == 0 ? SCALAR_FLOAT
                                                                         : SCALAR_DOUBLE;
            cr_expect_eq(kernel.input, input, "%s:%s input", OPS[o], TYPES[t]);
            cr_expect_eq(kernel.arrays, entry->op == OP_DOT ? 2 : 1, "%s:%s", OPS[o], TYPES[t]);
            cr_expect_eq(kernel.result_values, entry->op == OP_SUMSQ ? 2 : 1);
            cr_expect_eq(kernel.result, integer && sum_like ? SCALAR_INT64 : input,
                         "%s:%s accumulates in the wrong type", OPS[o], TYPES[t]);
            cr_expect_eq(kernel.accumulator_bytes,
                         (size_t)kernel.result_values * generic_scalar_bytes(kernel.result));
        }
    }
    cr_expect_eq(generic_find(NULL, NULL), entry_named("sum", "float"), "defaults");
}


Test(step10_cli, every_op_and_type_is_accepted)
{
    for (size_t o = 0; o < sizeof OPS / sizeof *OPS; o++)
        for (size_t t = 0; t < sizeof TYPES / sizeof *TYPES; t++) {
            struct parsed parsed = PARSE("--op", OPS[o], "--type", TYPES[t]);
            cr_expect_eq(parsed.status, EXIT_CORRECT, "%s %s: %s", OPS[o], TYPES[t], parsed.error);
        }
    cr_expect_eq(PARSE("--blocks", "5").status, EXIT_CORRECT);
}

/* Refused while parsing, before any device is looked at, naming the bad value. */
Test(step10_cli, bad_op_type_and_other_steps_options_are_usage_errors)
{
    const struct {
        struct parsed parsed;
        const char *named;
    } cases[] = {
        {PARSE("--op", "product"), "'product'"},
        {PARSE("--op", "Sum"), "'Sum'"},
        {PARSE("--type", "half"), "'half'"},
        {PARSE("--op", "dot", "--type", "int64"), "'int64'"},
        {PARSE("--finish", "cpu"), "--finish cpu"},
        {PARSE("--clock"), "--clock"},
        {PARSE("--sweep-blocks"), "--sweep-blocks"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cr_expect_eq(cases[i].parsed.status, EXIT_USAGE, "case %zu accepted", i);
        cr_expect_not_null(strstr(cases[i].parsed.error, cases[i].named),
                           "case %zu: '%s' does not name %s", i, cases[i].parsed.error,
                           cases[i].named);
    }
}
