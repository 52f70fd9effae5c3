/* step16_rows: the chooser and the launch shapes (plan.h), in plain C for the host and the
 * tests. */
#include <string.h>

#include "plan.h"
#include "toolbox.h"

static const char *const KERNEL_NAMES_TEXT[KERNEL_NAMES] = {"warp", "block", "split", "auto"};
static const char *const ELEMENT_NAMES_TEXT[ELEMENT_TYPES] = {"float", "bf16"};
enum { SHAPE_TEXT = 64 };

bool shape_parse(const char *text, struct matrix_shape *shape)
{
    char rows[SHAPE_TEXT];
    const char *times = strchr(text, 'x');
    if (times == NULL) {
        shape->rows = 1;
        return parse_size(text, &shape->cols);
    }
    if ((size_t)(times - text) >= sizeof rows) return false;
    memcpy(rows, text, (size_t)(times - text));
    rows[times - text] = '\0';
    return parse_size(rows, &shape->rows) && parse_size(times + 1, &shape->cols);
}

bool shape_valid(struct matrix_shape shape)
{
    return shape.rows <= MAX_ROWS && (shape.rows == 0 || shape.cols <= MAX_ELEMENTS / shape.rows);
}

size_t element_bytes(enum element_type type)
{
    return type == ELEMENT_BF16 ? 2 : 4;
}

unsigned elements_per_vector(enum element_type type)
{
    return (unsigned)(VECTOR_BYTES / element_bytes(type));
}

const char *element_name(enum element_type type)
{
    return ELEMENT_NAMES_TEXT[type];
}

const char *kernel_name(enum rows_kernel kernel)
{
    return KERNEL_NAMES_TEXT[kernel];
}

static int name_index(const char *text, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(text, names[i]) == 0) return i;
    return -1;
}

int kernel_parse(const char *text)
{
    return name_index(text, KERNEL_NAMES_TEXT, KERNEL_NAMES);
}

int element_parse(const char *text)
{
    return name_index(text, ELEMENT_NAMES_TEXT, ELEMENT_TYPES);
}

enum rows_kernel kernel_choose(struct matrix_shape shape, enum element_type type, unsigned sm_count)
{
    size_t row_bytes = shape.cols * element_bytes(type);
    if (row_bytes <= WARP_MOST_ROW_BYTES) return KERNEL_WARP;
    if (row_bytes <= BLOCK_MOST_ROW_BYTES) return KERNEL_BLOCK;
    bool enough_rows = shape.rows >= (size_t)BLOCK_LEAST_ROWS_PER_SM * sm_count;
    if (enough_rows && row_bytes <= (size_t)BLOCK_MOST_PASSES * BLOCK_MOST_ROW_BYTES)
        return KERNEL_BLOCK;
    return KERNEL_SPLIT;
}

static size_t divide_up(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/* The smallest block of BLOCK_MIN_THREADS .. BLOCK_MAX_THREADS whose one pass covers the row;
 * a longer row (a forced --kernel block) takes the largest and loops. */
static unsigned block_threads(size_t vectors)
{
    unsigned threads = BLOCK_MIN_THREADS;
    while (threads < BLOCK_MAX_THREADS && (size_t)threads * BLOCK_VECTORS_PER_THREAD < vectors)
        threads *= 2;
    return threads;
}

struct rows_launch launch_plan(enum rows_kernel kernel, struct matrix_shape shape,
                               enum element_type type, unsigned sm_count)
{
    size_t vectors = most_vectors(shape.cols, elements_per_vector(type));
    struct rows_launch launch = {kernel, 0, 1, 0, 0};
    if (kernel == KERNEL_AUTO) launch.kernel = kernel_choose(shape, type, sm_count);
    switch (launch.kernel) {
    case KERNEL_WARP:
        launch.threads = WARP_THREADS;
        launch.lanes_per_row = lanes_per_row(vectors);
        launch.blocks = divide_up(shape.rows,
                                  WARPS_PER_BLOCK * rows_per_warp(launch.lanes_per_row));
        break;
    case KERNEL_BLOCK:
        launch.threads = block_threads(vectors);
        launch.blocks = shape.rows;
        break;
    default:
        launch.threads = SPLIT_THREADS;
        launch.blocks_per_row = vectors > SPLIT_CHUNK_VECTORS
                                    ? divide_up(vectors, SPLIT_CHUNK_VECTORS)
                                    : 1;
        launch.blocks = shape.rows * launch.blocks_per_row;
        break;
    }
    return launch;
}

unsigned launch_depth(const struct rows_launch *launch, struct matrix_shape shape,
                      enum element_type type)
{
    enum { EDGE_ADDS = 2 }; /* a thread's head element and its tail element */
    size_t per_vector = elements_per_vector(type), vectors = most_vectors(shape.cols, per_vector);
    size_t threads_per_row = launch->kernel == KERNEL_WARP ? launch->lanes_per_row
                                                           : launch->threads;
    size_t per_block = launch->kernel == KERNEL_SPLIT && vectors > SPLIT_CHUNK_VECTORS
                           ? SPLIT_CHUNK_VECTORS
                           : vectors;
    size_t own = divide_up(per_block, threads_per_row) + tree_levels(per_vector) + EDGE_ADDS +
                 (launch->kernel == KERNEL_WARP ? tree_levels(launch->lanes_per_row)
                                                : 2 * WARP_LEVELS);
    if (launch->kernel != KERNEL_SPLIT) return (unsigned)own;
    return (unsigned)(own + divide_up(launch->blocks_per_row, SPLIT_THREADS) + 2 * WARP_LEVELS);
}
