/* step02_divergence: the program.
 * It reads top to bottom like the documents' main(): the options, the data, device memory,
 * the launches and the finish, the check, the time, the report; the error bound's depth comes
 * last. The kernel is in reduce.cu; common/toolbox.h says what each helper does. A call that
 * fails has said why: the program frees what it holds and exits 3. */
#include "reduce.h"
#include "toolbox.h"

enum { ELEMENTS_PER_THREAD = 1 }; /* each thread loads one element */

static const struct step_info STEP = {
    .name = "step02",
    .title = "Reduction 2: whole warps busy or idle (the strided index)",
    .min_threads = 32,
    .max_threads = 1024,
    .default_threads = 256,
    .host_finish = true,
};

/* The longest chain of float additions any element goes through, which the check's error
 * bound needs: worked out at the end of this file. */
static unsigned depth(size_t n, unsigned threads, enum finish finish);

/* One block per threads * ELEMENTS_PER_THREAD elements. */
static unsigned blocks_for(size_t n, unsigned threads)
{
    return blocks_to_cover(n, (size_t)threads * ELEMENTS_PER_THREAD);
}

/* Launches, each over the block sums of the one before, until one value is left. */
static unsigned passes(size_t n, unsigned threads, enum finish finish)
{
    unsigned count = 1;
    while (finish == FINISH_GPU && (n = blocks_for(n, threads)) > 1) count++;
    return count;
}

/* Device memory beside the input: room for the first pass's block sums, then the second's;
 * later passes alternate between the two. */
static size_t block_sums_bytes(size_t n, unsigned threads)
{
    size_t first = blocks_for(n, threads);
    return (first + blocks_for(first, threads)) * sizeof(float);
}

/* The launches, and the finish: more launches leave the total in *device_total; the host
 * finish (documents 001 and 004) adds the block sums into *host_total.
 * *launched names the kernel and the finish, for the report. */
static bool reduce(const float *input, size_t n, unsigned threads, enum finish finish,
                   float *block_sums, const float **device_total, float *host_total,
                   struct launched *launched)
{
    float *half[2] = {block_sums, block_sums + blocks_for(n, threads)};
    const float *in = input;
    int which = 0;
    do {
        unsigned blocks = blocks_for(n, threads);
        CUDA_TRY(reduce_blocks(in, n, half[which], blocks, threads, launched));
        in = half[which];
        which = 1 - which;
        n = blocks;
    } while (finish == FINISH_GPU && n > 1);
    *device_total = finish == FINISH_GPU ? in : NULL;
    launched->finish = finish == FINISH_GPU ? FINISH_BY_LAUNCHES : FINISH_ON_HOST;
    return finish == FINISH_GPU || sum_on_host(in, n, host_total);
}

/* One size: device memory, the data, timed runs (then CUB's on the same copies), the check
 * against the host's exact sum, and the report. */
static int measure(const struct options *o, const struct device_info *device, size_t n)
{
    struct report report = report_start(&STEP, device, o, n);
    struct input input = {0};
    struct timer timer = {0};
    float *block_sums = NULL;
    const float *device_total = NULL;
    int status = EXIT_ENVIRONMENT;

    if (!CUDA_OK(cudaMalloc((void **)&block_sums, block_sums_bytes(n, o->threads)))) goto done;
    if (!timer_make(&timer, device, o)) goto done;
    if (!input_create(&input, o, n, device)) goto done;
    for (int run = 0; run < o->warmup + o->iters; run++) {
        const float *copy = input.copies[run % input.count];
        if (!outputs_poison(block_sums, block_sums_bytes(n, o->threads))) goto done;
        if (!timer_start(&timer)) goto done;
        if (!reduce(copy, n, o->threads, o->finish, block_sums, &device_total, &report.result,
                    &report.launched))
            goto done;
        if (!timer_stop(&timer, run >= o->warmup)) goto done;
    }
    report.time = timer_summary(&timer);
    if (!total_read(device_total, &report.result)) goto done;
    if (o->cub && !cub_time(&input, o, &timer, &report.cub, NULL)) goto done;

    snprintf(report.launch, sizeof report.launch,
             "%u blocks x %u threads, %d element(s) per thread; %u launch(es), %s finish",
             blocks_for(n, o->threads), o->threads, ELEMENTS_PER_THREAD,
             passes(n, o->threads, o->finish), o->finish == FINISH_CPU ? "host" : "GPU");
    report_judge(&report, &input.reference, depth(n, o->threads, o->finish));
    report_print(&report, o);
    status = report.ok ? EXIT_CORRECT : EXIT_WRONG;
done:
    CUDA_OK(cudaFree(block_sums));
    timer_free(&timer);
    input_free(&input);
    return status;
}

/* --check: every case of the matrix, through the same launches. */
static int check_all(const struct options *o, const struct device_info *device)
{
    struct check *check = check_start(&STEP, o, device);
    float *block_sums = NULL;
    struct check_case c;
    bool ran = false;

    if (check == NULL) return EXIT_ENVIRONMENT;
    size_t bytes = block_sums_bytes(CHECK_LARGEST_N, STEP.min_threads);
    if (!CUDA_OK(cudaMalloc((void **)&block_sums, bytes))) goto done;
    while (check_next(check, &c)) {
        const float *device_total = NULL;
        struct launched launched;
        float total = 0;
        if (!outputs_poison(block_sums, block_sums_bytes(c.n, c.threads))) goto done;
        if (!reduce(c.input, c.n, c.threads, c.finish, block_sums, &device_total, &total,
                    &launched))
            goto done;
        if (!total_read(device_total, &total)) goto done;
        check_record(check, &c, total, depth(c.n, c.threads, c.finish));
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

/* Per launch, the element a thread takes, then the block's tree; the host finish adds two
 * (its double sum, then the rounding to float). */
static unsigned depth(size_t n, unsigned threads, enum finish finish)
{
    unsigned per_pass = ELEMENTS_PER_THREAD + tree_levels(threads);
    unsigned host = finish == FINISH_CPU ? HOST_FINISH_DEPTH : 0;
    return passes(n, threads, finish) * per_pass + host;
}
