/* step07_blocks — host side: the launch configuration of step07 and its descriptor.
 * A fixed grid, not one block per slice: --blocks B, or by default
 * request->sm_count * request->max_blocks_per_sm, the most blocks of this size that the
 * GPU holds at once (document 000's "#SM * 2" for its 1024-thread blocks; documents 001
 * and 004 fix 32 x 256, document 003 1024 blocks). Each thread adds
 * ceil(n / (blocks * threads)) elements; common/step.c (plan_grid_stride) holds the rule,
 * which step08 shares. The partials are reduced again (fewer blocks each pass) or on the
 * host (--finish cpu). */
#include "step.h"

PASS_LAUNCHER(step07_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_grid_stride(n, request);
}

const struct step step07 = {
    .name = "step07",
    .directory = "step07_blocks",
    .title = "Reduction 7 - a fixed grid (设置合适的block数量), many elements per thread",
    .lesson = "fill the GPU once, then let each thread stride through the input",
    .threads = {.fallback = 256, .min = 64, .max = 1024},
    .takes_block_count = true,
    .plan = plan,
    .launch = step07_launch,
};
