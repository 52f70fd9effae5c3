/* step14_generic: the data in the chosen type. The patterns make floats (common/pattern.c);
 * an int or double input is those floats converted on the device, which every value of an
 * integer pattern survives exactly (host.c refuses --type int for a real-valued pattern). A
 * half or bf16 input is those floats rounded on the device, and the host rounds its copy the
 * same way (low_precision.c), so that the expected results come from the values the GPU
 * reads. */
#include <stdlib.h>
#include <string.h>

#include "generic.h"

enum { SECOND_SEED = 1 };         /* dot's b: the same pattern, the seed after a's */
enum { PARALLEL_FROM = 1 << 20 }; /* a smaller case is rounded by one thread, as it is filled */

/* A new device array of n elements of the type, converted from device floats. */
static bool converted(void **typed, const float *floats, size_t n, enum element_type type,
                      const struct device_info *device)
{
    size_t bytes = (n > 0 ? n : 1) * ELEMENT_BYTES[type]; /* cudaMalloc(0) would give NULL */
    if (!device_memory_fits(device, bytes, "the input in its type")) return false;
    CUDA_TRY(cudaMalloc(typed, bytes));
    return CUDA_OK(convert_floats(floats, n, type, *typed));
}

/* dot's b: filled and uploaded once (the L2 is flushed before every run, so one copy is read
 * from DRAM every time, like a's copies). */
static bool second_array(struct typed_input *t, const struct options *o, size_t n,
                         enum element_type type, const struct device_info *device)
{
    float *floats = NULL;
    if ((t->b_host = malloc(n > 0 ? n * sizeof(float) : 1)) == NULL) {
        fprintf(stderr, "not enough host memory for dot's second array of %zu floats\n", n);
        return false;
    }
    pattern_fill(t->b_host, n, &o->pattern, o->seed + SECOND_SEED);
    bool ok = false;
    if (!device_memory_fits(device, n * sizeof(float), "dot's second array")) goto done;
    if (!CUDA_OK(cudaMalloc((void **)&floats, (n > 0 ? n : 1) * sizeof(float)))) goto done;
    if (!CUDA_OK(cudaMemcpy(floats, t->b_host, n * sizeof(float), cudaMemcpyHostToDevice)))
        goto done;
    if (type == TYPE_FLOAT) {
        t->owned[MAX_BUFFERS] = floats; /* the floats are the array itself */
        floats = NULL;
    } else if (!converted(&t->owned[MAX_BUFFERS], floats, n, type, device)) {
        goto done;
    }
    t->b = t->owned[MAX_BUFFERS];
    ok = true;
done:
    if (!CUDA_OK(cudaFree(floats))) ok = false;
    return ok;
}

/* The host's arrays as the type reads them (half, bf16: rounded), and their reference again.
 * The device copies were converted from the floats as they were: rounding a rounded value
 * changes nothing, so both sides hold the same values. */
static void host_as_read(struct typed_input *t, size_t n, enum element_type type)
{
    if (type != TYPE_HALF && type != TYPE_BF16) return;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) t->floats.host[i] = as_read(type, t->floats.host[i]);
    if (t->b_host != NULL)
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) t->b_host[i] = as_read(type, t->b_host[i]);
    t->floats.reference = reference_compute(t->floats.host, n);
}

bool typed_input_create(struct typed_input *t, const struct options *o, size_t n, struct pair p,
                        const struct device_info *device)
{
    memset(t, 0, sizeof *t);
    if (!input_create(&t->floats, o, n, device)) return false;
    t->count = t->floats.count;
    if (p.op == OP_DOT && !second_array(t, o, n, p.type, device)) return false;
    for (int c = 0; c < t->count; c++) {
        if (p.type == TYPE_FLOAT) {
            t->a[c] = t->floats.copies[c];
            continue;
        }
        if (!converted(&t->owned[c], t->floats.copies[c], n, p.type, device)) return false;
        t->a[c] = t->owned[c];
        CUDA_TRY(cudaFree(t->floats.copies[c])); /* not read again: room for the next copy */
        t->floats.copies[c] = NULL;
    }
    host_as_read(t, n, p.type);
    return host_values_compute(&t->values, t->floats.host, t->b_host ? t->b_host : t->floats.host,
                               n, &t->floats.reference);
}

void typed_input_free(struct typed_input *t)
{
    for (int c = 0; c <= MAX_BUFFERS; c++) CUDA_OK(cudaFree(t->owned[c]));
    free(t->b_host);
    input_free(&t->floats);
    memset(t, 0, sizeof *t);
}

bool case_arrays_create(struct case_arrays *arrays, size_t capacity)
{
    memset(arrays, 0, sizeof *arrays);
    for (int t = 0; t < TYPES; t++)
        if (t != TYPE_FLOAT) CUDA_TRY(cudaMalloc(&arrays->typed[t], capacity * ELEMENT_BYTES[t]));
    if ((arrays->as_read = malloc(capacity * sizeof(float))) == NULL)
        fprintf(stderr, "not enough host memory for --check's values as half and bf16 read them\n");
    return arrays->as_read != NULL;
}

bool case_arrays_fill(const struct case_arrays *arrays, const struct check_case *c,
                      bool type_runs[TYPES])
{
    for (int t = 0; t < TYPES; t++)
        if (t != TYPE_FLOAT && type_runs[t])
            CUDA_TRY(convert_floats(c->input, c->n, (enum element_type)t, arrays->typed[t]));
    return true;
}

const void *case_array(const struct case_arrays *arrays, const struct check_case *c,
                       enum element_type type)
{
    return type == TYPE_FLOAT ? (const void *)c->input : arrays->typed[type];
}

bool case_values_compute(struct host_values values[TYPES], const struct case_arrays *arrays,
                         const struct check_case *c, int first, int last)
{
    if (!host_values_compute(&values[TYPE_FLOAT], c->host, c->host, c->n, &c->reference))
        return false;
    values[TYPE_INT] = values[TYPE_DOUBLE] = values[TYPE_FLOAT]; /* the same values, exactly */
    for (int t = TYPE_HALF; t <= TYPE_BF16; t++) {
        if (t < first || t > last) continue;
#pragma omp parallel for schedule(static) if (c->n >= PARALLEL_FROM)
        for (size_t i = 0; i < c->n; i++)
            arrays->as_read[i] = as_read((enum element_type)t, c->host[i]);
        struct reference reference = reference_compute(arrays->as_read, c->n);
        if (!host_values_compute(&values[t], arrays->as_read, arrays->as_read, c->n, &reference))
            return false;
    }
    return true;
}

void case_arrays_free(struct case_arrays *arrays)
{
    for (int t = 0; t < TYPES; t++) CUDA_OK(cudaFree(arrays->typed[t]));
    free(arrays->as_read);
}
