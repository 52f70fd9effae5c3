#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "toolbox.h"

enum option_id {
    OPT_N,
    OPT_PATTERN,
    OPT_SEED,
    OPT_ITERS,
    OPT_WARMUP,
    OPT_BUFFERS,
    OPT_THREADS,
    OPT_BLOCKS,
    OPT_FINISH,
    OPT_FLUSH,
    OPT_VARIANT,
    OPT_CHECK,
    OPT_NO_CUB,
    OPT_CSV,
    OPT_QUIET,
    OPT_HELP,
    SHARED_OPTIONS
};
enum {
    DEFAULT_ITERS = 20,
    DEFAULT_WARMUP = 3,
    DEFAULT_BUFFERS = 4,
    DEFAULT_SEED = 2026,
    MAX_RUNS = 100000,
    MAX_SHIFT = 62,
    NAME_WIDTH = 12,
    NAME_LENGTH = 256
};

/* The shared options; a numeric one takes the whole numbers lowest..highest. */
static const struct shared_option {
    struct extra_option text;
    unsigned long long lowest, highest;
} SHARED[] = {
    {{"n", "N",
      "elements: 1000003, 2^25, 32M, 4K (K, M, G: powers of 1024); A..B runs\n"
      "                 A, 2A, 4A, ... up to B   [2^25]"},
     0,
     0},
    {{"pattern", "P",
      "uniform (integers 0..99), ones, onehot:K, onehot:last, and the\n"
      "                 real-valued real, normal, wide, cancel   [uniform]"},
     0,
     0},
    {{"seed", "S", "seed of the data   [2026]"}, 0, ULLONG_MAX},
    {{"iters", "I", "timed runs   [20]"}, 1, MAX_RUNS},
    {{"warmup", "W", "untimed runs first   [3]"}, 0, MAX_RUNS},
    {{"buffers", "K", "copies of the input, read in turn   [4, fewer if they do not fit]"},
     1,
     MAX_BUFFERS},
    {{"threads", "T", "threads per block, a power of two in"}, 0, 0},
    {{"blocks", "B", "blocks in the grid   [chosen from n and the GPU]"}, 1, INT_MAX},
    {{"finish", "F", "gpu: the GPU adds the block sums; cpu: the host adds them   [gpu]"}, 0, 0},
    {{"flush", "L",
      "how the L2 is emptied before each timed run: read (it holds clean\n"
      "                 lines) or write (dirty lines, written back during the run)   [read]"},
     0,
     0},
    {{"variant", "V", "one of"}, 0, 0},
    {{"check", NULL, "run the correctness matrix instead (docs/verification.md)"}, 0, 0},
    {{"no-cub", NULL, "do not time cub::DeviceReduce::Sum beside the step"}, 0, 0},
    {{"csv", NULL, "a CSV header, then a row per size"}, 0, 0},
    {{"quiet", NULL, "only the verdict line"}, 0, 0},
    {{"help", NULL, "this text"}, 0, 0},
};

static bool parse_count(const char *text, unsigned long long *value)
{
    char *end = NULL;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return *text >= '0' && *text <= '9' && errno == 0 && *end == '\0';
}

bool parse_size(const char *text, size_t *value)
{
    static const char SUFFIXES[] = "KMG";
    char *end = NULL;
    unsigned long long base = strtoull(text, &end, 10), exponent;
    const char *suffix = *end ? strchr(SUFFIXES, *end) : NULL;
    unsigned shift = suffix ? 10u * (unsigned)(suffix - SUFFIXES + 1) : 0;
    if (*text < '0' || *text > '9' || base == ULLONG_MAX) return false;
    if (*end == '^') {
        if (base != 2 || !parse_count(end + 1, &exponent) || exponent > MAX_SHIFT) return false;
        base = 1ull << exponent;
    } else if (*end != '\0') {
        if (suffix == NULL || end[1] != '\0' || base > ULLONG_MAX >> shift) return false;
        base <<= shift;
    }
    *value = (size_t)base;
    return true;
}

/* What the program calls itself in --help and in usage errors: the step ("step05", run as
 * step05/run), or a lab's program, named as it was started: "labs/lab03/run" when a lab's
 * run script starts it (argv[0]), "labs/lab03/program" when started directly. */
static struct {
    char who[NAME_LENGTH], command[NAME_LENGTH];
} program;

static void name_program(const struct step_info *s, const char *argv0)
{
    const char *lab = argv0 != NULL ? strstr(argv0, "labs/lab") : NULL;
    if (lab != NULL) {
        snprintf(program.who, sizeof program.who, "%s", lab);
        snprintf(program.command, sizeof program.command, "%s", lab);
    } else {
        snprintf(program.who, sizeof program.who, "%s", s->name);
        snprintf(program.command, sizeof program.command, "%s/run", s->name);
    }
}

static int usage_error(const struct step_info *step, const char *format, ...)
{
    va_list args;
    (void)step;
    va_start(args, format);
    fprintf(stderr, "%s: ", program.who);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n(%s --help lists the options)\n", program.command);
    return EXIT_USAGE;
}

static bool offered(const struct step_info *s, int id)
{
    return (id != OPT_BLOCKS || s->grid_size) && (id != OPT_FINISH || s->host_finish) &&
           (id != OPT_VARIANT || s->variants != NULL) && (id != OPT_THREADS || s->max_threads > 0);
}

/* A shared option as --help describes it: in the step's own words where it has some. */
static struct extra_option described(const struct step_info *s, int id)
{
    struct extra_option text = SHARED[id].text;
    const char *own = id == OPT_N         ? s->n_about
                      : id == OPT_NO_CUB  ? s->no_cub_about
                      : id == OPT_THREADS ? s->threads_about
                                          : NULL;
    if (own != NULL) text.about = own;
    return text;
}

static void print_option(const char *dashes, const struct extra_option *o)
{
    printf("  %s%s %-*s%s", dashes, o->name,
           NAME_WIDTH + 2 - (int)(strlen(dashes) + strlen(o->name)),
           o->value_name ? o->value_name : "", o->about);
}

static void usage(const struct step_info *s)
{
    printf("usage: %s [options]\n  %s\n\n", program.command, s->title);
    for (int id = 0; id < SHARED_OPTIONS; id++) {
        if (!offered(s, id)) continue;
        struct extra_option text = described(s, id);
        print_option(id == OPT_N ? "-" : "--", &text);
        if (id == OPT_THREADS && s->threads_about == NULL)
            printf(" %u..%u   [%u]", s->min_threads, s->max_threads, s->default_threads);
        for (int v = 0; id == OPT_VARIANT && s->variants[v].name != NULL; v++)
            printf("\n      %-15s%s%s", s->variants[v].name, s->variants[v].about,
                   v ? "" : "   [default]");
        putchar('\n');
    }
    for (int e = 0; s->extras != NULL && s->extras[e].name != NULL; e++) {
        print_option("--", &s->extras[e]);
        putchar('\n');
    }
    printf("exit codes: 0 correct, 1 wrong result, 2 usage error, 3 no GPU or a CUDA error\n");
}

/* -n N, or -n A..B */
static bool parse_sizes(const char *value, struct options *o)
{
    char first[64];
    const char *dots = strstr(value, "..");
    snprintf(first, sizeof first, "%.*s", dots ? (int)(dots - value) : (int)strlen(value), value);
    if (!parse_size(first, &o->n) || o->n > MAX_N) return false;
    o->n_last = o->n;
    return !dots || (parse_size(dots + 2, &o->n_last) && o->n > 0 && o->n_last >= o->n &&
                     o->n_last <= MAX_N);
}

static int parse_value(const struct step_info *s, int id, const char *value, struct options *o)
{
    unsigned long long v = 0;
    bool number = parse_count(value, &v),
         in_range = number && v >= SHARED[id].lowest && v <= SHARED[id].highest;
    if (SHARED[id].highest > 0 && !in_range)
        return usage_error(s, "--%s takes a whole number in %llu..%llu, not '%s'",
                           SHARED[id].text.name, SHARED[id].lowest, SHARED[id].highest, value);
    switch (id) {
    case OPT_N:
        if (!parse_sizes(value, o))
            return usage_error(
                s,
                "-n takes a count up to 2^32 (1000003, 2^25, 32M) or a range A..B with 0 < A <= B, "
                "not '%s'",
                value);
        break;
    case OPT_PATTERN:
        if (!pattern_parse(value, &o->pattern))
            return usage_error(s, "--pattern: no pattern '%s' (see --help)", value);
        break;
    case OPT_SEED:
        o->seed = v;
        break;
    case OPT_ITERS:
        o->iters = (int)v;
        break;
    case OPT_WARMUP:
        o->warmup = (int)v;
        break;
    case OPT_BUFFERS:
        o->buffers = (int)v;
        break;
    case OPT_BLOCKS:
        o->blocks = (unsigned)v;
        break;
    case OPT_THREADS:
        if (!number || v < s->min_threads || v > s->max_threads || (v & (v - 1)))
            return usage_error(s, "--threads takes a power of two in %u..%u, not '%s'",
                               s->min_threads, s->max_threads, value);
        o->threads = (unsigned)v;
        o->threads_given = true;
        break;
    case OPT_FINISH:
        if (strcmp(value, "gpu") && strcmp(value, "cpu"))
            return usage_error(s, "--finish takes gpu or cpu, not '%s'", value);
        o->finish = strcmp(value, "cpu") == 0 ? FINISH_CPU : FINISH_GPU;
        break;
    case OPT_FLUSH:
        if (strcmp(value, "read") && strcmp(value, "write"))
            return usage_error(s, "--flush takes read or write, not '%s'", value);
        o->flush = strcmp(value, "write") == 0 ? FLUSH_WRITE : FLUSH_READ;
        break;
    case OPT_VARIANT:
        for (o->variant = 0; s->variants[o->variant].name != NULL; o->variant++)
            if (strcmp(s->variants[o->variant].name, value) == 0) return OPTIONS_RUN;
        return usage_error(s, "--variant: %s has no variant '%s' (see --help)", program.who, value);
    }
    return OPTIONS_RUN;
}

/* The shared options first, then the step's own: SHARED_OPTIONS + their index. -1: unknown. */
static int find_option(const struct step_info *s, const char *arg)
{
    size_t length = strcspn(arg, "=");
    for (int id = 0; id < SHARED_OPTIONS; id++)
        if (strlen(SHARED[id].text.name) == length && !strncmp(SHARED[id].text.name, arg, length) &&
            offered(s, id))
            return id;
    for (int e = 0; s->extras != NULL && s->extras[e].name != NULL; e++)
        if (strlen(s->extras[e].name) == length && !strncmp(s->extras[e].name, arg, length))
            return SHARED_OPTIONS + e;
    return -1;
}

int options_parse(int argc, char **argv, const struct step_info *s, struct options *o)
{
    size_t hot;
    name_program(s, argc > 0 ? argv[0] : NULL);
    *o = (struct options){.n = DEFAULT_N,
                          .n_last = DEFAULT_N,
                          .seed = DEFAULT_SEED,
                          .iters = DEFAULT_ITERS,
                          .warmup = DEFAULT_WARMUP,
                          .buffers = DEFAULT_BUFFERS,
                          .threads = s->default_threads,
                          .cub = true};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = strchr(arg, '=');
        bool dashes = strncmp(arg, "--", 2) == 0;
        int id = !strcmp(arg, "-n")   ? OPT_N
                 : !strcmp(arg, "-h") ? OPT_HELP
                 : dashes             ? find_option(s, arg + 2)
                                      : -1;
        if (id < 0)
            return usage_error(s, dashes ? "unknown option '%s'" : "unexpected argument '%s'", arg);
        const struct extra_option *spec = id < SHARED_OPTIONS ? &SHARED[id].text
                                                              : &s->extras[id - SHARED_OPTIONS];
        if (value != NULL)
            value++;
        else if (spec->value_name != NULL && (value = argv[++i]) == NULL)
            return usage_error(s, "option '%s' needs a value", arg);
        if (id == OPT_HELP) {
            usage(s);
            return EXIT_CORRECT;
        }
        if (id >= SHARED_OPTIONS)
            o->extra[id - SHARED_OPTIONS] = value != NULL ? value : "";
        else if (spec->value_name == NULL)
            *(id == OPT_CHECK   ? &o->check
              : id == OPT_CSV   ? &o->csv
              : id == OPT_QUIET ? &o->quiet
                                : &o->cub) = id != OPT_NO_CUB;
        else if (parse_value(s, id, value, o) != OPTIONS_RUN)
            return EXIT_USAGE;
    }
    if (o->pattern.kind == PATTERN_ONEHOT && !pattern_onehot_position(&o->pattern, o->n, &hot))
        return usage_error(
            s, "--pattern onehot needs an element to make hot, and n = %zu has none there", o->n);
    return OPTIONS_RUN;
}
