#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolbox.h"

/* Room left for CUB's temporary storage and the runtime after the second and later copies. */
static const size_t KEEP_FREE = (size_t)256 << 20;

bool input_create(struct input *input, const struct options *options, size_t n,
                  const struct device_info *device)
{
    size_t bytes = n * sizeof(float), free_bytes = 0, total_bytes = 0;
    memset(input, 0, sizeof *input);
    input->n = n;
    if ((input->host = malloc(bytes > 0 ? bytes : 1)) == NULL) {
        fprintf(stderr, "not enough host memory for %zu floats\n", n);
        return false;
    }
    pattern_fill(input->host, n, &options->pattern, options->seed);
    input->reference = reference_compute(input->host, n);
    if (!device_memory_fits(device, bytes, "the input")) return false;
    for (int c = 0; c < options->buffers; c++) {
        CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (c > 0 && free_bytes < bytes + KEEP_FREE) break;
        /* cudaMalloc(0) gives NULL: one float keeps every copy a real buffer */
        CUDA_TRY(cudaMalloc((void **)&input->copies[c], bytes > 0 ? bytes : sizeof(float)));
        input->count = c + 1;
        CUDA_TRY(cudaMemcpy(input->copies[c], c > 0 ? input->copies[0] : input->host, bytes,
                            c > 0 ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice));
    }
    return true;
}

void input_free(struct input *input)
{
    for (int c = 0; c < input->count; c++) CUDA_OK(cudaFree(input->copies[c]));
    free(input->host);
    memset(input, 0, sizeof *input);
}
