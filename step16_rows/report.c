/* step16_rows: what a run prints. The launch line names the kernel that ran, its grid, and
 * whether the chooser picked it; the check line says how every row was judged; the time and
 * bandwidth lines are the other steps'; cub and flat are CUB's two sums of the same elements. */
#include "report.h"

static const double BYTES_PER_MIB = 1024.0 * 1024.0, PERCENT = 100.0;
enum { CUDA_MAJOR = 1000, CUDA_MINOR = 10 };

static void describe_launch(char *text, size_t size, const struct rows_run *r)
{
    const struct rows_launch *l = &r->launch;
    char why[96];
    snprintf(why, sizeof why, r->forced ? "forced by --kernel" : "chosen for rows of %zu bytes",
             r->shape.cols * element_bytes(r->type));
    if (l->blocks == 0)
        snprintf(text, size, "%s: no rows, nothing to launch (%s)", kernel_name(l->kernel), why);
    else if (l->kernel == KERNEL_WARP)
        snprintf(text, size,
                 "warp: %zu blocks x %u threads, %u lanes per row, %zu rows per warp, "
                 "%d passes in flight; 1 launch (%s)",
                 l->blocks, l->threads, l->lanes_per_row, rows_per_warp(l->lanes_per_row),
                 WARP_PASSES, why);
    else if (l->kernel == KERNEL_BLOCK)
        snprintf(text, size,
                 "block: %zu blocks x %u threads, a block per row, %d vectors per thread at "
                 "once; 1 launch (%s)",
                 l->blocks, l->threads, BLOCK_VECTORS_PER_THREAD, why);
    else
        snprintf(text, size,
                 "split: %zu blocks x %u threads, %zu per row (64 KiB each), the row's last "
                 "block gathers its sums in index order; 1 launch (%s)",
                 l->blocks, l->threads, l->blocks_per_row, why);
}

/* The matrix read and the row sums written, per second. */
static double gb_per_s(const struct rows_run *r, double milliseconds)
{
    double bytes = (double)r->shape.rows * r->shape.cols * element_bytes(r->type) +
                   (double)r->shape.rows * sizeof(float);
    return effective_gb_per_s(bytes, milliseconds);
}

static double ratio(const struct timing *other, const struct timing *ours)
{
    return other->runs > 0 && ours->median_ms > 0 ? other->median_ms / ours->median_ms : 0;
}

static void print_check(const struct rows_run *r)
{
    const struct rows_verdict *v = &r->verdict;
    if (v->wrong > 0)
        printf("check      %zu of %zu rows WRONG; the first, row %zu: got %.9g, expected %.17g\n",
               v->wrong, v->rows, v->first_wrong, v->got, v->expected);
    else if (v->all_exact)
        printf("check      every row exact (integer data, no row sum above 2^24): %zu rows "
               "-> CORRECT\n",
               v->rows);
    else
        printf("check      %zu rows within their bounds (depth %u, docs/verification.md); the "
               "largest |error| %.9g (bound %.9g) -> CORRECT\n",
               v->rows, r->depth, v->worst_error, v->bound_of_worst);
}

static void print_human(const struct step_info *s, const struct options *o,
                        const struct device_info *d, const struct rows_run *r, const char *pattern)
{
    size_t bytes = r->shape.rows * r->shape.cols * element_bytes(r->type);
    char launch[320];
    describe_launch(launch, sizeof launch, r);
    printf("%s: %s\n", s->name, s->title);
    printf("device     %s, %d SMs, sm_%d%d, peak %.0f GB/s, CUDA %d.%d\n", d->name, d->sm_count,
           d->cc_major, d->cc_minor, d->peak_gb_per_s, d->runtime_version / CUDA_MAJOR,
           d->runtime_version % CUDA_MAJOR / CUDA_MINOR);
    printf("input      %zu x %zu %s (%.1f MiB), pattern %s\nlaunch     %s\n", r->shape.rows,
           r->shape.cols, element_name(r->type), bytes / BYTES_PER_MIB, pattern, launch);
    print_check(r);
    printf("time       %.4f ms median, %.4f .. %.4f ms over %d runs, the L2 emptied by %sing "
           "before each\n",
           r->time.median_ms, r->time.min_ms, r->time.max_ms, r->time.runs,
           o->flush == FLUSH_WRITE ? "writ" : "read");
    printf("bandwidth  %.1f GB/s effective (the matrix read, the row sums written) = %.1f%% of "
           "peak\n",
           gb_per_s(r, r->time.median_ms),
           PERCENT * gb_per_s(r, r->time.median_ms) / d->peak_gb_per_s);
    if (r->cub.runs > 0)
        printf("cub        %.4f ms median for cub::DeviceSegmentedReduce on the same copies: "
               "this step runs at %.2fx its speed\n",
               r->cub.median_ms, ratio(&r->cub, &r->time));
    if (r->flat.runs > 0)
        printf("flat       %.4f ms median for cub::DeviceReduce::Sum of the same elements as one "
               "array: %.2fx (one sum, not %zu)\n",
               r->flat.median_ms, ratio(&r->flat, &r->time), r->shape.rows);
}

void rows_csv_header(void)
{
    puts("step,kernel,type,rows,cols,pattern,flush,rows_wrong,ms_median,ms_min,gb_per_s,"
         "peak_pct,cub_ms_median,ratio_to_cub,flat_cub_ms_median,ratio_to_flat_cub,device,cuda");
}

void rows_report(const struct step_info *s, const struct options *o, const struct device_info *d,
                 const struct rows_run *r)
{
    char pattern[48];
    double speed = gb_per_s(r, r->time.median_ms);
    pattern_name(&o->pattern, pattern, sizeof pattern);
    if (o->csv)
        printf("%s,%s,%s,%zu,%zu,%s,%s,%zu,%.6f,%.6f,%.2f,%.2f,%.6f,%.4f,%.6f,%.4f,%s,%d.%d\n",
               s->name, kernel_name(r->launch.kernel), element_name(r->type), r->shape.rows,
               r->shape.cols, pattern, o->flush == FLUSH_WRITE ? "write" : "read", r->verdict.wrong,
               r->time.median_ms, r->time.min_ms, speed, PERCENT * speed / d->peak_gb_per_s,
               r->cub.median_ms, ratio(&r->cub, &r->time), r->flat.median_ms,
               ratio(&r->flat, &r->time), d->name, d->runtime_version / CUDA_MAJOR,
               d->runtime_version % CUDA_MAJOR / CUDA_MINOR);
    else if (o->quiet)
        printf("%s %s %s rows=%zu cols=%zu pattern=%s %s\n", s->name, kernel_name(r->launch.kernel),
               element_name(r->type), r->shape.rows, r->shape.cols, pattern,
               r->verdict.wrong ? "WRONG" : "CORRECT");
    else
        print_human(s, o, d, r, pattern);
}
