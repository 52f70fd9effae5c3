/* step16_rows: what a run prints (report.c), as common/report.c prints a flat step's run. */
#ifndef STEP_REPORT_H
#define STEP_REPORT_H

#include "matrix.h"
#include "toolbox.h"

/* A run: the matrix, the launch and what it measured. */
struct rows_run {
    struct matrix_shape shape;
    enum element_type type;
    struct rows_launch launch;
    bool forced;                   /* --kernel named the kernel; otherwise the chooser picked it */
    struct timing time, cub, flat; /* cub: the segmented sum, flat: one sum; runs 0: not timed */
    struct rows_verdict verdict;
    unsigned depth; /* launch_depth: the verdict's error bound */
};

void rows_csv_header(void);
/* The human report, --quiet's one line, or --csv's row. */
void rows_report(const struct step_info *step, const struct options *options,
                 const struct device_info *device, const struct rows_run *run);

#endif
