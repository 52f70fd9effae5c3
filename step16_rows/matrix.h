/* step16_rows: the matrix on the host (its values, and the bf16 patterns of them), its copies
 * on the device, and every row's reference sum. Plain C for host.c and checks.c; the verdict
 * on the rows' sums is plan.h's. */
#ifndef STEP_MATRIX_H
#define STEP_MATRIX_H

#include "plan.h"
#include "toolbox.h"

/* The data: a common pattern (pattern.c) over the whole matrix, element i = row x cols + col;
 * or every row zero but one element, row r's at a column drawn from the seed, of value
 * r % ROW_HOT_VALUES + 1 (exact in bf16 too): a row that gets another row's sum, or loses its
 * element, or counts it twice, shows. */
enum fill { FILL_PATTERN, FILL_ROW_ONEHOT };
enum { ROW_HOT_VALUES = 97 };

struct matrix {
    struct matrix_shape shape;
    enum element_type type;
    float *values;  /* every element as the GPU adds it: for bf16, the value after rounding */
    void *elements; /* what the device gets: values itself, or their bf16 patterns */
    void *copies[MAX_BUFFERS];
    int count;
};

/* The host arrays, filled; false after saying why (not enough memory). */
bool matrix_fill(struct matrix *m, struct matrix_shape shape, enum element_type type,
                 enum fill fill, const struct pattern *pattern, uint64_t seed);
/* `copies` device copies of the elements, as many as the memory plan found room for (host.c);
 * false after saying why (a CUDA error). */
bool matrix_upload(struct matrix *m, int copies);
void matrix_free(struct matrix *m);

/* Every row's reference sum (verify.c), computed once per data set; NULL after saying why. */
struct reference *rows_references(const struct matrix *m);

/* The reference of all the elements, for CUB's flat sum: the rows' references added. */
struct reference whole_reference(const struct reference *references, size_t rows, size_t n);

#endif
