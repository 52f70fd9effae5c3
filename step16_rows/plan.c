/* step16_rows: the chooser, the launch shapes, their depth and memory, and the verdict
 * (plan.h), in plain C for the host and the tests. */
#include <math.h>
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
    struct rows_launch launch = {kernel, 0, 1, 0, 0, 0};
    if (kernel == KERNEL_AUTO) launch.kernel = kernel_choose(shape, type, sm_count);
    switch (launch.kernel) {
    case KERNEL_WARP:
        launch.threads = WARP_THREADS;
        launch.lanes_per_row = lanes_per_row(vectors, elements_per_vector(type));
        launch.vectors_per_lane = vectors_per_lane(vectors, launch.lanes_per_row);
        launch.blocks = divide_up(shape.rows,
                                  WARPS_PER_BLOCK *
                                      rows_per_warp(launch.lanes_per_row, launch.vectors_per_lane));
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

enum { EDGE_ADDS = 2 }; /* a block's thread adds one head element and one tail element */

/* The additions a vector's sum goes through inside the thread with the most vectors (thread 0)
 * of the `threads` that share `vectors` vectors: its `edge_adds` head and tail elements, its first pass of
 * `count` vectors and, for a longer row, strided_sum's passes in partial sums of
 * passes_per_partial passes each, the partials added in a row, and that sum added last. */
static size_t thread_chain(size_t vectors, size_t threads, unsigned count, unsigned edge_adds)
{
    size_t first_pass = threads * count;
    if (vectors <= first_pass) return divide_up(vectors, threads) + edge_adds;
    size_t passes = divide_up(vectors - first_pass, first_pass);
    size_t group = passes_per_partial(passes, count);
    return count + edge_adds + group * count + divide_up(passes, group) + 1;
}

unsigned launch_depth(const struct rows_launch *launch, struct matrix_shape shape,
                      enum element_type type)
{
    size_t per_vector = elements_per_vector(type), vectors = most_vectors(shape.cols, per_vector);
    size_t chain;
    switch (launch->kernel) {
    case KERNEL_WARP:
        chain = thread_chain(vectors, launch->lanes_per_row, launch->vectors_per_lane,
                             2 * EDGE_ROUNDS((unsigned)per_vector, launch->lanes_per_row)) +
                tree_levels(launch->lanes_per_row);
        break;
    case KERNEL_BLOCK:
        chain = thread_chain(vectors, launch->threads, BLOCK_VECTORS_PER_THREAD, EDGE_ADDS) +
                2 * WARP_LEVELS;
        break;
    default: /* a chunk per block, then the gatherer's walk over the row's block sums */
        chain = thread_chain(vectors < SPLIT_CHUNK_VECTORS ? vectors : SPLIT_CHUNK_VECTORS,
                             SPLIT_THREADS, SPLIT_VECTORS_PER_THREAD, EDGE_ADDS) +
                2 * WARP_LEVELS + divide_up(launch->blocks_per_row, SPLIT_THREADS) +
                2 * WARP_LEVELS;
        break;
    }
    return (unsigned)(chain + tree_levels(per_vector));
}

/* A block's items in a row, then its reduction (plan.h). */
static size_t cub_block_chain(size_t items)
{
    return divide_up(items, CUB_LEAST_THREADS) + CUB_MOST_ITEMS_PER_THREAD + WARP_LEVELS +
           WARP_SIZE;
}

unsigned cub_rows_depth(size_t cols)
{
    return (unsigned)cub_block_chain(cols);
}

unsigned cub_flat_depth(size_t n, unsigned sm_count)
{
    size_t blocks_most = divide_up(n, CUB_LEAST_TILE_ITEMS);
    return (unsigned)(cub_block_chain(divide_up(n, sm_count > 0 ? sm_count : 1)) +
                      cub_block_chain(blocks_most));
}

struct rows_buffer_bytes rows_buffer_bytes(struct matrix_shape shape,
                                           const struct rows_launch *launch)
{
    bool split = launch->kernel == KERNEL_SPLIT;
    struct rows_buffer_bytes b = {(shape.rows + 1) * sizeof(float), 0, 0};
    if (split) {
        b.tagged_sums = (launch->blocks + 1) * sizeof(unsigned long long);
        b.tickets = (shape.rows + 1) * sizeof(unsigned);
    }
    return b;
}

struct memory_fixed rows_fixed_memory(struct matrix_shape shape, const struct rows_launch *launch,
                                      bool cub, size_t cub_temp_bytes)
{
    struct rows_buffer_bytes b = rows_buffer_bytes(shape, launch);
    struct memory_fixed fixed = {0, ""};
    memory_fixed_add(&fixed, b.sums, "the row sums");
    if (b.tagged_sums > 0) memory_fixed_add(&fixed, b.tagged_sums, "split's block sums");
    if (b.tickets > 0) memory_fixed_add(&fixed, b.tickets, "split's tickets");
    if (cub) {
        memory_fixed_add(&fixed, b.sums, "CUB's row sums");
        memory_fixed_add(&fixed, cub_temp_bytes, "CUB's temporary storage");
    }
    return fixed;
}

/* The row the verdict names: its sum, reference, bound and sum|x|. */
static void name_row(struct rows_verdict *v, size_t row, float got,
                     const struct reference *reference, double bound)
{
    v->first = row;
    v->got = got;
    v->expected = reference->sum;
    v->bound = bound;
    v->abs_sum = reference->abs_sum;
}

struct rows_verdict rows_judge(const struct reference *references, size_t rows, const float *sums,
                               unsigned depth)
{
    struct rows_verdict v = {.rows = rows, .all_exact = true};
    for (size_t r = 0; r < rows; r++) {
        const struct reference *reference = &references[r];
        double bound = error_bound(reference, depth),
               error = fabs((double)sums[r] - reference->sum);
        bool judged = bound_judges(reference, bound);
        v.all_exact = v.all_exact && bound == 0;
        if (!isfinite(sums[r]) || (judged && !result_within(sums[r], reference, bound))) {
            if (v.wrong++ == 0) name_row(&v, r, sums[r], reference, bound);
        } else if (!judged) {
            if (v.unjudged++ == 0 && v.wrong == 0) name_row(&v, r, sums[r], reference, bound);
        }
        if (r == 0 || !(error <= v.worst_error)) {
            v.worst_error = error;
            v.bound_of_worst = bound;
        }
    }
    return v;
}

bool verdict_correct(const struct rows_verdict *v)
{
    return v->wrong == 0 && v->unjudged == 0;
}

void verdict_describe(const struct rows_verdict *v, char *text, size_t size)
{
    if (v->wrong > 0)
        snprintf(text, size, "%zu of %zu rows WRONG; the first, row %zu: got %.9g, expected %.17g",
                 v->wrong, v->rows, v->first, v->got, v->expected);
    else if (v->unjudged > 0)
        snprintf(text, size,
                 "%zu of %zu rows cannot be judged; the first, row %zu: got %.9g, expected %.17g, "
                 "but its bound %.9g is not below its sum|x| %.9g and would pass 0",
                 v->unjudged, v->rows, v->first, v->got, v->expected, v->bound, v->abs_sum);
    else
        snprintf(text, size, "%s", "");
}
