/* step16_rows: the shape of a launch, shared by host.c, reduce.cu and the host tests.
 * Which kernel a shape gets (the chooser), how many blocks each kernel launches, how long its
 * chains of additions are, what it needs in device memory beside the matrix, the verdict on
 * every row's sum, and how one row falls into 16-byte vectors: plain functions of plain
 * numbers, so that the tests can check every shape class on a machine without a GPU. The
 * index arithmetic that the kernels run on the GPU is the inline functions at the end,
 * compiled by both compilers. */
#ifndef STEP_PLAN_H
#define STEP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __CUDACC__
#define HOST_DEVICE __host__ __device__
#else
#define HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum element_type { ELEMENT_FLOAT, ELEMENT_BF16, ELEMENT_TYPES };
enum rows_kernel { KERNEL_WARP, KERNEL_BLOCK, KERNEL_SPLIT, KERNEL_AUTO, KERNEL_NAMES };

/* One load instruction per thread reads a 16-byte vector: 4 floats or 8 bf16. */
enum { VECTOR_BYTES = 16, WARP_SIZE = 32, WARP_LEVELS = 5 };

/* warp: a warp per row, or a group of 2 to 16 of its lanes per row for shorter rows (the
 * smallest group whose lanes cover the row with WARP_VECTORS_PER_LANE vectors each). Each lane
 * keeps WARP_LOADS_PER_LANE vectors in flight before its first add: vectors_per_lane of each of
 * its rows (1, 2 or 4), so 8, 4 or 2 rows a group. A row of 32 floats is only 128 bytes, and one
 * such row per warp leaves too few bytes in flight to keep the memory busy (step11's README:
 * Little's law); a bf16 row of 32 fills one vector of each of 4 lanes, so they take 8 rows. */
enum { WARP_VECTORS_PER_LANE = 2, WARP_MOST_VECTORS_PER_LANE = 4 };
enum { WARP_LOADS_PER_LANE = 8, WARPS_PER_BLOCK = 8 };
/* A group has at least MIN_LANES_PER_ROW lanes, and enough that MOST_EDGE_ROUNDS rounds read a
 * row's head and tail (lanes_per_row): more rounds cost the kernel registers it spills. */
enum { MIN_LANES_PER_ROW = 2, MOST_EDGE_ROUNDS = 2 };
enum { WARP_THREADS = WARPS_PER_BLOCK * WARP_SIZE };

/* block: a block per row; BLOCK_VECTORS_PER_THREAD vectors per thread per pass, all loads at
 * once; the block size is the smallest of 64 .. 512 whose one pass covers the row. */
enum { BLOCK_VECTORS_PER_THREAD = 8, BLOCK_MIN_THREADS = 64, BLOCK_MAX_THREADS = 512 };
enum {
    BLOCK_PASS_BYTES = BLOCK_MAX_THREADS * BLOCK_VECTORS_PER_THREAD * VECTOR_BYTES
}; /* 64 KiB */

/* split: several blocks per row, each reading one chunk of SPLIT_THREADS x
 * SPLIT_VECTORS_PER_THREAD vectors (64 KiB) once, as step13's blocks do; the block of the row
 * that draws the row's last ticket adds the row's published sums in index order. */
enum { SPLIT_THREADS = 512, SPLIT_VECTORS_PER_THREAD = 8, TAGS_IN_FLIGHT = 8 };
enum { SPLIT_CHUNK_VECTORS = SPLIT_THREADS * SPLIT_VECTORS_PER_THREAD };

/* The chooser's thresholds, in bytes of one row (the same for float and bf16):
 * - up to WARP_MOST_ROW_BYTES, one pass of a warp's 32 lanes with 4 vectors each covers the
 *   row: a block per row reads such rows more slowly (2 KiB rows on an H200: 67 % of the peak
 *   against the warp kernel's 87 %, step16's NOTES.md), so a warp takes it, rows_per_warp of
 *   them (32 rows of 32 floats: 8 groups of 4 lanes, 4 rows each);
 * - up to BLOCK_MOST_ROW_BYTES, one block pass covers the row (at most 512 threads x 8
 *   vectors): a block per row reads it with every load in flight at once;
 * - longer rows of up to BLOCK_MOST_PASSES block passes (512 KiB) still get a block each,
 *   which walks its row pass after pass, wherever there are BLOCK_LEAST_ROWS_PER_SM rows for
 *   every SM: each SM then holds two blocks or more, and one block's loads are in flight while
 *   another adds;
 * - fewer rows, or longer ones, are split into 64 KiB chunks, a block each: a few long rows
 *   still fill the GPU, and no SM is left walking the last long rows alone. A chunk costs one
 *   8-byte word and one atomic, nothing beside 64 KiB of loads, but each row also pays a
 *   finish (a ticket, and the last block's gather of the row's words). */
enum { WARP_MOST_ROW_BYTES = WARP_SIZE * WARP_MOST_VECTORS_PER_LANE * VECTOR_BYTES }; /* 2 KiB */
enum { BLOCK_MOST_ROW_BYTES = BLOCK_PASS_BYTES };
enum { BLOCK_LEAST_ROWS_PER_SM = 2, BLOCK_MOST_PASSES = 8 };

/* The limits of a shape: rows one per grid index at most, and 2^32 elements in all. */
#define MAX_ROWS ((size_t)0x7fffffff)
#define MAX_ELEMENTS ((size_t)1 << 32)

struct matrix_shape {
    size_t rows, cols;
};

/* "RxC" (each part as parse_size takes it: 1000003, 2^20, 4K), or a plain count N: 1 x N. */
bool shape_parse(const char *text, struct matrix_shape *shape);
/* Within MAX_ROWS and MAX_ELEMENTS; a row or column count of 0 is a valid, empty shape. */
bool shape_valid(struct matrix_shape shape);

size_t element_bytes(enum element_type type);
unsigned elements_per_vector(enum element_type type);
const char *element_name(enum element_type type);
const char *kernel_name(enum rows_kernel kernel);
/* "warp", "block", "split", "auto" (or "float", "bf16") -> its enum; -1 when none. */
int kernel_parse(const char *text);
int element_parse(const char *text);

/* The kernel for a shape on a GPU of `sm_count` SMs: by the bytes of one row, and for long
 * rows by how many rows there are for each SM (see the thresholds above). */
enum rows_kernel kernel_choose(struct matrix_shape shape, enum element_type type,
                               unsigned sm_count);

/* What one launch of `kernel` over `shape` is: its grid, block size and, for split, how many
 * blocks share a row (the published words: rows x blocks_per_row, and a ticket per row).
 * blocks 0: there is nothing to launch (no rows). */
struct rows_launch {
    enum rows_kernel kernel;
    size_t blocks, blocks_per_row;
    unsigned threads, lanes_per_row, vectors_per_lane; /* the last two: warp only */
};
/* `sm_count` matters only to auto (kernel_choose). */
struct rows_launch launch_plan(enum rows_kernel kernel, struct matrix_shape shape,
                               enum element_type type, unsigned sm_count);
/* The longest chain of float additions any element goes through (docs/verification.md). */
unsigned launch_depth(const struct rows_launch *launch, struct matrix_shape shape,
                      enum element_type type);

/* ---- CUB's sums, checked as the step's are ---------------------------------------------- */

/* CUB's order of additions, as CUDA 13.0's cub/device/dispatch/tuning/tuning_reduce.cuh and
 * dispatch_reduce.cuh set it, for the bound on CUB's sums: a segment (a row, or one block's
 * even share of the flat sum) goes to a block of at least CUB_LEAST_THREADS threads, each of
 * which adds its items in a row, at most CUB_MOST_ITEMS_PER_THREAD from each tile; then the
 * block's reduction: shuffles over WARP_LEVELS levels and at most WARP_SIZE warp sums in a
 * row. The flat sum shares its tiles, of CUB_LEAST_TILE_ITEMS or more, among at least a
 * block per SM (or a block per tile), and one block adds those blocks' sums. */
enum { CUB_LEAST_THREADS = 256, CUB_MOST_ITEMS_PER_THREAD = 20, CUB_LEAST_TILE_ITEMS = 4096 };
/* The depth of cub::DeviceSegmentedReduce's sum of a row of `cols`, and of
 * cub::DeviceReduce::Sum's of n elements on a GPU of `sm_count` SMs. */
unsigned cub_rows_depth(size_t cols);
unsigned cub_flat_depth(size_t n, unsigned sm_count);

/* ---- device memory beside the matrix ------------------------------------------------------ */

struct memory_fixed; /* toolbox.h */

/* What a run allocates once: the row sums; for split a 64-bit word per block and a ticket per
 * row; with CUB its own row sums and its temporary storage. One element more of each:
 * cudaMalloc(0) would give NULL. */
struct rows_buffer_bytes {
    size_t sums, tagged_sums, tickets; /* 0: not allocated */
};
struct rows_buffer_bytes rows_buffer_bytes(struct matrix_shape shape,
                                           const struct rows_launch *launch);
/* All of them, each in whole granules, named for the message when the matrix does not fit
 * beside them (memory.c); cub_temp_bytes: CUB's storage, false cub: none of CUB's. */
struct memory_fixed rows_fixed_memory(struct matrix_shape shape, const struct rows_launch *launch,
                                      bool cub, size_t cub_temp_bytes);

/* ---- the verdict: every row's sum against its reference (docs/verification.md) ---------- */

struct reference; /* toolbox.h */
/* A row is judged exactly where its elements are integers summing to at most 2^24, within
 * error_bound(depth) otherwise. A sum that is not finite is wrong whatever the bound: a row
 * never written holds the NaN its sums were poisoned with. A bound of sum|x| or more would
 * pass any sum, 0 included: that row cannot be judged, and is never counted right. */
struct rows_verdict {
    size_t rows, wrong, unjudged;
    size_t first; /* the first wrong row, or else the first unjudged one; valid when either */
    float got;    /* that row's sum; its reference sum, bound and sum|x| */
    double expected, bound, abs_sum;
    double worst_error, bound_of_worst;
    bool all_exact; /* every row had to be exact */
};
struct rows_verdict rows_judge(const struct reference *references, size_t rows, const float *sums,
                               unsigned depth);
bool verdict_correct(const struct rows_verdict *verdict); /* every row judged and right */
/* What is wrong, for a report or --check ("3 of 5 rows WRONG; the first, row 2: got nan,
 * expected 6"); "" when the verdict is correct. */
void verdict_describe(const struct rows_verdict *verdict, char *text, size_t size);

/* ---- the index arithmetic the kernels run --------------------------------------------- */

/* A row as 16-byte vectors can read it: `head` elements up to the first 16-byte boundary,
 * `vectors` whole vectors, then `tail` elements; past_boundary is how many elements the row's
 * first element lies past a boundary (0 .. per_vector - 1). A row of a matrix whose columns
 * are not a multiple of per_vector starts at a different place in a vector row by row. */
struct row_pieces {
    size_t head, vectors, tail;
};
HOST_DEVICE static inline struct row_pieces row_pieces_of(size_t past_boundary, size_t cols,
                                                          size_t per_vector)
{
    size_t to_boundary = past_boundary ? per_vector - past_boundary : 0;
    struct row_pieces p;
    p.head = to_boundary < cols ? to_boundary : cols;
    p.vectors = (cols - p.head) / per_vector;
    p.tail = cols - p.head - p.vectors * per_vector;
    return p;
}

/* The most whole vectors any row of `cols` elements holds, whatever its alignment. */
HOST_DEVICE static inline size_t most_vectors(size_t cols, size_t per_vector)
{
    return cols / per_vector;
}

/* The rounds in which a group of `lanes` lanes reads a row's head and tail elements (fewer
 * than `per_vector` each): lane t reads elements t, t + lanes, ... A macro, so that the kernel
 * can size its loop with it. */
#define EDGE_ROUNDS(per_vector, lanes) (((per_vector)-1 + (lanes)-1) / (lanes))

/* The warp kernel's lanes per row: the fewest of 2, 4, ... 32 whose first pass covers a row
 * of `vectors` whole vectors (32 for longer rows: they loop), but at least enough that two
 * rounds (EDGE_ROUNDS) read a head or tail of up to per_vector - 1 elements: 2 lanes for
 * float, 4 for bf16. A short row then keeps every lane's loads busy: 8 groups of 4 lanes, each
 * lane with two float4, read 8 rows of 32 floats a pass, 32 over the warp's passes. */
HOST_DEVICE static inline unsigned lanes_per_row(size_t vectors, unsigned per_vector)
{
    unsigned lanes = MIN_LANES_PER_ROW;
    while (EDGE_ROUNDS(per_vector, lanes) > MOST_EDGE_ROUNDS) lanes *= 2;
    while (lanes < WARP_SIZE && (size_t)lanes * WARP_VECTORS_PER_LANE < vectors) lanes *= 2;
    return lanes;
}

/* The vectors each lane of a group of `lanes` loads from each of its rows: the fewest of 1, 2
 * and 4 that cover a row of `vectors` vectors (4 for longer rows: they loop). */
HOST_DEVICE static inline unsigned vectors_per_lane(size_t vectors, unsigned lanes)
{
    unsigned count = 1;
    while (count < WARP_MOST_VECTORS_PER_LANE && (size_t)lanes * count < vectors) count *= 2;
    return count;
}

/* Whether a warp launch over rows that all start on a 16-byte boundary takes the kernel
 * without heads and tails (reduce.cu's launch_shape): where those are a large share of its
 * instructions, for bf16 (four conversions a word) and with one vector a lane. A macro, so
 * that the kernel's template can test it too. */
#define WARP_DROPS_EDGES(element_bytes, vectors_per_lane)                                          \
    ((element_bytes) < sizeof(float) || (vectors_per_lane) == 1)

/* Rows per warp of the warp kernel: a row per group of lanes, WARP_LOADS_PER_LANE / count
 * times over, each lane loading `count` vectors of each row. */
HOST_DEVICE static inline size_t rows_per_warp(unsigned lanes, unsigned count)
{
    return (size_t)(WARP_SIZE / lanes) * (WARP_LOADS_PER_LANE / count);
}

/* strided_sum's passes added into one partial sum before the partial joins the thread's sum:
 * the smallest power of two whose square, times the loads per pass, covers the passes. A
 * thread's chain of additions is then about 2 sqrt(count x passes), not count x passes: a
 * forced kernel on one long row keeps a bound far below the row's sum (launch_depth). */
HOST_DEVICE static inline size_t passes_per_partial(size_t passes, unsigned count)
{
    size_t group = 1;
    while (group * group * count < passes) group *= 2;
    return group;
}

/* Block `part` of a split row reads vectors [first, first + count) of the row's body. */
struct chunk {
    size_t first, count;
};
HOST_DEVICE static inline struct chunk split_chunk(size_t part, size_t vectors)
{
    struct chunk c;
    c.first = part * SPLIT_CHUNK_VECTORS;
    c.count = c.first < vectors ? vectors - c.first : 0;
    if (c.count > SPLIT_CHUNK_VECTORS) c.count = SPLIT_CHUNK_VECTORS;
    return c;
}

#ifdef __cplusplus
}
#endif
#endif
