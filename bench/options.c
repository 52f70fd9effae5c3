#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inputs.h"
#include "registry.h"

enum long_only { OPT_STEPS = 256, OPT_SIZES, OPT_SAMPLES, OPT_OUTPUT, OPT_LIST };

static const struct option LONG_OPTIONS[] = {
    {"steps", required_argument, NULL, OPT_STEPS},
    {"sizes", required_argument, NULL, OPT_SIZES},
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"list", no_argument, NULL, OPT_LIST},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int fail(char *error, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
    return EXIT_USAGE;
}

bool bench_covers(const struct step *step) { return step->run == NULL; }

static bool parse_int(const char *text, long low, long high, int *value)
{
    if (*text < '0' || *text > '9') return false;
    errno = 0;
    char *end = NULL;
    long parsed = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || parsed < low || parsed > high) return false;
    *value = (int)parsed;
    return true;
}

static void select_all_steps(struct bench_options *options)
{
    options->step_count = 0;
    for (int i = 0; i < all_steps_count; i++)
        if (bench_covers(all_steps[i])) options->steps[options->step_count++] = all_steps[i];
}

static int unknown_step(const char *name, char *error, size_t size)
{
    char names[512] = "";
    for (int i = 0; i < all_steps_count; i++) {
        if (!bench_covers(all_steps[i])) continue;
        if (names[0] != '\0') strncat(names, ",", sizeof names - strlen(names) - 1);
        strncat(names, all_steps[i]->name, sizeof names - strlen(names) - 1);
    }
    return fail(error, size, "--steps: no step '%s' on the ladder (choose from %s)", name, names);
}

/* "step08,step09": a subset, kept in registry order whatever the order given. */
static int parse_steps(const char *text, struct bench_options *options, char *error, size_t size)
{
    bool *chosen = calloc(all_steps_count > 0 ? all_steps_count : 1, sizeof *chosen);
    char *copy = strdup(text);
    if (chosen == NULL || copy == NULL) {
        free(chosen);
        free(copy);
        return fail(error, size, "out of host memory");
    }
    int status = 0;
    char *state = NULL;
    for (char *name = strtok_r(copy, ",", &state); name && status == 0;
         name = strtok_r(NULL, ",", &state)) {
        const struct step *step = find_step(name);
        if (step != NULL && !bench_covers(step))
            status = fail(error, size, "--steps: %s has its own flow and is not on the ladder",
                          name);
        else if (step == NULL)
            status = unknown_step(name, error, size);
        for (int i = 0; i < all_steps_count && status == 0; i++)
            if (all_steps[i] == step) chosen[i] = true;
    }
    free(copy);
    options->step_count = 0;
    for (int i = 0; i < all_steps_count; i++)
        if (chosen[i]) options->steps[options->step_count++] = all_steps[i];
    free(chosen);
    if (status == 0 && options->step_count == 0)
        status = fail(error, size, "--steps needs at least one step name, e.g. step08,step09");
    return status;
}

/* "20:30" (both ends included) or "25" (one size); exponents of two. */
static int parse_sizes(const char *text, struct bench_options *options, char *error, size_t size)
{
    char low[16], high[16];
    const char *colon = strchr(text, ':');
    size_t low_length = colon ? (size_t)(colon - text) : strlen(text);
    if (low_length >= sizeof low || (colon && strlen(colon + 1) >= sizeof high))
        return fail(error, size, "--sizes must be A:B or A (log2 of n), not '%s'", text);
    memcpy(low, text, low_length);
    low[low_length] = '\0';
    snprintf(high, sizeof high, "%s", colon ? colon + 1 : low);
    if (!parse_int(low, 0, LARGEST_LOG2, &options->min_log2) ||
        !parse_int(high, 0, LARGEST_LOG2, &options->max_log2) ||
        options->min_log2 > options->max_log2)
        return fail(error, size,
                    "--sizes must be A:B with 0 <= A <= B <= %d (n = 2^A ... 2^B) or one "
                    "exponent, not '%s'", LARGEST_LOG2, text);
    return 0;
}

static int parse_one(int option, const char *arg, struct bench_options *options, char *error,
                     size_t size)
{
    switch (option) {
    case OPT_STEPS:
        options->subset = true;
        return parse_steps(arg, options, error, size);
    case OPT_SIZES:
        options->subset = true;
        return parse_sizes(arg, options, error, size);
    case OPT_SAMPLES:
        if (!parse_int(arg, MIN_SAMPLES, MOST_SAMPLES, &options->max_samples))
            return fail(error, size, "--samples must be an integer in %d..%d, not '%s'",
                        MIN_SAMPLES, MOST_SAMPLES, arg);
        return 0;
    case OPT_OUTPUT:
        if (arg[0] == '\0') return fail(error, size, "--output needs a file name");
        options->output = arg;
        return 0;
    case OPT_LIST: options->list = true; return 0;
    case 'h': options->help = true; return 0;
    default: return fail(error, size, "unknown option");
    }
}

int bench_parse(int argc, char **argv, struct bench_options *options, char *error,
                size_t error_size)
{
    memset(options, 0, sizeof *options);
    error[0] = '\0';
    options->steps = calloc(all_steps_count > 0 ? all_steps_count : 1, sizeof *options->steps);
    if (options->steps == NULL) return fail(error, error_size, "out of host memory");
    select_all_steps(options);
    options->min_log2 = DEFAULT_MIN_LOG2;
    options->max_log2 = DEFAULT_MAX_LOG2;
    options->max_samples = DEFAULT_MAX_SAMPLES;
    opterr = 0;
    for (;;) {
        int option = getopt_long(argc, argv, ":h", LONG_OPTIONS, NULL);
        if (option == -1) break;
        if (option == '?')
            return fail(error, error_size, "unknown option '%s'", argv[optind - 1]);
        if (option == ':')
            return fail(error, error_size, "option '%s' needs a value", argv[optind - 1]);
        int status = parse_one(option, optarg, options, error, error_size);
        if (status != 0) return status;
    }
    if (optind < argc) return fail(error, error_size, "unexpected argument '%s'", argv[optind]);
    return 0;
}

void bench_options_free(struct bench_options *options)
{
    free(options->steps);
    options->steps = NULL;
}

void bench_usage(FILE *out)
{
    fprintf(out,
            "usage: bench/run [options]\n"
            "  Times every step of the ladder and cub::DeviceReduce::Sum in one process, on the\n"
            "  same data: n = 2^%d ... 2^%d (the ladder is n = 2^%d). Each size is uploaded to\n"
            "  %d device buffers that every contender reads in turn. Every result is checked\n"
            "  before it is timed; the L2 is flushed before every timed run.\n\n"
            "  --steps LIST     only these steps, e.g. step08,step09 (CUB always runs: it is\n"
            "                   the reference)   [every step with the common flow]\n"
            "  --sizes A:B      n = 2^A ... 2^B, or --sizes A for one size; 0 <= A <= B <= %d\n"
            "                   [%d:%d]\n"
            "  --samples S      timed runs per point, at most; slow points get fewer, down to\n"
            "                   %d, and the ladder's size gets at least %d   [%d]\n"
            "  --output FILE    the CSV   [docs/results/<gpu>.csv; with --steps or --sizes\n"
            "                   build/bench/<gpu>.csv, so that a quick check never replaces\n"
            "                   the committed results]\n"
            "  --list           print every registry step and variant (step, variant,\n"
            "                   correct|incorrect, flow) and exit; needs no GPU\n"
            "  -h, --help       this text\n"
            "progress goes to stderr, the ladder's table to stdout.\n"
            "exit codes: 0 every result correct, 1 a wrong result, 2 usage error, 3 CUDA or\n"
            "environment error (e.g. no CUDA device)\n",
            DEFAULT_MIN_LOG2, DEFAULT_MAX_LOG2, LADDER_LOG2, INPUT_COPIES, LARGEST_LOG2,
            DEFAULT_MIN_LOG2,
            DEFAULT_MAX_LOG2, MIN_SAMPLES, LADDER_SAMPLES, DEFAULT_MAX_SAMPLES);
}
