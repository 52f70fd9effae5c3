/* Every step, in ladder order: what the tests and the benchmark iterate over. */
#ifndef REDUCE_REGISTRY_H
#define REDUCE_REGISTRY_H

#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct step *const all_steps[];
extern const int all_steps_count;

/* NULL when no step has that name. */
const struct step *find_step(const char *name);

#ifdef __cplusplus
}
#endif
#endif
