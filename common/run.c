#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"
#include "passes.h"
#include "report.h"
#include "timing.h"
#include "verify.h"

static const double BYTES_PER_MIB = 1024.0 * 1024.0;
enum { CLOCK_STAMPS_PER_BLOCK = 2, SWEEP_FIRST_BLOCKS = 32, SWEEP_LAST_BLOCKS = 8192 };

struct launch_request launch_request_for(const struct step *step, const struct options *options,
                                         const struct device_info *device)
{
    struct launch_request request = {0};
    request.threads = options->threads ? options->threads : step->threads.fallback;
    request.blocks = options->blocks;
    request.variant = options->variant;
    request.sm_count = device->sm_count;
    int by_threads = device->max_threads_per_sm / (int)request.threads;
    request.max_blocks_per_sm =
        by_threads < device->max_blocks_per_sm ? by_threads : device->max_blocks_per_sm;
    return request;
}

bool device_memory_fits(const struct device_info *device, size_t needed_bytes)
{
    if (needed_bytes <= device->free_bytes) return true;
    fprintf(stderr, "not enough device memory: need %.1f MiB, %.1f MiB free of %.1f MiB on %s\n",
            needed_bytes / BYTES_PER_MIB, device->free_bytes / BYTES_PER_MIB,
            device->total_bytes / BYTES_PER_MIB, device->name);
    return false;
}

/* Document 004's in-kernel timing: from the earliest block start to the latest block end.
 * Each SM has its own clock and they are not synchronised, so the span can be far off (on
 * the H100: 22.8 million cycles for a 0.054 ms kernel); docs/measuring.md says more. */
static bool print_block_clocks(const struct reduction_buffers *buffers, unsigned blocks)
{
    size_t count = (size_t)CLOCK_STAMPS_PER_BLOCK * blocks;
    long long *stamps = malloc(count * sizeof *stamps);
    if (stamps == NULL) return false;
    bool ok = CUDA_OK(cudaMemcpy(stamps, buffers->block_clocks, count * sizeof *stamps,
                                 cudaMemcpyDeviceToHost));
    if (ok) {
        long long first_start = stamps[0], last_end = stamps[1];
        for (unsigned b = 1; b < blocks; b++) {
            if (stamps[2 * b] < first_start) first_start = stamps[2 * b];
            if (stamps[2 * b + 1] > last_end) last_end = stamps[2 * b + 1];
        }
        printf("clock64    %lld cycles from the earliest block start to the latest block end "
               "(first launch, last run)\n", last_end - first_start);
    }
    free(stamps);
    return ok;
}

struct prepared {
    float *host;
    struct reference reference;
    struct reduction_buffers buffers;
};

static int prepare(const struct step *step, const struct options *options,
                   const struct device_info *device, const struct launch_request *request,
                   struct prepared *prepared)
{
    size_t needed = reduction_device_bytes(step, options->n, request, options->clock);
    if (!device_memory_fits(device, needed)) return EXIT_ENVIRONMENT;
    prepared->host = malloc(options->n > 0 ? options->n * sizeof(float) : sizeof(float));
    if (prepared->host == NULL) {
        fprintf(stderr, "not enough host memory for %zu floats\n", options->n);
        return EXIT_ENVIRONMENT;
    }
    pattern_fill(prepared->host, options->n, &options->pattern, options->seed);
    prepared->reference = reference_compute(prepared->host, options->n);
    if (!reduction_buffers_create(&prepared->buffers, step, options->n, request, options->clock) ||
        !reduction_upload(&prepared->buffers, prepared->host, options->n))
        return EXIT_ENVIRONMENT;
    return EXIT_CORRECT;
}

static void release(struct prepared *prepared)
{
    reduction_buffers_destroy(&prepared->buffers);
    free(prepared->host);
}

static int measure(const struct step *step, const struct options *options,
                   const struct device_info *device, const struct launch_request *request,
                   const struct prepared *prepared, struct report *report)
{
    double *samples = malloc((size_t)options->iters * sizeof *samples);
    struct reduction_outcome outcome;
    if (samples == NULL) return EXIT_ENVIRONMENT;
    bool ran = time_reduction(step, &prepared->buffers, options->n, request, options->finish,
                              options->warmup, options->iters, samples, &outcome) &&
               reduction_total(&outcome, &report->result);
    if (ran) report->timing = timing_summarize(samples, options->iters);
    free(samples);
    if (!ran) return EXIT_ENVIRONMENT;
    report->step = step;
    report->device = device;
    report->n = options->n;
    pattern_describe(&options->pattern, report->pattern, sizeof report->pattern);
    report->variant = step->variants ? step->variants[options->variant].name : NULL;
    report->plan = outcome.first_plan;
    report->passes = outcome.passes;
    report->finish = options->finish;
    report->expected = prepared->reference.sum;
    report->bound = error_bound(&prepared->reference,
                                reduction_depth(step, options->n, request, options->finish));
    report->ok = result_within(report->result, &prepared->reference, report->bound);
    if (step->variants && !step->variants[options->variant].correct && report->ok)
        fprintf(stderr, "note: variant '%s' is racy; this run happened to give the right sum\n",
                report->variant);
    report->bytes_read = (double)options->n * sizeof(float);
    report_derive_bandwidth(report);
    return report->ok ? EXIT_CORRECT : EXIT_WRONG;
}

static void print_report(const struct options *options, const struct report *report)
{
    if (options->csv) {
        report_csv_header(stdout);
        report_csv_row(stdout, report);
    } else if (options->quiet) {
        report_verdict(stdout, report);
    } else {
        report_human(stdout, report);
    }
}

static int run_once(const struct step *step, const struct options *options,
                    const struct device_info *device, const struct launch_request *request)
{
    struct prepared prepared = {0};
    struct report report = {0};
    int status = prepare(step, options, device, request, &prepared);
    if (status == EXIT_CORRECT) status = measure(step, options, device, request, &prepared, &report);
    if (status == EXIT_CORRECT || status == EXIT_WRONG) {
        print_report(options, &report);
        if (options->clock && !print_block_clocks(&prepared.buffers, report.plan.blocks))
            status = EXIT_ENVIRONMENT;
    }
    release(&prepared);
    return status;
}

/* --sweep-blocks: the same reduction at each grid size, one line each. */
static int sweep_blocks(const struct step *step, const struct options *options,
                        const struct device_info *device)
{
    int worst = EXIT_CORRECT;
    printf("%8s %10s %10s %8s %s\n", "blocks", "ms", "GB/s", "%peak", "check");
    for (unsigned blocks = SWEEP_FIRST_BLOCKS; blocks <= SWEEP_LAST_BLOCKS; blocks *= 2) {
        struct options one = *options;
        one.blocks = blocks;
        struct launch_request request = launch_request_for(step, &one, device);
        struct prepared prepared = {0};
        struct report report = {0};
        int status = prepare(step, &one, device, &request, &prepared);
        if (status == EXIT_CORRECT)
            status = measure(step, &one, device, &request, &prepared, &report);
        release(&prepared);
        if (status == EXIT_ENVIRONMENT) return status;
        if (status > worst) worst = status;
        /* The step may launch fewer blocks than asked (a minimum of work per thread). */
        printf("%8u %10.4f %10.1f %8.1f %s\n", report.plan.blocks, report.timing.median_ms,
               report.gb_per_s,
               report.peak_pct, report.ok ? "ok" : "WRONG");
    }
    return worst;
}

int run_step(const struct step *step, int argc, char **argv)
{
    struct options options;
    char error[512];
    if (cli_parse(argc, argv, step, &options, error, sizeof error) != EXIT_CORRECT) {
        fprintf(stderr, "%s: %s\n\n", step->name, error);
        cli_usage(stderr, step);
        return EXIT_USAGE;
    }
    if (options.help) {
        cli_usage(stdout, step);
        return EXIT_CORRECT;
    }
    struct device_info device;
    if (!device_query(&device, error, sizeof error)) {
        fprintf(stderr, "%s: %s\n", step->name, error);
        return EXIT_ENVIRONMENT;
    }
    if (step->run != NULL) return step->run(&options, &device);
    if (options.sweep_blocks) return sweep_blocks(step, &options, &device);
    struct launch_request request = launch_request_for(step, &options, &device);
    return run_once(step, &options, &device, &request);
}
