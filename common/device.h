/* The GPU we run on, and the arithmetic that turns its datasheet into a bandwidth ceiling. */
#ifndef REDUCE_DEVICE_H
#define REDUCE_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct device_info {
    int id;
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    int memory_clock_khz;
    int bus_width_bits;
    double peak_gb_per_s;
    size_t l2_bytes;
    int max_threads_per_sm;
    int max_blocks_per_sm;            /* resident blocks an SM can hold, whatever their size */
    size_t free_bytes, total_bytes;
    int runtime_version;              /* e.g. 13000 for CUDA 13.0 */
};

/* Fills *device for device 0. On failure writes why (e.g. "no CUDA device: ...") and
 * returns false. */
bool device_query(struct device_info *device, char *why, size_t why_size);

/* Theoretical peak: data moves on both clock edges (x2) over the whole bus. */
double peak_bandwidth_gb_per_s(int memory_clock_khz, int bus_width_bits);

/* Bytes read over time: what a reduction achieves. */
double effective_gb_per_s(double bytes, double milliseconds);

#ifdef __cplusplus
}
#endif
#endif
