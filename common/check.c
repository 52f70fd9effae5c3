#include <string.h>

#include "toolbox.h"

/* 0 .. 3, odd sizes, primes, 2^k - 1 and 2^k + 1 up to 2^20, and a few large sizes. */
static const size_t SIZES[] = {
    0,       1,       2,       3,       5,        7,        9,
    15,      17,      31,      33,      63,       65,       127,
    129,     251,     255,     257,     511,      513,      1023,
    1025,    2047,    2049,    4093,    4095,     4097,     8191,
    8193,    16383,   16385,   32767,   32769,    65521,    65535,
    65537,   131071,  131073,  262143,  262145,   524287,   524289,
    1000003, 1048575, 1048577, 4194305, 33554431, 33554432, CHECK_LARGEST_N};
static const size_t REAL_SIZES[] = {1, 33, 4097, 1000003, 33554432},
                    OFFSET_SIZES[] = {1, 5, 33, 4099, 1000003};
static const enum pattern_kind REAL_KINDS[] = {PATTERN_REAL, PATTERN_NORMAL, PATTERN_WIDE,
                                               PATTERN_CANCEL};
static const unsigned GRID_SIZES[] = {1, 3, 1000};
enum {
    EVERY_N_LAST = 4096,
    MAX_OFFSET = 3,
    MOST_LAUNCHES = 64,
    PRINTED = 20,
    TEXT = 80,
    RANDOM_HOT = 7,
    REPEATED_FROM = 1
};
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

struct data_set {
    size_t n, offset;
    struct pattern pattern;
};
struct planned {
    size_t set;
    unsigned threads, blocks;
    enum finish finish;
    bool repeat;
};
struct check {
    const struct step_info *step;
    const struct options *options;
    float *host, *device;
    struct data_set *sets;
    struct planned *cases; /* every case, planned at the start */
    size_t set_count, case_count, next, loaded;
    struct check_case data;
    long done, failures, unjudged; /* unjudged: failures whose bound is no bound */
    bool broken;                   /* an upload failed */
    float previous;                /* the last case's total: a repeated case must give its bits */
    char first_failure[320];
};

/* A data set and its launches: with `all`, every block size and finish and a few grids, and
 * large inputs that are neither ones nor one-hot twice; otherwise the default launch. */
static void add(struct check *c, size_t n, size_t offset, struct pattern p, bool all)
{
    const struct step_info *s = c->step;
    unsigned lowest = all ? s->min_threads : s->default_threads,
             highest = all ? s->max_threads : lowest;
    int twice = all && n >= REPEATED_FROM && p.kind != PATTERN_ONES && p.kind != PATTERN_ONEHOT;
    c->sets[c->set_count] = (struct data_set){n, offset, p};
    for (unsigned threads = lowest; threads <= highest; threads *= 2)
        for (int finish = FINISH_GPU; finish <= (all && s->host_finish ? FINISH_CPU : FINISH_GPU);
             finish++)
            for (int r = 0; r <= twice; r++)
                c->cases[c->case_count++] = (struct planned){c->set_count, threads, 0, finish, r};
    for (size_t g = 0; all && s->grid_size && g < COUNT(GRID_SIZES); g++)
        for (int r = 0; r <= twice; r++)
            c->cases[c->case_count++] = (struct planned){c->set_count, s->default_threads,
                                                         GRID_SIZES[g], FINISH_GPU, r};
    c->set_count++;
}

static void plan(struct check *c)
{
    for (size_t i = 0; i < COUNT(SIZES); i++) {
        size_t n = SIZES[i];
        add(c, n, 0, (struct pattern){PATTERN_ONES, false, 0}, true);
        add(c, n, 0, (struct pattern){PATTERN_UNIFORM, false, 0}, true);
        if (n == 0) continue; /* no element to make hot */
        add(c, n, 0, (struct pattern){PATTERN_ONEHOT, false, 0}, true);
        add(c, n, 0, (struct pattern){PATTERN_ONEHOT, true, 0}, true);
        add(c, n, 0, (struct pattern){PATTERN_ONEHOT, false, random_at(n, RANDOM_HOT) % n}, true);
    }
    for (size_t i = 0; i < COUNT(REAL_SIZES) * COUNT(REAL_KINDS); i++)
        add(c, REAL_SIZES[i / COUNT(REAL_KINDS)], 0,
            (struct pattern){REAL_KINDS[i % COUNT(REAL_KINDS)], false, 0}, true);
    for (size_t n = 1; n <= EVERY_N_LAST; n++) {
        add(c, n, 0, (struct pattern){PATTERN_ONES, false, 0}, false);
        add(c, n, 0, (struct pattern){PATTERN_ONEHOT, true, 0}, false);
    }
    for (size_t i = 0; i < COUNT(OFFSET_SIZES) * MAX_OFFSET;
         i++) /* 1..3 floats past a 16-byte boundary */
        add(c, OFFSET_SIZES[i / MAX_OFFSET], i % MAX_OFFSET + 1,
            (struct pattern){PATTERN_UNIFORM, false, 0}, false);
}

struct check *check_start(const struct step_info *step, const struct options *options,
                          const struct device_info *device)
{
    size_t bytes = (CHECK_LARGEST_N + MAX_OFFSET) * sizeof(float);
    size_t sets = 5 * COUNT(SIZES) + COUNT(REAL_SIZES) * COUNT(REAL_KINDS) + 2 * EVERY_N_LAST +
                  MAX_OFFSET * COUNT(OFFSET_SIZES);
    struct check *c = calloc(1, sizeof *c);
    if (c != NULL)
        *c = (struct check){.step = step,
                            .options = options,
                            .host = malloc(bytes),
                            .loaded = (size_t)-1,
                            .sets = calloc(sets, sizeof *c->sets),
                            .cases = calloc(sets * MOST_LAUNCHES, sizeof *c->cases)};
    if (c == NULL || c->host == NULL || c->sets == NULL || c->cases == NULL) {
        fprintf(stderr, "%s --check: not enough host memory\n", step->name);
        return c != NULL ? (check_finish(c, false), NULL) : NULL;
    }
    plan(c);
    if (!device_memory_fits(device, bytes, "--check's input")) goto failed;
    if (!CUDA_OK(cudaMalloc((void **)&c->device, bytes))) goto failed;
    return c;
failed:
    check_finish(c, false);
    return NULL;
}

bool check_next(struct check *c, struct check_case *next)
{
    if (c->next == c->case_count || c->broken) return false;
    const struct planned *p = &c->cases[c->next++];
    const struct data_set *set = &c->sets[p->set];
    bool fresh = p->set != c->loaded;
    if (fresh) { /* a new data set: fill it, sum it, upload it */
        pattern_fill(c->host, set->n, &set->pattern, c->options->seed + set->n);
        c->data = (struct check_case){.input = c->device + set->offset,
                                      .host = c->host,
                                      .n = set->n,
                                      .reference = reference_compute(c->host, set->n)};
        c->loaded = p->set;
        c->broken = !CUDA_OK(cudaMemcpy(c->device + set->offset, c->host, set->n * sizeof(float),
                                        cudaMemcpyHostToDevice));
    }
    *next = c->data;
    next->threads = p->threads, next->blocks = p->blocks, next->finish = p->finish,
    next->repeat = p->repeat;
    next->fresh = fresh;
    return !c->broken;
}

void check_verdict(struct check *c, const struct check_case *done, bool passed, const char *what)
{
    const struct data_set *set = &c->sets[c->loaded];
    char line[sizeof c->first_failure], pattern[48];
    c->done++;
    if (passed) return;
    snprintf(line, sizeof line, "n=%zu pattern=%s offset=%zu threads=%u blocks=%u finish=%s: %s",
             done->n, pattern_name(&set->pattern, pattern, sizeof pattern), set->offset,
             done->threads, done->blocks, done->finish == FINISH_CPU ? "cpu" : "gpu", what);
    if (c->failures++ == 0) snprintf(c->first_failure, sizeof c->first_failure, "%s", line);
    if (c->failures <= PRINTED) printf("FAILED %s\n", line);
}

/* What a failing case adds after its figures: a total still holding the poison was never
 * written; a bound of sum|x| or more cannot judge. */
static const char *why_failed(const struct check_case *done, float total, double bound)
{
    float poison;
    memset(&poison, OUTPUT_POISON_BYTE, sizeof poison);
    if (memcmp(&total, &poison, sizeof total) == 0)
        return "; nothing wrote the total (the poison is still there)";
    if (!bound_judges(&done->reference, bound)) return "; cannot be judged: no bound exists";
    return "";
}

/* The total is this case's own: the step poisoned its outputs before the launch (device.c),
 * so a launch that wrote nothing leaves a NaN. `previous` only compares a repeated case. */
void check_record(struct check *c, const struct check_case *done, float total, unsigned depth)
{
    double bound = error_bound(&done->reference, depth);
    bool same_bits = !done->repeat || memcmp(&total, &c->previous, sizeof total) == 0;
    char what[sizeof c->first_failure];
    c->previous = total;
    c->unjudged += !bound_judges(&done->reference, bound);
    snprintf(what, sizeof what, "got %.9g, expected %.17g, allowed error %.9g%s%s", total,
             done->reference.sum, bound, why_failed(done, total, bound),
             same_bits ? "" : "; a repeated run gave other bits");
    check_verdict(c, done, result_within(total, &done->reference, bound) && same_bits, what);
}

int check_finish(struct check *c, bool ran)
{
    int status = !ran || c->broken ? EXIT_ENVIRONMENT : c->failures > 0 ? EXIT_WRONG : EXIT_CORRECT;
    char unjudged[TEXT] = "";
    if (c->unjudged > 0)
        snprintf(unjudged, sizeof unjudged, " (%ld of them cannot be judged: no bound exists)",
                 c->unjudged);
    if (status == EXIT_ENVIRONMENT)
        printf("check: stopped by an error after %ld cases (see above)\n", c->done);
    else if (c->failures > 0)
        printf("check: FAILED %ld of %ld cases%s; the first: %s\n", c->failures, c->done, unjudged,
               c->first_failure);
    else
        printf("check: all %ld cases correct (n = 0 .. %zu, 7 patterns, threads %u..%u, %s%s, "
               "offsets 0..3, repeated "
               "runs bit-identical)\n",
               c->done, CHECK_LARGEST_N, c->step->min_threads, c->step->max_threads,
               c->step->host_finish ? "both finishes" : "GPU finish",
               c->step->grid_size ? ", grids of 1, 3, 1000 blocks" : "");
    if (c->device != NULL) CUDA_OK(cudaFree(c->device));
    free(c->host);
    free(c->sets);
    free(c->cases);
    free(c);
    return status;
}
