/* step16_rows: --check. Every shape class through every kernel and both element types, every
 * row's sum against the host's, the sums set to NaN before every case (a row never written
 * fails) and split's words and tickets required 0 again after it:
 * - rows and columns from 0, 1, primes and 2^k - 1, 2^k, 2^k + 1 around every threshold of the
 *   chooser and of the kernels' passes, combined up to CHECK_GRID_ELEMENTS elements, and a
 *   few extreme shapes (2^20 x 1, one row of 2^25 + 1);
 * - three integer fills, each exact in bf16 and in float sums: a one-hot element per row, all
 *   ones, the uniform integers 0..99; the matrix starting 0 .. per_vector - 1 elements past a
 *   16-byte boundary, so that rows start everywhere in a vector;
 * - real-valued data on a few shapes: within the bound, and the same bits when run again. */
#include <string.h>

#include "checks.h"
#include "matrix.h"
#include "reduce.h"

static const size_t ROW_COUNTS[] = {0,  1,  2,  3,   5,   7,   8,    31,  33,
                                    63, 64, 65, 127, 129, 257, 1000, 4097};
static const size_t COL_COUNTS[] = {
    0,    1,     2,     3,     4,     5,     7,     8,      9,      15,     16,     17,
    31,   32,    33,    63,    64,    65,    127,   128,    129,    255,    256,    257,
    511,  512,   513,   1023,  1024,  1025,  2047,  2048,   2049,   4093,   8191,   8192,
    8193, 16383, 16384, 16385, 32767, 32769, 65537, 131071, 131072, 262147, 1048577};
static const struct matrix_shape EXTREME_SHAPES[] = {{(size_t)1 << 20, 1},
                                                     {((size_t)1 << 20) + 1, 2},
                                                     {65537, 33},
                                                     {4097, 1025},
                                                     {1, ((size_t)1 << 25) + 1},
                                                     {2, ((size_t)1 << 24) + 3},
                                                     {5, ((size_t)1 << 22) - 1},
                                                     {3, 1 << 23}};
static const struct matrix_shape REAL_SHAPES[] = {
    {1000, 33}, {4097, 255}, {129, 16385}, {3, 1048577}};
enum { CHECK_GRID_ELEMENTS = 1 << 20, PRINTED = 20, FILLS = 3, REPEATS = 2 };
/* The largest matrix of any case (the extreme shapes) and its most rows, for the buffers. */
#define CHECK_LARGEST_ELEMENTS (((size_t)1 << 25) + 16)
#define CHECK_MOST_ROWS (((size_t)1 << 20) + 1)
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

struct checker {
    const struct options *options;
    void *input; /* room for CHECK_LARGEST_ELEMENTS floats past up to one vector */
    float *sums, *host_sums, *previous;
    unsigned long long *tagged_sums, *host_words;
    unsigned *tickets, *host_tickets;
    int kernel, type;  /* -1: every one */
    unsigned sm_count; /* the GPU's, for auto's pick */
    long cases, failures;
    char first_failure[640];
};

/* Blocks of the split kernel for the largest case: one 64 KiB chunk per block at most, and a
 * block per row at least. */
static size_t most_split_blocks(void)
{
    return CHECK_LARGEST_ELEMENTS / (SPLIT_CHUNK_VECTORS * 4) + CHECK_MOST_ROWS + 1;
}

static bool checker_create(struct checker *c)
{
    size_t words = most_split_blocks();
    c->host_sums = malloc(CHECK_MOST_ROWS * sizeof(float));
    c->previous = malloc(CHECK_MOST_ROWS * sizeof(float));
    c->host_words = malloc(words * sizeof(unsigned long long));
    c->host_tickets = malloc(CHECK_MOST_ROWS * sizeof(unsigned));
    if (c->host_sums == NULL || c->previous == NULL || c->host_words == NULL ||
        c->host_tickets == NULL) {
        fprintf(stderr, "step16 --check: not enough host memory\n");
        return false;
    }
    CUDA_TRY(cudaMalloc(&c->input, CHECK_LARGEST_ELEMENTS * sizeof(float) + VECTOR_BYTES));
    CUDA_TRY(cudaMalloc((void **)&c->sums, CHECK_MOST_ROWS * sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&c->tagged_sums, words * sizeof(unsigned long long)));
    CUDA_TRY(cudaMalloc((void **)&c->tickets, CHECK_MOST_ROWS * sizeof(unsigned)));
    CUDA_TRY(cudaMemset(c->tagged_sums, 0, words * sizeof(unsigned long long)));
    return CUDA_OK(cudaMemset(c->tickets, 0, CHECK_MOST_ROWS * sizeof(unsigned)));
}

static void checker_free(struct checker *c)
{
    CUDA_OK(cudaFree(c->input));
    CUDA_OK(cudaFree(c->sums));
    CUDA_OK(cudaFree(c->tagged_sums));
    CUDA_OK(cudaFree(c->tickets));
    free(c->host_sums);
    free(c->previous);
    free(c->host_words);
    free(c->host_tickets);
}

static void record(struct checker *c, const char *what)
{
    if (c->failures++ == 0) snprintf(c->first_failure, sizeof c->first_failure, "%s", what);
    if (c->failures <= PRINTED) printf("FAILED %s\n", what);
}

/* One launch into row sums poisoned first (a NaN in every row: a row the kernel never writes
 * keeps it), its sums into host_sums. false: a CUDA error. */
static bool launch_once(struct checker *c, const void *at, const struct matrix *m,
                        const struct rows_launch *l)
{
    size_t bytes = m->shape.rows * sizeof(float);
    return outputs_poison(c->sums, bytes) &&
           CUDA_OK(rows_reduce(at, m->type, m->shape, l, c->sums, c->tagged_sums, c->tickets, 0)) &&
           CUDA_OK(cudaMemcpy(c->host_sums, c->sums, bytes, cudaMemcpyDeviceToHost));
}

/* split's words and tickets, which its finish reads, cannot be poisoned: each launch must
 * leave them 0 for the next. *clean: whether it did; if not they are zeroed again, so that the
 * next case is judged on its own. false: a CUDA error. */
static bool split_left_zeros(struct checker *c, const struct rows_launch *l, size_t rows,
                             bool *clean)
{
    size_t word_bytes = l->blocks * sizeof(unsigned long long),
           ticket_bytes = rows * sizeof(unsigned);
    *clean = true;
    if (l->kernel != KERNEL_SPLIT) return true;
    CUDA_TRY(cudaMemcpy(c->host_words, c->tagged_sums, word_bytes, cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(c->host_tickets, c->tickets, ticket_bytes, cudaMemcpyDeviceToHost));
    for (size_t b = 0; *clean && b < l->blocks; b++) *clean = c->host_words[b] == 0;
    for (size_t r = 0; *clean && r < rows; r++) *clean = c->host_tickets[r] == 0;
    if (*clean) return true;
    CUDA_TRY(cudaMemset(c->tagged_sums, 0, word_bytes));
    return CUDA_OK(cudaMemset(c->tickets, 0, ticket_bytes));
}

/* One data set on the device, `offset` elements past a 16-byte boundary, through every chosen
 * kernel (the one auto picks too), each judged row by row; with `repeats` 2 each runs twice
 * and must give the same bits. false: a CUDA error. */
static bool run_set(struct checker *c, const struct matrix *m, size_t offset, const char *data,
                    int repeats)
{
    struct matrix_shape s = m->shape;
    size_t size = element_bytes(m->type), bytes = s.rows * s.cols * size;
    char *at = (char *)c->input + offset * size;
    struct reference *references = rows_references(m);
    bool ok = references != NULL &&
              CUDA_OK(cudaMemcpy(at, m->elements, bytes, cudaMemcpyHostToDevice));
    for (int k = 0; ok && k < KERNEL_NAMES; k++) {
        if (c->kernel >= 0 && k != c->kernel) continue;
        struct rows_launch l = launch_plan((enum rows_kernel)k, s, m->type, c->sm_count);
        unsigned depth = launch_depth(&l, s, m->type);
        for (int r = 0; ok && r < repeats; r++) {
            char what[256], verdict[320], line[sizeof c->first_failure];
            bool clean = true;
            ok = launch_once(c, at, m, &l) && split_left_zeros(c, &l, s.rows, &clean);
            if (!ok) break;
            struct rows_verdict v = rows_judge(references, s.rows, c->host_sums, depth);
            bool same = r == 0 || memcmp(c->host_sums, c->previous, s.rows * sizeof(float)) == 0;
            memcpy(c->previous, c->host_sums, s.rows * sizeof(float));
            c->cases++;
            if (verdict_correct(&v) && same && clean) continue;
            snprintf(what, sizeof what, "%zu x %zu %s, %s, offset %zu, --kernel %s (%s):", s.rows,
                     s.cols, element_name(m->type), data, offset, kernel_name((enum rows_kernel)k),
                     kernel_name(l.kernel));
            verdict_describe(&v, verdict, sizeof verdict);
            snprintf(line, sizeof line, "%s %s", what,
                     !verdict_correct(&v) ? verdict
                     : !clean ? "split left a block sum or a ticket nonzero for the next launch"
                              : "a repeated run gave other bits");
            record(c, line);
        }
    }
    free(references);
    return ok;
}

static bool chosen_type(const struct checker *c, int type)
{
    return c->type < 0 || c->type == type;
}

/* A shape through the three integer fills, each at its own offset (i: the shape's index). */
static bool integer_fills(struct checker *c, struct matrix_shape s, enum element_type type,
                          size_t i)
{
    static const struct pattern ONES = {PATTERN_ONES, false, 0},
                                UNIFORM = {PATTERN_UNIFORM, false, 0};
    static const char *const NAMES[FILLS] = {"one-hot per row", "ones", "uniform 0..99"};
    size_t per_vector = elements_per_vector(type);
    struct matrix m;
    bool ok = true;
    for (int f = 0; ok && f < FILLS; f++) {
        ok = matrix_fill(&m, s, type, f == 0 ? FILL_ROW_ONEHOT : FILL_PATTERN,
                         f == 1 ? &ONES : &UNIFORM, c->options->seed + i) &&
             run_set(c, &m, (i + (size_t)f * (per_vector / 2 + 1)) % per_vector, NAMES[f], 1);
        matrix_free(&m);
    }
    return ok;
}

static bool real_valued(struct checker *c, struct matrix_shape s, enum element_type type)
{
    static const struct pattern REAL = {PATTERN_REAL, false, 0};
    struct matrix m;
    bool ok = matrix_fill(&m, s, type, FILL_PATTERN, &REAL, c->options->seed) &&
              run_set(c, &m, 1, "real-valued", REPEATS);
    matrix_free(&m);
    return ok;
}

static bool run_all(struct checker *c)
{
    size_t i = 0;
    for (int type = 0; type < ELEMENT_TYPES; type++) {
        if (!chosen_type(c, type)) continue;
        for (size_t r = 0; r < COUNT(ROW_COUNTS); r++)
            for (size_t k = 0; k < COUNT(COL_COUNTS); k++) {
                struct matrix_shape s = {ROW_COUNTS[r], COL_COUNTS[k]};
                if (s.rows * s.cols > CHECK_GRID_ELEMENTS) continue;
                if (!integer_fills(c, s, (enum element_type)type, i++)) return false;
            }
        for (size_t e = 0; e < COUNT(EXTREME_SHAPES); e++)
            if (!integer_fills(c, EXTREME_SHAPES[e], (enum element_type)type, i++)) return false;
        for (size_t e = 0; e < COUNT(REAL_SHAPES); e++)
            if (!real_valued(c, REAL_SHAPES[e], (enum element_type)type)) return false;
    }
    return true;
}

int check_rows(const struct options *options, const struct device_info *device, int kernel,
               int type)
{
    struct checker c = {
        .options = options, .kernel = kernel, .type = type, .sm_count = (unsigned)device->sm_count};
    bool ran = device_memory_fits(device, CHECK_LARGEST_ELEMENTS * sizeof(float) * 2,
                                  "--check's matrices") &&
               checker_create(&c) && run_all(&c);
    int status = !ran ? EXIT_ENVIRONMENT : c.failures > 0 ? EXIT_WRONG : EXIT_CORRECT;
    if (!ran)
        printf("check: stopped by an error after %ld cases (see above)\n", c.cases);
    else if (c.failures > 0)
        printf("check: FAILED %ld of %ld cases; the first: %s\n", c.failures, c.cases,
               c.first_failure);
    else
        printf("check: all %ld cases correct (rows 0 .. 2^20 + 1, columns 0 .. 2^25 + 1, %s, "
               "%s, every row exact on integer data, offsets 0 .. per vector - 1, repeated runs "
               "bit-identical)\n",
               c.cases,
               kernel >= 0 ? kernel_name((enum rows_kernel)kernel)
                           : "kernels warp, block, split and auto",
               type >= 0 ? element_name((enum element_type)type) : "float and bf16");
    checker_free(&c);
    return status;
}
