/* step10_vector_loads: the program.
 * It reads top to bottom like the documents' main(): the options, the data, device memory,
 * the launch, the check, the time, the report; the error bound's depth comes last. The kernel
 * is in reduce.cu; common/toolbox.h says what each helper does. A call that fails has said
 * why: the program frees what it holds and exits 3. */
#include "reduce.h"
#include "toolbox.h"

enum { MIN_ELEMENTS = 8 }; /* per thread, at least: see blocks_for */

static const struct step_info STEP = {
    .name = "step10",
    .title = "Vector loads: 16 bytes a load, any alignment",
    .min_threads = 32,
    .max_threads = 1024,
    .default_threads = 256,
    .grid_size = true,
    .variants =
        (const struct variant[]){
            {"fence",
             "document 000's __threadfence() and atomicAdd ticket, plus the acquire fence"},
            {"atomic-ref", "the same guard as one acquire-release cuda::atomic_ref fetch_add"},
            {"atomic-add", "no last block: every block atomicAdd()s its sum (order varies)"},
            {NULL, NULL}},
};

/* How the kernel is launched: block size, the most blocks (--blocks B, or by default the GPU
 * filled once: blocks_or_filling), and how the blocks finish. */
struct shape {
    unsigned threads, most_blocks;
    int variant;
};

/* The grid for n elements: shape->most_blocks blocks, but never so many that a thread gets
 * fewer than MIN_ELEMENTS elements (document 000: a thread per element wastes the loop). */
static unsigned blocks_for(size_t n, const struct shape *shape)
{
    unsigned enough = blocks_to_cover(n, (size_t)shape->threads * MIN_ELEMENTS);
    return enough < shape->most_blocks ? enough : shape->most_blocks;
}

/* The float4 each thread adds in its loop, at most: the grid strides over the n / 4 of them. */
static size_t per_thread(size_t n, const struct shape *shape)
{
    size_t vectors = n / FLOATS_PER_VECTOR;
    size_t grid_threads = (size_t)blocks_for(n, shape) * shape->threads;
    return (vectors + grid_threads - 1) / grid_threads;
}

/* Device memory beside the input: the block sums, the total, and the ticket counter. */
struct buffers {
    float *block_sums, *total;
    unsigned *ticket_counter; /* zeroed once here; the last block sets it back to 0 */
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

/* What a launch writes and its finish reads, poisoned before each: the block sums and, after
 * them, the total; never the ticket counter, which a launch needs at 0. */
static size_t outputs_bytes(const struct buffers *b)
{
    return (size_t)(b->total + 1 - b->block_sums) * sizeof(float);
}

/* The one launch: the last block to finish adds the block sums and leaves the total on the
 * device. atomic-add needs the total zeroed first, and that is part of its cost.
 * *launched names the kernel and its finish, for the report. */
static bool reduce(const float *input, size_t n, const struct shape *shape, const struct buffers *b,
                   struct launched *launched)
{
    if (shape->variant == VARIANT_ATOMIC_ADD)
        CUDA_TRY(cudaMemsetAsync(b->total, 0, sizeof(float), 0));
    CUDA_TRY(reduce_in_one_launch(input, n, b->block_sums, b->ticket_counter, b->total,
                                  blocks_for(n, shape), shape->threads, shape->variant, launched));
    return true;
}

/* The depth of the error bound (the longest chain of additions): at the end of the file. */
static unsigned depth(size_t n, const struct shape *shape);

/* One size: device memory, the data, timed runs (then CUB's on the same copies), the check
 * against the host's exact sum, and the report. */
static int measure(const struct options *o, const struct device_info *device, size_t n)
{
    struct shape shape = {o->threads, blocks_or_filling(device, o->threads, o->blocks), o->variant};
    struct report report = report_start(&STEP, device, o, n);
    struct input input = {0};
    struct timer timer = {0};
    struct buffers buffers = {0};
    int status = EXIT_ENVIRONMENT;

    if (!buffers_create(&buffers, blocks_for(n, &shape))) goto done;
    if (!timer_make(&timer, device, o)) goto done;
    if (!input_create(&input, o, n, device)) goto done;
    for (int run = 0; run < o->warmup + o->iters; run++) {
        const float *copy = input.copies[run % input.count];
        if (!outputs_poison(buffers.block_sums, outputs_bytes(&buffers))) goto done;
        if (!timer_start(&timer)) goto done;
        if (!reduce(copy, n, &shape, &buffers, &report.launched)) goto done;
        if (!timer_stop(&timer, run >= o->warmup)) goto done;
    }
    report.time = timer_summary(&timer);
    if (!total_read(buffers.total, &report.result)) goto done;
    if (o->cub && !cub_time(&input, o, &timer, &report.cub, NULL)) goto done;

    snprintf(report.launch, sizeof report.launch,
             "%u blocks x %u threads, up to %zu float4 per thread; 1 launch", blocks_for(n, &shape),
             o->threads, per_thread(n, &shape));
    report_judge(&report, &input.reference, depth(n, &shape));
    report_print(&report, o);
    status = report.ok ? EXIT_CORRECT : EXIT_WRONG;
done:
    buffers_free(&buffers);
    timer_free(&timer);
    input_free(&input);
    return status;
}

/* --check: every case of the matrix, through the same launch. */
static int check_all(const struct options *o, const struct device_info *device)
{
    struct check *check = check_start(&STEP, o, device);
    struct shape largest = {STEP.min_threads, ~0u, o->variant}; /* the most blocks */
    struct buffers buffers = {0};
    struct check_case c;
    bool ran = false;

    if (check == NULL) return EXIT_ENVIRONMENT;
    if (!buffers_create(&buffers, blocks_for(CHECK_LARGEST_N, &largest))) goto done;
    while (check_next(check, &c)) {
        struct shape shape = {c.threads, blocks_or_filling(device, c.threads, c.blocks),
                              o->variant};
        struct launched launched;
        float total = 0;
        if (!outputs_poison(buffers.block_sums, outputs_bytes(&buffers))) goto done;
        if (!reduce(c.input, c.n, &shape, &buffers, &launched)) goto done;
        if (!total_read(buffers.total, &total)) goto done;
        check_record(check, &c, total, depth(c.n, &shape));
    }
    ran = true;
done:
    buffers_free(&buffers);
    return check_finish(check, ran);
}

int main(int argc, char **argv)
{
    struct options options;
    struct device_info device;
    int status = options_parse(argc, argv, &STEP, &options);
    if (status != OPTIONS_RUN) return status;
    if (!device_open(&device, STEP.name)) return EXIT_ENVIRONMENT;
    if (options.check) return check_all(&options, &device);

    if (options.csv) report_csv_header();
    int worst = EXIT_CORRECT;
    for (size_t n = options.n; n <= options.n_last; n = n ? 2 * n : 1) {
        status = measure(&options, &device, n);
        if (status > worst) worst = status;
        if (status == EXIT_ENVIRONMENT) break;
    }
    return worst;
}

/* ---- The error bound's depth (docs/verification.md): the program does not need it to run. ---- */

enum { WARP_LEVELS = 5 }; /* shuffles within a warp, and again over the warp sums */
enum { LANE_LEVELS = 2, EDGE_LEVELS = 1 }; /* a float4's four lanes; the head and tail floats */

/* The longest chain of float additions any element goes through (docs/verification.md): a
 * thread's loop over its float4, their four lanes, the head and tail floats, the shuffles of
 * its block; then, in the last block, a thread's loop over the block sums and the shuffles
 * again. With atomicAdd the block sums meet in a chain instead. */
static unsigned depth(size_t n, const struct shape *shape)
{
    size_t blocks = blocks_for(n, shape);
    size_t own = per_thread(n, shape) + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    size_t last_block = (blocks + shape->threads - 1) / shape->threads + 2 * WARP_LEVELS;
    return (unsigned)(own + (shape->variant == VARIANT_ATOMIC_ADD ? blocks : last_block));
}
