/* step16_rows. On the host (no GPU needed): the shape parser, the chooser's thresholds, the
 * launch shapes, and the kernels' index arithmetic (plan.h) walked thread by thread on every
 * shape class, so that every element of every row is read exactly once and every row's sum
 * written once; the program's usage errors (exit 2, naming the value) and a machine that
 * shows it no GPU (exit 3). On a GPU: --check, every kernel forced on odd shapes, the chooser's
 * pick named in the launch line, bf16, the empty shapes and the CSV. Without a GPU those skip,
 * never pass. The tests run from the repository root after `make` (`make test` does both). */
#include <criterion/criterion.h>
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
        size_t warp_most = WARP_SIZE * WARP_VECTORS_PER_LANE * VECTOR_BYTES / size;
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

/* ---- the index arithmetic, walked thread by thread ----------------------------------------- */

/* The matrix as the walk sees it: how often each element was read, and each row's sum
 * written; the base `offset` elements past a 16-byte boundary. */
struct walk {
    struct matrix_shape shape;
    size_t per_vector, offset;
    unsigned char *reads, *writes;
};

static struct row_pieces pieces_of(const struct walk *w, size_t row)
{
    if (row >= w->shape.rows) return (struct row_pieces){0, 0, 0};
    size_t past = (w->offset + row * w->shape.cols) % w->per_vector;
    struct row_pieces p = row_pieces_of(past, w->shape.cols, w->per_vector);
    bool whole = p.head + p.vectors * w->per_vector + p.tail == w->shape.cols;
    bool short_edges = p.head < w->per_vector && p.tail < w->per_vector;
    bool aligned = (w->offset + row * w->shape.cols + p.head) % w->per_vector == 0;
    if (!whole || !short_edges || (p.vectors > 0 && !aligned))
        cr_assert_fail("row %zu of %zu x %zu at offset %zu: head %zu, %zu vectors, tail %zu", row,
                       w->shape.rows, w->shape.cols, w->offset, p.head, p.vectors, p.tail);
    return p;
}

static void read_element(struct walk *w, size_t row, size_t col)
{
    if (row >= w->shape.rows || col >= w->shape.cols)
        cr_assert_fail("row %zu, column %zu: outside the %zu x %zu matrix", row, col, w->shape.rows,
                       w->shape.cols);
    w->reads[row * w->shape.cols + col]++;
}

static void read_vector(struct walk *w, size_t row, const struct row_pieces *p, size_t i)
{
    if (i >= p->vectors) cr_assert_fail("row %zu: vector %zu of %zu", row, i, p->vectors);
    for (size_t e = 0; e < w->per_vector; e++)
        read_element(w, row, p->head + i * w->per_vector + e);
}

/* Thread t of those sharing a row: its head and tail element (edges_sum). */
static void read_edges(struct walk *w, size_t row, const struct row_pieces *p, size_t t)
{
    if (t < p->head) read_element(w, row, t);
    if (t < p->tail) read_element(w, row, p->head + p->vectors * w->per_vector + t);
}

/* strided_sum<COUNT>: i, i + stride, ... below the row's vectors, COUNT at a time. */
static void read_strided(struct walk *w, size_t row, const struct row_pieces *p, size_t first,
                         size_t stride, size_t count)
{
    for (size_t i = first; i < p->vectors; i += count * stride)
        for (size_t k = 0; k < count; k++)
            if (i + k * stride < p->vectors) read_vector(w, row, p, i + k * stride);
}

static void walk_warp(struct walk *w, const struct rows_launch *l)
{
    unsigned lanes = l->lanes_per_row, groups = WARP_SIZE / lanes;
    for (size_t b = 0; b < l->blocks; b++)
        for (unsigned thread = 0; thread < l->threads; thread++) {
            unsigned lane = thread % WARP_SIZE, warp = thread / WARP_SIZE;
            unsigned group = lane / lanes, t = lane % lanes;
            size_t first_row = (b * WARPS_PER_BLOCK + warp) * rows_per_warp(lanes) + group;
            for (unsigned pass = 0; pass < WARP_PASSES; pass++) {
                size_t row = first_row + pass * groups;
                struct row_pieces p = pieces_of(w, row);
                for (unsigned k = 0; k < WARP_VECTORS_PER_LANE; k++)
                    if (t + k * lanes < p.vectors) read_vector(w, row, &p, t + k * lanes);
                read_edges(w, row, &p, t);
                if (most_vectors(w->shape.cols, w->per_vector) > lanes * WARP_VECTORS_PER_LANE)
                    read_strided(w, row, &p, t + lanes * WARP_VECTORS_PER_LANE, lanes,
                                 WARP_VECTORS_PER_LANE);
                if (t == 0 && row < w->shape.rows) w->writes[row]++;
            }
        }
}

static void walk_block(struct walk *w, const struct rows_launch *l)
{
    size_t pass_vectors = (size_t)l->threads * BLOCK_VECTORS_PER_THREAD;
    cr_assert_eq(l->blocks, w->shape.rows);
    for (size_t row = 0; row < l->blocks; row++) {
        struct row_pieces p = pieces_of(w, row);
        for (unsigned t = 0; t < l->threads; t++) {
            for (unsigned k = 0; k < BLOCK_VECTORS_PER_THREAD; k++)
                if (t + k * l->threads < p.vectors) read_vector(w, row, &p, t + k * l->threads);
            read_edges(w, row, &p, t);
            if (p.vectors > pass_vectors)
                read_strided(w, row, &p, pass_vectors + t, l->threads, BLOCK_VECTORS_PER_THREAD);
        }
        w->writes[row]++;
    }
}

static void walk_split(struct walk *w, const struct rows_launch *l)
{
    cr_assert_eq(l->blocks, w->shape.rows * l->blocks_per_row);
    for (size_t b = 0; b < l->blocks; b++) {
        size_t row = b / l->blocks_per_row, part = b % l->blocks_per_row;
        struct row_pieces p = pieces_of(w, row);
        struct chunk c = split_chunk(part, p.vectors);
        for (unsigned t = 0; t < SPLIT_THREADS; t++) {
            for (unsigned k = 0; k < SPLIT_VECTORS_PER_THREAD; k++)
                if (t + k * SPLIT_THREADS < c.count)
                    read_vector(w, row, &p, c.first + t + k * SPLIT_THREADS);
            if (part == 0) read_edges(w, row, &p, t);
        }
        if (part == l->blocks_per_row - 1) w->writes[row]++; /* the row's last ticket */
    }
}

/* Every kernel on one shape at one offset: each element read once, each row written once. */
static void walk_every_kernel(struct matrix_shape s, enum element_type type, size_t offset)
{
    size_t n = s.rows * s.cols;
    for (int k = 0; k < KERNEL_NAMES; k++) {
        struct rows_launch l = launch_plan((enum rows_kernel)k, s, type, PLANNED_SMS);
        struct walk w = {s, elements_per_vector(type), offset, calloc(n + 1, 1),
                         calloc(s.rows + 1, 1)};
        cr_assert(w.reads != NULL && w.writes != NULL);
        cr_assert_neq(l.kernel, KERNEL_AUTO, "launch_plan resolves auto");
        if (k == KERNEL_AUTO) cr_assert_eq(l.kernel, kernel_choose(s, type, PLANNED_SMS));
        cr_assert_eq(l.blocks == 0, s.rows == 0, "%zu x %zu: blocks %zu", s.rows, s.cols, l.blocks);
        if (l.kernel == KERNEL_WARP) walk_warp(&w, &l);
        if (l.kernel == KERNEL_BLOCK) walk_block(&w, &l);
        if (l.kernel == KERNEL_SPLIT) walk_split(&w, &l);
        for (size_t i = 0; i < n; i++)
            if (w.reads[i] != 1)
                cr_assert_fail(
                    "%zu x %zu %s offset %zu, kernel %s: element %zu (row %zu) read %d times",
                    s.rows, s.cols, element_name(type), offset, kernel_name(l.kernel), i,
                    i / s.cols, w.reads[i]);
        for (size_t r = 0; r < s.rows; r++)
            if (w.writes[r] != 1)
                cr_assert_fail("%zu x %zu kernel %s: row %zu written %d times", s.rows, s.cols,
                               kernel_name(l.kernel), r, w.writes[r]);
        free(w.reads);
        free(w.writes);
    }
}

/* Rows and columns around every threshold: 0, 1, primes, 2^k - 1, 2^k, 2^k + 1. */
Test(step16_host, every_element_of_every_row_is_read_once_by_every_kernel)
{
    static const size_t ROWS[] = {0, 1, 2, 3, 5, 7, 8, 9, 33, 65, 129};
    static const size_t COLS[] = {0,   1,   2,   3,   4,   5,    7,    8,    9,    15,   16,
                                  17,  31,  32,  33,  63,  64,   65,   127,  128,  129,  255,
                                  256, 257, 511, 512, 513, 1023, 1025, 2049, 4093, 16385};
    for (int type = 0; type < ELEMENT_TYPES; type++)
        for (size_t r = 0; r < sizeof ROWS / sizeof ROWS[0]; r++)
            for (size_t c = 0; c < sizeof COLS / sizeof COLS[0]; c++)
                walk_every_kernel((struct matrix_shape){ROWS[r], COLS[c]}, (enum element_type)type,
                                  (r + c) % elements_per_vector((enum element_type)type));
}

Test(step16_host, every_offset_and_long_rows_split_into_chunks)
{
    static const struct matrix_shape SHAPES[] = {
        {3, ((size_t)1 << 18) + 3}, {1, ((size_t)1 << 19) + 1}, {2, 65537}, {1000, 33}};
    for (int type = 0; type < ELEMENT_TYPES; type++)
        for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
            for (size_t o = 0; o < elements_per_vector((enum element_type)type); o++)
                walk_every_kernel(SHAPES[s], (enum element_type)type, o);
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
                  launch_depth(&(struct rows_launch){KERNEL_BLOCK, 1, 1, BLOCK_MAX_THREADS, 0},
                               one_long, ELEMENT_BF16),
              "split's chains are shorter than one block's walk over the row");
}

/* ---- the program without a GPU ------------------------------------------------------------ */

static struct finished run(enum gpus gpus, const char *const *args)
{
    return program_run(PROGRAM, gpus, args);
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
    } CASES[] = {{"1048576x32", "float", "warp"}, {"4096x257", "float", "block"},
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
    unsigned lanes = lanes_per_row(most_vectors(short_cols, elements_per_vector(ELEMENT_FLOAT)));
    cr_expect_eq(figure_number(f.out, "step16.short_lanes_per_row"), lanes);
    cr_expect_eq(figure_number(f.out, "step16.short_rows_per_warp"), rows_per_warp(lanes));
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
