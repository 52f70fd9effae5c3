/* step12_small_n: the program.
 * It reads top to bottom like the documents' main(): the options, the data, device memory,
 * the launch, the check, the time, the report. The kernel is in reduce.cu; common/toolbox.h
 * says what each helper does. */
#include "reduce.h"
#include "toolbox.h"

enum { LANE_LEVELS = 2, EDGE_LEVELS = 1 };   /* a float4's four lanes; the head and tail floats */

static const struct step_info STEP = {
    .name = "step12", .title = "Vector loads: 16 bytes a load, many in flight, short blocks",
    .min_threads = 128, .max_threads = 1024, .default_threads = 512,
    .variants = (const struct variant[]){
        {"ticket", "step09's last block adds the block sums: the same bits on every run"},
        {"atomic-add", "every block atomicAdd()s its sum: a shorter finish, bits that vary"},
        {NULL, NULL}},
};

/* One block per threads * FLOATS_PER_THREAD elements: each thread reads its share once. */
static unsigned blocks_for(size_t n, unsigned threads)
{
    size_t per_block = (size_t)threads * FLOATS_PER_THREAD;
    return n > per_block ? (unsigned)((n + per_block - 1) / per_block) : 1;
}

/* The longest chain of float additions any element goes through (docs/verification.md): a
 * thread's vectors (a tree), their lanes and the edge floats, the block's shuffles; then the
 * last block's reads of the block sums the same way, or atomicAdd's chain of block sums. */
static unsigned depth(size_t n, unsigned threads, int variant)
{
    size_t blocks = blocks_for(n, threads), per_round = (size_t)threads * SUM_VECTORS_IN_FLIGHT * FLOATS_PER_VECTOR;
    unsigned own = tree_levels(VECTORS_PER_THREAD) + LANE_LEVELS + EDGE_LEVELS + tree_levels(threads);
    if (n <= ONE_BLOCK_ELEMENTS)
        return tree_levels(ONE_BLOCK_VECTORS) + LANE_LEVELS + EDGE_LEVELS + tree_levels(ONE_BLOCK_THREADS);
    if (variant == VARIANT_ATOMIC_ADD) return own + (unsigned)blocks;
    if (blocks == 1) return own;
    return own + (unsigned)((blocks + per_round - 1) / per_round) + tree_levels(SUM_VECTORS_IN_FLIGHT) +
           LANE_LEVELS + EDGE_LEVELS + tree_levels(threads);
}

/* Device memory beside the input: the block sums (whole float4, for the last block's vector
 * reads), the total after them, and the ticket counter. */
struct buffers {
    float *block_sums, *total;
    unsigned *ticket_counter;        /* zeroed once here; the last block sets it back to 0 */
};

static bool buffers_create(struct buffers *b, unsigned blocks)
{
    size_t padded = (blocks + FLOATS_PER_VECTOR - 1) / FLOATS_PER_VECTOR * FLOATS_PER_VECTOR;
    CUDA_TRY(cudaMalloc((void **)&b->block_sums, (padded + 1) * sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&b->ticket_counter, sizeof(unsigned)));
    b->total = b->block_sums + padded;
    return CUDA_OK(cudaMemset(b->ticket_counter, 0, sizeof(unsigned)));
}

static void buffers_free(struct buffers *b)
{
    CUDA_OK(cudaFree(b->block_sums));
    CUDA_OK(cudaFree(b->ticket_counter));
}

/* The one launch: one block for a small n; otherwise the grid, whose last block (or whose
 * atomicAdds, on a zeroed total) leaves the total on the device. */
static bool reduce(const float *input, size_t n, unsigned threads, int variant, const struct buffers *b)
{
    if (n <= ONE_BLOCK_ELEMENTS) return CUDA_OK(reduce_in_one_block(input, (unsigned)n, b->total));
    if (variant == VARIANT_ATOMIC_ADD) CUDA_TRY(cudaMemsetAsync(b->total, 0, sizeof(float), 0));
    CUDA_TRY(reduce_in_one_launch(input, n, b->block_sums, b->ticket_counter, b->total,
                                  blocks_for(n, threads), threads, variant));
    return true;
}

/* One size: device memory, the data, timed runs (then CUB's on the same copies), the check
 * against the host's exact sum, and the report. */
static int measure(const struct options *o, const struct device_info *device, size_t n)
{
    unsigned threads = n <= ONE_BLOCK_ELEMENTS ? ONE_BLOCK_THREADS : o->threads;
    struct buffers buffers = {0};
    struct timer timer = {0};
    struct input input = {0};
    struct report report = report_start(&STEP, device, o, n);
    bool ok = buffers_create(&buffers, blocks_for(n, o->threads)) && timer_make(&timer, device, o) &&
              input_create(&input, o, n, device);
    for (int run = 0; ok && run < o->warmup + o->iters; run++)
        ok = timer_start(&timer) && reduce(input.copies[run % input.count], n, o->threads, o->variant, &buffers) &&
             timer_stop(&timer, run >= o->warmup);
    report.time = timer_summary(&timer);
    ok = ok && total_read(buffers.total, &report.result);
    if (ok && o->cub) ok = cub_time(&input, o, &timer, &report.cub, NULL);
    snprintf(report.launch, sizeof report.launch, "%u block(s) x %u threads, %d floats per thread "
             "as float4; 1 launch%s", n <= ONE_BLOCK_ELEMENTS ? 1 : blocks_for(n, threads), threads,
             n <= ONE_BLOCK_ELEMENTS ? ONE_BLOCK_VECTORS * FLOATS_PER_VECTOR : FLOATS_PER_THREAD,
             n <= ONE_BLOCK_ELEMENTS ? " (the one-block kernel)" : "");
    report_judge(&report, &input.reference, depth(n, o->threads, o->variant));
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
    struct buffers buffers = {0};
    struct check_case c;
    bool ok = check != NULL && buffers_create(&buffers, blocks_for(CHECK_LARGEST_N, STEP.min_threads));
    while (ok && check_next(check, &c)) {
        float total = 0;
        ok = reduce(c.input, c.n, c.threads, o->variant, &buffers) && total_read(buffers.total, &total);
        if (ok) check_record(check, &c, total, depth(c.n, c.threads, o->variant));
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
