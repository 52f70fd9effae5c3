/* cpu_sums: three ways a CPU adds the same floats, for comparison with the GPU steps
 * (bench/accuracy.sh). The data are the steps' own (pattern_fill, the same seed), and every
 * error is measured against the same reference (reference_compute: a compensated double sum,
 * exact for integer data).
 *   naive     one float accumulator, element after element: the longest chain of additions,
 *             n - 1; a sum of ones stops growing at 2^24, where adding 1 no longer changes a
 *             float
 *   pairwise  halves added recursively: a tree of depth ceil(log2 n), like the GPU's
 *   kahan     one float accumulator and a float compensation that carries what each addition
 *             rounded away (Kahan; Higham, Accuracy and Stability of Numerical Algorithms,
 *             section 4.3): an error that does not grow with n, to first order
 * Prints a CSV header and one row per method: step,variant,n,pattern,result,expected,error,
 * bound,ok, the columns of a step's --csv that describe a result; the bound is
 * gamma(depth) * sum|x| for the first two ("inf" where depth * u >= 1: then there is none,
 * and ok stays empty), empty for kahan.
 *   build/bench/cpu_sums [-n N] [--pattern P] [--seed S]
 * Needs no GPU. Exit codes: 0, 2 usage error, 3 out of memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolbox.h"

enum { DEFAULT_SEED = 2026 }; /* the step binaries' default seed */

struct settings {
    size_t n;
    struct pattern pattern;
    uint64_t seed;
};

static float naive_sum(const float *x, size_t n)
{
    float sum = 0.0f;
    for (size_t i = 0; i < n; i++) sum += x[i];
    return sum;
}

/* The larger half first: ceil(log2 n) levels of additions. */
static float pairwise_sum(const float *x, size_t n)
{
    if (n == 0) return 0.0f;
    if (n == 1) return x[0];
    size_t half = (n + 1) / 2;
    return pairwise_sum(x, half) + pairwise_sum(x + half, n - half);
}

static float kahan_sum(const float *x, size_t n)
{
    float sum = 0.0f, compensation = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float corrected = x[i] - compensation, next = sum + corrected;
        compensation = (next - sum) - corrected; /* what the addition to sum rounded away */
        sum = next;
    }
    return sum;
}

static void print_row(const char *method, const struct settings *s, float result,
                      const struct reference *reference, const unsigned *depth)
{
    char pattern[48];
    printf("cpu,%s,%zu,%s,%.9g,%.17g,%.9g,", method, s->n,
           pattern_name(&s->pattern, pattern, sizeof pattern), result, reference->sum,
           (double)result - reference->sum);
    if (depth == NULL) {
        printf(",\n");
        return;
    }
    double bound = error_bound(reference, *depth);
    if (isfinite(bound))
        printf("%.9g,%d\n", bound, result_within(result, reference, bound));
    else
        printf("inf,\n"); /* no bound to be within */
}

static int usage(const char *message, const char *value)
{
    if (message != NULL) fprintf(stderr, "cpu_sums: %s '%s'\n", message, value);
    fprintf(message != NULL ? stderr : stdout,
            "usage: cpu_sums [-n N] [--pattern P] [--seed S]\n"
            "  the same -n, --pattern and --seed as a step binary (defaults 2^25, uniform, %d);\n"
            "  prints the error of a naive, a pairwise and a Kahan float sum of that data\n",
            DEFAULT_SEED);
    return message != NULL ? EXIT_USAGE : EXIT_CORRECT;
}

static int parse(int argc, char **argv, struct settings *s)
{
    *s = (struct settings){.n = DEFAULT_N, .seed = DEFAULT_SEED};
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(option, "--help") || !strcmp(option, "-h")) return usage(NULL, NULL);
        if (value == NULL) return usage("unknown option, or one without its value:", option);
        if (!strcmp(option, "-n")) {
            if (!parse_size(value, &s->n) || s->n > MAX_N)
                return usage("-n takes a count up to 2^32, not", value);
        } else if (!strcmp(option, "--pattern")) {
            if (!pattern_parse(value, &s->pattern))
                return usage("--pattern: unknown pattern", value);
        } else if (!strcmp(option, "--seed")) {
            s->seed = strtoull(value, &end, 10);
            if (*value < '0' || *value > '9' || *end != '\0')
                return usage("--seed takes a whole number, not", value);
        } else {
            return usage("unknown option", option);
        }
        i++;
    }
    size_t hot;
    if (s->pattern.kind == PATTERN_ONEHOT && !pattern_onehot_position(&s->pattern, s->n, &hot)) {
        fprintf(stderr,
                "cpu_sums: --pattern onehot needs an element to make hot, and n = %zu "
                "has none there\n",
                s->n);
        return EXIT_USAGE;
    }
    return OPTIONS_RUN;
}

int main(int argc, char **argv)
{
    struct settings s;
    int status = parse(argc, argv, &s);
    if (status != OPTIONS_RUN) return status;
    float *data = malloc(s.n > 0 ? s.n * sizeof(float) : 1);
    if (data == NULL) {
        fprintf(stderr, "cpu_sums: not enough host memory for %zu floats\n", s.n);
        return EXIT_ENVIRONMENT;
    }
    pattern_fill(data, s.n, &s.pattern, s.seed);
    struct reference reference = reference_compute(data, s.n);
    unsigned chain = s.n > 1 ? (unsigned)(s.n - 1 < UINT32_MAX ? s.n - 1 : UINT32_MAX) : 0;
    unsigned levels = tree_levels(s.n);
    puts("step,variant,n,pattern,result,expected,error,bound,ok");
    print_row("naive", &s, naive_sum(data, s.n), &reference, &chain);
    print_row("pairwise", &s, pairwise_sum(data, s.n), &reference, &levels);
    print_row("kahan", &s, kahan_sum(data, s.n), &reference, NULL);
    free(data);
    return EXIT_CORRECT;
}
