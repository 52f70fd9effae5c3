/* step14_generic: the data in the chosen type. The patterns make floats (common/pattern.c);
 * an int or double input is those floats converted on the device, which every value of an
 * integer pattern survives exactly (host.c refuses --type int for a real-valued pattern). A
 * half or bf16 input is those floats rounded on the device, and the host rounds its copy the
 * same way (low_precision.c), so that the expected results come from the values the GPU
 * reads. How many copies are made is planned from the type's size before anything is
 * allocated. */
#include <stdlib.h>
#include <string.h>

#include "generic.h"

enum { SECOND_SEED = 1 };         /* dot's b: the same pattern, the seed after a's */
enum { PARALLEL_FROM = 1 << 20 }; /* a smaller case is rounded by one thread, as it is filled */
/* An input in another type is made from the host's floats STAGING_FLOATS at a time: each
 * part uploaded into a staging buffer and converted from there into place. The device never
 * holds a whole float copy beside the converted one, so a double copy of 2^32 elements needs
 * its 32 GiB and 64 MiB more, not 48 GiB. */
#define STAGING_FLOATS ((size_t)1 << 24)

bool cub_runs(const struct options *o, struct pair p)
{
    return o->cub && p.op == OP_SUM && p.type == TYPE_FLOAT;
}

/* typed[0..n) in the type from host[0..n): floats go up as they are, the other types through
 * `staging` (STAGING_FLOATS floats). */
static bool upload_in_type(void *typed, const float *host, size_t n, enum element_type type,
                           float *staging)
{
    if (type == TYPE_FLOAT)
        return CUDA_OK(cudaMemcpy(typed, host, n * sizeof(float), cudaMemcpyHostToDevice));
    for (size_t done = 0; done < n; done += STAGING_FLOATS) {
        size_t count = n - done < STAGING_FLOATS ? n - done : STAGING_FLOATS;
        /* cudaMemcpy waits for the conversion before it on the default stream */
        CUDA_TRY(cudaMemcpy(staging, host + done, count * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_TRY(convert_floats(staging, count, type, (char *)typed + done * ELEMENT_BYTES[type]));
    }
    return true;
}

/* names += " and " name, or name when names is still empty. */
static void name_add(char *names, size_t size, const char *name)
{
    size_t length = strlen(names);
    snprintf(names + length, size - length, "%s%s", length > 0 ? " and " : "", name);
}

/* What the run needs beside the copies of a, each counted in whole allocation granules, and
 * their names for the message when even one copy does not fit. */
static size_t fixed_bytes(const struct options *o, size_t n, struct pair p, size_t copy_bytes,
                          char *names, size_t size)
{
    size_t bytes = 0;
    names[0] = '\0';
    if (p.op == OP_DOT) {
        bytes += memory_rounded(copy_bytes);
        name_add(names, size, "dot's second array");
    }
    if (p.type != TYPE_FLOAT) {
        bytes += memory_rounded(STAGING_FLOATS * sizeof(float));
        name_add(names, size, "the conversion's staging");
    }
    if (cub_runs(o, p)) {
        bytes += memory_rounded(cub_temp_bytes(n));
        name_add(names, size, "CUB's temporary storage");
    }
    return bytes;
}

/* How many copies of a fit beside dot's b, the staging and CUB's storage: planned from the
 * free memory before any of them is allocated. 0 after saying what the run needs. */
static int copies_planned(const struct options *o, size_t n, struct pair p,
                          const struct device_info *device)
{
    size_t copy_bytes = (n > 0 ? n : 1) * ELEMENT_BYTES[p.type], free_bytes = 0, total_bytes = 0;
    char names[128], what[64];
    size_t fixed = fixed_bytes(o, n, p, copy_bytes, names, sizeof names);
    if (!CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes))) return 0;
    struct memory_plan plan = memory_plan_make(fixed, copy_bytes, free_bytes, o->buffers);
    snprintf(what, sizeof what, "the input in %s for %s", TYPE_NAMES[p.type], OP_NAMES[p.op]);
    if (plan.copies == 0) memory_plan_explain(&plan, what, names, device->name);
    return plan.copies;
}

/* A device array for n elements of the type; cudaMalloc(0) would give NULL. */
static bool allocated(void **array, size_t n, enum element_type type)
{
    return CUDA_OK(cudaMalloc(array, (n > 0 ? n : 1) * ELEMENT_BYTES[type]));
}

/* dot's b, filled on the host from the next seed and uploaded once (the L2 is flushed before
 * every run, so one copy is read from DRAM every time, like a's copies). */
static bool second_array(struct typed_input *t, const struct options *o, size_t n,
                         enum element_type type, float *staging)
{
    if ((t->b_host = malloc(n > 0 ? n * sizeof(float) : 1)) == NULL) {
        fprintf(stderr, "not enough host memory for dot's second array of %zu floats\n", n);
        return false;
    }
    pattern_fill(t->b_host, n, &o->pattern, o->seed + SECOND_SEED);
    if (!allocated(&t->owned[MAX_BUFFERS], n, type)) return false;
    t->b = t->owned[MAX_BUFFERS];
    return upload_in_type(t->owned[MAX_BUFFERS], t->b_host, n, type, staging);
}

/* The copies of a: the first uploaded in its type, the others copied from it on the device.
 * Float copies stay in t->floats, where cub_time finds them. */
static bool copies_make(struct typed_input *t, size_t n, enum element_type type, int copies,
                        float *staging)
{
    for (int c = 0; c < copies; c++) {
        void **copy = type == TYPE_FLOAT ? (void **)&t->floats.copies[c] : &t->owned[c];
        if (!allocated(copy, n, type)) return false;
        if (type == TYPE_FLOAT) t->floats.count = c + 1;
        t->a[c] = *copy;
        t->count = c + 1;
        if (c == 0 && !upload_in_type(*copy, t->floats.host, n, type, staging)) return false;
        if (c > 0) CUDA_TRY(cudaMemcpy(*copy, t->a[0], n * ELEMENT_BYTES[type], cudaMemcpyDefault));
    }
    return true;
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
    float *staging = NULL;
    memset(t, 0, sizeof *t);
    if (!input_create_on_host(&t->floats, o, n)) return false;
    int copies = copies_planned(o, n, p, device);
    if (copies == 0) return false;
    if (p.type != TYPE_FLOAT &&
        !CUDA_OK(cudaMalloc((void **)&staging, STAGING_FLOATS * sizeof(float))))
        return false;
    bool ok = (p.op != OP_DOT || second_array(t, o, n, p.type, staging)) &&
              copies_make(t, n, p.type, copies, staging);
    if (staging != NULL && !CUDA_OK(cudaFree(staging))) ok = false;
    if (ok) host_as_read(t, n, p.type);
    return ok &&
           host_values_compute(&t->values, t->floats.host, t->b_host ? t->b_host : t->floats.host,
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
