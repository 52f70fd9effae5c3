#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SHIFT = 62 };
enum long_only { OPT_PATTERN = 256, OPT_SEED, OPT_ITERS, OPT_WARMUP, OPT_THREADS, OPT_BLOCKS,
                 OPT_SWEEP, OPT_CLOCK, OPT_FINISH, OPT_CSV, OPT_QUIET, OPT_VARIANT, OPT_OP,
                 OPT_TYPE };

static const struct option LONG_OPTIONS[] = {
    {"n", required_argument, NULL, 'n'},
    {"pattern", required_argument, NULL, OPT_PATTERN},
    {"seed", required_argument, NULL, OPT_SEED},
    {"iters", required_argument, NULL, OPT_ITERS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"blocks", required_argument, NULL, OPT_BLOCKS},
    {"sweep-blocks", no_argument, NULL, OPT_SWEEP},
    {"clock", no_argument, NULL, OPT_CLOCK},
    {"finish", required_argument, NULL, OPT_FINISH},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"op", required_argument, NULL, OPT_OP},
    {"type", required_argument, NULL, OPT_TYPE},
    {"csv", no_argument, NULL, OPT_CSV},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static bool parse_unsigned(const char *text, unsigned long long *value)
{
    if (*text < '0' || *text > '9') return false;
    errno = 0;
    char *end = NULL;
    *value = strtoull(text, &end, 10);
    return errno == 0 && *end == '\0';
}

static bool multiply_checked(unsigned long long a, unsigned long long b, unsigned long long *out)
{
    if (b != 0 && a > ULLONG_MAX / b) return false;
    *out = a * b;
    return true;
}

bool parse_size(const char *text, size_t *value)
{
    if (*text < '0' || *text > '9') return false;
    errno = 0;
    char *end = NULL;
    unsigned long long base = strtoull(text, &end, 10);
    if (errno != 0) return false;
    unsigned long long result = base;
    if (end[0] == '^') {
        unsigned long long exponent;
        if (base != 2 || !parse_unsigned(end + 1, &exponent) || exponent > MAX_SHIFT) return false;
        result = 1ull << exponent;
    } else if (end[0] != '\0') {
        static const char SUFFIXES[] = "KMG";
        const char *suffix = strchr(SUFFIXES, end[0]);
        if (suffix == NULL || end[1] != '\0') return false;
        unsigned shift = 10u * (unsigned)(suffix - SUFFIXES + 1);
        if (!multiply_checked(base, 1ull << shift, &result)) return false;
    }
    if (result > SIZE_MAX) return false;
    *value = (size_t)result;
    return true;
}

static int fail(char *error, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
    return EXIT_USAGE;
}

static bool is_power_of_two(unsigned long long v) { return v != 0 && (v & (v - 1)) == 0; }

static int parse_count(const char *name, const char *text, unsigned long long min,
                       unsigned long long max, unsigned long long *value, char *error,
                       size_t size)
{
    if (!parse_unsigned(text, value) || *value < min || *value > max)
        return fail(error, size, "%s must be an integer in %llu..%llu, not '%s'", name, min, max,
                    text);
    return EXIT_CORRECT;
}

static int parse_threads(const char *text, const struct step *step, unsigned *threads,
                         char *error, size_t size)
{
    unsigned long long value;
    if (!parse_unsigned(text, &value) || value < step->threads.min ||
        value > step->threads.max || !is_power_of_two(value))
        return fail(error, size, "--threads must be a power of two in %u..%u for %s, not '%s'",
                    step->threads.min, step->threads.max, step->name, text);
    *threads = (unsigned)value;
    return EXIT_CORRECT;
}

static int parse_variant(const char *text, const struct step *step, int *variant, char *error,
                         size_t size)
{
    *variant = step_find_variant(step, text);
    if (*variant >= 0) return EXIT_CORRECT;
    if (step->variants == NULL)
        return fail(error, size, "%s has no variants (got --variant '%s')", step->name, text);
    char names[256] = "";
    for (const struct variant *v = step->variants; v->name != NULL; v++) {
        strncat(names, v->name, sizeof names - strlen(names) - 2);
        if (v[1].name != NULL) strncat(names, "|", sizeof names - strlen(names) - 1);
    }
    return fail(error, size, "--variant must be one of %s, not '%s'", names, text);
}

static int parse_one(int option, const char *arg, const struct step *step,
                     struct options *options, char *error, size_t size)
{
    unsigned long long value;
    int status = EXIT_CORRECT;
    switch (option) {
    case 'n':
        if (!parse_size(arg, &options->n) || options->n > MAX_N)
            return fail(error, size,
                        "-n must be a count in 0..2^32 (e.g. 1000, 2^25, 32M), not '%s'", arg);
        return EXIT_CORRECT;
    case OPT_PATTERN:
        if (!pattern_parse(arg, &options->pattern))
            return fail(error, size,
                        "--pattern must be uniform, ones, onehot:K or onehot:last, not '%s'", arg);
        return EXIT_CORRECT;
    case OPT_SEED:
        status = parse_count("--seed", arg, 0, ULLONG_MAX, &value, error, size);
        options->seed = value;
        return status;
    case OPT_ITERS:
        status = parse_count("--iters", arg, 1, MAX_ITERS, &value, error, size);
        options->iters = (int)value;
        return status;
    case OPT_WARMUP:
        status = parse_count("--warmup", arg, 0, MAX_ITERS, &value, error, size);
        options->warmup = (int)value;
        return status;
    case OPT_THREADS: return parse_threads(arg, step, &options->threads, error, size);
    case OPT_BLOCKS:
        if (!step->takes_block_count)
            return fail(error, size, "%s chooses its own grid: --blocks %s is for step07 and later",
                        step->name, arg);
        status = parse_count("--blocks", arg, 1, MAX_BLOCKS, &value, error, size);
        options->blocks = (unsigned)value;
        return status;
    case OPT_FINISH:
        if (strcmp(arg, "gpu") == 0) options->finish = FINISH_GPU;
        else if (strcmp(arg, "cpu") == 0) options->finish = FINISH_CPU;
        else return fail(error, size, "--finish must be gpu or cpu, not '%s'", arg);
        if (options->finish == FINISH_CPU && step->reduce != NULL)
            return fail(error, size, "%s finishes inside its one launch: --finish cpu does not apply",
                        step->name);
        return EXIT_CORRECT;
    case OPT_VARIANT: return parse_variant(arg, step, &options->variant, error, size);
    case OPT_OP: options->op = arg; return EXIT_CORRECT;
    case OPT_TYPE: options->type = arg; return EXIT_CORRECT;
    case OPT_SWEEP: options->sweep_blocks = true; return EXIT_CORRECT;
    case OPT_CLOCK: options->clock = true; return EXIT_CORRECT;
    case OPT_CSV: options->csv = true; return EXIT_CORRECT;
    case OPT_QUIET: options->quiet = true; return EXIT_CORRECT;
    case 'h': options->help = true; return EXIT_CORRECT;
    default: return fail(error, size, "unknown option");
    }
}

static int check_combination(const struct step *step, const struct options *options,
                             char *error, size_t size)
{
    if ((options->sweep_blocks || options->clock) && !step->takes_block_count)
        return fail(error, size, "--sweep-blocks and --clock are for step07 and later");
    if ((options->op != NULL || options->type != NULL) && step->run == NULL)
        return fail(error, size, "--op %s / --type %s: only step10 takes them",
                    options->op ? options->op : "-", options->type ? options->type : "-");
    size_t position;
    char described[64];
    if (options->pattern.kind == PATTERN_ONEHOT &&
        !pattern_onehot_position(&options->pattern, options->n, &position))
        return fail(error, size, "--pattern %s needs an index below n = %zu",
                    pattern_describe(&options->pattern, described, sizeof described), options->n);
    if (step->check_options != NULL) return step->check_options(options, error, size);
    return EXIT_CORRECT;
}

static void set_defaults(struct options *options)
{
    memset(options, 0, sizeof *options);
    options->n = DEFAULT_N;
    options->pattern.kind = PATTERN_UNIFORM;
    options->seed = DEFAULT_SEED;
    options->iters = DEFAULT_ITERS;
    options->warmup = DEFAULT_WARMUP;
    options->finish = FINISH_GPU;
}

int cli_parse(int argc, char **argv, const struct step *step, struct options *options,
              char *error, size_t error_size)
{
    set_defaults(options);
    error[0] = '\0';
    optind = 0; /* glibc: start afresh, so that tests can parse several command lines */
    opterr = 0;
    for (;;) {
        int option = getopt_long(argc, argv, ":n:h", LONG_OPTIONS, NULL);
        if (option == -1) break;
        if (option == '?')
            return fail(error, error_size, "unknown option '%s'", argv[optind - 1]);
        if (option == ':')
            return fail(error, error_size, "option '%s' needs a value", argv[optind - 1]);
        int status = parse_one(option, optarg, step, options, error, error_size);
        if (status != EXIT_CORRECT) return status;
    }
    if (optind < argc)
        return fail(error, error_size, "unexpected argument '%s'", argv[optind]);
    return options->help ? EXIT_CORRECT : check_combination(step, options, error, error_size);
}

void cli_usage(FILE *out, const struct step *step)
{
    fprintf(out,
            "usage: %s/run [options]\n"
            "  %s\n\n"
            "  -n N                   elements (default 2^25); forms: 1000003, 2^25, 32M, 4K, 1G\n"
            "  --pattern P            uniform (integers 0..99, the documents' rand() %% 100), ones,\n"
            "                         onehot:K or onehot:last (a single 1)   [uniform]\n"
            "  --seed S               seed for uniform data   [%u]\n"
            "  --iters I              timed runs   [%d]\n"
            "  --warmup W             untimed runs first   [%d]\n"
            "  --threads T            block size, a power of two in %u..%u   [%u]\n"
            "  --finish gpu|cpu       sum the per-block partials with more launches, or on the\n"
            "                         host (timed)   [gpu]\n",
            step->name, step->title, DEFAULT_SEED, DEFAULT_ITERS, DEFAULT_WARMUP,
            step->threads.min, step->threads.max, step->threads.fallback);
    if (step->variants != NULL) {
        fprintf(out, "  --variant V            ");
        for (const struct variant *v = step->variants; v->name != NULL; v++)
            fprintf(out, "%s%s", v->name, v[1].name != NULL ? "|" : "");
        fprintf(out, "   [%s]\n", step->variants[0].name);
    }
    if (step->run != NULL)
        fprintf(out, "  --op O                 sum, min, max, sumsq or dot   [sum]\n"
                     "  --type T               int, float or double   [float]\n");
    if (step->takes_block_count)
        fprintf(out, "  --blocks B             grid size   [from the device]\n"
                     "  --sweep-blocks         time a range of grid sizes\n"
                     "  --clock                also time with clock64() inside the kernel\n");
    fprintf(out, "  --csv                  one CSV header line and one data line\n"
                 "  --quiet                print only the verdict line\n"
                 "  -h, --help             this text\n"
                 "exit codes: 0 correct, 1 wrong result, 2 usage error, 3 CUDA or environment error\n");
}
