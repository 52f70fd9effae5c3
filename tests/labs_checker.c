/* The classroom labs (labs/): every lab's program is built; without a GPU the checker and the
 * grader say so and exit 3; on a GPU every starter as shipped fails its check, the step's own
 * kernel passes, and labs/grade.sh tells each kernel of tests/wrong_kernels/ apart by the
 * reason its header names. The programs run as an instructor runs them, from the repository
 * root. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { LAB_COUNT = 5, FOLDER_LENGTH = 256, PATH_LENGTH = 512, LINE_LENGTH = 4096, GRADE_COLUMNS = 8,
       MAX_ROWS = 32 };

/* labs/steps.txt, as the labs' handouts describe it (not read from the file under test). */
static const char *const LAB[LAB_COUNT] = {"lab01", "lab02", "lab03", "lab04", "lab05"};
static const char *const STEP[LAB_COUNT] = {"step02_divergence", "step04_idle", "step05_unroll_warp",
                                            "step08_shuffle", "step09_last_block"};

/* The grading tests run the sanitizers at one small odd n, time at n = 2^20, and keep the
 * checker's generous timeouts, so that a busy GPU is not taken for a hang; the kernel that
 * does hang is graded on its own with a short one (seconds). */
static const char *const GRADE_SETTINGS[] = {"LAB_SANITIZE_N=4099", "LAB_TIMED_N=2^20", NULL};
static const char *const HANG_SETTINGS[] = {"LAB_SANITIZE_N=4099", "LAB_TIMED_N=2^20", "LAB_CHECK_TIMEOUT=30", NULL};
static const char GRADE_JOBS[] = "2";
static const char BROKEN_KERNEL[] = "#include \"reduce.h\"\nthis is not CUDA;\n";

/* ---- running a program ----------------------------------------------------------------- */
struct outcome { int exit_code; char *out; };   /* -1: ended by a signal; out: stdout + stderr */

/* environ, with each NAME=VALUE of settings replacing any NAME=... there. */
static char **environment_with(const char *const *settings)
{
    size_t count = 0, kept = 0, extra = 0;
    while (environ[count] != NULL) count++;
    while (settings != NULL && settings[extra] != NULL) extra++;
    char **environment = calloc(count + extra + 1, sizeof *environment);
    cr_assert_not_null(environment);
    for (size_t i = 0; i < count; i++) {
        bool replaced = false;
        for (size_t s = 0; s < extra && !replaced; s++) {
            size_t name = strcspn(settings[s], "=") + 1;
            replaced = strncmp(environ[i], settings[s], name) == 0;
        }
        if (!replaced) environment[kept++] = environ[i];
    }
    for (size_t s = 0; s < extra; s++) environment[kept++] = (char *)settings[s];
    return environment;
}

static char *file_text(FILE *file)
{
    cr_assert_eq(fseek(file, 0, SEEK_END), 0, "fseek: %s", strerror(errno));
    long size = ftell(file);
    cr_assert_geq(size, 0);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    text[fread(text, 1, (size_t)size, file)] = '\0';
    fclose(file);
    return text;
}

/* Runs args[0] with the NULL-terminated args, stdout and stderr together into one text. */
static struct outcome run(const char *const *args, const char *const *settings)
{
    FILE *out = tmpfile();
    cr_assert_not_null(out, "tmpfile: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDERR_FILENO);
    char **environment = environment_with(settings);
    pid_t pid;
    int error = posix_spawnp(&pid, args[0], &actions, NULL, (char *const *)args, environment);
    posix_spawn_file_actions_destroy(&actions);
    free(environment);
    cr_assert_eq(error, 0, "cannot start %s: %s", args[0], strerror(error));
    int status;
    while (waitpid(pid, &status, 0) < 0) cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    return (struct outcome){WIFEXITED(status) ? WEXITSTATUS(status) : -1, file_text(out)};
}

static const char *const GPUS_HIDDEN[] = {"CUDA_VISIBLE_DEVICES=", NULL};

/* Skips (never passes) the calling test when this machine shows it no CUDA device. */
static void require_cuda_device(void)
{
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
        cr_skip_test("no CUDA device: %s", status != cudaSuccess ? cudaGetErrorString(status) : "none found");
}

static bool executable_in(const char *directory)
{
    char path[LINE_LENGTH + sizeof "/compute-sanitizer"];
    snprintf(path, sizeof path, "%s/compute-sanitizer", directory);
    return access(path, X_OK) == 0;
}

/* Where labs/check.sh looks: $COMPUTE_SANITIZER, PATH, $CUDA_HOME/bin. */
static bool sanitizer_installed(void)
{
    char directories[LINE_LENGTH];
    const char *given = getenv("COMPUTE_SANITIZER"), *cuda_home = getenv("CUDA_HOME");
    if (given != NULL && access(given, X_OK) == 0) return true;
    snprintf(directories, sizeof directories, "%s", getenv("PATH") ? getenv("PATH") : "");
    for (char *rest = directories, *directory; (directory = strsep(&rest, ":")) != NULL;)
        if (*directory && executable_in(directory)) return true;
    snprintf(directories, sizeof directories, "%s/bin", cuda_home ? cuda_home : "/usr/local/cuda");
    return executable_in(directories);
}

/* ---- without a GPU ------------------------------------------------------------------------ */

Test(labs, every_lab_is_built_and_has_its_files)
{
    static const char *const FILES[] = {"program", "run", "reduce.cu", "README.md"};
    char path[PATH_LENGTH];
    for (int lab = 0; lab < LAB_COUNT; lab++)
        for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
            snprintf(path, sizeof path, "labs/%s/%s", LAB[lab], FILES[f]);
            int mode = strcmp(FILES[f], "program") == 0 || strcmp(FILES[f], "run") == 0 ? X_OK : R_OK;
            cr_expect_eq(access(path, mode), 0, "%s is missing%s (make builds every lab)", path,
                         mode == X_OK ? " or not executable" : "");
        }
}

Test(labs, check_without_a_gpu_says_so_and_exits_3, .timeout = 300)
{
    struct outcome o = run((const char *const[]){"labs/lab01/run", "--check", NULL}, GPUS_HIDDEN);
    cr_expect_eq(o.exit_code, 3, "exit code %d:\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "needs a GPU"), "%s", o.out);
    free(o.out);
}

Test(labs, run_passes_other_arguments_to_the_program, .timeout = 300)
{
    struct outcome o = run((const char *const[]){"labs/lab03/run", "-n", "1", NULL}, GPUS_HIDDEN);
    cr_expect_eq(o.exit_code, 3, "exit code %d:\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "step05: no CUDA device"), "%s", o.out);
    free(o.out);
}

Test(labs, grade_without_a_gpu_exits_3, .timeout = 300)
{
    char folder[] = "/tmp/labs-nogpu-XXXXXX", kernel[PATH_LENGTH];
    cr_assert_not_null(mkdtemp(folder), "mkdtemp: %s", strerror(errno));
    snprintf(kernel, sizeof kernel, "%s/student.cu", folder);
    FILE *file = fopen(kernel, "w");
    cr_assert_not_null(file);
    fputs(BROKEN_KERNEL, file);
    fclose(file);
    struct outcome o = run((const char *const[]){"labs/grade.sh", folder, "lab01", NULL}, GPUS_HIDDEN);
    cr_expect_eq(o.exit_code, 3, "exit code %d:\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "needs a GPU"), "%s", o.out);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", folder, NULL}, NULL).out);
}

Test(labs, grade_refuses_a_lab_that_does_not_exist)
{
    struct outcome o = run((const char *const[]){"labs/grade.sh", "tests/wrong_kernels", "lab99", NULL}, NULL);
    cr_expect_eq(o.exit_code, 2, "exit code %d:\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "lab99"), "%s", o.out);
    free(o.out);
}

/* ---- on a GPU ------------------------------------------------------------------------------ */

static struct criterion_test_params lab_indices(void)
{
    static int indices[LAB_COUNT];
    for (int lab = 0; lab < LAB_COUNT; lab++) indices[lab] = lab;
    return cr_make_param_array(int, indices, LAB_COUNT);
}

ParameterizedTestParameters(labs_gpu, starter_as_shipped_fails_its_check) { return lab_indices(); }

ParameterizedTest(int *lab, labs_gpu, starter_as_shipped_fails_its_check, .timeout = 900)
{
    char program[PATH_LENGTH];
    require_cuda_device();
    snprintf(program, sizeof program, "labs/%s/program", LAB[*lab]);
    struct outcome o = run((const char *const[]){program, "--check", NULL}, NULL);
    cr_expect_eq(o.exit_code, 1, "%s --check: exit code %d (1: a wrong result):\n%.2000s", program,
                 o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "check: FAILED"), "%.2000s", o.out);
    free(o.out);
}

/* What labs/grade.sh must say about one submission. */
enum expected { MUST_BE_1, MUST_BE_0, EITHER, EMPTY };
struct expectation {
    int lab;
    const char *student;             /* "solution": the step's own reduce.cu */
    enum expected builds, correct, clean;
    const char *reason;              /* a part of the reason column; "" for none at all */
    bool needs_sanitizer;            /* only the sanitizer can find this one */
    bool hangs;                      /* graded apart, with a short timeout */
};
static const struct expectation EXPECTED[] = {
    {0, "solution", MUST_BE_1, MUST_BE_1, MUST_BE_1, "", false, false},
    {1, "solution", MUST_BE_1, MUST_BE_1, MUST_BE_1, "", false, false},
    {2, "solution", MUST_BE_1, MUST_BE_1, MUST_BE_1, "", false, false},
    {3, "solution", MUST_BE_1, MUST_BE_1, MUST_BE_1, "", false, false},
    {4, "solution", MUST_BE_1, MUST_BE_1, MUST_BE_1, "", false, false},
    {0, "broken", MUST_BE_0, EMPTY, EMPTY, "does not compile", false, false},
    {1, "broken", MUST_BE_0, EMPTY, EMPTY, "does not compile", false, false},
    {2, "broken", MUST_BE_0, EMPTY, EMPTY, "does not compile", false, false},
    {3, "broken", MUST_BE_0, EMPTY, EMPTY, "does not compile", false, false},
    {4, "broken", MUST_BE_0, EMPTY, EMPTY, "does not compile", false, false},
    {0, "lab01_missing_syncthreads", MUST_BE_1, EITHER, MUST_BE_0, "racecheck at n = ", true, false},
    {1, "lab02_oob_read", MUST_BE_1, EITHER, MUST_BE_0, "memcheck at n = ", true, false},
    {1, "lab02_never_finishes", MUST_BE_1, MUST_BE_0, EMPTY, "hang: ", false, true},
    {2, "lab03_racy_last_warp", MUST_BE_1, EITHER, MUST_BE_0, "racecheck at n = ", true, false},
    {2, "lab03_right_shuffle", MUST_BE_1, MUST_BE_1, MUST_BE_1, "", false, false},
    {3, "lab04_tail_lost", MUST_BE_1, MUST_BE_0, MUST_BE_1, "wrong result: ", false, false},
    {3, "lab04_wrong_grid_stride", MUST_BE_1, MUST_BE_0, MUST_BE_1, "wrong result: ", false, false},
    {3, "lab04_counted_twice", MUST_BE_1, MUST_BE_0, MUST_BE_1, "wrong result: n=1 ", false, false},
    {4, "lab05_counter_not_reset", MUST_BE_1, MUST_BE_0, MUST_BE_1, "wrong result: ", false, false},
};
enum { EXPECTATIONS = sizeof EXPECTED / sizeof EXPECTED[0] };
enum grade_column { G_STUDENT, G_BUILDS, G_CORRECT, G_CLEAN, G_MS, G_X_REFERENCE, G_X_CUB, G_REASON };

static void copy_file(const char *from, const char *folder, const char *name)
{
    char to[PATH_LENGTH];
    snprintf(to, sizeof to, "%s/%s.cu", folder, name);
    free(run((const char *const[]){"cp", from, to, NULL}, NULL).out);
    cr_assert_eq(access(to, R_OK), 0, "cannot copy %s to %s", from, to);
}

/* The lab's submissions: the kernels of EXPECTED that hang, or else the others: the step's
 * kernel, the lab's wrong kernels, one that does not compile. */
static void make_submissions(int lab, const char *folder, bool hanging)
{
    char from[PATH_LENGTH], to[PATH_LENGTH];
    for (int e = 0; e < EXPECTATIONS; e++) {
        if (EXPECTED[e].lab != lab || EXPECTED[e].hangs != hanging) continue;
        if (strcmp(EXPECTED[e].student, "broken") == 0) {
            snprintf(to, sizeof to, "%s/broken.cu", folder);
            FILE *file = fopen(to, "w");
            cr_assert_not_null(file, "%s: %s", to, strerror(errno));
            fputs(BROKEN_KERNEL, file);
            fclose(file);
            continue;
        }
        if (strcmp(EXPECTED[e].student, "solution") == 0) snprintf(from, sizeof from, "%s/reduce.cu", STEP[lab]);
        else snprintf(from, sizeof from, "tests/wrong_kernels/%s.cu", EXPECTED[e].student);
        copy_file(from, folder, EXPECTED[e].student);
    }
}

/* Splits one CSV row in place: fields may be quoted, with "" for a quote inside. */
static bool split_row(char *line, char *fields[GRADE_COLUMNS])
{
    char *read = line;
    for (int c = 0; c < GRADE_COLUMNS; c++) {
        char *write = read;
        fields[c] = write;
        bool quoted = *read == '"';
        read += quoted;
        while (*read != '\0' && (quoted || *read != ',')) {
            if (quoted && *read == '"' && read[1] == '"') read++;
            else if (quoted && *read == '"') { quoted = false; read++; continue; }
            *write++ = *read++;
        }
        bool more = *read == ',';
        *write = '\0';
        if (more) read++;
        else if (c != GRADE_COLUMNS - 1) return false;
    }
    return true;
}

static void expect_value(const char *field, enum expected expected, const char *student, const char *column)
{
    switch (expected) {
    case MUST_BE_1: cr_expect_str_eq(field, "1", "%s: %s is '%s', expected 1", student, column, field); break;
    case MUST_BE_0: cr_expect_str_eq(field, "0", "%s: %s is '%s', expected 0", student, column, field); break;
    case EMPTY: cr_expect_str_eq(field, "", "%s: %s is '%s', expected empty", student, column, field); break;
    case EITHER: break;
    }
}

static void expect_row(const struct expectation *e, char *const fields[GRADE_COLUMNS], bool sanitizer)
{
    const char *who = e->student;
    expect_value(fields[G_BUILDS], e->builds, who, "builds");
    expect_value(fields[G_CORRECT], e->correct, who, "correct");
    expect_value(fields[G_CLEAN], sanitizer || e->clean == EMPTY ? e->clean : EMPTY, who, "sanitizer_clean");
    if (*e->reason == '\0') {
        cr_expect_str_eq(fields[G_REASON], "", "%s: reason '%s', expected none", who, fields[G_REASON]);
        cr_expect(*fields[G_MS] && *fields[G_X_REFERENCE] && *fields[G_X_CUB],
                  "%s: a correct kernel is timed: ms '%s', x_reference '%s', x_cub '%s'", who,
                  fields[G_MS], fields[G_X_REFERENCE], fields[G_X_CUB]);
    } else {
        cr_expect_not_null(strstr(fields[G_REASON], e->reason), "%s: reason '%s' should contain '%s'",
                           who, fields[G_REASON], e->reason);
    }
}

/* Grades the lab's kernels that hang (or the others) with labs/grade.sh and checks each CSV row
 * against EXPECTED. */
static void grade_and_expect(int lab, bool hanging, const char *const *settings)
{
    char scratch[] = "/tmp/labs-grade-XXXXXX", folder[FOLDER_LENGTH], csv[FOLDER_LENGTH], logs[FOLDER_LENGTH];
    char line[LINE_LENGTH], *fields[GRADE_COLUMNS];
    bool sanitizer = sanitizer_installed(), seen[EXPECTATIONS] = {false};
    if (!sanitizer) cr_log_warn("compute-sanitizer not found: only the rows it does not decide are checked");
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(folder, sizeof folder, "%s/%s", scratch, LAB[lab]);
    snprintf(csv, sizeof csv, "%s/grades.csv", scratch);
    snprintf(logs, sizeof logs, "%s/logs", scratch);
    free(run((const char *const[]){"mkdir", "-p", folder, NULL}, NULL).out);
    make_submissions(lab, folder, hanging);

    struct outcome o = run((const char *const[]){"labs/grade.sh", "-j", GRADE_JOBS, "-o", csv, "--logs", logs,
                                                 folder, LAB[lab], NULL}, settings);
    cr_assert_eq(o.exit_code, 0, "labs/grade.sh: exit code %d:\n%.4000s", o.exit_code, o.out);
    FILE *file = fopen(csv, "r");
    cr_assert_not_null(file, "%s: %s\n%.4000s", csv, strerror(errno), o.out);
    cr_assert_not_null(fgets(line, sizeof line, file));
    cr_expect_str_eq(line, "student,builds,correct,sanitizer_clean,ms,x_reference,x_cub,reason\n");
    for (int rows = 0; rows < MAX_ROWS && fgets(line, sizeof line, file) != NULL; rows++) {
        line[strcspn(line, "\n")] = '\0';
        cr_assert(split_row(line, fields), "not a row of 8 columns: %s", line);
        int e = 0;
        while (e < EXPECTATIONS && (EXPECTED[e].lab != lab || strcmp(EXPECTED[e].student, fields[G_STUDENT])))
            e++;
        cr_assert_lt(e, EXPECTATIONS, "a row for a submission nobody made: %s", fields[G_STUDENT]);
        seen[e] = true;
        if (!EXPECTED[e].needs_sanitizer || sanitizer) expect_row(&EXPECTED[e], fields, sanitizer);
    }
    fclose(file);
    for (int e = 0; e < EXPECTATIONS; e++)
        cr_expect(EXPECTED[e].lab != lab || EXPECTED[e].hangs != hanging || seen[e], "no row for %s",
                  EXPECTED[e].student);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

ParameterizedTestParameters(labs_gpu, grade_tells_right_from_wrong) { return lab_indices(); }

ParameterizedTest(int *lab, labs_gpu, grade_tells_right_from_wrong, .timeout = 3600)
{
    require_cuda_device();
    grade_and_expect(*lab, false, GRADE_SETTINGS);
}

Test(labs_gpu, grade_reports_a_kernel_that_never_finishes, .timeout = 900)
{
    require_cuda_device();
    grade_and_expect(1, true, HANG_SETTINGS);
}
