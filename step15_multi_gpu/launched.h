/* step15_multi_gpu: the report's kernel and finish when several GPUs ran. Plain C without
 * NCCL or CUDA, so that the tests compile it in on any machine. */
#ifndef STEP15_LAUNCHED_H
#define STEP15_LAUNCHED_H

#include <stddef.h>

/* What every GPU launched, names[rank] (NULL or "": that GPU launched nothing, as the GPUs
 * other than 0 in gather): the one name when all the GPUs that launched agree, else
 * "mixed: GPU 0 A<separator> GPU 1 B..." listing each of them; in text either way, cut at
 * size. NULL when none launched. */
const char *launched_by_every_gpu(const char *const *names, int gpus, const char *separator,
                                  char *text, size_t size);

#endif
