#include "cuda_check.h"

#include <stdio.h>

bool cuda_succeeded(cudaError_t status, const char *call, const char *file, int line)
{
    if (status == cudaSuccess) return true;
    fprintf(stderr, "CUDA error at %s:%d: %s\n  in %s\n  (%s)\n", file, line,
            cudaGetErrorString(status), call, cudaGetErrorName(status));
    return false;
}
