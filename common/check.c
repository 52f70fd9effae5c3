#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolbox.h"

/* 0 .. 3, odd sizes, primes, 2^k - 1 and 2^k + 1 up to 2^20, and a few large sizes. */
static const size_t SIZES[] = {
    0, 1, 2, 3, 5, 7, 9, 15, 17, 31, 33, 63, 65, 127, 129, 251, 255, 257, 511, 513, 1023, 1025,
    2047, 2049, 4093, 4095, 4097, 8191, 8193, 16383, 16385, 32767, 32769, 65521, 65535, 65537,
    131071, 131073, 262143, 262145, 524287, 524289, 1000003, 1048575, 1048577, 4194305,
    33554431, 33554432, CHECK_LARGEST_N};
static const size_t REAL_SIZES[] = {1, 33, 4097, 1000003, 33554432};
static const size_t OFFSET_SIZES[] = {1, 5, 33, 4099, 1000003};
static const unsigned GRID_SIZES[] = {1, 3, 1000};
enum { EVERY_N_LAST = 4096, MAX_OFFSET = 3, MAX_LAUNCHES = 64, PRINTED_FAILURES = 20, RANDOM_HOT = 7 };
static const size_t REPEATED_FROM = 1000003;
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* One input of the matrix; `all` asks for every launch shape, else the default one. */
struct data_set { size_t n, offset; struct pattern pattern; bool all; };
struct launch { unsigned threads, blocks; enum finish finish; bool repeat; };

struct check {
    const struct step_info *step;
    const struct options *options;
    float *host, *device;
    struct data_set *sets;
    size_t set_count, next_set;
    struct check_case data;
    struct launch launches[MAX_LAUNCHES];
    int launch_count, next_launch;
    long cases, failures;
    float previous;
    char first_failure[320];
};

static void add_set(struct check *c, size_t n, size_t offset, enum pattern_kind kind, bool last,
                    size_t hot, bool all)
{
    c->sets[c->set_count++] = (struct data_set){n, offset, {kind, last, hot}, all};
}

static void make_sets(struct check *c)
{
    static const enum pattern_kind REAL[] = {PATTERN_REAL, PATTERN_NORMAL, PATTERN_WIDE, PATTERN_CANCEL};
    for (size_t i = 0; i < COUNT(SIZES); i++) {
        size_t n = SIZES[i];
        add_set(c, n, 0, PATTERN_ONES, false, 0, true);
        add_set(c, n, 0, PATTERN_UNIFORM, false, 0, true);
        if (n == 0) continue;                 /* no element to make hot */
        add_set(c, n, 0, PATTERN_ONEHOT, false, 0, true);
        add_set(c, n, 0, PATTERN_ONEHOT, true, 0, true);
        add_set(c, n, 0, PATTERN_ONEHOT, false, random_at(n, RANDOM_HOT) % n, true);
    }
    for (size_t i = 0; i < COUNT(REAL_SIZES) * COUNT(REAL); i++)
        add_set(c, REAL_SIZES[i / COUNT(REAL)], 0, REAL[i % COUNT(REAL)], false, 0, true);
    for (size_t n = 1; n <= EVERY_N_LAST; n++) {
        add_set(c, n, 0, PATTERN_ONES, false, 0, false);
        add_set(c, n, 0, PATTERN_ONEHOT, true, 0, false);
    }
    for (size_t i = 0; i < COUNT(OFFSET_SIZES) * MAX_OFFSET; i++)
        add_set(c, OFFSET_SIZES[i / MAX_OFFSET], i % MAX_OFFSET + 1, PATTERN_UNIFORM, false, 0, false);
}

static void add_launch(struct check *c, unsigned threads, unsigned blocks, enum finish finish, bool twice)
{
    c->launches[c->launch_count++] = (struct launch){threads, blocks, finish, false};
    if (twice) c->launches[c->launch_count++] = (struct launch){threads, blocks, finish, true};
}

/* Every block size and finish, and a few grids; large non-trivial inputs run twice. */
static void plan_launches(struct check *c, const struct data_set *set)
{
    const struct step_info *s = c->step;
    enum pattern_kind kind = set->pattern.kind;
    bool twice = set->n >= REPEATED_FROM && kind != PATTERN_ONES && kind != PATTERN_ONEHOT;
    c->launch_count = c->next_launch = 0;
    if (!set->all) add_launch(c, s->default_threads, 0, FINISH_GPU, false);
    for (unsigned threads = s->min_threads; set->all && threads <= s->max_threads; threads *= 2) {
        add_launch(c, threads, 0, FINISH_GPU, twice);
        if (s->host_finish) add_launch(c, threads, 0, FINISH_CPU, twice);
    }
    for (size_t g = 0; set->all && s->grid_size && g < COUNT(GRID_SIZES); g++)
        add_launch(c, s->default_threads, GRID_SIZES[g], FINISH_GPU, twice);
}

/* The next data set: filled, summed on the host and uploaded. */
static bool next_set(struct check *c)
{
    if (c->next_set == c->set_count) return false;
    const struct data_set *set = &c->sets[c->next_set++];
    pattern_fill(c->host, set->n, &set->pattern, c->options->seed + set->n);
    c->data = (struct check_case){.input = c->device + set->offset, .host = c->host, .n = set->n,
                                  .reference = reference_compute(c->host, set->n)};
    plan_launches(c, set);
    return CUDA_OK(cudaMemcpy(c->device + set->offset, c->host, set->n * sizeof(float),
                              cudaMemcpyHostToDevice));
}

struct check *check_start(const struct step_info *step, const struct options *options,
                          const struct device_info *device)
{
    size_t bytes = (CHECK_LARGEST_N + MAX_OFFSET) * sizeof(float);
    size_t sets = 5 * COUNT(SIZES) + 4 * COUNT(REAL_SIZES) + 2 * EVERY_N_LAST + MAX_OFFSET * COUNT(OFFSET_SIZES);
    struct check *c = calloc(1, sizeof *c);
    if (c == NULL || (c->host = malloc(bytes)) == NULL || (c->sets = calloc(sets, sizeof *c->sets)) == NULL) {
        fprintf(stderr, "%s --check: not enough host memory\n", step->name);
        if (c != NULL) free(c->host);
        free(c);
        return NULL;
    }
    c->step = step;
    c->options = options;
    make_sets(c);
    if (device_memory_fits(device, bytes, "--check's input") && CUDA_OK(cudaMalloc((void **)&c->device, bytes)))
        return c;
    check_finish(c, false);
    return NULL;
}

bool check_next(struct check *c, struct check_case *next)
{
    while (c->next_launch == c->launch_count)
        if (!next_set(c)) return false;
    const struct launch *launch = &c->launches[c->next_launch++];
    *next = c->data;
    next->threads = launch->threads;
    next->blocks = launch->blocks;
    next->finish = launch->finish;
    next->repeat = launch->repeat;
    return true;
}

void check_verdict(struct check *c, const struct check_case *done, bool passed, const char *what)
{
    const struct data_set *set = &c->sets[c->next_set - 1];
    char line[sizeof c->first_failure], pattern[48];
    c->cases++;
    if (passed) return;
    snprintf(line, sizeof line, "n=%zu pattern=%s offset=%zu threads=%u blocks=%u finish=%s: %s", done->n,
             pattern_name(&set->pattern, pattern, sizeof pattern), set->offset, done->threads, done->blocks,
             done->finish == FINISH_CPU ? "cpu" : "gpu", what);
    if (c->failures++ == 0) snprintf(c->first_failure, sizeof c->first_failure, "%s", line);
    if (c->failures <= PRINTED_FAILURES) printf("FAILED %s\n", line);
}

void check_record(struct check *c, const struct check_case *done, float total, unsigned depth)
{
    double bound = error_bound(&done->reference, depth);
    bool same_bits = !done->repeat || memcmp(&total, &c->previous, sizeof total) == 0;
    char what[160];
    c->previous = total;
    snprintf(what, sizeof what, "got %.9g, expected %.17g, allowed error %.9g%s", total, done->reference.sum,
             bound, same_bits ? "" : "; a repeated run gave other bits");
    check_verdict(c, done, result_within(total, &done->reference, bound) && same_bits, what);
}

int check_finish(struct check *c, bool ran)
{
    int status = !ran ? EXIT_ENVIRONMENT : c->failures > 0 ? EXIT_WRONG : EXIT_CORRECT;
    if (!ran) printf("check: stopped by an error after %ld cases (see above)\n", c->cases);
    else if (c->failures > 0) printf("check: FAILED %ld of %ld cases; the first: %s\n", c->failures, c->cases, c->first_failure);
    else printf("check: all %ld cases correct (n = 0 .. %zu, 7 patterns, threads %u..%u, %s%s, "
                "offsets 0..3, repeated runs bit-identical)\n", c->cases, CHECK_LARGEST_N,
                c->step->min_threads, c->step->max_threads, c->step->host_finish ? "both finishes" : "GPU finish",
                c->step->grid_size ? ", grids of 1, 3, 1000 blocks" : "");
    if (c->device != NULL) CUDA_OK(cudaFree(c->device));
    free(c->host);
    free(c->sets);
    free(c);
    return status;
}
