/* step16_rows: what a run prints. The launch line names the kernel that ran, its grid, and
 * whether the chooser picked it; the check line says how every row was judged; the time and
 * bandwidth lines are the other steps'; cub and flat are CUB's two sums of the same elements. */
#include "report.h"

static const double BYTES_PER_MIB = 1024.0 * 1024.0, PERCENT = 100.0;
static const char SEGMENTED_NAME[] = "cub::DeviceSegmentedReduce",
                  FLAT_NAME[] = "cub::DeviceReduce::Sum";
enum { CUDA_MAJOR = 1000, CUDA_MINOR = 10 };

/* Whether the warp kernel ran without heads and tails (reduce.cu's launch_shape): the copies
 * come from cudaMalloc, on a 256-byte boundary at least (CUDA C++ Programming Guide, "Device
 * Memory Accesses"), so every row starts on a vector's when cols is whole vectors. */
static bool warp_without_edges(const struct rows_run *r)
{
    return r->shape.cols % elements_per_vector(r->type) == 0 &&
           WARP_DROPS_EDGES(element_bytes(r->type), r->launch.vectors_per_lane);
}

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
                 "warp: %zu blocks x %u threads, %u lanes per row, %zu rows per warp; a lane "
                 "loads %u x %d bytes of each of its %u rows at once%s; 1 launch (%s)",
                 l->blocks, l->threads, l->lanes_per_row,
                 rows_per_warp(l->lanes_per_row, l->vectors_per_lane), l->vectors_per_lane,
                 VECTOR_BYTES, WARP_LOADS_PER_LANE / l->vectors_per_lane,
                 warp_without_edges(r) ? "; every row whole vectors: no head or tail" : "", why);
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

static bool cub_correct(const struct timing *time, const struct rows_verdict *verdict)
{
    return time->runs == 0 || verdict_correct(verdict);
}

bool rows_run_correct(const struct rows_run *r)
{
    return verdict_correct(&r->verdict) && cub_correct(&r->cub, &r->cub_verdict) &&
           cub_correct(&r->flat, &r->flat_verdict);
}

/* The run's one word: the step's verdict first, then CUB's. */
static const char *verdict_word(const struct rows_run *r)
{
    if (r->verdict.wrong > 0) return "WRONG";
    if (r->verdict.unjudged > 0) return "CANNOT-BE-JUDGED";
    if (r->cub_verdict.wrong > 0 || r->flat_verdict.wrong > 0) return "CUB-WRONG";
    return rows_run_correct(r) ? "CORRECT" : "CUB-CANNOT-BE-JUDGED";
}

static void print_check(const struct rows_run *r)
{
    const struct rows_verdict *v = &r->verdict;
    char text[320];
    verdict_describe(v, text, sizeof text);
    if (v->wrong > 0)
        printf("check      %s -> WRONG\n", text);
    else if (v->unjudged > 0)
        printf("check      %s (depth %u) -> CANNOT BE JUDGED\n", text, r->depth);
    else if (v->all_exact)
        printf("check      every row exact (integer data, no row sum above 2^24): %zu rows "
               "-> CORRECT\n",
               v->rows);
    else
        printf("check      %zu rows within their bounds (depth %u, docs/verification.md); the "
               "largest |error| %.9g (bound %.9g) -> CORRECT\n",
               v->rows, r->depth, v->worst_error, v->bound_of_worst);
}

/* CUB's line when its sums are not right: what is wrong with them, and no time. */
static bool print_cub_failure(const char *label, const char *name, const struct timing *cub,
                              const struct rows_verdict *verdict)
{
    char text[320];
    if (cub_correct(cub, verdict)) return false;
    verdict_describe(verdict, text, sizeof text);
    printf("%-10s %s: %s -> %s, its time not compared\n", label, name, text,
           verdict->wrong > 0 ? "WRONG" : "CANNOT BE JUDGED");
    return true;
}

/* CUB's time where its sums were judged right, for the ratios; otherwise none. */
static struct timing checked(const struct timing *cub, const struct rows_verdict *verdict)
{
    return cub_correct(cub, verdict) ? *cub : (struct timing){0, 0, 0, 0};
}

/* On stderr in every format: CUB's sums that are not right, naming CUB. */
static void warn_cub(const char *name, const struct timing *cub, const struct rows_verdict *v)
{
    char text[320];
    if (cub_correct(cub, v)) return;
    verdict_describe(v, text, sizeof text);
    fprintf(stderr, "step16: %s: %s\n", name, text);
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
    if (!print_cub_failure("cub", SEGMENTED_NAME, &r->cub, &r->cub_verdict) && r->cub.runs > 0)
        printf("cub        %.4f ms median for %s on the same copies, every row checked: this "
               "step runs at %.2fx its speed\n",
               r->cub.median_ms, SEGMENTED_NAME, ratio(&r->cub, &r->time));
    if (!print_cub_failure("flat", FLAT_NAME, &r->flat, &r->flat_verdict) && r->flat.runs > 0)
        printf("flat       %.4f ms median for %s of the same elements as one array, its total "
               "checked: %.2fx (one sum, not %zu)\n",
               r->flat.median_ms, FLAT_NAME, ratio(&r->flat, &r->time), r->shape.rows);
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
    struct timing cub = checked(&r->cub, &r->cub_verdict),
                  flat = checked(&r->flat, &r->flat_verdict);
    pattern_name(&o->pattern, pattern, sizeof pattern);
    warn_cub(SEGMENTED_NAME, &r->cub, &r->cub_verdict);
    warn_cub(FLAT_NAME, &r->flat, &r->flat_verdict);
    if (o->csv)
        printf("%s,%s,%s,%zu,%zu,%s,%s,%zu,%.6f,%.6f,%.2f,%.2f,%.6f,%.4f,%.6f,%.4f,%s,%d.%d\n",
               s->name, kernel_name(r->launch.kernel), element_name(r->type), r->shape.rows,
               r->shape.cols, pattern, o->flush == FLUSH_WRITE ? "write" : "read",
               r->verdict.wrong + r->verdict.unjudged, r->time.median_ms, r->time.min_ms, speed,
               PERCENT * speed / d->peak_gb_per_s, cub.median_ms, ratio(&cub, &r->time),
               flat.median_ms, ratio(&flat, &r->time), d->name, d->runtime_version / CUDA_MAJOR,
               d->runtime_version % CUDA_MAJOR / CUDA_MINOR);
    else if (o->quiet)
        printf("%s %s %s rows=%zu cols=%zu pattern=%s %s\n", s->name, kernel_name(r->launch.kernel),
               element_name(r->type), r->shape.rows, r->shape.cols, pattern, verdict_word(r));
    else
        print_human(s, o, d, r, pattern);
}

/* Every row of the step's sums, and of CUB's where CUB ran, against the host's references;
 * CUB's flat total against the whole matrix's. */
void rows_run_judge(struct rows_run *run, const struct reference *references, const float *sums,
                    const float *cub_sums, float flat_total, unsigned sm_count)
{
    struct matrix_shape s = run->shape;
    run->depth = launch_depth(&run->launch, s, run->type); /* the error bound's (plan.c) */
    run->verdict = rows_judge(references, s.rows, sums, run->depth);
    if (run->cub.runs > 0)
        run->cub_verdict = rows_judge(references, s.rows, cub_sums, cub_rows_depth(s.cols));
    if (run->flat.runs > 0) {
        struct reference whole = whole_reference(references, s.rows, s.rows * s.cols);
        run->flat_verdict = rows_judge(&whole, 1, &flat_total,
                                       cub_flat_depth(s.rows * s.cols, sm_count));
    }
}
