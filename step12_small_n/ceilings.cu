/* step12_small_n: --ceilings. A reduction of n floats reads 4n bytes once and launches one
 * kernel. Three operations with no additions at all show what those two things cost on this
 * GPU, timed as the step is: a write of the same bytes (cudaMemset), a copy of them from
 * device to device (cudaMemcpy: each byte read once and written once), and the launch of a
 * kernel that does nothing.
 * A write is not done when cudaMemset returns: up to one L2 of its lines may still be dirty,
 * waiting to be written to memory. So the write and the copy are each followed, inside the
 * timed region, by a read of a buffer as large as the timer's flush, which evicts those lines
 * and makes them reach memory before the clock stops; that read is timed alone as well (the
 * "drain"), and its median is subtracted from theirs. */
#include "ceilings.h"

enum { WARP_SIZE = 32 };
enum { DRAIN_BLOCKS = 1024, DRAIN_THREADS = 256 };
enum ceiling { CEILING_WRITE, CEILING_COPY, CEILING_LAUNCH, CEILING_DRAIN, CEILINGS };

/* Its time is what any launch costs: the smallest launch there is, one warp. */
static __global__ void empty_kernel() {}

/* Reads every float4 of `drain`, which holds zeros: the lines it brings into the L2 push out
 * the dirty ones, which are written to memory first. `sink` is never written, but the
 * compiler cannot drop the loads. */
static __global__ void read_to_evict(const float4 *drain, size_t vectors, float *sink)
{
    float sum = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < vectors;
         i += (size_t)gridDim.x * blockDim.x)
        sum += drain[i].x + drain[i].y + drain[i].z + drain[i].w;
    if (sum != 0.0f) *sink = sum;
}

/* The buffer the drain reads: as many bytes as the timer's own flush (timer->scratch_bytes,
 * enough to empty the L2), zeroed, and a float for the sink after them. */
struct drain {
    float4 *vectors;
    size_t count;
};

static bool drain_create(struct drain *d, const struct timer *timer)
{
    d->count = timer->scratch_bytes / sizeof(float4);
    CUDA_TRY(cudaMalloc((void **)&d->vectors, (d->count + 1) * sizeof(float4)));
    return CUDA_OK(cudaMemset(d->vectors, 0, (d->count + 1) * sizeof(float4)));
}

static cudaError_t drain_run(const struct drain *d)
{
    read_to_evict<<<DRAIN_BLOCKS, DRAIN_THREADS>>>(d->vectors, d->count,
                                                   (float *)(d->vectors + d->count));
    return cudaGetLastError();
}

static cudaError_t run_once(enum ceiling which, const struct input *input, int run, float *scratch,
                            const struct drain *d)
{
    size_t bytes = input->n * sizeof(float);
    cudaError_t status = cudaSuccess;
    switch (which) {
    case CEILING_WRITE:
        status = cudaMemsetAsync(scratch, 0, bytes, 0);
        break;
    case CEILING_COPY:
        status = cudaMemcpyAsync(scratch, input->copies[run % input->count], bytes,
                                 cudaMemcpyDeviceToDevice, 0);
        break;
    case CEILING_LAUNCH:
        empty_kernel<<<1, WARP_SIZE>>>();
        return cudaGetLastError();
    default:
        break;
    }
    return status == cudaSuccess ? drain_run(d) : status;
}

/* The write and the copy, less the drain that followed each. */
static struct timing less_drain(struct timing with, const struct timing *drain)
{
    with.median_ms -= drain->median_ms;
    with.min_ms -= drain->median_ms;
    with.max_ms -= drain->median_ms;
    return with;
}

extern "C" bool ceilings_allowed(const struct options *o, const char *step_name)
{
    if (!o->check && !o->csv && !o->quiet) return true;
    fprintf(stderr,
            "%s: '--ceilings' prints beside the full report: not with --check, --csv or "
            "--quiet\n(%s/run --help lists the options)\n",
            step_name, step_name);
    return false;
}

extern "C" bool ceilings_create(struct ceilings *c, size_t n, const struct device_info *device)
{
    if (!device_memory_fits(device, n * sizeof(float), "--ceilings' scratch")) return false;
    return CUDA_OK(cudaMalloc((void **)&c->scratch, n * sizeof(float) + sizeof(float)));
}

extern "C" bool ceilings_measure(struct ceilings *ceilings, const struct input *input,
                                 const struct options *o, struct timer *timer)
{
    struct timing *timings[CEILINGS] = {&ceilings->write, &ceilings->copy, &ceilings->launch,
                                        &ceilings->drain};
    struct drain d = {nullptr, 0};
    bool ok = drain_create(&d, timer);
    for (int which = 0; ok && which < CEILINGS; which++) {
        for (int run = 0; ok && run < o->warmup + o->iters; run++)
            ok = timer_start(timer) &&
                 CUDA_OK(run_once((enum ceiling)which, input, run, ceilings->scratch, &d)) &&
                 timer_stop(timer, run >= o->warmup);
        *timings[which] = timer_summary(timer);
    }
    ceilings->write = less_drain(ceilings->write, &ceilings->drain);
    ceilings->copy = less_drain(ceilings->copy, &ceilings->drain);
    CUDA_OK(cudaFree(d.vectors));
    return ok;
}

extern "C" void ceilings_free(struct ceilings *c)
{
    CUDA_OK(cudaFree(c->scratch));
    c->scratch = nullptr;
}

static double percent_of_peak(const struct report *r, double bytes, double milliseconds)
{
    return 100.0 * effective_gb_per_s(bytes, milliseconds) / r->device->peak_gb_per_s;
}

extern "C" void ceilings_print(const struct ceilings *c, const struct report *r)
{
    double bytes = (double)r->n * sizeof(float), mib = bytes / (1024.0 * 1024.0);
    printf("ceiling    write  %.4f ms median: cudaMemset of the same %.1f MiB, "
           "%.1f GB/s = %.1f%% of peak\n",
           c->write.median_ms, mib, effective_gb_per_s(bytes, c->write.median_ms),
           percent_of_peak(r, bytes, c->write.median_ms));
    printf("ceiling    copy   %.4f ms median: cudaMemcpy of them device to device, "
           "each byte read and written: %.1f GB/s = %.1f%% of peak\n",
           c->copy.median_ms, effective_gb_per_s(2 * bytes, c->copy.median_ms),
           percent_of_peak(r, 2 * bytes, c->copy.median_ms));
    printf("ceiling    drain  %.4f ms median: the read that followed the write and the copy, "
           "to put their last lines in memory; subtracted above\n",
           c->drain.median_ms);
    printf("ceiling    launch %.4f ms median: "
           "a kernel that does nothing, the fixed cost of a launch\n",
           c->launch.median_ms);
    printf("ceiling    read   %s %.4f ms = %.1f%% of peak", r->step->name, r->time.median_ms,
           percent_of_peak(r, bytes, r->time.median_ms));
    if (r->cub.runs > 0)
        printf(", CUB %.4f ms = %.1f%% of peak", r->cub.median_ms,
               percent_of_peak(r, bytes, r->cub.median_ms));
    printf(": the same bytes, read once and added\n");
}
