/* step13_gather: --ceilings. A reduction of n floats reads 4n bytes once and launches one
 * kernel. Three operations with no additions at all show what those two things cost on this
 * GPU, timed exactly as the step is: a write of the same bytes (cudaMemset), a copy of them
 * from device to device (cudaMemcpy: each byte read once and written once), and the launch
 * of a kernel that does nothing. */
#include "ceilings.h"

enum { WARP_SIZE = 32 };
enum ceiling { CEILING_WRITE, CEILING_COPY, CEILING_LAUNCH, CEILINGS };

/* Its time is what any launch costs: the smallest launch there is, one warp. */
static __global__ void empty_kernel() {}

static cudaError_t run_once(enum ceiling which, const struct input *input, int run, float *scratch)
{
    size_t bytes = input->n * sizeof(float);
    switch (which) {
    case CEILING_WRITE:
        return cudaMemsetAsync(scratch, 0, bytes, 0);
    case CEILING_COPY:
        return cudaMemcpyAsync(scratch, input->copies[run % input->count], bytes,
                               cudaMemcpyDeviceToDevice, 0);
    default:
        empty_kernel<<<1, WARP_SIZE>>>();
        return cudaGetLastError();
    }
}

extern "C" bool ceilings_measure(const struct input *input, const struct options *o,
                                 struct timer *timer, float *scratch, struct ceilings *ceilings)
{
    struct timing *timings[CEILINGS] = {&ceilings->write, &ceilings->copy, &ceilings->launch};
    for (int which = 0; which < CEILINGS; which++) {
        for (int run = 0; run < o->warmup + o->iters; run++) {
            if (!timer_start(timer)) return false;
            if (!CUDA_OK(run_once((enum ceiling)which, input, run, scratch))) return false;
            if (!timer_stop(timer, run >= o->warmup)) return false;
        }
        *timings[which] = timer_summary(timer);
    }
    return true;
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
