/* Shared by the GPU tests: skip without a device, and check one reduction against the
 * reference (exactly, or within the documented bound). */
#ifndef TESTS_GPU_SUPPORT_H
#define TESTS_GPU_SUPPORT_H

#include <stddef.h>

#include "cli.h"
#include "passes.h"
#include "pattern.h"
#include "step.h"

/* Skips the calling test (cr_skip_test, never a pass) when there is no CUDA device. */
void require_cuda_device(void);

/* The request the step binary would make for this device, with threads (0 = default). */
struct launch_request test_request(const struct step *step, unsigned threads, int variant);

/* Fails the test unless the step's total for data[0..n) is right. `what` names the case. */
void expect_correct_total(const struct step *step, const struct reduction_buffers *buffers,
                          const struct launch_request *request, enum finish finish,
                          const float *data, size_t n, const char *what);

/* The foundation's sizes: 0, 1, 2, 3, 31, ... 2^22+1, 2^25. */
extern const size_t MATRIX_SIZES[];
extern const int MATRIX_SIZES_COUNT;

#endif
