/* step10_vector_loads: the program.
 * It reads top to bottom like the documents' main(): the options, the data, device memory,
 * the launch, the check, the time, the report. The kernel is in reduce.cu; common/toolbox.h
 * says what each helper does. */
#include "reduce.h"
#include "toolbox.h"

enum { MIN_ELEMENTS = 8 };           /* per thread, at least: see blocks_for */
enum { WARP_LEVELS = 5 };            /* shuffles within a warp, and again over the warp sums */
enum { LANE_LEVELS = 2, EDGE_LEVELS = 1 };   /* a float4's four lanes; the head and tail floats */

static const struct step_info STEP = {
    .name = "step10", .title = "Vector loads: 16 bytes a load, any alignment",
    .min_threads = 32, .max_threads = 1024, .default_threads = 256, .grid_size = true,
    .variants = (const struct variant[]){
        {"fence", "document 000's __threadfence() and atomicAdd ticket, plus the acquire fence"},
        {"atomic-ref", "the same guard as one acquire-release cuda::atomic_ref fetch_add"},
        {"atomic-add", "no last block: every block atomicAdd()s its sum (order varies)"},
        {NULL, NULL}},
};

/* How the kernel is launched: block size, the most blocks (--blocks B, or by default the GPU
 * filled once: filling_grid), and how the blocks finish. */
struct shape { unsigned threads, grid; int variant; };

/* The grid for n elements: shape->grid blocks, but never so many that a thread gets fewer
 * than MIN_ELEMENTS elements (document 000: a thread per element wastes the loop). At least
 * one block, even for n = 0. */
static unsigned blocks_for(size_t n, const struct shape *shape)
{
    size_t per_block = (size_t)shape->threads * MIN_ELEMENTS, enough = (n + per_block - 1) / per_block;
    return enough < shape->grid ? (enough > 0 ? (unsigned)enough : 1) : shape->grid;
}

/* The float4 each thread adds in its loop, at most: the grid strides over the n / 4 of them. */
static size_t per_thread(size_t n, const struct shape *s)
{
    size_t vectors = n / FLOATS_PER_VECTOR, threads = (size_t)blocks_for(n, s) * s->threads;
    return (vectors + threads - 1) / threads;
}

/* The longest chain of float additions any element goes through (docs/verification.md): a
 * thread's loop over its float4, their four lanes, the head and tail floats, the shuffles of
 * its block; then, in the last block, a thread's loop over the block sums and the shuffles
 * again. With atomicAdd the block sums meet in a chain instead. */
static unsigned depth(size_t n, const struct shape *shape)
{
    size_t blocks = blocks_for(n, shape), own = per_thread(n, shape) + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    size_t finish = shape->variant == VARIANT_ATOMIC_ADD ? blocks : (blocks + shape->threads - 1) / shape->threads + 2 * WARP_LEVELS;
    return (unsigned)(own + finish);
}

/* Device memory beside the input: the block sums, the total, and the ticket counter. */
struct buffers {
    float *block_sums, *total;
    unsigned *ticket_counter;        /* zeroed once here; the last block sets it back to 0 */
};

static bool buffers_create(struct buffers *b, unsigned blocks)
{
    CUDA_TRY(cudaMalloc((void **)&b->block_sums, (blocks + 1) * sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&b->ticket_counter, sizeof(unsigned)));
    b->total = b->block_sums + blocks;
    return CUDA_OK(cudaMemset(b->ticket_counter, 0, sizeof(unsigned)));
}

static void buffers_free(struct buffers *b)
{
    CUDA_OK(cudaFree(b->block_sums));
    CUDA_OK(cudaFree(b->ticket_counter));
}

/* The one launch: the last block to finish adds the block sums and leaves the total on the
 * device. atomic-add needs the total zeroed first, and that is part of its cost. */
static bool reduce(const float *input, size_t n, const struct shape *shape, const struct buffers *b)
{
    if (shape->variant == VARIANT_ATOMIC_ADD) CUDA_TRY(cudaMemsetAsync(b->total, 0, sizeof(float), 0));
    CUDA_TRY(reduce_in_one_launch(input, n, b->block_sums, b->ticket_counter, b->total,
                                  blocks_for(n, shape), shape->threads, shape->variant));
    return true;
}

/* One size: device memory, the data, timed runs (then CUB's on the same copies), the check
 * against the host's exact sum, and the report. */
static int measure(const struct options *o, const struct device_info *device, size_t n)
{
    struct shape shape = {o->threads, o->blocks ? o->blocks : filling_grid(device, o->threads), o->variant};
    struct buffers buffers = {0};
    struct timer timer = {0};
    struct input input = {0};
    struct report report = report_start(&STEP, device, o, n);
    bool ok = buffers_create(&buffers, blocks_for(n, &shape)) && timer_make(&timer, device, o) &&
              input_create(&input, o, n, device);
    for (int run = 0; ok && run < o->warmup + o->iters; run++)
        ok = timer_start(&timer) && reduce(input.copies[run % input.count], n, &shape, &buffers) &&
             timer_stop(&timer, run >= o->warmup);
    report.time = timer_summary(&timer);
    ok = ok && total_read(buffers.total, &report.result);
    if (ok && o->cub) ok = cub_time(&input, o, &timer, &report.cub, NULL);
    snprintf(report.launch, sizeof report.launch, "%u blocks x %u threads, up to %zu float4 per "
             "thread; 1 launch", blocks_for(n, &shape), o->threads, per_thread(n, &shape));
    report_judge(&report, &input.reference, depth(n, &shape));
    if (ok) report_print(&report, o);
    buffers_free(&buffers);
    timer_free(&timer);
    input_free(&input);
    return !ok ? EXIT_ENVIRONMENT : report.ok ? EXIT_CORRECT : EXIT_WRONG;
}

/* --check: every case of the matrix, through the same launch. */
static int check_all(const struct options *o, const struct device_info *device)
{
    struct check *check = check_start(&STEP, o, device);
    struct shape largest = {STEP.min_threads, ~0u, o->variant};   /* the most blocks */
    struct buffers buffers = {0};
    struct check_case c;
    bool ok = check != NULL && buffers_create(&buffers, blocks_for(CHECK_LARGEST_N, &largest));
    while (ok && check_next(check, &c)) {
        struct shape shape = {c.threads, c.blocks ? c.blocks : filling_grid(device, c.threads), o->variant};
        float total = 0;
        ok = reduce(c.input, c.n, &shape, &buffers) && total_read(buffers.total, &total);
        if (ok) check_record(check, &c, total, depth(c.n, &shape));
    }
    buffers_free(&buffers);
    return check != NULL ? check_finish(check, ok) : EXIT_ENVIRONMENT;
}

int main(int argc, char **argv)
{
    struct options options;
    struct device_info device;
    int status = options_parse(argc, argv, &STEP, &options), worst = EXIT_CORRECT;
    if (status != OPTIONS_RUN) return status;
    if (!device_open(&device, STEP.name)) return EXIT_ENVIRONMENT;
    if (options.check) return check_all(&options, &device);
    if (options.csv) report_csv_header();
    for (size_t n = options.n; n <= options.n_last && worst != EXIT_ENVIRONMENT; n = n ? 2 * n : 1) {
        status = measure(&options, &device, n);
        worst = status > worst ? status : worst;
    }
    return worst;
}
