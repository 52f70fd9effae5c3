/* step04_idle — host side: the launch configuration of step04 and its descriptor.
 * One thread per element pair, a block of 256 threads by default (the documents'
 * ThreadsPerBlock); the per-block sums are reduced again (common/passes.c) or on the host. */
#include "step.h"

enum { ELEMENTS_PER_THREAD = 2 };

PASS_LAUNCHER(step04_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_fixed_elements(n, request->threads, ELEMENTS_PER_THREAD);
}

const struct step step04 = {
    .name = "step04",
    .directory = "step04_idle",
    .title = "Reduction 4 - first add during load, no idle threads (idle线程)",
    .lesson = "every thread adds two elements before the tree; half the blocks",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .plan = plan,
    .launch = step04_launch,
};
