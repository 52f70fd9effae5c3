#include "report.h"

#include <math.h>
#include <string.h>

static const double BYTES_PER_MIB = 1024.0 * 1024.0;
static const double PERCENT = 100.0;

void report_derive_bandwidth(struct report *report)
{
    report->gb_per_s = effective_gb_per_s(report->bytes_read, report->timing.median_ms);
    report->peak_pct = report->device->peak_gb_per_s > 0
                           ? PERCENT * report->gb_per_s / report->device->peak_gb_per_s
                           : 0;
}

static const char *verdict_word(const struct report *report)
{
    return report->ok ? "CORRECT" : "WRONG";
}

void report_verdict(FILE *out, const struct report *report)
{
    fprintf(out, "%s %s n=%zu pattern=%s result=%.9g expected=%.17g %s\n", report->step->name,
            report->variant ? report->variant : "-", report->n, report->pattern, report->result,
            report->expected, verdict_word(report));
}

static void print_check(FILE *out, const struct report *report)
{
    double error = fabs((double)report->result - report->expected);
    fprintf(out, "result     %.9g   expected %.17g\n", report->result, report->expected);
    if (report->bound == 0)
        fprintf(out, "check      exact (integer data, every partial sum below 2^24): error %.9g -> %s\n",
                error, verdict_word(report));
    else
        fprintf(out, "check      |error| %.9g <= bound %.9g (docs/verification.md) -> %s\n", error,
                report->bound, verdict_word(report));
}

void report_human(FILE *out, const struct report *report)
{
    const struct device_info *device = report->device;
    fprintf(out, "%s: %s\n", report->step->name, report->step->title);
    fprintf(out, "lesson     %s\n", report->step->lesson);
    if (report->variant) fprintf(out, "variant    %s\n", report->variant);
    fprintf(out, "device     %s, %d SMs, sm_%d%d, peak %.0f GB/s\n", device->name,
            device->sm_count, device->cc_major, device->cc_minor, device->peak_gb_per_s);
    fprintf(out, "input      n = %zu (%.1f MiB), pattern %s\n", report->n,
            (double)report->n * sizeof(float) / BYTES_PER_MIB, report->pattern);
    fprintf(out, "launch     %u blocks x %u threads, %u element(s) per thread; %u launch(es), %s finish\n",
            report->plan.blocks, report->plan.threads, report->plan.elements_per_thread,
            report->passes, report->finish == FINISH_CPU ? "host" : "GPU");
    print_check(out, report);
    fprintf(out, "time       %.4f ms median, %.4f .. %.4f ms over %d runs\n",
            report->timing.median_ms, report->timing.min_ms, report->timing.max_ms,
            report->timing.runs);
    fprintf(out, "bandwidth  %.1f GB/s effective = %.1f%% of peak\n", report->gb_per_s,
            report->peak_pct);
}

void csv_field(FILE *out, const char *text)
{
    if (strpbrk(text, ",\"\n\r") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *c = text; *c; c++) {
        if (*c == '"') fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

void report_csv_header(FILE *out)
{
    fputs("step,n,pattern,result,expected,ok,ms_median,ms_min,gb_per_s,peak_pct,device\n", out);
}

void report_csv_row(FILE *out, const struct report *report)
{
    fprintf(out, "%s,%zu,", report->step->name, report->n);
    csv_field(out, report->pattern);
    fprintf(out, ",%.9g,%.17g,%d,%.6f,%.6f,%.2f,%.2f,", report->result, report->expected,
            report->ok ? 1 : 0, report->timing.median_ms, report->timing.min_ms,
            report->gb_per_s, report->peak_pct);
    csv_field(out, report->device->name);
    fputc('\n', out);
}
