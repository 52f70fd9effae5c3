/* The figures of the step READMEs (docs/figures/make_figures.py): the counts they show against
 * the numbers the READMEs state and against the same counts worked out here, and the committed
 * SVG files against a fresh run of the generator, byte for byte. No GPU needed. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static const char GENERATOR[] = "docs/figures/make_figures.py";
static const char FIGURE_DIRECTORY[] = "docs/figures";
enum { WARP = 32, BANK_COUNT = 32, BLOCK = 256, PROFILE_BLOCKS = 4096, MAX_TEXT = 1 << 20 };

/* ---- the generator's counts ------------------------------------------------------------- */

static struct finished generator_run(const char *const *args)
{
    const char *argv[8] = {"python3", GENERATOR};
    int count = 2;
    for (int i = 0; args[i] != NULL; i++) argv[count++] = args[i];
    argv[count] = NULL;
    return program_run("/usr/bin/env", GPUS_VISIBLE, argv);
}

static char *counts_text(void)
{
    struct finished run = generator_run((const char *const[]){"--counts", NULL});
    cr_assert_eq(run.exit_code, 0, "%s --counts failed: %s", GENERATOR, run.err);
    char *text = strdup(run.out);
    finished_free(&run);
    return text;
}

/* The value of the line "name value" (the rest of the line), into buffer. */
static const char *count_string(const char *counts, const char *name, char *buffer, size_t size)
{
    const char *cursor = counts;
    char line[512];
    size_t length = strlen(name);
    while (next_line(&cursor, line, sizeof line)) {
        if (strncmp(line, name, length) == 0 && line[length] == ' ') {
            snprintf(buffer, size, "%s", line + length + 1);
            return buffer;
        }
    }
    cr_assert_fail("%s --counts prints no line %s", GENERATOR, name);
    return NULL;
}

static long count_of(const char *counts, const char *name)
{
    char buffer[256], *end;
    long value = strtol(count_string(counts, name, buffer, sizeof buffer), &end, 10);
    cr_assert(*end == '\0', "%s: %s is not a number", name, buffer);
    return value;
}

/* ---- the READMEs ------------------------------------------------------------------------- */

/* The file with every run of white space (line breaks included) made one space, so that a
 * phrase is found wherever the README wraps it. */
static char *readme_text(const char *path)
{
    FILE *file = fopen(path, "r");
    cr_assert_not_null(file, "cannot open %s", path);
    char *text = malloc(MAX_TEXT);
    size_t length = 0;
    int c, space = 0;
    while ((c = fgetc(file)) != EOF && length < MAX_TEXT - 1) {
        if (c == ' ' || c == '\n' || c == '\t') {
            space = 1;
            continue;
        }
        if (space && length > 0) text[length++] = ' ';
        space = 0;
        text[length++] = (char)c;
    }
    text[length] = '\0';
    fclose(file);
    return text;
}

static long parse_grouped(const char *start, const char *end)
{
    long value = 0;
    int digits = 0;
    for (const char *p = start; p < end; p++) {
        if (*p == ',') continue;
        value = 10 * value + (*p - '0');
        digits++;
    }
    cr_assert_gt(digits, 0, "no number where one was expected");
    return value;
}

static int number_char(char c)
{
    return (c >= '0' && c <= '9') || c == ',';
}

/* The number (commas allowed) that the README writes right before `phrase`. */
static long number_before(const char *text, const char *phrase, const char *path)
{
    const char *found = strstr(text, phrase);
    cr_assert_not_null(found, "%s no longer says \"%s\"", path, phrase);
    const char *start = found;
    while (start > text && number_char(start[-1])) start--;
    while (*start == ',') start++;
    return parse_grouped(start, found);
}

/* The number that the README writes right after `phrase`. */
static long number_after(const char *text, const char *phrase, const char *path)
{
    const char *found = strstr(text, phrase);
    cr_assert_not_null(found, "%s no longer says \"%s\"", path, phrase);
    const char *start = found + strlen(phrase), *end = start;
    while (number_char(*end)) end++;
    while (end > start && end[-1] == ',') end--;
    return parse_grouped(start, end);
}

/* The rows of the markdown table that follows `heading`: the cells of each row whose first
 * cell is a number or "total", split in place. Returns the number of rows. */
enum { MAX_ROWS = 16, MAX_CELLS = 8 };
struct table {
    int rows;
    char cells[MAX_ROWS][MAX_CELLS][64];
};

static void table_after(const char *path, const char *heading, struct table *table)
{
    FILE *file = fopen(path, "r");
    cr_assert_not_null(file, "cannot open %s", path);
    char line[1024];
    int found = 0, in_table = 0;
    table->rows = 0;
    while (fgets(line, sizeof line, file) != NULL) {
        if (!found) {
            found = strncmp(line, heading, strlen(heading)) == 0;
            continue;
        }
        if (line[0] != '|') {
            if (in_table) break;
            continue;
        }
        in_table = 1;
        char *cursor = line + 1, *bar;
        int cell = 0;
        char row[MAX_CELLS][64] = {{0}};
        while ((bar = strchr(cursor, '|')) != NULL && cell < MAX_CELLS) {
            *bar = '\0';
            while (*cursor == ' ') cursor++;
            size_t length = strlen(cursor);
            while (length > 0 && cursor[length - 1] == ' ') cursor[--length] = '\0';
            snprintf(row[cell++], sizeof row[0], "%s", cursor);
            cursor = bar + 1;
        }
        if ((row[0][0] >= '0' && row[0][0] <= '9') || strcmp(row[0], "total") == 0) {
            cr_assert_lt(table->rows, MAX_ROWS);
            memcpy(table->cells[table->rows++], row, sizeof row);
        }
    }
    fclose(file);
    cr_assert(found, "%s has no heading \"%s\"", path, heading);
}

/* The first of the paths that exists: a number may live in a later step's README. */
static char *first_readme_with(const char *const *paths, const char *phrase, const char **which)
{
    for (int i = 0; paths[i] != NULL; i++) {
        if (access(paths[i], R_OK) != 0) continue;
        char *text = readme_text(paths[i]);
        if (strstr(text, phrase) != NULL) {
            *which = paths[i];
            return text;
        }
        free(text);
    }
    cr_assert_fail("no README among the speed steps says \"%s\"", phrase);
    return NULL;
}

static const char *const SPEED_READMES[] = {"step10_vector_loads/README.md",
                                            "step11_in_flight/README.md",
                                            "step12_small_n/README.md", NULL};

/* ---- the counts worked out here ---------------------------------------------------------- */

/* Warps with at least one thread that adds at level `len`, for step01's or step02's choice. */
static int warps_adding(int len, int strided)
{
    int warps = 0;
    for (int w = 0; w < BLOCK / WARP; w++) {
        int any = 0;
        for (int t = w * WARP; t < (w + 1) * WARP; t++)
            any |= strided ? 2 * len * t < BLOCK : t % (2 * len) == 0;
        warps += any;
    }
    return warps;
}

/* step02, warp w at level len: the most distinct words that fall in one bank (the rounds),
 * and the number of lanes that work. */
static int step02_rounds(int len, int w, int *lanes)
{
    int per_bank[BANK_COUNT] = {0};
    *lanes = 0;
    for (int t = w * WARP; t < (w + 1) * WARP; t++) {
        int index = 2 * len * t;
        if (index >= BLOCK) continue;
        per_bank[index % BANK_COUNT]++; /* every lane writes its own word */
        (*lanes)++;
    }
    int rounds = 0;
    for (int b = 0; b < BANK_COUNT; b++) rounds = per_bank[b] > rounds ? per_bank[b] : rounds;
    return rounds;
}

static int step02_store_extra_rounds(void)
{
    int extra = 0, lanes;
    for (int len = 1; len < BLOCK; len *= 2)
        for (int w = 0; w < BLOCK / WARP; w++) {
            int rounds = step02_rounds(len, w, &lanes);
            if (lanes > 0) extra += rounds - 1;
        }
    return extra;
}

/* ---- the tests --------------------------------------------------------------------------- */

Test(figures, step02_warps_issuing_match_the_readme_table)
{
    char *counts = counts_text();
    const char *path = "step02_divergence/README.md";
    struct table table;
    table_after(path, "## The problem", &table);
    cr_assert_eq(table.rows, 9, "step02's table: 8 levels and a total, found %d rows", table.rows);
    char name[128];
    for (int row = 0; row < table.rows; row++) {
        const char *level = table.cells[row][0];
        int total = strcmp(level, "total") == 0;
        char suffix[32];
        snprintf(suffix, sizeof suffix, total ? "total" : "len%s", level);
        snprintf(name, sizeof name, "step02.working_threads.%s", suffix);
        cr_expect_eq(count_of(counts, name), atol(table.cells[row][1]), "%s", name);
        snprintf(name, sizeof name, "step02.warps_issuing.step01.%s", suffix);
        cr_expect_eq(count_of(counts, name), atol(table.cells[row][2]), "%s", name);
        snprintf(name, sizeof name, "step02.warps_issuing.step02.%s", suffix);
        cr_expect_eq(count_of(counts, name), atol(table.cells[row][3]), "%s", name);
        if (!total) {
            int len = atoi(level);
            cr_expect_eq(atol(table.cells[row][2]), warps_adding(len, 0), "README, step01, len %d",
                         len);
            cr_expect_eq(atol(table.cells[row][3]), warps_adding(len, 1), "README, step02, len %d",
                         len);
        }
    }
    cr_expect_eq(count_of(counts, "step02.warps_issuing.step01.total"), 47);
    cr_expect_eq(count_of(counts, "step02.warps_issuing.step02.total"), 12);
    free(counts);
}

Test(figures, step03_bank_rounds_match_step02s_trap_table)
{
    char *counts = counts_text();
    const char *path = "step02_divergence/README.md";
    struct table table;
    table_after(path, "## The trap", &table);
    cr_assert_eq(table.rows, 8, "step02's bank table: 8 levels, found %d rows", table.rows);
    char name[128];
    for (int row = 0; row < table.rows; row++) {
        int len = atoi(table.cells[row][0]), lanes;
        int rounds = step02_rounds(len, 0, &lanes);
        snprintf(name, sizeof name, "step03.step02.active_lanes_warp0.len%d", len);
        cr_expect_eq(count_of(counts, name), atol(table.cells[row][2]), "%s", name);
        cr_expect_eq(lanes, atol(table.cells[row][2]), "README, active lanes, len %d", len);
        snprintf(name, sizeof name, "step03.step02.distinct_banks_warp0.len%d", len);
        cr_expect_eq(count_of(counts, name), atol(table.cells[row][3]), "%s", name);
        snprintf(name, sizeof name, "step03.step02.rounds_warp0.len%d", len);
        cr_expect_eq(count_of(counts, name), atol(table.cells[row][4]), "%s", name);
        cr_expect_eq(rounds, atol(table.cells[row][4]), "README, conflict degree, len %d", len);
    }
    for (int len = 1; len < BLOCK; len *= 2) {
        snprintf(name, sizeof name, "step03.step03.rounds_warp0.len%d", len);
        cr_expect_eq(count_of(counts, name), 1, "step03 takes one round: %s", name);
    }
    cr_expect_eq(count_of(counts, "step03.step03.extra_rounds_per_block"), 0);
    free(counts);
}

Test(figures, step02_conflicts_per_block_and_in_the_profile)
{
    char *counts = counts_text();
    const char *path = "step02_divergence/NOTES.md"; /* the count beside the profile */
    char *text = readme_text(path);
    long store = number_before(text, " extra rounds per block for the store", path);
    long loads = number_after(text, "for the store, and twice as many, ", path);
    long blocks = number_after(text, "With the profile's ", path);
    long store_conflicts = number_before(text, " store conflicts, exactly what was measured", path);
    long load_conflicts = number_before(text, " load conflicts against", path);
    cr_expect_eq(count_of(counts, "step03.step02.store_extra_rounds_per_block"), store);
    cr_expect_eq(count_of(counts, "step03.step02.load_extra_rounds_per_block"), loads);
    cr_expect_eq(blocks, PROFILE_BLOCKS);
    cr_expect_eq(count_of(counts, "step03.step02.store_conflicts_profile"), store_conflicts);
    cr_expect_eq(count_of(counts, "step03.step02.load_conflicts_profile"), load_conflicts);
    cr_expect_eq(step02_store_extra_rounds(), store, "worked out here: %d",
                 step02_store_extra_rounds());
    cr_expect_eq(store * blocks, store_conflicts);
    free(text);
    free(counts);
}

Test(figures, step00_and_step01_global_accesses)
{
    char *counts = counts_text();
    const char *path = "step00_global/README.md";
    char *text = readme_text(path);
    long loads = number_after(text, "per 256 elements the tree makes ", path);
    long stores = number_before(text, " stores (255 additions", path);
    cr_expect_eq(count_of(counts, "step00.global_loads_per_block"), loads);
    cr_expect_eq(count_of(counts, "step00.global_stores_per_block"), stores);
    cr_expect_eq(loads, 2 * (BLOCK - 1) + 1, "255 adds of two loads, then thread 0's load");
    cr_expect_eq(count_of(counts, "step01.global_loads_per_block"), BLOCK);
    cr_expect_eq(count_of(counts, "step01.global_stores_per_block"), 1);
    free(text);
    free(counts);
}

Test(figures, step04_elements_per_thread_and_plan_a)
{
    char *counts = counts_text();
    const char *path = "step04_idle/README.md";
    char *text = readme_text(path);
    cr_expect_eq(count_of(counts, "step04.elements_per_thread"),
                 number_after(text, "`ELEMENTS_PER_THREAD = ", path));
    cr_expect_eq(count_of(counts, "step04.correct.min_reads"), 1);
    cr_expect_eq(count_of(counts, "step04.correct.max_reads"), 1);
    cr_expect_eq(count_of(counts, "step04.correct.read_twice"), 0);
    cr_expect_eq(count_of(counts, "step04.correct.never_read"), 0);
    long twice = number_before(text, " elements of `[65,536, 2^24)` are read twice", path);
    long never = number_before(text, " elements of `[2^24 + 65,536, 2^25)` are never read", path);
    cr_expect_eq(count_of(counts, "step04.plan_a.read_twice"), twice);
    cr_expect_eq(count_of(counts, "step04.plan_a.never_read"), never);
    /* Worked out here: the first reads cover [0, G*B), the partners [G, G*B + G). */
    long n = 1L << 25, blocks = count_of(counts, "step04.plan_a.blocks");
    cr_expect_eq(blocks, n / (2 * BLOCK));
    cr_expect_eq(twice, blocks * BLOCK - blocks);
    cr_expect_eq(never, n - (blocks * BLOCK + blocks));
    /* The README's small case: N = 16, blocks of 4, 2 blocks. */
    char buffer[256], phrase[128];
    count_string(counts, "step04.plan_a_tiny.read_twice", buffer, sizeof buffer);
    cr_expect_str_eq(buffer, "2 3 4 5 6 7");
    snprintf(phrase, sizeof phrase, "elements %c to %c **twice**", buffer[0],
             buffer[strlen(buffer) - 1]);
    cr_expect_not_null(strstr(text, phrase), "%s does not say \"%s\"", path, phrase);
    count_string(counts, "step04.plan_a_tiny.never_read", buffer, sizeof buffer);
    cr_expect_str_eq(buffer, "10 11 12 13 14 15");
    snprintf(phrase, sizeof phrase, "elements %.2s to %s **never**", buffer,
             strrchr(buffer, ' ') + 1);
    cr_expect_not_null(strstr(text, phrase), "%s does not say \"%s\"", path, phrase);
    free(text);
    free(counts);
}

static const char *const NUMBER_WORDS[] = {"zero", "one",   "two",   "three", "four", "five",
                                           "six",  "seven", "eight", "nine",  "ten"};

Test(figures, step05_and_step06_barriers_and_loop_tests)
{
    char *counts = counts_text();
    const char *path05 = "step05_unroll_warp/README.md", *path06 = "step06_full_unroll/README.md";
    char *text05 = readme_text(path05), *text06 = readme_text(path06);
    long barriers05 = number_after(text05, "block of 256 threads now meets ", path05);
    long barriers04 = number_after(text05, "block-wide barriers after the load instead of ",
                                   path05);
    cr_expect_eq(count_of(counts, "step05.block_barriers_after_load.step05"), barriers05);
    cr_expect_eq(count_of(counts, "step05.block_barriers_after_load.step04"), barriers04);
    cr_expect_eq(barriers04, 8, "log2(256) levels, a barrier each");
    cr_expect_eq(barriers05, 3, "len = 128, 64, 32");
    long syncwarps = count_of(counts, "step05.syncwarps");
    cr_assert_leq(syncwarps, 10);
    char phrase[64];
    snprintf(phrase, sizeof phrase, "same %s `bar.warp.sync`", NUMBER_WORDS[syncwarps]);
    cr_expect_not_null(strstr(text06, phrase), "%s does not say \"%s\"", path06, phrase);
    cr_expect_eq(count_of(counts, "step06.block_barriers_after_load.step06"), barriers05);
    cr_expect_eq(count_of(counts, "step06.loop_tests.step05"), 3 + 1,
                 "three levels, then the exit");
    cr_expect_eq(count_of(counts, "step06.loop_tests.step06"), 0);
    cr_expect_eq(count_of(counts, "step06.rungs_without_code"), 2, "1024 and 512");
    free(text05);
    free(text06);
    free(counts);
}

Test(figures, step07_grid_and_elements_per_thread)
{
    char *counts = counts_text();
    const char *path = "step07_blocks/README.md";
    char *text = readme_text(path);
    long per_sm = number_before(text, " blocks per SM, ", path);
    long blocks = number_after(text, " blocks per SM, ", path);
    long threads = number_before(text, " threads, and each thread adds at most", path);
    long most = number_before(text, " elements. This is document", path);
    cr_expect_eq(count_of(counts, "step07.blocks_per_sm"), per_sm);
    cr_expect_eq(count_of(counts, "step07.blocks"), blocks);
    cr_expect_eq(count_of(counts, "step07.threads"), threads);
    cr_expect_eq(count_of(counts, "step07.elements_per_thread.max"), most);
    long sms = 132, n = 1L << 25;
    cr_expect_eq(blocks, sms * (2048 / BLOCK), "132 SMs x 2048 / 256 blocks");
    cr_expect_eq(most, (n + blocks * BLOCK - 1) / (blocks * BLOCK));
    cr_expect_eq(count_of(counts, "step07.elements_per_thread.min"), n / (blocks * BLOCK));
    free(text);
    free(counts);
}

Test(figures, step08_shuffles_and_step09_tickets)
{
    char *counts = counts_text();
    const char *path = "step08_shuffle/README.md";
    char *text = readme_text(path);
    long steps = count_of(counts, "step08.shuffle_steps");
    int halvings = 0;
    for (int offset = WARP / 2; offset > 0; offset /= 2) halvings++;
    cr_expect_eq(steps, halvings);
    char phrase[64];
    snprintf(phrase, sizeof phrase, "adds its %ld values in %s",
             count_of(counts, "step08.lane0_inputs"), NUMBER_WORDS[steps]);
    cr_expect_not_null(strstr(text, phrase), "%s does not say \"%s\"", path, phrase);
    cr_expect_eq(count_of(counts, "step08.useful_adds"), WARP - 1);
    /* step09: the tickets are 0 .. G-1, each once, and the last one names the last block. */
    char buffer[256];
    count_string(counts, "step09.tickets", buffer, sizeof buffer);
    int seen[64] = {0}, grid = 0, ticket_of_last = -1;
    long last = count_of(counts, "step09.last_block");
    for (char *token = strtok(buffer, " "); token != NULL; token = strtok(NULL, " "), grid++) {
        int ticket = atoi(token);
        cr_assert(ticket >= 0 && ticket < 64 && !seen[ticket], "ticket %d drawn twice", ticket);
        seen[ticket] = 1;
        if (grid == last) ticket_of_last = ticket;
    }
    for (int t = 0; t < grid; t++) cr_expect(seen[t], "no block drew ticket %d", t);
    cr_expect_eq(ticket_of_last, grid - 1);
    cr_expect_eq(count_of(counts, "step09.counter_after"), 0);
    free(text);
    free(counts);
}

Test(figures, speed_steps_loads_match_their_headers_and_readmes)
{
    char *counts = counts_text();
    const char *path;
    char *text = first_readme_with(SPEED_READMES, " contiguous bytes", &path);
    cr_expect_eq(count_of(counts, "step10.bytes_per_warp_load"),
                 number_before(text, " contiguous bytes", path));
    cr_expect_eq(count_of(counts, "step10.bytes_per_warp_load"), WARP * 16, "32 lanes x 16 bytes");
    for (int past = 0; past < 4; past++) {
        char name[64];
        snprintf(name, sizeof name, "step10.head_floats.offset%d", past);
        cr_expect_eq(count_of(counts, name), (4 - past) % 4, "%s", name);
    }
    free(text);
    text = first_readme_with(SPEED_READMES, " bytes each in flight", &path);
    cr_expect_eq(count_of(counts, "step09.bytes_in_flight_per_thread"),
                 number_before(text, " bytes each in flight", path));
    free(text);
    text = first_readme_with(SPEED_READMES, " blocks at n = 2^25", &path);
    cr_expect_eq(count_of(counts, "step11.blocks.n2^25.threads512"),
                 number_before(text, " blocks at n = 2^25", path));
    free(text);
    text = first_readme_with(SPEED_READMES, "(`ONE_BLOCK_ELEMENTS`)", &path);
    cr_expect_eq(count_of(counts, "step12.one_block_elements"),
                 number_before(text, " floats (`ONE_BLOCK_ELEMENTS`)", path));
    free(text);
    /* The constants the generator transcribes, against step12's header. */
    char *header = readme_text("step12_small_n/reduce.h");
    cr_expect_eq(count_of(counts, "step11.vectors_per_thread"),
                 number_after(header, "VECTORS_PER_THREAD = ", "step12_small_n/reduce.h"));
    cr_expect_eq(count_of(counts, "step12.one_block_threads"),
                 number_after(header, "ONE_BLOCK_THREADS = ", "step12_small_n/reduce.h"));
    cr_expect_eq(count_of(counts, "step12.vectors_per_thread"),
                 number_after(header, "ONE_BLOCK_VECTORS = ", "step12_small_n/reduce.h"));
    cr_expect_eq(count_of(counts, "step12.one_block_elements"),
                 count_of(counts, "step12.one_block_threads") *
                     count_of(counts, "step12.vectors_per_thread") * 4);
    cr_expect_eq(count_of(counts, "step11.bytes_in_flight_per_thread"),
                 count_of(counts, "step11.vectors_per_thread") * 16);
    free(header);
    free(counts);
}

/* The numbers of a count's line "a b c ...", into values; returns how many. */
static int count_numbers(const char *counts, const char *name, int *values, int most)
{
    char buffer[256];
    count_string(counts, name, buffer, sizeof buffer);
    int count = 0;
    for (char *token = strtok(buffer, " "); token != NULL; token = strtok(NULL, " ")) {
        cr_assert_lt(count, most, "%s: more than %d numbers", name, most);
        values[count++] = atoi(token);
    }
    return count;
}

static void expect_numbers(const char *counts, const char *name, const int *expected, int count)
{
    int values[64];
    int found = count_numbers(counts, name, values, 64);
    cr_expect_eq(found, count, "%s: %d numbers, worked out here %d", name, found, count);
    for (int i = 0; i < found && i < count; i++)
        cr_expect_eq(values[i], expected[i], "%s, number %d: %d, worked out here %d", name, i,
                     values[i], expected[i]);
}

/* step13: the start tickets are 0 .. G-1, each once; the block with G-1 gathers; it waits for
 * the words published after its own (its own loads end before it reads), adds them in the
 * order of gather_block_sums (thread t: words t, t + BLOCK, ...) and leaves every word 0. */
Test(figures, step13_gatherer_and_the_words_it_waits_for)
{
    char *counts = counts_text();
    enum { MOST = 64 };
    int ticket[MOST], finish[MOST];
    int grid = count_numbers(counts, "step13.start_tickets", ticket, MOST);
    cr_assert_eq(count_numbers(counts, "step13.finish_times", finish, MOST), grid);
    int seen[MOST] = {0}, gatherer = -1;
    for (int b = 0; b < grid; b++) {
        cr_assert(ticket[b] >= 0 && ticket[b] < grid && !seen[ticket[b]],
                  "start ticket %d drawn twice", ticket[b]);
        seen[ticket[b]] = 1;
        if (ticket[b] == grid - 1) gatherer = b;
    }
    cr_expect_eq(count_of(counts, "step13.gatherer_block"), gatherer);
    int late[MOST], late_count = 0, orders_differ = 0;
    for (int b = 0; b < grid; b++) {
        if (finish[b] > finish[gatherer]) late[late_count++] = b;
        for (int c = 0; c < grid; c++)
            if ((ticket[b] < ticket[c]) != (finish[b] < finish[c])) orders_differ = 1;
    }
    cr_expect_eq(count_of(counts, "step13.words_waited_for"), late_count);
    expect_numbers(counts, "step13.late_words", late, late_count);
    cr_expect_gt(late_count, 0, "the figure shows the gatherer waiting for a word");
    cr_expect(orders_differ, "the blocks finish in another order than they start");
    int order[MOST], placed = 0;
    for (int t = 0; t < BLOCK; t++)
        for (int i = t; i < grid; i += BLOCK) order[placed++] = i;
    expect_numbers(counts, "step13.gather_order", order, placed);
    int zeros[MOST] = {0};
    expect_numbers(counts, "step13.words_after", zeros, grid);
    cr_expect_eq(count_of(counts, "step13.counter_after"), 0);
    free(counts);
}

/* The trips after the last block's loads: step13's header counts the ticket finish's; the
 * gatherer's ticket was drawn during its loads, so only its read of the words is left. */
Test(figures, step13_trips_to_memory_match_its_header)
{
    const char *path = "step13_gather/reduce.cu";
    if (access(path, R_OK) != 0) cr_skip_test("%s is not in this checkout", path);
    char *counts = counts_text();
    char *header = readme_text(path);
    long ticket = count_of(counts, "step13.trips_after_last_loads.ticket");
    cr_assert(ticket >= 0 && ticket <= 10);
    char phrase[64];
    snprintf(phrase, sizeof phrase, "Those %s trips to memory", NUMBER_WORDS[ticket]);
    cr_expect_not_null(strstr(header, phrase), "%s does not say \"%s\"", path, phrase);
    cr_expect_eq(count_of(counts, "step13.trips_after_last_loads.gather"), 1);
    free(header);
    free(counts);
}

/* step13's bins, worked out here from the figure's own block sums: each sum's bin (its
 * exponent field) and signed significand as add_to_bins takes them from the float's bits, each
 * bin's significands and count, the total they give, and the float sums in the figure's two
 * orders, which differ where the bins do not. */
enum { SIGNIFICAND_BITS = 23, EXPONENT_FIELD = 0xff, SCALE_OFFSET = 127 + 23, EXPONENTS = 256 };

static int parsed_doubles(const char *text, double *values, int most)
{
    int count = 0;
    char *end;
    for (double value = strtod(text, &end); end != text && count < most;
         value = strtod(text, &end)) {
        values[count++] = value;
        text = end;
    }
    return count;
}

Test(figures, step13_bins_match_the_float_bits)
{
    char *counts = counts_text();
    enum { MOST = 16 };
    char buffer[512], expected[512] = "";
    double sums[MOST], orders[2], total_shown[1];
    int blocks = parsed_doubles(count_string(counts, "step13.bin_sums", buffer, sizeof buffer),
                                sums, MOST);
    cr_assert_gt(blocks, 2);
    long long significands[EXPONENTS] = {0};
    int added[EXPONENTS] = {0};
    for (int b = 0; b < blocks; b++) {
        float value = (float)sums[b];
        uint32_t bits;
        memcpy(&bits, &value, sizeof bits);
        unsigned exponent = bits >> SIGNIFICAND_BITS & EXPONENT_FIELD;
        long long significand = bits & ((1u << SIGNIFICAND_BITS) - 1);
        if (exponent != 0) significand |= 1ll << SIGNIFICAND_BITS;
        significands[exponent] += bits >> 31 ? -significand : significand;
        added[exponent]++;
    }
    double total = 0.0, exact = 0.0;
    for (int e = 0; e < EXPONENTS; e++) {
        if (added[e] == 0) continue;
        size_t used = strlen(expected);
        snprintf(expected + used, sizeof expected - used, "%s%d:%lld:%d", used ? " " : "", e,
                 significands[e], added[e]);
        total += ldexp((double)significands[e], (e > 1 ? e : 1) - SCALE_OFFSET);
    }
    for (int b = 0; b < blocks; b++) exact += sums[b];
    cr_expect_str_eq(count_string(counts, "step13.bins", buffer, sizeof buffer), expected);
    cr_assert_eq(parsed_doubles(count_string(counts, "step13.bins_total", buffer, sizeof buffer),
                                total_shown, 1),
                 1);
    cr_expect_eq(total_shown[0], total, "the figure's total %g, worked out here %g", total_shown[0],
                 total);
    cr_expect_eq(total, exact, "the bins' total %g is not the exact sum %g", total, exact);
    volatile float forward = 0.0f, backward = 0.0f;
    for (int b = 0; b < blocks; b++) {
        forward = forward + (float)sums[b];
        backward = backward + (float)sums[blocks - 1 - b];
    }
    cr_assert_eq(parsed_doubles(count_string(counts, "step13.float_orders", buffer, sizeof buffer),
                                orders, 2),
                 2);
    cr_expect_eq(orders[0], (double)forward, "in order: the figure %g, here %g", orders[0],
                 (double)forward);
    cr_expect_eq(orders[1], (double)backward, "reversed: the figure %g, here %g", orders[1],
                 (double)backward);
    cr_expect_neq(orders[0], orders[1], "the figure's two orders give the same float sum");
    free(counts);
}

/* ---- the SVG files: regenerated, byte for byte ------------------------------------------- */

static char *file_contents(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    char *data = malloc(MAX_TEXT);
    *size = fread(data, 1, MAX_TEXT, file);
    fclose(file);
    return data;
}

enum { NAME_SIZE = 256 };

static int svg_names(const char *directory, char names[][NAME_SIZE], int most)
{
    DIR *dir = opendir(directory);
    cr_assert_not_null(dir, "cannot open %s", directory);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (ends_with(entry->d_name, ".svg") && length < NAME_SIZE && count < most)
            memcpy(names[count++], entry->d_name, length + 1);
    }
    closedir(dir);
    return count;
}

Test(figures, committed_svgs_are_what_the_generator_writes, .timeout = 120)
{
    char fresh[] = "/tmp/figures.XXXXXX";
    cr_assert_not_null(mkdtemp(fresh));
    struct finished run = generator_run((const char *const[]){"--out", fresh, NULL});
    cr_assert_eq(run.exit_code, 0, "%s --out %s failed: %s", GENERATOR, fresh, run.err);
    finished_free(&run);
    enum { MOST = 64 };
    char made[MOST][NAME_SIZE], committed[MOST][NAME_SIZE];
    int made_count = svg_names(fresh, made, MOST);
    int committed_count = svg_names(FIGURE_DIRECTORY, committed, MOST);
    cr_expect_gt(made_count, 12, "the generator wrote %d figures", made_count);
    cr_expect_eq(made_count, committed_count, "%d figures made, %d committed in %s", made_count,
                 committed_count, FIGURE_DIRECTORY);
    for (int i = 0; i < made_count; i++) {
        char fresh_path[2 * NAME_SIZE], committed_path[2 * NAME_SIZE];
        snprintf(fresh_path, sizeof fresh_path, "%s/%.255s", fresh, made[i]);
        snprintf(committed_path, sizeof committed_path, "%s/%.255s", FIGURE_DIRECTORY, made[i]);
        size_t fresh_size = 0, committed_size = 0;
        char *a = file_contents(fresh_path, &fresh_size),
             *b = file_contents(committed_path, &committed_size);
        cr_expect_not_null(b, "%s is not committed (run make figures)", committed_path);
        if (b != NULL)
            cr_expect(fresh_size == committed_size && memcmp(a, b, fresh_size) == 0,
                      "%s is stale: make figures writes another file", committed_path);
        free(a);
        free(b);
        unlink(fresh_path);
    }
    rmdir(fresh);
}
