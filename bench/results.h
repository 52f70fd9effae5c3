/* The benchmark's rows, the CSV they become, and the ladder's table on stdout. */
#ifndef BENCH_RESULTS_H
#define BENCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "device.h"
#include "timing.h"

/* The name CUB's rows carry in the step column. */
#define CUB_ROW_NAME "cub"

struct row {
    const char *step;                 /* a registry step's name, or CUB_ROW_NAME */
    size_t n;
    struct timing timing;
    double gb_per_s;
    double peak_pct;
    double ratio_to_cub;              /* CUB's median / this median; 0 when CUB has none */
};

struct results {
    struct row *rows;
    int count, capacity;
    const struct device_info *device;
    char cuda_version[16];            /* the runtime's, e.g. "13.0" */
    char date[32];                    /* when the run started, ISO 8601 in UTC */
};

bool results_create(struct results *results, int capacity, const struct device_info *device);
void results_destroy(struct results *results);

/* cub_median_ms: CUB's time at the same n, 0 when there is none. */
void results_add(struct results *results, const char *step, size_t n, struct timing timing,
                 double cub_median_ms);

/* "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3": only [A-Za-z0-9_-] in file names. */
void sanitize_file_name(const char *name, char *out, size_t size);

/* docs/results/<gpu>.csv, or build/bench/<gpu>.csv for a subset run. */
void default_output_path(const char *gpu_name, bool subset, char *out, size_t size);

/* Writes the CSV through a temporary file, creating missing directories. */
bool results_write_csv(const struct results *results, const char *path);

/* The rows at n, as an aligned table. */
void results_print_table(FILE *out, const struct results *results, size_t n);

#endif
