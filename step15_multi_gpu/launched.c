/* step15_multi_gpu: the report's kernel and finish when several GPUs ran (launched.h). A GPU
 * whose shard fits step13's one-block kernel runs another kernel than a GPU whose shard is
 * one element longer, so one name does not always describe the run. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "launched.h"

static bool launched_any(const char *name)
{
    return name != NULL && name[0] != '\0';
}

const char *launched_by_every_gpu(const char *const *names, int gpus, const char *separator,
                                  char *text, size_t size)
{
    int first = -1;
    bool same = true;
    for (int rank = 0; rank < gpus; rank++) {
        if (!launched_any(names[rank])) continue;
        if (first < 0) first = rank;
        same = same && strcmp(names[rank], names[first]) == 0;
    }
    if (first < 0) return NULL;
    if (same) {
        snprintf(text, size, "%s", names[first]);
        return text;
    }
    /* snprintf counts what it would have written: past size, the loop stops */
    size_t used = (size_t)snprintf(text, size, "mixed:");
    for (int rank = first; rank < gpus && used < size; rank++) {
        if (!launched_any(names[rank])) continue;
        int wrote = snprintf(text + used, size - used, "%s GPU %d %s",
                             rank == first ? "" : separator, rank, names[rank]);
        used += wrote > 0 ? (size_t)wrote : size;
    }
    return text;
}
