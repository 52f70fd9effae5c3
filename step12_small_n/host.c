/* step12_small_n: the program.
 * It reads top to bottom like the documents' main(): the options, the data, device memory,
 * the launch, the check, the time, the report; the error bound's depth comes last. The kernels
 * are in reduce.cu; --ceilings is in ceilings.cu; common/toolbox.h says what each helper does.
 * A call that fails has said why: the program frees what it holds and exits 3. */
#include "ceilings.h"
#include "reduce.h"
#include "toolbox.h"

enum { CEILINGS_OPTION = 0 }; /* extras[0] */

static const struct step_info STEP = {
    .name = "step12",
    .title = "Small n: a kernel of its own, one block, no ticket",
    .min_threads = 32,
    .max_threads = 1024,
    .default_threads = 512,
    .variants =
        (const struct variant[]){
            {"ticket", "step09's last block, with an acquire-release cuda::atomic_ref ticket"},
            {"atomic-add", "no last block: every block atomicAdd()s its sum (order varies)"},
            {NULL, NULL}},
    .extras =
        (const struct extra_option[]){
            {"ceilings", NULL,
             "also time a cudaMemset and a device-to-device cudaMemcpy of the same\n"
             "                 bytes, and an empty kernel, beside the step and CUB"},
            {NULL, NULL, NULL}},
};

/* How the kernel is launched: block size, and how the blocks finish. */
struct shape {
    unsigned threads;
    int variant;
};

/* Up to ONE_BLOCK_ELEMENTS: the one-block kernel, whatever --threads says. */
static bool one_block(size_t n)
{
    return n <= ONE_BLOCK_ELEMENTS;
}

static unsigned blocks_for(size_t n, const struct shape *shape)
{
    return one_block(n) ? 1 : grid_blocks(n, shape->threads);
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

/* The one launch: for a small n the one block; otherwise the grid, whose last block to finish
 * adds the block sums and leaves the total on the device. atomic-add needs the total zeroed
 * first, and that is part of its cost.
 * *launched names the kernel and its finish, for the report. */
static bool reduce(const float *input, size_t n, const struct shape *shape, const struct buffers *b,
                   struct launched *launched)
{
    if (one_block(n))
        return CUDA_OK(reduce_in_one_block(input, (unsigned)n, b->total, 0, launched));
    if (shape->variant == VARIANT_ATOMIC_ADD)
        CUDA_TRY(cudaMemsetAsync(b->total, 0, sizeof(float), 0));
    CUDA_TRY(reduce_in_one_launch(input, n, b->block_sums, b->ticket_counter, b->total,
                                  blocks_for(n, shape), shape->threads, shape->variant, 0,
                                  launched));
    return true;
}

/* The report's launch line: which kernel ran, and its shape. */
static void describe_launch(struct report *report, size_t n, const struct shape *shape)
{
    if (one_block(n))
        snprintf(report->launch, sizeof report->launch,
                 "1 block x %d threads, %d float4 per thread: the one-block kernel "
                 "(n <= %d); 1 launch",
                 ONE_BLOCK_THREADS, ONE_BLOCK_VECTORS, ONE_BLOCK_ELEMENTS);
    else
        snprintf(report->launch, sizeof report->launch,
                 "%u blocks x %u threads, %d float4 per thread, all in flight at once; 1 launch",
                 blocks_for(n, shape), shape->threads, VECTORS_PER_THREAD);
}

/* The depth of the error bound (the longest chain of additions): at the end of the file. */
static unsigned depth(size_t n, const struct shape *shape);

/* One size: device memory, the data, timed runs (then CUB's on the same copies, and with
 * --ceilings the three ceilings), the check against the host's exact sum, and the report. */
static int measure(const struct options *o, const struct device_info *device, size_t n)
{
    struct shape shape = {o->threads, o->variant};
    struct report report = report_start(&STEP, device, o, n);
    struct input input = {0};
    struct timer timer = {0};
    struct buffers buffers = {0};
    struct ceilings ceilings = {0};
    int status = EXIT_ENVIRONMENT;

    if (!buffers_create(&buffers, blocks_for(n, &shape))) goto done;
    if (o->extra[CEILINGS_OPTION] && !ceilings_create(&ceilings, n, device)) goto done;
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
    if (ceilings.scratch != NULL && !ceilings_measure(&ceilings, &input, o, &timer)) goto done;

    describe_launch(&report, n, &shape);
    report_judge(&report, &input.reference, depth(n, &shape));
    report_print(&report, o);
    if (ceilings.scratch != NULL) ceilings_print(&ceilings, &report);
    status = report.ok ? EXIT_CORRECT : EXIT_WRONG;
done:
    ceilings_free(&ceilings);
    buffers_free(&buffers);
    timer_free(&timer);
    input_free(&input);
    return status;
}

/* --check: every case of the matrix, through the same launch. */
static int check_all(const struct options *o, const struct device_info *device)
{
    struct check *check = check_start(&STEP, o, device);
    struct shape largest = {STEP.min_threads, o->variant}; /* the most blocks */
    struct buffers buffers = {0};
    struct check_case c;
    bool ran = false;

    if (check == NULL) return EXIT_ENVIRONMENT;
    if (!buffers_create(&buffers, blocks_for(CHECK_LARGEST_N, &largest))) goto done;
    while (check_next(check, &c)) {
        struct shape shape = {c.threads, o->variant};
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
    if (options.extra[CEILINGS_OPTION] && !ceilings_allowed(&options, STEP.name)) return EXIT_USAGE;
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
 * thread's float4 in a row, their four lanes, the head and tail floats, the shuffles of its
 * block; then, in the last block, a thread's loop over the block sums as float4, their lanes,
 * the 0..3 sums after them, and the shuffles again. With atomicAdd the block sums meet in a
 * chain instead. */
static unsigned depth(size_t n, const struct shape *shape)
{
    if (one_block(n)) return ONE_BLOCK_VECTORS + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    size_t blocks = blocks_for(n, shape), per_round = (size_t)shape->threads * FLOATS_PER_VECTOR;
    size_t own = VECTORS_PER_THREAD + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    size_t last = (blocks + per_round - 1) / per_round + LANE_LEVELS + EDGE_LEVELS +
                  2 * WARP_LEVELS;
    return (unsigned)(own + (shape->variant == VARIANT_ATOMIC_ADD ? blocks : last));
}
