#include "step.h"

#include <string.h>

int step_variant_count(const struct step *step)
{
    int count = 0;
    if (step->variants != NULL)
        while (step->variants[count].name != NULL) count++;
    return count;
}

int step_find_variant(const struct step *step, const char *name)
{
    for (int i = 0; i < step_variant_count(step); i++)
        if (strcmp(step->variants[i].name, name) == 0) return i;
    return -1;
}

unsigned blocks_covering(size_t n, size_t elements_per_block)
{
    size_t blocks = (n + elements_per_block - 1) / elements_per_block;
    return blocks > 0 ? (unsigned)blocks : 1u;
}

struct pass_plan plan_fixed_elements(size_t n, unsigned threads, unsigned elements_per_thread)
{
    struct pass_plan plan = {
        .blocks = blocks_covering(n, (size_t)threads * elements_per_thread),
        .threads = threads,
        .elements_per_thread = elements_per_thread,
    };
    return plan;
}

struct pass_plan plan_grid_stride(size_t n, const struct launch_request *request)
{
    unsigned filling = (unsigned)(request->sm_count * request->max_blocks_per_sm);
    unsigned grid = request->blocks ? request->blocks : filling;
    unsigned enough = blocks_covering(n, (size_t)request->threads * GRID_STRIDE_MIN_ELEMENTS);
    /* grid is 0 only in a request made without the device's numbers */
    unsigned blocks = grid > 0 && grid < enough ? grid : enough;
    size_t grid_threads = (size_t)blocks * request->threads;
    struct pass_plan plan = {
        .blocks = blocks,
        .threads = request->threads,
        .elements_per_thread = (unsigned)((n + grid_threads - 1) / grid_threads),
    };
    return plan;
}
