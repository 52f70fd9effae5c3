/* step16_rows: the program.
 * It reads top to bottom like the other steps: the options, the data, device memory, the
 * launches, the check, the time, the report. What is new is the shape: a rows x cols matrix
 * and a sum per row. plan.c chooses the kernel and its grid, plans the memory and judges every
 * row (the step's and CUB's), matrix.c holds the data, report.c prints the report, checks.c
 * runs --check's shapes, the kernels are in reduce.cu and CUB's segmented sum in segmented.cu.
 * A call that fails has said why: the program frees what it holds and exits 3. */
#include <string.h>

#include "checks.h"
#include "cub_sums.h"
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

/* Device memory beside the matrix (plan.h's rows_buffer_bytes): the row sums, ours and CUB's,
 * and for split a 64-bit word per block and a ticket per row, zeroed once here; each launch
 * leaves them zeroed. */
struct buffers {
    float *sums, *cub_sums;
    unsigned long long *tagged_sums;
    unsigned *tickets;
};

static bool buffers_create(struct buffers *b, const struct rows_buffer_bytes *bytes, bool cub)
{
    CUDA_TRY(cudaMalloc((void **)&b->sums, bytes->sums));
    if (cub) CUDA_TRY(cudaMalloc((void **)&b->cub_sums, bytes->sums));
    if (bytes->tagged_sums == 0) return true; /* not split: the kernel never touches them */
    CUDA_TRY(cudaMalloc((void **)&b->tagged_sums, bytes->tagged_sums));
    CUDA_TRY(cudaMalloc((void **)&b->tickets, bytes->tickets));
    CUDA_TRY(cudaMemset(b->tagged_sums, 0, bytes->tagged_sums));
    return CUDA_OK(cudaMemset(b->tickets, 0, bytes->tickets));
}

static void buffers_free(struct buffers *b)
{
    CUDA_OK(cudaFree(b->sums));
    CUDA_OK(cudaFree(b->cub_sums));
    CUDA_OK(cudaFree(b->tagged_sums));
    CUDA_OK(cudaFree(b->tickets));
}

/* How many copies of the matrix fit beside the buffers and CUB's storage, planned from the
 * memory free before any of them is allocated (the timer's scratch is already taken); 0 after
 * saying what the run needs. */
static int copies_planned(const struct options *o, const struct device_info *device,
                          const struct matrix *mx, const struct rows_launch *l)
{
    size_t copy_bytes = mx->shape.rows * mx->shape.cols * element_bytes(mx->type);
    size_t cub_bytes = 0, free_bytes = 0, total_bytes = 0;
    if (!cub_storage_bytes(o, mx, &cub_bytes)) return 0;
    if (!CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes))) return 0;
    struct memory_fixed fixed = rows_fixed_memory(mx->shape, l, o->cub, cub_bytes);
    struct memory_plan plan = memory_plan_make(fixed.bytes, copy_bytes > 0 ? copy_bytes : 1,
                                               free_bytes, o->buffers);
    if (plan.copies == 0) memory_plan_explain(&plan, "the matrix", fixed.names, device->name);
    return plan.copies;
}

/* The step's timed runs, each into row sums poisoned before it (outside the timed region), so
 * that a row the kernel never wrote reads as NaN; the last run's sums into `sums`. */
static bool step_time(const struct options *o, const struct matrix *mx, struct rows_run *run,
                      struct buffers *b, struct timer *timer, float *sums)
{
    size_t bytes = mx->shape.rows * sizeof(float);
    for (int r = 0; r < o->warmup + o->iters; r++)
        if (!outputs_poison(b->sums, bytes) || !timer_start(timer) ||
            !CUDA_OK(rows_reduce(mx->copies[r % mx->count], mx->type, mx->shape, &run->launch,
                                 b->sums, b->tagged_sums, b->tickets, 0)) ||
            !timer_stop(timer, r >= o->warmup))
            return false;
    run->time = timer_summary(timer);
    return CUDA_OK(cudaMemcpy(sums, b->sums, bytes, cudaMemcpyDeviceToHost));
}

/* The run: the launch plan, the data, device memory as planned, timed runs (then CUB's on the
 * same copies), every row of each checked against the host's sum, and the report. */
static int measure(const struct options *o, const struct device_info *device,
                   const struct choice *c)
{
    struct rows_run run = {.shape = c->shape, .type = c->type, .forced = c->kernel != KERNEL_AUTO};
    struct matrix mx = {0};
    struct timer timer = {0};
    struct buffers buffers = {0};
    float *sums = malloc((c->shape.rows + 1) * sizeof *sums),
          *cub_sums = malloc((c->shape.rows + 1) * sizeof *cub_sums), flat_total = 0;
    struct reference *references = NULL;
    struct rows_buffer_bytes bytes;
    int status = EXIT_ENVIRONMENT, copies;

    run.launch = launch_plan(c->kernel, c->shape, c->type, (unsigned)device->sm_count);
    bytes = rows_buffer_bytes(c->shape, &run.launch);
    if (sums == NULL || cub_sums == NULL) goto done;
    if (!timer_make(&timer, device, o)) goto done;
    if (!matrix_fill(&mx, c->shape, c->type, FILL_PATTERN, &o->pattern, o->seed)) goto done;
    if ((copies = copies_planned(o, device, &mx, &run.launch)) == 0) goto done;
    if (!buffers_create(&buffers, &bytes, o->cub)) goto done;
    if (!matrix_upload(&mx, copies)) goto done;
    if (!step_time(o, &mx, &run, &buffers, &timer, sums)) goto done;
    if (o->cub && !cub_segmented_time(o, &mx, &timer, buffers.cub_sums, &run.cub, cub_sums))
        goto done;
    if ((references = rows_references(&mx)) == NULL) goto done;
    if (o->cub && !cub_flat_time(o, &mx, references, &timer, &run.flat, &flat_total)) goto done;
    rows_run_judge(&run, references, sums, cub_sums, flat_total, (unsigned)device->sm_count);
    rows_report(&STEP, o, device, &run);
    status = rows_run_correct(&run) ? EXIT_CORRECT : EXIT_WRONG;
done:
    buffers_free(&buffers);
    timer_free(&timer);
    matrix_free(&mx);
    free(sums);
    free(cub_sums);
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
