#include <math.h>
#include <string.h>

#include "toolbox.h"

static const double BYTES_PER_MIB = 1024.0 * 1024.0, PERCENT = 100.0;
enum { CUDA_MAJOR = 1000, CUDA_MINOR = 10 };

struct report report_start(const struct step_info *step, const struct device_info *device,
                           const struct options *options, size_t n)
{
    struct report report = {.step = step, .device = device, .n = n};
    report.variant = step->variants != NULL ? step->variants[options->variant].name : NULL;
    pattern_name(&options->pattern, report.pattern, sizeof report.pattern);
    return report;
}

void report_judge(struct report *report, const struct reference *reference, unsigned depth)
{
    report->reference = *reference;
    report->depth = depth;
    report->bound = error_bound(reference, depth);
    report->ok = result_within(report->result, reference, report->bound);
}

static double gb_per_s(const struct report *r)
{
    return effective_gb_per_s(r->n * sizeof(float), r->time.median_ms);
}
static double percent(const struct report *r)
{
    return PERCENT * gb_per_s(r) / r->device->peak_gb_per_s;
}
static double ratio_to_cub(const struct report *r)
{
    return r->cub.runs ? r->cub.median_ms / r->time.median_ms : 0;
}
static const char *verdict(const struct report *r)
{
    return r->ok ? "CORRECT" : "WRONG";
}

const char *recorded_or_dash(const char *what)
{
    return what != NULL ? what : "-";
}

static const char *flush_name(enum flush flush)
{
    return flush == FLUSH_WRITE ? "write" : "read";
}

static void print_human(const struct report *r, enum flush flush)
{
    const struct device_info *d = r->device;
    double error = fabs((double)r->result - r->reference.sum);
    printf("%s: %s\n", r->step->name, r->step->title);
    if (r->variant != NULL) printf("variant    %s\n", r->variant);
    printf("device     %s, %d SMs, sm_%d%d, peak %.0f GB/s, CUDA %d.%d\n", d->name, d->sm_count,
           d->cc_major, d->cc_minor, d->peak_gb_per_s, d->runtime_version / CUDA_MAJOR,
           d->runtime_version % CUDA_MAJOR / CUDA_MINOR);
    printf("input      n = %zu (%.1f MiB), pattern %s\nlaunch     %s\n", r->n,
           r->n * sizeof(float) / BYTES_PER_MIB, r->pattern, r->launch);
    printf("kernel     %s\nfinish     %s\n", recorded_or_dash(r->launched.kernel),
           recorded_or_dash(r->launched.finish));
    printf("result     %.9g   expected %.17g\n", r->result, r->reference.sum);
    if (r->bound == 0)
        printf("check      exact (integer data, no partial sum above 2^24): error %.9g -> %s\n",
               error, verdict(r));
    else if (!bound_judges(&r->reference, r->bound))
        printf(
            "check      |error| %.9g, but no bound exists: the bound %.9g (depth %u) is at least "
            "sum|x| = %.9g and would pass 0: the result cannot be judged -> %s\n",
            error, r->bound, r->depth, r->reference.abs_sum, verdict(r));
    else
        printf("check      |error| %.9g %s bound %.9g (depth %u, docs/verification.md) -> %s\n",
               error, r->ok ? "<=" : ">", r->bound, r->depth, verdict(r));
    printf("time       %.4f ms median, %.4f .. %.4f ms over %d runs, the L2 emptied by %s "
           "before each\n",
           r->time.median_ms, r->time.min_ms, r->time.max_ms, r->time.runs,
           flush == FLUSH_WRITE ? "writing" : "reading");
    printf("bandwidth  %.1f GB/s effective = %.1f%% of peak\n", gb_per_s(r), percent(r));
    if (r->cub.runs > 0)
        printf("cub        %.4f ms median for cub::DeviceReduce::Sum on the same copies: this step "
               "runs at %.2fx "
               "its speed\n",
               r->cub.median_ms, ratio_to_cub(r));
}

void report_csv_header(void)
{
    puts("step,variant,n,pattern,flush,result,expected,error,bound,ok,ms_median,ms_min,gb_per_s,"
         "peak_pct,cub_ms_median,ratio_to_cub,kernel,finish,device,cuda");
}

void report_print(const struct report *r, const struct options *options)
{
    int major = r->device->runtime_version / CUDA_MAJOR,
        minor = r->device->runtime_version % CUDA_MAJOR / CUDA_MINOR;
    if (options->csv)
        printf("%s,%s,%zu,%s,%s,%.9g,%.17g,%.9g,%.9g,%d,%.6f,%.6f,%.2f,%.2f,%.6f,%.4f,\"%s\",%s,%s,"
               "%d.%d\n",
               r->step->name, r->variant ? r->variant : "-", r->n, r->pattern,
               flush_name(options->flush), r->result, r->reference.sum,
               (double)r->result - r->reference.sum, r->bound, r->ok, r->time.median_ms,
               r->time.min_ms, gb_per_s(r), percent(r), r->cub.median_ms, ratio_to_cub(r),
               recorded_or_dash(r->launched.kernel), recorded_or_dash(r->launched.finish),
               r->device->name, major, minor);
    else if (options->quiet)
        printf("%s %s n=%zu pattern=%s result=%.9g expected=%.17g %s\n", r->step->name,
               r->variant ? r->variant : "-", r->n, r->pattern, r->result, r->reference.sum,
               verdict(r));
    else
        print_human(r, options->flush);
}
