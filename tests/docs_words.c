/* The lesson's size (bench/prose_words.py): every step README within its prose words (1,000 for
 * steps 00-08, 1,500 after), the root README within 1,500 with `make stepNN` and `make test` in
 * its first 300, and the root README with steps 00-08 within 10,000; every README of steps
 * 00-08 quotes its document word for word (../shared/seeds). The counter is tried on a text of
 * known size and on a tree made too long on purpose. With a GPU: the report each README shows
 * (docs/results/reports.txt, bench/reports.sh) has the lines today's program prints, and names
 * the kernel it launches. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

static const char COUNTER[] = "bench/prose_words.py";
static const char TRIAL_ROOT[] = "build/words_trial";
static const char REPORTS[] = "docs/results/reports.txt";
enum { EXIT_NO_SEEDS = 2, LINE_SIZE = 4096 };

static struct finished counter_run(const char *mode, const char *argument)
{
    const char *argv[] = {"python3", COUNTER, mode, argument, NULL};
    return program_run("/usr/bin/env", GPUS_HIDDEN, argv);
}

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");
    cr_assert_not_null(file, "cannot write %s", path);
    fputs(text, file);
    fclose(file);
}

Test(docs_words, every_readme_within_its_words, .timeout = 60)
{
    struct finished run = counter_run("limits", NULL);
    cr_expect_eq(run.exit_code, 0, "the lesson is longer than its limits:\n%s", run.err);
    finished_free(&run);
}

Test(docs_words, ladder_readmes_quote_their_documents, .timeout = 60)
{
    struct finished run = counter_run("quotes", NULL);
    if (run.exit_code == EXIT_NO_SEEDS) {
        char reason[LINE_SIZE];
        snprintf(reason, sizeof reason, "docs_words: %s", run.err);
        finished_free(&run);
        cr_skip_test("%s", reason);
    }
    cr_expect_eq(run.exit_code, 0, "a README of steps 00-08 that quotes no document:\n%s", run.err);
    finished_free(&run);
}

/* 3 words of prose, a heading and a quotation of 2 more each and their markers (# and >);
 * code, a table and a comment that count nothing. */
Test(docs_words, counter_leaves_out_code_tables_and_comments, .timeout = 60)
{
    mkdir("build", 0755);
    mkdir(TRIAL_ROOT, 0755);
    char path[256];
    snprintf(path, sizeof path, "%s/counted.md", TRIAL_ROOT);
    write_file(path, "# A heading\n\nthree plain words\n\n> quoted twice\n\n"
                     "```sh\nmake step05 && ./step05/run\n```\n\n| a | b |\n|---|---|\n"
                     "| 1 | 2 |\n<!-- a comment of\nseveral words -->\n");
    struct finished run = counter_run("count", path);
    cr_assert_eq(run.exit_code, 0, "%s", run.err);
    cr_expect(starts_with(run.out, "9 "), "counted %s, expected 9 words", run.out);
    finished_free(&run);
}

/* A tree whose step00 README has 1,001 words and whose root README has no commands: both
 * named. */
Test(docs_words, a_readme_over_its_limit_is_caught, .timeout = 60)
{
    char directory[256], path[300];
    mkdir("build", 0755);
    mkdir(TRIAL_ROOT, 0755);
    snprintf(directory, sizeof directory, "%s/step00_trial", TRIAL_ROOT);
    mkdir(directory, 0755);
    snprintf(path, sizeof path, "%s/README.md", directory);
    FILE *file = fopen(path, "w");
    cr_assert_not_null(file);
    for (int word = 0; word < 1001; word++) fputs(word % 10 == 9 ? "word\n" : "word ", file);
    fclose(file);
    snprintf(path, sizeof path, "%s/README.md", TRIAL_ROOT);
    write_file(path, "# A tutorial\n\nNo commands here.\n");
    struct finished run = counter_run("limits", TRIAL_ROOT);
    cr_expect_eq(run.exit_code, 1);
    cr_expect(strstr(run.err, "step00_trial/README.md: 1001 prose words, at most 1000"),
              "not named: %s", run.err);
    cr_expect(strstr(run.err, "`make test` is not within"), "not named: %s", run.err);
    finished_free(&run);
}

/* The report of `step` in docs/results/reports.txt: the lines after "## step ...", up to the
 * next blank line, as a string the caller frees (NULL when it has none). */
static char *recorded_report(const char *step)
{
    FILE *file = fopen(REPORTS, "r");
    cr_assert_not_null(file, "cannot open %s", REPORTS);
    char line[LINE_SIZE], heading[64];
    snprintf(heading, sizeof heading, "## %s ", step);
    size_t size = 0;
    char *report = NULL;
    FILE *out = open_memstream(&report, &size);
    bool inside = false;
    while (fgets(line, sizeof line, file) != NULL) {
        if (inside && (line[0] == '\n' || starts_with(line, "## "))) break;
        if (inside) fputs(line, out);
        if (starts_with(line, heading)) inside = true;
    }
    fclose(file);
    fclose(out);
    if (!inside) {
        free(report);
        return NULL;
    }
    return report;
}

/* The first word of every line, in order: what a report's lines are, whatever was measured. */
static void labels_of(const char *text, char *labels, size_t size)
{
    char line[LINE_SIZE];
    labels[0] = '\0';
    while (next_line(&text, line, sizeof line)) {
        char label[64] = "";
        sscanf(line, "%63s", label);
        strncat(labels, label, size - strlen(labels) - 2);
        strcat(labels, " ");
    }
}

/* The value of the report's `kernel` line ("" when it has none). */
static void kernel_of(const char *text, char *kernel, size_t size)
{
    char line[LINE_SIZE];
    kernel[0] = '\0';
    while (next_line(&text, line, sizeof line))
        if (starts_with(line, "kernel ")) {
            size_t length = strlen(line + strlen("kernel "));
            length = length < size - 1 ? length : size - 1;
            memcpy(kernel, line + strlen("kernel "), length);
            kernel[length] = '\0';
        }
}

ParameterizedTestParameters(docs_reports, readme_report_is_what_the_program_prints)
{
    return ladder_indices();
}

/* Its one run may wait its turn on the GPU (tests_gpu_lock) behind a lab's grading. */
ParameterizedTest(int *index, docs_reports, readme_report_is_what_the_program_prints,
                  .timeout = 600)
{
    const struct ladder_step *step = &LADDER[*index];
    require_gpu(step->name);
    char *recorded = recorded_report(step->name);
    cr_assert_not_null(recorded, "%s has no report of %s: run bash bench/reports.sh on a GPU",
                       REPORTS, step->name);
    struct finished run = STEP_RUN(step, GPUS_VISIBLE, "--iters", "3", "--warmup", "1");
    cr_assert_eq(run.exit_code, 0, "%s: %s", step->name, run.err);
    char want[LINE_SIZE], got[LINE_SIZE], want_kernel[LINE_SIZE], got_kernel[LINE_SIZE];
    labels_of(recorded, want, sizeof want);
    labels_of(run.out, got, sizeof got);
    cr_expect_str_eq(got, want,
                     "%s prints lines other than its recorded report's: run "
                     "bash bench/reports.sh, then make docs",
                     step->name);
    kernel_of(recorded, want_kernel, sizeof want_kernel);
    kernel_of(run.out, got_kernel, sizeof got_kernel);
    cr_expect_str_eq(got_kernel, want_kernel, "%s launches %s, its README's report names %s",
                     step->name, got_kernel, want_kernel);
    free(recorded);
    finished_free(&run);
}
