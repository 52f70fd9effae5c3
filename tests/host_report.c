/* common/report.c on the host: what a run prints, in its three forms (human, --csv, --quiet),
 * for a step like the real ones on a device described here (no GPU is asked). The figures are
 * chosen so that each column's expected value is worked out by hand below. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

enum { N = 1 << 20, HOT = 1 };
/* gamma(2^23) in float is 1: the bound of a chain that deep is sum|x|, which passes 0. */
enum { DEPTH_WITHOUT_BOUND = 1 << 23 };
/* Far beyond the bound of 2^20 real elements (about 0.7): a wrong result. */
static const float FAR_OFF = 10.0f;
static const double MEDIAN_MS = 0.25, MIN_MS = 0.2, MAX_MS = 0.3, CUB_MEDIAN_MS = 0.5;
enum { RUNS = 20 };
/* 2^20 floats = 4194304 bytes in 0.25 ms: 16.777216 GB/s, 0.5005% of 3352.32 GB/s; CUB took
 * twice as long, so the step runs at 2x its speed. Printed with two decimals (four for the
 * ratio), so the row holds them to half a unit of the last digit. */
static const double GB_PER_S = 16.777216, PEAK_PCT = 100 * 16.777216 / 3352.32, RATIO = 2.0;
static const double TWO_DECIMALS = 0.005, FOUR_DECIMALS = 0.00005, NINE_DIGITS = 1e-8;
/* What a launcher records: a name with a comma inside its template arguments, as the CSV must
 * quote it. */
static const char KERNEL[] = "reduce_grid_stride<256, true>", FINISH[] = "launches";

static const struct step_info PLAIN = {
    .name = "step03",
    .title = "a step without variants",
    .min_threads = 32,
    .max_threads = 1024,
    .default_threads = 256,
    .host_finish = true,
};
static const struct step_info WITH_VARIANTS = {
    .name = "step07",
    .title = "a step with variants",
    .min_threads = 64,
    .max_threads = 1024,
    .default_threads = 256,
    .host_finish = true,
    .grid_size = true,
    .variants =
        (const struct variant[]){{"tree", "the tree"}, {"thread0", "thread 0 adds"}, {NULL, NULL}},
};
static const struct device_info DEVICE = {.name = "Test GPU",
                                          .sm_count = 132,
                                          .cc_major = 9,
                                          .cc_minor = 0,
                                          .peak_gb_per_s = 3352.32,
                                          .runtime_version = 13000};

/* A judged report of n elements of the options' pattern whose result is the exact sum plus
 * `off`, judged at `depth`. */
static struct report judged_at(const struct step_info *step, const struct options *options,
                               float off, bool cub_timed, unsigned depth)
{
    float *data = malloc(N * sizeof *data);
    cr_assert_not_null(data);
    pattern_fill(data, N, &options->pattern, options->seed);
    struct reference reference = reference_compute(data, N);
    free(data);
    struct report report = report_start(step, &DEVICE, options, N);
    report.result = (float)reference.sum + off;
    report.time = (struct timing){MEDIAN_MS, MIN_MS, MAX_MS, RUNS};
    if (cub_timed) report.cub = (struct timing){CUB_MEDIAN_MS, CUB_MEDIAN_MS, CUB_MEDIAN_MS, RUNS};
    report_judge(&report, &reference, depth);
    report.launched = (struct launched){KERNEL, FINISH};
    return report;
}

/* The same at the depth of a tree over the n elements. */
static struct report judged(const struct step_info *step, const struct options *options, float off,
                            bool cub_timed)
{
    return judged_at(step, options, off, cub_timed, tree_levels(N) + 1);
}

static char *printed(const struct report *report, const struct options *options)
{
    struct capture out;
    capture_begin(&out, STDOUT_FILENO);
    report_print(report, options);
    return capture_end(&out);
}

static void expect_near(const char *field, double expected, double tolerance, const char *column)
{
    char *end = NULL;
    double value = strtod(field, &end);
    cr_expect(end != field && *end == '\0', "%s: '%s' is not a number", column, field);
    cr_expect_leq(fabs(value - expected), tolerance, "%s: %s, expected %.9g", column, field,
                  expected);
}

/* ---- report_start and report_judge ---------------------------------------------------------- */

Test(report, start_names_the_variant_and_the_pattern)
{
    struct options options = {.variant = 1,
                              .pattern = {.kind = PATTERN_ONEHOT, .onehot_last = true}};
    struct report report = report_start(&WITH_VARIANTS, &DEVICE, &options, N);
    cr_expect_str_eq(report.variant, "thread0");
    cr_expect_str_eq(report.pattern, "onehot:last");
    cr_expect_eq(report.n, N);
    options.variant = 0;
    cr_expect_null(report_start(&PLAIN, &DEVICE, &options, N).variant,
                   "a step without variants has none");
}

Test(report, judge_is_exact_for_small_integer_sums_and_bounded_otherwise)
{
    struct options options = {.pattern = {.kind = PATTERN_ONES}};
    struct report right = judged(&PLAIN, &options, 0, true),
                  off = judged(&PLAIN, &options, -1, true);
    cr_expect(right.ok);
    cr_expect_eq(right.bound, 0.0, "2^20 ones must sum exactly");
    cr_expect_not(off.ok, "one element short");
    options.pattern.kind = PATTERN_REAL;
    struct report real = judged(&PLAIN, &options, 0, true);
    cr_expect(real.ok);
    cr_expect_eq(real.depth, tree_levels(N) + 1);
    cr_expect_eq(real.bound, error_bound(&real.reference, real.depth));
    cr_expect_gt(real.bound, 0.0);
}

/* ---- --csv ---------------------------------------------------------------------------------- */

Test(report, csv_header_names_every_column_in_order)
{
    struct capture out;
    capture_begin(&out, STDOUT_FILENO);
    report_csv_header();
    char *text = capture_end(&out);
    cr_expect_str_eq(text, REPORT_CSV_HEADER "\n");
    free(text);
}

Test(report, csv_row_holds_every_figure)
{
    struct options options = {
        .csv = true, .variant = 1, .seed = 2026, .pattern = {.kind = PATTERN_UNIFORM}};
    struct report report = judged(&WITH_VARIANTS, &options, 0, true);
    char *text = printed(&report, &options), *fields[CSV_COLUMNS];
    cr_assert_eq(line_count(text), 1, "%s", text);
    text[strcspn(text, "\n")] = '\0';
    cr_expect_not_null(strstr(text, ",\"reduce_grid_stride<256, true>\",launches,Test GPU,"),
                       "the kernel's name in quotes: %s", text);
    cr_assert(csv_split(text, fields), "not %d columns: %s", CSV_COLUMNS, text);
    cr_expect_str_eq(fields[COL_STEP], "step07");
    cr_expect_str_eq(fields[COL_VARIANT], "thread0");
    cr_expect_str_eq(fields[COL_N], "1048576");
    cr_expect_str_eq(fields[COL_PATTERN], "uniform");
    cr_expect_str_eq(fields[COL_FLUSH], "read");
    expect_near(fields[COL_RESULT], report.result, NINE_DIGITS * report.result, "result");
    expect_near(fields[COL_EXPECTED], report.reference.sum, 0, "expected");
    expect_near(fields[COL_ERROR], report.result - report.reference.sum, NINE_DIGITS, "error");
    expect_near(fields[COL_BOUND], report.bound, NINE_DIGITS * report.bound, "bound");
    cr_expect_str_eq(fields[COL_OK], "1");
    expect_near(fields[COL_MS_MEDIAN], MEDIAN_MS, 0, "ms_median");
    expect_near(fields[COL_MS_MIN], MIN_MS, 0, "ms_min");
    expect_near(fields[COL_GB_PER_S], GB_PER_S, TWO_DECIMALS, "gb_per_s");
    expect_near(fields[COL_PEAK_PCT], PEAK_PCT, TWO_DECIMALS, "peak_pct");
    expect_near(fields[COL_CUB_MS_MEDIAN], CUB_MEDIAN_MS, 0, "cub_ms_median");
    expect_near(fields[COL_RATIO_TO_CUB], RATIO, FOUR_DECIMALS, "ratio_to_cub");
    cr_expect_str_eq(fields[COL_KERNEL], KERNEL);
    cr_expect_str_eq(fields[COL_FINISH], FINISH);
    cr_expect_str_eq(fields[COL_DEVICE], "Test GPU");
    cr_expect_str_eq(fields[COL_CUDA], "13.0");
    free(text);
}

Test(report, csv_row_without_variant_or_cub_or_a_right_result)
{
    struct options options = {.csv = true, .pattern = {.kind = PATTERN_ONES}};
    struct report report = judged(&PLAIN, &options, HOT, false);
    char *text = printed(&report, &options), *fields[CSV_COLUMNS];
    text[strcspn(text, "\n")] = '\0';
    cr_assert(csv_split(text, fields), "%s", text);
    cr_expect_str_eq(fields[COL_VARIANT], "-");
    cr_expect_str_eq(fields[COL_OK], "0");
    expect_near(fields[COL_ERROR], HOT, 0, "error");
    expect_near(fields[COL_CUB_MS_MEDIAN], 0, 0, "cub_ms_median");
    expect_near(fields[COL_RATIO_TO_CUB], 0, 0, "ratio_to_cub");
    free(text);
}

/* A report whose program recorded nothing prints "-" in both places, never a guess. */
Test(report, a_launch_not_recorded_prints_a_dash)
{
    struct options options = {.csv = true, .pattern = {.kind = PATTERN_ONES}};
    struct report report = judged(&PLAIN, &options, 0, false);
    report.launched = (struct launched){NULL, NULL};
    char *text = printed(&report, &options), *fields[CSV_COLUMNS];
    text[strcspn(text, "\n")] = '\0';
    cr_assert(csv_split(text, fields), "%s", text);
    cr_expect_str_eq(fields[COL_KERNEL], "-");
    cr_expect_str_eq(fields[COL_FINISH], "-");
    free(text);
    options.csv = false;
    text = printed(&report, &options);
    cr_expect_not_null(strstr(text, "\nkernel     -\nfinish     -\n"), "%s", text);
    free(text);
    cr_expect_null(report_start(&PLAIN, &DEVICE, &options, N).launched.kernel,
                   "report_start records no kernel: the launcher does");
}

/* ---- --quiet and the human report ------------------------------------------------------------ */

Test(report, quiet_prints_one_line_ending_in_the_verdict)
{
    struct options options = {.quiet = true, .pattern = {.kind = PATTERN_ONES}};
    struct report right = judged(&PLAIN, &options, 0, true),
                  wrong = judged(&PLAIN, &options, HOT, true);
    char *text = printed(&right, &options);
    cr_expect_str_eq(text,
                     "step03 - n=1048576 pattern=ones result=1048576 expected=1048576 CORRECT\n");
    free(text);
    text = printed(&wrong, &options);
    cr_expect_str_eq(text,
                     "step03 - n=1048576 pattern=ones result=1048577 expected=1048576 WRONG\n");
    free(text);
}

Test(report, human_report_names_the_device_the_check_the_time_and_cub)
{
    struct options options = {.variant = 1, .pattern = {.kind = PATTERN_ONES}};
    struct report report = judged(&WITH_VARIANTS, &options, 0, true);
    char *text = printed(&report, &options);
    cr_expect(starts_with(text, "step07: a step with variants\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\nvariant    thread0\n"), "%s", text);
    cr_expect_not_null(
        strstr(text, "\ndevice     Test GPU, 132 SMs, sm_90, peak 3352 GB/s, CUDA 13.0\n"), "%s",
        text);
    cr_expect_not_null(strstr(text, "\ninput      n = 1048576 (4.0 MiB), pattern ones\n"), "%s",
                       text);
    cr_expect_not_null(strstr(text, "\nkernel     reduce_grid_stride<256, true>\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\nfinish     launches\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\ncheck      exact"), "%s", text);
    cr_expect_not_null(strstr(text, "-> CORRECT\n"), "%s", text);
    cr_expect_not_null(strstr(text, "\nbandwidth  16.8 GB/s effective = 0.5% of peak\n"), "%s",
                       text);
    cr_expect_not_null(strstr(text, "\ncub        0.5000 ms median"), "%s", text);
    cr_expect_not_null(strstr(text, "2.00x"), "%s", text);
    free(text);
}

Test(report, human_report_of_a_bounded_wrong_result_without_cub)
{
    struct options options = {.pattern = {.kind = PATTERN_REAL}, .flush = FLUSH_WRITE};
    struct report report = judged(&PLAIN, &options, FAR_OFF, false);
    char *text = printed(&report, &options);
    cr_expect_null(strstr(text, "\nvariant"), "%s", text);
    cr_expect_not_null(strstr(text, "\ncheck      |error|"), "%s", text);
    cr_expect_not_null(strstr(text, " > bound"), "an error past its bound reads >:\n%s", text);
    cr_expect_null(strstr(text, "<= bound"), "%s", text);
    cr_expect_not_null(strstr(text, "the L2 emptied by writing before each"), "%s", text);
    cr_expect_not_null(strstr(text, "-> WRONG\n"), "%s", text);
    cr_expect_null(strstr(text, "\ncub"), "no CUB line without CUB's time:\n%s", text);
    free(text);
}

/* The right total, with a bound of sum|x| that would pass 0 as well: never CORRECT. */
Test(report, a_bound_as_wide_as_the_sum_cannot_be_judged)
{
    struct options options = {.pattern = {.kind = PATTERN_REAL}};
    struct report report = judged_at(&PLAIN, &options, 0, false, DEPTH_WITHOUT_BOUND);
    cr_assert_geq(report.bound, report.reference.abs_sum, "the case needs a bound of sum|x|");
    cr_expect_not(report.ok, "a bound of sum|x| judged the result CORRECT");
    char *text = printed(&report, &options);
    cr_expect_not_null(strstr(text, "\ncheck      |error| "), "%s", text);
    cr_expect_not_null(strstr(text, "no bound exists"), "%s", text);
    cr_expect_not_null(strstr(text, "the result cannot be judged -> WRONG\n"), "%s", text);
    cr_expect_null(strstr(text, "<= bound"), "%s", text);
    free(text);
    options.quiet = true;
    text = printed(&report, &options);
    cr_expect(ends_with(text, " WRONG\n"), "%s", text);
    free(text);
}

/* ---- common/device.c's arithmetic --------------------------------------------------------- */

Test(device, effective_bandwidth_is_bytes_over_time_in_gb_per_s)
{
    cr_expect_leq(fabs(effective_gb_per_s(1e9, 1000.0) - 1.0), 1e-12, "1 GB in 1 s");
    cr_expect_leq(fabs(effective_gb_per_s(134217728.0, 0.1) - 1342.17728), 1e-9,
                  "2^25 floats in 0.1 ms");
    cr_expect_eq(effective_gb_per_s(1e9, 0.0), 0.0, "not measured: no figure");
    cr_expect_eq(effective_gb_per_s(1e9, -1.0), 0.0);
}

/* outputs_poison's byte: a NaN in every floating type a kernel writes, and in int and long
 * long -1, which no int result of the patterns (0 and up, or of magnitude 2^23 and up) is. */
Test(device, the_poison_is_a_nan_as_float_double_and_bf16_and_minus_1_as_an_integer)
{
    float f;
    double d;
    uint16_t b;
    int i;
    long long l;
    memset(&f, OUTPUT_POISON_BYTE, sizeof f);
    memset(&d, OUTPUT_POISON_BYTE, sizeof d);
    memset(&b, OUTPUT_POISON_BYTE, sizeof b);
    memset(&i, OUTPUT_POISON_BYTE, sizeof i);
    memset(&l, OUTPUT_POISON_BYTE, sizeof l);
    cr_expect(isnan(f) && isnan(d) && isnan(bf16_to_float(b)));
    cr_expect_eq(i, -1);
    cr_expect_eq(l, -1LL);
}

Test(device, filling_grid_fills_every_sm_within_its_limits)
{
    struct device_info h100 = {
        .sm_count = 132, .max_threads_per_sm = 2048, .max_blocks_per_sm = 32};
    cr_expect_eq(filling_grid(&h100, 256), 132 * 8, "8 blocks of 256 threads fill an SM");
    cr_expect_eq(filling_grid(&h100, 1024), 132 * 2);
    cr_expect_eq(filling_grid(&h100, 32), 132 * 32,
                 "the 32-block limit, not 64 blocks of 32 threads");
}
