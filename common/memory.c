#include <string.h>

#include "toolbox.h"

static const double BYTES_PER_MIB = 1024.0 * 1024.0;

size_t memory_rounded(size_t bytes)
{
    size_t granules = (bytes + ALLOCATION_GRANULE - 1) / ALLOCATION_GRANULE;
    return (granules > 0 ? granules : 1) * ALLOCATION_GRANULE;
}

size_t memory_plan_need(const struct memory_plan *plan, int copies)
{
    return plan->fixed_bytes + (size_t)copies * plan->copy_bytes +
           (copies > 1 ? RUNTIME_HEADROOM : 0);
}

struct memory_plan memory_plan_make(size_t fixed_bytes, size_t copy_bytes, size_t free_bytes,
                                    int wanted)
{
    struct memory_plan plan = {fixed_bytes, memory_rounded(copy_bytes), free_bytes, 0};
    while (plan.copies < wanted && memory_plan_need(&plan, plan.copies + 1) <= free_bytes)
        plan.copies++;
    return plan;
}

void memory_plan_explain(const struct memory_plan *plan, const char *what, const char *fixed_what,
                         const char *device_name)
{
    fprintf(stderr,
            "not enough device memory for one copy of %s: it needs %.0f MiB (%.0f MiB the copy",
            what, memory_plan_need(plan, 1) / BYTES_PER_MIB, plan->copy_bytes / BYTES_PER_MIB);
    if (plan->fixed_bytes > 0)
        fprintf(stderr, ", %.0f MiB %s", plan->fixed_bytes / BYTES_PER_MIB, fixed_what);
    fprintf(stderr, "), and %.0f MiB are free on %s\n", plan->free_bytes / BYTES_PER_MIB,
            device_name);
}

void memory_fixed_add(struct memory_fixed *fixed, size_t bytes, const char *name)
{
    size_t used = strlen(fixed->names);
    fixed->bytes += memory_rounded(bytes);
    snprintf(fixed->names + used, sizeof fixed->names - used, "%s%s", used > 0 ? ", " : "", name);
}
