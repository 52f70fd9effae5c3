/* Every CUDA call is checked: a failure prints where it happened and what the runtime
 * said, and the caller gets false back to unwind (exit code 3 at the top). */
#ifndef REDUCE_CUDA_CHECK_H
#define REDUCE_CUDA_CHECK_H

#include <stdbool.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

bool cuda_succeeded(cudaError_t status, const char *call, const char *file, int line);

#ifdef __cplusplus
}
#endif

/* In C, _Generic refuses anything but a cudaError_t: a bool (true == 1 ==
 * cudaErrorInvalidValue) would otherwise convert silently. */
#ifdef __cplusplus
#define CUDA_STATUS(call) (call)
#else
#define CUDA_STATUS(call) _Generic((call), cudaError_t: (call))
#endif
#define CUDA_OK(call) cuda_succeeded(CUDA_STATUS(call), #call, __FILE__, __LINE__)

/* In functions that return bool: stop at the first failing call. */
#define CUDA_TRY(call)                                                                    \
    do {                                                                                  \
        if (!CUDA_OK(call)) return false;                                                 \
    } while (0)

#endif
