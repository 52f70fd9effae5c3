#include "gpu_support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <cuda_runtime_api.h>

#include "device.h"
#include "run.h"
#include "verify.h"

const size_t MATRIX_SIZES[] = {0,    1,    2,     3,     31,      32,           33,
                               255,  256,  257,   511,   513,     1023,         1024,
                               1025, 4097, 65535, 65537, 1000003, (1u << 22) + 1, 1u << 25};
const int MATRIX_SIZES_COUNT = sizeof MATRIX_SIZES / sizeof MATRIX_SIZES[0];

void require_cuda_device(void)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
        cr_skip_test("no CUDA device: %s",
                     status != cudaSuccess ? cudaGetErrorString(status) : "none found");
}

struct launch_request test_request(const struct step *step, unsigned threads, int variant)
{
    struct device_info device;
    char why[256];
    cr_assert(device_query(&device, why, sizeof why), "%s", why);
    struct options options = {.threads = threads, .variant = variant};
    return launch_request_for(step, &options, &device);
}

void expect_correct_total(const struct step *step, const struct reduction_buffers *buffers,
                          const struct launch_request *request, enum finish finish,
                          const float *data, size_t n, const char *what)
{
    struct reduction_outcome outcome;
    float total = NAN;
    cr_assert(reduction_upload(buffers, data, n), "%s: upload failed", what);
    cr_assert(reduction_run(step, buffers, n, request, finish, 0, &outcome) &&
                  reduction_total(&outcome, &total) && cudaDeviceSynchronize() == cudaSuccess,
              "%s %s n=%zu: a CUDA call failed (see stderr)", step->name, what, n);
    struct reference reference = reference_compute(data, n);
    double bound = error_bound(&reference, reduction_depth(step, n, request, finish));
    cr_assert(result_within(total, &reference, bound),
              "%s %s n=%zu threads=%u finish=%s: got %.9g, expected %.17g (bound %.9g)",
              step->name, what, n, request->threads, finish == FINISH_CPU ? "cpu" : "gpu",
              total, reference.sum, bound);
}
