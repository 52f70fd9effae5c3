/* common/options.c on the host: every valid form of every option, and a table of bad command
 * lines, each refused with exit code 2, the bad value named on stderr and a pointer to --help.
 * The steps here are step_info values like the real ones: a plain one (step03), one with a
 * grid, variants and its own options (step07), and a one-launch step without a host finish
 * (step12). */
#include <criterion/criterion.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

enum { MAX_ARGUMENTS = 12, CLOCK_EXTRA = 0, LABEL_EXTRA = 1 };

static const struct step_info PLAIN = {
    .name = "step03",
    .title = "a step with the shared options only",
    .min_threads = 32,
    .max_threads = 1024,
    .default_threads = 256,
    .host_finish = true,
};

static const struct step_info GRID = {
    .name = "step07",
    .title = "a step with a grid, variants and options of its own",
    .min_threads = 64,
    .max_threads = 1024,
    .default_threads = 256,
    .host_finish = true,
    .grid_size = true,
    .variants =
        (const struct variant[]){{"tree", "the tree"}, {"thread0", "thread 0 adds"}, {NULL, NULL}},
    .extras = (const struct extra_option[]){{"clock", NULL, "a flag"},
                                            {"label", "L", "a value"},
                                            {NULL, NULL, NULL}},
};

static const struct step_info ONE_LAUNCH = {
    .name = "step12",
    .title = "a one-launch step: no host finish, no grid",
    .min_threads = 128,
    .max_threads = 1024,
    .default_threads = 512,
    .variants = (const struct variant[]){{"ticket", "the last block"},
                                         {"atomic-add", "atomics"},
                                         {NULL, NULL}},
};

/* What options_parse returned and printed. */
struct parsed {
    int status;
    struct options options;
    char *out, *err;
};

static struct parsed parse(const struct step_info *step, const char *const *args)
{
    char *argv[MAX_ARGUMENTS + 2] = {"run"};
    int argc = 1;
    for (; args[argc - 1] != NULL; argc++) {
        cr_assert_leq(argc, MAX_ARGUMENTS, "too many arguments for this test");
        argv[argc] = (char *)args[argc - 1];
    }
    struct parsed parsed;
    struct capture out, err;
    capture_begin(&out, STDOUT_FILENO);
    capture_begin(&err, STDERR_FILENO);
    parsed.status = options_parse(argc, argv, step, &parsed.options);
    parsed.err = capture_end(&err);
    parsed.out = capture_end(&out);
    return parsed;
}
#define PARSE(step, ...) parse((step), (const char *const[]){__VA_ARGS__, NULL})
#define PARSE_NOTHING(step) parse((step), (const char *const[]){NULL})

static void parsed_free(struct parsed *parsed)
{
    free(parsed->out);
    free(parsed->err);
}

/* Accepted, silently: the options as parsed. */
static struct options accepted(struct parsed parsed, const char *what)
{
    cr_assert_eq(parsed.status, OPTIONS_RUN, "%s: refused (%d): %s", what, parsed.status,
                 parsed.err);
    cr_expect_str_empty(parsed.out, "%s: stdout: %s", what, parsed.out);
    cr_expect_str_empty(parsed.err, "%s: stderr: %s", what, parsed.err);
    struct options options = parsed.options;
    parsed_free(&parsed);
    return options;
}
#define ACCEPTED(step, ...) accepted(PARSE(step, __VA_ARGS__), #__VA_ARGS__)

/* ---- the defaults ------------------------------------------------------------------------ */

Test(options, no_arguments_give_the_documented_defaults)
{
    struct options o = accepted(PARSE_NOTHING(&PLAIN), "no arguments");
    cr_expect_eq(o.n, (size_t)32 * 1024 * 1024, "the documents' N = 32*1024*1024, not %zu", o.n);
    cr_expect_eq(o.n_last, o.n, "one size");
    cr_expect_eq(o.pattern.kind, PATTERN_UNIFORM);
    cr_expect_eq(o.seed, 2026);
    cr_expect_eq(o.iters, 20);
    cr_expect_eq(o.warmup, 3);
    cr_expect_eq(o.buffers, 4);
    cr_expect_eq(o.threads, PLAIN.default_threads);
    cr_expect_eq(o.blocks, 0, "the step chooses its grid");
    cr_expect_eq(o.finish, FINISH_GPU);
    cr_expect_eq(o.flush, FLUSH_READ, "the L2 is emptied by reading unless --flush write");
    cr_expect_eq(o.variant, 0);
    cr_expect(o.cub, "CUB is timed beside the step unless --no-cub");
    cr_expect_not(o.check || o.csv || o.quiet);
    for (int e = 0; e < MAX_EXTRA_OPTIONS; e++) cr_expect_null(o.extra[e], "extra %d", e);
}

Test(options, default_threads_are_the_steps_own)
{
    cr_expect_eq(accepted(PARSE_NOTHING(&ONE_LAUNCH), "step12").threads, 512);
    cr_expect_eq(accepted(PARSE_NOTHING(&GRID), "step07").threads, 256);
}

/* A step that picks its own block size where none is given (step13 for large grids) must know
 * whether --threads was on the command line, even when it names the default. */
Test(options, threads_given_says_whether_threads_was_on_the_command_line)
{
    cr_expect_not(accepted(PARSE_NOTHING(&ONE_LAUNCH), "no arguments").threads_given);
    cr_expect_not(ACCEPTED(&ONE_LAUNCH, "-n", "5").threads_given, "-n 5");
    struct options o = ACCEPTED(&ONE_LAUNCH, "--threads", "512");
    cr_expect(o.threads_given, "--threads 512, the default, is still given");
    cr_expect_eq(o.threads, 512);
    cr_expect(ACCEPTED(&ONE_LAUNCH, "--threads=1024").threads_given, "--threads=1024");
}

/* ---- -n ----------------------------------------------------------------------------------- */

Test(options, n_takes_counts_powers_and_suffixes)
{
    static const struct {
        const char *text;
        size_t n;
    } FORMS[] = {
        {"1000003", 1000003},
        {"0", 0},
        {"1", 1},
        {"2^25", (size_t)1 << 25},
        {"32M", (size_t)1 << 25},
        {"4K", 4096},
        {"1G", (size_t)1 << 30},
        {"2^32", (size_t)1 << 32},
        {"4294967296", (size_t)1 << 32},
    };
    for (size_t i = 0; i < sizeof FORMS / sizeof FORMS[0]; i++) {
        struct options o = ACCEPTED(&PLAIN, "-n", FORMS[i].text);
        cr_expect_eq(o.n, FORMS[i].n, "-n %s: %zu", FORMS[i].text, o.n);
        cr_expect_eq(o.n_last, FORMS[i].n, "-n %s is one size", FORMS[i].text);
    }
}

Test(options, n_range_runs_from_a_to_b)
{
    struct options o = ACCEPTED(&PLAIN, "-n", "2^10..2^12");
    cr_expect_eq(o.n, 1024);
    cr_expect_eq(o.n_last, 4096);
    o = ACCEPTED(&PLAIN, "-n", "1..1");
    cr_expect(o.n == 1 && o.n_last == 1, "%zu..%zu", o.n, o.n_last);
    o = ACCEPTED(&PLAIN, "-n", "1K..2^32");
    cr_expect(o.n == 1024 && o.n_last == (size_t)1 << 32, "%zu..%zu", o.n, o.n_last);
}

Test(options, the_last_n_given_wins)
{
    cr_expect_eq(ACCEPTED(&PLAIN, "-n", "5", "-n", "7").n, 7);
}

Test(options, long_options_also_take_their_value_after_an_equals_sign)
{
    struct options o = ACCEPTED(&GRID, "--pattern=ones", "--threads=64", "--label=x");
    cr_expect_eq(o.pattern.kind, PATTERN_ONES);
    cr_expect_eq(o.threads, 64);
    cr_expect_str_eq(o.extra[LABEL_EXTRA], "x");
}

/* ---- the other shared options ----------------------------------------------------------- */

Test(options, threads_take_every_power_of_two_in_the_steps_range)
{
    for (unsigned t = GRID.min_threads; t <= GRID.max_threads; t *= 2) {
        char text[16];
        snprintf(text, sizeof text, "%u", t);
        cr_expect_eq(ACCEPTED(&GRID, "--threads", text).threads, t, "--threads %s", text);
    }
}

Test(options, every_pattern_is_accepted)
{
    static const struct {
        const char *text;
        enum pattern_kind kind;
    } PATTERNS[] = {
        {"uniform", PATTERN_UNIFORM}, {"ones", PATTERN_ONES}, {"real", PATTERN_REAL},
        {"normal", PATTERN_NORMAL},   {"wide", PATTERN_WIDE}, {"cancel", PATTERN_CANCEL},
    };
    for (size_t i = 0; i < sizeof PATTERNS / sizeof PATTERNS[0]; i++)
        cr_expect_eq(ACCEPTED(&PLAIN, "--pattern", PATTERNS[i].text).pattern.kind, PATTERNS[i].kind,
                     "--pattern %s", PATTERNS[i].text);
    struct options o = ACCEPTED(&PLAIN, "--pattern", "onehot:last", "-n", "1");
    cr_expect(o.pattern.kind == PATTERN_ONEHOT && o.pattern.onehot_last);
    o = ACCEPTED(&PLAIN, "--pattern", "onehot:5", "-n", "6");
    cr_expect(o.pattern.kind == PATTERN_ONEHOT && !o.pattern.onehot_last &&
              o.pattern.onehot_index == 5);
}

Test(options, onehot_is_checked_against_n_after_every_option)
{
    /* -n after --pattern still counts: the hot element is checked at the end. */
    cr_expect_eq(ACCEPTED(&PLAIN, "--pattern", "onehot:5", "-n", "6").n, 6);
    cr_expect_eq(ACCEPTED(&PLAIN, "-n", "6", "--pattern", "onehot:5").n, 6);
    cr_expect_eq(ACCEPTED(&PLAIN, "--pattern", "onehot:0").n, (size_t)1 << 25);
}

Test(options, numbers_at_the_ends_of_their_ranges)
{
    struct options o = ACCEPTED(&GRID, "--seed", "18446744073709551615", "--iters", "100000",
                                "--warmup", "0", "--buffers", "8", "--blocks", "2147483647");
    cr_expect_eq(o.seed, UINT64_MAX);
    cr_expect_eq(o.iters, 100000);
    cr_expect_eq(o.warmup, 0);
    cr_expect_eq(o.buffers, MAX_BUFFERS);
    cr_expect_eq(o.blocks, (unsigned)INT_MAX);
    o = ACCEPTED(&GRID, "--seed", "0", "--iters", "1", "--warmup", "100000", "--buffers", "1",
                 "--blocks", "1");
    cr_expect(o.seed == 0 && o.iters == 1 && o.warmup == 100000 && o.buffers == 1 && o.blocks == 1);
}

Test(options, finish_flags_and_variants)
{
    cr_expect_eq(ACCEPTED(&PLAIN, "--finish", "cpu").finish, FINISH_CPU);
    cr_expect_eq(ACCEPTED(&PLAIN, "--finish", "cpu", "--finish", "gpu").finish, FINISH_GPU);
    cr_expect_eq(ACCEPTED(&ONE_LAUNCH, "--flush", "write").flush, FLUSH_WRITE);
    cr_expect_eq(ACCEPTED(&PLAIN, "--flush", "write", "--flush", "read").flush, FLUSH_READ);
    struct options o = ACCEPTED(&PLAIN, "--check", "--csv", "--quiet", "--no-cub");
    cr_expect(o.check && o.csv && o.quiet && !o.cub);
    cr_expect_eq(ACCEPTED(&GRID, "--variant", "thread0").variant, 1);
    cr_expect_eq(ACCEPTED(&GRID, "--variant", "tree").variant, 0);
    cr_expect_eq(ACCEPTED(&ONE_LAUNCH, "--variant", "atomic-add").variant, 1);
}

Test(options, a_steps_own_options_land_in_extra)
{
    struct options o = ACCEPTED(&GRID, "--clock");
    cr_expect_str_eq(o.extra[CLOCK_EXTRA], "", "a flag given reads as \"\"");
    cr_expect_null(o.extra[LABEL_EXTRA]);
    o = ACCEPTED(&GRID, "--label", "mine");
    cr_expect_null(o.extra[CLOCK_EXTRA]);
    cr_expect_str_eq(o.extra[LABEL_EXTRA], "mine");
}

/* ---- --help ------------------------------------------------------------------------------- */

static char *help_text(const struct step_info *step, const char *flag)
{
    struct parsed parsed = PARSE(step, flag);
    cr_expect_eq(parsed.status, EXIT_CORRECT, "%s %s returned %d", step->name, flag, parsed.status);
    cr_expect_str_empty(parsed.err, "%s %s: stderr: %s", step->name, flag, parsed.err);
    free(parsed.err);
    return parsed.out;
}

Test(options, help_prints_usage_on_stdout_and_exits_0)
{
    static const char *const FLAGS[] = {"--help", "-h"};
    for (int f = 0; f < 2; f++) {
        char *text = help_text(&GRID, FLAGS[f]);
        cr_expect(starts_with(text, "usage: step07/run [options]\n"), "%s:\n%s", FLAGS[f], text);
        cr_expect_not_null(strstr(text, GRID.title), "%s", text);
        cr_expect_not_null(strstr(text, "64..1024"), "the step's thread range:\n%s", text);
        cr_expect_not_null(strstr(text, "--blocks"), "%s", text);
        cr_expect_not_null(strstr(text, "--finish"), "%s", text);
        cr_expect_not_null(strstr(text, "thread0"), "%s", text);
        cr_expect_not_null(strstr(text, "--clock"), "%s", text);
        cr_expect_not_null(strstr(text, "--label"), "%s", text);
        cr_expect_not_null(strstr(text, "exit codes"), "%s", text);
        free(text);
    }
}

Test(options, help_lists_only_what_the_step_offers)
{
    char *plain = help_text(&PLAIN, "--help"), *one_launch = help_text(&ONE_LAUNCH, "--help");
    cr_expect_null(strstr(plain, "--blocks"), "%s", plain);
    cr_expect_null(strstr(plain, "--variant"), "%s", plain);
    cr_expect_not_null(strstr(plain, "--finish"), "%s", plain);
    cr_expect_null(strstr(one_launch, "--finish"), "%s", one_launch);
    cr_expect_not_null(strstr(one_launch, "128..1024"), "%s", one_launch);
    cr_expect_not_null(strstr(one_launch, "atomic-add"), "%s", one_launch);
    free(plain);
    free(one_launch);
}

/* A step's own words for --threads replace the shared words, the range and the default. */
Test(options, help_gives_the_steps_own_words_for_threads)
{
    struct step_info own = ONE_LAUNCH;
    own.threads_about = "blocks of T threads, chosen by n unless given";
    char *text = help_text(&own, "--help");
    cr_expect_not_null(
        strstr(text, "--threads T    blocks of T threads, chosen by n unless given\n"), "%s", text);
    cr_expect_null(strstr(text, "128..1024"), "the shared range is gone:\n%s", text);
    free(text);
}

/* ---- bad command lines -------------------------------------------------------------------- */

struct bad_line {
    const struct step_info *step;
    const char *args[4]; /* up to the first NULL */
    const char *named;   /* stderr must contain this */
};

static const struct bad_line BAD_LINES[] = {
    {&PLAIN, {"-n", "abc"}, "'abc'"},
    {&PLAIN, {"-n", "2^33"}, "'2^33'"},
    {&PLAIN, {"-n", "4294967297"}, "'4294967297'"},
    {&PLAIN, {"-n", "-1"}, "'-1'"},
    {&PLAIN, {"-n", ""}, "''"},
    {&PLAIN, {"-n", "1.5M"}, "'1.5M'"},
    {&PLAIN, {"-n", "0..4"}, "'0..4'"},
    {&PLAIN, {"-n", "8..4"}, "'8..4'"},
    {&PLAIN, {"-n", "1..2^33"}, "'1..2^33'"},
    {&PLAIN, {"-n", "1.."}, "'1..'"},
    {&PLAIN, {"-n", "..4"}, "'..4'"},
    {&PLAIN, {"-n"}, "'-n'"},
    {&PLAIN, {"-n=5"}, "'-n=5'"},
    {&PLAIN, {"--threads", "48"}, "'48'"},
    {&PLAIN, {"--threads", "16"}, "'16'"},
    {&PLAIN, {"--threads", "2048"}, "'2048'"},
    {&PLAIN, {"--threads", "0"}, "'0'"},
    {&PLAIN, {"--threads", "256x"}, "'256x'"},
    {&GRID, {"--threads", "32"}, "'32'"},
    {&ONE_LAUNCH, {"--threads", "64"}, "'64'"},
    {&PLAIN, {"--pattern", "onehot:x"}, "'onehot:x'"},
    {&PLAIN, {"--pattern", "zeros"}, "'zeros'"},
    {&PLAIN, {"--pattern", "onehot:5", "-n", "5"}, "n = 5"},
    {&PLAIN, {"-n", "0", "--pattern", "onehot:last"}, "n = 0"},
    {&PLAIN, {"--seed", "-1"}, "'-1'"},
    {&PLAIN, {"--seed", "18446744073709551616"}, "'18446744073709551616'"},
    {&PLAIN, {"--iters", "0"}, "'0'"},
    {&PLAIN, {"--iters", "100001"}, "'100001'"},
    {&PLAIN, {"--iters", "+5"}, "'+5'"},
    {&PLAIN, {"--warmup", "-1"}, "'-1'"},
    {&PLAIN, {"--buffers", "0"}, "'0'"},
    {&PLAIN, {"--buffers", "9"}, "'9'"},
    {&PLAIN, {"--finish", "gpu2"}, "'gpu2'"},
    {&PLAIN, {"--flush", "dirty"}, "'dirty'"},
    {&PLAIN, {"--blocks", "3"}, "'--blocks'"},
    {&PLAIN, {"--variant", "tree"}, "'--variant'"},
    {&PLAIN, {"--clock"}, "'--clock'"},
    {&GRID, {"--blocks", "0"}, "'0'"},
    {&GRID, {"--blocks", "2147483648"}, "'2147483648'"},
    {&GRID, {"--variant", "nope"}, "'nope'"},
    {&GRID, {"--label"}, "'--label'"},
    {&ONE_LAUNCH, {"--finish", "cpu"}, "'--finish'"},
    {&ONE_LAUNCH, {"--blocks", "3"}, "'--blocks'"},
    {&PLAIN, {"--bogus"}, "'--bogus'"},
    {&PLAIN, {"-x"}, "'-x'"},
    {&PLAIN, {"stray"}, "'stray'"},
    {&PLAIN, {"-n", "5", "stray"}, "'stray'"},
};

Test(options, every_bad_command_line_exits_2_naming_the_value_and_help)
{
    for (size_t i = 0; i < sizeof BAD_LINES / sizeof BAD_LINES[0]; i++) {
        const struct bad_line *bad = &BAD_LINES[i];
        const char *args[5] = {NULL};
        char help[64];
        memcpy(args, bad->args, sizeof bad->args);
        snprintf(help, sizeof help, "%s/run --help", bad->step->name);
        struct parsed parsed = parse(bad->step, args);
        cr_expect_eq(parsed.status, EXIT_USAGE, "%s %s %s: returned %d", bad->step->name,
                     bad->args[0], bad->args[1] ? bad->args[1] : "", parsed.status);
        cr_expect_not_null(strstr(parsed.err, bad->named), "%s %s: stderr does not name %s:\n%s",
                           bad->step->name, bad->args[0], bad->named, parsed.err);
        cr_expect_not_null(strstr(parsed.err, help), "%s %s: no '%s' on stderr:\n%s",
                           bad->step->name, bad->args[0], help, parsed.err);
        cr_expect_str_empty(parsed.out, "%s %s: stdout: %s", bad->step->name, bad->args[0],
                            parsed.out);
        parsed_free(&parsed);
    }
}

/* ---- parse_size ------------------------------------------------------------------------- */

Test(parse_size, accepts_counts_powers_of_two_and_binary_suffixes)
{
    static const struct {
        const char *text;
        size_t value;
    } GOOD[] = {
        {"0", 0},
        {"1", 1},
        {"1000003", 1000003},
        {"2^0", 1},
        {"2^25", (size_t)1 << 25},
        {"2^62", (size_t)1 << 62},
        {"0K", 0},
        {"1K", 1024},
        {"4K", 4096},
        {"32M", (size_t)32 << 20},
        {"1G", (size_t)1 << 30},
        {"17179869183G", (((size_t)1 << 34) - 1) << 30},
        {"18446744073709551614", (size_t)UINT64_MAX - 1},
    };
    for (size_t i = 0; i < sizeof GOOD / sizeof GOOD[0]; i++) {
        size_t value = 12345;
        cr_expect(parse_size(GOOD[i].text, &value), "'%s' refused", GOOD[i].text);
        cr_expect_eq(value, GOOD[i].value, "'%s': %zu", GOOD[i].text, value);
    }
}

Test(parse_size, refuses_everything_else)
{
    static const char *const BAD[] = {
        "",
        "K",
        "-1",
        "+1",
        " 1",
        "1 ",
        "1k",
        "1KB",
        "1T",
        "1.5",
        "1e6",
        "0x10",
        "3^2",
        "2^",
        "2^x",
        "2^-1",
        "2^+1",
        "2^ 3",
        "2^63",
        "2^64",
        "17179869184G",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        size_t value = 0;
        cr_expect_not(parse_size(BAD[i], &value), "'%s' accepted as %zu", BAD[i], value);
    }
}
