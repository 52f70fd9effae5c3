/* step09_single_pass — host side: the grid, the error bound's depth, and the hook that
 * enqueues the one launch. Up to ONE_BLOCK_ELEMENTS (4096) floats, unless --blocks asks for
 * a grid, the one-block kernel does it all with ONE_BLOCK_THREADS threads, whatever
 * --threads says. Above that the grid fills the GPU once (each SM holding as many blocks as
 * fit), or, when n is small, is just large enough that every thread needs one iteration:
 * up to FLOATS_PER_ITERATION * threads elements that is a single block, which needs no
 * partials and no ticket. */
#include "passes.h"
#include "single_pass.h"
#include "verify.h"

/* Inside a block: five shuffles within each warp, then five over the (up to 32) warp sums. */
enum { WARP_TREE_LEVELS = 5, BLOCK_TREE_LEVELS = 2 * WARP_TREE_LEVELS, WARP_SIZE = 32 };
/* The one-block kernel adds its thread's head-plus-tail float to the lanes' sum: one level. */
enum { EDGE_FLOAT_LEVELS = 1 };

static bool takes_one_block_kernel(size_t n, const struct launch_request *request)
{
    return request->blocks == 0 && n <= ONE_BLOCK_ELEMENTS;
}

static size_t divide_rounding_up(size_t a, size_t b) { return (a + b - 1) / b; }

/* Blocks that run at once on the whole GPU: what the occupancy calculator says fits an SM
 * (registers, shared memory, the SM's block limit), never more than its thread limit. */
static unsigned device_filling_blocks(const struct launch_request *request)
{
    int resident = step09_resident_blocks_per_sm(request->threads);
    int per_sm = resident > 0 && resident < request->max_blocks_per_sm ? resident
                                                                       : request->max_blocks_per_sm;
    int blocks = request->sm_count * per_sm;
    return blocks > 0 ? (unsigned)blocks : 1u;
}

/* Iterations of a thread's loop: each takes FLOATS_PER_ITERATION floats per thread. */
static size_t iterations(size_t n, unsigned blocks, unsigned threads)
{
    return divide_rounding_up(n, (size_t)blocks * threads * FLOATS_PER_ITERATION);
}

static struct pass_plan plan(size_t n, const struct launch_request *request)
{
    if (takes_one_block_kernel(n, request)) {
        struct pass_plan one_block = {.blocks = 1, .threads = ONE_BLOCK_THREADS,
                                      .elements_per_thread = FLOATS_PER_ITERATION};
        return one_block;
    }
    unsigned blocks = request->blocks;
    if (blocks == 0) {
        unsigned filling = device_filling_blocks(request);
        unsigned covering = blocks_covering(n, (size_t)request->threads * FLOATS_PER_ITERATION);
        blocks = covering < filling ? covering : filling;
    }
    struct pass_plan launch = {
        .blocks = blocks,
        .threads = request->threads,
        .elements_per_thread =
            (unsigned)(iterations(n, blocks, request->threads) * FLOATS_PER_ITERATION),
    };
    return launch;
}

/* The one-block kernel: the group's tree and the four lanes (2 + 2), the head and tail
 * float added in, five shuffles in the warp, log2(warps) over the warp sums. */
static unsigned one_block_depth(void)
{
    return tree_levels(VECTORS_PER_ITERATION) + tree_levels(FLOATS_PER_VECTOR) +
           EDGE_FLOAT_LEVELS + WARP_TREE_LEVELS + tree_levels(ONE_BLOCK_THREADS / WARP_SIZE);
}

/* The longest chain of float additions any element goes through (docs/verification.md):
 *   in the thread: the four vectors of a group are added as a tree (2), the group into the
 *     thread's float4 (1), which then takes one more group per remaining iteration; an
 *     element of the first iteration therefore sees iterations + 2 additions (a head or
 *     tail element starts a lane and sees fewer); then the float4's four lanes (2);
 *   in the block: five shuffle levels in the warp and five over the warp sums;
 *   with more than one block, in the last block: each thread adds groups of partials the
 *     same way (a tree of PARTIALS_IN_FLIGHT, then into its sum), then the block tree again. */
static unsigned accumulation_depth(size_t n, const struct launch_request *request)
{
    if (takes_one_block_kernel(n, request))
        return one_block_depth();
    struct pass_plan launch = plan(n, request);
    size_t in_thread = iterations(n, launch.blocks, launch.threads) +
                       tree_levels(VECTORS_PER_ITERATION) + tree_levels(FLOATS_PER_VECTOR);
    size_t finish = 0;
    if (launch.blocks > 1)
        finish = divide_rounding_up(launch.blocks, (size_t)launch.threads * PARTIALS_IN_FLIGHT) +
                 tree_levels(PARTIALS_IN_FLIGHT) + BLOCK_TREE_LEVELS;
    return (unsigned)(in_thread + BLOCK_TREE_LEVELS + finish);
}

static cudaError_t reduce(const struct reduction_buffers *buffers, size_t n,
                          const struct launch_request *request, float **device_total,
                          cudaStream_t stream)
{
    *device_total = buffers->partials[1];
    if (takes_one_block_kernel(n, request))
        return step09_launch_one_block(buffers->input, (unsigned)n, *device_total,
                                       buffers->block_clocks, stream);
    struct pass_plan launch = plan(n, request);
    /* Buffers made for a smaller n (or another request) have too few partials. */
    if (launch.blocks > buffers->partials_capacity[0]) return cudaErrorInvalidValue;
    launch.block_clocks = buffers->block_clocks;
    return step09_launch(buffers->input, n, launch, buffers->partials[0], buffers->ticket_counter,
                         *device_total, stream);
}

const struct step step09 = {
    .name = "step09",
    .directory = "step09_single_pass",
    .title = "Single pass - last-block finish, 128-bit loads (document 000's last-block guard)",
    .lesson = "blocks take tickets and the last one sums the partials: one launch, deterministic",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
    .takes_block_count = true,
    .plan = plan,
    .reduce = reduce,
    .accumulation_depth = accumulation_depth,
};
