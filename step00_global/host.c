/* step00_global — host side: the launch configuration of step00 and its descriptor.
 * One thread per element, a block of 256 threads by default (the documents'
 * ThreadsPerBlock); the per-block sums are reduced again (common/passes.c) or on the host. */
#include "step.h"

enum { ELEMENTS_PER_THREAD = 1 };

PASS_LAUNCHER(step00_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_fixed_elements(n, request->threads, ELEMENTS_PER_THREAD);
}

const struct step step00 = {
    .name = "step00",
    .directory = "step00_global",
    .title = "Reduction 0 - add in place in global memory (全局内存)",
    .lesson = "every partial sum travels through DRAM; divergent, strided warps",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .destroys_input = true,
    .plan = plan,
    .launch = step00_launch,
};
