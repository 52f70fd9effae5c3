/* step16_rows: cub::DeviceSegmentedReduce::Sum over the same rows, for the timing beside the
 * step's kernels. Row r is the segment [r x cols, (r + 1) x cols): a counting iterator mapped
 * by row_start gives those offsets without an array in memory. */
#include <climits>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_bf16.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "reduce.h"

template <typename Offset>
struct row_start {
    Offset cols;
    __host__ __device__ Offset operator()(Offset row) const { return row * cols; }
};

/* bf16 added in float: cuda::std::plus<> has no float + __nv_bfloat16, so Sum does not take
 * bf16 into a float sum; Reduce with this operator does (the bf16 converts to float). */
struct add_in_float {
    __device__ float operator()(float a, float b) const { return a + b; }
};

/* As cub_time does for the flat sum: 32-bit offsets when every offset fits an int, the
 * offsets CUB is tuned for; only larger matrices pay for 64 bits. */
template <typename Offset, typename T>
static cudaError_t segmented_sum(void *temp, size_t *temp_bytes, const T *in, struct matrix_shape s,
                                 float *out, cudaStream_t stream)
{
    auto starts = thrust::make_transform_iterator(thrust::counting_iterator<Offset>(0),
                                                  row_start<Offset>{(Offset)s.cols});
    if constexpr (sizeof(T) == sizeof(float))
        return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, in, out, (int64_t)s.rows, starts,
                                               starts + 1, stream);
    return cub::DeviceSegmentedReduce::Reduce(temp, *temp_bytes, in, out, (int64_t)s.rows, starts,
                                              starts + 1, add_in_float{}, 0.0f, stream);
}

template <typename T>
static cudaError_t sum_rows(void *temp, size_t *temp_bytes, const T *in, struct matrix_shape s,
                            float *out, cudaStream_t stream)
{
    if (s.rows * s.cols <= (size_t)INT_MAX)
        return segmented_sum<int>(temp, temp_bytes, in, s, out, stream);
    return segmented_sum<long long>(temp, temp_bytes, in, s, out, stream);
}

extern "C" cudaError_t cub_rows_sum(void *temp, size_t *temp_bytes, const void *in,
                                    enum element_type type, struct matrix_shape shape, float *out,
                                    cudaStream_t stream)
{
    if (type == ELEMENT_BF16)
        return sum_rows(temp, temp_bytes, static_cast<const __nv_bfloat16 *>(in), shape, out,
                        stream);
    return sum_rows(temp, temp_bytes, static_cast<const float *>(in), shape, out, stream);
}
