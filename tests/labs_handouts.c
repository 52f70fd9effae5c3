/* The labs' handouts (labs/labNN/README.md) teach before they show: a handout links to the
 * README of a step the lab writes (labs/steps.txt) only at its problem section, never at the
 * section with the step's code, never to the step's kernel, and the problem section it links
 * shows none of the kernel's lines; every link into a step README lands on a heading that
 * exists; every handout has its graded hints, each folded in a <details>. No run of six or
 * more tokens of the model answer's code that the steps before the lab do not show is in the
 * handout, the starter's comments or a section the handout links to; and the reading the
 * handout assigns is as long as it says, at 150 words a minute at most. Those two are read
 * by tests/labs_handouts.py, which says how. And what is not a run of six tokens: lab01's
 * starter and handout ask for hole B's index without giving it, lab02's starter code shows no
 * load of hole A (plan A's included), and lab04's handout names cuobjdump, which its SASS
 * question needs. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum {
    MAX_LABS = 16,
    MAX_STEPS = 8,
    NAME_LENGTH = 64,
    PATH_LENGTH = 256,
    ANCHOR_LENGTH = 256,
    SHORTEST_CODE_LINE = 24,
    HINT_LEVELS = 3
};

/* Headings a handout may link to in the README of a step its lab writes: the step's problem. */
static const char *const PROBLEM_HEADINGS[] = {"The problem", "What limits"};

struct lab {
    char name[NAME_LENGTH], steps[MAX_STEPS][NAME_LENGTH];
    int step_count;
};

static char *read_text(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    text[fread(text, 1, (size_t)size, file)] = '\0';
    fclose(file);
    return text;
}

/* labs/steps.txt: lab, the step whose program it completes, the steps it covers. */
static int read_labs(struct lab labs[MAX_LABS])
{
    FILE *file = fopen("labs/steps.txt", "r");
    cr_assert_not_null(file, "labs/steps.txt: %s", strerror(errno));
    char line[512];
    int count = 0;
    while (count < MAX_LABS && fgets(line, sizeof line, file) != NULL) {
        if (strncmp(line, "lab", 3) != 0) continue;
        struct lab *lab = &labs[count++];
        *lab = (struct lab){0};
        char *rest = line, *word = strtok_r(rest, " \t\n", &rest);
        snprintf(lab->name, sizeof lab->name, "%s", word);
        while ((word = strtok_r(NULL, " \t\n", &rest)) != NULL && lab->step_count < MAX_STEPS) {
            bool seen = false;
            for (int s = 0; s < lab->step_count; s++)
                seen = seen || strcmp(lab->steps[s], word) == 0;
            if (!seen) snprintf(lab->steps[lab->step_count++], NAME_LENGTH, "%s", word);
        }
    }
    fclose(file);
    cr_assert_gt(count, 0, "labs/steps.txt names no lab");
    return count;
}

/* The anchor a heading gets on a rendered Markdown page: lower case, spaces to hyphens,
 * punctuation dropped, letters of other scripts kept. */
static void anchor_of(const char *heading, size_t length, char anchor[ANCHOR_LENGTH])
{
    size_t out = 0;
    for (size_t i = 0; i < length && out + 1 < ANCHOR_LENGTH; i++) {
        unsigned char c = (unsigned char)heading[i];
        if (isalnum(c))
            anchor[out++] = (char)tolower(c);
        else if (c == ' ' || c == '-')
            anchor[out++] = '-';
        else if (c == '_' || c >= 0x80)
            anchor[out++] = (char)c;
    }
    anchor[out] = '\0';
}

/* The "## " section of a README whose anchor is `anchor`: its start and length; false if none. */
static bool find_section(const char *readme, const char *anchor, const char **start, size_t *length)
{
    for (const char *line = readme; line != NULL && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "## ", 3) != 0) continue;
        char found[ANCHOR_LENGTH];
        anchor_of(line + 3, strcspn(line + 3, "\n"), found);
        if (strcmp(found, anchor) != 0) continue;
        const char *end = strstr(line + 3, "\n## ");
        *start = line;
        *length = end ? (size_t)(end - line) : strlen(line);
        return true;
    }
    return false;
}

static bool is_problem_heading(const char *section)
{
    for (size_t h = 0; h < sizeof PROBLEM_HEADINGS / sizeof PROBLEM_HEADINGS[0]; h++)
        if (strncmp(section + 3, PROBLEM_HEADINGS[h], strlen(PROBLEM_HEADINGS[h])) == 0)
            return true;
    return false;
}

/* A line of the step's kernel that the section shows, or NULL: comments and short lines
 * (braces, `return`) do not count. */
static char *kernel_line_in(const char *step, const char *section, size_t length)
{
    char path[PATH_LENGTH];
    snprintf(path, sizeof path, "%s/reduce.cu", step);
    char *kernel = read_text(path);
    if (kernel == NULL) return NULL;
    char *shown = NULL, *text = strndup(section, length);
    for (char *rest = kernel, *line;
         shown == NULL && (line = strtok_r(rest, "\n", &rest)) != NULL;) {
        while (*line == ' ') line++;
        bool comment = line[0] == '/' || line[0] == '*' || line[0] == '#';
        if (!comment && strlen(line) >= SHORTEST_CODE_LINE && strstr(text, line) != NULL)
            shown = strdup(line);
    }
    free(text);
    free(kernel);
    return shown;
}

static bool lab_writes(const struct lab *lab, const char *step)
{
    for (int s = 0; s < lab->step_count; s++)
        if (strcmp(lab->steps[s], step) == 0) return true;
    return false;
}

/* One link of a handout: "../../stepNN_name/FILE#anchor". */
static void check_link(const struct lab *lab, const char *target, size_t length)
{
    char link[PATH_LENGTH], step[NAME_LENGTH], file[PATH_LENGTH], anchor[ANCHOR_LENGTH] = "";
    snprintf(link, sizeof link, "%.*s", (int)length, target);
    if (strncmp(link, "../../step", strlen("../../step")) != 0) return;
    char *hash = strchr(link, '#');
    if (hash != NULL) {
        snprintf(anchor, sizeof anchor, "%s", hash + 1);
        *hash = '\0';
    }
    const char *path = link + strlen("../../");
    size_t directory = strcspn(path, "/");
    snprintf(step, sizeof step, "%.*s", (int)directory, path);
    snprintf(file, sizeof file, "%s", path);
    bool own = lab_writes(lab, step);
    cr_expect(!own || strcmp(file + directory, "/reduce.cu") != 0, "%s links to %s, the answer",
              lab->name, file);
    if (strcmp(file + directory, "/README.md") != 0) return;
    cr_expect(!own || *anchor != '\0',
              "%s links to all of %s, whose \"The change\" is the lab's answer: link "
              "to its problem section",
              lab->name, file);
    if (*anchor == '\0') return;
    char *readme = read_text(file);
    cr_assert_not_null(readme, "%s links to %s, which does not exist", lab->name, file);
    const char *section = NULL;
    size_t section_length = 0;
    cr_expect(find_section(readme, anchor, &section, &section_length),
              "%s links to %s#%s: no such heading", lab->name, file, anchor);
    if (section != NULL && own) {
        cr_expect(is_problem_heading(section), "%s links to %s#%s, not its problem section",
                  lab->name, file, anchor);
        char *shown = kernel_line_in(step, section, section_length);
        cr_expect_null(shown, "%s links to %s#%s, which shows the step's kernel: %s", lab->name,
                       file, anchor, shown ? shown : "");
        free(shown);
    }
    free(readme);
}

static char *handout(const struct lab *lab)
{
    char path[PATH_LENGTH];
    snprintf(path, sizeof path, "labs/%s/README.md", lab->name);
    char *text = read_text(path);
    cr_assert_not_null(text, "%s: %s", path, strerror(errno));
    return text;
}

Test(labs_handouts, link_only_to_the_problem_of_the_steps_they_write)
{
    struct lab labs[MAX_LABS];
    int count = read_labs(labs);
    for (int l = 0; l < count; l++) {
        char *text = handout(&labs[l]);
        for (const char *link = strstr(text, "]("); link != NULL; link = strstr(link + 2, "](")) {
            const char *target = link + 2;
            check_link(&labs[l], target, strcspn(target, ") \n"));
        }
        free(text);
    }
}

Test(labs_handouts, never_name_the_kernel_with_the_answer)
{
    struct lab labs[MAX_LABS];
    int count = read_labs(labs);
    for (int l = 0; l < count; l++) {
        char *text = handout(&labs[l]);
        for (int s = 0; s < labs[l].step_count; s++) {
            char kernel[PATH_LENGTH];
            snprintf(kernel, sizeof kernel, "%s/reduce.cu", labs[l].steps[s]);
            cr_expect_null(strstr(text, kernel), "labs/%s/README.md names %s, the answer",
                           labs[l].name, kernel);
        }
        free(text);
    }
}

Test(labs_handouts, have_graded_hints_folded)
{
    struct lab labs[MAX_LABS];
    int count = read_labs(labs);
    for (int l = 0; l < count; l++) {
        char *text = handout(&labs[l]);
        int opened = 0, closed = 0, summaries = 0;
        for (const char *p = text; (p = strstr(p, "<details>")) != NULL; p++) opened++;
        for (const char *p = text; (p = strstr(p, "</details>")) != NULL; p++) closed++;
        for (const char *p = text; (p = strstr(p, "<details><summary>")) != NULL; p++) summaries++;
        cr_expect_geq(opened, HINT_LEVELS, "labs/%s/README.md: %d hints in <details>, at least %d",
                      labs[l].name, opened, HINT_LEVELS);
        cr_expect_eq(opened, closed, "labs/%s/README.md: %d <details>, %d </details>", labs[l].name,
                     opened, closed);
        cr_expect_eq(summaries, opened, "labs/%s/README.md: every hint opens with its <summary>",
                     labs[l].name);
        for (int level = 1; level <= HINT_LEVELS; level++) {
            char name[NAME_LENGTH];
            snprintf(name, sizeof name, "hint %d: ", level);
            cr_expect_not_null(strstr(text, name), "labs/%s/README.md has no \"%s\"", labs[l].name,
                               name);
        }
        cr_expect_not_null(strstr(text, "hint 1: a question"),
                           "labs/%s/README.md: the first hint asks", labs[l].name);
        free(text);
    }
}

/* ---- the model answer's token runs, and the reading's length (tests/labs_handouts.py) ---- */

static const char HANDOUT_READER[] = "tests/labs_handouts.py";

static struct finished handout_reader_run(const char *command, const char *lab, const char *extra)
{
    const char *args[] = {
        "python3", HANDOUT_READER, command, lab, extra ? "--extra-text" : NULL, extra, NULL};
    return program_run("/usr/bin/env", GPUS_VISIBLE, args);
}

Test(labs_handouts, hand_out_no_run_of_the_answer)
{
    struct lab labs[MAX_LABS];
    int count = read_labs(labs);
    for (int l = 0; l < count; l++) {
        struct finished run = handout_reader_run("runs", labs[l].name, NULL);
        cr_expect_eq(run.exit_code, 0, "%s hands out the answer:\n%s%s", labs[l].name, run.out,
                     run.err);
        finished_free(&run);
    }
}

/* The same reading with the model answer's own file added to it: the runs must be found. */
Test(labs_handouts, find_the_answer_where_it_is_planted)
{
    struct lab labs[MAX_LABS];
    int count = read_labs(labs);
    for (int l = 0; l < count; l++) {
        char answer[PATH_LENGTH];
        snprintf(answer, sizeof answer, "%s/reduce.cu", labs[l].steps[0]);
        struct finished run = handout_reader_run("runs", labs[l].name, answer);
        cr_expect_eq(run.exit_code, 1, "%s with %s added to its reading: exit %d, not 1\n%s%s",
                     labs[l].name, answer, run.exit_code, run.out, run.err);
        cr_expect_not_null(strstr(run.out, answer), "%s: no run reported in %s:\n%s", labs[l].name,
                           answer, run.out);
        finished_free(&run);
    }
}

Test(labs_handouts, state_a_reading_time_that_fits_its_words)
{
    struct lab labs[MAX_LABS];
    int count = read_labs(labs);
    for (int l = 0; l < count; l++) {
        struct finished run = handout_reader_run("reading", labs[l].name, NULL);
        cr_expect_eq(run.exit_code, 0, "%s: the reading does not fit what the handout says:\n%s%s",
                     labs[l].name, run.out, run.err);
        finished_free(&run);
    }
}

/* ---- what a starter's code and comments leave to write -------------------------------------- */

/* The text without spaces, line breaks and Markdown's backticks: a piece of code found
 * however it is spaced or quoted. */
static char *squeezed(const char *text)
{
    char *out = malloc(strlen(text) + 1), *end = out;
    cr_assert_not_null(out);
    for (; *text; text++)
        if (!isspace((unsigned char)*text) && *text != '`') *end++ = *text;
    *end = '\0';
    return out;
}

/* A handout without its hints (each <details> block): what every student reads. */
static char *without_hints(const char *text)
{
    char *out = strdup(text);
    cr_assert_not_null(out);
    for (char *open; (open = strstr(out, "<details>")) != NULL;) {
        char *close = strstr(open, "</details>");
        cr_assert_not_null(close, "a <details> that is never closed");
        close += strlen("</details>");
        memmove(open, close, strlen(close) + 1);
    }
    return out;
}

/* A C file's code with its comments blanked out (the starters quote no comment marker in a
 * string). */
static char *code_only(const char *source)
{
    char *code = strdup(source);
    cr_assert_not_null(code);
    for (char *p = code; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *end = strstr(p + 2, "*/");
            end = end ? end + 2 : p + strlen(p);
            memset(p, ' ', (size_t)(end - p));
            p = end - 1;
        } else if (p[0] == '/' && p[1] == '/') {
            size_t line = strcspn(p, "\n");
            memset(p, ' ', line);
            p += line - 1;
        }
    }
    return code;
}

/* lab01's hole B is the index of the slot thread t adds into: 2 * len * t. The starter and
 * the handout (outside the hints a student opens when stuck) ask for it, never give it. */
Test(labs_handouts, lab01_asks_for_the_strided_index_without_giving_it)
{
    static const char *const FILES[] = {"labs/lab01/reduce.cu", "labs/lab01/README.md"};
    for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
        char *text = read_text(FILES[f]);
        cr_assert_not_null(text, "%s: %s", FILES[f], strerror(errno));
        char *read = without_hints(text), *flat = squeezed(read);
        const char *index = strstr(flat, "2*len*");
        cr_expect_null(index, "%s gives hole B's index outside its hints: ...%.40s", FILES[f],
                       index ? index : "");
        free(flat);
        free(read);
        free(text);
    }
}

/* How many times a C file's code (its comments left out) reads an element of the input, in[. */
static int input_reads(const char *path)
{
    char *source = read_text(path);
    cr_assert_not_null(source, "%s: %s", path, strerror(errno));
    char *code = code_only(source), *flat = squeezed(code);
    int count = 0;
    for (const char *at = flat; (at = strstr(at, "in[")) != NULL; at++)
        count += at == flat || !(isalnum((unsigned char)at[-1]) || at[-1] == '_');
    free(flat);
    free(code);
    free(source);
    return count;
}

/* lab02's hole A is the first add, the kernel's only reads of the input: a thread adds two
 * elements while loading them. The starter's code (plan A's branch included) reads no
 * element, so it shows no load to copy with another partner; the model answer's reads are
 * found, so the count sees them where they are. */
Test(labs_handouts, lab02_starter_code_shows_no_first_add)
{
    cr_expect_geq(input_reads("step04_idle/reduce.cu"), 2,
                  "the model answer's two loads are not found: the count reads nothing");
    cr_expect_eq(input_reads("labs/lab02/reduce.cu"), 0,
                 "labs/lab02/reduce.cu's code reads in[]: hole A's loads, with another partner");
}

/* lab04's question 4 is answered in the SASS: the handout says how to get it and where the
 * tool that writes it is. */
Test(labs_handouts, lab04_names_the_tool_its_sass_question_needs)
{
    char *text = read_text("labs/lab04/README.md");
    cr_assert_not_null(text, "labs/lab04/README.md: %s", strerror(errno));
    char *flat = squeezed(text);
    cr_expect_not_null(strstr(flat, "makelab04-sass"), "no `make lab04-sass`");
    cr_expect_not_null(strstr(flat, "cuobjdump,whichtheCUDAtoolkitinstallsinitsbin"),
                       "cuobjdump and where it is are not named");
    free(flat);
    free(text);
}
