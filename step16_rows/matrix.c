/* step16_rows: the matrix on the host and the device, and the verdict on its row sums. */
#include <string.h>

#include "matrix.h"

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

bool matrix_upload(struct matrix *m, int copies)
{
    size_t bytes = m->shape.rows * m->shape.cols * element_bytes(m->type);
    for (int c = 0; c < copies; c++) {
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

/* In plain double: integer sums are exact (below 2^53), and otherwise the adds' error, at most
 * gamma(rows) x sum|x| in double, is within the term error_bound allows the reference for
 * n >= rows elements. */
struct reference whole_reference(const struct reference *references, size_t rows, size_t n)
{
    struct reference whole = {0, 0, n, true};
    for (size_t r = 0; r < rows; r++) {
        whole.sum += references[r].sum;
        whole.abs_sum += references[r].abs_sum;
        whole.integer_valued = whole.integer_valued && references[r].integer_valued;
    }
    return whole;
}
