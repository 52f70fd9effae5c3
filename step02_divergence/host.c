/* step02_divergence — host side: the launch configuration of step02 and its descriptor.
 * One thread per element, a block of 256 threads by default (the documents'
 * ThreadsPerBlock); the per-block sums are reduced again (common/passes.c) or on the host. */
#include "step.h"

enum { ELEMENTS_PER_THREAD = 1 };

PASS_LAUNCHER(step02_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_fixed_elements(n, request->threads, ELEMENTS_PER_THREAD);
}

const struct step step02 = {
    .name = "step02",
    .directory = "step02_divergence",
    .title = "Reduction 2 - no warp divergence (线程束分化): strided index",
    .lesson = "pack the working threads into whole warps",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .plan = plan,
    .launch = step02_launch,
};
