/* step05_unroll_warp — host side: the launch configuration of step05 and its descriptor.
 * step04's grid (two elements per thread, 256 threads by default); the last warp reads
 * partial[t + 16] for t < 32, so a block has at least 64 threads. --variant picks how
 * the last warp is written; the per-block sums are reduced again or on the host. */
#include "step.h"

enum { ELEMENTS_PER_THREAD = 2 };

PASS_LAUNCHER(step05_launch);

/* reduce.cu indexes its kernels by this order; variants[0] is the default. */
static const struct variant VARIANTS[] = {
    {"syncwarp", true, "__syncwarp() between the last warp's levels: correct on Volta and later"},
    {"volatile", false,
     "document 003's fix: right sums on today's compilers, but it relies on lock-step warps, "
     "which Volta no longer promises; racecheck reports it"},
    {"wrong-loop", false, "document 003's first attempt: no barrier below 32 threads, no volatile"},
    {"wrong-unrolled", false, "document 003's second attempt: the unrolled tail without volatile"},
    {NULL, false, NULL},
};

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    struct pass_plan plan = plan_fixed_elements(n, request->threads, ELEMENTS_PER_THREAD);
    plan.variant = request->variant;
    return plan;
}

const struct step step05 = {
    .name = "step05",
    .directory = "step05_unroll_warp",
    .title = "Reduction 5 - unroll the last warp (展开最后一维), no barriers inside it",
    .lesson = "the last 32 partial sums need no __syncthreads(), but they need __syncwarp()",
    .threads = {.fallback = 256, .min = 64, .max = 1024},
    .variants = VARIANTS,
    .plan = plan,
    .launch = step05_launch,
};
