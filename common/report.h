/* What a run prints: the human report, the one-line CSV, the quiet verdict. */
#ifndef REDUCE_REPORT_H
#define REDUCE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "device.h"
#include "step.h"
#include "timing.h"

#ifdef __cplusplus
extern "C" {
#endif

struct report {
    const struct step *step;
    const struct device_info *device;
    size_t n;
    char pattern[64];
    const char *variant;              /* NULL for steps without variants */
    struct pass_plan plan;            /* the first launch */
    unsigned passes;
    enum finish finish;
    float result;
    double expected;
    double bound;                     /* 0: exact comparison */
    bool ok;
    struct timing timing;
    double bytes_read;
    double gb_per_s;
    double peak_pct;
};

/* Fills gb_per_s and peak_pct from bytes_read, timing and the device's peak. */
void report_derive_bandwidth(struct report *report);

void report_human(FILE *out, const struct report *report);
void report_csv_header(FILE *out);
void report_csv_row(FILE *out, const struct report *report);
void report_verdict(FILE *out, const struct report *report);

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
void csv_field(FILE *out, const char *text);

#ifdef __cplusplus
}
#endif
#endif
