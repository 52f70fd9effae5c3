/* step16_rows: the matrix on the host and the device, and the verdict on its row sums. */
#include <math.h>
#include <string.h>

#include "matrix.h"

/* Room left for the runtime and CUB's temporary storage after the second and later copies. */
static const size_t KEEP_FREE = (size_t)256 << 20;
enum { PARALLEL_ROWS = 4096 }; /* fewer rows: each row sums in parallel itself (verify.c) */

static void fill_row_onehot(float *values, struct matrix_shape s, uint64_t seed)
{
    memset(values, 0, s.rows * s.cols * sizeof *values);
    for (size_t r = 0; s.cols > 0 && r < s.rows; r++)
        values[r * s.cols + random_at(seed, r) % s.cols] = (float)(r % ROW_HOT_VALUES + 1);
}

bool matrix_fill(struct matrix *m, struct matrix_shape shape, enum element_type type,
                 enum fill fill, const struct pattern *pattern, uint64_t seed)
{
    size_t n = shape.rows * shape.cols;
    memset(m, 0, sizeof *m);
    m->shape = shape;
    m->type = type;
    m->values = malloc(n > 0 ? n * sizeof(float) : 1);
    m->elements = type == ELEMENT_BF16 ? malloc(n > 0 ? n * sizeof(uint16_t) : 1) : m->values;
    if (m->values == NULL || m->elements == NULL) {
        fprintf(stderr, "not enough host memory for a %zu x %zu matrix\n", shape.rows, shape.cols);
        return false;
    }
    if (fill == FILL_ROW_ONEHOT)
        fill_row_onehot(m->values, shape, seed);
    else
        pattern_fill(m->values, n, pattern, seed);
    if (type == ELEMENT_BF16) {
        uint16_t *bits = m->elements;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) {
            bits[i] = bf16_from_float(m->values[i]); /* the toolbox's (common/bf16.c) */
            m->values[i] = bf16_to_float(bits[i]);
        }
    }
    return true;
}

bool matrix_upload(struct matrix *m, int buffers, const struct device_info *device)
{
    size_t bytes = m->shape.rows * m->shape.cols * element_bytes(m->type), free_bytes, total_bytes;
    if (!device_memory_fits(device, bytes, "the matrix")) return false;
    for (int c = 0; c < buffers; c++) {
        CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (c > 0 && free_bytes < bytes + KEEP_FREE) break;
        /* cudaMalloc(0) gives NULL: one vector keeps every copy a real buffer */
        CUDA_TRY(cudaMalloc(&m->copies[c], bytes > 0 ? bytes : VECTOR_BYTES));
        m->count = c + 1;
        CUDA_TRY(
            cudaMemcpy(m->copies[c], c > 0 ? m->copies[0] : m->elements, bytes, cudaMemcpyDefault));
    }
    return true;
}

void matrix_free(struct matrix *m)
{
    for (int c = 0; c < m->count; c++) CUDA_OK(cudaFree(m->copies[c]));
    if (m->elements != m->values) free(m->elements);
    free(m->values);
    memset(m, 0, sizeof *m);
}

struct reference *rows_references(const struct matrix *m)
{
    struct matrix_shape s = m->shape;
    struct reference *references = malloc((s.rows > 0 ? s.rows : 1) * sizeof *references);
    if (references == NULL) {
        fprintf(stderr, "not enough host memory for %zu row sums\n", s.rows);
        return NULL;
    }
#pragma omp parallel for schedule(static) if (s.rows >= PARALLEL_ROWS)
    for (size_t r = 0; r < s.rows; r++)
        references[r] = reference_compute(m->values + r * s.cols, s.cols);
    return references;
}

struct rows_verdict rows_judge(const struct reference *references, size_t rows, const float *sums,
                               unsigned depth)
{
    struct rows_verdict v = {.rows = rows, .all_exact = true};
    for (size_t r = 0; r < rows; r++) {
        double bound = error_bound(&references[r], depth),
               error = fabs((double)sums[r] - references[r].sum);
        v.all_exact = v.all_exact && bound == 0;
        if (!result_within(sums[r], &references[r], bound) && v.wrong++ == 0) {
            v.first_wrong = r;
            v.got = sums[r];
            v.expected = references[r].sum;
        }
        if (r == 0 || !(error <= v.worst_error)) {
            v.worst_error = error;
            v.bound_of_worst = bound;
        }
    }
    return v;
}
