/* step03_bank — host side: the launch configuration of step03 and its descriptor.
 * One thread per element, a block of 256 threads by default (the documents'
 * ThreadsPerBlock); the per-block sums are reduced again (common/passes.c) or on the host. */
#include "step.h"

enum { ELEMENTS_PER_THREAD = 1 };

PASS_LAUNCHER(step03_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_fixed_elements(n, request->threads, ELEMENTS_PER_THREAD);
}

const struct step step03 = {
    .name = "step03",
    .directory = "step03_bank",
    .title = "Reduction 3 - sequential addressing, no bank conflicts (存储体冲突)",
    .lesson = "consecutive threads touch consecutive banks",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .plan = plan,
    .launch = step03_launch,
};
