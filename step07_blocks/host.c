/* step07_blocks: the program.
 * It reads top to bottom like the documents' main(): the options, the data, device memory,
 * the launches and the finish, the check, the time, the report; the error bound's depth comes
 * last. The kernel is in reduce.cu; common/toolbox.h says what each helper does. A call that
 * fails has said why: the program frees what it holds and exits 3. */
#include "reduce.h"
#include "toolbox.h"

enum { MIN_ELEMENTS = 8 }; /* per thread, at least: see blocks_for */
enum { CLOCK_OPTION = 0 }; /* --clock among the step's own options */

static const struct step_info STEP = {
    .name = "step07",
    .title = "Reduction 7: a fixed grid, many elements per thread",
    .min_threads = 64,
    .max_threads = 1024,
    .default_threads = 256,
    .host_finish = true,
    .grid_size = true,
    .variants =
        (const struct variant[]){
            {"tree", "the block's partial sums meet in a tree, as in step06"},
            {"thread0", "document 004: thread 0 alone adds the block's partial sums, in a loop"},
            {NULL, NULL}},
    .extras =
        (const struct extra_option[]){
            {"clock", NULL, "also print each block's clock64() cycles (document 004's timing)"},
            {NULL, NULL, NULL}},
};

/* How the kernel is launched: block size, the most blocks (--blocks B, or by default the GPU
 * filled once: blocks_or_filling), the finish, the variant. */
struct shape {
    unsigned threads, most_blocks;
    enum finish finish;
    int variant;
};

/* The grid for n elements: shape->most_blocks blocks, but never so many that a thread gets
 * fewer than MIN_ELEMENTS elements (document 000: a thread per element wastes the loop); that
 * also makes each pass over the block sums shrink. */
static unsigned blocks_for(size_t n, const struct shape *shape)
{
    unsigned enough = blocks_to_cover(n, (size_t)shape->threads * MIN_ELEMENTS);
    return enough < shape->most_blocks ? enough : shape->most_blocks;
}

/* The elements each thread adds in its loop: the grid strides over the input. */
static size_t per_thread(size_t n, const struct shape *shape)
{
    size_t grid_threads = (size_t)blocks_for(n, shape) * shape->threads;
    return (n + grid_threads - 1) / grid_threads;
}

/* Device memory beside the input: room for the first pass's block sums, then the second's;
 * later passes alternate between the two. */
static size_t block_sums_bytes(size_t n, const struct shape *shape)
{
    size_t first = blocks_for(n, shape);
    return (first + blocks_for(first, shape)) * sizeof(float);
}

/* The launches, and the finish: more launches leave the total in *device_total; the host
 * finish (documents 001 and 004) adds the block sums into *host_total.
 * *launched names the kernel and the finish, for the report. */
static bool reduce(const float *input, size_t n, const struct shape *shape, float *block_sums,
                   long long *clocks, const float **device_total, float *host_total,
                   struct launched *launched)
{
    float *half[2] = {block_sums, block_sums + blocks_for(n, shape)};
    const float *in = input;
    int which = 0;
    do {
        unsigned blocks = blocks_for(n, shape);
        CUDA_TRY(reduce_blocks(in, n, half[which], blocks, shape->threads, shape->variant,
                               in == input ? clocks : NULL, launched));
        in = half[which];
        which = 1 - which;
        n = blocks;
    } while (shape->finish == FINISH_GPU && n > 1);
    *device_total = shape->finish == FINISH_GPU ? in : NULL;
    launched->finish = shape->finish == FINISH_GPU ? FINISH_BY_LAUNCHES : FINISH_ON_HOST;
    return shape->finish == FINISH_GPU || sum_on_host(in, n, host_total);
}

/* The error bound's depth for this launch plan: the longest chain of float additions an
 * element goes through (defined at the end of the file). */
static unsigned depth(size_t n, const struct shape *shape);

/* One size: device memory, the data, timed runs (then CUB's on the same copies), the check
 * against the host's exact sum, and the report. */
static int measure(const struct options *o, const struct device_info *device, size_t n)
{
    struct shape shape = {o->threads, blocks_or_filling(device, o->threads, o->blocks), o->finish,
                          o->variant};
    struct report report = report_start(&STEP, device, o, n);
    struct input input = {0};
    struct timer timer = {0};
    float *block_sums = NULL;
    long long *clocks = NULL; /* --clock: two stamps per block of the first launch */
    const float *device_total = NULL;
    int status = EXIT_ENVIRONMENT;

    if (!CUDA_OK(cudaMalloc((void **)&block_sums, block_sums_bytes(n, &shape)))) goto done;
    if (o->extra[CLOCK_OPTION] && !clock_buffer(&clocks, blocks_for(n, &shape))) goto done;
    if (!timer_make(&timer, device, o)) goto done;
    if (!input_create(&input, o, n, device)) goto done;
    for (int run = 0; run < o->warmup + o->iters; run++) {
        const float *copy = input.copies[run % input.count];
        if (!outputs_poison(block_sums, block_sums_bytes(n, &shape))) goto done;
        if (!timer_start(&timer)) goto done;
        if (!reduce(copy, n, &shape, block_sums, clocks, &device_total, &report.result,
                    &report.launched))
            goto done;
        if (!timer_stop(&timer, run >= o->warmup)) goto done;
    }
    report.time = timer_summary(&timer);
    if (!total_read(device_total, &report.result)) goto done;
    if (o->cub && !cub_time(&input, o, &timer, &report.cub, NULL)) goto done;

    snprintf(report.launch, sizeof report.launch,
             "%u blocks x %u threads, up to %zu element(s) per thread; %s finish",
             blocks_for(n, &shape), o->threads, per_thread(n, &shape),
             o->finish == FINISH_CPU ? "host" : "GPU");
    report_judge(&report, &input.reference, depth(n, &shape));
    report_print(&report, o);
    status = report.ok ? EXIT_CORRECT : EXIT_WRONG;
    if (clocks != NULL && !clock_report(clocks, blocks_for(n, &shape), device))
        status = EXIT_ENVIRONMENT;
done:
    CUDA_OK(cudaFree(block_sums));
    CUDA_OK(cudaFree(clocks));
    timer_free(&timer);
    input_free(&input);
    return status;
}

/* --check: every case of the matrix, through the same launches. */
static int check_all(const struct options *o, const struct device_info *device)
{
    struct check *check = check_start(&STEP, o, device);
    struct shape largest = {STEP.min_threads, ~0u, FINISH_GPU, o->variant}; /* the most blocks */
    float *block_sums = NULL;
    struct check_case c;
    bool ran = false;

    if (check == NULL) return EXIT_ENVIRONMENT;
    if (!CUDA_OK(cudaMalloc((void **)&block_sums, block_sums_bytes(CHECK_LARGEST_N, &largest))))
        goto done;
    while (check_next(check, &c)) {
        struct shape shape = {c.threads, blocks_or_filling(device, c.threads, c.blocks), c.finish,
                              o->variant};
        const float *device_total = NULL;
        struct launched launched;
        float total = 0;
        if (!outputs_poison(block_sums, block_sums_bytes(c.n, &shape))) goto done;
        if (!reduce(c.input, c.n, &shape, block_sums, NULL, &device_total, &total, &launched))
            goto done;
        if (!total_read(device_total, &total)) goto done;
        check_record(check, &c, total, depth(c.n, &shape));
    }
    ran = true;
done:
    CUDA_OK(cudaFree(block_sums));
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

enum { HOST_FINISH_DEPTH = 2 }; /* the host adds in double, then rounds once to float */

/* The longest chain of float additions any element goes through: in each pass, a thread's
 * loop, then the block's tree (or thread 0's loop over the block). */
static unsigned depth(size_t n, const struct shape *shape)
{
    unsigned levels = 0;
    unsigned block = shape->variant == VARIANT_THREAD0 ? shape->threads
                                                       : tree_levels(shape->threads);
    do levels += (unsigned)per_thread(n, shape) + block;
    while (shape->finish == FINISH_GPU && (n = blocks_for(n, shape)) > 1);
    return levels + (shape->finish == FINISH_CPU ? HOST_FINISH_DEPTH : 0);
}
