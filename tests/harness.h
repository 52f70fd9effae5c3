/* What the tests share: the ladder as the tests expect it, running a step's program the way a
 * student does (its exit code, stdout and stderr), capturing what a toolbox function prints,
 * skipping without a GPU, and reading text line by line. */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

enum { MAX_LISTED_VARIANTS = 4, LADDER_STEPS = 14 };

/* One step of the ladder, as the lesson describes it (not read from the step's own code). */
struct ladder_step {
    const char *name;      /* "step04": the program's name in its messages */
    const char *directory; /* "step04_idle": make builds directory/run */
    unsigned min_threads, max_threads;
    bool host_finish;                         /* offers --finish cpu */
    bool grid_size;                           /* offers --blocks */
    const char *correct[MAX_LISTED_VARIANTS]; /* variants that must pass --check; [0]: default */
    const char *other[MAX_LISTED_VARIANTS];   /* variants that are wrong or nondeterministic */
};
extern const struct ladder_step LADDER[LADDER_STEPS];
/* Parameters for a test of every step: the indices 0 .. LADDER_STEPS - 1 into LADDER (indices,
 * not pointers: Criterion copies parameters into the process that runs the test). */
struct criterion_test_params ladder_indices(void);

/* The CSV columns every step prints (common/report.c), in order. */
#define REPORT_CSV_HEADER                                                                          \
    "step,variant,n,pattern,flush,result,expected,error,bound,ok,ms_median,ms_min,gb_per_s,"       \
    "peak_pct,cub_ms_median,ratio_to_cub,kernel,finish,device,cuda"
enum csv_column {
    COL_STEP,
    COL_VARIANT,
    COL_N,
    COL_PATTERN,
    COL_FLUSH,
    COL_RESULT,
    COL_EXPECTED,
    COL_ERROR,
    COL_BOUND,
    COL_OK,
    COL_MS_MEDIAN,
    COL_MS_MIN,
    COL_GB_PER_S,
    COL_PEAK_PCT,
    COL_CUB_MS_MEDIAN,
    COL_RATIO_TO_CUB,
    COL_KERNEL,
    COL_FINISH,
    COL_DEVICE,
    COL_CUDA,
    CSV_COLUMNS
};
/* Splits one CSV line (no newline) in place. The kernel's name is in double quotes (its
 * template arguments hold commas; the quotes are dropped), and the device name may hold a
 * comma, so the fields before it are cut from the left and the CUDA version from the right. */
bool csv_split(char *line, char *fields[CSV_COLUMNS]);

/* ---- running a program ----------------------------------------------------------------- */
enum gpus { GPUS_VISIBLE, GPUS_HIDDEN }; /* hidden: CUDA_VISIBLE_DEVICES set to "" */
struct finished {
    int exit_code; /* -1 when a signal ended the program */
    char *out, *err;
};
/* Runs path with the NULL-terminated args, stdout and stderr each into a temporary file. A
 * path without a slash (mpirun, timeout) is looked up on PATH. */
struct finished program_run(const char *path, enum gpus gpus, const char *const *args);
/* The file whose lock a test holds while a program of its own uses the GPUs it sees
 * (build/tests/gpu.lock, or gpu-DEVICES.lock under CUDA_VISIBLE_DEVICES=DEVICES): the
 * tests run side by side, their programs on one GPU one at a time. labs/grade.sh takes it as
 * LAB_GPU_LOCK for its GPU stages (with several GPUs, LAB_GPU_LOCK.gpuK for GPU K, and
 * LAB_GPU_LOCK itself shared). */
const char *tests_gpu_lock(void);
/* program_run with the GPUs visible and the tests' GPU lock held: never for a program that
 * takes the lock itself (labs/grade.sh), which would wait for ever. Alone: the lock held
 * exclusive (a --check, a size that fills the GPU's memory); beside: shared, so that single
 * runs overlap one another but never a run that is alone; taking turns: alone for a --check,
 * else beside. */
struct finished program_run_alone(const char *path, const char *const *args);
struct finished program_run_beside(const char *path, const char *const *args);
struct finished program_run_taking_turns(const char *path, const char *const *args);
/* The step's program, directory/run, built by make (the tests run from the repository root);
 * with the GPUs visible it takes turns (program_run_taking_turns). */
struct finished step_run(const struct ladder_step *step, enum gpus gpus, const char *const *args);
#define STEP_RUN(step, gpus, ...) step_run((step), (gpus), (const char *const[]){__VA_ARGS__, NULL})
void finished_free(struct finished *finished);
/* The whole of a file the test wrote into (a tmpfile() beside a program it runs itself), as a
 * string the caller frees; closes the file. */
char *read_and_close(FILE *file);

/* Skips the calling test (never a pass) when this machine shows the tests no CUDA device,
 * with a message that starts with the step's name and gives the programs' own reason
 * (no_device_reason, common/device.c). */
void require_gpu(const char *step);
/* The same, and skips (never a pass) unless the machine shows the tests `wanted` CUDA devices
 * or more, saying how many it shows. */
void require_gpus(const char *step, int wanted);
/* How the name of step13's grid kernel ends for n floats on the first visible GPU: its loads,
 * by step13_gather/reduce.h's rule (streaming up to STREAMING_MOST_L2S L2s, cached past). */
const char *step13_loads_suffix(size_t n);

/* ---- what a toolbox function prints ----------------------------------------------------- */
struct capture {
    int fd, saved;
    void *file;
};
void capture_begin(struct capture *capture, int fd); /* STDOUT_FILENO or STDERR_FILENO */
char *capture_end(struct capture *capture);          /* the text; the caller frees it */

/* ---- text ----------------------------------------------------------------------------- */
int line_count(const char *text);
bool starts_with(const char *text, const char *prefix);
bool ends_with(const char *text, const char *suffix);
/* The next line of *cursor (without its newline) into buffer; false at the end. */
bool next_line(const char **cursor, char *buffer, size_t size);
/* The last non-empty line of text into buffer ("" when there is none). */
const char *last_line(const char *text, char *buffer, size_t size);
int lines_starting(const char *text, const char *prefix);

#endif
