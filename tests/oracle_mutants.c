/* The oracles' own mutants (tests/mutants/README.md): every finishing kernel of steps 09 to 16,
 * and the model answer of each lab, with its final write removed, made conditional on the block
 * size, or given a stale value. Without a GPU: the table below is the folder's list, an edit
 * whose lines are no longer in the step's code exactly once stops the build, and every mutant
 * builds. On a GPU: each mutant's --check exits 1 with a FAILED line that names the wrong value
 * (a NaN where nothing was written, since outputs are poisoned before every case; the stale
 * number otherwise), and labs/grade.sh fails each lab's mutant with a reason that names it. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

enum {
    MOST_OPTIONS = 3,
    FOLDER_LENGTH = 64,
    PATH_LENGTH = 512,
    LINE_LENGTH = 2048,
    FEWEST_MUTANTS = 10,
    SHOWN = 3000
};

/* What the wrong total is: never written (the poison, a NaN), or a stale finite number. */
enum wrong_value { NEVER_WRITTEN, STALE };
static const char *const WRONG_VALUE_NAMES[] = {"a NaN (the poison: nothing was written)",
                                                "a finite number other than the expected one"};

struct mutant {
    const char *name; /* tests/mutants/<name>.mutant, built as build/mutants/<name>/run */
    /* --check's other options: none of them leaves out the case that catches the mutant */
    const char *check[MOST_OPTIONS];
    const char *lab; /* the lab whose model answer it edits, graded by labs/grade.sh; or NULL */
    enum wrong_value wrong;
};

/* Written out here, not read from the folder: the folder must hold exactly these. */
static const struct mutant MUTANTS[] = {
    {"step09_last_block-total_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step09_last_block-total_is_own_block_sum", {NULL}, NULL, STALE},
    {"step09_last_block-total_if_not_1024", {NULL}, "lab05", NEVER_WRITTEN},
    {"step10_vector_loads-total_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step11_in_flight-total_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step12_small_n-total_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step12_small_n-one_block_total_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step13_gather-gather_total_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step13_gather-gather_total_if_not_1024", {NULL}, NULL, NEVER_WRITTEN},
    {"step13_gather-gather_total_is_own_block_sum", {NULL}, NULL, STALE},
    {"step13_gather-warp_gather_total_is_own_block_sum", {NULL}, NULL, STALE},
    {"step13_gather-bins_total_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step13_gather-ticket_total_removed", {"--variant", "ticket", NULL}, NULL, NEVER_WRITTEN},
    {"step13_gather-ticket_total_if_not_1024", {"--variant", "ticket", NULL}, NULL, NEVER_WRITTEN},
    {"step14_generic-total_removed", {"--op", "sum", NULL}, NULL, NEVER_WRITTEN},
    {"step14_generic-one_block_total_removed", {"--op", "sum", NULL}, NULL, NEVER_WRITTEN},
    {"step14_generic-total_is_own_block_result", {"--op", "sum", NULL}, NULL, STALE},
    {"step16_rows-warp_row_sum_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step16_rows-block_row_sum_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step16_rows-split_row_sum_removed", {NULL}, NULL, NEVER_WRITTEN},
    {"step16_rows-split_row_sum_is_own_block_sum", {NULL}, NULL, STALE},
    {"step02_divergence-block_sum_removed", {NULL}, "lab01", NEVER_WRITTEN},
    {"step04_idle-block_sum_if_not_1024", {NULL}, "lab02", NEVER_WRITTEN},
    {"step05_unroll_warp-block_sum_removed", {NULL}, "lab03", NEVER_WRITTEN},
    {"step08_shuffle-block_sum_if_not_1024", {NULL}, "lab04", NEVER_WRITTEN},
};
enum { MUTANT_COUNT = sizeof MUTANTS / sizeof MUTANTS[0] };

/* Each step with a finishing kernel (step15 runs step13's) and each lab has a mutant. */
static const char *const FINISHING_STEPS[] = {
    "step09_last_block", "step10_vector_loads", "step11_in_flight", "step12_small_n",
    "step13_gather",     "step14_generic",      "step16_rows"};
static const char *const LABS[] = {"lab01", "lab02", "lab03", "lab04", "lab05"};
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* The grading settings of tests/labs_checker.c: the sanitizers at one small odd n, and the
 * checker's own timeouts, so that a GPU shared with other tests is not taken for a hang. */
static const char *const GRADE_SETTINGS[][2] = {
    {"LAB_SANITIZE_N", "4099"},  {"LAB_TIMED_N", "2^20"},          {"LAB_CHECK_TIMEOUT", "900"},
    {"LAB_TIME_TIMEOUT", "300"}, {"LAB_SANITIZER_TIMEOUT", "900"}, {"LAB_WIDE_TIMEOUT", "180"},
};

static const struct mutant *mutant_named(const char *name)
{
    for (int m = 0; m < MUTANT_COUNT; m++)
        if (strcmp(MUTANTS[m].name, name) == 0) return &MUTANTS[m];
    return NULL;
}

static bool named_for_step(const struct mutant *m, const char *step)
{
    size_t length = strlen(step);
    return strncmp(m->name, step, length) == 0 && m->name[length] == '-';
}

/* bash tests/mutants/build.sh NAMES...: false, with make's complaint logged, when one failed. */
static bool mutants_built(const char *const *names)
{
    const char *args[MUTANT_COUNT + 2] = {"tests/mutants/build.sh"};
    for (int i = 0; names[i] != NULL; i++) args[i + 1] = names[i];
    struct finished built = program_run("bash", GPUS_VISIBLE, args);
    size_t length = strlen(built.err);
    if (built.exit_code != 0)
        cr_log_error("tests/mutants/build.sh: exit code %d, ending:\n%s", built.exit_code,
                     built.err + (length > SHOWN ? length - SHOWN : 0));
    finished_free(&built);
    return built.exit_code == 0;
}

/* Does any "got X, expected Y" in text name a wrong value of this kind? */
static bool names_wrong_value(const char *text, enum wrong_value wrong)
{
    static const char GOT[] = "got ", EXPECTED[] = ", expected ";
    for (const char *got = strstr(text, GOT); got != NULL; got = strstr(got + 1, GOT)) {
        char *end;
        double value = strtod(got + strlen(GOT), &end);
        if (end == got + strlen(GOT)) continue;
        if (wrong == NEVER_WRITTEN && isnan(value)) return true;
        if (wrong == STALE && isfinite(value) && strncmp(end, EXPECTED, strlen(EXPECTED)) == 0 &&
            value != strtod(end + strlen(EXPECTED), NULL))
            return true;
    }
    return false;
}

/* ---- without a GPU ---------------------------------------------------------------------- */

Test(mutants, the_folder_holds_the_mutants_of_every_finish_and_lab)
{
    DIR *folder = opendir("tests/mutants");
    cr_assert_not_null(folder, "tests/mutants: %s", strerror(errno));
    int files = 0;
    for (struct dirent *entry; (entry = readdir(folder)) != NULL;) {
        char name[PATH_LENGTH];
        snprintf(name, sizeof name, "%s", entry->d_name);
        if (!ends_with(name, ".mutant")) continue;
        name[strlen(name) - strlen(".mutant")] = '\0';
        files++;
        cr_expect_not_null(mutant_named(name),
                           "tests/mutants/%s.mutant has no row in MUTANTS: nothing runs it", name);
    }
    closedir(folder);
    cr_expect_eq(files, MUTANT_COUNT, "%d .mutant files for the %d rows of MUTANTS", files,
                 MUTANT_COUNT);
    cr_expect_geq(MUTANT_COUNT, FEWEST_MUTANTS);
    for (size_t s = 0; s < COUNT(FINISHING_STEPS); s++) {
        int found = 0;
        for (int m = 0; m < MUTANT_COUNT; m++)
            found += named_for_step(&MUTANTS[m], FINISHING_STEPS[s]);
        cr_expect_gt(found, 0, "no mutant of %s's finish", FINISHING_STEPS[s]);
    }
    for (size_t l = 0; l < COUNT(LABS); l++) {
        int found = 0;
        for (int m = 0; m < MUTANT_COUNT; m++)
            found += MUTANTS[m].lab != NULL && strcmp(MUTANTS[m].lab, LABS[l]) == 0;
        cr_expect_gt(found, 0, "no mutant of %s's model answer", LABS[l]);
    }
}

/* A mutant whose lines are not in the step's reduce.cu, and one whose lines are there more
 * than once: neither is written, and the message says which and why. */
Test(mutants, an_edit_that_no_longer_applies_stops_the_build, .timeout = 60)
{
    static const struct {
        const char *name, *find, *said;
    } EDITS[] = {
        {"step09_last_block-moved", "        *total = the_sum;\n",
         "step09_last_block-moved: the lines it changes are not in step09_last_block/reduce.cu "
         "(moved or reworded?): the mutant would test nothing"},
        {"step09_last_block-twice", "#pragma unroll\n",
         "step09_last_block-twice: the lines it changes are in step09_last_block/reduce.cu more "
         "than once"},
    };
    char scratch[] = "/tmp/mutants-edit-XXXXXX", mutant[PATH_LENGTH], out[PATH_LENGTH];
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    snprintf(out, sizeof out, "%s/reduce.cu", scratch);
    for (size_t e = 0; e < COUNT(EDITS); e++) {
        snprintf(mutant, sizeof mutant, "%s/%s.mutant", scratch, EDITS[e].name);
        FILE *file = fopen(mutant, "w");
        cr_assert_not_null(file, "%s: %s", mutant, strerror(errno));
        fprintf(file, "# a test's edit\n--- find\n%s--- replace\n", EDITS[e].find);
        fclose(file);
        struct finished run = program_run(
            "bash", GPUS_HIDDEN,
            (const char *const[]){"tests/mutants/mutate.sh", mutant, out, NULL});
        cr_expect_eq(run.exit_code, 1, "%s: exit code %d:\n%s", EDITS[e].name, run.exit_code,
                     run.err);
        cr_expect_not_null(strstr(run.err, EDITS[e].said), "%s: should say '%s':\n%s",
                           EDITS[e].name, EDITS[e].said, run.err);
        cr_expect_neq(access(out, F_OK), 0, "%s: %s was written", EDITS[e].name, out);
        finished_free(&run);
    }
    struct finished removed = program_run("rm", GPUS_HIDDEN,
                                          (const char *const[]){"-rf", scratch, NULL});
    finished_free(&removed);
}

/* Every mutant builds (in parallel, one make), and each is its step's kernel changed. */
Test(mutants, every_mutant_builds, .timeout = 600)
{
    cr_assert(mutants_built((const char *const[]){NULL}), "some mutant did not build (above)");
    for (int m = 0; m < MUTANT_COUNT; m++) {
        char program[PATH_LENGTH], kernel[PATH_LENGTH], source[PATH_LENGTH];
        snprintf(program, sizeof program, "build/mutants/%s/run", MUTANTS[m].name);
        snprintf(kernel, sizeof kernel, "build/mutants/%s/reduce.cu", MUTANTS[m].name);
        snprintf(source, sizeof source, "%.*s/reduce.cu", (int)strcspn(MUTANTS[m].name, "-"),
                 MUTANTS[m].name);
        cr_expect_eq(access(program, X_OK), 0, "%s was not built", program);
        struct finished same = program_run("cmp", GPUS_HIDDEN,
                                           (const char *const[]){"-s", source, kernel, NULL});
        cr_expect_eq(same.exit_code, 1, "%s is %s unchanged (cmp: exit code %d)", kernel, source,
                     same.exit_code);
        finished_free(&same);
    }
}

/* ---- on a GPU ---------------------------------------------------------------------------- */

ParameterizedTestParameters(mutants_gpu, check_fails_naming_the_wrong_value)
{
    static int indices[MUTANT_COUNT];
    for (int m = 0; m < MUTANT_COUNT; m++) indices[m] = m;
    return cr_make_param_array(int, indices, MUTANT_COUNT);
}

ParameterizedTest(int *index, mutants_gpu, check_fails_naming_the_wrong_value, .timeout = 900)
{
    const struct mutant *m = &MUTANTS[*index];
    const char *args[MOST_OPTIONS + 2] = {"--check"};
    char program[PATH_LENGTH], line[LINE_LENGTH];
    require_gpu(m->name);
    cr_assert(mutants_built((const char *const[]){m->name, NULL}), "%s did not build", m->name);
    for (int i = 0; i < MOST_OPTIONS && m->check[i] != NULL; i++) args[i + 1] = m->check[i];
    snprintf(program, sizeof program, "build/mutants/%s/run", m->name);
    struct finished run = program_run_alone(program, args);
    cr_expect_eq(run.exit_code, EXIT_WRONG, "%s --check: exit code %d, expected %d:\n%.*s%s",
                 m->name, run.exit_code, EXIT_WRONG, SHOWN, run.out, run.err);
    cr_expect_not_null(strstr(run.out, "check: FAILED"), "%s --check:\n%.*s", m->name, SHOWN,
                       run.out);
    bool named = false;
    for (const char *cursor = run.out; !named && next_line(&cursor, line, sizeof line);)
        named = starts_with(line, "FAILED ") && names_wrong_value(line, m->wrong);
    cr_expect(named, "%s --check: no FAILED line says it got %s:\n%.*s", m->name,
              WRONG_VALUE_NAMES[m->wrong], SHOWN, run.out);
    if (named) cr_log_info("%s --check: %s", m->name, line); /* the verdict, for --verbose */
    finished_free(&run);
}

ParameterizedTestParameters(mutants_gpu, grader_fails_naming_the_wrong_value)
{
    static int indices[MUTANT_COUNT];
    int count = 0;
    for (int m = 0; m < MUTANT_COUNT; m++)
        if (MUTANTS[m].lab != NULL) indices[count++] = m;
    return cr_make_param_array(int, indices, count);
}

static void run_or_fail(const char *const *args)
{
    struct finished done = program_run(args[0], GPUS_HIDDEN, args + 1);
    cr_assert_eq(done.exit_code, 0, "%s: exit code %d: %s", args[0], done.exit_code, done.err);
    finished_free(&done);
}

/* labs/grade.sh on a class of one in scratch: the mutant's kernel, built into its lab's program
 * and graded, sanitizers and all. Its verdict (the stages and the JSON line), for the caller to
 * free. */
static char *graded_alone(const struct mutant *m, const char *scratch)
{
    char folder[FOLDER_LENGTH], logs[FOLDER_LENGTH], kernel[PATH_LENGTH], submission[PATH_LENGTH],
        verdict[PATH_LENGTH];
    snprintf(folder, sizeof folder, "%s/%s", scratch, m->lab);
    snprintf(kernel, sizeof kernel, "build/mutants/%s/reduce.cu", m->name);
    snprintf(submission, sizeof submission, "%s/%s.cu", folder, m->name);
    snprintf(logs, sizeof logs, "%s/logs", scratch);
    snprintf(verdict, sizeof verdict, "%s/%s/verdict.txt", logs, m->name);
    run_or_fail((const char *const[]){"mkdir", "-p", folder, NULL});
    run_or_fail((const char *const[]){"cp", kernel, submission, NULL});
    for (size_t s = 0; s < COUNT(GRADE_SETTINGS); s++)
        setenv(GRADE_SETTINGS[s][0], GRADE_SETTINGS[s][1], 1);
    setenv("LAB_GPU_LOCK", tests_gpu_lock(), 1); /* its GPU stages take turns with the tests' */
    struct finished graded = program_run(
        "labs/grade.sh", GPUS_VISIBLE, (const char *const[]){"--logs", logs, folder, m->lab, NULL});
    cr_assert_eq(graded.exit_code, 0, "labs/grade.sh: exit code %d:\n%.*s", graded.exit_code, SHOWN,
                 graded.err);
    finished_free(&graded);
    FILE *file = fopen(verdict, "r");
    cr_assert_not_null(file, "%s: %s", verdict, strerror(errno));
    return read_and_close(file);
}

/* The grader must fail the lab's mutant for a wrong result that names the value. */
ParameterizedTest(int *index, mutants_gpu, grader_fails_naming_the_wrong_value, .timeout = 1800)
{
    const struct mutant *m = &MUTANTS[*index];
    char scratch[] = "/tmp/mutants-grade-XXXXXX";
    require_gpu(m->lab);
    cr_assert(mutants_built((const char *const[]){m->name, NULL}), "%s did not build", m->name);
    cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
    char *verdict = graded_alone(m, scratch);
    const char *json = strstr(verdict, "{\"lab\":"), *reason = strstr(verdict, "\"reason\":\"");
    cr_assert(json != NULL && reason != NULL, "%s: no JSON verdict:\n%s", m->name, verdict);
    cr_expect_not_null(strstr(json, "\"pass\":false"), "%s passed:\n%s", m->name, verdict);
    cr_expect_not_null(strstr(json, "\"correct\":false"), "%s: correct:\n%s", m->name, verdict);
    cr_expect(strstr(reason, "wrong result") != NULL && names_wrong_value(reason, m->wrong),
              "%s: the reason should be a wrong result that got %s: %s", m->name,
              WRONG_VALUE_NAMES[m->wrong], reason);
    cr_log_info("%s graded as %s: %.*s", m->name, m->lab, SHOWN, reason); /* for --verbose */
    free(verdict);
    run_or_fail((const char *const[]){"rm", "-rf", scratch, NULL});
}
