/* step16_rows: --check, every shape class through every kernel (checks.c). */
#ifndef STEP_CHECKS_H
#define STEP_CHECKS_H

#include "toolbox.h"

/* kernel, type: one of plan.h's enums, or -1 for every one. The exit code. */
int check_rows(const struct options *options, const struct device_info *device, int kernel,
               int type);

#endif
