/* step16_rows. On the host (no GPU needed): the shape parser, the chooser's thresholds, the
 * launch shapes, plan.h's index arithmetic (every row cut into pieces that add up to it, split's
 * chunks covering it, every grid covering every row), the error bound of the longest chains,
 * the verdict (a row never written, a bound as wide as the sum, a wrong row of CUB's), the
 * memory plan's buffers; the program's usage errors (exit 2, naming the value) and a machine
 * that shows it no GPU (exit 3). On a GPU: --check (row sums poisoned before every case, a
 * one-hot element per row: a row written never, twice or from another row shows), every
 * kernel forced on odd shapes and on one long row, the chooser's pick named in the launch
 * line, CUB's sums checked, bf16, the empty shapes and the CSV. Without a GPU those skip, never
 * pass. The tests run from the repository root after `make` (`make test` does both). */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plan.h"
#include "toolbox.h"

static const char PROGRAM[] = "./step16_rows/run";
enum { LINE = 1024, FIELDS = 18 };
/* The SMs of the GPU the host tests plan for: an H100's (auto's pick depends on it only for
 * rows longer than one block pass). */
enum { PLANNED_SMS = 132 };

/* ---- the shape parser ------------------------------------------------------------------- */

Test(step16_host, shapes_parse_as_rows_x_cols_and_a_count_as_one_row)
{
    static const struct {
        const char *text;
        size_t rows, cols;
    } GOOD[] = {{"2^20x1", (size_t)1 << 20, 1},
                {"1x2^30", 1, (size_t)1 << 30},
                {"1000x1000003", 1000, 1000003},
                {"0x5", 0, 5},
                {"7x0", 7, 0},
                {"1000003", 1, 1000003},
                {"4Kx1M", 4096, (size_t)1 << 20}};
    static const char *const BAD[] = {"x5", "5x", "axb", "5x5x5", "", "-3x4", "5y4", "2^xx3"};
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        struct matrix_shape s = {99, 99};
        cr_assert(shape_parse(GOOD[i].text, &s), "'%s' is a shape", GOOD[i].text);
        cr_expect_eq(s.rows, GOOD[i].rows, "'%s': rows %zu", GOOD[i].text, s.rows);
        cr_expect_eq(s.cols, GOOD[i].cols, "'%s': cols %zu", GOOD[i].text, s.cols);
    }
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        struct matrix_shape s;
        cr_expect_not(shape_parse(BAD[i], &s), "'%s' is not a shape", BAD[i]);
    }
}

Test(step16_host, shapes_stay_within_the_grid_and_2_to_the_32_elements)
{
    cr_expect(shape_valid((struct matrix_shape){MAX_ROWS, 2}));
    cr_expect(shape_valid((struct matrix_shape){1, MAX_ELEMENTS}));
    cr_expect(shape_valid((struct matrix_shape){0, 5}));
    cr_expect(shape_valid((struct matrix_shape){5, 0}));
    cr_expect_not(shape_valid((struct matrix_shape){MAX_ROWS + 1, 1}));
    cr_expect_not(shape_valid((struct matrix_shape){2, MAX_ELEMENTS / 2 + 1}));
    cr_expect_not(shape_valid((struct matrix_shape){1, MAX_ELEMENTS + 1}));
}

/* ---- the chooser -------------------------------------------------------------------------- */

/* The thresholds are bytes of a row: the same shape in bf16 holds twice the columns. Rows
 * longer than one block pass keep a block each only up to BLOCK_MOST_PASSES passes and where
 * there are two rows per SM or more; the others are split. */
Test(step16_host, the_chooser_switches_at_one_warp_pass_one_block_pass_and_two_rows_per_sm)
{
    for (int type = 0; type < ELEMENT_TYPES; type++) {
        size_t size = element_bytes((enum element_type)type);
        size_t warp_most = WARP_SIZE * WARP_MOST_VECTORS_PER_LANE * VECTOR_BYTES / size;
        size_t block_most = BLOCK_MAX_THREADS * BLOCK_VECTORS_PER_THREAD * VECTOR_BYTES / size;
        size_t fill = BLOCK_LEAST_ROWS_PER_SM * PLANNED_SMS;
        static const size_t ROWS[] = {1, 3, 2 * PLANNED_SMS - 1, 2 * PLANNED_SMS, (size_t)1 << 20};
        for (size_t r = 0; r < sizeof ROWS / sizeof ROWS[0]; r++) {
            enum element_type t = (enum element_type)type;
            size_t rows = ROWS[r];
#define CHOICE(cols) kernel_choose((struct matrix_shape){rows, (cols)}, t, PLANNED_SMS)
            cr_expect_eq(CHOICE(0), KERNEL_WARP);
            cr_expect_eq(CHOICE(1), KERNEL_WARP);
            cr_expect_eq(CHOICE(warp_most), KERNEL_WARP);
            cr_expect_eq(CHOICE(warp_most + 1), KERNEL_BLOCK);
            cr_expect_eq(CHOICE(block_most), KERNEL_BLOCK);
            cr_expect_eq(CHOICE(block_most + 1), rows < fill ? KERNEL_SPLIT : KERNEL_BLOCK,
                         "%zu rows of %zu", rows, block_most + 1);
            cr_expect_eq(CHOICE(BLOCK_MOST_PASSES * block_most),
                         rows < fill ? KERNEL_SPLIT : KERNEL_BLOCK);
            cr_expect_eq(CHOICE(BLOCK_MOST_PASSES * block_most + 1), KERNEL_SPLIT);
            cr_expect_eq(CHOICE((size_t)1 << 24), KERNEL_SPLIT);
#undef CHOICE
        }
    }
}

/* The same long rows on a smaller and a larger GPU: the switch moves with the SM count. */
Test(step16_host, the_long_row_switch_follows_the_sm_count)
{
    static const unsigned SMS[] = {1, 16, 132, 144};
    size_t long_row = BLOCK_MOST_ROW_BYTES / sizeof(float) * 4;
    for (size_t i = 0; i < sizeof SMS / sizeof SMS[0]; i++) {
        size_t fill = (size_t)BLOCK_LEAST_ROWS_PER_SM * SMS[i];
        cr_expect_eq(
            kernel_choose((struct matrix_shape){fill - 1, long_row}, ELEMENT_FLOAT, SMS[i]),
            KERNEL_SPLIT, "%u SMs, %zu rows", SMS[i], fill - 1);
        cr_expect_eq(kernel_choose((struct matrix_shape){fill, long_row}, ELEMENT_FLOAT, SMS[i]),
                     KERNEL_BLOCK, "%u SMs, %zu rows", SMS[i], fill);
    }
}

Test(step16_host, names_parse_both_ways)
{
    for (int k = 0; k < KERNEL_NAMES; k++)
        cr_expect_eq(kernel_parse(kernel_name((enum rows_kernel)k)), k);
    for (int t = 0; t < ELEMENT_TYPES; t++)
        cr_expect_eq(element_parse(element_name((enum element_type)t)), t);
    cr_expect_eq(kernel_parse("warps"), -1);
    cr_expect_eq(element_parse("half"), -1);
    cr_expect_eq(elements_per_vector(ELEMENT_FLOAT), 4);
    cr_expect_eq(elements_per_vector(ELEMENT_BF16), 8);
}

/* ---- plan.h's index arithmetic, against what a cut and a chunking must be ------------------- */

/* Every way a row can fall in 16-byte vectors: the pieces add up to the row, the head and tail
 * are shorter than a vector, the whole vectors start on a boundary, and the head goes no
 * further than that boundary. Thread t of a row's block adds head element t and tail element
 * t, and lane t of a warp's group elements t, t + lanes, ... in EDGE_ROUNDS rounds: every
 * kernel reaches every element of a head or tail. */
static void expect_pieces_cover_the_row(size_t past, size_t cols, size_t per_vector)
{
    struct row_pieces p = row_pieces_of(past, cols, per_vector);
    size_t edge = p.head > p.tail ? p.head : p.tail;
    unsigned lanes = lanes_per_row(most_vectors(cols, per_vector), (unsigned)per_vector);
    cr_expect_leq(EDGE_ROUNDS((unsigned)per_vector, lanes), MOST_EDGE_ROUNDS);
    cr_expect_leq(edge, (size_t)lanes * EDGE_ROUNDS((unsigned)per_vector, lanes),
                  "%zu past, %zu columns: an edge of %zu, %u lanes", past, cols, edge, lanes);
    cr_expect_leq(edge, BLOCK_MIN_THREADS);
    cr_expect_leq(edge, SPLIT_THREADS);
    size_t to_boundary = (per_vector - past) % per_vector;
    cr_expect_eq(p.head + p.vectors * per_vector + p.tail, cols,
                 "%zu past, %zu columns: head %zu, %zu vectors, tail %zu", past, cols, p.head,
                 p.vectors, p.tail);
    cr_expect_eq(p.head, cols < to_boundary ? cols : to_boundary, "%zu past, %zu columns: head %zu",
                 past, cols, p.head);
    cr_expect_lt(p.tail, per_vector, "%zu past, %zu columns: tail %zu", past, cols, p.tail);
    if (p.vectors > 0)
        cr_expect_eq((past + p.head) % per_vector, 0, "%zu past, %zu columns: vectors unaligned",
                     past, cols);
    cr_expect(p.vectors == most_vectors(cols, per_vector) ||
                  p.vectors + 1 == most_vectors(cols, per_vector),
              "%zu past, %zu columns: %zu vectors, at most %zu", past, cols, p.vectors,
              most_vectors(cols, per_vector));
}

/* The split kernel's blocks of a row of `vectors` (a row's own count, up to one below what
 * launch_plan planned for): consecutive chunks from 0, none longer than a chunk, covering the
 * row, and none beyond the planned blocks. */
static void expect_chunks_cover_the_row(size_t vectors, size_t blocks_per_row)
{
    size_t next = 0;
    for (size_t part = 0; part < blocks_per_row; part++) {
        struct chunk c = split_chunk(part, vectors);
        cr_expect_leq(c.count, SPLIT_CHUNK_VECTORS);
        if (c.count > 0) cr_expect_eq(c.first, next, "%zu vectors: part %zu", vectors, part);
        next += c.count;
    }
    cr_expect_eq(next, vectors, "%zu vectors in %zu blocks: %zu covered", vectors, blocks_per_row,
                 next);
    cr_expect_eq(split_chunk(blocks_per_row, vectors).count, 0);
}

Test(step16_host, every_offset_and_long_rows_split_into_chunks)
{
    static const size_t COLS[] = {0,
                                  1,
                                  2,
                                  3,
                                  7,
                                  8,
                                  9,
                                  15,
                                  16,
                                  17,
                                  33,
                                  1023,
                                  1025,
                                  4093,
                                  16385,
                                  65537,
                                  100003,
                                  1000003,
                                  ((size_t)1 << 19) + 1,
                                  ((size_t)1 << 22) - 1,
                                  ((size_t)1 << 24) + 3};
    for (int type = 0; type < ELEMENT_TYPES; type++) {
        size_t per_vector = elements_per_vector((enum element_type)type);
        for (size_t c = 0; c < sizeof COLS / sizeof COLS[0]; c++) {
            struct matrix_shape s = {1, COLS[c]};
            struct rows_launch l = launch_plan(KERNEL_SPLIT, s, (enum element_type)type,
                                               PLANNED_SMS);
            for (size_t past = 0; past < per_vector; past++) {
                expect_pieces_cover_the_row(past, COLS[c], per_vector);
                expect_chunks_cover_the_row(row_pieces_of(past, COLS[c], per_vector).vectors,
                                            l.blocks_per_row);
            }
        }
    }
}

/* A warp launch's lanes and vectors a lane: the fewest vectors (1, 2 or 4) whose one pass
 * covers the row, up to 4 (a longer row loops), and one of the shapes reduce.cu instantiates:
 * 1 only for the fewest lanes of the type, 4 only for 32 lanes. */
static void expect_warp_shape_is_launched(size_t vectors, unsigned lanes, unsigned count,
                                          unsigned per_vector)
{
    unsigned fewest = lanes_per_row(0, per_vector);
    cr_expect(count == 1 || count == WARP_VECTORS_PER_LANE || count == WARP_MOST_VECTORS_PER_LANE,
              "%zu vectors: %u a lane", vectors, count);
    if (vectors <= (size_t)WARP_SIZE * WARP_MOST_VECTORS_PER_LANE)
        cr_expect_geq((size_t)lanes * count, vectors, "%zu vectors: %u lanes x %u", vectors, lanes,
                      count);
    if (count > 1) cr_expect_lt((size_t)lanes * (count / 2), vectors);
    if (count == 1)
        cr_expect_eq(lanes, fewest, "%zu vectors: 1 a lane on %u lanes", vectors, lanes);
    if (count == WARP_MOST_VECTORS_PER_LANE) cr_expect_eq(lanes, WARP_SIZE);
}

/* The grids each kernel launches for a shape: warp's blocks hold every row (and no block
 * more), its groups' first pass covers a row of up to 2 KiB; block's one block per row, sized
 * to the row; split's blocks per row cover it, none to spare. */
static void expect_grid_covers_the_rows(struct matrix_shape s, enum element_type type, int k)
{
    struct rows_launch l = launch_plan((enum rows_kernel)k, s, type, PLANNED_SMS);
    size_t vectors = most_vectors(s.cols, elements_per_vector(type));
    cr_assert_neq(l.kernel, KERNEL_AUTO, "launch_plan resolves auto");
    if (k == KERNEL_AUTO) cr_expect_eq(l.kernel, kernel_choose(s, type, PLANNED_SMS));
    cr_expect_eq(l.blocks == 0, s.rows == 0, "%zu x %zu: blocks %zu", s.rows, s.cols, l.blocks);
    if (l.kernel == KERNEL_WARP) {
        size_t per_block = (size_t)WARPS_PER_BLOCK *
                           rows_per_warp(l.lanes_per_row, l.vectors_per_lane);
        cr_expect_geq(l.blocks * per_block, s.rows, "%zu x %zu: warp blocks", s.rows, s.cols);
        if (l.blocks > 0) cr_expect_lt((l.blocks - 1) * per_block, s.rows);
        expect_warp_shape_is_launched(vectors, l.lanes_per_row, l.vectors_per_lane,
                                      (unsigned)elements_per_vector(type));
    } else if (l.kernel == KERNEL_BLOCK) {
        cr_expect_eq(l.blocks, s.rows);
        if (vectors <= (size_t)BLOCK_MAX_THREADS * BLOCK_VECTORS_PER_THREAD)
            cr_expect_geq((size_t)l.threads * BLOCK_VECTORS_PER_THREAD, vectors);
    } else {
        cr_expect_eq(l.blocks, s.rows * l.blocks_per_row);
        cr_expect_geq(l.blocks_per_row * SPLIT_CHUNK_VECTORS, vectors);
        if (l.blocks_per_row > 1)
            cr_expect_lt((l.blocks_per_row - 1) * SPLIT_CHUNK_VECTORS, vectors);
    }
}

Test(step16_host, every_kernel_plans_a_grid_that_covers_every_row)
{
    static const size_t ROWS[] = {0, 1, 2, 3, 5, 7, 8, 9, 33, 65, 129, 4097};
    static const size_t COLS[] = {0,    1,    2,    3,    4,     5,     7,      8,      9,
                                  15,   16,   17,   31,   32,    33,    63,     64,     65,
                                  127,  128,  129,  255,  256,   257,   511,    512,    513,
                                  1023, 1025, 2049, 4093, 16385, 65537, 100003, 131073, 1048577};
    for (int type = 0; type < ELEMENT_TYPES; type++)
        for (size_t r = 0; r < sizeof ROWS / sizeof ROWS[0]; r++)
            for (size_t c = 0; c < sizeof COLS / sizeof COLS[0]; c++)
                for (int k = 0; k < KERNEL_NAMES; k++)
                    expect_grid_covers_the_rows((struct matrix_shape){ROWS[r], COLS[c]},
                                                (enum element_type)type, k);
}

/* ---- the verdict ---------------------------------------------------------------------------- */

static const double FLOAT_UNIT_ROUNDOFF = 0x1p-24;

/* The longest chains: a forced warp or block kernel on one row of up to 2^32 elements. Each
 * bound stays below 2^-10 of sum|x|, and for warp and block below one thread's share of its
 * row (the loss of a thread's loads shows); before partial sums, warp at 1 x 2^30 had depth
 * 8,388,617, a bound of sum|x|. */
Test(step16_host, long_single_row_chains_keep_a_bound_far_below_the_sum)
{
    static const size_t COLS[] = {(size_t)1 << 25, (size_t)1 << 30, (size_t)1 << 31, MAX_ELEMENTS};
    for (int type = 0; type < ELEMENT_TYPES; type++)
        for (size_t c = 0; c < sizeof COLS / sizeof COLS[0]; c++)
            for (int k = 0; k < KERNEL_AUTO; k++) {
                struct matrix_shape s = {1, COLS[c]};
                struct rows_launch l = launch_plan((enum rows_kernel)k, s, (enum element_type)type,
                                                   PLANNED_SMS);
                unsigned depth = launch_depth(&l, s, (enum element_type)type);
                double relative = rounding_gamma(depth, FLOAT_UNIT_ROUNDOFF);
                double share = l.kernel == KERNEL_WARP ? 1.0 / l.lanes_per_row : 1.0 / l.threads;
                cr_expect_lt(relative, 0x1p-10, "1 x %zu %s, %s: depth %u, bound %g of sum|x|",
                             s.cols, element_name((enum element_type)type), kernel_name(l.kernel),
                             depth, relative);
                if (l.kernel != KERNEL_SPLIT)
                    cr_expect_lt(relative, share, "1 x %zu %s, %s: bound %g, a thread's share %g",
                                 s.cols, element_name((enum element_type)type),
                                 kernel_name(l.kernel), relative, share);
            }
}

/* passes_per_partial: a power of two whose square times the loads covers the passes, and the
 * smallest: the chain count x group + passes / group is then near its least. */
Test(step16_host, partial_sums_group_about_the_square_root_of_the_passes)
{
    static const size_t PASSES[] = {0, 1, 7, 8, 9, 1000, (size_t)1 << 16, ((size_t)1 << 22) + 1};
    static const unsigned COUNTS[] = {1, WARP_VECTORS_PER_LANE, WARP_MOST_VECTORS_PER_LANE,
                                      BLOCK_VECTORS_PER_THREAD};
    for (size_t p = 0; p < sizeof PASSES / sizeof PASSES[0]; p++)
        for (size_t k = 0; k < sizeof COUNTS / sizeof COUNTS[0]; k++) {
            size_t group = passes_per_partial(PASSES[p], COUNTS[k]);
            cr_expect_eq(group & (group - 1), 0, "%zu passes: %zu", PASSES[p], group);
            cr_expect_geq(group * group * COUNTS[k], PASSES[p]);
            if (group > 1) cr_expect_lt(group / 2 * (group / 2) * COUNTS[k], PASSES[p]);
        }
}

/* Three rows of real-valued data whose bound is as wide as their sum|x|: at the depth the warp
 * kernel had at 1 x 2^30 (8,388,617) a sum of 0 passed as CORRECT. No row can be judged, none
 * is counted right, and the verdict says so; a NaN among them is wrong all the same. */
Test(step16_host, a_bound_as_wide_as_the_sum_is_never_correct)
{
    enum { OLD_WARP_DEPTH = 8388617, ROWS = 3 };
    struct reference references[ROWS];
    for (int r = 0; r < ROWS; r++)
        references[r] = (struct reference){10.5, 10.5, (size_t)1 << 30, false};
    float sums[ROWS] = {0.0f, 10.5f, 5.0f};
    struct rows_verdict v = rows_judge(references, ROWS, sums, OLD_WARP_DEPTH);
    char text[320];
    cr_expect_eq(v.unjudged, ROWS);
    cr_expect_eq(v.wrong, 0);
    cr_expect_not(verdict_correct(&v), "a sum of 0 passed");
    cr_expect_eq(v.first, 0);
    verdict_describe(&v, text, sizeof text);
    cr_expect(strstr(text, "3 of 3 rows cannot be judged; the first, row 0: got 0") != NULL, "%s",
              text);
    sums[2] = NAN;
    v = rows_judge(references, ROWS, sums, OLD_WARP_DEPTH);
    cr_expect_eq(v.wrong, 1);
    cr_expect_eq(v.unjudged, 2);
    cr_expect_eq(v.first, 2, "the wrong row named before the unjudged");
    v = rows_judge(references, ROWS, sums, UINT_MAX); /* an infinite bound */
    cr_expect_eq(v.unjudged, 2);
}

/* Sums poisoned as the program poisons them (every byte 0xFF) and never written: every row
 * wrong, exact or bounded, and the first named with its value. */
Test(step16_host, a_row_never_written_is_wrong_and_named)
{
    enum { ROWS = 4, DEPTH = 20 };
    struct reference references[ROWS] = {
        {5, 5, 5, true}, {0, 0, 0, true}, {0.25, 3, 9, false}, {1e9, 1e9, 1 << 20, true}};
    float sums[ROWS];
    char text[320];
    memset(sums, OUTPUT_POISON_BYTE, sizeof sums);
    struct rows_verdict v = rows_judge(references, ROWS, sums, DEPTH);
    cr_expect_eq(v.wrong, ROWS);
    verdict_describe(&v, text, sizeof text);
    cr_expect(strstr(text, "4 of 4 rows WRONG; the first, row 0: got ") != NULL &&
                  strstr(text, "nan") != NULL && strstr(text, "expected 5") != NULL,
              "%s", text);
    sums[0] = 5, sums[1] = 0, sums[2] = 0.25f, sums[3] = 1e9f;
    v = rows_judge(references, ROWS, sums, DEPTH);
    cr_expect(verdict_correct(&v), "right sums judged right: %zu wrong, %zu unjudged", v.wrong,
              v.unjudged);
}

/* CUB's sums judged as the step's: a row CUB got wrong is named; at the bench's largest
 * shapes CUB's bound is below sum|x| (judged, not refused). */
Test(step16_host, cubs_sums_are_judged_by_cubs_own_depth)
{
    enum { ROWS = 2 };
    struct reference references[ROWS] = {{4096, 4096, 8192, true}, {-3.5, 8192, 8192, false}};
    float sums[ROWS] = {4096.0f, -3.75f};
    struct rows_verdict v = rows_judge(references, ROWS, sums, cub_rows_depth(8192));
    char text[320];
    cr_expect_eq(v.wrong, 1, "CUB's row 1 off by 0.25 with a bound of %g", v.bound);
    verdict_describe(&v, text, sizeof text);
    cr_expect(strstr(text, "row 1: got -3.75, expected -3.5") != NULL, "%s", text);
    cr_expect_lt(rounding_gamma(cub_rows_depth((size_t)1 << 30), FLOAT_UNIT_ROUNDOFF), 1.0);
    cr_expect_lt(rounding_gamma(cub_flat_depth(MAX_ELEMENTS, PLANNED_SMS), FLOAT_UNIT_ROUNDOFF),
                 0x1p-6);
    cr_expect_gt(cub_rows_depth(8192), 8192 / CUB_LEAST_THREADS);
    cr_expect_gt(cub_flat_depth((size_t)1 << 25, 1), ((size_t)1 << 25) / CUB_LEAST_THREADS);
}

/* ---- device memory ---------------------------------------------------------------------------- */

#define GIB ((size_t)1 << 30)

/* 2^31 - 1 rows of 2 floats: a 16 GiB matrix, and 8 GiB of row sums each for the step and for
 * CUB. On 30 GiB free the matrix alone would fit; beside the sums it does not, and the plan
 * says so before anything is allocated. */
Test(step16_host, the_memory_plan_counts_the_row_sums_and_cubs_storage)
{
    struct matrix_shape s = {MAX_ROWS, 2};
    struct rows_launch l = launch_plan(KERNEL_AUTO, s, ELEMENT_FLOAT, PLANNED_SMS);
    size_t copy = s.rows * s.cols * sizeof(float), free_bytes = 30 * GIB, cub_temp = 1 << 20;
    struct memory_fixed fixed = rows_fixed_memory(s, &l, true, cub_temp);
    cr_expect_geq(fixed.bytes, 2 * (s.rows + 1) * sizeof(float) + cub_temp);
    cr_expect_str_eq(fixed.names, "the row sums, CUB's row sums, CUB's temporary storage");
    cr_expect_eq(memory_plan_make(0, copy, free_bytes, 1).copies, 1);
    cr_expect_eq(memory_plan_make(fixed.bytes, copy, free_bytes, 1).copies, 0);
    fixed = rows_fixed_memory(s, &l, false, 0);
    cr_expect_str_eq(fixed.names, "the row sums");
    cr_expect_eq(memory_plan_make(fixed.bytes, copy, free_bytes, 1).copies, 1);
}

/* split's words (one per block) and tickets (one per row) are counted where it runs, and
 * allocated in the same sizes. */
Test(step16_host, the_memory_plan_counts_splits_words_and_tickets)
{
    struct matrix_shape s = {3, MAX_ELEMENTS / 4};
    struct rows_launch split = launch_plan(KERNEL_SPLIT, s, ELEMENT_BF16, PLANNED_SMS),
                       block = launch_plan(KERNEL_BLOCK, s, ELEMENT_BF16, PLANNED_SMS);
    struct rows_buffer_bytes b = rows_buffer_bytes(s, &split);
    cr_expect_eq(b.tagged_sums, (split.blocks + 1) * sizeof(unsigned long long));
    cr_expect_eq(b.tickets, (s.rows + 1) * sizeof(unsigned));
    struct memory_fixed fixed = rows_fixed_memory(s, &split, false, 0);
    cr_expect_str_eq(fixed.names, "the row sums, split's block sums, split's tickets");
    cr_expect_eq(fixed.bytes, memory_rounded(b.sums) + memory_rounded(b.tagged_sums) +
                                  memory_rounded(b.tickets));
    b = rows_buffer_bytes(s, &block);
    cr_expect_eq(b.tagged_sums + b.tickets, 0, "block touches no words or tickets");
}

/* ---- the launch shapes -------------------------------------------------------------------- */

Test(step16_host, grids_fit_a_launch_at_the_extreme_shapes)
{
    static const struct matrix_shape SHAPES[] = {{MAX_ROWS, 2},
                                                 {1, MAX_ELEMENTS},
                                                 {(size_t)1 << 20, 1},
                                                 {1, (size_t)1 << 30},
                                                 {65537, 65537}};
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
        for (int type = 0; type < ELEMENT_TYPES; type++)
            for (int k = 0; k < KERNEL_NAMES; k++) {
                struct rows_launch l = launch_plan((enum rows_kernel)k, SHAPES[s],
                                                   (enum element_type)type, PLANNED_SMS);
                cr_expect_leq(l.blocks, MAX_ROWS, "%zu x %zu, %s: %zu blocks", SHAPES[s].rows,
                              SHAPES[s].cols, kernel_name(l.kernel), l.blocks);
                cr_expect_geq(l.blocks, 1);
            }
}

/* A split row has one block per 64 KiB chunk: one row of 2^30 floats, 2^30 x 4 / 2^16 blocks. */
Test(step16_host, split_rows_have_a_block_per_chunk)
{
    struct matrix_shape one_long = {1, (size_t)1 << 30};
    struct rows_launch l = launch_plan(KERNEL_AUTO, one_long, ELEMENT_FLOAT, PLANNED_SMS);
    size_t chunk_bytes = (size_t)SPLIT_CHUNK_VECTORS * VECTOR_BYTES;
    cr_expect_eq(l.kernel, KERNEL_SPLIT);
    cr_expect_eq(l.blocks_per_row, one_long.cols * sizeof(float) / chunk_bytes);
    l = launch_plan(KERNEL_AUTO, one_long, ELEMENT_BF16, PLANNED_SMS);
    cr_expect_eq(l.blocks_per_row, one_long.cols * 2 / chunk_bytes);
    cr_expect(launch_depth(&l, one_long, ELEMENT_BF16) <
                  launch_depth(&(struct rows_launch){KERNEL_BLOCK, 1, 1, BLOCK_MAX_THREADS, 0, 0},
                               one_long, ELEMENT_BF16),
              "split's chains are shorter than one block's walk over the row");
}

/* ---- the program without a GPU ------------------------------------------------------------ */

static struct finished run(enum gpus gpus, const char *const *args)
{
    return gpus == GPUS_VISIBLE ? program_run_taking_turns(PROGRAM, args)
                                : program_run(PROGRAM, gpus, args);
}
#define RUN(gpus, ...) run((gpus), (const char *const[]){__VA_ARGS__, NULL})

Test(step16, bad_shapes_kernels_and_types_exit_2_naming_the_value)
{
    static const char *const BAD[][3] = {{"-n", "3y4", "3y4"},
                                         {"--kernel", "warps", "warps"},
                                         {"--type", "half", "half"},
                                         {"--rows", "many", "many"},
                                         {"--cols", "-1", "-1"}};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        struct finished f = RUN(GPUS_HIDDEN, BAD[i][0], BAD[i][1]);
        cr_expect_eq(f.exit_code, EXIT_USAGE, "%s %s: exit %d", BAD[i][0], BAD[i][1], f.exit_code);
        cr_expect(strstr(f.err, BAD[i][2]) != NULL, "%s %s: the message names it: %s", BAD[i][0],
                  BAD[i][1], f.err);
        finished_free(&f);
    }
    struct finished f = RUN(GPUS_HIDDEN, "-n", "2^31x4");
    cr_expect_eq(f.exit_code, EXIT_USAGE, "2^31 rows: exit %d", f.exit_code);
    finished_free(&f);
}

Test(step16, help_lists_the_shape_kernel_and_type)
{
    struct finished f = RUN(GPUS_HIDDEN, "--help");
    cr_expect_eq(f.exit_code, EXIT_CORRECT);
    static const char *const WANTED[] = {"--rows R", "--cols C",           "--kernel K",
                                         "--type T", "warp, block, split", "bf16"};
    for (size_t i = 0; i < sizeof WANTED / sizeof WANTED[0]; i++)
        cr_expect(strstr(f.out, WANTED[i]) != NULL, "--help names %s", WANTED[i]);
    finished_free(&f);
}

Test(step16, no_gpu_exits_3)
{
    struct finished f = RUN(GPUS_HIDDEN, "-n", "5x7", "--quiet");
    cr_expect_eq(f.exit_code, EXIT_ENVIRONMENT, "exit %d: %s", f.exit_code, f.err);
    finished_free(&f);
}

/* ---- on a GPU ------------------------------------------------------------------------------ */

Test(step16_gpu, check_passes_for_every_kernel_and_type, .timeout = 1800)
{
    require_gpu("step16");
    struct finished f = RUN(GPUS_VISIBLE, "--check");
    cr_expect_eq(f.exit_code, EXIT_CORRECT, "exit %d", f.exit_code);
    cr_expect(strstr(f.out, "check: all ") != NULL, "%s", f.out);
    cr_expect(strstr(f.out, "FAILED") == NULL, "%s", f.out);
    finished_free(&f);
}

/* Every kernel forced on shapes that are not its own, the launch line naming it. */
Test(step16_gpu, every_kernel_is_right_on_every_shape_class)
{
    static const char *const SHAPES[] = {"1048576x1", "65537x33", "257x4093",
                                         "3x1000003", "0x5",      "5x0"};
    static const char *const KERNELS[] = {"warp", "block", "split", "auto"};
    static const char *const TYPES[] = {"float", "bf16"};
    require_gpu("step16");
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
        for (size_t k = 0; k < sizeof KERNELS / sizeof KERNELS[0]; k++)
            for (size_t t = 0; t < sizeof TYPES / sizeof TYPES[0]; t++) {
                struct finished f = RUN(GPUS_VISIBLE, "-n", SHAPES[s], "--kernel", KERNELS[k],
                                        "--type", TYPES[t], "--iters", "2", "--warmup", "1",
                                        "--no-cub", "--pattern", "ones");
                char launch[64];
                snprintf(launch, sizeof launch, "launch     %s:", KERNELS[k]);
                cr_expect_eq(f.exit_code, EXIT_CORRECT, "%s %s %s: exit %d\n%s", SHAPES[s],
                             KERNELS[k], TYPES[t], f.exit_code, f.out);
                if (k < 3)
                    cr_expect(strstr(f.out, launch) != NULL, "the launch line names %s:\n%s",
                              KERNELS[k], f.out);
                finished_free(&f);
            }
}

/* The chooser's pick, as the program reports it. Each case picks the same kernel on any GPU
 * of 9 to 2048 SMs: 16 long rows are fewer than two per SM, 4097 are more. */
Test(step16_gpu, auto_launches_the_kernel_the_chooser_picks)
{
    static const struct {
        const char *shape, *type, *kernel;
    } CASES[] = {{"1048576x32", "float", "warp"}, {"4096x513", "float", "block"},
                 {"4096x512", "bf16", "warp"},    {"64x16384", "float", "block"},
                 {"16x16385", "float", "split"},  {"1x33554432", "bf16", "split"},
                 {"4097x16385", "float", "block"}};
    require_gpu("step16");
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        struct matrix_shape s;
        cr_assert(shape_parse(CASES[i].shape, &s));
        cr_assert_eq(kernel_choose(s, (enum element_type)element_parse(CASES[i].type), PLANNED_SMS),
                     kernel_parse(CASES[i].kernel));
        struct finished f = RUN(GPUS_VISIBLE, "-n", CASES[i].shape, "--type", CASES[i].type,
                                "--iters", "2", "--no-cub");
        char launch[64];
        snprintf(launch, sizeof launch, "launch     %s:", CASES[i].kernel);
        cr_expect_eq(f.exit_code, EXIT_CORRECT, "%s: exit %d", CASES[i].shape, f.exit_code);
        cr_expect(strstr(f.out, launch) != NULL, "%s %s launches %s:\n%s", CASES[i].shape,
                  CASES[i].type, CASES[i].kernel, f.out);
        finished_free(&f);
    }
}

/* Shapes on either side of the warp kernel without heads and tails: it runs where every row is
 * whole vectors (the copies start on a boundary) and the type is bf16 or a lane loads one vector
 * of each row (plan.h's WARP_DROPS_EDGES); a row of 33 bf16 or 6 floats has edges, and float
 * rows of two vectors a lane keep the kernel with them. */
static const struct {
    const char *shape, *type;
    bool without_edges;
} EDGE_CASES[] = {{"4096x32", "bf16", true},  {"4096x64", "bf16", true},
                  {"4096x8", "float", true},  {"4096x32", "float", false},
                  {"4096x33", "bf16", false}, {"4096x6", "float", false}};
static const char WITHOUT_EDGES[] = "no head or tail";

Test(step16_host, rows_without_edges_are_whole_vectors_of_bf16_or_of_one_vector_a_lane)
{
    for (size_t i = 0; i < sizeof EDGE_CASES / sizeof EDGE_CASES[0]; i++) {
        struct matrix_shape s;
        enum element_type type = (enum element_type)element_parse(EDGE_CASES[i].type);
        cr_assert(shape_parse(EDGE_CASES[i].shape, &s));
        struct rows_launch l = launch_plan(KERNEL_AUTO, s, type, PLANNED_SMS);
        cr_assert_eq(l.kernel, KERNEL_WARP);
        bool whole = s.cols % elements_per_vector(type) == 0;
        cr_expect_eq(whole && WARP_DROPS_EDGES(element_bytes(type), l.vectors_per_lane),
                     EDGE_CASES[i].without_edges, "%s %s: %u vectors a lane", EDGE_CASES[i].shape,
                     EDGE_CASES[i].type, l.vectors_per_lane);
    }
}

/* The launch line says which of the two warp kernels ran. */
Test(step16_gpu, the_launch_line_says_when_rows_have_no_head_or_tail)
{
    require_gpu("step16");
    for (size_t i = 0; i < sizeof EDGE_CASES / sizeof EDGE_CASES[0]; i++) {
        struct finished f = RUN(GPUS_VISIBLE, "-n", EDGE_CASES[i].shape, "--type",
                                EDGE_CASES[i].type, "--iters", "2", "--no-cub");
        const char *launch = strstr(f.out, "launch     warp:");
        cr_expect_eq(f.exit_code, EXIT_CORRECT, "%s: exit %d", EDGE_CASES[i].shape, f.exit_code);
        cr_expect(launch != NULL, "%s %s launches warp:\n%s", EDGE_CASES[i].shape,
                  EDGE_CASES[i].type, f.out);
        if (launch != NULL) {
            const char *end = strchr(launch, '\n'), *said = strstr(launch, WITHOUT_EDGES);
            bool says = said != NULL && (end == NULL || said < end);
            cr_expect_eq(says, EDGE_CASES[i].without_edges, "%s %s:\n%s", EDGE_CASES[i].shape,
                         EDGE_CASES[i].type, f.out);
        }
        finished_free(&f);
    }
}

/* --csv: the header, then one row whose columns say what ran and that no row was wrong. */
Test(step16_gpu, csv_row_names_the_kernel_shape_and_both_cub_timings)
{
    require_gpu("step16");
    struct finished f = RUN(GPUS_VISIBLE, "-n", "1000x1025", "--csv", "--iters", "3");
    const char *cursor = f.out;
    char header[LINE], row[LINE];
    cr_assert_eq(f.exit_code, EXIT_CORRECT, "exit %d: %s", f.exit_code, f.err);
    cr_assert(next_line(&cursor, header, sizeof header));
    cr_assert(next_line(&cursor, row, sizeof row));
    cr_expect(starts_with(header, "step,kernel,type,rows,cols,"), "%s", header);
    cr_expect(starts_with(row, "step16,block,float,1000,1025,uniform,read,0,"), "%s", row);
    int commas = 0;
    for (const char *c = row; *c; c++) commas += *c == ',';
    cr_expect_geq(commas, FIELDS - 1, "%d columns: %s", commas + 1, row);
    char *fields[FIELDS] = {0}, *save = NULL;
    int count = 0;
    for (char *field = strtok_r(row, ",", &save); field && count < FIELDS;
         field = strtok_r(NULL, ",", &save))
        fields[count++] = field;
    cr_assert_geq(count, 16);
    cr_expect_gt(atof(fields[12]), 0, "CUB's segmented time measured: %s", fields[12]);
    cr_expect_gt(atof(fields[14]), 0, "CUB's flat time measured: %s", fields[14]);
    finished_free(&f);
}

/* The default run times CUB beside the step and checks CUB's sums: every row of the segmented
 * sum, and the flat sum's total, named as checked on their lines. */
Test(step16_gpu, cubs_sums_are_checked_where_cub_is_timed)
{
    require_gpu("step16");
    struct finished f = RUN(GPUS_VISIBLE, "-n", "1000x1025", "--iters", "2", "--pattern", "real");
    cr_expect_eq(f.exit_code, EXIT_CORRECT, "exit %d: %s", f.exit_code, f.err);
    cr_expect(strstr(f.out, "cub::DeviceSegmentedReduce on the same copies, every row checked") !=
                  NULL,
              "%s", f.out);
    cr_expect(strstr(f.out, "its total checked") != NULL, "%s", f.out);
    cr_expect(strstr(f.err, "cub::") == NULL, "no sum of CUB's named wrong: %s", f.err);
    finished_free(&f);
}

/* warp and block forced on one row of 2^27 real values, each thread's chain 2^20 or 2^17 loads
 * long: judged within the bound of the depth launch_depth counts (the report prints it), and
 * that bound far below sum|x|. */
Test(step16_gpu, a_forced_kernel_on_one_long_row_is_judged_within_a_tight_bound, .timeout = 900)
{
    static const char *const KERNELS[] = {"warp", "block"};
    struct matrix_shape s = {1, (size_t)1 << 27};
    require_gpu("step16");
    for (size_t k = 0; k < sizeof KERNELS / sizeof KERNELS[0]; k++) {
        struct finished f = RUN(GPUS_VISIBLE, "-n", "1x2^27", "--kernel", KERNELS[k], "--pattern",
                                "real", "--iters", "1", "--warmup", "0", "--no-cub");
        struct rows_launch l = launch_plan((enum rows_kernel)kernel_parse(KERNELS[k]), s,
                                           ELEMENT_FLOAT, PLANNED_SMS);
        char depth[64];
        snprintf(depth, sizeof depth, "within their bounds (depth %u,",
                 launch_depth(&l, s, ELEMENT_FLOAT));
        cr_expect_eq(f.exit_code, EXIT_CORRECT, "%s: exit %d\n%s", KERNELS[k], f.exit_code, f.out);
        cr_expect(strstr(f.out, depth) != NULL, "%s: %s\n%s", KERNELS[k], depth, f.out);
        cr_expect_lt(rounding_gamma(launch_depth(&l, s, ELEMENT_FLOAT), 0x1p-24), 0x1p-12);
        finished_free(&f);
    }
}

/* ---- the figure (docs/figures/make_figures.py) against plan.h ------------------------------ */

/* The value of the generator's count `name` (the rest of its line), into buffer. */
static const char *figure_count(const char *counts, const char *name, char *buffer, size_t size)
{
    const char *cursor = counts;
    char line[LINE];
    size_t length = strlen(name);
    while (next_line(&cursor, line, sizeof line))
        if (strncmp(line, name, length) == 0 && line[length] == ' ') {
            snprintf(buffer, size, "%s", line + length + 1);
            return buffer;
        }
    cr_assert_fail("make_figures.py --counts prints no %s", name);
    return NULL;
}

static size_t figure_number(const char *counts, const char *name)
{
    char buffer[64];
    return (size_t)strtoull(figure_count(counts, name, buffer, sizeof buffer), NULL, 10);
}

Test(step16_host, the_figure_shows_what_plan_h_computes)
{
    struct finished f = program_run(
        "/usr/bin/env", GPUS_HIDDEN,
        (const char *const[]){"python3", "docs/figures/make_figures.py", "--counts", NULL});
    cr_assert_eq(f.exit_code, 0, "make_figures.py --counts: %s", f.err);
    size_t short_cols = figure_number(f.out, "step16.short_cols");
    unsigned lanes = lanes_per_row(most_vectors(short_cols, elements_per_vector(ELEMENT_FLOAT)),
                                   elements_per_vector(ELEMENT_FLOAT));
    cr_expect_eq(figure_number(f.out, "step16.short_lanes_per_row"), lanes);
    unsigned count = vectors_per_lane(most_vectors(short_cols, elements_per_vector(ELEMENT_FLOAT)),
                                      lanes);
    cr_expect_eq(figure_number(f.out, "step16.short_rows_per_warp"), rows_per_warp(lanes, count));
    size_t odd = figure_number(f.out, "step16.odd_cols");
    for (size_t row = 0; row < 4; row++) {
        char name[64], shown[64], computed[64];
        struct row_pieces p = row_pieces_of(row * odd % 4, odd, 4);
        snprintf(name, sizeof name, "step16.odd_pieces.row%zu", row);
        snprintf(computed, sizeof computed, "%zu %zu %zu", p.head, p.vectors, p.tail);
        cr_expect_str_eq(figure_count(f.out, name, shown, sizeof shown), computed, "%s", name);
    }
    struct matrix_shape split = {1, figure_number(f.out, "step16.split_cols")};
    struct rows_launch l = launch_plan(KERNEL_AUTO, split, ELEMENT_FLOAT, PLANNED_SMS);
    cr_expect_eq(l.kernel, KERNEL_SPLIT);
    cr_expect_eq(figure_number(f.out, "step16.split_blocks_per_row"), l.blocks_per_row);
    cr_expect_eq(figure_number(f.out, "step16.split_last_chunk"),
                 split_chunk(l.blocks_per_row - 1, most_vectors(split.cols, 4)).count);
    l = launch_plan(KERNEL_SPLIT, (struct matrix_shape){1, (size_t)1 << 30}, ELEMENT_FLOAT,
                    PLANNED_SMS);
    cr_expect_eq(figure_number(f.out, "step16.blocks_per_row.one_row_of_2^30_floats"),
                 l.blocks_per_row);
    finished_free(&f);
}
