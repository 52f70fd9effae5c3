#include <climits>
#include <cstring>
#include <cub/device/device_reduce.cuh>

#include "toolbox.h"

/* Four times the L2: whatever its replacement policy, none of the input survives. */
enum { L2_CAPACITIES = 4, FLUSH_BLOCKS = 1024, FLUSH_THREADS = 256 };
/* The grid that writes ones: enough blocks to fill any card, each striding over the rest. */
enum { FILL_BLOCKS = 1024, FILL_THREADS = 256 };

bool input_create_on_host(struct input *input, const struct options *options, size_t n)
{
    size_t bytes = n * sizeof(float);
    memset(input, 0, sizeof *input);
    input->n = n;
    if ((input->host = (float *)malloc(bytes > 0 ? bytes : 1)) == NULL) {
        fprintf(stderr, "not enough host memory for %zu floats\n", n);
        return false;
    }
    pattern_fill(input->host, n, &options->pattern, options->seed);
    input->reference = reference_compute(input->host, n);
    return true;
}

/* ones, written by a grid that strides over any n (size_t: past 2^32 elements). */
__global__ void fill_ones(float *data, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        data[i] = 1.0f;
}

/* ones or one-hot into data on the device: the fill, or zeros (0.0f is all zero bits) and the
 * hot element. No host copy of the input: at n = 2^32 that saves 16 GiB of host memory to fill,
 * add up and upload. */
static bool pattern_fill_on_device(float *data, size_t n, const struct pattern *pattern)
{
    static const float HOT = 1.0f;
    size_t hot;
    if (pattern->kind == PATTERN_ONES) {
        if (n > 0) fill_ones<<<FILL_BLOCKS, FILL_THREADS>>>(data, n);
        CUDA_TRY(cudaGetLastError());
        return true;
    }
    CUDA_TRY(cudaMemset(data, 0, n * sizeof(float)));
    if (pattern_onehot_position(pattern, n, &hot))
        CUDA_TRY(cudaMemcpy(data + hot, &HOT, sizeof HOT, cudaMemcpyHostToDevice));
    return true;
}

/* The copies are planned before the first is made: all of them, and CUB's temporary storage
 * unless --no-cub, must fit the memory the step's own buffers and the timer left free. The
 * first copy is made on the device (ones, one-hot) or uploaded; the others copy it. */
bool input_create(struct input *input, const struct options *options, size_t n,
                  const struct device_info *device)
{
    size_t bytes = n * sizeof(float), free_bytes = 0, total_bytes = 0;
    struct reference known;
    bool on_device = pattern_reference(&options->pattern, n, &known);
    if (on_device) {
        memset(input, 0, sizeof *input);
        input->n = n;
        input->reference = known;
    } else if (!input_create_on_host(input, options, n)) {
        return false;
    }
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t fixed = options->cub ? memory_rounded(cub_temp_bytes(n)) : 0;
    struct memory_plan plan = memory_plan_make(fixed, bytes, free_bytes, options->buffers);
    if (plan.copies == 0) {
        memory_plan_explain(&plan, "the input", "CUB's temporary storage", device->name);
        return false;
    }
    for (int c = 0; c < plan.copies; c++) {
        /* cudaMalloc(0) gives NULL: one float keeps every copy a real buffer */
        CUDA_TRY(cudaMalloc((void **)&input->copies[c], bytes > 0 ? bytes : sizeof(float)));
        input->count = c + 1;
        if (c == 0 && on_device) {
            if (!pattern_fill_on_device(input->copies[0], n, &options->pattern)) return false;
        } else {
            CUDA_TRY(cudaMemcpy(input->copies[c], c > 0 ? input->copies[0] : input->host, bytes,
                                cudaMemcpyDefault));
        }
    }
    return true;
}

void input_free(struct input *input)
{
    for (int c = 0; c < input->count; c++) CUDA_OK(cudaFree(input->copies[c]));
    free(input->host);
    memset(input, 0, sizeof *input);
}

/* Reading leaves the L2 full of clean lines: the timed run evicts them for free. Writing (with
 * cudaMemset, --flush write) leaves it full of dirty lines, as when the input was just written
 * by another kernel: the timed run's reads then share DRAM with their write-back. The scratch
 * holds zeros either way, so `sink` is never written, but the compiler cannot drop the loads. */
__global__ void read_to_evict(const float4 *scratch, size_t vectors, float *sink)
{
    float sum = 0.0f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < vectors;
         i += (size_t)gridDim.x * blockDim.x)
        sum += scratch[i].x + scratch[i].y + scratch[i].z + scratch[i].w;
    if (sum != 0.0f) *sink = sum;
}

bool timer_make(struct timer *timer, const struct device_info *device,
                const struct options *options)
{
    int capacity = options->iters;
    memset(timer, 0, sizeof *timer);
    timer->capacity = capacity;
    timer->flush = options->flush;
    timer->scratch_bytes = L2_CAPACITIES * device->l2_bytes / sizeof(float4) * sizeof(float4);
    if ((timer->samples = (double *)malloc((capacity + 1) * sizeof(double))) == NULL) return false;
    CUDA_TRY(cudaEventCreate(&timer->start));
    CUDA_TRY(cudaEventCreate(&timer->stop));
    CUDA_TRY(cudaMalloc(&timer->scratch, timer->scratch_bytes + sizeof(float4))); /* and the sink */
    CUDA_TRY(cudaMemset(timer->scratch, 0, timer->scratch_bytes));
    return true;
}

bool timer_start(struct timer *timer)
{
    size_t vectors = timer->scratch_bytes / sizeof(float4);
    float4 *scratch = (float4 *)timer->scratch;
    if (timer->flush == FLUSH_WRITE) {
        CUDA_TRY(cudaMemsetAsync(scratch, 0, timer->scratch_bytes, 0));
    } else {
        read_to_evict<<<FLUSH_BLOCKS, FLUSH_THREADS>>>(scratch, vectors,
                                                       (float *)(scratch + vectors));
        CUDA_TRY(cudaGetLastError());
    }
    CUDA_TRY(cudaEventRecord(timer->start, 0));
    return true;
}

bool timer_stop(struct timer *timer, bool keep)
{
    float milliseconds = 0;
    CUDA_TRY(cudaEventRecord(timer->stop, 0));
    CUDA_TRY(cudaEventSynchronize(timer->stop));
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventElapsedTime(&milliseconds, timer->start, timer->stop));
    if (keep && timer->runs < timer->capacity) timer->samples[timer->runs++] = milliseconds;
    return true;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct timing timer_summary(struct timer *timer)
{
    double *s = timer->samples;
    int count = timer->runs, middle = count / 2;
    timer->runs = 0;
    if (count == 0) return (struct timing){0, 0, 0, 0};
    qsort(s, (size_t)count, sizeof *s, by_value);
    return (struct timing){count % 2 ? s[middle] : (s[middle - 1] + s[middle]) / 2, s[0],
                           s[count - 1], count};
}

void timer_free(struct timer *timer)
{
    if (timer->start != NULL) CUDA_OK(cudaEventDestroy(timer->start));
    if (timer->stop != NULL) CUDA_OK(cudaEventDestroy(timer->stop));
    if (timer->scratch != NULL) CUDA_OK(cudaFree(timer->scratch));
    free(timer->samples);
    memset(timer, 0, sizeof *timer);
}

/* CUB picks its offset type from the count's: a count that fits an int gets the 32-bit
 * offsets CUB is tuned for; only larger ones pay for 64 bits. */
static cudaError_t cub_sum(void *temp, size_t &temp_bytes, const float *in, size_t n, float *total)
{
    if (n <= (size_t)INT_MAX) return cub::DeviceReduce::Sum(temp, temp_bytes, in, total, (int)n);
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, total, (long long)n);
}

/* Where the total goes after CUB's temporary storage: the next 16-byte boundary. */
static size_t total_offset(size_t temp_bytes)
{
    return (temp_bytes + sizeof(float4) - 1) / sizeof(float4) * sizeof(float4);
}

size_t cub_temp_bytes(size_t n)
{
    size_t temp_bytes = 0;
    if (cub_sum(NULL, temp_bytes, NULL, n, NULL) != cudaSuccess) return 0; /* cub_time says why */
    return total_offset(temp_bytes) + sizeof(float4);
}

/* CUB documents no order of additions, so its total is judged by the bound of a chain as
 * long as any grid with at least a warp an SM would give a thread, plus a tree: loose enough
 * for whatever order CUB takes, tight enough that a lost block or a missing write fails. */
enum { CUB_THREADS_PER_SM_AT_LEAST = 32, CUB_TREE_LEVELS_AT_MOST = 64 };

static unsigned cub_depth(size_t n)
{
    int sms = 1;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) sms = 1;
    size_t threads = (size_t)sms * CUB_THREADS_PER_SM_AT_LEAST;
    return (unsigned)((n + threads - 1) / threads) + CUB_TREE_LEVELS_AT_MOST;
}

bool cub_total_right(const struct input *input, float total)
{
    double bound = error_bound(&input->reference, cub_depth(input->n));
    if (result_within(total, &input->reference, bound)) return true;
    fprintf(stderr,
            "cub::DeviceReduce::Sum gave %.9g for n = %zu, expected %.17g (allowed error %.9g): "
            "its time is not reported\n",
            total, input->n, input->reference.sum, bound);
    return false;
}

bool cub_time(const struct input *input, const struct options *o, struct timer *timer,
              struct timing *timing, float *total)
{
    size_t temp_bytes = 0, total_at;
    char *temp = NULL; /* CUB's temporary storage, then the total, 16-byte aligned */
    float last_total = 0;
    bool ok = CUDA_OK(cub_sum(NULL, temp_bytes, NULL, input->n, NULL));
    total_at = total_offset(temp_bytes);
    ok = ok && CUDA_OK(cudaMalloc((void **)&temp, total_at + sizeof(float4)));
    for (int run = 0; ok && run < o->warmup + o->iters; run++)
        ok = outputs_poison(temp + total_at, sizeof(float)) && timer_start(timer) &&
             CUDA_OK(cub_sum(temp, temp_bytes, input->copies[run % input->count], input->n,
                             (float *)(temp + total_at))) &&
             timer_stop(timer, run >= o->warmup);
    *timing = timer_summary(timer);
    ok = ok &&
         CUDA_OK(cudaMemcpy(&last_total, temp + total_at, sizeof(float), cudaMemcpyDeviceToHost));
    ok = ok && cub_total_right(input, last_total);
    if (ok && total != NULL) *total = last_total;
    if (temp != NULL) ok = CUDA_OK(cudaFree(temp)) && ok;
    return ok;
}
