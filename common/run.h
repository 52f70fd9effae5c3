/* The whole life of a step binary: parse, check the device, reduce, verify, report.
 * Returns the process exit code (enum exit_code). */
#ifndef REDUCE_RUN_H
#define REDUCE_RUN_H

#include "cli.h"
#include "device.h"
#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

int run_step(const struct step *step, int argc, char **argv);

/* The request the options and the device make: threads and blocks resolved. */
struct launch_request launch_request_for(const struct step *step, const struct options *options,
                                         const struct device_info *device);

/* "not enough device memory: need ... MiB, ... MiB free": false when it does not fit. */
bool device_memory_fits(const struct device_info *device, size_t needed_bytes);

#ifdef __cplusplus
}
#endif
#endif
