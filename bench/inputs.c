#include "inputs.h"

#include <string.h>
#include <cuda_runtime_api.h>

#include "cuda_check.h"

static bool room_for_another(size_t bytes, size_t keep_free_bytes, bool *fits)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    *fits = free_bytes >= bytes && free_bytes - bytes >= keep_free_bytes;
    return true;
}

bool input_copies_create(struct input_copies *inputs, const float *host, size_t n,
                         size_t keep_free_bytes)
{
    memset(inputs, 0, sizeof *inputs);
    inputs->n = n;
    /* n = 0 still gets a real pointer: the kernels are given one. */
    size_t bytes = (n > 0 ? n : 1) * sizeof(float);
    for (int i = 0; i < INPUT_COPIES; i++) {
        bool fits = false;
        if (!room_for_another(bytes, keep_free_bytes, &fits)) return false;
        if (!fits) break;
        CUDA_TRY(cudaMalloc((void **)&inputs->copies[i], bytes));
        inputs->count++;
        if (n > 0)
            CUDA_TRY(cudaMemcpy(inputs->copies[i], host, n * sizeof(float),
                                cudaMemcpyHostToDevice));
    }
    return true;
}

void input_copies_destroy(struct input_copies *inputs)
{
    for (int i = 0; i < inputs->count; i++) CUDA_OK(cudaFree(inputs->copies[i]));
    memset(inputs, 0, sizeof *inputs);
}

void input_copies_rewind(struct input_copies *inputs) { inputs->next = 0; }

float *input_copies_next(struct input_copies *inputs)
{
    float *copy = inputs->copies[inputs->next];
    inputs->next = (inputs->next + 1) % inputs->count;
    return copy;
}
