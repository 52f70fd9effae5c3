/* step14_generic: the host's side of five operators on three types. data.c puts the data on
 * the device in the chosen type; verdict.c knows the names, works out the expected result on
 * the host with its error bound, and prints what a run or a --check case found. */
#ifndef STEP14_GENERIC_H
#define STEP14_GENERIC_H

#include "reduce.h"
#include "toolbox.h"

extern const char *const OP_NAMES[OPS];     /* "sum", "min", "max", "sumsq", "dot" */
extern const char *const TYPE_NAMES[TYPES]; /* "int", "float", "double", "half", "bf16" */
extern const size_t ELEMENT_BYTES[TYPES];

/* input_accumulator: --accumulate input, a sum of half or bf16 added up in that type. */
struct pair {
    enum op op;
    enum element_type type;
    bool input_accumulator;
};

/* The index of `name` in names[0 .. count), or -1. */
int name_index(const char *name, const char *const names[], int count);
struct host_values;
/* Whether the type can hold the data, judged from the values as the type reads them: an int
 * array holds integer data only (a real-valued input would lose its fractions); a half array
 * holds magnitudes up to 65504 only (a larger one would read as infinity). */
bool type_takes(enum element_type type, const struct host_values *as_read);

/* ---- low_precision.c: half and bf16 on the host ---------------------------------------- */

/* Rounded to nearest, ties to even, as the GPU's __float2half_rn rounds: too large a
 * magnitude gives infinity, a NaN stays a (quiet) NaN. Widening back to float is exact.
 * bf16's pair, bf16_from_float and bf16_to_float, is the toolbox's (common/bf16.c). */
uint16_t half_from_float(float x);
float half_to_float(uint16_t h);
/* x as an array of the type holds it: for half and bf16, rounded to the type and widened
 * back; for int, float and double, x itself (the patterns' values those types take are
 * exact in them). */
float as_read(enum element_type type, float x);

/* ---- verdict.c: what the result must be -------------------------------------------------- */

/* What the expected results need from the data, in one pass on the host. */
struct host_values {
    struct reference reference;    /* the sum, sum|x|, whether every x is an integer */
    double lowest, highest;        /* +inf and -inf for no element */
    double products, abs_products; /* sum a[i] b[i] and sum |a[i] b[i]|; b = a: squares */
};
/* false: no host memory for it (said on stderr). */
bool host_values_compute(struct host_values *values, const float *a, const float *b, size_t n,
                         const struct reference *reference);

/* Exact where every partial result is an integer that the accumulator holds (and always for
 * min and max, which only compare); otherwise within gamma(depth) * sum|term| in the
 * accumulator's precision, plus the host's own rounding (docs/verification.md). */
struct expectation {
    int values; /* sumsq: 2 (the sum, the sum of squares) */
    double value[MAX_RESULT_VALUES], bound[MAX_RESULT_VALUES]; /* bound 0: exactly equal */
    unsigned depth;
};
struct expectation expect(struct pair pair, const struct host_values *values, unsigned depth);
bool expectation_met(const struct expectation *expected, const double result[]);

/* --check: the verdict on one pair of one case. A repeated case must give the bits that
 * `previous` holds from the run before; it holds this run's afterwards. */
void check_pair(struct check *check, const struct check_case *done, struct pair pair,
                const struct expectation *expected, const double result[], double previous[]);

/* The report of one size, in the shape of common/report.c's: the human lines, --quiet's line
 * or a --csv row (its result, expected, error and bound hold "a;b" for sumsq). Sets r->ok. */
void pair_report(struct report *r, struct pair pair, const struct expectation *expected,
                 const double result[], const struct options *options);

/* ---- data.c: the data in the type ------------------------------------------------------- */

/* One size's input: the host's floats and their reference (input_create_on_host), and on the
 * device as many copies in the type as fit (memory_plan_make: beside dot's second array, the
 * conversion's staging buffer and CUB's storage), converted on the device in parts where the
 * type is not float; for dot the second array, b, is the same pattern from the next seed (one
 * copy). For half and bf16 the host arrays are then rounded to the type as well, so that
 * `values` come from exactly what the GPU reads. Not even one copy fits: false, after a
 * message that names the need. */
struct typed_input {
    struct input floats;
    const void *a[MAX_BUFFERS], *b; /* each run reads the next a; b: dot only */
    int count;
    float *b_host;
    void *owned[MAX_BUFFERS + 1]; /* the converted copies and b, freed here */
    struct host_values values;
};
/* Whether CUB's sum is timed beside the run: a float sum, unless --no-cub. */
bool cub_runs(const struct options *options, struct pair pair);
bool typed_input_create(struct typed_input *input, const struct options *options, size_t n,
                        struct pair pair, const struct device_info *device);
void typed_input_free(struct typed_input *input);

/* --check: an array of each type but float on the device for the largest case, filled per
 * case from its floats for the types that run; and a host array for the case's values as
 * half or bf16 read them. */
struct case_arrays {
    void *typed[TYPES];
    float *as_read;
};
bool case_arrays_create(struct case_arrays *arrays, size_t capacity);
bool case_arrays_fill(const struct case_arrays *arrays, const struct check_case *c,
                      bool type_runs[TYPES]);
/* The host's values of a fresh case for each type in [first, last]: the case's floats, or for
 * half and bf16 those floats as the type reads them. */
bool case_values_compute(struct host_values values[TYPES], const struct case_arrays *arrays,
                         const struct check_case *c, int first, int last);
const void *case_array(const struct case_arrays *arrays, const struct check_case *c,
                       enum element_type type);
void case_arrays_free(struct case_arrays *arrays);

#endif
