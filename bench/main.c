/* make bench: every step of the ladder and cub::DeviceReduce::Sum, in one process, on the
 * same data, checked and then timed the same way; a CSV for make charts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "cli.h"
#include "cuda_check.h"
#include "device.h"
#include "options.h"
#include "pattern.h"
#include "points.h"
#include "registry.h"
#include "results.h"

static const char PROGRAM[] = "bench";

/* The host data of the largest size; every smaller size uses its first n elements, which
 * are exactly what pattern_fill would give for that n. Pinned, so uploads run at full
 * PCIe speed; plain memory where pinning fails. */
struct host_data {
    float *values;
    size_t n;
    bool pinned;
};

static bool host_data_create(struct host_data *data, size_t n)
{
    data->n = n;
    data->pinned = cudaMallocHost((void **)&data->values, n * sizeof(float)) == cudaSuccess;
    if (!data->pinned) {
        cudaGetLastError(); /* a failed pinning is not an error: clear it */
        data->values = malloc(n * sizeof(float));
    }
    if (data->values == NULL) {
        fprintf(stderr, "%s: not enough host memory for %zu floats\n", PROGRAM, n);
        return false;
    }
    struct pattern uniform = {.kind = PATTERN_UNIFORM};
    pattern_fill(data->values, n, &uniform, DEFAULT_SEED);
    return true;
}

static void host_data_destroy(struct host_data *data)
{
    if (data->pinned) CUDA_OK(cudaFreeHost(data->values));
    else free(data->values);
    data->values = NULL;
}

static void list_registry(FILE *out)
{
    for (int i = 0; i < all_steps_count; i++) {
        const struct step *step = all_steps[i];
        const char *flow = step->run == NULL ? "ladder" : "own-flow";
        if (step->variants == NULL) fprintf(out, "%s - correct %s\n", step->name, flow);
        for (const struct variant *v = step->variants; v != NULL && v->name != NULL; v++)
            fprintf(out, "%s %s %s %s\n", step->name, v->name,
                    v->correct ? "correct" : "incorrect", flow);
    }
}

struct progress {
    int done, total, width;
};

static int decimal_digits(int value)
{
    int digits = 1;
    for (; value >= 10; value /= 10) digits++;
    return digits;
}

static void progress_start(struct progress *progress, const char *name, int log2_n)
{
    progress->done++;
    fprintf(stderr, "[%*d/%d] %-7s n=2^%-2d ...", progress->width, progress->done,
            progress->total, name, log2_n);
}

static void print_timed(const struct row *row)
{
    fprintf(stderr, " %10.4f ms %8.1f GB/s %5.1f%% of peak", row->timing.median_ms,
            row->gb_per_s, row->peak_pct);
    if (row->ratio_to_cub > 0) fprintf(stderr, "  x%.2f CUB", row->ratio_to_cub);
    fprintf(stderr, "  (%d runs)\n", row->timing.runs);
}

/* Adds a timed point to the results, finishes its progress line; returns its exit code. */
static int record(struct results *results, const char *name, size_t n,
                  enum point_status status, const struct point *point, double cub_median_ms)
{
    switch (status) {
    case POINT_TIMED:
        results_add(results, name, n, point->timing, cub_median_ms);
        print_timed(&results->rows[results->count - 1]);
        return EXIT_CORRECT;
    case POINT_WRONG:
        fprintf(stderr, " WRONG: result %.9g, expected %.17g, allowed error %.9g\n",
                point->result, point->expected, point->bound);
        return EXIT_WRONG;
    case POINT_SKIPPED:
        fprintf(stderr, " skipped: needs %.0f MiB of device memory, %.0f MiB free\n",
                point->needed_mib, point->free_mib);
        return EXIT_CORRECT;
    case POINT_FAILED:
    default:
        fprintf(stderr, " failed: CUDA error (above); stopping\n");
        return EXIT_ENVIRONMENT;
    }
}

static int worse(int a, int b) { return a > b ? a : b; }

/* What the input copies leave free for one point: an in-place step's working input and
 * pristine copy, with room for CUB's temporary storage and the CUDA context's own needs. */
static size_t room_for_a_point(size_t n)
{
    static const size_t CONTEXT_MARGIN = (size_t)512 << 20;
    return 2 * n * sizeof(float) + CONTEXT_MARGIN;
}

static int record_all_skipped(const struct bench_options *options, size_t n,
                              struct results *results, struct progress *progress, int log2_n)
{
    struct point point = {0};
    size_t free_bytes = 0, total_bytes = 0;
    if (!CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes))) return EXIT_ENVIRONMENT;
    point.needed_mib = (double)(n * sizeof(float) + room_for_a_point(n)) / (1 << 20);
    point.free_mib = (double)free_bytes / (1 << 20);
    progress_start(progress, CUB_ROW_NAME, log2_n);
    record(results, CUB_ROW_NAME, n, POINT_SKIPPED, &point, 0);
    for (int s = 0; s < options->step_count; s++) {
        progress_start(progress, options->steps[s]->name, log2_n);
        record(results, options->steps[s]->name, n, POINT_SKIPPED, &point, 0);
    }
    return EXIT_CORRECT;
}

/* CUB first, so that every step's row can carry its ratio to CUB. */
static int run_points(struct dataset *data, int log2_n, const struct bench_options *options,
                      struct bench_context *context, struct results *results,
                      struct progress *progress)
{
    struct point point;
    progress_start(progress, CUB_ROW_NAME, log2_n);
    enum point_status status = measure_cub(data, context, &point);
    double cub_median_ms = status == POINT_TIMED ? point.timing.median_ms : 0;
    int worst = record(results, CUB_ROW_NAME, data->n, status, &point, cub_median_ms);
    for (int s = 0; s < options->step_count && worst != EXIT_ENVIRONMENT; s++) {
        const struct step *step = options->steps[s];
        progress_start(progress, step->name, log2_n);
        status = measure_step(step, data, context, &point);
        worst = worse(worst, record(results, step->name, data->n, status, &point, cub_median_ms));
    }
    return worst;
}

static int run_size(int log2_n, const struct host_data *host, const struct bench_options *options,
                    struct bench_context *context, struct results *results,
                    struct progress *progress)
{
    struct input_copies inputs;
    struct dataset data = {.inputs = &inputs, .n = (size_t)1 << log2_n};
    data.reference = reference_compute(host->values, data.n);
    context->ladder = log2_n == LADDER_LOG2;
    int worst = EXIT_ENVIRONMENT;
    if (input_copies_create(&inputs, host->values, data.n, room_for_a_point(data.n)))
        worst = inputs.count > 0 ? run_points(&data, log2_n, options, context, results, progress)
                                 : record_all_skipped(options, data.n, results, progress, log2_n);
    input_copies_destroy(&inputs);
    return worst;
}

static int run_sizes(const struct bench_options *options, const struct host_data *host,
                     struct bench_context *context, struct results *results)
{
    int sizes = options->max_log2 - options->min_log2 + 1;
    struct progress progress = {0, sizes * (options->step_count + 1), 0};
    progress.width = decimal_digits(progress.total);
    int worst = EXIT_CORRECT;
    for (int k = options->min_log2; k <= options->max_log2 && worst != EXIT_ENVIRONMENT; k++)
        worst = worse(worst, run_size(k, host, options, context, results, &progress));
    return worst;
}

static void print_summary(const struct bench_options *options, const struct results *results,
                          const char *path)
{
    int log2_n = options->min_log2 <= LADDER_LOG2 && LADDER_LOG2 <= options->max_log2
                     ? LADDER_LOG2
                     : options->max_log2;
    const struct device_info *device = results->device;
    printf("n = 2^%d, %s (peak %.0f GB/s, L2 %zu MiB, flushed before every run), CUDA %s\n",
           log2_n, device->name, device->peak_gb_per_s, device->l2_bytes >> 20,
           results->cuda_version);
    results_print_table(stdout, results, (size_t)1 << log2_n);
    printf("wrote %s (%d rows); draw it with: make charts BENCH_CSV=%s (needs gnuplot)\n", path,
           results->count, path);
}

/* Everything that needs the device: data, flusher, points, CSV. */
static int benchmark(const struct bench_options *options, const struct device_info *device)
{
    struct host_data host = {0};
    struct l2_flusher flusher = {0};
    struct cub_storage cub = {0};
    struct results results = {0};
    int sizes = options->max_log2 - options->min_log2 + 1;
    char path[4096];
    if (options->output != NULL) snprintf(path, sizeof path, "%s", options->output);
    else default_output_path(device->name, options->subset, path, sizeof path);
    int status = EXIT_ENVIRONMENT;
    fprintf(stderr, "%s: %s, %d SMs, peak %.0f GB/s, L2 %zu MiB; %d steps and CUB at n = 2^%d"
            " ... 2^%d; filling 2^%d floats on the host first\n", PROGRAM, device->name,
            device->sm_count, device->peak_gb_per_s, device->l2_bytes >> 20, options->step_count,
            options->min_log2, options->max_log2, options->max_log2);
    if (host_data_create(&host, (size_t)1 << options->max_log2) &&
        l2_flusher_create(&flusher, device->l2_bytes) &&
        results_create(&results, sizes * (options->step_count + 1), device)) {
        struct bench_context context = {device, &flusher, &cub, options->max_samples, false};
        status = run_sizes(options, &host, &context, &results);
    }
    if (status != EXIT_ENVIRONMENT && !results_write_csv(&results, path))
        status = EXIT_ENVIRONMENT;
    if (status != EXIT_ENVIRONMENT) print_summary(options, &results, path);
    cub_storage_release(&cub);
    l2_flusher_destroy(&flusher);
    if (host.values != NULL) host_data_destroy(&host);
    results_destroy(&results);
    return status;
}

int main(int argc, char **argv)
{
    struct bench_options options;
    char error[512];
    int status = bench_parse(argc, argv, &options, error, sizeof error);
    if (status != EXIT_CORRECT) {
        fprintf(stderr, "%s: %s\n(bench/run --help lists the options)\n", PROGRAM, error);
    } else if (options.help) {
        bench_usage(stdout);
    } else if (options.list) {
        list_registry(stdout);
    } else {
        struct device_info device;
        if (!device_query(&device, error, sizeof error)) {
            fprintf(stderr, "%s: %s\n", PROGRAM, error);
            status = EXIT_ENVIRONMENT;
        } else {
            status = benchmark(&options, &device);
        }
    }
    bench_options_free(&options);
    if (status == EXIT_WRONG) fprintf(stderr, "%s: some results were WRONG (see above)\n", PROGRAM);
    return status;
}
