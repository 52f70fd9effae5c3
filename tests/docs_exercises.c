/* The answers to the step READMEs' exercises in docs/instructors.md: every exercise of every
 * step README (its "## Exercises" section, items "1. ", "2. ", ...) has an answer under the
 * heading "### stepNN" of the section "## Answers to the exercises in the step READMEs", an
 * answer that opens with "**K. " for exercise K, and no answer for an exercise the README no
 * longer has. No answer may call itself unmeasured, every result marker
 * "[[exercises:HEADING:FIELD]]" must have been replaced by the figure from
 * docs/results/2026-11-27/exercises.txt, and every heading an answer cites must be in that file.
 * No GPU needed. */
#include <criterion/criterion.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char GUIDE[] = "docs/instructors.md";
static const char ANSWERS_HEADING[] = "## Answers to the exercises in the step READMEs";
static const char EXERCISES_HEADING[] = "## Exercises";
static const char RESULTS[] = "docs/results/2026-11-27/exercises.txt";
static const char MARKER[] = "[[exercises:";
enum { MOST_STEPS = 64, NAME_SIZE = 256, MOST_EXERCISES = 99 };

static char *text_of(const char *path)
{
    FILE *file = fopen(path, "rb");
    cr_assert_not_null(file, "cannot open %s (run the tests from the repository root)", path);
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    cr_assert_eq(fread(text, 1, (size_t)size, file), (size_t)size, "cannot read %s", path);
    text[size] = '\0';
    fclose(file);
    return text;
}

/* The part of text from the line that is exactly `heading` to the next line that starts with
 * `next` (or the end), as a new string; NULL when there is no such line. */
static char *section_of(const char *text, const char *heading, const char *next)
{
    size_t length = strlen(heading);
    const char *start = text;
    while ((start = strstr(start, heading)) != NULL) {
        bool line_start = start == text || start[-1] == '\n';
        char after = start[length];
        if (line_start && (after == '\n' || after == '\0')) break;
        start += length;
    }
    if (start == NULL) return NULL;
    const char *end = start + length;
    size_t next_length = strlen(next);
    while ((end = strchr(end, '\n')) != NULL) {
        end++;
        if (strncmp(end, next, next_length) == 0) break;
    }
    size_t size = end == NULL ? strlen(start) : (size_t)(end - start);
    return strndup(start, size);
}

/* The step directories stepNN_<name>/ with a README.md, sorted, into names; their count. */
static int step_directories(char names[][NAME_SIZE])
{
    DIR *directory = opendir(".");
    cr_assert_not_null(directory);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) {
        const char *name = entry->d_name;
        if (strncmp(name, "step", 4) != 0 || !isdigit((unsigned char)name[4]) ||
            !isdigit((unsigned char)name[5]) || name[6] != '_')
            continue;
        char readme[NAME_SIZE + 16];
        snprintf(readme, sizeof readme, "%s/README.md", name);
        FILE *file = fopen(readme, "r");
        if (file == NULL) continue;
        fclose(file);
        cr_assert_lt(count, MOST_STEPS);
        snprintf(names[count++], NAME_SIZE, "%s", name);
    }
    closedir(directory);
    qsort(names, (size_t)count, NAME_SIZE, (int (*)(const void *, const void *))strcmp);
    cr_assert_gt(count, 0, "no stepNN_<name>/README.md here");
    return count;
}

/* The number of exercises in the README: the lines "1. ", "2. ", ... of its exercises section,
 * which must be numbered 1, 2, 3 in order. */
static int exercise_count(const char *readme_path)
{
    char *text = text_of(readme_path);
    char *exercises = section_of(text, EXERCISES_HEADING, "## ");
    cr_assert_not_null(exercises, "%s has no \"%s\" section", readme_path, EXERCISES_HEADING);
    const char *cursor = exercises;
    char line[4096];
    int count = 0;
    while (next_line(&cursor, line, sizeof line)) {
        if (!isdigit((unsigned char)line[0])) continue;
        char *end;
        long number = strtol(line, &end, 10);
        if (end[0] != '.' || end[1] != ' ') continue;
        cr_assert_eq(number, count + 1, "%s: exercise %ld follows exercise %d", readme_path, number,
                     count);
        count++;
    }
    free(exercises);
    free(text);
    cr_assert_gt(count, 0, "%s: its exercises section numbers no exercise", readme_path);
    return count;
}

static char *answers_section(void)
{
    char *guide = text_of(GUIDE);
    char *answers = section_of(guide, ANSWERS_HEADING, "## ");
    cr_assert_not_null(answers, "%s has no section \"%s\"", GUIDE, ANSWERS_HEADING);
    free(guide);
    return answers;
}

/* Does a line of text start with "**K. "? */
static bool has_answer(const char *text, int number)
{
    char opening[32];
    snprintf(opening, sizeof opening, "**%d. ", number);
    for (const char *at = strstr(text, opening); at != NULL; at = strstr(at + 1, opening))
        if (at == text || at[-1] == '\n') return true;
    return false;
}

Test(docs_exercises, every_exercise_of_every_step_readme_has_its_answer)
{
    static char steps[MOST_STEPS][NAME_SIZE];
    int step_count = step_directories(steps);
    char *answers = answers_section();
    for (int s = 0; s < step_count; s++) {
        char readme[NAME_SIZE + 16], heading[32];
        snprintf(readme, sizeof readme, "%.200s/README.md", steps[s]);
        snprintf(heading, sizeof heading, "### %.6s", steps[s]);
        int exercises = exercise_count(readme);
        char *answered = section_of(answers, heading, "### ");
        cr_assert_not_null(answered,
                           "%s: no heading \"%s\" under \"%s\" for the %d exercises of %s", GUIDE,
                           heading, ANSWERS_HEADING, exercises, readme);
        for (int k = 1; k <= exercises; k++)
            cr_expect(has_answer(answered, k),
                      "%s, \"%s\": no answer opening with \"**%d. \" for exercise %d of %s", GUIDE,
                      heading, k, k, readme);
        for (int k = exercises + 1; k <= MOST_EXERCISES; k++)
            cr_expect(
                !has_answer(answered, k),
                "%s, \"%s\": an answer \"**%d. \" to an exercise %s does not have (it has %d)",
                GUIDE, heading, k, readme, exercises);
        free(answered);
    }
    free(answers);
}

Test(docs_exercises, no_answer_calls_itself_unmeasured)
{
    static const char *const UNMEASURED[] = {"not measured", "not been measured", "not been timed",
                                             "not timed",    "was not run",       "not repeated"};
    char *answers = answers_section();
    for (char *c = answers; *c; c++) *c = (char)tolower((unsigned char)*c);
    for (size_t i = 0; i < sizeof UNMEASURED / sizeof UNMEASURED[0]; i++) {
        const char *found = strstr(answers, UNMEASURED[i]);
        cr_expect_null(
            found,
            "%s: an answer says \"%s\": measure it (bench/exercises.sh) or derive it: ...%.80s",
            GUIDE, UNMEASURED[i], found);
    }
    free(answers);
}

/* Fails until every marker [[exercises:HEADING:FIELD]] in the guide and the step READMEs has
 * been replaced by the figure under HEADING in docs/results/2026-11-27/exercises.txt. */
Test(docs_exercises, result_markers_filled_in_from_exercises_txt)
{
    static char steps[MOST_STEPS][NAME_SIZE];
    int step_count = step_directories(steps);
    char paths[MOST_STEPS + 1][NAME_SIZE + 16];
    snprintf(paths[0], sizeof paths[0], "%s", GUIDE);
    for (int s = 0; s < step_count; s++)
        snprintf(paths[s + 1], sizeof paths[s + 1], "%.200s/README.md", steps[s]);
    int unfilled = 0;
    for (int p = 0; p <= step_count; p++) {
        char *text = text_of(paths[p]);
        const char *first = strstr(text, MARKER);
        int here = 0;
        for (const char *at = first; at != NULL; at = strstr(at + 1, MARKER)) here++;
        cr_expect_eq(here, 0, "%s: %d result marker(s) not filled in yet, the first: %.80s",
                     paths[p], here, first);
        unfilled += here;
        free(text);
    }
    cr_assert_eq(
        unfilled, 0,
        "%d result marker(s) to fill from %s (bash bench/exercises.sh on a GPU, then python3 "
        "bench/exercises_fill.py)",
        unfilled, RESULTS);
}

/* Every heading `stepNN-what` that an answer cites is a "## stepNN-what" line of the file. */
Test(docs_exercises, cited_headings_are_in_exercises_txt)
{
    char *answers = answers_section();
    FILE *probe = fopen(RESULTS, "r");
    cr_assert_not_null(probe, "%s does not exist yet: run bash bench/exercises.sh on a GPU",
                       RESULTS);
    fclose(probe);
    char *results = text_of(RESULTS);
    int cited = 0;
    for (const char *at = strstr(answers, "`step"); at != NULL; at = strstr(at + 1, "`step")) {
        const char *end = strchr(at + 1, '`');
        if (end == NULL || end - at < 8 || at[5] < '0' || at[5] > '9' || at[7] != '-') continue;
        if (strchr(at + 1, ' ') != NULL && strchr(at + 1, ' ') < end) continue;
        char heading[NAME_SIZE];
        snprintf(heading, sizeof heading, "## %.*s\n", (int)(end - at - 1), at + 1);
        cr_expect_not_null(strstr(results, heading), "%s cites `%.*s`, which %s has no section for",
                           GUIDE, (int)(end - at - 1), at + 1, RESULTS);
        cited++;
    }
    cr_assert_gt(cited, 0, "%s cites no heading of %s", GUIDE, RESULTS);
    free(results);
    free(answers);
}
