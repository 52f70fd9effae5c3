/* cub::DeviceReduce::Sum, called the way its documentation shows: once with no storage to
 * learn the temporary bytes, then with them to reduce. */
#include <climits>
#include <cub/device/device_reduce.cuh>

#include "cub_sum.h"

/* CUB picks its offset type from the type of the count: a 32-bit count gives the 32-bit
 * offsets CUB is tuned for, so counts that fit an int are passed as one; only larger
 * inputs pay for 64-bit offsets. */
template <typename Count>
static cudaError_t reduce(void *temp, size_t &temp_bytes, const float *in, Count n,
                          float *total, cudaStream_t stream)
{
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, total, n, stream);
}

static bool fits_int(size_t n) { return n <= (size_t)INT_MAX; }

extern "C" cudaError_t cub_sum_temp_bytes(size_t n, size_t *bytes)
{
    *bytes = 0;
    if (fits_int(n)) return reduce<int>(nullptr, *bytes, nullptr, (int)n, nullptr, 0);
    return reduce<long long>(nullptr, *bytes, nullptr, (long long)n, nullptr, 0);
}

extern "C" cudaError_t cub_sum(void *temp, size_t temp_bytes, const float *in, size_t n,
                               float *total, cudaStream_t stream)
{
    if (fits_int(n)) return reduce<int>(temp, temp_bytes, in, (int)n, total, stream);
    return reduce<long long>(temp, temp_bytes, in, (long long)n, total, stream);
}
