/* step14_generic's program, run as a student runs it. Without a GPU: its own options --op,
 * --type and --accumulate, refused with exit code 2 and a message that names the bad value;
 * --help, which lists them; a machine that shows it no GPU (exit 3). With a GPU: --check over
 * every (op, type), and over half and bf16 alone; each pair's verdict at a prime n; the empty
 * input's identities; a CSV row with two values; document 001's dot product with its launch
 * and its CPU finish; half and bf16 sums exact while the data allow; and a bf16 sum kept in
 * bf16, exact as a tree of equal terms and stuck as a long chain. Without a GPU those are
 * skipped with a message that names step14, never passed. The tests run from the repository
 * root after `make` (`make test` does both). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "toolbox.h"

/* step14 as the lesson describes it: 32 .. 1024 threads, document 001's --finish cpu and
 * --blocks, no variants (--op and --type choose the instantiation). */
static const struct ladder_step STEP14 = {.name = "step14",
                                          .directory = "step14_generic",
                                          .min_threads = 32,
                                          .max_threads = 1024,
                                          .host_finish = true,
                                          .grid_size = true};
static const char *const OPS[] = {"sum", "min", "max", "sumsq", "dot"};
static const char *const TYPES[] = {"int", "float", "double", "half", "bf16"};
enum { OP_COUNT = sizeof OPS / sizeof OPS[0], TYPE_COUNT = sizeof TYPES / sizeof TYPES[0] };
static const char CHECK_PASSED[] = "check: all ";
/* Below the real count (every pair whose type takes the case's data: 324,575 on the matrix of
 * common/check.c, docs/results/checks.txt), far above a matrix that ran one pair: a --check
 * that skipped most pairs fails. One low-precision type alone: its 5 operators on every case
 * it takes (64,435 for half, 65,785 for bf16). */
enum { FEWEST_CHECK_CASES = 100000, FEWEST_ONE_TYPE_CASES = 50000 };
enum { LINE = 512, CHECK_TIMEOUT_S = 1800, RUN_TIMEOUT_S = 900 };

#define RUN(gpus, ...) STEP_RUN(&STEP14, (gpus), __VA_ARGS__)

/* Line `index` (0: the first) of text, without its newline, into line[LINE] ("" past the
 * end). */
static char *line_at(const char *text, int index, char *line)
{
    for (int i = 0; i <= index; i++)
        if (!next_line(&text, line, LINE)) return strcpy(line, "");
    return line;
}

/* ---- without a GPU ------------------------------------------------------------------------ */

Test(step14, help_lists_op_and_type_with_their_values)
{
    struct finished o = RUN(GPUS_HIDDEN, "--help");
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "--help: exit %d", o.exit_code);
    cr_expect(strncmp(o.out, "usage: step14/run [options]\n",
                      strlen("usage: step14/run [options]\n")) == 0,
              "--help:\n%s", o.out);
    cr_expect(strstr(o.out, "--op O") != NULL && strstr(o.out, "--type T") != NULL, "--help:\n%s",
              o.out);
    for (int k = 0; k < OP_COUNT; k++)
        cr_expect(strstr(o.out, OPS[k]) != NULL, "--help lacks %s:\n%s", OPS[k], o.out);
    for (int k = 0; k < TYPE_COUNT; k++)
        cr_expect(strstr(o.out, TYPES[k]) != NULL, "--help lacks %s:\n%s", TYPES[k], o.out);
    cr_expect(strstr(o.out, "--accumulate A") != NULL &&
                  strstr(o.out, "half and bf16 sums in float"),
              "--help does not say how half and bf16 accumulate:\n%s", o.out);
    cr_expect(strstr(o.out, "--finish") != NULL && strstr(o.out, "--blocks") != NULL,
              "--help lacks document 001's --finish or --blocks:\n%s", o.out);
    cr_expect_str_empty(o.err, "--help: stderr: %s", o.err);
    finished_free(&o);
}

/* A bad command line, and what the message must quote. */
struct bad_line {
    const char *words[7];
    const char *named;
};
static const struct bad_line BAD_LINES[] = {
    {{"--op", "bogus"}, "'bogus'"},
    {{"--op", "SUM"}, "'SUM'"},
    {{"--op="}, "''"},
    {{"--op"}, "'--op'"},
    {{"--type", "long"}, "'long'"},
    {{"--type", "fp16"}, "'fp16'"},
    {{"--type", "half", "--pattern", "wide"}, "'wide'"},
    {{"--type", "half", "--pattern", "cancel"}, "'cancel'"},
    {{"--accumulate", "double"}, "'double'"},
    {{"--accumulate", "input"}, "--accumulate input"},
    {{"--op", "dot", "--type", "bf16", "--accumulate", "input"}, "--accumulate input"},
    {{"--check", "--type", "half", "--accumulate", "input"}, "--accumulate input"},
    {{"--type"}, "'--type'"},
    {{"--op", "dot", "--type", "char"}, "'char'"},
    {{"--type", "int", "--pattern", "real"}, "'real'"},
    {{"--type", "int", "--pattern", "cancel"}, "'cancel'"},
};

Test(step14, bad_op_and_type_exit_2_naming_the_value)
{
    for (size_t b = 0; b < sizeof BAD_LINES / sizeof BAD_LINES[0]; b++) {
        const struct bad_line *bad = &BAD_LINES[b];
        /* GPUs hidden: the command line must be refused before any device is looked at */
        struct finished o = step_run(&STEP14, GPUS_HIDDEN, bad->words);
        const char *value = bad->words[1] ? bad->words[1] : "";
        cr_expect_eq(o.exit_code, EXIT_USAGE, "%s %s: exit %d, not %d", bad->words[0], value,
                     o.exit_code, EXIT_USAGE);
        cr_expect(strstr(o.err, bad->named) != NULL, "%s %s: stderr does not name %s:\n%s",
                  bad->words[0], value, bad->named, o.err);
        cr_expect(strstr(o.err, "step14/run --help") != NULL,
                  "%s %s: stderr does not point to --help:\n%s", bad->words[0], value, o.err);
        cr_expect_str_empty(o.out, "%s %s: a usage error printed on stdout:\n%s", bad->words[0],
                            value, o.out);
        finished_free(&o);
    }
}

/* --check has its own patterns: --type int beside a real-valued --pattern is no error there. */
Test(step14, check_takes_type_int_whatever_the_pattern)
{
    struct finished o = RUN(GPUS_HIDDEN, "--check", "--type", "int", "--pattern", "real");
    cr_expect_eq(o.exit_code, EXIT_ENVIRONMENT, "exit %d (a usage error is 2):\n%s", o.exit_code,
                 o.err);
    finished_free(&o);
}

Test(step14, hidden_gpus_exit_3_saying_no_cuda_device)
{
    const char *const *lines[] = {
        (const char *const[]){NULL}, (const char *const[]){"--check", NULL},
        (const char *const[]){"--op", "dot", "--type", "double", "-n", "7", NULL},
        (const char *const[]){"--csv", "--op", "sumsq", "--type", "int", NULL}};
    for (size_t l = 0; l < sizeof lines / sizeof lines[0]; l++) {
        struct finished o = step_run(&STEP14, GPUS_HIDDEN, lines[l]);
        const char *what = lines[l][0] ? lines[l][0] : "(no options)";
        cr_expect_eq(o.exit_code, EXIT_ENVIRONMENT, "%s: exit %d, not %d", what, o.exit_code,
                     EXIT_ENVIRONMENT);
        cr_expect(strstr(o.err, "step14: no CUDA device") != NULL, "%s: stderr:\n%s", what, o.err);
        cr_expect_str_empty(o.out, "%s: stdout (not even a CSV header): %s", what, o.out);
        finished_free(&o);
    }
}

/* ---- on a GPU ----------------------------------------------------------------------------- */

Test(step14, check_passes_for_every_op_and_type, .timeout = CHECK_TIMEOUT_S)
{
    require_gpu(STEP14.name);
    struct finished o = RUN(GPUS_VISIBLE, "--check");
    const char *summary = strstr(o.out, CHECK_PASSED);
    long cases = summary != NULL ? strtol(summary + strlen(CHECK_PASSED), NULL, 10) : 0;
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "--check: exit %d\n%s%s", o.exit_code, o.out, o.err);
    cr_expect(summary != NULL && strchr(summary, '\n') == summary + strlen(summary) - 1,
              "no passing summary line '%s...' at the end of stdout:\n%s", CHECK_PASSED, o.out);
    cr_expect_geq(cases, FEWEST_CHECK_CASES, "only %ld cases: not every (op, type) ran:\n%s", cases,
                  o.out);
    cr_expect(strstr(o.out, "FAILED") == NULL, "failing cases:\n%s", o.out);
    finished_free(&o);
}

/* --op and --type narrow --check to the pairs they name. */
Test(step14, check_of_one_pair_runs_fewer_cases, .timeout = CHECK_TIMEOUT_S)
{
    require_gpu(STEP14.name);
    struct finished o = RUN(GPUS_VISIBLE, "--check", "--op", "sumsq", "--type", "int");
    const char *summary = strstr(o.out, CHECK_PASSED);
    long cases = summary != NULL ? strtol(summary + strlen(CHECK_PASSED), NULL, 10) : 0;
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "exit %d\n%s%s", o.exit_code, o.out, o.err);
    cr_expect(cases > 0 && cases < FEWEST_CHECK_CASES, "%ld cases for one pair:\n%s", cases, o.out);
    finished_free(&o);
}

/* A prime n: partial rounds, a partial last block, a short tail, for every instantiation. */
Test(step14, every_op_and_type_is_correct, .timeout = RUN_TIMEOUT_S)
{
    require_gpu(STEP14.name);
    for (int k = 0; k < OP_COUNT * TYPE_COUNT; k++) {
        const char *op = OPS[k / TYPE_COUNT], *type = TYPES[k % TYPE_COUNT];
        char start[LINE];
        struct finished o = RUN(GPUS_VISIBLE, "--op", op, "--type", type, "--quiet", "-n",
                                "1000003");
        snprintf(start, sizeof start, "step14 %s:%s n=1000003 pattern=uniform result=", op, type);
        cr_expect_eq(o.exit_code, EXIT_CORRECT, "%s:%s: exit %d\n%s%s", op, type, o.exit_code,
                     o.out, o.err);
        cr_expect(line_count(o.out) == 1 && strncmp(o.out, start, strlen(start)) == 0 &&
                      strstr(o.out, " CORRECT\n") != NULL,
                  "%s:%s --quiet: not one CORRECT line starting '%s':\n%s", op, type, start, o.out);
        finished_free(&o);
    }
}

/* No element: the operator's identity, 0 for the sums, the type's extremes for min and max. */
Test(step14, an_empty_input_gives_each_identity, .timeout = RUN_TIMEOUT_S)
{
    static const struct {
        const char *op, *type, *result;
    } EMPTY[] = {{"sum", "int", "result=0 "},           {"sumsq", "float", "result=0;0 "},
                 {"dot", "double", "result=0 "},        {"min", "int", "result=2147483647 "},
                 {"max", "int", "result=-2147483648 "}, {"min", "float", "result=inf "},
                 {"max", "double", "result=-inf "},     {"min", "half", "result=inf "},
                 {"dot", "bf16", "result=0 "}};
    require_gpu(STEP14.name);
    for (size_t e = 0; e < sizeof EMPTY / sizeof EMPTY[0]; e++) {
        struct finished o = RUN(GPUS_VISIBLE, "--op", EMPTY[e].op, "--type", EMPTY[e].type, "-n",
                                "0", "--quiet", "--no-cub");
        cr_expect_eq(o.exit_code, EXIT_CORRECT, "%s:%s -n 0: exit %d\n%s", EMPTY[e].op,
                     EMPTY[e].type, o.exit_code, o.err);
        cr_expect(strstr(o.out, EMPTY[e].result) != NULL && strstr(o.out, " CORRECT\n") != NULL,
                  "%s:%s -n 0: no '%s' or not CORRECT:\n%s", EMPTY[e].op, EMPTY[e].type,
                  EMPTY[e].result, o.out);
        finished_free(&o);
    }
}

/* The shared CSV header; sumsq's result and expected columns hold "sum;sum of squares". */
Test(step14, csv_has_the_shared_header_and_two_values_for_sumsq, .timeout = RUN_TIMEOUT_S)
{
    char line[LINE];
    require_gpu(STEP14.name);
    struct finished o = RUN(GPUS_VISIBLE, "--csv", "--op", "sumsq", "--type", "int", "-n",
                            "2^10..2^12");
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "exit %d\n%s", o.exit_code, o.err);
    cr_expect_eq(line_count(o.out), 4, "a header and three rows:\n%s", o.out);
    cr_expect_str_eq(line_at(o.out, 0, line), REPORT_CSV_HEADER);
    for (int row = 1; row <= 3; row++) {
        line_at(o.out, row, line);
        cr_expect(strncmp(line, "step14,sumsq:int,", strlen("step14,sumsq:int,")) == 0,
                  "row %d: %s", row, line);
        cr_expect(strchr(line, ';') != NULL, "row %d has no 'sum;squares' value: %s", row, line);
        cr_expect(strstr(line, ",0;0,0;0,1,") != NULL,
                  "row %d: not exact (error 0;0, bound 0;0) and ok: %s", row, line);
        cr_expect(strstr(line, ",\"reduce_any<SumAndSquares<long long>, Elements<int>>\",last "
                               "block,") != NULL,
                  "row %d: not the kernel and finish that ran: %s", row, line);
    }
    finished_free(&o);
}

/* Document 001: 32 blocks of 256 threads, a[i] * b[i], the block results added on the CPU. */
Test(step14, document_001s_dot_product_runs_with_its_launch_and_cpu_finish,
     .timeout = RUN_TIMEOUT_S)
{
    require_gpu(STEP14.name);
    struct finished o = RUN(GPUS_VISIBLE, "--op", "dot", "--blocks", "32", "--threads", "256",
                            "--finish", "cpu");
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "exit %d\n%s%s", o.exit_code, o.out, o.err);
    cr_expect(strstr(o.out, "32 blocks x 256 threads") != NULL,
              "the launch is not document 001's:\n%s", o.out);
    cr_expect(strstr(o.out, "the host merges the partials (document 001)") != NULL,
              "not the host finish:\n%s", o.out);
    cr_expect(strstr(o.out, "\nkernel     reduce_any<Sum<float>, Products<float>>\nfinish     "
                            "host\n") != NULL,
              "not the kernel and finish that ran:\n%s", o.out);
    cr_expect(strstr(o.out, "-> CORRECT") != NULL, "the verdict:\n%s", o.out);
    finished_free(&o);
}

/* --check of one low-precision type: its five operators on every case it takes. */
static void expect_check_of_one_type_passes(const char *type)
{
    struct finished o = RUN(GPUS_VISIBLE, "--check", "--type", type);
    const char *summary = strstr(o.out, CHECK_PASSED);
    long cases = summary != NULL ? strtol(summary + strlen(CHECK_PASSED), NULL, 10) : 0;
    cr_expect_eq(o.exit_code, EXIT_CORRECT, "--check --type %s: exit %d\n%s%s", type, o.exit_code,
                 o.out, o.err);
    cr_expect_geq(cases, FEWEST_ONE_TYPE_CASES, "--check --type %s: only %ld cases:\n%s", type,
                  cases, o.out);
    cr_expect(strstr(o.out, "FAILED") == NULL, "--check --type %s: failing cases:\n%s", type,
              o.out);
    finished_free(&o);
}

Test(step14, check_passes_for_half, .timeout = CHECK_TIMEOUT_S)
{
    require_gpu(STEP14.name);
    expect_check_of_one_type_passes("half");
}

Test(step14, check_passes_for_bf16, .timeout = CHECK_TIMEOUT_S)
{
    require_gpu(STEP14.name);
    expect_check_of_one_type_passes("bf16");
}

/* uniform (integers 0..99, exact in half and bf16) summed in float: exact while sum|x| <= 2^24
 * (2^16 elements: about 3.2e6), within a non-zero bound beyond (2^20: about 5.2e7). */
Test(step14, half_and_bf16_sums_are_exact_while_the_float_sum_is, .timeout = RUN_TIMEOUT_S)
{
    static const char *const LOW[] = {"half", "bf16"};
    char line[LINE], row[LINE], start[LINE], *fields[CSV_COLUMNS];
    require_gpu(STEP14.name);
    for (int t = 0; t < 2; t++) {
        struct finished o = RUN(GPUS_VISIBLE, "--csv", "--type", LOW[t], "--no-cub", "-n",
                                "2^16..2^20");
        cr_expect_eq(o.exit_code, EXIT_CORRECT, "%s: exit %d\n%s", LOW[t], o.exit_code, o.err);
        cr_expect_eq(line_count(o.out), 6, "%s: a header and five rows:\n%s", LOW[t], o.out);
        snprintf(start, sizeof start, "step14,sum:%s,65536,uniform,", LOW[t]);
        snprintf(row, sizeof row, "%s", line_at(o.out, 1, line)); /* csv_split cuts line */
        cr_expect(starts_with(row, start) && csv_split(line, fields) &&
                      strcmp(fields[COL_ERROR], "0") == 0 && strcmp(fields[COL_BOUND], "0") == 0 &&
                      strcmp(fields[COL_OK], "1") == 0,
                  "%s at 2^16: not exact (error 0, bound 0, ok 1): %s", LOW[t], row);
        snprintf(row, sizeof row, "%s", line_at(o.out, 5, line));
        cr_expect(csv_split(line, fields) && strtod(fields[COL_BOUND], NULL) > 0 &&
                      strcmp(fields[COL_OK], "1") == 0,
                  "%s at 2^20: not within a non-zero bound: %s", LOW[t], row);
        finished_free(&o);
    }
}

/* 2^20 ones summed in bf16 (8 significant bits: every integer up to 256, then every other).
 * 512 blocks of 256 threads give each thread 8 ones, and from there on every addition adds
 * two equal powers of two: exact. One block of 32 threads gives each thread 8192 rounds of
 * 4 ones: its sum grows by 4 until 1024, where the spacing of bf16 is 8 and 1024 + 4 is a
 * tie that rounds back to 1024 (even); 32 lanes of 1024 make 32768. No bound exists there
 * (its depth, 8204, times 2^-8 is above 1), so the run says WRONG. */
Test(step14, a_bf16_accumulator_is_exact_as_a_tree_and_stalls_as_a_chain, .timeout = RUN_TIMEOUT_S)
{
    static const char START[] = "step14 sum:bf16:accumulate-input n=1048576 pattern=ones ";
    require_gpu(STEP14.name);
    struct finished tree = RUN(GPUS_VISIBLE, "--type", "bf16", "--accumulate", "input", "--pattern",
                               "ones", "-n", "2^20", "--blocks", "512", "--threads", "256",
                               "--quiet", "--no-cub");
    cr_expect_eq(tree.exit_code, EXIT_CORRECT, "the tree: exit %d\n%s%s", tree.exit_code, tree.out,
                 tree.err);
    cr_expect(strncmp(tree.out, START, strlen(START)) == 0 &&
                  strstr(tree.out, "result=1048576 expected=1048576 CORRECT\n") != NULL,
              "the tree of equal terms is not exact:\n%s", tree.out);
    finished_free(&tree);
    struct finished chain = RUN(GPUS_VISIBLE, "--type", "bf16", "--accumulate", "input",
                                "--pattern", "ones", "-n", "2^20", "--blocks", "1", "--threads",
                                "32", "--no-cub");
    cr_expect_eq(chain.exit_code, EXIT_WRONG, "the chain: exit %d\n%s%s", chain.exit_code,
                 chain.out, chain.err);
    cr_expect(strstr(chain.out, "result     32768   expected 1048576") != NULL,
              "the chain did not stall at 32 x 1024:\n%s", chain.out);
    cr_expect(strstr(chain.out, "no bound exists") != NULL, "the check line:\n%s", chain.out);
    finished_free(&chain);
}
