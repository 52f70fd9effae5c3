/* step15_multi_gpu's program, run as a student runs it: its own options --gpus and --timeout
 * and its variants, refused with exit code 2 and a message that names the bad value; --help;
 * a machine that shows it no GPU (exit 3). With a GPU: every variant's --check on all visible
 * GPUs and on one, n smaller than the number of GPUs (and 0), the report's own lines, and one
 * process per GPU under mpirun. With two GPUs or more: every variant's --check on two GPUs in
 * one process and under mpirun -np 2, uneven and empty shards both ways, and a rank of
 * mpirun -np 2 killed or stopped in the middle of its runs, after which the other must end
 * with a non-zero exit code within a bound. Without the GPUs, or without mpirun, those are
 * skipped with a message that names step15 and the reason, never passed. The tests run from
 * the repository root after `make` (`make test` does both). */
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
enum { MAX_WORDS = 24, GPU_TEST_TIMEOUT_S = 600 };
/* mpirun that cannot start its rank (a container without the network it expects) may wait
 * forever: coreutils' timeout ends it, and the test fails saying so. */
static const char MPIRUN_LIMIT_S[] = "300";

/* ---- running the program ----------------------------------------------------------------- */

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

/* ---- under mpirun ---------------------------------------------------------------------- */

/* words: timeout LIMIT mpirun [--allow-run-as-root] -np NP PROGRAM args... (NULL-terminated).
 * As root, OpenMPI's mpirun refuses to start without --allow-run-as-root. `limit` NULL: no
 * timeout around it (the caller keeps its own bound). Skips the test where there is no mpirun. */
static void mpirun_words(const char **words, const char *limit, const char *np,
                         const char *const *args)
{
    int w = 0;
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
    mpirun_words(words, MPIRUN_LIMIT_S, np, args);
    struct finished o = logged(program_run(words[0], GPUS_VISIBLE, words + 1), words[0]);
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
    mpirun_words(words, NULL, "2",
                 (const char *const[]){"-n", "2^20..2^28", "--csv", "--iters", "200", "--warmup",
                                       "0", "--no-cub", "--timeout", LOST_RANK_TIMEOUT_S, NULL});
    FILE *out = tmpfile(), *err = tmpfile();
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
