/* step08_shuffle — host side: the launch configuration of step08 and its descriptor.
 * step07's grid and plan (common/step.c, plan_grid_stride): --blocks B, or by default
 * enough blocks to fill every SM once. Without a shared-memory tree a block may be a
 * single warp, so the block size goes down to 32. The partials are reduced again (fewer
 * blocks each pass) or on the host (--finish cpu). */
#include "step.h"

PASS_LAUNCHER(step08_launch);

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    return plan_grid_stride(n, request);
}

const struct step step08 = {
    .name = "step08",
    .directory = "step08_shuffle",
    .title = "Reduction 8 - warp shuffle (洗牌/shuffle): the warp's tree in registers",
    .lesson = "__shfl_down_sync adds across a warp's registers, no shared memory, no barrier",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .takes_block_count = true,
    .plan = plan,
    .launch = step08_launch,
};
