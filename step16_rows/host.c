/* step16_rows: the program.
 * It reads top to bottom like the other steps: the options, the data, device memory, the
 * launches, the check, the time, the report. What is new is the shape: a rows x cols matrix
 * and a sum per row. plan.c chooses the kernel and its grid, matrix.c holds the data and
 * judges every row, report.c prints the report, checks.c runs --check's shapes, the kernels
 * are in reduce.cu and CUB's segmented sum in segmented.cu. A call that fails has said why:
 * the program frees what it holds and exits 3. */
#include <string.h>

#include "checks.h"
#include "matrix.h"
#include "reduce.h"
#include "report.h"
#include "toolbox.h"

enum { ROWS_OPTION, COLS_OPTION, KERNEL_OPTION, TYPE_OPTION }; /* the order of STEP.extras */
enum { MAX_ARGS = 64 };
/* The default shape: 2^25 elements, the documents' N, as 4096 rows of 32 KiB. */
static const struct matrix_shape DEFAULT_SHAPE = {4096, 8192};

/* No --threads: each kernel sizes its own blocks (plan.h). */
static const struct step_info STEP = {
    .name = "step16",
    .title = "Every row of a matrix: a warp, a block or several blocks per row",
    .extras =
        (const struct extra_option[]){
            {"rows", "R", "rows of the matrix (also -n RxC; -n N is 1 x N)   [4096]"},
            {"cols", "C", "columns, the elements of each row   [8192]"},
            {"kernel", "K",
             "warp, block, split, or auto: the chooser picks by the bytes of a row   [auto]"},
            {"type", "T", "the elements: float, or bf16 added in float   [float]"},
            {NULL, NULL, NULL}},
    .n_about = "the shape RxC, R rows of C elements (2^21x32, 65537x1025; each part a\n"
               "                 count as --rows takes it), or N alone: one row of N   [4096x8192]",
    .no_cub_about = "do not time cub::DeviceSegmentedReduce, nor cub::DeviceReduce::Sum of\n"
                    "                 the same elements, beside the step",
};

/* What this run does besides the shared options. */
struct choice {
    struct matrix_shape shape;
    enum rows_kernel kernel;
    enum element_type type;
};

static int usage_error(const char *message, const char *value)
{
    fprintf(stderr, "%s: ", STEP.name);
    fprintf(stderr, message, value);
    fprintf(stderr, "\n(%s/run --help lists the options)\n", STEP.name);
    return EXIT_USAGE;
}

/* -n RxC (or -n N, one row) is this step's own: it is taken out of the arguments before the
 * shared parser sees them, which reads -n as one count. */
static int take_shape_argument(int argc, char **argv, char **rest, int *rest_count,
                               struct choice *c)
{
    *rest_count = 0;
    for (int i = 0; i < argc; i++) {
        if (*rest_count == MAX_ARGS - 1) return usage_error("too many arguments%s", "");
        if (i > 0 && strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            if (!shape_parse(argv[++i], &c->shape))
                return usage_error("-n takes RxC (2^20x1, 1000x1000003) or a count N (1 x N), "
                                   "not '%s'",
                                   argv[i]);
            continue;
        }
        rest[(*rest_count)++] = argv[i];
    }
    rest[*rest_count] = NULL;
    return OPTIONS_RUN;
}

/* --rows, --cols, --kernel and --type, checked; and a one-hot pattern against the shape. */
static int choose(const struct options *o, struct choice *c)
{
    const char *rows = o->extra[ROWS_OPTION], *cols = o->extra[COLS_OPTION];
    const char *kernel = o->extra[KERNEL_OPTION], *type = o->extra[TYPE_OPTION];
    size_t hot;
    if (rows != NULL && !parse_size(rows, &c->shape.rows))
        return usage_error("--rows takes a count (4096, 2^20, 1M), not '%s'", rows);
    if (cols != NULL && !parse_size(cols, &c->shape.cols))
        return usage_error("--cols takes a count (8192, 2^30, 1G), not '%s'", cols);
    if (!shape_valid(c->shape))
        return usage_error("a shape has at most 2^31 - 1 rows and 2^32 elements%s", "");
    c->kernel = kernel ? (enum rows_kernel)kernel_parse(kernel) : KERNEL_AUTO;
    c->type = type ? (enum element_type)element_parse(type) : ELEMENT_FLOAT;
    if ((int)c->kernel < 0)
        return usage_error("--kernel takes warp, block, split or auto, not '%s'", kernel);
    if ((int)c->type < 0) return usage_error("--type takes float or bf16, not '%s'", type);
    if (o->pattern.kind == PATTERN_ONEHOT &&
        !pattern_onehot_position(&o->pattern, c->shape.rows * c->shape.cols, &hot))
        return usage_error("--pattern onehot needs an element to make hot, and the matrix has "
                           "none there%s",
                           "");
    return OPTIONS_RUN;
}

/* Device memory beside the matrix: the row sums (ours and CUB's), and for split a 64-bit word
 * per block and a ticket per row, zeroed once here; each launch leaves them zeroed. */
struct buffers {
    float *sums, *cub_sums;
    unsigned long long *tagged_sums;
    unsigned *tickets;
};

static bool buffers_create(struct buffers *b, struct matrix_shape s, const struct rows_launch *l)
{
    size_t words = l->kernel == KERNEL_SPLIT ? l->blocks : 0,
           tickets = l->kernel == KERNEL_SPLIT ? s.rows : 0;
    /* one more of each: cudaMalloc(0) would give NULL */
    CUDA_TRY(cudaMalloc((void **)&b->sums, (s.rows + 1) * sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&b->cub_sums, (s.rows + 1) * sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&b->tagged_sums, (words + 1) * sizeof(unsigned long long)));
    CUDA_TRY(cudaMalloc((void **)&b->tickets, (tickets + 1) * sizeof(unsigned)));
    CUDA_TRY(cudaMemset(b->tagged_sums, 0, (words + 1) * sizeof(unsigned long long)));
    return CUDA_OK(cudaMemset(b->tickets, 0, (tickets + 1) * sizeof(unsigned)));
}

static void buffers_free(struct buffers *b)
{
    CUDA_OK(cudaFree(b->sums));
    CUDA_OK(cudaFree(b->cub_sums));
    CUDA_OK(cudaFree(b->tagged_sums));
    CUDA_OK(cudaFree(b->tickets));
}

/* cub::DeviceSegmentedReduce over the same copies, timed the same way. */
static bool cub_segmented_time(const struct options *o, const struct matrix *mx,
                               struct timer *timer, float *out, struct timing *timing)
{
    size_t temp_bytes = 0;
    void *temp = NULL;
    bool ok = CUDA_OK(cub_rows_sum(NULL, &temp_bytes, mx->copies[0], mx->type, mx->shape, out, 0));
    ok = ok && CUDA_OK(cudaMalloc(&temp, temp_bytes + VECTOR_BYTES)); /* never NULL */
    for (int run = 0; ok && run < o->warmup + o->iters; run++)
        ok = timer_start(timer) &&
             CUDA_OK(cub_rows_sum(temp, &temp_bytes, mx->copies[run % mx->count], mx->type,
                                  mx->shape, out, 0)) &&
             timer_stop(timer, run >= o->warmup);
    *timing = timer_summary(timer);
    if (temp != NULL) ok = CUDA_OK(cudaFree(temp)) && ok;
    return ok;
}

/* CUB's flat sum of the same floats, through common/timing.cu's cub_time on a view of the
 * copies (bf16 has no float copies: not measured). */
static bool cub_flat_time(const struct options *o, const struct matrix *mx, struct timer *timer,
                          struct timing *timing)
{
    struct input view = {.n = mx->shape.rows * mx->shape.cols, .count = mx->count};
    if (mx->type != ELEMENT_FLOAT) return true;
    for (int c = 0; c < mx->count; c++) view.copies[c] = mx->copies[c];
    return cub_time(&view, o, timer, timing, NULL);
}

/* The run: the launch plan, device memory, the data, timed runs (then CUB's on the same
 * copies), every row checked against the host's sum, and the report. */
static int measure(const struct options *o, const struct device_info *device,
                   const struct choice *c)
{
    struct rows_run run = {.shape = c->shape, .type = c->type, .forced = c->kernel != KERNEL_AUTO};
    struct matrix mx = {0};
    struct timer timer = {0};
    struct buffers buffers = {0};
    float *sums = malloc((c->shape.rows + 1) * sizeof *sums);
    struct reference *references = NULL;
    int status = EXIT_ENVIRONMENT;

    run.launch = launch_plan(c->kernel, c->shape, c->type, (unsigned)device->sm_count);
    if (sums == NULL) goto done;
    if (!buffers_create(&buffers, c->shape, &run.launch)) goto done;
    if (!timer_make(&timer, device, o)) goto done;
    if (!matrix_fill(&mx, c->shape, c->type, FILL_PATTERN, &o->pattern, o->seed)) goto done;
    if (!matrix_upload(&mx, o->buffers, device)) goto done;
    for (int r = 0; r < o->warmup + o->iters; r++) {
        if (!timer_start(&timer)) goto done;
        if (!CUDA_OK(rows_reduce(mx.copies[r % mx.count], c->type, c->shape, &run.launch,
                                 buffers.sums, buffers.tagged_sums, buffers.tickets, 0)))
            goto done;
        if (!timer_stop(&timer, r >= o->warmup)) goto done;
    }
    run.time = timer_summary(&timer);
    if (!CUDA_OK(
            cudaMemcpy(sums, buffers.sums, c->shape.rows * sizeof *sums, cudaMemcpyDeviceToHost)))
        goto done;
    if (o->cub && !cub_segmented_time(o, &mx, &timer, buffers.cub_sums, &run.cub)) goto done;
    if (o->cub && !cub_flat_time(o, &mx, &timer, &run.flat)) goto done;

    if ((references = rows_references(&mx)) == NULL) goto done;
    run.depth = launch_depth(&run.launch, c->shape, c->type); /* the error bound's (plan.c) */
    run.verdict = rows_judge(references, c->shape.rows, sums, run.depth);
    rows_report(&STEP, o, device, &run);
    status = run.verdict.wrong == 0 ? EXIT_CORRECT : EXIT_WRONG;
done:
    buffers_free(&buffers);
    timer_free(&timer);
    matrix_free(&mx);
    free(sums);
    free(references);
    return status;
}

int main(int argc, char **argv)
{
    struct options options;
    struct device_info device;
    struct choice choice = {DEFAULT_SHAPE, KERNEL_AUTO, ELEMENT_FLOAT};
    char *rest[MAX_ARGS];
    int rest_count = 0;
    int status = take_shape_argument(argc, argv, rest, &rest_count, &choice);
    if (status == OPTIONS_RUN) status = options_parse(rest_count, rest, &STEP, &options);
    if (status == OPTIONS_RUN) status = choose(&options, &choice);
    if (status != OPTIONS_RUN) return status;
    if (!device_open(&device, STEP.name)) return EXIT_ENVIRONMENT;
    if (options.check)
        return check_rows(&options, &device, options.extra[KERNEL_OPTION] ? (int)choice.kernel : -1,
                          options.extra[TYPE_OPTION] ? (int)choice.type : -1);

    if (options.csv) rows_csv_header();
    return measure(&options, &device, &choice);
}
