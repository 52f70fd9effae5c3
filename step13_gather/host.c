/* step13_gather: the program.
 * It reads top to bottom like the documents' main(): the options, the data, device memory,
 * the launch, the check, the time, the report; the error bound's depth comes last. The kernels
 * are in reduce.cu; --ceilings is step12's; common/toolbox.h says what each helper does. A
 * call that fails has said why: the program frees what it holds and exits 3. */
#include <string.h>

#include "../step12_small_n/ceilings.h"
#include "reduce.h"
#include "toolbox.h"

enum { CEILINGS_OPTION = 0, VECTORS_OPTION = 1 }; /* extras[0], extras[1] */

static const struct step_info STEP = {
    .name = "step13",
    .title = "The finish without a fence: the block that starts last gathers the sums",
    .min_threads = 32,
    .max_threads = 1024,
    .default_threads = 512,
    .threads_about = "threads per block, a power of two in 32..1024   [512, or 1024 where\n"
                     "                 512 would make a grid of more than 32768 blocks]",
    .variants =
        (const struct variant[]){
            {"gather",
             "the block that starts last adds the published sums: the same bits on every run"},
            {"ticket", "step09's last block, with an acquire-release cuda::atomic_ref ticket"},
            {"atomic-add", "no last block: every block atomicAdd()s its sum (order varies)"},
            {NULL, NULL}},
    .extras =
        (const struct extra_option[]){
            {"ceilings", NULL,
             "also time a cudaMemset and a device-to-device cudaMemcpy of the same\n"
             "                 bytes, and an empty kernel, beside the step and CUB"},
            {"vectors", "V",
             "float4 each thread of the grid keeps in flight: 4, 8, 12, or auto (the\n"
             "                 default, whatever the variant: the fewest of 4 and 8 that make a\n"
             "                 grid the gatherer could read; for a larger grid, the card's count)"},
            {NULL, NULL, NULL}},
};

/* How the kernel is launched: block size, float4 a thread, its finish, and its loads. */
struct shape {
    unsigned threads, vectors;
    int variant, loads;
};

/* --vectors: a count the kernel is compiled for, 0 for auto (or absent), -1 for anything else. */
static int vectors_given(const char *text)
{
    char *end = NULL;
    if (text == NULL || strcmp(text, "auto") == 0) return 0;
    unsigned long count = strtoul(text, &end, 10);
    bool compiled = count == FEWEST_VECTORS || count == FEW_VECTORS || count == MANY_VECTORS;
    return end != text && *end == '\0' && compiled ? (int)count : -1;
}

/* The count --vectors gives; auto: vectors_per_thread's, from n and the card's count (its
 * bandwidth per SM, Little's law: reduce.h), whatever the variant. The threads given, else
 * threads_for's; loads_for's loads. */
static struct shape shape_for(const struct options *o, const struct device_info *device, size_t n,
                              unsigned threads, bool threads_given)
{
    int given = vectors_given(o->extra[VECTORS_OPTION]), loads = loads_for(n, device->l2_bytes);
    unsigned card = card_vectors(device->peak_gb_per_s / device->sm_count);
    unsigned vectors = given > 0 ? (unsigned)given : vectors_per_thread(n, threads, card);
    if (!threads_given) threads = threads_for(n, threads, vectors);
    return (struct shape){threads, vectors, o->variant, loads};
}

/* Up to ONE_BLOCK_ELEMENTS: the one-block kernel, whatever --threads says. */
static bool one_block(size_t n)
{
    return n <= ONE_BLOCK_ELEMENTS;
}

static unsigned blocks_for(size_t n, const struct shape *shape)
{
    return one_block(n) ? 1 : grid_blocks(n, shape->threads, shape->vectors);
}

/* The one launch: for a small n the one block; otherwise the grid, whose finish (finish_for:
 * the gatherer, past GATHER_MOST_BLOCKS blocks the bins, or the ticket's last block) leaves
 * the total on the device. atomic-add needs the total zeroed first, and that is part
 * of its cost. *launched names the kernel and its finish, for the report. */
static bool reduce(const float *input, size_t n, const struct shape *shape,
                   const struct launch_scratch *s, struct launched *launched)
{
    if (one_block(n))
        return CUDA_OK(reduce_in_one_block(input, (unsigned)n, s->total, 0, launched));
    if (shape->variant == VARIANT_ATOMIC_ADD)
        CUDA_TRY(cudaMemsetAsync(s->total, 0, sizeof(float), 0));
    return CUDA_OK(reduce_in_one_launch(input, n, s->block_sums, s->ticket_counter, s->total,
                                        blocks_for(n, shape), shape->threads, shape->vectors,
                                        shape->variant, shape->loads, 0, launched));
}

/* The report's launch line: which kernel ran, its shape, and why the gather did not finish
 * (the finish line names the one that did). */
static void describe_launch(struct report *report, size_t n, const struct shape *shape)
{
    int finish = finish_for(blocks_for(n, shape), shape->variant);
    if (one_block(n))
        snprintf(report->launch, sizeof report->launch,
                 "1 block x %d threads, %d float4 per thread: the one-block kernel "
                 "(n <= %d); 1 launch",
                 ONE_BLOCK_THREADS, ONE_BLOCK_VECTORS, ONE_BLOCK_ELEMENTS);
    else
        snprintf(report->launch, sizeof report->launch,
                 "%u blocks x %u threads, %d float4 per thread, all in flight at once; 1 launch%s",
                 blocks_for(n, shape), shape->threads, shape->vectors,
                 finish == shape->variant ? "" : " (more blocks than the gatherer reads)");
}

/* The depth of the error bound (the longest chain of additions): at the end of the file. */
static unsigned depth(size_t n, const struct shape *shape);

/* One size: device memory, the data, timed runs (then CUB's on the same copies, and with
 * --ceilings the three ceilings), the check against the host's exact sum, and the report. */
static int measure(const struct options *o, const struct device_info *device, size_t n)
{
    struct shape shape = shape_for(o, device, n, o->threads, o->threads_given);
    struct report report = report_start(&STEP, device, o, n);
    struct input input = {0};
    struct timer timer = {0};
    struct launch_scratch scratch = {0};
    struct ceilings ceilings = {0};
    int status = EXIT_ENVIRONMENT;

    if (!launch_scratch_create(&scratch, blocks_for(n, &shape))) goto done;
    if (o->extra[CEILINGS_OPTION] && !ceilings_create(&ceilings, n, device)) goto done;
    if (!timer_make(&timer, device, o)) goto done;
    if (!input_create(&input, o, n, device)) goto done;
    for (int run = 0; run < o->warmup + o->iters; run++) {
        const float *copy = input.copies[run % input.count];
        if (!launch_scratch_poison(&scratch)) goto done;
        if (!timer_start(&timer)) goto done;
        if (!reduce(copy, n, &shape, &scratch, &report.launched)) goto done;
        if (!timer_stop(&timer, run >= o->warmup)) goto done;
    }
    report.time = timer_summary(&timer);
    if (!total_read(scratch.total, &report.result)) goto done;
    if (o->cub && !cub_time(&input, o, &timer, &report.cub, NULL)) goto done;
    if (ceilings.scratch != NULL && !ceilings_measure(&ceilings, &input, o, &timer)) goto done;

    describe_launch(&report, n, &shape);
    report_judge(&report, &input.reference, depth(n, &shape));
    report_print(&report, o);
    if (ceilings.scratch != NULL) ceilings_print(&ceilings, &report);
    status = report.ok ? EXIT_CORRECT : EXIT_WRONG;
done:
    ceilings_free(&ceilings);
    launch_scratch_free(&scratch);
    timer_free(&timer);
    input_free(&input);
    return status;
}

/* --check: every case of the matrix, through the same launch, both kinds of loads at every n. */
static int check_all(const struct options *o, const struct device_info *device)
{
    struct check *check = check_start(&STEP, o, device);
    struct shape most_blocks = {.threads = STEP.min_threads, .vectors = FEWEST_VECTORS};
    struct launch_scratch scratch = {0};
    struct check_case c;
    bool ran = false;

    if (check == NULL) return EXIT_ENVIRONMENT;
    if (!launch_scratch_create(&scratch, blocks_for(CHECK_LARGEST_N, &most_blocks))) goto done;
    for (unsigned k = 0; check_next(check, &c); k++) {
        struct shape shape = shape_for(o, device, c.n, c.threads, true);
        shape.loads = k % 2 ? CACHED_LOADS : STREAMING_LOADS; /* both kinds at every n */
        struct launched launched;
        float total = 0;
        if (!launch_scratch_poison(&scratch)) goto done;
        if (!reduce(c.input, c.n, &shape, &scratch, &launched)) goto done;
        if (!total_read(scratch.total, &total)) goto done;
        check_record(check, &c, total, depth(c.n, &shape));
    }
    ran = true;
done:
    launch_scratch_free(&scratch);
    return check_finish(check, ran);
}

int main(int argc, char **argv)
{
    struct options options;
    struct device_info device;
    int status = options_parse(argc, argv, &STEP, &options);
    if (status != OPTIONS_RUN) return status;
    if (options.extra[CEILINGS_OPTION] && !ceilings_allowed(&options, STEP.name)) return EXIT_USAGE;
    if (vectors_given(options.extra[VECTORS_OPTION]) < 0) {
        fprintf(stderr,
                "%s: '--vectors %s': %d, %d, %d or auto\n(%s/run --help lists the options)\n",
                STEP.name, options.extra[VECTORS_OPTION], FEWEST_VECTORS, FEW_VECTORS, MANY_VECTORS,
                STEP.name);
        return EXIT_USAGE;
    }
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

enum { WARP_LEVELS = 5, LANE_LEVELS = 2, EDGE_LEVELS = 1 }; /* shuffles; float4 lanes; edges */

/* The longest chain of float additions any element goes through: a thread's float4 in a row,
 * their four lanes, the head and tail floats, its block's shuffles; then the finish's chain. */
static unsigned depth(size_t n, const struct shape *shape)
{
    if (one_block(n)) return ONE_BLOCK_VECTORS + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    unsigned own = shape->vectors + LANE_LEVELS + EDGE_LEVELS + 2 * WARP_LEVELS;
    return own + finish_depth(blocks_for(n, shape), shape->threads, shape->variant);
}
