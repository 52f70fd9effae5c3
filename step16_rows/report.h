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
    struct rows_verdict cub_verdict, flat_verdict; /* of CUB's sums, where CUB was timed */
    unsigned depth;                                /* launch_depth: the verdict's error bound */
};

/* Every row of the step's sums, and of CUB's where CUB ran, against the host's references;
 * CUB's flat total against the whole matrix's. */
void rows_run_judge(struct rows_run *run, const struct reference *references, const float *sums,
                    const float *cub_sums, float flat_total, unsigned sm_count);
/* Every row of the step judged right, and every sum of CUB's that was timed. */
bool rows_run_correct(const struct rows_run *run);

void rows_csv_header(void);
/* The human report, --quiet's one line, or --csv's row; a wrong sum of CUB's is also named on
 * stderr, whichever the format. */
void rows_report(const struct step_info *step, const struct options *options,
                 const struct device_info *device, const struct rows_run *run);

#endif
