/* The classroom labs (labs/): every lab's program is built and names itself; without a GPU
 * the checker and the grader build and read every kernel, say what the rest needs a GPU for
 * and exit 3; labs/lesson.py finds in the PTX the mistakes a GPU forgives; labs/host_code.py
 * holds a submission's host code to the starter's; the grader's sandbox hides the class
 * folder and the grades from a submission; on a GPU every starter as shipped fails its
 * check, the step's own kernel passes, and labs/grade.sh tells each kernel of
 * tests/wrong_kernels/ apart by the reason its header names, leaving the other submissions
 * and the CSV as they were. The programs run as an instructor runs them, from the repository
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

#include "harness.h"
#include "toolbox.h"

extern char **environ;

enum {
    LAB_COUNT = 5,
    FOLDER_LENGTH = 256,
    PATH_LENGTH = 512,
    LINE_LENGTH = 4096,
    GRADE_COLUMNS = 14,
    MAX_ROWS = 32,
    MAX_REASONS = 2
};

/* labs/steps.txt, as the labs' handouts describe it (not read from the file under test). */
static const char *const LAB[LAB_COUNT] = {"lab01", "lab02", "lab03", "lab04", "lab05"};
static const char *const STEP[LAB_COUNT] = {"step02_divergence", "step04_idle",
                                            "step05_unroll_warp", "step08_shuffle",
                                            "step09_last_block"};

/* The grading tests run the sanitizers at one small odd n, time at n = 2^20, and keep the
 * checker's generous timeouts (not grade.sh's two minutes), so that a busy GPU is not taken
 * for a hang; the kernels that hang (lab02's loop, and lab04's half-warp shuffles, which hang on
 * a Hopper GPU) are graded apart with a short one (seconds). The
 * case at n = 2^32 (about 17 GiB of GPU memory and 16 GiB of host memory a run) runs for
 * every correct kernel, one at a time on the machine (labs/check.sh holds a lock around it);
 * a 32-bit grid-stride index never ends there, so its limit is a few minutes. */
static const char *const GRADE_SETTINGS[] = {"LAB_SANITIZE_N=4099",
                                             "LAB_TIMED_N=2^20",
                                             "LAB_CHECK_TIMEOUT=900",
                                             "LAB_TIME_TIMEOUT=300",
                                             "LAB_SANITIZER_TIMEOUT=900",
                                             "LAB_WIDE_TIMEOUT=180",
                                             NULL};
static const char *const HANG_SETTINGS[] = {"LAB_SANITIZE_N=4099", "LAB_TIMED_N=2^20",
                                            "LAB_CHECK_TIMEOUT=30", NULL};
/* Submissions graded at once: WRONG_KERNELS_JOBS (tests/wrong_kernels/table.sh), else 2. */
static const char DEFAULT_GRADE_JOBS[] = "2";
static const char BROKEN_KERNEL[] = "#include \"reduce.h\"\nthis is not CUDA;\n";

/* ---- running a program ----------------------------------------------------------------- */
struct outcome {
    int exit_code;
    char *out;
}; /* -1: ended by a signal; out: stdout + stderr */

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

static const char *const NO_GPU_SETTINGS[] = {"CUDA_VISIBLE_DEVICES=", NULL};

/* Skips (never passes) the calling test when this machine shows it no CUDA device; the
 * message starts with the lab's name. */
static void require_cuda_device(const char *lab)
{
    const char *reason = no_device_reason();
    if (reason != NULL) cr_skip_test("%s: no CUDA device: %s", lab, reason);
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
            if (quoted && *read == '"' && read[1] == '"')
                read++;
            else if (quoted && *read == '"') {
                quoted = false;
                read++;
                continue;
            }
            *write++ = *read++;
        }
        bool more = *read == ',';
        *write = '\0';
        if (more)
            read++;
        else if (c != GRADE_COLUMNS - 1)
            return false;
    }
    return true;
}

/* ---- without a GPU ------------------------------------------------------------------------ */

Test(labs, every_lab_is_built_and_has_its_files)
{
    static const char *const FILES[] = {"program", "run", "reduce.cu", "README.md"};
    char path[PATH_LENGTH];
    for (int lab = 0; lab < LAB_COUNT; lab++)
        for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
            snprintf(path, sizeof path, "labs/%s/%s", LAB[lab], FILES[f]);
            int mode = strcmp(FILES[f], "program") == 0 || strcmp(FILES[f], "run") == 0 ? X_OK
                                                                                        : R_OK;
            cr_expect_eq(access(path, mode), 0, "%s is missing%s (make builds every lab)", path,
                         mode == X_OK ? " or not executable" : "");
        }
}

Test(labs, check_without_a_gpu_says_so_and_exits_3, .timeout = 300)
{
    struct outcome o = run((const char *const[]){"labs/lab01/run", "--check", NULL},
                           NO_GPU_SETTINGS);
    cr_expect_eq(o.exit_code, 3, "exit code %d:\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "needs a GPU"), "%s", o.out);
    cr_expect_not_null(
        strstr(o.out, "\"pass\":null,\"builds\":true,\"host_code\":true,\"instructions\":true"),
        "%s", o.out);
    cr_expect_not_null(strstr(o.out, "Not checked without a GPU: the sums (--check), races and "
                                     "out-of-bounds accesses (compute-sanitizer)"),
                       "%s", o.out);
    /* It sends the student to the SASS too, and names the tool that writes it. */
    cr_expect_not_null(strstr(o.out, "(make lab01-sass;"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "The SASS needs cuobjdump, from the CUDA toolkit's bin:"),
                       "%s", o.out);
    free(o.out);
}

Test(labs, run_passes_other_arguments_to_the_program, .timeout = 300)
{
    struct outcome o = run((const char *const[]){"labs/lab03/run", "-n", "1", NULL},
                           NO_GPU_SETTINGS);
    cr_expect_eq(o.exit_code, 3, "exit code %d:\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "labs/lab03/run: no CUDA device"), "%s", o.out);
    free(o.out);
}

Test(labs, the_lab_program_names_itself, .timeout = 300)
{
    struct outcome help = run((const char *const[]){"labs/lab03/run", "--help", NULL},
                              NO_GPU_SETTINGS);
    cr_expect_eq(help.exit_code, 0, "exit code %d:\n%s", help.exit_code, help.out);
    cr_expect_not_null(strstr(help.out, "usage: labs/lab03/run [options]\n"), "%s", help.out);
    cr_expect_null(strstr(help.out, "step05/run"), "--help names the step's program:\n%s",
                   help.out);
    free(help.out);
    struct outcome error = run((const char *const[]){"labs/lab03/run", "--threads", "3", NULL},
                               NO_GPU_SETTINGS);
    cr_expect_eq(error.exit_code, 2, "exit code %d:\n%s", error.exit_code, error.out);
    cr_expect_not_null(strstr(error.out, "labs/lab03/run: --threads takes"), "%s", error.out);
    cr_expect_not_null(strstr(error.out, "(labs/lab03/run --help lists the options)"), "%s",
                       error.out);
    cr_expect_null(strstr(error.out, "step05"), "the error names the step:\n%s", error.out);
    free(error.out);
}

static void copy_file(const char *from, const char *folder, const char *name)
{
    char to[PATH_LENGTH];
    snprintf(to, sizeof to, "%s/%s.cu", folder, name);
    free(run((const char *const[]){"cp", from, to, NULL}, NULL).out);
    cr_assert_eq(access(to, R_OK), 0, "cannot copy %s to %s", from, to);
}

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    cr_assert_not_null(file, "%s: %s", path, strerror(errno));
    fputs(text, file);
    fclose(file);
}

/* Row `student` of a CSV file of GRADE_COLUMNS columns, split into fields (in `line`). */
static bool find_row(const char *csv, const char *student, char line[LINE_LENGTH],
                     char *fields[GRADE_COLUMNS])
{
    FILE *file = fopen(csv, "r");
    cr_assert_not_null(file, "%s: %s", csv, strerror(errno));
    bool found = false;
    while (!found && fgets(line, LINE_LENGTH, file) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        found = split_row(line, fields) && strcmp(fields[0], student) == 0;
    }
    fclose(file);
    return found;
}

enum grade_column {
    G_STUDENT,
    G_PASS,
    G_BUILDS,
    G_HOST_CODE,
    G_INSTRUCTIONS,
    G_CORRECT,
    G_CLEAN,
    G_INDEX64,
    G_MS,
    G_X_REFERENCE,
    G_X_CUB,
    G_ISOLATION,
    G_LESSON,
    G_REASON
};
static const char CSV_HEADER[] =
    "student,pass,builds,host_code,instructions,correct,"
    "sanitizer_clean,index64,ms,x_reference,x_cub,isolation,lesson,reason\n";

Test(labs, grade_without_a_gpu_builds_every_submission, .timeout = 600)
{
    char scratch[] = "/tmp/labs-nogpu-XXXXXX", folder[FOLDER_LENGTH], path[PATH_LENGTH],
         csv[PATH_LENGTH];
    char line[LINE_LENGTH], *fields[GRADE_COLUMNS];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(folder, sizeof folder, "%s/lab01", scratch);
    snprintf(csv, sizeof csv, "%s/grades.csv", scratch);
    snprintf(path, sizeof path, "%s/builds", folder);
    free(run((const char *const[]){"mkdir", "-p", path, NULL}, NULL).out);
    snprintf(path, sizeof path, "%s/builds/reduce.cu", folder);
    free(run((const char *const[]){"cp", "step02_divergence/reduce.cu", path, NULL}, NULL).out);
    snprintf(path, sizeof path, "%s/broken", folder);
    free(run((const char *const[]){"mkdir", "-p", path, NULL}, NULL).out);
    snprintf(path, sizeof path, "%s/broken/reduce.cu", folder);
    write_file(path, BROKEN_KERNEL);

    struct outcome o = run(
        (const char *const[]){"labs/grade.sh", "-o", csv, "--logs", scratch, folder, NULL},
        NO_GPU_SETTINGS);
    cr_expect_eq(o.exit_code, 3, "exit code %d (3: no GPU):\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "needs a GPU"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "docs/instructors.md"), "%s", o.out);
    /* the time each grading took, and the class's: what an instructor plans a session with */
    cr_expect_not_null(strstr(o.out, "grade.sh: builds: "), "%s", o.out);
    cr_expect_not_null(strstr(o.out, " s)\n"), "no submission's time:\n%s", o.out);
    cr_expect_not_null(strstr(o.out, "grade.sh: 2 submission(s) graded in "), "%s", o.out);
    FILE *file = fopen(csv, "r");
    cr_assert_not_null(file, "%s: %s\n%s", csv, strerror(errno), o.out);
    cr_expect(fgets(line, sizeof line, file) != NULL && strcmp(line, CSV_HEADER) == 0, "header: %s",
              line);
    fclose(file);
    cr_assert(find_row(csv, "broken", line, fields), "no row for broken:\n%s", o.out);
    cr_expect_str_eq(fields[G_PASS], "0");
    cr_expect_str_eq(fields[G_BUILDS], "0");
    cr_expect_not_null(strstr(fields[G_REASON], "does not compile: broken/reduce.cu("), "%s",
                       fields[G_REASON]);
    cr_assert(find_row(csv, "builds", line, fields), "no row for builds:\n%s", o.out);
    cr_expect_str_eq(fields[G_PASS], "", "pass '%s': not decided without a GPU", fields[G_PASS]);
    cr_expect_str_eq(fields[G_BUILDS], "1");
    cr_expect_str_eq(fields[G_HOST_CODE], "1");
    cr_expect_str_eq(fields[G_INSTRUCTIONS], "1");
    cr_expect_str_eq(fields[G_LESSON], "1");
    cr_expect_str_eq(fields[G_CORRECT], "");
    cr_expect_str_eq(fields[G_REASON], "");
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

Test(labs, grade_refuses_a_lab_that_does_not_exist)
{
    struct outcome o = run(
        (const char *const[]){"labs/grade.sh", "tests/wrong_kernels", "lab99", NULL}, NULL);
    cr_expect_eq(o.exit_code, 2, "exit code %d:\n%s", o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "lab99"), "%s", o.out);
    free(o.out);
}

/* ---- the checker's reasons, on a stand-in program, without a GPU ---------------------------- */

/* A stand-in for a lab's program: --check fails at n = 1 (as a kernel that leaves its
 * ticket counter set fails); a run alone exits with $FRESH_STATUS; the run past 2^31
 * elements loses the last element, as an int index does. */
static const char STAND_IN[] = "#!/bin/sh\n"
                               "case \"$*\" in\n"
                               "--check*) echo 'FAILED n=1 pattern=ones offset=0 threads=32 "
                               "blocks=0 finish=gpu: got 0, expected 1, allowed error 0'\n"
                               "          echo 'check: FAILED 3 of 10 cases; the first: n=1 "
                               "pattern=ones offset=0 threads=32 blocks=0 finish=gpu'\n"
                               "          exit 1 ;;\n"
                               "*4294967296*) echo 'step02 - n=4294967296 pattern=onehot:last "
                               "result=0 expected=1 WRONG'; exit 1 ;;\n"
                               "esac\n"
                               "exit $FRESH_STATUS\n";

/* Runs the checker's correctness and 64-bit stages (labs/check.sh) on the stand-in, as on a
 * GPU whose free memory nvidia-smi does not tell (the stand-in needs none). */
static struct outcome stages_on_stand_in(const char *fresh_status)
{
    char scratch[] = "/tmp/labs-stand-in-XXXXXX", program[PATH_LENGTH], script[LINE_LENGTH],
         status[32];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(program, sizeof program, "%s/program", scratch);
    write_file(program, STAND_IN);
    free(run((const char *const[]){"chmod", "+x", program, NULL}, NULL).out);
    snprintf(script, sizeof script,
             "source labs/check.sh; lab_free_mib() { :; }; lab_reset; LAB_CORRECT=1;"
             "lab_check_variant %s %s atomic-ref; LAB_CORRECT=1; lab_stage_wide %s %s;"
             "printf 'reason: %%s\n' \"${LAB_REASONS[@]}\"; echo \"index64=$LAB_WIDE\"",
             program, scratch, program, scratch);
    snprintf(status, sizeof status, "FRESH_STATUS=%s", fresh_status);
    struct outcome o = run((const char *const[]){"bash", "-c", script, NULL},
                           (const char *const[]){status, NULL});
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
    return o;
}

Test(labs, check_names_state_left_over_between_launches)
{
    struct outcome o = stages_on_stand_in("0");
    cr_expect_not_null(
        strstr(o.out,
               "reason: state left over between launches (--variant atomic-ref): a second run "
               "on the same buffers gave another answer"),
        "%s", o.out);
    cr_expect_not_null(strstr(o.out, "something the first launch set was not reset"), "%s", o.out);
    free(o.out);
}

Test(labs, check_keeps_a_wrong_result_wrong_when_it_is_wrong_alone_too)
{
    struct outcome o = stages_on_stand_in("1");
    cr_expect_not_null(
        strstr(o.out, "reason: wrong result (--variant atomic-ref): n=1 pattern=ones"), "%s",
        o.out);
    cr_expect_null(strstr(o.out, "state left over"), "%s", o.out);
    free(o.out);
}

Test(labs, check_names_an_index_that_wraps_below_2_32)
{
    struct outcome o = stages_on_stand_in("0");
    cr_expect_not_null(
        strstr(o.out, "reason: 64-bit index: wrong at n = 4294967296 with --pattern onehot:last"),
        "%s", o.out);
    cr_expect_not_null(strstr(o.out, "index64=0"), "%s", o.out);
    free(o.out);
}

/* compute-sanitizer's stand-in: it waits until every run of the stage has started (RUNS marks
 * in STARTED), which runs one after another never reach, and finds a race in racecheck's run
 * of --variant atomic-ref. */
static const char SANITIZER_STAND_IN[] =
    "#!/bin/sh\n"
    "tool=$2\n"
    "touch \"$STARTED/$tool-$$\"\n"
    "tries=0\n"
    "while [ \"$(ls \"$STARTED\" | wc -l)\" -lt \"$RUNS\" ] && [ $tries -lt 200 ]; do\n"
    "    sleep 0.1; tries=$((tries + 1))\n"
    "done\n"
    "if [ \"$(ls \"$STARTED\" | wc -l)\" -lt \"$RUNS\" ]; then\n"
    "    echo '========= Alone: the other runs never started'\n"
    "    echo '========= ERROR SUMMARY: 1 error'; exit 99\n"
    "fi\n"
    "case \"$*\" in\n"
    "*racecheck*atomic-ref*) echo '========= Error: Race reported between Write access'\n"
    "    echo '=========     at reduce_last_block+0x10 in reduce.cu:42'\n"
    "    echo '========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)'; exit 99 ;;\n"
    "*racecheck*) echo '========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)' "
    ";;\n"
    "*) echo '========= ERROR SUMMARY: 0 errors' ;;\n"
    "esac\n";

/* The sanitizer stage runs its tools side by side on both of lab05's graded variants (3 x 2
 * runs at once), and reports them in the tools' order, each with the variant it failed on. */
Test(labs, sanitizers_run_side_by_side_and_report_in_order, .timeout = 120)
{
    char scratch[] = "/tmp/labs-sanitizers-XXXXXX", tool[PATH_LENGTH], started[PATH_LENGTH],
         script[LINE_LENGTH], tool_setting[PATH_LENGTH + 32], started_setting[PATH_LENGTH + 32];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(tool, sizeof tool, "%s/compute-sanitizer", scratch);
    snprintf(started, sizeof started, "%s/started", scratch);
    write_file(tool, SANITIZER_STAND_IN);
    free(run((const char *const[]){"chmod", "+x", tool, NULL}, NULL).out);
    free(run((const char *const[]){"mkdir", "-p", started, NULL}, NULL).out);
    snprintf(script, sizeof script,
             "source labs/check.sh; lab_reset; lab_stage_sanitize lab05 %s/program %s;"
             "printf 'reason: %%s\\n' \"${LAB_REASONS[@]}\"; echo \"clean=$LAB_CLEAN\"",
             scratch, scratch);
    snprintf(tool_setting, sizeof tool_setting, "COMPUTE_SANITIZER=%s", tool);
    snprintf(started_setting, sizeof started_setting, "STARTED=%s", started);
    struct outcome o = run((const char *const[]){"bash", "-c", script, NULL},
                           (const char *const[]){tool_setting, started_setting, "RUNS=6",
                                                 "LAB_SANITIZE_N=4099 1", NULL});
    const char *memcheck = strstr(o.out, "memcheck     clean at n = 4099, 1"),
               *racecheck = strstr(o.out, "racecheck    FAILED (--variant atomic-ref) at n = 4099: "
                                          "Error: Race reported between Write access, at "
                                          "reduce_last_block+0x10 in reduce.cu:42"),
               *synccheck = strstr(o.out, "synccheck    clean at n = 4099, 1");
    cr_expect(memcheck != NULL && racecheck != NULL && synccheck != NULL && memcheck < racecheck &&
                  racecheck < synccheck,
              "not each tool's line, in the tools' order:\n%s", o.out);
    cr_expect_null(strstr(o.out, "Alone"), "the runs went one after another:\n%s", o.out);
    cr_expect_not_null(strstr(o.out, "reason: racecheck (--variant atomic-ref) at n = 4099"), "%s",
                       o.out);
    cr_expect_not_null(strstr(o.out, "clean=0"), "%s", o.out);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

/* Runs a bash script from the repository root; its output. */
static struct outcome bash_script(const char *script)
{
    return run((const char *const[]){"bash", "-c", script, NULL}, NULL);
}

/* lab05's two graded variants: their --check runs at once (a stand-in that passes only when
 * the other variant's run has started before it ends), then both are read. */
Test(labs, every_graded_variants_check_runs_at_once, .timeout = 60)
{
    struct outcome o = bash_script(
        "source labs/check.sh; dir=$(mktemp -d); trap 'rm -rf \"$dir\"' EXIT; mkdir \"$dir/on\";"
        "printf '#!/bin/sh\\ntouch \"%s/on/$$\"\\nfor i in $(seq 50); do\\n"
        "[ \"$(ls \"%s/on\" | wc -l)\" -ge 2 ] && echo \"check: all 1 cases correct\" && exit 0\\n"
        "sleep 0.1; done\\necho \"check: FAILED 1 of 1 cases; alone\"; exit 1\\n' \"$dir\" \"$dir\""
        " > \"$dir/program\"; chmod +x \"$dir/program\"; LAB_FRESH_RUNS=0;"
        "lab_reset; lab_stage_check lab05 \"$dir/program\" \"$dir\";"
        "echo \"correct=$LAB_CORRECT\"");
    cr_expect_not_null(strstr(o.out, "correct=1\n"), "the variants ran one after another:\n%s",
                       o.out);
    cr_expect_not_null(strstr(o.out, "ok, --variant atomic-ref: check: all 1 cases correct"), "%s",
                       o.out);
    free(o.out);
}

/* A kernel that never ends under --check stops the sanitizer runs begun beside it: a stand-in
 * compute-sanitizer that would run for 100 s is stopped within seconds, none is left running,
 * no run starts after the stop (6 of the 12 runs, those at n = 4099), and the stage is "not
 * run". */
Test(labs, a_hang_stops_the_sanitizer_runs_beside_the_check, .timeout = 60)
{
    struct outcome o = bash_script(
        "source labs/check.sh; dir=$(mktemp -d); trap 'rm -rf \"$dir\"' EXIT;"
        "printf '#!/bin/sh\\necho $$ >> \"%s/pids\"\\nsleep 100\\n' \"$dir\" > \"$dir/tool\";"
        "chmod +x \"$dir/tool\"; COMPUTE_SANITIZER=$dir/tool; LAB_SANITIZE_N='4099 1';"
        "lab_reset; lab_sanitize_start lab05 \"$dir/program\" \"$dir\";"
        "while [ \"$(wc -l < \"$dir/pids\" 2>/dev/null)\" != 6 ]; do sleep 0.1; done;"
        "LAB_HUNG=1; start=$SECONDS; lab_sanitize_finish lab05 \"$dir/program\" \"$dir\";"
        "echo \"stopped in $((SECONDS - start)) s, clean=[$LAB_CLEAN]\"; sleep 0.5;"
        "for pid in $(cat \"$dir/pids\"); do ! kill -0 $pid 2>/dev/null || echo alive; done;"
        "echo \"started=$(wc -l < \"$dir/pids\")\"");
    const char *stopped = strstr(o.out, "stopped in ");
    cr_assert_not_null(stopped, "%s", o.out);
    cr_expect_leq(atoi(stopped + strlen("stopped in ")), 3, "%s", o.out);
    cr_expect_not_null(strstr(o.out, "s, clean=[]"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "not run: the kernel did not finish under --check"), "%s",
                       o.out);
    cr_expect_null(strstr(o.out, "alive"), "a sanitizer run was left running:\n%s", o.out);
    cr_expect_not_null(strstr(o.out, "started=6\n"), "a run started after the stop:\n%s", o.out);
    free(o.out);
}

/* Two submissions graded at once (labs/grade.sh -j 2): the GPU stages of one end before the
 * other's begin, and without LAB_GPU_LOCK (./labs/labNN/run --check) they are not held back. */
static const char TWO_AT_ONCE[] =
    "source labs/check.sh; dir=$(mktemp -d); trap 'rm -rf \"$dir\"' EXIT;"
    "[ -z \"${LOCKED:-}\" ] || export LAB_GPU_LOCK=\"$dir/gpu.lock\";"
    "stages() { echo \"$1 begins\"; touch \"$dir/$1\"; sleep 1; echo \"$1 ends\"; };"
    "lab_with_gpu stages first & while [ ! -e \"$dir/first\" ]; do sleep 0.05; done;"
    "lab_with_gpu stages second; wait";

Test(labs, two_submissions_never_use_the_gpu_at_once)
{
    char script[1024];
    snprintf(script, sizeof script, "LOCKED=1; %s", TWO_AT_ONCE);
    struct outcome o = bash_script(script);
    cr_expect_str_eq(o.out, "first begins\nfirst ends\nsecond begins\nsecond ends\n");
    free(o.out);
}

Test(labs, without_the_graders_lock_the_gpu_stages_are_not_held_back)
{
    struct outcome o = bash_script(TWO_AT_ONCE);
    cr_expect_str_eq(o.out, "first begins\nsecond begins\nfirst ends\nsecond ends\n");
    free(o.out);
}

/* With several GPUs, grade.sh's stages hold their GPU's lock and the tests' lock shared
 * (LAB_GPU_LOCK_SHARED): gradings on two GPUs overlap, and a program of the tests, which takes
 * the tests' lock alone (tests/harness.c), waits for both. */
Test(labs, gradings_on_two_gpus_overlap_and_the_tests_programs_wait_for_both)
{
    struct outcome o = bash_script(
        "source labs/check.sh; dir=$(mktemp -d); trap 'rm -rf \"$dir\"' EXIT;"
        "export LAB_GPU_LOCK_SHARED=\"$dir/gpu.lock\";"
        "stages() { echo \"$1 begins\"; touch \"$dir/$1\"; sleep 1; echo \"$1 ends\"; };"
        "LAB_GPU_LOCK=\"$dir/gpu.lock.gpu0\" lab_with_gpu stages gpu0 &"
        "while [ ! -e \"$dir/gpu0\" ]; do sleep 0.05; done;"
        "LAB_GPU_LOCK=\"$dir/gpu.lock.gpu1\" lab_with_gpu stages gpu1 &"
        "while [ ! -e \"$dir/gpu1\" ]; do sleep 0.05; done;"
        "flock -x \"$dir/gpu.lock\" echo 'the tests program runs'; wait");
    static const char BOTH_BEGIN[] = "gpu0 begins\ngpu1 begins\n",
                      LAST[] = "the tests program runs\n";
    size_t length = strlen(o.out);
    cr_expect(strncmp(o.out, BOTH_BEGIN, strlen(BOTH_BEGIN)) == 0, "not side by side:\n%s", o.out);
    cr_expect(length >= strlen(LAST) && strcmp(o.out + length - strlen(LAST), LAST) == 0 &&
                  strstr(o.out, "gpu0 ends\n") != NULL && strstr(o.out, "gpu1 ends\n") != NULL,
              "the tests' program did not wait for both:\n%s", o.out);
    free(o.out);
}

/* Under grade.sh (LAB_REFERENCE_ROWS) the step's own program is timed once a GPU for the
 * class, and every submission gets that row; alone (./labs/labNN/run --check), once each. */
static const char REFERENCE_TWICE[] =
    "source labs/check.sh; dir=$(mktemp -d); trap 'rm -rf \"$dir\"' EXIT;"
    "[ -z \"${SHARED:-}\" ] || { export LAB_REFERENCE_ROWS=\"$dir/rows\"; mkdir -p \"$dir/rows\"; "
    "};"
    "lab_timed_row() { echo timed >>\"$dir/runs\"; echo \"1 0.5$(wc -l <\"$dir/runs\") 0.4\"; };"
    "lab_reference_row step09_last_block \"$dir/a.csv\"; lab_reference_row step09_last_block "
    "\"$dir/b.csv\"; echo \"runs=$(wc -l <\"$dir/runs\")\"";

Test(labs, a_grading_times_the_steps_program_once_for_the_class)
{
    char script[1024];
    snprintf(script, sizeof script, "SHARED=1; %s", REFERENCE_TWICE);
    struct outcome shared = bash_script(script), alone = bash_script(REFERENCE_TWICE);
    cr_expect_str_eq(shared.out, "1 0.51 0.4\n1 0.51 0.4\nruns=1\n");
    cr_expect_str_eq(alone.out, "1 0.51 0.4\n1 0.52 0.4\nruns=2\n");
    free(shared.out);
    free(alone.out);
}

Test(labs, verdict_names_the_cause_first_once_and_whole)
{
    struct outcome o = bash_script(
        "source labs/check.sh; lab_reset; LAB_BUILDS=1; LAB_CORRECT=0;"
        "LAB_REASONS=('state left over between launches: n=1 right alone'"
        " 'memcheck at n = 1: Invalid __global__ read of size 4 bytes'"
        " 'memcheck at n = 1: Invalid __global__ read of size 4 bytes'"
        " 'does not compile: x.cu(2): error: expected a \";\"');"
        "for i in $(seq 40); do LAB_REASONS+=(\"racecheck at n = 1: hazard $i of many, each "
        "reported with a long text that fills the cell\"); done;"
        "printf 'reason: %s|\\n' \"$(lab_reason_text)\"");
    const char *reason = strstr(o.out, "reason: ");
    cr_assert_not_null(reason, "%s", o.out);
    cr_expect(
        strncmp(reason,
                "reason: does not compile: x.cu(2): error: expected a \";\"; memcheck at n = 1: "
                "Invalid __global__ read",
                strlen("reason: does not compile: x.cu(2): error: expected a \";\"; memcheck")) ==
            0,
        "the cause first, the compiler's text whole: %s", reason);
    const char *memcheck = strstr(reason, "memcheck at n = 1");
    cr_expect(memcheck != NULL && strstr(memcheck + 1, "memcheck at n = 1") == NULL,
              "one finding once: %s", reason);
    const char *state = strstr(reason, "state left over");
    cr_expect(state == NULL || state > memcheck, "memcheck before the state it explains: %s",
              reason);
    cr_expect_leq(strcspn(reason, "|"), strlen("reason: ") + 1200,
                  "the reason is cut: %zu characters", strcspn(reason, "|"));
    free(o.out);
}

/* More failures than the reason has room for: as many whole ones as fit, then their count; a
 * tool's long message cut between words, saying so. Never a sentence cut in the middle. */
Test(labs, verdict_counts_the_failures_it_has_no_room_for)
{
    struct outcome o = bash_script(
        "source labs/check.sh; lab_reset; LAB_REASONS=();"
        "for i in $(seq 40); do LAB_REASONS+=(\"racecheck at n = 1: hazard $i of many, each "
        "reported with a long text that fills the cell\"); done;"
        "printf 'reason: %s|\\n' \"$(lab_reason_text)\";"
        "printf 'clipped: %s|\\n' \"$(lab_clip \"$(printf 'word%.0s ' $(seq 100))\")\"");
    const char *reason = strstr(o.out, "reason: ");
    cr_assert_not_null(reason, "%s", o.out);
    size_t length = strcspn(reason, "|");
    cr_expect_leq(length, strlen("reason: ") + 1200, "the reason is %zu characters", length);
    cr_expect_not_null(strstr(reason, "each reported with a long text that fills the cell; and "),
                       "the last failure kept is not whole: %.*s", (int)length, reason);
    cr_expect_not_null(strstr(reason, " more failures (the logs hold every one)|"),
                       "the failures left out are not counted: %.*s", (int)length, reason);
    cr_expect_not_null(strstr(o.out, "clipped: word word"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, " word [cut: the log has the rest]|"),
                       "a tool's message cut inside a word, or without saying so: %s", o.out);
    free(o.out);
}

Test(labs, a_stage_that_could_not_run_is_not_passed)
{
    struct outcome o = bash_script(
        "source labs/check.sh; lab_free_mib() { echo 1024; }; lab_reset; LAB_BUILDS=1;"
        "LAB_HOST_CODE=1; LAB_INSTRUCTIONS=1; LAB_CORRECT=1; LAB_CLEAN=1;"
        "lab_stage_wide /bin/true /tmp; lab_verdict lab01");
    cr_expect_not_null(strstr(o.out,
                              "NOT PASSED: not checked: 64-bit index at n = 4294967296: needs "
                              "17 GiB of GPU memory, 1 GiB free"),
                       "%s", o.out);
    cr_expect_not_null(strstr(o.out, "\"pass\":false"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "\"index64\":null"), "%s", o.out);
    free(o.out);
}

/* The file's bytes, for comparing before and after. */
static char *read_file(const char *path)
{
    FILE *file = fopen(path, "r");
    cr_assert_not_null(file, "%s: %s", path, strerror(errno));
    return file_text(file);
}

Test(labs, grade_hides_the_class_and_the_grades_from_a_submission, .timeout = 120)
{
    char scratch[] = "/tmp/labs-sandbox-XXXXXX", work_root[] = "/tmp/labs-work-XXXXXX";
    char folder[FOLDER_LENGTH], neighbour[PATH_LENGTH], csv[PATH_LENGTH], logs[PATH_LENGTH],
        script[4 * LINE_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    cr_assert_not_null(mkdtemp(work_root), "mkdtemp: %s", strerror(errno));
    snprintf(folder, sizeof folder, "%s/lab01", scratch);
    snprintf(neighbour, sizeof neighbour, "%s/neighbour.cu", folder);
    snprintf(csv, sizeof csv, "%s/grades.csv", scratch);
    snprintf(logs, sizeof logs, "%s/logs", scratch);
    free(run((const char *const[]){"mkdir", "-p", folder, logs, NULL}, NULL).out);
    write_file(neighbour, "the neighbour's kernel\n");
    write_file(csv, CSV_HEADER);
    snprintf(script, sizeof script,
             "source labs/grade.sh; SUBMISSIONS=%s; LOGS=%s; SCRATCH=%s; ROW_FILES=(%s);"
             "chmod 711 \"$SCRATCH\"; mkdir -p \"$SCRATCH/0000\"; isolation_kind;"
             "echo \"isolation=$ISOLATION\"; isolate \"$SCRATCH/0000\";"
             "\"${LAB_SANDBOX[@]}\" sh -c 'cat %s; ls %s; echo forged >> %s; echo forged > %s;"
             " echo mine > \"$1/own\" && echo own-written' sh \"$SCRATCH/0000\"",
             folder, logs, work_root, csv, neighbour, folder, csv, neighbour);
    struct outcome o = bash_script(script);
    if (strstr(o.out, "isolation=none") != NULL)
        cr_skip_test("neither bubblewrap nor root here: submissions cannot be isolated:\n%s",
                     o.out);
    cr_expect_not_null(strstr(o.out, "own-written"), "its own folder is writable:\n%s", o.out);
    cr_expect_null(strstr(o.out, "the neighbour's kernel"), "the neighbour's file was read:\n%s",
                   o.out);
    char *after = read_file(neighbour);
    cr_expect_str_eq(after, "the neighbour's kernel\n", "the neighbour's file was changed");
    free(after);
    after = read_file(csv);
    cr_expect_str_eq(after, CSV_HEADER, "the CSV was changed");
    free(after);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, work_root, NULL}, NULL).out);
}

/* As root without bubblewrap, submissions graded at once run as users of their own: one cannot
 * read another's folder, and -j 2 keeps two at a time (as the user nobody it would be one). */
Test(labs, grade_runs_each_submission_as_a_user_of_its_own, .timeout = 120)
{
    if (geteuid() != 0) cr_skip_test("not root here: the user fallback needs root");
    struct outcome o = bash_script(
        "source labs/grade.sh; SUBMISSIONS=$(mktemp -d); LOGS=$(mktemp -d); SCRATCH=$(mktemp -d);"
        "trap 'rm -rf \"$SUBMISSIONS\" \"$LOGS\" \"$SCRATCH\"' EXIT; ROW_FILES=();"
        "ISOLATION=user; chmod 711 \"$SCRATCH\"; own_ids_free 2 || { echo ids-taken; exit; };"
        "mkdir -p \"$SCRATCH/0000\" \"$SCRATCH/0001\";"
        "isolate \"$SCRATCH/0000\" 0000; echo \"first=$USER_LABEL\";"
        "\"${LAB_SANDBOX[@]}\" sh -c 'echo secret > \"$1/answer\" && echo first-wrote' sh "
        "\"$SCRATCH/0000\";"
        "isolate \"$SCRATCH/0001\" 0001; echo \"second=$USER_LABEL\";"
        "\"${LAB_SANDBOX[@]}\" sh -c 'cat \"$1/answer\"; echo mine > \"$2/own\" && echo "
        "second-wrote'"
        " sh \"$SCRATCH/0000\" \"$SCRATCH/0001\"");
    if (strstr(o.out, "ids-taken") != NULL) cr_skip_test("an account here has an id of the block");
    cr_expect_not_null(strstr(o.out, "first=user 2100000000\n"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "second=user 2100000001\n"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "first-wrote"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "second-wrote"), "its own folder is writable:\n%s", o.out);
    cr_expect_null(strstr(o.out, "secret"), "one submission read another's folder:\n%s", o.out);
    free(o.out);
}

/* Under labs/grade.sh a run that outlasts 10 times the step's own --check (at least 20 s) is a
 * hang: a stand-in program whose --check takes 2.5 s gives 30 s; a quick one the floor, 20 s;
 * a timeout the caller set is kept; a step whose own --check fails stops the grading. */
Test(labs, hang_timeouts_come_from_the_steps_own_check, .timeout = 60)
{
    struct outcome o = bash_script(
        "source labs/grade.sh; dir=$(mktemp -d); trap 'rm -rf \"$dir\"' EXIT; LAB_GPU_LOCK=;"
        "printf '#!/bin/sh\\nsleep $1\\necho \"check: all 1 cases correct\"\\n' > $dir/own;"
        "printf '#!/bin/sh\\necho \"check: FAILED 1 of 1 cases\"\\nexit 1\\n' > $dir/broken;"
        "chmod +x $dir/own $dir/broken;"
        "slow() { sed -i 's/sleep .*/sleep 2.5/' $dir/own; }; quick() { sed -i 's/sleep .*/sleep "
        "0.1/' $dir/own; };"
        "slow; UNSET_TIMEOUTS=(LAB_CHECK_TIMEOUT LAB_WIDE_TIMEOUT); LAB_TIME_TIMEOUT=7;"
        "hang_timeouts $dir/own $dir/log 2>/dev/null;"
        "echo \"slow=$LAB_CHECK_TIMEOUT,$LAB_WIDE_TIMEOUT,$LAB_TIME_TIMEOUT\";"
        "quick; hang_timeouts $dir/own $dir/log 2>/dev/null; echo \"quick=$LAB_CHECK_TIMEOUT\";"
        "hang_timeouts $dir/broken $dir/log; echo \"broken=$?\"");
    cr_expect_not_null(strstr(o.out, "slow=30,30,7\n"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "quick=20\n"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "broken=1\n"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "--check fails here, so no submission can be judged: check: "
                                     "FAILED 1 of 1 cases"),
                       "%s", o.out);
    free(o.out);
}

/* A submission that would not compile if it could see the class folder: the build is
 * isolated too (an #include of a neighbour's file by its path finds nothing). Its #if is
 * not the starter's, so it is built and never run. */
Test(labs, grade_builds_a_submission_without_sight_of_the_class, .timeout = 600)
{
    char scratch[] = "/tmp/labs-spy-XXXXXX", folder[FOLDER_LENGTH], path[PATH_LENGTH],
         csv[PATH_LENGTH], line[LINE_LENGTH], *fields[GRADE_COLUMNS];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(folder, sizeof folder, "%s/lab01", scratch);
    snprintf(csv, sizeof csv, "%s/grades.csv", scratch);
    free(run((const char *const[]){"mkdir", "-p", folder, NULL}, NULL).out);
    copy_file("step02_divergence/reduce.cu", folder, "neighbour");
    char *model = read_file("step02_divergence/reduce.cu");
    char *spy = malloc(strlen(model) + 2 * PATH_LENGTH);
    cr_assert_not_null(spy);
    sprintf(
        spy,
        "%s\n#if __has_include(\"%s/neighbour.cu\")\n#error the class folder is visible\n#endif\n",
        model, folder);
    snprintf(path, sizeof path, "%s/spy.cu", folder);
    write_file(path, spy);
    free(spy);
    free(model);
    struct outcome o = run(
        (const char *const[]){"labs/grade.sh", "-o", csv, "--logs", scratch, folder, NULL},
        NO_GPU_SETTINGS);
    cr_assert(find_row(csv, "spy", line, fields), "no row for spy:\n%s", o.out);
    if (strcmp(fields[G_ISOLATION], "none") == 0)
        cr_skip_test("neither bubblewrap nor root here: submissions cannot be isolated");
    cr_expect_null(strstr(fields[G_REASON], "visible"), "the build saw the class folder: %s",
                   fields[G_REASON]);
    /* As nobody the folder is closed rather than absent: the compiler stops at it. */
    if (strcmp(fields[G_ISOLATION], "bwrap") == 0)
        cr_expect_str_eq(fields[G_BUILDS], "1", "%s", fields[G_REASON]);
    cr_expect_str_eq(fields[G_HOST_CODE], "0", "an #if the starter does not have: %s",
                     fields[G_REASON]);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

/* ---- the host code (labs/host_code.py), without a GPU --------------------------------------- */

struct host_reading {
    char kernel[80], step[24]; /* paths from the repository root: the submission, the step */
    char finding[120];         /* a part of what host_code.py must say; "": the starter's */
};
static const struct host_reading HOST_READINGS[] = {
    {"labs/lab01/reduce.cu", "step02_divergence", ""},
    {"labs/lab02/reduce.cu", "step04_idle", ""},
    {"labs/lab03/reduce.cu", "step05_unroll_warp", ""},
    {"labs/lab04/reduce.cu", "step08_shuffle", ""},
    {"labs/lab05/reduce.cu", "step09_last_block", ""},
    {"tests/wrong_kernels/lab01_right_uniform_loop.cu", "step02_divergence", ""},
    {"tests/wrong_kernels/lab04_unsigned_grid_stride.cu", "step08_shuffle", ""},
    {"tests/wrong_kernels/lab05_one_thread_acquire.cu", "step09_last_block", ""},
    {"tests/wrong_kernels/lab05_right_uniform_loop.cu", "step09_last_block", ""},
    {"tests/wrong_kernels/lab01_host_sum.cu", "step02_divergence",
     "lab01_host_sum.cu:27: the starter's host code was changed: `extern \"C\" cudaError_t "
     "reduce_blocks"},
    {"tests/wrong_kernels/lab02_reads_neighbour.cu", "step04_idle",
     "host code that the starter does not have: `static int class_read = read_the_class ( ) ;`"},
    {"tests/wrong_kernels/lab03_writes_grades.cu", "step05_unroll_warp",
     "host code that the starter does not have: `__attribute__ ( ( constructor ) ) static void "
     "write_my_grade"},
};

ParameterizedTestParameters(labs, host_code_is_the_starters)
{
    return cr_make_param_array(struct host_reading, HOST_READINGS,
                               sizeof HOST_READINGS / sizeof HOST_READINGS[0]);
}

ParameterizedTest(const struct host_reading *r, labs, host_code_is_the_starters, .timeout = 60)
{
    char reference[PATH_LENGTH];
    snprintf(reference, sizeof reference, "%s/reduce.cu", r->step);
    struct outcome o = run(
        (const char *const[]){"python3", "labs/host_code.py", r->kernel, reference, NULL}, NULL);
    if (*r->finding == '\0') {
        cr_expect_eq(o.exit_code, 0, "%s: exit code %d:\n%s", r->kernel, o.exit_code, o.out);
    } else {
        cr_expect_eq(o.exit_code, 1, "%s: exit code %d:\n%s", r->kernel, o.exit_code, o.out);
        cr_expect_not_null(strstr(o.out, r->finding), "%s: should say '%s':\n%s", r->kernel,
                           r->finding, o.out);
    }
    free(o.out);
}

/* ---- the compiled code (labs/lesson.py), without a GPU -------------------------------------- */

/* Arrays, not pointers: Criterion hands each parameter to a test process of its own. */
struct reading {
    char lab[8], kernel[80]; /* the kernel: a path from the repository root */
    char finding[160];       /* a part of what lesson.py must say is missing; "": nothing */
};
static const struct reading READINGS[] = {
    {"lab01", "step02_divergence/reduce.cu", ""},
    {"lab02", "step04_idle/reduce.cu", ""},
    {"lab03", "step05_unroll_warp/reduce.cu", ""},
    {"lab04", "step08_shuffle/reduce.cu", ""},
    {"lab05", "step09_last_block/reduce.cu", ""},
    {"lab03", "tests/wrong_kernels/lab03_right_shuffle.cu", ""},
    {"lab05", "tests/wrong_kernels/lab05_right_release_acquire.cu", ""},
    {"lab01", "tests/wrong_kernels/lab01_int_index.cu", ""}, /* wrong, but not in the code */
    {"lab05", "tests/wrong_kernels/lab05_counter_not_reset.cu", ""},
    {"lab01", "tests/wrong_kernels/lab01_barrier_in_branch.cu",
     "a barrier that not every thread of the block reaches, in reduce_strided_index: bar.sync at "
     "lab01_barrier_in_branch.cu:"},
    {"lab04", "tests/wrong_kernels/lab04_partial_mask.cu",
     "shfl.sync.down.b32 at lab04_partial_mask.cu:"},
    {"lab04", "tests/wrong_kernels/lab04_partial_mask.cu", "has the mask 0x0000ffff"},
    {"lab05", "tests/wrong_kernels/lab05_no_fence_before_ticket.cu",
     "no fence between writing the block sum and taking the ticket (atom.global.add.u32"},
    {"lab05", "tests/wrong_kernels/lab05_no_acquire_fence.cu",
     "no fence between taking the ticket"},
    {"lab05", "tests/wrong_kernels/lab05_atomic_ref_unwritten.cu",
     "the atomic-ref variant (TODO(lab5) B) takes no ticket"},
    {"lab05", "labs/lab05/reduce.cu", "the fence variant (TODO(lab5) A) takes no ticket"},
    {"lab04", "labs/lab04/reduce.cu", "the warp's sum uses no shuffle"},
    {"lab03", "labs/lab03/reduce.cu", "has no __syncwarp()"},
    {"lab01", "tests/wrong_kernels/lab01_right_uniform_loop.cu", ""},
    {"lab05", "tests/wrong_kernels/lab05_right_uniform_loop.cu", ""},
    /* wrong at 2^32 only, and its 32-bit grid-stride index skips lab04's lesson */
    {"lab04", "tests/wrong_kernels/lab04_unsigned_grid_stride.cu",
     "reduce_shuffle<32>: the grid-stride loop's index is 32-bit (cvt.u64.u32 at "
     "lab04_unsigned_grid_stride.cu:"},
    {"lab03", "tests/wrong_kernels/lab03_partial_syncwarp.cu",
     "a warp instruction that part of the warp skips, in reduce_unroll_warp<0>: bar.warp.sync at "
     "lab03_partial_syncwarp.cu:"},
    {"lab04", "tests/wrong_kernels/lab04_half_warp_shuffle.cu",
     "a warp instruction that part of the warp skips, in reduce_shuffle<32>: shfl.sync.down.b32 at "
     "lab04_half_warp_shuffle.cu:"},
    {"lab05", "tests/wrong_kernels/lab05_one_thread_acquire.cu",
     "the fence after the ticket (membar.gl at lab05_one_thread_acquire.cu:"},
};

ParameterizedTestParameters(labs, lesson_reads_the_compiled_code)
{
    return cr_make_param_array(struct reading, READINGS, sizeof READINGS / sizeof READINGS[0]);
}

ParameterizedTest(const struct reading *r, labs, lesson_reads_the_compiled_code, .timeout = 300)
{
    char scratch[] = "/tmp/labs-ptx-XXXXXX", lab[FOLDER_LENGTH], kernel[PATH_LENGTH],
         out[PATH_LENGTH];
    char ptx[PATH_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(lab, sizeof lab, "LAB=%s", r->lab);
    snprintf(kernel, sizeof kernel, "LAB_KERNEL=%s", r->kernel);
    snprintf(out, sizeof out, "LAB_OUT=%s", scratch);
    snprintf(ptx, sizeof ptx, "%s/reduce.ptx", scratch);
    struct outcome built = run(
        (const char *const[]){"make", "-s", "--no-print-directory", lab, kernel, out, ptx, NULL},
        NULL);
    cr_assert_eq(built.exit_code, 0, "make %s: %s", ptx, built.out);
    struct outcome o = run((const char *const[]){"python3", "labs/lesson.py", r->lab, ptx, NULL},
                           NULL);
    if (*r->finding == '\0') {
        cr_expect_eq(o.exit_code, 0, "%s: exit code %d, expected 0 (nothing missing):\n%s",
                     r->kernel, o.exit_code, o.out);
        cr_expect(strncmp(o.out, "ok: ", strlen("ok: ")) == 0, "%s:\n%s", r->kernel, o.out);
    } else {
        cr_expect_eq(o.exit_code, 1, "%s: exit code %d, expected 1 (something missing):\n%s",
                     r->kernel, o.exit_code, o.out);
        cr_expect_not_null(strstr(o.out, r->finding), "%s: should say '%s':\n%s", r->kernel,
                           r->finding, o.out);
    }
    free(built.out);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

/* ---- the lesson: the technique each lab teaches (labs/lesson.py's "lesson:" lines) ---------- */

/* A kernel, and what lesson.py must say of its technique: "" for none (a "lesson passed:" line and
 * no "lesson:" line), else a part of each "lesson:" line it must print. Every right kernel and
 * every starter passes the lesson; each lazy kernel fails it, naming the technique. */
static int count_lines_starting(const char *text, const char *start);

/* The PTX of a kernel file, built as labs/grade.sh builds it (the file keeps its name, which
 * the findings quote): its path in `ptx`. */
static void kernel_ptx(const char *lab, const char *kernel, const char *scratch,
                       char ptx[PATH_LENGTH])
{
    char setting_lab[FOLDER_LENGTH], setting_kernel[PATH_LENGTH], setting_out[PATH_LENGTH];
    snprintf(setting_lab, sizeof setting_lab, "LAB=%s", lab);
    snprintf(setting_kernel, sizeof setting_kernel, "LAB_KERNEL=%s", kernel);
    snprintf(setting_out, sizeof setting_out, "LAB_OUT=%s", scratch);
    snprintf(ptx, PATH_LENGTH, "%s/reduce.ptx", scratch);
    struct outcome built = run((const char *const[]){"make", "-s", "--no-print-directory",
                                                     setting_lab, setting_kernel, setting_out, ptx,
                                                     NULL},
                               NULL);
    cr_assert_eq(built.exit_code, 0, "make %s: %s", ptx, built.out);
    free(built.out);
}

struct technique_reading {
    char lab[8], kernel[80];
    char findings[2][200];
};
static const struct technique_reading TECHNIQUE_READINGS[] = {
    {"lab01", "step02_divergence/reduce.cu", {""}},
    {"lab02", "step04_idle/reduce.cu", {""}},
    {"lab03", "step05_unroll_warp/reduce.cu", {""}},
    {"lab04", "step08_shuffle/reduce.cu", {""}},
    {"lab05", "step09_last_block/reduce.cu", {""}},
    {"lab01", "tests/wrong_kernels/lab01_right_uniform_loop.cu", {""}},
    {"lab03", "tests/wrong_kernels/lab03_right_shuffle.cu", {""}},
    {"lab05", "tests/wrong_kernels/lab05_right_release_acquire.cu", {""}},
    {"lab05", "tests/wrong_kernels/lab05_right_uniform_loop.cu", {""}},
    {"lab01", "labs/lab01/reduce.cu", {""}},
    {"lab02", "labs/lab02/reduce.cu", {""}},
    {"lab03", "labs/lab03/reduce.cu", {""}},
    {"lab04", "labs/lab04/reduce.cu", {""}},
    {"lab05", "labs/lab05/reduce.cu", {""}},
    {"lab01",
     "tests/wrong_kernels/lab01_lazy_modulo.cu",
     {"lesson: whole warps busy or idle: reduce_strided_index: the tree's working threads are "
      "chosen by a per-thread modulo test (rem.u32 at lab01_lazy_modulo.cu:"}},
    {"lab02",
     "tests/wrong_kernels/lab02_lazy_strided_tree.cu",
     {"lesson: sequential addressing and the first add during the load: reduce_first_add<0>: the "
      "tree indexes shared memory with a stride (mul.lo.s32 at lab02_lazy_strided_tree.cu:",
      "lab02 asks for sequential addressing"}},
    {"lab03",
     "tests/wrong_kernels/lab03_lazy_lane0_loop.cu",
     {"lesson: every lane of the last warp working in each level: reduce_unroll_warp<0>: one lane "
      "adds the last warp's sums one after another",
      "lab03 asks every lane of the last warp to work in each level"}},
    {"lab04",
     "tests/wrong_kernels/lab04_lazy_int_index.cu",
     {"lesson: loads in flight, 64-bit indexing and the full mask: reduce_shuffle<32>: the "
      "grid-stride loop's index is 32-bit (cvt.s64.s32 at lab04_lazy_int_index.cu:",
      "lesson: loads in flight, 64-bit indexing and the full mask: reduce_shuffle<32>: no loads "
      "in flight: the grid-stride loop adds each element as soon as it is loaded"}},
    {"lab05",
     "tests/wrong_kernels/lab05_lazy_one_fence.cu",
     {"lesson: both fences, or the acquire-release order: the fence variant (TODO(lab5) A): no "
      "fence between taking the ticket (atom.global.add.u32 at lab05_lazy_one_fence.cu:"}},
};

ParameterizedTestParameters(labs, lesson_reads_the_labs_technique)
{
    return cr_make_param_array(struct technique_reading, TECHNIQUE_READINGS,
                               sizeof TECHNIQUE_READINGS / sizeof TECHNIQUE_READINGS[0]);
}

ParameterizedTest(const struct technique_reading *r, labs, lesson_reads_the_labs_technique,
                  .timeout = 300)
{
    char scratch[] = "/tmp/labs-lesson-XXXXXX", ptx[PATH_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    kernel_ptx(r->lab, r->kernel, scratch, ptx);
    struct outcome o = run((const char *const[]){"python3", "labs/lesson.py", r->lab, ptx, NULL},
                           NULL);
    if (*r->findings[0] == '\0') {
        cr_expect_eq(count_lines_starting(o.out, "lesson: "), 0,
                     "%s: fails the lesson, and it is right (or a starter):\n%s", r->kernel, o.out);
        cr_expect_eq(count_lines_starting(o.out, "lesson passed: "), 1, "%s:\n%s", r->kernel,
                     o.out);
    } else {
        cr_expect_eq(o.exit_code, 1, "%s: exit code %d, expected 1:\n%s", r->kernel, o.exit_code,
                     o.out);
        cr_expect_eq(count_lines_starting(o.out, "lesson passed: "), 0, "%s:\n%s", r->kernel,
                     o.out);
        for (int f = 0; f < 2 && *r->findings[f]; f++)
            cr_expect_not_null(strstr(o.out, r->findings[f]), "%s: should say '%s':\n%s", r->kernel,
                               r->findings[f], o.out);
    }
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

/* The lesson reaches the verdict as a column of its own: a lazy kernel read without a GPU gets
 * lesson 0, its reason "lesson: ...", and no pass; the code's other column stays 1. */
Test(labs, verdict_has_a_lesson_column, .timeout = 300)
{
    char scratch[] = "/tmp/labs-lessoncol-XXXXXX", ptx[PATH_LENGTH], script[2 * PATH_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    kernel_ptx("lab01", "tests/wrong_kernels/lab01_lazy_modulo.cu", scratch, ptx);
    snprintf(script, sizeof script,
             "source labs/check.sh; lab_reset; lab_check_without_gpu lab01 %s %s; echo \"rc=$?\"",
             ptx, scratch);
    struct outcome o = bash_script(script);
    cr_expect_not_null(strstr(o.out, "\"instructions\":true,"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "\"pass\":false,"), "%s", o.out);
    cr_expect_not_null(strstr(o.out, "\"lesson\":false,\"reason\":\"lesson: whole warps busy or "
                                     "idle: reduce_strided_index: the tree's working threads are "
                                     "chosen by a per-thread modulo test"),
                       "%s", o.out);
    cr_expect_not_null(strstr(o.out, "rc=1"), "%s", o.out);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

/* A kernel file with one edit, `from` (there exactly once) replaced by `to`, written to
 * scratch/reduce.cu, and its PTX built as labs/grade.sh builds it: the path of the PTX in `ptx`. */
static void edited_kernel_ptx(const char *lab, const char *kernel, const char *from, const char *to,
                              const char *scratch, char ptx[PATH_LENGTH])
{
    char path[PATH_LENGTH], setting_lab[FOLDER_LENGTH],
        setting_kernel[PATH_LENGTH + sizeof "LAB_KERNEL="], setting_out[PATH_LENGTH];
    char *text = read_file(kernel), *at = strstr(text, from);
    cr_assert_not_null(at, "%s has no '%s'", kernel, from);
    cr_assert_null(strstr(at + 1, from), "%s has '%s' more than once", kernel, from);
    snprintf(path, sizeof path, "%s/reduce.cu", scratch);
    FILE *file = fopen(path, "w");
    cr_assert_not_null(file, "%s: %s", path, strerror(errno));
    fprintf(file, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    fclose(file);
    free(text);
    snprintf(setting_lab, sizeof setting_lab, "LAB=%s", lab);
    snprintf(setting_kernel, sizeof setting_kernel, "LAB_KERNEL=%s", path);
    snprintf(setting_out, sizeof setting_out, "LAB_OUT=%s", scratch);
    snprintf(ptx, PATH_LENGTH, "%s/reduce.ptx", scratch);
    struct outcome built = run((const char *const[]){"make", "-s", "--no-print-directory",
                                                     setting_lab, setting_kernel, setting_out, ptx,
                                                     NULL},
                               NULL);
    cr_assert_eq(built.exit_code, 0, "make %s: %s", ptx, built.out);
    free(built.out);
}

static int count_lines_starting(const char *text, const char *start)
{
    int count = 0;
    for (const char *line = text; line != NULL && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        count += strncmp(line, start, strlen(start)) == 0;
    return count;
}

/* A right kernel with one edit that makes it wrong in one way, and what lesson.py must say of
 * it: the cause in words that name what the kernel did, and what the lesson needs. */
struct edited_reading {
    char lab[8], kernel[80], from[64], to[64];
    char findings[2][160]; /* parts of what lesson.py must say is missing */
    char absent[40];       /* what it must not say */
    int lines;             /* how many "missing:" lines: one per mistake */
};
static const struct edited_reading EDITED_READINGS[] = {
    /* The last block's loop bounded by gridDim.x, not a multiple of its step: the threads
     * past gridDim.x leave it a trip early and skip block_sum's barriers. */
    {"lab05",
     "tests/wrong_kernels/lab05_right_uniform_loop.cu",
     "(gridDim.x + BLOCK_SIZE - 1) / BLOCK_SIZE * BLOCK_SIZE",
     "gridDim.x",
     {"a barrier that not every thread of the block reaches, in reduce_last_block<",
      "is skipped by the threads that the branch at reduce.cu:"},
     "ok: ",
     0},
    /* Task B's ticket on an atomic_ref of block scope, relaxed, or release only: never told
     * to write the fence variant's __threadfence(). */
    {"lab05",
     "step09_last_block/reduce.cu",
     "cuda::thread_scope_device> ticket",
     "cuda::thread_scope_block> ticket",
     {"the atomic-ref variant (TODO(lab5) B): the ticket's cuda::atomic_ref has block scope "
      "(cuda::thread_scope_block: atom.add.acq_rel.cta.u32 at reduce.cu:",
      "task B needs acquire-release order at device scope"},
     "__threadfence()",
     1},
    {"lab05",
     "step09_last_block/reduce.cu",
     "memory_order_acq_rel) == gridDim",
     "memory_order_relaxed) == gridDim",
     {"the atomic-ref variant (TODO(lab5) B): the ticket is a fetch_add with "
      "memory_order_relaxed (atom.add.relaxed.gpu.u32 at reduce.cu:",
      "task B needs acquire-release order at device scope"},
     "plain atomicAdd",
     1},
    {"lab05",
     "step09_last_block/reduce.cu",
     "memory_order_acq_rel) == gridDim",
     "memory_order_release) == gridDim",
     {"the atomic-ref variant (TODO(lab5) B): the ticket is a fetch_add with "
      "memory_order_release (atom.add.release.gpu.u32 at reduce.cu:",
      "which does not acquire, and no fence follows it"},
     "__threadfence()",
     1},
    /* __activemask() in every shuffle: one line, with the count of the others. */
    {"lab04",
     "step08_shuffle/reduce.cu",
     "__shfl_down_sync(FULL_WARP_MASK, value, offset)",
     "__shfl_down_sync(__activemask(), value, offset)",
     {"a warp instruction with a partial mask, in reduce_shuffle<",
      "has the mask that __activemask() gives (activemask.b32), the lanes active at that moment"},
     "not a constant",
     1},
};

ParameterizedTestParameters(labs, lesson_names_what_an_edited_kernel_did)
{
    return cr_make_param_array(struct edited_reading, EDITED_READINGS,
                               sizeof EDITED_READINGS / sizeof EDITED_READINGS[0]);
}

ParameterizedTest(const struct edited_reading *r, labs, lesson_names_what_an_edited_kernel_did,
                  .timeout = 300)
{
    char scratch[] = "/tmp/labs-edit-XXXXXX", ptx[PATH_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    edited_kernel_ptx(r->lab, r->kernel, r->from, r->to, scratch, ptx);
    struct outcome o = run((const char *const[]){"python3", "labs/lesson.py", r->lab, ptx, NULL},
                           NULL);
    cr_expect_eq(o.exit_code, 1, "%s with '%s': exit code %d, expected 1:\n%s", r->kernel, r->to,
                 o.exit_code, o.out);
    for (int f = 0; f < 2; f++)
        cr_expect_not_null(strstr(o.out, r->findings[f]), "%s with '%s': should say '%s':\n%s",
                           r->kernel, r->to, r->findings[f], o.out);
    cr_expect_null(strstr(o.out, r->absent), "%s with '%s': should not say '%s':\n%s", r->kernel,
                   r->to, r->absent, o.out);
    if (r->lines > 0)
        cr_expect_eq(count_lines_starting(o.out, "missing: "), r->lines,
                     "%s with '%s': %d lines, not one per mistake:\n%s", r->kernel, r->to,
                     count_lines_starting(o.out, "missing: "), o.out);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

/* lesson.py's findings reach the verdict whole: the longest, task B's relaxed ticket, ends
 * with what task B needs and its count. */
Test(labs, verdict_keeps_a_finding_of_the_compiled_code_whole, .timeout = 300)
{
    char scratch[] = "/tmp/labs-whole-XXXXXX", ptx[PATH_LENGTH], script[2 * PATH_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    edited_kernel_ptx("lab05", "step09_last_block/reduce.cu", "memory_order_acq_rel) == gridDim",
                      "memory_order_relaxed) == gridDim", scratch, ptx);
    snprintf(script, sizeof script,
             "source labs/check.sh; lab_reset; lab_stage_lesson lab05 %s %s >/dev/null;"
             "printf 'reason: %%s|\\n' \"$(lab_reason_text)\"",
             ptx, scratch);
    struct outcome o = bash_script(script);
    cr_expect_not_null(strstr(o.out,
                              "reason: compiled code: the atomic-ref variant (TODO(lab5) B): "
                              "the ticket is a fetch_add with memory_order_relaxed"),
                       "%s", o.out);
    cr_expect_not_null(strstr(o.out, "task B needs acquire-release order at device scope (and 5 "
                                     "more like it)|"),
                       "the finding is cut: %s", o.out);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

/* make labNN-sass: the SASS of the lab's kernel, through cuobjdump; where there is none, it
 * says where cuobjdump belongs. A stand-in cuobjdump shows what it was given. */
Test(labs, sass_of_a_lab_comes_from_cuobjdump_and_says_where_it_is, .timeout = 300)
{
    char scratch[] = "/tmp/labs-sass-XXXXXX", build[PATH_LENGTH], tool[PATH_LENGTH],
         setting[PATH_LENGTH + sizeof "CUOBJDUMP="], sass[PATH_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(build, sizeof build, "BUILD=%s/build", scratch);
    struct outcome missing = run((const char *const[]){"make", "-s", "--no-print-directory",
                                                       "lab04-sass", build,
                                                       "CUOBJDUMP=/nonexistent/cuobjdump", NULL},
                                 NULL);
    cr_expect_neq(missing.exit_code, 0, "%s", missing.out);
    cr_expect_not_null(strstr(missing.out, "make lab04-sass: no cuobjdump at "
                                           "/nonexistent/cuobjdump: it comes with the CUDA "
                                           "toolkit, in its bin"),
                       "%s", missing.out);
    free(missing.out);
    snprintf(tool, sizeof tool, "%s/cuobjdump", scratch);
    write_file(tool, "#!/bin/sh\necho \"cuobjdump $*\"\n");
    free(run((const char *const[]){"chmod", "+x", tool, NULL}, NULL).out);
    snprintf(setting, sizeof setting, "CUOBJDUMP=%s", tool);
    struct outcome made = run((const char *const[]){"make", "-s", "--no-print-directory",
                                                    "lab04-sass", build, setting, NULL},
                              NULL);
    cr_expect_eq(made.exit_code, 0, "%s", made.out);
    snprintf(sass, sizeof sass, "%s/build/labs/lab04/reduce.sass", scratch);
    char *text = read_file(sass);
    cr_expect(strstr(text, "cuobjdump -sass ") != NULL && strstr(text, "lab04/reduce.cubin"), "%s",
              text);
    free(text);
    free(made.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

Test(labs, check_without_a_gpu_reads_the_compiled_code, .timeout = 300)
{
    struct outcome o = run((const char *const[]){"labs/lab05/run", "--check", NULL},
                           NO_GPU_SETTINGS);
    cr_expect_eq(o.exit_code, 1, "exit code %d (1: the starter's code already fails):\n%s",
                 o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "the fence variant (TODO(lab5) A) takes no ticket"), "%s",
                       o.out);
    cr_expect_not_null(strstr(o.out, "the atomic-ref variant (TODO(lab5) B) takes no ticket"), "%s",
                       o.out);
    cr_expect_not_null(
        strstr(o.out, "\"pass\":false,\"builds\":true,\"host_code\":true,\"instructions\":false,"
                      "\"correct\":null"),
        "%s", o.out);
    free(o.out);
}

/* ---- on a GPU ------------------------------------------------------------------------------ */

static struct criterion_test_params lab_indices(void)
{
    static int indices[LAB_COUNT];
    for (int lab = 0; lab < LAB_COUNT; lab++) indices[lab] = lab;
    return cr_make_param_array(int, indices, LAB_COUNT);
}

ParameterizedTestParameters(labs_gpu, starter_as_shipped_fails_its_check)
{
    return lab_indices();
}

ParameterizedTest(int *lab, labs_gpu, starter_as_shipped_fails_its_check, .timeout = 900)
{
    char program[PATH_LENGTH];
    require_cuda_device(LAB[*lab]);
    snprintf(program, sizeof program, "labs/%s/program", LAB[*lab]);
    struct outcome o = run((const char *const[]){program, "--check", NULL}, NULL);
    cr_expect_eq(o.exit_code, 1, "%s --check: exit code %d (1: a wrong result):\n%.2000s", program,
                 o.exit_code, o.out);
    cr_expect_not_null(strstr(o.out, "check: FAILED"), "%.2000s", o.out);
    free(o.out);
}

/* What labs/grade.sh must say about one submission. NOT_0: 1, or empty where the stage did
 * not run. */
enum expected { MUST_BE_1, MUST_BE_0, EITHER, EMPTY, NOT_0 };
struct expectation {
    int lab;
    const char *student; /* "solution": the step's own reduce.cu; "broken": not CUDA */
    enum expected pass, builds, host_code, instructions, correct, clean, index64;
    const char *reasons[MAX_REASONS]; /* parts of the reason column; none: no reason at all */
    bool needs_sanitizer;             /* only the sanitizer can find this one */
    bool hangs;       /* never finishes, or may on some GPUs: graded apart, with a short timeout */
    bool cause_first; /* the reason starts with reasons[0] */
};
#define RIGHT                                                                                      \
    MUST_BE_1, MUST_BE_1, MUST_BE_1, MUST_BE_1, MUST_BE_1, MUST_BE_1, MUST_BE_1,                   \
    {                                                                                              \
        NULL                                                                                       \
    }
#define BROKEN MUST_BE_0, MUST_BE_0, EITHER, EMPTY, EMPTY, EMPTY, EMPTY
static const struct expectation EXPECTED[] = {
    {0, "solution", RIGHT, false, false, false},
    {1, "solution", RIGHT, false, false, false},
    {2, "solution", RIGHT, false, false, false},
    {3, "solution", RIGHT, false, false, false},
    {4, "solution", RIGHT, false, false, false},
    {2, "lab03_right_shuffle", RIGHT, false, false, false},
    {4, "lab05_right_release_acquire", RIGHT, false, false, false},
    {4, "lab05_right_uniform_loop", RIGHT, false, false, false},
    {0, "broken", BROKEN, {"does not compile: "}, false, false, false},
    {1, "broken", BROKEN, {"does not compile: "}, false, false, false},
    {2, "broken", BROKEN, {"does not compile: "}, false, false, false},
    {3, "broken", BROKEN, {"does not compile: "}, false, false, false},
    {4, "broken", BROKEN, {"does not compile: "}, false, false, false},
    {1,
     "lab02_does_not_compile",
     BROKEN,
     {"does not compile: ", "identifier \"second\" is undefined"},
     false,
     false,
     false},
    {0,
     "lab01_missing_syncthreads",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     EITHER,
     MUST_BE_0,
     EITHER,
     {"racecheck at n = "},
     true,
     false,
     false},
    {0,
     "lab01_barrier_in_branch",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: a barrier that not every thread of the block reaches",
      "bar.sync at reduce.cu:"},
     false,
     false,
     false},
    {0,
     "lab01_int_index",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     {"64-bit index: wrong at n = 4294967296 with --pattern onehot:last"},
     false,
     false,
     false},
    {1,
     "lab02_oob_read",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     EITHER,
     MUST_BE_0,
     EITHER,
     {"memcheck at n = "},
     true,
     false,
     true},
    {1,
     "lab02_never_finishes",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EMPTY,
     EMPTY,
     {"hang: "},
     false,
     true,
     false},
    {2,
     "lab03_racy_last_warp",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     EITHER,
     MUST_BE_0,
     EITHER,
     {"racecheck at n = "},
     true,
     false,
     false},
    {3,
     "lab04_tail_lost",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     MUST_BE_1,
     EMPTY,
     {"wrong result: "},
     false,
     false,
     false},
    {3,
     "lab04_wrong_grid_stride",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     MUST_BE_1,
     EMPTY,
     {"wrong result: "},
     false,
     false,
     false},
    {3,
     "lab04_counted_twice",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     MUST_BE_1,
     EMPTY,
     {"wrong result: n=1 "},
     false,
     false,
     false},
    {3,
     "lab04_partial_mask",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: a warp instruction with a partial mask", "has the mask 0x0000ffff"},
     false,
     false,
     false},
    {4,
     "lab05_counter_not_reset",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     MUST_BE_1,
     EMPTY,
     {"state left over between launches: a second run on the same buffers gave another answer",
      "something the first launch set was not reset"},
     false,
     false,
     false},
    {4,
     "lab05_no_fence_before_ticket",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: the fence variant (TODO(lab5) A)",
      "no fence between writing the block sum and taking the ticket"},
     false,
     false,
     false},
    {4,
     "lab05_no_acquire_fence",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: the fence variant (TODO(lab5) A)", "no fence between taking the ticket"},
     false,
     false,
     false},
    {4,
     "lab05_atomic_ref_unwritten",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     MUST_BE_0,
     EITHER,
     EMPTY,
     {"the atomic-ref variant (TODO(lab5) B) takes no ticket",
      "wrong result (--variant atomic-ref): "},
     false,
     false,
     false},
    {0, "lab01_right_uniform_loop", RIGHT, false, false, false},
    {0,
     "lab01_host_sum",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_0,
     EMPTY,
     EMPTY,
     EMPTY,
     EMPTY,
     {"host code: lab01_host_sum.cu:", "the starter's host code was changed"},
     false,
     false,
     true},
    {1,
     "lab02_reads_neighbour",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_0,
     EMPTY,
     EMPTY,
     EMPTY,
     EMPTY,
     {"host code: lab02_reads_neighbour.cu:", "host code that the starter does not have"},
     false,
     false,
     true},
    {2,
     "lab03_writes_grades",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_0,
     EMPTY,
     EMPTY,
     EMPTY,
     EMPTY,
     {"host code: lab03_writes_grades.cu:", "__attribute__ ( ( constructor ) )"},
     false,
     false,
     true},
    {2,
     "lab03_partial_syncwarp",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: a warp instruction that part of the warp skips",
      "bar.warp.sync at reduce.cu:"},
     false,
     false,
     false},
    {3,
     "lab04_half_warp_shuffle",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: a warp instruction that part of the warp skips",
      "shfl.sync.down.b32 at reduce.cu:"},
     false,
     true,
     false},
    {3,
     "lab04_unsigned_grid_stride",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     {"64-bit index: ", "at n = 4294967296"},
     false,
     false,
     true},
    {4,
     "lab05_one_thread_acquire",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: the fence variant (TODO(lab5) A): the fence after the ticket",
      "with no fence of their own"},
     false,
     false,
     false},
/* The lazy kernels: right (or right below 2^31), the lab's technique skipped: the lesson
     * column 0 with its reason (row_is checks the column from the name). */
#define LAZY MUST_BE_0, MUST_BE_1, MUST_BE_1, MUST_BE_1, MUST_BE_1, MUST_BE_1, MUST_BE_1
    {0,
     "lab01_lazy_modulo",
     LAZY,
     {"lesson: whole warps busy or idle: ", "per-thread modulo test"},
     false,
     false,
     false},
    {1,
     "lab02_lazy_strided_tree",
     LAZY,
     {"lesson: sequential addressing and the first add during the load: ", "with a stride"},
     false,
     false,
     false},
    {2,
     "lab03_lazy_lane0_loop",
     LAZY,
     {"lesson: every lane of the last warp working in each level: ", "one lane adds"},
     false,
     false,
     false},
    {3,
     "lab04_lazy_int_index",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     {"64-bit index: ", "lesson: loads in flight, 64-bit indexing and the full mask: "},
     false,
     false,
     true},
    {4,
     "lab05_lazy_one_fence",
     MUST_BE_0,
     MUST_BE_1,
     MUST_BE_1,
     MUST_BE_0,
     EITHER,
     EITHER,
     EITHER,
     {"compiled code: the fence variant (TODO(lab5) A): no fence between taking the ticket",
      "lesson: both fences, or the acquire-release order: "},
     false,
     false,
     false},
#undef LAZY
};
enum { EXPECTATIONS = sizeof EXPECTED / sizeof EXPECTED[0] };

/* The lab's submissions: the kernels of EXPECTED that hang, or else the others: the step's
 * kernel, the lab's wrong and right kernels, one that does not compile. */
/* Which rows of EXPECTED one grading takes: a lab's kernels that hang, or the others; all of
 * them, or only the students named in `only`. */
struct chosen {
    int lab;
    bool hanging;
    const char *const *only; /* NULL-ended; NULL: every one */
};

static bool is_chosen(const struct chosen *c, const struct expectation *e)
{
    if (e->lab != c->lab || e->hangs != c->hanging) return false;
    for (int i = 0; c->only != NULL && c->only[i] != NULL; i++)
        if (strcmp(c->only[i], e->student) == 0) return true;
    return c->only == NULL;
}

static void make_submissions(const struct chosen *c, const char *folder)
{
    char from[PATH_LENGTH], to[PATH_LENGTH];
    int lab = c->lab;
    for (int e = 0; e < EXPECTATIONS; e++) {
        if (!is_chosen(c, &EXPECTED[e])) continue;
        if (strcmp(EXPECTED[e].student, "broken") == 0) {
            snprintf(to, sizeof to, "%s/broken.cu", folder);
            write_file(to, BROKEN_KERNEL);
            continue;
        }
        if (strcmp(EXPECTED[e].student, "solution") == 0)
            snprintf(from, sizeof from, "%s/reduce.cu", STEP[lab]);
        else
            snprintf(from, sizeof from, "tests/wrong_kernels/%s.cu", EXPECTED[e].student);
        copy_file(from, folder, EXPECTED[e].student);
    }
}

/* Every submission of the folder still holds what it was given: no submission wrote over a
 * neighbour's file. */
static void expect_submissions_untouched(const struct chosen *c, const char *folder)
{
    char from[PATH_LENGTH], copy[PATH_LENGTH];
    for (int e = 0; e < EXPECTATIONS; e++) {
        if (!is_chosen(c, &EXPECTED[e]) || strcmp(EXPECTED[e].student, "broken") == 0) continue;
        if (strcmp(EXPECTED[e].student, "solution") == 0)
            snprintf(from, sizeof from, "%s/reduce.cu", STEP[c->lab]);
        else
            snprintf(from, sizeof from, "tests/wrong_kernels/%s.cu", EXPECTED[e].student);
        snprintf(copy, sizeof copy, "%s/%s.cu", folder, EXPECTED[e].student);
        struct outcome same = run((const char *const[]){"cmp", "-s", from, copy, NULL}, NULL);
        cr_expect_eq(same.exit_code, 0, "%s was changed during grading", copy);
        free(same.out);
    }
}

static bool value_is(const char *field, enum expected expected, const char *student,
                     const char *column)
{
    bool ok = true;
    switch (expected) {
    case MUST_BE_1:
        ok = strcmp(field, "1") == 0;
        break;
    case MUST_BE_0:
        ok = strcmp(field, "0") == 0;
        break;
    case EMPTY:
        ok = *field == '\0';
        break;
    case NOT_0:
        ok = strcmp(field, "0") != 0;
        break;
    case EITHER:
        break;
    }
    static const char *const WANTED[] = {"1", "0", "anything", "empty", "1 or empty"};
    cr_expect(ok, "%s: %s is '%s', expected %s", student, column, field, WANTED[expected]);
    return ok;
}

/* Checks one CSV row against its expectation; false when anything differs. */
static bool row_is(const struct expectation *e, char *const fields[GRADE_COLUMNS], bool sanitizer)
{
    const char *who = e->student;
    bool ok = value_is(fields[G_PASS], e->pass, who, "pass") &
              value_is(fields[G_BUILDS], e->builds, who, "builds") &
              value_is(fields[G_HOST_CODE], e->host_code, who, "host_code") &
              value_is(fields[G_INSTRUCTIONS], e->instructions, who, "instructions") &
              value_is(fields[G_CORRECT], e->correct, who, "correct") &
              value_is(fields[G_CLEAN], sanitizer || e->clean == EMPTY ? e->clean : EMPTY, who,
                       "sanitizer_clean") &
              value_is(fields[G_INDEX64], e->index64, who, "index64");
    /* The lesson: 1 for every right kernel (it must never fail one), 0 for each lazy one. */
    if (e->reasons[0] == NULL)
        ok = value_is(fields[G_LESSON], MUST_BE_1, who, "lesson") && ok;
    else if (strstr(who, "_lazy_") != NULL)
        ok = value_is(fields[G_LESSON], MUST_BE_0, who, "lesson") && ok;
    if (e->reasons[0] == NULL) {
        bool timed = *fields[G_MS] && *fields[G_X_REFERENCE] && *fields[G_X_CUB];
        cr_expect_str_eq(fields[G_REASON], "", "%s: reason '%s', expected none", who,
                         fields[G_REASON]);
        cr_expect(timed, "%s: a correct kernel is timed: ms '%s', x_reference '%s', x_cub '%s'",
                  who, fields[G_MS], fields[G_X_REFERENCE], fields[G_X_CUB]);
        return ok && *fields[G_REASON] == '\0' && timed;
    }
    if (e->cause_first) {
        bool first = strncmp(fields[G_REASON], e->reasons[0], strlen(e->reasons[0])) == 0;
        cr_expect(first, "%s: reason '%s' should start with '%s'", who, fields[G_REASON],
                  e->reasons[0]);
        ok = ok && first;
    }
    for (int r = 0; r < MAX_REASONS && e->reasons[r] != NULL; r++) {
        bool said = strstr(fields[G_REASON], e->reasons[r]) != NULL;
        cr_expect(said, "%s: reason '%s' should contain '%s'", who, fields[G_REASON],
                  e->reasons[r]);
        ok = ok && said;
    }
    return ok;
}

/* The table of tests/wrong_kernels/table.sh: one line per kernel graded, in
 * build/labs/wrong_kernels/labNN[-hang].md. */
static FILE *open_table(const struct chosen *c)
{
    char path[PATH_LENGTH];
    free(run((const char *const[]){"mkdir", "-p", "build/labs/wrong_kernels", NULL}, NULL).out);
    snprintf(path, sizeof path, "build/labs/wrong_kernels/%s%s.md", LAB[c->lab],
             c->hanging        ? "-hang"
             : c->only != NULL ? "-sample"
                               : "");
    FILE *table = fopen(path, "w");
    cr_assert_not_null(table, "%s: %s", path, strerror(errno));
    return table;
}

static void table_row(FILE *table, const struct expectation *e, char *const fields[GRADE_COLUMNS],
                      bool ok)
{
    fprintf(table, "| %s | %s | %s%s%s | pass=%s lesson=%s: %s | %s |\n", LAB[e->lab], e->student,
            e->reasons[0] ? e->reasons[0] : "(none: passes)",
            e->reasons[0] && e->reasons[1] ? " ... " : "",
            e->reasons[0] && e->reasons[1] ? e->reasons[1] : "", fields[G_PASS], fields[G_LESSON],
            *fields[G_REASON] ? fields[G_REASON] : "(none)", ok ? "ok" : "WRONG");
}

/* SETTINGS and the tests' GPU lock (tests_gpu_lock): grade.sh runs one submission's GPU
 * stages at a time, and no other test's program uses the GPU meanwhile. */
static const char *const *with_the_tests_gpu_lock(const char *const *settings)
{
    enum { MOST_SETTINGS = 16 };
    static const char *all[MOST_SETTINGS + 2];
    static char lock[FOLDER_LENGTH + 32];
    int count = 0;
    while (settings[count] != NULL && count < MOST_SETTINGS) {
        all[count] = settings[count];
        count++;
    }
    cr_assert_null(settings[count], "more than %d settings", MOST_SETTINGS);
    snprintf(lock, sizeof lock, "LAB_GPU_LOCK=%s", tests_gpu_lock());
    all[count] = lock;
    all[count + 1] = NULL;
    return all;
}

/* Grades the lab's kernels that hang (or the others) with labs/grade.sh and checks each CSV row
 * against EXPECTED. */
static void grade_and_expect(const struct chosen *c, const char *const *settings)
{
    char scratch[] = "/tmp/labs-grade-XXXXXX", folder[FOLDER_LENGTH], csv[FOLDER_LENGTH],
         logs[FOLDER_LENGTH];
    char line[LINE_LENGTH], *fields[GRADE_COLUMNS];
    bool sanitizer = sanitizer_installed(), seen[EXPECTATIONS] = {false};
    if (!sanitizer)
        cr_log_warn("compute-sanitizer not found: only the rows it does not decide are checked");
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    int lab = c->lab;
    snprintf(folder, sizeof folder, "%s/%s", scratch, LAB[lab]);
    snprintf(csv, sizeof csv, "%s/grades.csv", scratch);
    snprintf(logs, sizeof logs, "%s/logs", scratch);
    free(run((const char *const[]){"mkdir", "-p", folder, NULL}, NULL).out);
    make_submissions(c, folder);

    const char *jobs = getenv("WRONG_KERNELS_JOBS");
    if (jobs == NULL || *jobs == '\0') jobs = DEFAULT_GRADE_JOBS;
    struct outcome o = run((const char *const[]){"labs/grade.sh", "-j", jobs, "-o", csv, "--logs",
                                                 logs, folder, LAB[lab], NULL},
                           with_the_tests_gpu_lock(settings));
    cr_assert_eq(o.exit_code, 0, "labs/grade.sh: exit code %d:\n%.4000s", o.exit_code, o.out);
    FILE *file = fopen(csv, "r"), *table = open_table(c);
    cr_assert_not_null(file, "%s: %s\n%.4000s", csv, strerror(errno), o.out);
    cr_assert_not_null(fgets(line, sizeof line, file));
    cr_expect_str_eq(line, CSV_HEADER);
    for (int rows = 0; rows < MAX_ROWS && fgets(line, sizeof line, file) != NULL; rows++) {
        line[strcspn(line, "\n")] = '\0';
        cr_assert(split_row(line, fields), "not a row of %d columns: %s", GRADE_COLUMNS, line);
        int e = 0;
        while (e < EXPECTATIONS &&
               (EXPECTED[e].lab != lab || strcmp(EXPECTED[e].student, fields[G_STUDENT])))
            e++;
        cr_assert_lt(e, EXPECTATIONS, "a row for a submission nobody made: %s", fields[G_STUDENT]);
        cr_expect(!seen[e], "two rows for %s: one was forged", fields[G_STUDENT]);
        seen[e] = true;
        if (!EXPECTED[e].needs_sanitizer || sanitizer)
            table_row(table, &EXPECTED[e], fields, row_is(&EXPECTED[e], fields, sanitizer));
    }
    fclose(file);
    fclose(table);
    for (int e = 0; e < EXPECTATIONS; e++)
        cr_expect(!is_chosen(c, &EXPECTED[e]) || seen[e], "no row for %s", EXPECTED[e].student);
    expect_submissions_untouched(c, folder);
    free(o.out);
    free(run((const char *const[]){"rm", "-rf", scratch, NULL}, NULL).out);
}

ParameterizedTestParameters(labs_gpu, grade_tells_right_from_wrong)
{
    return lab_indices();
}

/* WRONG_KERNELS_LABS="lab04 lab05" grades only those labs (tests/wrong_kernels/table.sh
 * passes it on); the others are skipped, and counted as skipped. */
static void skip_unless_chosen(const char *lab)
{
    const char *chosen = getenv("WRONG_KERNELS_LABS");
    if (chosen != NULL && *chosen != '\0' && strstr(chosen, lab) == NULL)
        cr_skip_test("%s: not in WRONG_KERNELS_LABS (%s)", lab, chosen);
}

ParameterizedTest(int *lab, labs_gpu, grade_tells_right_from_wrong, .timeout = 3600)
{
    skip_unless_chosen(LAB[*lab]);
    require_cuda_device(LAB[*lab]);
    grade_and_expect(&(struct chosen){*lab, false, NULL}, GRADE_SETTINGS);
}

/* The labs that have a kernel that hangs. */
static struct criterion_test_params hanging_lab_indices(void)
{
    static int indices[LAB_COUNT];
    int count = 0;
    for (int lab = 0; lab < LAB_COUNT; lab++)
        for (int e = 0; e < EXPECTATIONS; e++)
            if (EXPECTED[e].lab == lab && EXPECTED[e].hangs) {
                indices[count++] = lab;
                break;
            }
    return cr_make_param_array(int, indices, count);
}

ParameterizedTestParameters(labs_gpu, grade_reports_a_kernel_that_never_finishes)
{
    return hanging_lab_indices();
}

ParameterizedTest(int *lab, labs_gpu, grade_reports_a_kernel_that_never_finishes, .timeout = 900)
{
    skip_unless_chosen(LAB[*lab]);
    require_cuda_device(LAB[*lab]);
    grade_and_expect(&(struct chosen){*lab, true, NULL}, HANG_SETTINGS);
}

/* make test's grading, in about half a minute: lab05's model answer, passed with every column 1
 * and timed; a kernel that only the GPU finds wrong (its ticket counter is never reset, so its
 * second run is wrong); and the lazy kernel, a correct sum that skips the lesson. The
 * whole table, every lab and every wrong kernel, is make test-long's (the tests above). */
Test(labs_gpu, grade_a_sample_class, .timeout = 900)
{
    static const char *const SAMPLE[] = {"solution", "lab05_counter_not_reset",
                                         "lab05_lazy_one_fence", NULL};
    enum { LAB05 = 4 };
    require_cuda_device(LAB[LAB05]);
    grade_and_expect(&(struct chosen){LAB05, false, SAMPLE}, GRADE_SETTINGS);
}

/* The number right after key in text (a grade_time.sh file's header), or -1. */
static long header_number(const char *text, const char *key)
{
    const char *at = strstr(text, key);
    return at == NULL ? -1 : strtol(at + strlen(key), NULL, 10);
}

/* The median of the seconds in "graded in N s" lines of text that follow PASSED, up to the
 * next "## " heading after the one named. */
static long passed_median_seconds(const char *text, const char *heading)
{
    enum { MOST = 16 };
    long seconds[MOST];
    int count = 0;
    const char *at = strstr(text, heading), *end;
    cr_assert_not_null(at, "no '%s'", heading);
    end = strstr(at + strlen(heading), "\n## ");
    for (const char *line = at;
         (line = strstr(line, ": PASSED")) != NULL && (!end || line < end) && count < MOST;
         line++) {
        const char *graded = strstr(line, "(graded in ");
        if (graded != NULL) seconds[count++] = strtol(graded + strlen("(graded in "), NULL, 10);
    }
    cr_assert_gt(count, 0, "no submission passed under '%s'", heading);
    for (int a = 0; a < count; a++) /* a few numbers: sorted by insertion */
        for (int b = a; b > 0 && seconds[b - 1] > seconds[b]; b--) {
            long swap = seconds[b];
            seconds[b] = seconds[b - 1], seconds[b - 1] = swap;
        }
    return count % 2 ? seconds[count / 2] : (seconds[count / 2 - 1] + seconds[count / 2]) / 2;
}

/* instructors.md's box of a class's grading time gives the seconds and the passes that
 * bench/grade_time.sh's file says, for the whole class of 30 with its right copies passed, and
 * the median seconds of a right submission graded alone that grade_alone_h200.txt gives. The
 * box's lines start with "> ", dropped here before comparing. */
Test(labs, instructors_grade_time_is_what_its_files_say)
{
    enum { CLASS_SIZE = 30, RIGHT_COPIES = 20 };
    static const char CLASS[] = "docs/results/2026-11-29/grade_time_h200.txt",
                      ALONE[] = "docs/results/2026-11-29/grade_alone_h200.txt";
    char *box = read_file("docs/instructors.md"), expected[LINE_LENGTH];
    for (char *quote; (quote = strstr(box, "\n> ")) != NULL;)
        memmove(quote + 1, quote + 3, strlen(quote + 3) + 1), quote[0] = ' ';
    char *file = read_file(CLASS), *alone = read_file(ALONE);
    long seconds = header_number(file, "\nseconds: ");
    cr_assert_gt(seconds, 0, "%s has no seconds", CLASS);
    snprintf(expected, sizeof expected, "over the 30 submissions on one H200: %ld s", seconds);
    cr_expect(strstr(box, expected) != NULL, "instructors.md lacks '%s'", expected);
    cr_expect_not_null(strstr(box, "(results/2026-11-29/grade_time_h200.txt)"));
    cr_expect_eq(header_number(file, "\npassed: "), RIGHT_COPIES, "%s", CLASS);
    cr_expect_eq(header_number(file, " submissions ("), CLASS_SIZE, "%s", CLASS);
    snprintf(expected, sizeof expected, "two graded variants) took %ld s (the median of five)",
             passed_median_seconds(alone, "## lab05"));
    cr_expect(strstr(box, expected) != NULL, "instructors.md lacks '%s'", expected);
    snprintf(expected, sizeof expected, "a lab04 one %ld s and a lab01 one %ld s",
             passed_median_seconds(alone, "## lab04, "), passed_median_seconds(alone, "## lab01"));
    cr_expect(strstr(box, expected) != NULL, "instructors.md lacks '%s'", expected);
    free(file);
    free(alone);
    free(box);
}
