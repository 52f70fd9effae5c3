/* step14_generic: the names of the operators and types, the expected result of each (op, type)
 * worked out on the host, its error bound, and the lines that report it. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generic.h"

const char *const OP_NAMES[OPS] = {"sum", "min", "max", "sumsq", "dot"};
const char *const TYPE_NAMES[TYPES] = {"int", "float", "double", "half", "bf16"};
const size_t ELEMENT_BYTES[TYPES] = {sizeof(int), sizeof(float), sizeof(double), sizeof(uint16_t),
                                     sizeof(uint16_t)};

/* What an accumulator rounds: its unit roundoff u = 2^-p for p significant bits (int sums:
 * long long, no rounding), and the largest magnitude up to which it holds every integer, 2^p.
 * half and bf16 accumulate in float; --accumulate input sums them in their own type. */
struct precision {
    double unit_roundoff, exact_integers_up_to;
};
static const struct precision ACCUMULATOR[TYPES] = {{0, INFINITY},
                                                    {FLT_EPSILON / 2, 16777216.0},
                                                    {DBL_EPSILON / 2, 9007199254740992.0},
                                                    {FLT_EPSILON / 2, 16777216.0},
                                                    {FLT_EPSILON / 2, 16777216.0}};
enum { HALF_BITS = 11, BF16_BITS = 8 }; /* significant bits, the hidden one included */
static const double BYTES_PER_MIB = 1024.0 * 1024.0, PERCENT = 100.0;
enum { CHUNK = 1 << 16, PRODUCT_ROUNDING = 1, CUDA_MAJOR = 1000, CUDA_MINOR = 10, TEXT = 96 };

int name_index(const char *name, const char *const names[], int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0) return i;
    return -1;
}

bool type_takes(enum element_type type, const struct host_values *as_read)
{
    if (type == TYPE_INT) return as_read->reference.integer_valued;
    if (type == TYPE_HALF)
        return as_read->reference.n == 0 ||
               (isfinite(as_read->lowest) && isfinite(as_read->highest));
    return true;
}

/* The accumulator of the pair: the type's own, or with --accumulate input the half or bf16
 * itself. */
static struct precision accumulator(struct pair p)
{
    if (!p.input_accumulator) return ACCUMULATOR[p.type];
    int bits = p.type == TYPE_HALF ? HALF_BITS : BF16_BITS;
    return (struct precision){ldexp(1, -bits), ldexp(1, bits)};
}

/* Fixed chunks summed in order, as in common/verify.c: the same doubles on any number of host
 * threads. A float times a float is exact in double (24 + 24 bits of significand <= 53). */
bool host_values_compute(struct host_values *v, const float *a, const float *b, size_t n,
                         const struct reference *reference)
{
    size_t chunks = (n + CHUNK - 1) / CHUNK;
    double *parts = calloc(2 * chunks + 1, sizeof *parts), lowest = INFINITY, highest = -INFINITY;
    *v = (struct host_values){.reference = *reference, .lowest = INFINITY, .highest = -INFINITY};
    if (parts == NULL)
        fprintf(stderr, "not enough host memory for the expected results of %zu elements\n", n);
    if (parts == NULL) return false;
#pragma omp parallel for schedule(static) reduction(min : lowest) reduction(max : highest)
    for (size_t c = 0; c < chunks; c++)
        for (size_t i = c * CHUNK; i < n && i < (c + 1) * CHUNK; i++) {
            double product = (double)a[i] * b[i];
            lowest = fmin(lowest, a[i]);
            highest = fmax(highest, a[i]);
            parts[2 * c] += product;
            parts[2 * c + 1] += fabs(product);
        }
    for (size_t c = 0; c < chunks; c++) {
        v->products += parts[2 * c];
        v->abs_products += parts[2 * c + 1];
    }
    v->lowest = lowest;
    v->highest = highest;
    free(parts);
    return true;
}

/* One sum: exact when its terms are integers and sum|term| fits the accumulator's exact
 * integers (docs/verification.md, (a)); else gamma(depth) in the accumulator's precision,
 * plus the host's own double rounding for real-valued data: gamma(n) in double, as in
 * error_bound. Infinite where that reaches sum|term| (or depth * u >= 1): a bound that wide
 * passes 0, as if every term were lost, so there is none, and nothing passes (as
 * common/verify.c's bound_judges refuses it). */
static double sum_bound(struct precision accumulator, double abs_sum, bool integer, unsigned depth,
                        size_t n)
{
    if (accumulator.unit_roundoff == 0 || (integer && abs_sum <= accumulator.exact_integers_up_to))
        return 0;
    double host = integer ? 0 : rounding_gamma((double)n, DBL_EPSILON / 2);
    double bound = (rounding_gamma(depth, accumulator.unit_roundoff) + host) * abs_sum;
    return bound < abs_sum ? bound : INFINITY;
}

/* min and max of nothing: the operator's identity, which the kernel returns for n = 0. */
static double extreme(enum element_type type, double value)
{
    if (type != TYPE_INT || isfinite(value)) return value;
    return value > 0 ? INT_MAX : INT_MIN;
}

struct expectation expect(struct pair p, const struct host_values *v, unsigned depth)
{
    const struct reference *r = &v->reference;
    struct precision a = accumulator(p);
    struct expectation e = {.values = p.op == OP_SUMSQ ? 2 : 1, .depth = depth};
    /* a product (dot, and sumsq's squares) is rounded once before it is added (of half and
     * bf16 it is exact in float: one rounding too many only makes the bound safer) */
    double products_bound = sum_bound(a, v->abs_products, r->integer_valued,
                                      depth + PRODUCT_ROUNDING, r->n);
    switch (p.op) {
    case OP_SUM:
        e.value[0] = r->sum;
        e.bound[0] = sum_bound(a, r->abs_sum, r->integer_valued, depth, r->n);
        break;
    case OP_MIN:
        e.value[0] = extreme(p.type, v->lowest);
        break;
    case OP_MAX:
        e.value[0] = extreme(p.type, v->highest);
        break;
    case OP_SUMSQ:
        e.value[0] = r->sum;
        e.bound[0] = sum_bound(a, r->abs_sum, r->integer_valued, depth, r->n);
        e.value[1] = v->products;
        e.bound[1] = products_bound;
        break;
    default:
        e.value[0] = v->products;
        e.bound[0] = products_bound;
        break;
    }
    return e;
}

/* A bound of 0 asks for equality (infinity equals itself: min and max of nothing); otherwise
 * the result and the bound must be finite and the result within the bound, so NaN never
 * passes, and neither does anything where no bound exists (depth * u >= 1). */
bool expectation_met(const struct expectation *e, const double result[])
{
    for (int k = 0; k < e->values; k++) {
        bool met = e->bound[k] == 0 ? result[k] == e->value[k]
                                    : isfinite(result[k]) && isfinite(e->bound[k]) &&
                                          fabs(result[k] - e->value[k]) <= e->bound[k];
        if (!met) return false;
    }
    return true;
}

/* Whether every bound exists (sum_bound gives none as infinity). */
static bool bounded(const struct expectation *e)
{
    return isfinite(e->bound[0]) && isfinite(e->bound[1]);
}

/* The values joined by ';', each in `format`. */
static const char *joined(char *text, const char *format, const double values[], int count)
{
    char one[TEXT / 2];
    int used = 0;
    text[0] = '\0';
    for (int k = 0; k < count; k++) {
        snprintf(one, sizeof one, format, values[k]);
        used += snprintf(text + used, TEXT - used, "%s%s", k > 0 ? ";" : "", one);
    }
    return text;
}

/* Results as their accumulator holds them: integers whole, float to 9 digits, double to 17. */
static const char *result_format(struct pair p)
{
    return p.type == TYPE_INT ? "%.0f" : p.type == TYPE_DOUBLE ? "%.17g" : "%.9g";
}

/* "sum:bf16", or "sum:bf16:accumulate-input" with --accumulate input. */
static const char *pair_name(struct pair p, char *text)
{
    snprintf(text, TEXT, "%s:%s%s", OP_NAMES[p.op], TYPE_NAMES[p.type],
             p.input_accumulator ? ":accumulate-input" : "");
    return text;
}

void check_pair(struct check *check, const struct check_case *done, struct pair p,
                const struct expectation *e, const double result[], double previous[])
{
    char name[TEXT], got[TEXT], wanted[TEXT], allowed[TEXT], what[5 * TEXT];
    bool same_bits = !done->repeat || memcmp(result, previous, e->values * sizeof *result) == 0;
    memcpy(previous, result, e->values * sizeof *result);
    snprintf(what, sizeof what, "%s got %s, expected %s, allowed error %s%s%s", pair_name(p, name),
             joined(got, result_format(p), result, e->values),
             joined(wanted, "%.17g", e->value, e->values),
             joined(allowed, "%.9g", e->bound, e->values),
             bounded(e) ? "" : "; cannot be judged: no bound exists",
             same_bits ? "" : "; a repeated run gave other bits");
    check_verdict(check, done, expectation_met(e, result) && same_bits, what);
}

static double gb_per_s(const struct report *r, struct pair p)
{
    double arrays = p.op == OP_DOT ? 2 : 1;
    return effective_gb_per_s(arrays * r->n * ELEMENT_BYTES[p.type], r->time.median_ms);
}

static void print_human(const struct report *r, struct pair p, const struct expectation *e,
                        const char *got, const char *wanted, const char *errors, const char *bounds)
{
    const struct device_info *d = r->device;
    const char *verdict = r->ok ? "CORRECT" : "WRONG";
    int arrays = p.op == OP_DOT ? 2 : 1;
    printf("%s: %s\noperation  %s of %s%s: %s\n", r->step->name, r->step->title, OP_NAMES[p.op],
           TYPE_NAMES[p.type], p.input_accumulator ? ", accumulated in the same type" : "",
           instantiation_name(p.op, p.type, p.input_accumulator));
    printf("device     %s, %d SMs, sm_%d%d, peak %.0f GB/s, CUDA %d.%d\n", d->name, d->sm_count,
           d->cc_major, d->cc_minor, d->peak_gb_per_s, d->runtime_version / CUDA_MAJOR,
           d->runtime_version % CUDA_MAJOR / CUDA_MINOR);
    printf("input      n = %zu (%.1f MiB in %d array(s) of %s), pattern %s\nlaunch     %s\n", r->n,
           arrays * r->n * ELEMENT_BYTES[p.type] / BYTES_PER_MIB, arrays, TYPE_NAMES[p.type],
           r->pattern, r->launch);
    printf("kernel     %s\nfinish     %s\n", recorded_or_dash(r->launched.kernel),
           recorded_or_dash(r->launched.finish));
    printf("result     %s   expected %s\n", got, wanted);
    if (e->bound[0] == 0 && e->bound[1] == 0)
        printf(
            "check      exact (integers the accumulator holds, or a comparison): error %s -> %s\n",
            errors, verdict);
    else if (!bounded(e))
        printf("check      |error| %s: no bound exists (gamma(depth %u) in the accumulator's "
               "precision reaches sum|term|: it would pass 0): the result cannot be judged -> "
               "%s\n",
               errors, r->depth, verdict);
    else
        printf("check      |error| %s %s bound %s (depth %u, step14_generic/README.md) -> %s\n",
               errors, r->ok ? "<=" : ">", bounds, r->depth, verdict);
    printf("time       %.4f ms median, %.4f .. %.4f ms over %d runs, the L2 flushed before each\n",
           r->time.median_ms, r->time.min_ms, r->time.max_ms, r->time.runs);
    printf("bandwidth  %.1f GB/s effective = %.1f%% of peak (every array read counted)\n",
           gb_per_s(r, p), PERCENT * gb_per_s(r, p) / d->peak_gb_per_s);
    if (r->cub.runs > 0)
        printf("cub        %.4f ms median for cub::DeviceReduce::Sum on the same copies: this step "
               "runs at "
               "%.2fx its speed\n",
               r->cub.median_ms, r->cub.median_ms / r->time.median_ms);
}

void pair_report(struct report *r, struct pair p, const struct expectation *e,
                 const double result[], const struct options *o)
{
    char got[TEXT], wanted[TEXT], errors[TEXT], sizes[TEXT], bounds[TEXT], variant[TEXT];
    double error[MAX_RESULT_VALUES], size[MAX_RESULT_VALUES];
    int major = r->device->runtime_version / CUDA_MAJOR,
        minor = r->device->runtime_version % CUDA_MAJOR / CUDA_MINOR;
    for (int k = 0; k < e->values; k++) size[k] = fabs(error[k] = result[k] - e->value[k]);
    r->ok = expectation_met(e, result);
    r->depth = e->depth;
    joined(got, result_format(p), result, e->values);
    joined(wanted, "%.17g", e->value, e->values);
    joined(errors, "%.9g", error, e->values);
    joined(sizes, "%.9g", size, e->values);
    joined(bounds, "%.9g", e->bound, e->values);
    pair_name(p, variant);
    if (o->csv)
        printf("%s,%s,%zu,%s,%s,%s,%s,%s,%s,%d,%.6f,%.6f,%.2f,%.2f,%.6f,%.4f,\"%s\",%s,%s,%d.%d\n",
               r->step->name, variant, r->n, r->pattern, o->flush == FLUSH_WRITE ? "write" : "read",
               got, wanted, errors, bounds, r->ok, r->time.median_ms, r->time.min_ms,
               gb_per_s(r, p), PERCENT * gb_per_s(r, p) / r->device->peak_gb_per_s,
               r->cub.median_ms, r->cub.runs ? r->cub.median_ms / r->time.median_ms : 0,
               recorded_or_dash(r->launched.kernel), recorded_or_dash(r->launched.finish),
               r->device->name, major, minor);
    else if (o->quiet)
        printf("%s %s n=%zu pattern=%s result=%s expected=%s %s\n", r->step->name, variant, r->n,
               r->pattern, got, wanted, r->ok ? "CORRECT" : "WRONG");
    else
        print_human(r, p, e, got, wanted, sizes, bounds);
}
