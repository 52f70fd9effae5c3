/* step06_full_unroll — host side: the launch configuration of step06 and its descriptor.
 * step05's grid (two elements per thread, 256 threads by default); the block size must be
 * one of the kernel's template instantiations, a power of two from 64 to 1024. The
 * per-block sums are reduced again (common/passes.c) or on the host. */
#include "step.h"

enum { ELEMENTS_PER_THREAD = 2 };

PASS_LAUNCHER(step06_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_fixed_elements(n, request->threads, ELEMENTS_PER_THREAD);
}

const struct step step06 = {
    .name = "step06",
    .directory = "step06_full_unroll",
    .title = "Reduction 6 - the whole tree unrolled (完全展开) for a template block size",
    .lesson = "a block size known at compile time turns the tree into straight-line code",
    .threads = {.fallback = 256, .min = 64, .max = 1024},
    .plan = plan,
    .launch = step06_launch,
};
