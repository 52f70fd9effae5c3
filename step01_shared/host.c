/* step01_shared — host side: the launch configuration of step01 and its descriptor.
 * One thread per element, a block of 256 threads by default (the documents'
 * ThreadsPerBlock); the per-block sums are reduced again (common/passes.c) or on the host. */
#include "step.h"

enum { ELEMENTS_PER_THREAD = 1 };

PASS_LAUNCHER(step01_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_fixed_elements(n, request->threads, ELEMENTS_PER_THREAD);
}

const struct step step01 = {
    .name = "step01",
    .directory = "step01_shared",
    .title = "Reduction 1 - the same tree in shared memory (共享内存)",
    .lesson = "one coalesced read of DRAM, then the tree on chip",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .plan = plan,
    .launch = step01_launch,
};
