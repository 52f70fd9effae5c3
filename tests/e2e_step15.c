/* step15_multi_gpu's program, run as a student runs it: its own options --gpus and --timeout
 * and its variants, refused with exit code 2 and a message that names the bad value; --help;
 * a machine that shows it no GPU (exit 3). With a GPU: every variant's --check on all visible
 * GPUs and on one, n smaller than the number of GPUs (and 0), the report's own lines, and one
 * process per GPU under mpirun. With two GPUs or more: every variant's --check on two GPUs in
 * one process and under mpirun -np 2, uneven and empty shards both ways, and a rank of
 * mpirun -np 2 killed or stopped in the middle of its runs, or stopped before NCCL's set-up,
 * after which the other must end with a non-zero exit code within a bound; the report names
 * each GPU's kernel where they differ. Without the GPUs, or without mpirun, those are skipped
 * with a message that names step15 and the reason, never passed; so is every test where make
 * left step15 out for want of NCCL (its note says so). The report's naming of several GPUs'
 * kernels (launched.c, compiled in here: the tests link no object of step15, which needs
 * NCCL) is tested on the host. The tests run from the repository root after `make` (`make
 * test` does both). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"
/* launched_by_every_gpu, compiled in: the tests link no object of step15 (it needs NCCL) */
#include "../step15_multi_gpu/launched.c"

extern char **environ;

/* step15 as the lesson describes it: 128 .. 1024 threads, no host finish, no --blocks; every
 * one of its VARIANTS must pass --check. */
static const struct ladder_step STEP15 = {
    .name = "step15", .directory = "step15_multi_gpu", .min_threads = 128, .max_threads = 1024};
static const char PROGRAM[] = "./step15_multi_gpu/run"; /* as mpirun's argument */
static const char MPIRUN[] = "mpirun";
static const char *const VARIANTS[] = {"local", "gather", "elementwise"};
enum { VARIANT_COUNT = sizeof VARIANTS / sizeof VARIANTS[0] };
static const char CHECK_PASSED[] = "check: all ";
static const char WITHOUT_MPI[] = "built without MPI";
enum { MAX_WORDS = 32, GPU_TEST_TIMEOUT_S = 600 };
/* mpirun that cannot start its rank (a container without the network it expects) may wait
 * forever: coreutils' timeout ends it, and the test fails saying so. */
static const char MPIRUN_LIMIT_S[] = "300";

/* ---- running the program ----------------------------------------------------------------- */

/* What `make -s nccl-note` prints where the Makefile left step15 out for want of NCCL. */
static const char NCCL_NOTE_WORDS[] = "needs NCCL";
enum { NOTE_SIZE = 512 };

/* step15's program is built, or the test is skipped with the Makefile's note where make left
 * it out for want of NCCL (make reads NCCL_HOME as `make test` was given it: from the
 * environment, or from the command line through MAKEFLAGS). A program missing where make
 * finds NCCL fails the test. tests/e2e_large.c runs step15 too. */
void require_step15_built(void)
{
    char note[NOTE_SIZE];
    if (access(PROGRAM, X_OK) == 0) return;
    struct finished make = program_run(
        "make", GPUS_VISIBLE,
        (const char *const[]){"-s", "--no-print-directory", "nccl-note", NULL});
    last_line(make.out, note, sizeof note);
    bool left_out = make.exit_code == 0 && strstr(note, NCCL_NOTE_WORDS) != NULL;
    cr_log_info("make -s nccl-note -> exit %d\n%s%s", make.exit_code, make.out, make.err);
    finished_free(&make);
    if (left_out) cr_skip_test("step15: %s is not built: %s", PROGRAM, note);
    cr_assert_fail("%s is not built, though make finds NCCL (make -s nccl-note: '%s'): run the "
                   "tests from the repository root after make (make test does both)",
                   PROGRAM, note);
}

/* What a run printed, in the test's log: a failing test shows it. */
static struct finished logged(struct finished run, const char *program)
{
    cr_log_info("%s ... -> exit %d\n--- stdout\n%s--- stderr\n%s", program, run.exit_code, run.out,
                run.err);
    return run;
}

/* The step's program with the NULL-terminated args. */
static struct finished run_program(enum gpus gpus, const char *const *args)
{
    require_step15_built();
    return logged(step_run(&STEP15, gpus, args), PROGRAM);
}
#define RUN(gpus, ...) run_program((gpus), (const char *const[]){__VA_ARGS__, NULL})

/* Whether `name` is an executable file in a directory of PATH. */
static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    char *copy = strdup(path != NULL ? path : ""), *saved = NULL, candidate[4096];
    bool found = false;
    cr_assert_not_null(copy);
    for (char *dir = strtok_r(copy, ":", &saved); dir != NULL && !found;
         dir = strtok_r(NULL, ":", &saved)) {
        snprintf(candidate, sizeof candidate, "%s/%s", dir, name);
        found = access(candidate, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* --check's summary line is the last line of stdout. */
static void expect_check_passed(const struct finished *o, const char *what)
{
    const char *summary = strstr(o->out, CHECK_PASSED);
    cr_expect_eq(o->exit_code, EXIT_CORRECT, "%s: exit %d\n%s%s", what, o->exit_code, o->out,
                 o->err);
    cr_expect(summary != NULL && strchr(summary, '\n') == summary + strlen(summary) - 1,
              "%s: no passing summary line '%s...' at the end of stdout:\n%s", what, CHECK_PASSED,
              o->out);
    cr_expect(strstr(o->out, "FAILED") == NULL, "%s: failing cases:\n%s", what, o->out);
}

/* ---- without a GPU ------------------------------------------------------------------------ */

Test(step15, help_lists_gpus_and_every_variant)
{
    struct finished o = RUN(GPUS_HIDDEN, "--help");
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "--help: exit %d", o.exit_code);
    cr_expect(strstr(o.out, "usage: step15/run") != NULL, "--help:\n%s", o.out);
    cr_expect(strstr(o.out, "--gpus K") != NULL, "--help does not offer --gpus:\n%s", o.out);
    cr_expect(strstr(o.out, "[as step13: 512, or 1024") != NULL,
              "--help does not give step13's block sizes:\n%s", o.out);
    for (int v = 0; v < VARIANT_COUNT; v++)
        cr_expect(strstr(o.out, VARIANTS[v]) != NULL, "--help does not list variant %s:\n%s",
                  VARIANTS[v], o.out);
    finished_free(&o);
}

/* A bad command line, and what the message must quote. */
struct bad_line {
    const char *words[3];
    const char *named;
};
static const struct bad_line BAD_LINES[] = {
    {{"--gpus", "0"}, "'0'"},
    {{"--gpus", "x"}, "'x'"},
    {{"--gpus", "-1"}, "'-1'"},
    {{"--gpus", "2x"}, "'2x'"},
    {{"--gpus", "65"}, "'65'"},
    {{"--gpus", ""}, "''"},
    {{"--gpus"}, "'--gpus'"},
    {{"--variant", "bogus"}, "'bogus'"},
    {{"--variant", "allreduce"}, "'allreduce'"},
    {{"--threads", "64"}, "'64'"},
    {{"--timeout", "0"}, "'0'"},
    {{"--timeout", "1s"}, "'1s'"},
    {{"--timeout", "3601"}, "'3601'"},
};

Test(step15, bad_command_lines_exit_2_naming_the_value)
{
    for (size_t b = 0; b < sizeof BAD_LINES / sizeof BAD_LINES[0]; b++) {
        const struct bad_line *bad = &BAD_LINES[b];
        /* GPUs hidden: the command line must be refused before any device is looked at */
        struct finished o = run_program(GPUS_HIDDEN, bad->words);
        cr_expect_eq(o.exit_code, EXIT_USAGE, "%s %s: exit %d, not %d", bad->words[0],
                     bad->words[1] ? bad->words[1] : "", o.exit_code, EXIT_USAGE);
        cr_expect(strstr(o.err, bad->named) != NULL, "%s: stderr does not name %s:\n%s",
                  bad->words[0], bad->named, o.err);
        cr_expect_eq(o.out[0], '\0', "%s: a usage error printed on stdout:\n%s", bad->words[0],
                     o.out);
        finished_free(&o);
    }
}

Test(step15, no_gpu_exits_3_saying_so)
{
    const char *const *lines[] = {(const char *const[]){"-n", "7", NULL},
                                  (const char *const[]){"--check", "--gpus", "1", NULL},
                                  (const char *const[]){"--variant", "gather", NULL}};
    for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
        struct finished o = run_program(GPUS_HIDDEN, lines[l]);
        cr_expect_eq(o.exit_code, EXIT_ENVIRONMENT, "%s: exit %d, not %d", lines[l][0], o.exit_code,
                     EXIT_ENVIRONMENT);
        cr_expect(strstr(o.err, "step15: no CUDA device") != NULL, "%s: stderr:\n%s", lines[l][0],
                  o.err);
        finished_free(&o);
    }
}

/* The report's kernel when several GPUs ran (launched.c): one name when they agree, the list
 * when they do not, whichever GPU differs; a GPU that launched nothing (gather's others) is
 * left out. */
Test(step15, the_report_names_every_gpus_kernel_when_they_differ)
{
    static const char GRID[] = "reduce_last_block<512, FEWEST_VECTORS, VARIANT_GATHER>",
                      SMALL[] = "reduce_small";
    char text[256];
    const char *agree[] = {GRID, GRID, GRID}, *last_differs[] = {GRID, GRID, SMALL},
               *first_differs[] = {SMALL, GRID}, *gather[] = {GRID, NULL, ""}, *none[] = {NULL, ""};
    cr_expect_str_eq(launched_by_every_gpu(agree, 3, ",", text, sizeof text), GRID);
    cr_expect_str_eq(launched_by_every_gpu(last_differs, 3, ",", text, sizeof text),
                     "mixed: GPU 0 reduce_last_block<512, FEWEST_VECTORS, VARIANT_GATHER>, GPU 1 "
                     "reduce_last_block<512, FEWEST_VECTORS, VARIANT_GATHER>, GPU 2 reduce_small");
    cr_expect_str_eq(launched_by_every_gpu(first_differs, 2, ";", text, sizeof text),
                     "mixed: GPU 0 reduce_small; GPU 1 reduce_last_block<512, FEWEST_VECTORS, "
                     "VARIANT_GATHER>");
    cr_expect_str_eq(launched_by_every_gpu(gather, 3, ",", text, sizeof text), GRID);
    cr_expect_null(launched_by_every_gpu(none, 2, ",", text, sizeof text));
    /* too small a text: cut, never past its end */
    enum { SHORT = 12 };
    char tail[SHORT + 1];
    memset(tail, '#', sizeof tail);
    cr_expect_str_eq(launched_by_every_gpu(last_differs, 3, ",", tail, SHORT), "mixed: GPU ");
    cr_expect_eq(tail[SHORT], '#', "written past the text's size");
}

/* ---- on a GPU ----------------------------------------------------------------------------- */

ParameterizedTestParameters(step15, check_passes_on_every_visible_gpu)
{
    static int variants[VARIANT_COUNT];
    for (int v = 0; v < VARIANT_COUNT; v++) variants[v] = v;
    return cr_make_param_array(int, variants, VARIANT_COUNT);
}

ParameterizedTest(int *variant, step15, check_passes_on_every_visible_gpu,
                  .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpu(STEP15.name);
    struct finished o = RUN(GPUS_VISIBLE, "--check", "--variant", VARIANTS[*variant]);
    expect_check_passed(&o, VARIANTS[*variant]);
    finished_free(&o);
}

Test(step15, check_passes_on_one_gpu, .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpu(STEP15.name);
    struct finished o = RUN(GPUS_VISIBLE, "--gpus", "1", "--check");
    expect_check_passed(&o, "--gpus 1");
    finished_free(&o);
}

/* n below the number of GPUs: some shards are empty, and the total must still be exact. */
Test(step15, fewer_elements_than_gpus_are_summed_exactly, .timeout = GPU_TEST_TIMEOUT_S)
{
    static const char *const SIZES[] = {"0", "1", "7"};
    require_gpu(STEP15.name);
    for (int v = 0; v < VARIANT_COUNT; v++)
        for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
            struct finished o = RUN(GPUS_VISIBLE, "-n", SIZES[s], "--quiet", "--variant",
                                    VARIANTS[v], "--pattern", "uniform");
            cr_expect_eq(o.exit_code, EXIT_CORRECT, "-n %s --variant %s: exit %d\n%s", SIZES[s],
                         VARIANTS[v], o.exit_code, o.err);
            cr_expect(line_count(o.out) == 1 && strstr(o.out, " CORRECT\n") != NULL,
                      "-n %s --variant %s --quiet: not one CORRECT line:\n%s", SIZES[s],
                      VARIANTS[v], o.out);
            finished_free(&o);
        }
}

Test(step15, the_report_has_the_multi_gpu_lines, .timeout = GPU_TEST_TIMEOUT_S)
{
    static const char *const LINES[] = {"\ncheck ",   "\ntime ",    "\nbandwidth ", "\ngpus ",
                                        "\ncombine ", "\none GPU ", "\nspeed-up "};
    require_gpu(STEP15.name);
    struct finished o = RUN(GPUS_VISIBLE, "-n", "2^20", "--iters", "3", "--warmup", "1",
                            "--no-cub");
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "exit %d\n%s", o.exit_code, o.err);
    for (size_t l = 0; l < sizeof LINES / sizeof LINES[0]; l++)
        cr_expect(strstr(o.out, LINES[l]) != NULL, "no line starting '%s' in the report:\n%s",
                  LINES[l] + 1, o.out);
    cr_expect(strstr(o.out, "-> CORRECT") != NULL, "the report's verdict:\n%s", o.out);
    finished_free(&o);
}

/* Without --threads each GPU takes step13's block size for its shard: 512 at 2^28 floats, 1024
 * at 2^30 (past 32768 blocks of 512 with 8 or 12 float4 a thread, the counts step13 picks);
 * --threads 512 keeps 512. The launch line names the size the kernel ran with. */
Test(step15, one_gpu_takes_step13s_block_size_unless_threads_is_given,
     .timeout = GPU_TEST_TIMEOUT_S)
{
    static const struct {
        const char *n, *threads, *named;
    } CASES[] = {
        {"2^28", NULL, "step13's kernel (512 threads a block)"},
        {"2^30", NULL, "step13's kernel (1024 threads a block)"},
        {"2^30", "512", "step13's kernel (512 threads a block)"},
    };
    require_gpu(STEP15.name);
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        struct finished o = CASES[c].threads == NULL
                                ? RUN(GPUS_VISIBLE, "--gpus", "1", "-n", CASES[c].n, "--iters", "1",
                                      "--warmup", "0", "--buffers", "1", "--no-cub")
                                : RUN(GPUS_VISIBLE, "--gpus", "1", "-n", CASES[c].n, "--iters", "1",
                                      "--warmup", "0", "--buffers", "1", "--no-cub", "--threads",
                                      CASES[c].threads);
        cr_expect_eq(o.exit_code, EXIT_CORRECT, "-n %s: exit %d\n%s", CASES[c].n, o.exit_code,
                     o.err);
        cr_expect(strstr(o.out, CASES[c].named) != NULL, "-n %s --threads %s: no '%s' in:\n%s",
                  CASES[c].n, CASES[c].threads ? CASES[c].threads : "absent", CASES[c].named,
                  o.out);
        finished_free(&o);
    }
}

/* ---- under mpirun ---------------------------------------------------------------------- */

/* words: timeout LIMIT mpirun [--allow-run-as-root] -np NP [wrapper...] PROGRAM args...
 * (NULL-terminated; `wrapper`, when not NULL, NULL-terminated too: a command that runs
 * PROGRAM args). As root, OpenMPI's mpirun refuses to start without --allow-run-as-root.
 * `limit` NULL: no timeout around it (the caller keeps its own bound). Skips the test where
 * there is no mpirun. */
static void mpirun_words(const char **words, const char *limit, const char *np,
                         const char *const *wrapper, const char *const *args)
{
    int w = 0;
    require_step15_built();
    if (!on_path(MPIRUN))
        cr_skip_test("step15: no %s on PATH: the one-process-per-GPU mode is not tried", MPIRUN);
    if (limit != NULL) {
        words[w++] = "timeout";
        words[w++] = limit;
    }
    words[w++] = MPIRUN;
    if (geteuid() == 0) words[w++] = "--allow-run-as-root";
    words[w++] = "-np";
    words[w++] = np;
    for (int a = 0; wrapper != NULL && wrapper[a] != NULL; a++) {
        cr_assert_lt(w + 2, MAX_WORDS, "too many words for this test");
        words[w++] = wrapper[a];
    }
    words[w++] = PROGRAM;
    for (int a = 0; args[a] != NULL; a++) {
        cr_assert_lt(w + 1, MAX_WORDS, "too many arguments for this test");
        words[w++] = args[a];
    }
    words[w] = NULL;
}

/* mpirun -np NP PROGRAM args..., bounded by MPIRUN_LIMIT_S; skipped where the program was
 * built without MPI. */
static struct finished run_mpirun(const char *np, const char *const *args)
{
    const char *words[MAX_WORDS];
    mpirun_words(words, MPIRUN_LIMIT_S, np, NULL, args);
    struct finished o = logged(program_run_alone(words[0], words + 1), words[0]);
    if (o.exit_code == EXIT_ENVIRONMENT && strstr(o.err, WITHOUT_MPI) != NULL) {
        finished_free(&o);
        cr_skip_test("step15: %s was %s (no mpicc when it was built): rebuild it where mpicc is "
                     "on PATH",
                     PROGRAM, WITHOUT_MPI);
    }
    cr_expect_neq(o.exit_code, 124, "mpirun -np %s did not finish within %s s", np, MPIRUN_LIMIT_S);
    return o;
}
#define MPIRUN_RUN(np, ...) run_mpirun((np), (const char *const[]){__VA_ARGS__, NULL})

/* One process per GPU, as across machines: here a single process, so that it runs on any
 * machine with one GPU. */
Test(step15, check_passes_under_mpirun, .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpu(STEP15.name);
    struct finished o = MPIRUN_RUN("1", "--check");
    expect_check_passed(&o, "mpirun -np 1");
    finished_free(&o);
}

/* ---- on two GPUs or more ----------------------------------------------------------------- */

ParameterizedTestParameters(step15, check_passes_on_two_gpus)
{
    static int variants[VARIANT_COUNT];
    for (int v = 0; v < VARIANT_COUNT; v++) variants[v] = v;
    return cr_make_param_array(int, variants, VARIANT_COUNT);
}

ParameterizedTest(int *variant, step15, check_passes_on_two_gpus, .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpus(STEP15.name, 2);
    struct finished o = RUN(GPUS_VISIBLE, "--check", "--gpus", "2", "--variant",
                            VARIANTS[*variant]);
    expect_check_passed(&o, VARIANTS[*variant]);
    finished_free(&o);
}

ParameterizedTestParameters(step15, check_passes_under_mpirun_on_two_gpus)
{
    static int variants[VARIANT_COUNT];
    for (int v = 0; v < VARIANT_COUNT; v++) variants[v] = v;
    return cr_make_param_array(int, variants, VARIANT_COUNT);
}

ParameterizedTest(int *variant, step15, check_passes_under_mpirun_on_two_gpus,
                  .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpus(STEP15.name, 2);
    struct finished o = MPIRUN_RUN("2", "--check", "--variant", VARIANTS[*variant]);
    expect_check_passed(&o, VARIANTS[*variant]);
    finished_free(&o);
}

/* Two shards: both empty (0), one empty (1), one longer by one (3, 1000003); every way, in
 * one process and under mpirun. */
Test(step15, uneven_and_empty_shards_on_two_gpus, .timeout = GPU_TEST_TIMEOUT_S)
{
    static const char *const SIZES[] = {"0", "1", "3", "1000003"};
    require_gpus(STEP15.name, 2);
    for (int mpi = 0; mpi < 2; mpi++)
        for (int v = 0; v < VARIANT_COUNT; v++)
            for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
                struct finished o = mpi ? MPIRUN_RUN("2", "-n", SIZES[s], "--quiet", "--variant",
                                                     VARIANTS[v])
                                        : RUN(GPUS_VISIBLE, "--gpus", "2", "-n", SIZES[s],
                                              "--quiet", "--variant", VARIANTS[v]);
                const char *how = mpi ? "mpirun -np 2" : "--gpus 2";
                cr_expect_eq(o.exit_code, EXIT_CORRECT, "%s -n %s --variant %s: exit %d\n%s", how,
                             SIZES[s], VARIANTS[v], o.exit_code, o.err);
                cr_expect(line_count(o.out) == 1 && strstr(o.out, " CORRECT\n") != NULL,
                          "%s -n %s --variant %s --quiet: not one CORRECT line:\n%s", how, SIZES[s],
                          VARIANTS[v], o.out);
                finished_free(&o);
            }
}

/* The report names the two shards' lengths and how the GPUs were driven. */
Test(step15, the_report_shows_two_uneven_shards, .timeout = GPU_TEST_TIMEOUT_S)
{
    static const char SHARDS[] = "2 shard(s) of 500001 .. 500002 floats";
    require_gpus(STEP15.name, 2);
    for (int mpi = 0; mpi < 2; mpi++) {
        struct finished o = mpi ? MPIRUN_RUN("2", "-n", "1000003", "--iters", "2", "--warmup", "0",
                                             "--no-cub")
                                : RUN(GPUS_VISIBLE, "--gpus", "2", "-n", "1000003", "--iters", "2",
                                      "--warmup", "0", "--no-cub");
        const char *driven = mpi ? "gpus       2, one per process under mpirun"
                                 : "gpus       2, all driven by one process";
        cr_expect_eq(o.exit_code, EXIT_CORRECT, "exit %d\n%s", o.exit_code, o.err);
        cr_expect(strstr(o.out, SHARDS) != NULL, "no '%s' in the report:\n%s", SHARDS, o.out);
        cr_expect(strstr(o.out, driven) != NULL, "no '%s' in the report:\n%s", driven, o.out);
        finished_free(&o);
    }
}

/* n = 8193 on two GPUs: shards of 4097 and 4096 floats. 4096 is step13's ONE_BLOCK_ELEMENTS
 * (256 threads x 4 float4): GPU 1 runs the one-block kernel, GPU 0 one block of the grid
 * kernel (FEWEST_VECTORS: its grid is small), which gathers. n = 8194 gives both GPUs 4097;
 * gather reduces all n on GPU 0 alone. In one process and under mpirun (each rank's name
 * gathered to rank 0), in the human report and in the CSV. */
static const char MIXED_N[] = "8193", SAME_N[] = "8194";
static const char GRID_KERNEL[] =
    "reduce_last_block<512, FEWEST_VECTORS, VARIANT_GATHER, STREAMING_LOADS>";
static const char MIXED_KERNEL[] = "mixed: GPU 0 reduce_last_block<512, FEWEST_VECTORS, "
                                   "VARIANT_GATHER, STREAMING_LOADS>, GPU 1 reduce_small";
static const char MIXED_FINISH[] = "mixed: GPU 0 gather; GPU 1 none: one block";

/* The two GPUs' run of n: in one process (mpi 0) or under mpirun -np 2 (where --gpus 2 is the
 * number of processes); the CSV row, or the human report (no --csv: the list ends early). */
static struct finished run_two(int mpi, const char *n, const char *variant, bool csv)
{
    const char *const args[] = {
        "--gpus", "2",       "-n", n,          "--threads", "512",      "--variant",
        variant,  "--iters", "2",  "--warmup", "0",         "--no-cub", csv ? "--csv" : NULL,
        NULL};
    return mpi ? run_mpirun("2", args) : run_program(GPUS_VISIBLE, args);
}

/* The report's kernel and finish lines, and the CSV's columns, are these. */
static void expect_kernel(int mpi, const char *n, const char *variant, const char *kernel,
                          const char *finish)
{
    char kernel_line[256], finish_line[128], row[1024], *fields[CSV_COLUMNS];
    const char *how = mpi ? "mpirun -np 2" : "--gpus 2";
    struct finished human = run_two(mpi, n, variant, false), csv = run_two(mpi, n, variant, true);
    snprintf(kernel_line, sizeof kernel_line, "\nkernel     %s\n", kernel);
    snprintf(finish_line, sizeof finish_line, "\nfinish     %s\n", finish);
    cr_expect_eq(human.exit_code, EXIT_CORRECT, "%s -n %s: exit %d\n%s", how, n, human.exit_code,
                 human.err);
    cr_expect(strstr(human.out, kernel_line) != NULL, "%s -n %s --variant %s: not '%s':\n%s", how,
              n, variant, kernel_line + 1, human.out);
    cr_expect(strstr(human.out, finish_line) != NULL, "%s -n %s --variant %s: not '%s':\n%s", how,
              n, variant, finish_line + 1, human.out);
    cr_expect_eq(csv.exit_code, EXIT_CORRECT, "%s -n %s --csv: exit %d\n%s", how, n, csv.exit_code,
                 csv.err);
    last_line(csv.out, row, sizeof row);
    cr_assert(csv_split(row, fields), "%s -n %s --csv: not %d columns: %s", how, n, CSV_COLUMNS,
              row);
    cr_expect_str_eq(fields[COL_KERNEL], kernel, "%s -n %s --csv", how, n);
    cr_expect_str_eq(fields[COL_FINISH], finish, "%s -n %s --csv", how, n);
    finished_free(&human);
    finished_free(&csv);
}

/* The three runs above, in one process (mpi 0) or under mpirun -np 2. */
static void expect_each_gpus_kernel(int mpi)
{
    require_gpus(STEP15.name, 2);
    expect_kernel(mpi, MIXED_N, "local", MIXED_KERNEL, MIXED_FINISH);
    expect_kernel(mpi, SAME_N, "local", GRID_KERNEL, "gather");
    expect_kernel(mpi, MIXED_N, "gather", GRID_KERNEL, "gather");
}

Test(step15, the_report_names_each_gpus_kernel_on_two_gpus, .timeout = GPU_TEST_TIMEOUT_S)
{
    expect_each_gpus_kernel(0);
}

Test(step15, the_report_names_each_ranks_kernel_under_mpirun, .timeout = GPU_TEST_TIMEOUT_S)
{
    expect_each_gpus_kernel(1);
}

/* ---- a lost rank ------------------------------------------------------------------------- */

/* The program's bound on every wait, the test's on the whole: after the signal, the other
 * rank must be gone within the program's bound and a margin for NCCL's abort and mpirun. */
static const char LOST_RANK_TIMEOUT_S[] = "10";
enum { LOST_RANK_BOUND_S = 60, START_LIMIT_S = 240 };
static const struct timespec POLL = {.tv_sec = 0, .tv_nsec = 50 * 1000 * 1000};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The parent of process `pid` (from /proc/PID/stat), or 0. */
static pid_t parent_of(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *file = fopen(path, "r");
    if (file == NULL) return 0;
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    const char *after_name = strrchr(text, ')'); /* the name may hold spaces */
    int parent = 0;
    char state = 0;
    if (after_name == NULL || sscanf(after_name + 1, " %c %d", &state, &parent) != 2) return 0;
    return (pid_t)parent;
}

static bool descends_from(pid_t pid, pid_t ancestor)
{
    enum { MOST_GENERATIONS = 8 }; /* mpirun, its daemon, a shell: a few at most */
    for (int g = 0; g < MOST_GENERATIONS && pid > 1; g++) {
        pid = parent_of(pid);
        if (pid == ancestor) return true;
    }
    return false;
}

/* Whether process `pid`'s environment holds `entry` ("NAME=value"). */
static bool environment_has(pid_t pid, const char *entry)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *file = fopen(path, "r");
    if (file == NULL) return false; /* gone, or not ours to read */
    char *line = NULL;
    size_t size = 0;
    bool found = false;
    /* the entries end with a NUL each */
    while (!found && getdelim(&line, &size, '\0', file) > 0) found = strcmp(line, entry) == 0;
    free(line);
    fclose(file);
    return found;
}

/* The step's process of MPI rank `rank` that mpirun `launcher` started, or 0. */
static pid_t rank_pid(pid_t launcher, int rank)
{
    char ompi[64], pmix[64];
    snprintf(ompi, sizeof ompi, "OMPI_COMM_WORLD_RANK=%d", rank);
    snprintf(pmix, sizeof pmix, "PMIX_RANK=%d", rank);
    DIR *proc = opendir("/proc");
    cr_assert_not_null(proc, "opendir(/proc): %s", strerror(errno));
    pid_t found = 0;
    for (struct dirent *e = readdir(proc); e != NULL && found == 0; e = readdir(proc)) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0 || pid == launcher || !descends_from(pid, launcher)) continue;
        if (environment_has(pid, ompi) || environment_has(pid, pmix)) found = pid;
    }
    closedir(proc);
    return found;
}

/* Whether `pid` has ended (gone, or a zombie its parent has not reaped yet). */
static bool process_ended(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *file = fopen(path, "r");
    if (file == NULL) return true;
    size_t length = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[length] = '\0';
    const char *after_name = strrchr(text, ')');
    return after_name == NULL || after_name[2] == 'Z' || after_name[2] == 'X';
}

/* Lines in a file that another process is still writing: read through a fresh open of it,
 * since a seek on the writer's own descriptor would move where the writer writes next. */
static int lines_in(FILE *file)
{
    char path[64];
    int lines = 0, c;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fileno(file));
    FILE *reader = fopen(path, "r");
    cr_assert_not_null(reader, "fopen(%s): %s", path, strerror(errno));
    while ((c = fgetc(reader)) != EOF) lines += c == '\n';
    fclose(reader);
    return lines;
}

/* words[0] started with its stdout and stderr into the two files (tmpfile()s), not waited for. */
static pid_t spawn_into(const char *const *words, FILE *out, FILE *err)
{
    cr_assert(out != NULL && err != NULL, "tmpfile: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fileno(err), STDERR_FILENO);
    pid_t launcher;
    int spawn_error = posix_spawnp(&launcher, words[0], &actions, NULL, (char *const *)words,
                                   environ);
    posix_spawn_file_actions_destroy(&actions);
    cr_assert_eq(spawn_error, 0, "cannot start %s: %s", words[0], strerror(spawn_error));
    return launcher;
}

/* SIGKILL: rank 1 is gone (mpirun notices, or NCCL reports it); SIGSTOP: rank 1 is still
 * there but never answers, which only the program's own bound on its waits can end. */
ParameterizedTestParameters(step15, a_lost_rank_ends_the_other)
{
    static int signals[] = {SIGKILL, SIGSTOP};
    return cr_make_param_array(int, signals, sizeof signals / sizeof signals[0]);
}

ParameterizedTest(int *signal_number, step15, a_lost_rank_ends_the_other,
                  .timeout = GPU_TEST_TIMEOUT_S)
{
    require_gpus(STEP15.name, 2);
    /* sizes that print a CSV row each, and enough runs after the first that the signal comes
     * in the middle of them; few enough a size that rank 0's yardstick on GPU 0 alone, which
     * rank 1 waits through, stays well inside --timeout */
    const char *words[MAX_WORDS];
    mpirun_words(words, NULL, "2", NULL,
                 (const char *const[]){"-n", "2^20..2^28", "--csv", "--iters", "200", "--warmup",
                                       "0", "--no-cub", "--timeout", LOST_RANK_TIMEOUT_S, NULL});
    FILE *out = tmpfile(), *err = tmpfile();
    pid_t launcher = spawn_into(words, out, err);

    /* the header and the first row: NCCL is set up and the ranks are in their runs */
    int status = 0;
    bool ended = false;
    double start = now_s();
    while (!(ended = waitpid(launcher, &status, WNOHANG) == launcher) && lines_in(out) < 2 &&
           now_s() - start < START_LIMIT_S)
        nanosleep(&POLL, NULL);
    pid_t victim = ended ? 0 : rank_pid(launcher, 1), survivor = ended ? 0 : rank_pid(launcher, 0);
    bool started = !ended && lines_in(out) >= 2 && victim > 0 && survivor > 0;
    if (started) cr_assert_eq(kill(victim, *signal_number), 0, "kill: %s", strerror(errno));

    /* the bound: rank 0 must end on its own, and mpirun with it */
    double signalled = now_s();
    while (started && !(ended = waitpid(launcher, &status, WNOHANG) == launcher) &&
           now_s() - signalled < LOST_RANK_BOUND_S) {
        if (*signal_number == SIGSTOP && process_ended(survivor) && !process_ended(victim))
            kill(victim, SIGKILL); /* the stopped rank: mpirun may wait for it */
        nanosleep(&POLL, NULL);
    }
    double took = now_s() - signalled;
    if (!ended) { /* clean up whatever is left, then fail */
        if (victim > 0) kill(victim, SIGKILL);
        if (survivor > 0) kill(survivor, SIGKILL);
        kill(launcher, SIGKILL);
        waitpid(launcher, &status, 0);
    }
    char *stdout_text = read_and_close(out), *stderr_text = read_and_close(err);
    cr_log_info("mpirun -np 2 ... -> %s\n--- stdout\n%s--- stderr\n%s",
                ended ? "ended" : "killed by the test", stdout_text, stderr_text);
    if (!started && strstr(stderr_text, WITHOUT_MPI) != NULL)
        cr_skip_test("step15: %s was %s (no mpicc when it was built): rebuild it where mpicc is "
                     "on PATH",
                     PROGRAM, WITHOUT_MPI);
    cr_assert(started, "the ranks did not reach their runs within %d s (mpirun %s):\n%s%s",
              START_LIMIT_S, ended ? "ended" : "still running", stdout_text, stderr_text);
    cr_expect(ended, "rank 0 and mpirun still ran %d s after rank 1 got signal %d",
              LOST_RANK_BOUND_S, *signal_number);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0,
              "mpirun must fail when a rank is lost: %s %d after %.1f s",
              WIFEXITED(status) ? "exit" : "signal",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), took);
    if (*signal_number == SIGSTOP)
        cr_expect(strstr(stderr_text, "(--timeout)") != NULL,
                  "rank 0 did not say that it gave up waiting:\n%s", stderr_text);
    free(stdout_text);
    free(stderr_text);
}

/* A rank that stops between MPI_Ibcast (NCCL's id received) and NCCL's set-up: rank 1 runs
 * with a library preloaded whose ncclCommInitRankConfig and ncclCommInitRank never return
 * (the dynamic linker takes a preloaded symbol before libnccl's). Rank 0's set-up waits for
 * rank 1 and must give up after --timeout, say so, and end mpirun with a non-zero exit code
 * within the bound. */
static const char STALLED_SETUP[] = "#include <unistd.h>\n"
                                    "int ncclCommInitRankConfig(void) { for (;;) pause(); }\n"
                                    "int ncclCommInitRank(void) { for (;;) pause(); }\n";
/* $0: the library; "$@": the program and its arguments. OpenMPI names the rank in
 * OMPI_COMM_WORLD_RANK, PMIx launchers in PMIX_RANK. */
static const char ONLY_RANK_1_PRELOADS[] =
    "if [ \"${OMPI_COMM_WORLD_RANK:-$PMIX_RANK}\" = 1 ]; then export LD_PRELOAD=\"$0\"; fi; "
    "exec \"$@\"";
static const char SETUP_GIVES_UP[] = "(NCCL's set-up) on GPU 0 has not finished after";
static const char COMPILER[] = "cc";

/* The library, built into a fresh directory; its path into `library` (forget_stalled_setup
 * removes both). */
static void build_stalled_setup(char *library, size_t size)
{
    char directory[] = "/tmp/step15-stalled-setup-XXXXXX", source[256];
    if (!on_path(COMPILER))
        cr_skip_test("step15: no %s on PATH to build the library that stops a rank", COMPILER);
    cr_assert_not_null(mkdtemp(directory), "mkdtemp: %s", strerror(errno));
    snprintf(source, sizeof source, "%s/stall.c", directory);
    snprintf(library, size, "%s/stall.so", directory);
    FILE *file = fopen(source, "w");
    cr_assert_not_null(file, "fopen(%s): %s", source, strerror(errno));
    cr_assert_eq(fputs(STALLED_SETUP, file) >= 0 && fclose(file) == 0, true, "writing %s", source);
    struct finished built = program_run(
        COMPILER, GPUS_VISIBLE,
        (const char *const[]){"-shared", "-fPIC", "-o", library, source, NULL});
    cr_assert_eq(built.exit_code, 0, "%s -shared %s: exit %d\n%s", COMPILER, source,
                 built.exit_code, built.err);
    finished_free(&built);
    remove(source);
}

static void forget_stalled_setup(char *library)
{
    remove(library);
    *strrchr(library, '/') = '\0';
    rmdir(library);
}

/* mpirun and the two ranks it started, when the test's bound is over: ended by the test
 * (ranks first: a rank whose mpirun is gone would keep its GPU). */
static void end_mpirun(pid_t launcher, int *status)
{
    for (int rank = 0; rank < 2; rank++) {
        pid_t pid = rank_pid(launcher, rank);
        if (pid > 0) kill(pid, SIGKILL);
    }
    kill(launcher, SIGKILL);
    waitpid(launcher, status, 0);
}

Test(step15, a_rank_lost_before_nccls_set_up_ends_the_other, .timeout = GPU_TEST_TIMEOUT_S)
{
    char library[256];
    const char *words[MAX_WORDS];
    int status = 0;
    bool ended = false;
    require_gpus(STEP15.name, 2);
    build_stalled_setup(library, sizeof library);
    mpirun_words(words, NULL, "2",
                 (const char *const[]){"sh", "-c", ONLY_RANK_1_PRELOADS, library, NULL},
                 (const char *const[]){"-n", "2^20", "--iters", "1", "--warmup", "0", "--no-cub",
                                       "--timeout", LOST_RANK_TIMEOUT_S, NULL});
    FILE *out = tmpfile(), *err = tmpfile();
    pid_t launcher = spawn_into(words, out, err);
    double start = now_s();
    while (!(ended = waitpid(launcher, &status, WNOHANG) == launcher) &&
           now_s() - start < START_LIMIT_S)
        nanosleep(&POLL, NULL);
    if (!ended) end_mpirun(launcher, &status);
    forget_stalled_setup(library);
    char *stdout_text = read_and_close(out), *stderr_text = read_and_close(err);
    cr_log_info("mpirun -np 2 ... -> %s after %.1f s\n--- stdout\n%s--- stderr\n%s",
                ended ? "ended" : "killed by the test", now_s() - start, stdout_text, stderr_text);
    if (strstr(stderr_text, WITHOUT_MPI) != NULL)
        cr_skip_test("step15: %s was %s (no mpicc when it was built): rebuild it where mpicc is "
                     "on PATH",
                     PROGRAM, WITHOUT_MPI);
    cr_expect(ended, "rank 0 still waited %d s after rank 1 stopped before NCCL's set-up",
              START_LIMIT_S);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) != 0,
              "mpirun must fail when a rank is lost: %s %d", WIFEXITED(status) ? "exit" : "signal",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    cr_expect(strstr(stderr_text, SETUP_GIVES_UP) != NULL &&
                  strstr(stderr_text, "(--timeout)") != NULL,
              "rank 0 did not say that NCCL's set-up gave up waiting:\n%s", stderr_text);
    free(stdout_text);
    free(stderr_text);
}
