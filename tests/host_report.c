/* common/report.c and timing_summarize on the host: what a run prints, captured with
 * open_memstream, from a fake step on a fake device. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "timing.h"

/* The issue fixes the header, column for column. */
static const char CSV_HEADER[] =
    "step,n,pattern,result,expected,ok,ms_median,ms_min,gb_per_s,peak_pct,device\n";
enum { COLUMN_STEP, COLUMN_N, COLUMN_PATTERN, COLUMN_RESULT, COLUMN_EXPECTED, COLUMN_OK,
       COLUMN_MS_MEDIAN, COLUMN_MS_MIN, COLUMN_GB_PER_S, COLUMN_PEAK_PCT, COLUMN_DEVICE,
       CSV_COLUMNS };

enum { MAX_FIELDS = 32, FIELD_SIZE = 256 };
/* The row prints gb_per_s and peak_pct with two decimals. */
static const double TWO_DECIMALS = 0.005;
static const double SAME_DOUBLE = 1e-12;

/* ---- capturing output --------------------------------------------------------------- */

struct capture {
    FILE *stream;
    char *text;
    size_t size;
};

static FILE *capture_begin(struct capture *capture)
{
    capture->text = NULL;
    capture->stream = open_memstream(&capture->text, &capture->size);
    cr_assert_not_null(capture->stream, "open_memstream failed");
    return capture->stream;
}

/* The captured text; the caller frees it. */
static char *capture_end(struct capture *capture)
{
    cr_assert_eq(fclose(capture->stream), 0);
    return capture->text;
}

static int count_lines(const char *text)
{
    int lines = 0;
    for (const char *c = text; *c; c++) lines += *c == '\n';
    return lines;
}

/* ---- reading CSV back (RFC 4180 quoting) ---------------------------------------------- */

struct csv_line {
    int count;
    char fields[MAX_FIELDS][FIELD_SIZE];
};

static void append_char(struct csv_line *line, size_t *length, char c)
{
    cr_assert_lt(*length + 1, FIELD_SIZE, "field too long for this test");
    line->fields[line->count - 1][(*length)++] = c;
    line->fields[line->count - 1][*length] = '\0';
}

/* Splits one line (up to its '\n') into unquoted fields. */
static struct csv_line split_csv_line(const char *text)
{
    struct csv_line line = {.count = 1};
    size_t length = 0;
    bool quoted = false;
    for (const char *c = text; *c != '\0' && (quoted || *c != '\n'); c++) {
        if (quoted && *c == '"' && c[1] == '"') append_char(&line, &length, *c++);
        else if (*c == '"') quoted = !quoted;
        else if (!quoted && *c == ',') {
            cr_assert_lt(line.count, MAX_FIELDS, "too many fields");
            line.count++;
            length = 0;
        } else append_char(&line, &length, *c);
    }
    cr_assert_not(quoted, "unterminated quote in '%s'", text);
    return line;
}

/* ---- a fake run ---------------------------------------------------------------------- */

static const struct step FAKE_STEP = {
    .name = "step99",
    .title = "a step that only exists in this test",
    .lesson = "reports print what they are given",
    .threads = {.fallback = 256, .min = 32, .max = 1024},
};

/* Any plausible run will do; these are an H100's SM count and n = 1000003 at 256 threads. */
enum { FAKE_N = 1000003, FAKE_RUNS = 5, FAKE_SMS = 132, FAKE_CC_MAJOR = 9, FAKE_CC_MINOR = 0,
       FAKE_BLOCKS = 3907, FAKE_THREADS = 256, FAKE_PASSES = 2 };
static const double FAKE_PEAK_GB_PER_S = 4000.0;

static struct device_info fake_device(const char *name)
{
    struct device_info device = {.sm_count = FAKE_SMS, .cc_major = FAKE_CC_MAJOR,
                                 .cc_minor = FAKE_CC_MINOR,
                                 .peak_gb_per_s = FAKE_PEAK_GB_PER_S};
    snprintf(device.name, sizeof device.name, "%s", name);
    return device;
}

/* A correct onehot:last run: 4000012 bytes in 0.5 ms median. */
static struct report fake_report(const struct device_info *device, bool ok)
{
    struct report report = {
        .step = &FAKE_STEP,
        .device = device,
        .n = FAKE_N,
        .pattern = "onehot:last",
        .plan = {.blocks = FAKE_BLOCKS, .threads = FAKE_THREADS, .elements_per_thread = 1},
        .passes = FAKE_PASSES,
        .finish = FINISH_GPU,
        .result = ok ? 1.0f : 0.0f,
        .expected = 1.0,
        .ok = ok,
        .timing = {.median_ms = 0.5, .min_ms = 0.25, .max_ms = 0.75, .runs = FAKE_RUNS},
        .bytes_read = (double)FAKE_N * sizeof(float),
    };
    report_derive_bandwidth(&report);
    return report;
}

/* ---- CSV ----------------------------------------------------------------------------- */

Test(host_report, csv_header_is_exactly_the_documented_one)
{
    struct capture capture;
    report_csv_header(capture_begin(&capture));
    char *text = capture_end(&capture);
    cr_expect_str_eq(text, CSV_HEADER);
    cr_expect_eq(split_csv_line(text).count, CSV_COLUMNS);
    free(text);
}

static char *csv_row_of(const struct report *report)
{
    struct capture capture;
    report_csv_row(capture_begin(&capture), report);
    return capture_end(&capture);
}

Test(host_report, csv_row_has_one_field_per_header_column)
{
    struct device_info device = fake_device("NVIDIA H100 80GB HBM3");
    struct report report = fake_report(&device, true);
    char *row = csv_row_of(&report);
    cr_expect_eq(count_lines(row), 1, "'%s'", row);
    struct csv_line line = split_csv_line(row);
    cr_assert_eq(line.count, CSV_COLUMNS, "%d fields in '%s'", line.count, row);
    cr_expect_str_eq(line.fields[COLUMN_STEP], "step99");
    cr_expect_str_eq(line.fields[COLUMN_N], "1000003");
    cr_expect_str_eq(line.fields[COLUMN_PATTERN], "onehot:last");
    cr_expect_eq(strtod(line.fields[COLUMN_RESULT], NULL), 1.0);
    cr_expect_eq(strtod(line.fields[COLUMN_EXPECTED], NULL), 1.0);
    cr_expect_str_eq(line.fields[COLUMN_OK], "1");
    cr_expect_eq(strtod(line.fields[COLUMN_MS_MEDIAN], NULL), 0.5);
    cr_expect_eq(strtod(line.fields[COLUMN_MS_MIN], NULL), 0.25);
    cr_expect_leq(fabs(strtod(line.fields[COLUMN_GB_PER_S], NULL) - report.gb_per_s),
                  TWO_DECIMALS, "gb_per_s '%s'", line.fields[COLUMN_GB_PER_S]);
    cr_expect_leq(fabs(strtod(line.fields[COLUMN_PEAK_PCT], NULL) - report.peak_pct),
                  TWO_DECIMALS, "peak_pct '%s'", line.fields[COLUMN_PEAK_PCT]);
    cr_expect_str_eq(line.fields[COLUMN_DEVICE], device.name);
    free(row);
}

Test(host_report, csv_row_of_a_wrong_result_says_0)
{
    struct device_info device = fake_device("GPU");
    struct report report = fake_report(&device, false);
    char *row = csv_row_of(&report);
    struct csv_line line = split_csv_line(row);
    cr_assert_eq(line.count, CSV_COLUMNS, "'%s'", row);
    cr_expect_str_eq(line.fields[COLUMN_OK], "0");
    cr_expect_eq(strtod(line.fields[COLUMN_RESULT], NULL), 0.0);
    free(row);
}

Test(host_report, csv_row_keeps_a_device_name_with_comma_and_quotes_in_one_field)
{
    struct device_info device = fake_device("Card \"X\", rev. 2");
    struct report report = fake_report(&device, true);
    char *row = csv_row_of(&report);
    struct csv_line line = split_csv_line(row);
    cr_assert_eq(line.count, CSV_COLUMNS, "%d fields in '%s'", line.count, row);
    cr_expect_str_eq(line.fields[COLUMN_DEVICE], device.name);
    free(row);
}

static char *csv_field_of(const char *text)
{
    struct capture capture;
    csv_field(capture_begin(&capture), text);
    return capture_end(&capture);
}

Test(host_report, csv_field_quotes_only_when_it_must)
{
    struct {
        const char *raw;
        const char *written;
    } cases[] = {
        {"NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"},
        {"", ""},
        {"H100, SXM", "\"H100, SXM\""},
        {"the \"best\" card", "\"the \"\"best\"\" card\""},
        {"\"", "\"\"\"\""},
        {"two\nlines", "\"two\nlines\""},
        {"carriage\rreturn", "\"carriage\rreturn\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *written = csv_field_of(cases[i].raw);
        cr_expect_str_eq(written, cases[i].written, "csv_field(\"%s\")", cases[i].raw);
        free(written);
    }
}

/* ---- bandwidth ------------------------------------------------------------------------- */

Test(host_report, bandwidth_comes_from_bytes_and_the_median_time)
{
    struct device_info device = fake_device("GPU");
    struct report report = {.device = &device, .bytes_read = 4e9,
                            .timing = {.median_ms = 2.0, .min_ms = 1.0, .max_ms = 3.0}};
    report_derive_bandwidth(&report);
    /* 4 GB in 2 ms is 2000 GB/s: half of the fake 4000 GB/s peak. */
    cr_expect_leq(fabs(report.gb_per_s - 2000.0), SAME_DOUBLE * 2000.0, "%.9f", report.gb_per_s);
    cr_expect_leq(fabs(report.peak_pct - 50.0), SAME_DOUBLE * 50.0, "%.9f", report.peak_pct);
}

Test(host_report, peak_percentage_is_zero_when_the_peak_is_unknown)
{
    struct device_info device = fake_device("GPU");
    device.peak_gb_per_s = 0;
    struct report report = {.device = &device, .bytes_read = 4e9, .timing = {.median_ms = 2.0}};
    report_derive_bandwidth(&report);
    cr_expect_gt(report.gb_per_s, 0.0);
    cr_expect_eq(report.peak_pct, 0.0, "no division by a zero peak");
}

/* ---- the human report and the quiet verdict ------------------------------------------- */

static char *human_report_of(const struct report *report)
{
    struct capture capture;
    report_human(capture_begin(&capture), report);
    return capture_end(&capture);
}

Test(host_report, human_report_names_verdict_device_and_peak_share)
{
    struct device_info device = fake_device("NVIDIA H100 80GB HBM3");
    struct report report = fake_report(&device, true);
    char *text = human_report_of(&report);
    cr_expect_not_null(strstr(text, "CORRECT"), "%s", text);
    cr_expect_null(strstr(text, "WRONG"), "%s", text);
    cr_expect_not_null(strstr(text, "\ndevice     NVIDIA H100 80GB HBM3"), "%s", text);
    cr_expect_not_null(strstr(text, "% of peak"), "%s", text);
    cr_expect_not_null(strstr(text, FAKE_STEP.title), "%s", text);
    cr_expect_not_null(strstr(text, "exact"), "bound 0 is an exact check: %s", text);
    free(text);
}

Test(host_report, human_report_of_a_wrong_result_says_wrong_and_shows_the_bound)
{
    struct device_info device = fake_device("GPU");
    struct report report = fake_report(&device, false);
    report.bound = 0.125;
    char *text = human_report_of(&report);
    cr_expect_not_null(strstr(text, "WRONG"), "%s", text);
    cr_expect_null(strstr(text, "CORRECT"), "%s", text);
    cr_expect_not_null(strstr(text, "bound 0.125"), "%s", text);
    free(text);
}

Test(host_report, verdict_is_one_line)
{
    struct device_info device = fake_device("GPU");
    struct report report = fake_report(&device, true);
    struct capture capture;
    report_verdict(capture_begin(&capture), &report);
    char *text = capture_end(&capture);
    cr_expect_eq(count_lines(text), 1, "'%s'", text);
    cr_expect_eq(text[strlen(text) - 1], '\n');
    cr_expect_not_null(strstr(text, "step99"), "%s", text);
    cr_expect_not_null(strstr(text, "CORRECT"), "%s", text);
    free(text);
}

/* ---- timing_summarize ------------------------------------------------------------------ */

Test(host_report, timing_of_an_odd_count_takes_the_middle_sample)
{
    double samples[] = {5.0, 1.0, 3.0};
    struct timing timing = timing_summarize(samples, 3);
    cr_expect_eq(timing.median_ms, 3.0);
    cr_expect_eq(timing.min_ms, 1.0);
    cr_expect_eq(timing.max_ms, 5.0);
    cr_expect_eq(timing.runs, 3);
}

Test(host_report, timing_of_an_even_count_averages_the_two_middle_samples)
{
    double samples[] = {4.0, 1.0, 3.0, 2.0};
    struct timing timing = timing_summarize(samples, 4);
    cr_expect_eq(timing.median_ms, 2.5);
    cr_expect_eq(timing.min_ms, 1.0);
    cr_expect_eq(timing.max_ms, 4.0);
    cr_expect_eq(timing.runs, 4);
}

Test(host_report, timing_sorts_the_samples_in_place)
{
    double samples[] = {9.0, 2.0, 7.0, 2.0, 0.5, 8.0};
    const double sorted[] = {0.5, 2.0, 2.0, 7.0, 8.0, 9.0};
    enum { COUNT = sizeof samples / sizeof samples[0] };
    struct timing timing = timing_summarize(samples, COUNT);
    for (int i = 0; i < COUNT; i++)
        cr_expect_eq(samples[i], sorted[i], "sample %d is %g", i, samples[i]);
    cr_expect_eq(timing.median_ms, 4.5);
}

Test(host_report, timing_of_one_sample_is_that_sample)
{
    double sample = 0.75;
    struct timing timing = timing_summarize(&sample, 1);
    cr_expect_eq(timing.median_ms, 0.75);
    cr_expect_eq(timing.min_ms, 0.75);
    cr_expect_eq(timing.max_ms, 0.75);
    cr_expect_eq(timing.runs, 1);
}

Test(host_report, timing_of_no_samples_is_all_zero)
{
    double unused = 1.0;
    struct timing timing = timing_summarize(&unused, 0);
    cr_expect_eq(timing.runs, 0);
    cr_expect_eq(timing.median_ms, 0.0);
    cr_expect_eq(timing.min_ms, 0.0);
    cr_expect_eq(timing.max_ms, 0.0);
}
