/* step16_rows: CUB beside the step (host.c's measure calls these): cub::DeviceSegmentedReduce
 * and cub::DeviceReduce::Sum over the same copies of the matrix, each timed like the step and
 * its sums read back to be judged. */
#include "cub_sums.h"

#include "reduce.h"

/* CUB's temporary storage: the larger of its two sums' (they are never held at once); none
 * with --no-cub. */
bool cub_storage_bytes(const struct options *o, const struct matrix *mx, size_t *bytes)
{
    size_t segmented = 0, flat = 0;
    *bytes = 0;
    if (!o->cub) return true;
    CUDA_TRY(cub_rows_sum(NULL, &segmented, NULL, mx->type, mx->shape, NULL, 0));
    if (mx->type == ELEMENT_FLOAT) flat = cub_temp_bytes(mx->shape.rows * mx->shape.cols);
    *bytes = (segmented > flat ? segmented : flat) + VECTOR_BYTES;
    return true;
}

/* cub::DeviceSegmentedReduce over the same copies, timed the same way and poisoned the same
 * way; its last run's row sums into `sums`, to be judged as the step's are. */
bool cub_segmented_time(const struct options *o, const struct matrix *mx, struct timer *timer,
                        float *out, struct timing *timing, float *sums)
{
    size_t temp_bytes = 0, bytes = mx->shape.rows * sizeof(float);
    void *temp = NULL;
    bool ok = CUDA_OK(cub_rows_sum(NULL, &temp_bytes, mx->copies[0], mx->type, mx->shape, out, 0));
    ok = ok && CUDA_OK(cudaMalloc(&temp, temp_bytes + VECTOR_BYTES)); /* never NULL */
    for (int run = 0; ok && run < o->warmup + o->iters; run++)
        ok = outputs_poison(out, bytes) && timer_start(timer) &&
             CUDA_OK(cub_rows_sum(temp, &temp_bytes, mx->copies[run % mx->count], mx->type,
                                  mx->shape, out, 0)) &&
             timer_stop(timer, run >= o->warmup);
    *timing = timer_summary(timer);
    ok = ok && CUDA_OK(cudaMemcpy(sums, out, bytes, cudaMemcpyDeviceToHost));
    if (temp != NULL) ok = CUDA_OK(cudaFree(temp)) && ok;
    return ok;
}

/* CUB's flat sum of the same floats, through common/timing.cu's cub_time on a view of the
 * copies (which checks it against the whole matrix's reference), its total into *total (bf16
 * has no float copies: not measured). */
bool cub_flat_time(const struct options *o, const struct matrix *mx,
                   const struct reference *references, struct timer *timer, struct timing *timing,
                   float *total)
{
    size_t n = mx->shape.rows * mx->shape.cols;
    struct input view = {
        .n = n, .count = mx->count, .reference = whole_reference(references, mx->shape.rows, n)};
    if (mx->type != ELEMENT_FLOAT) return true;
    for (int c = 0; c < mx->count; c++) view.copies[c] = mx->copies[c];
    return cub_time(&view, o, timer, timing, total);
}
