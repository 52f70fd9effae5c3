#include "results.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report.h"

enum { RUNTIME_MAJOR = 1000, RUNTIME_MINOR = 10 };  /* 13000 -> 13.0 (cudaRuntimeGetVersion) */
static const mode_t DIRECTORY_MODE = 0777;          /* before the umask */
static const char RESULTS_DIRECTORY[] = "docs/results";
static const char SUBSET_DIRECTORY[] = "build/bench";

static void format_date(char *out, size_t size)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

bool results_create(struct results *results, int capacity, const struct device_info *device)
{
    memset(results, 0, sizeof *results);
    results->rows = calloc(capacity > 0 ? capacity : 1, sizeof *results->rows);
    results->capacity = capacity;
    results->device = device;
    snprintf(results->cuda_version, sizeof results->cuda_version, "%d.%d",
             device->runtime_version / RUNTIME_MAJOR,
             device->runtime_version % RUNTIME_MAJOR / RUNTIME_MINOR);
    format_date(results->date, sizeof results->date);
    return results->rows != NULL;
}

void results_destroy(struct results *results)
{
    free(results->rows);
    results->rows = NULL;
}

void results_add(struct results *results, const char *step, size_t n, struct timing timing,
                 double cub_median_ms)
{
    if (results->count >= results->capacity) return;
    struct row *row = &results->rows[results->count++];
    row->step = step;
    row->n = n;
    row->timing = timing;
    row->gb_per_s = effective_gb_per_s((double)n * sizeof(float), timing.median_ms);
    double peak = results->device->peak_gb_per_s;
    row->peak_pct = peak > 0 ? 100.0 * row->gb_per_s / peak : 0;
    row->ratio_to_cub = cub_median_ms > 0 && timing.median_ms > 0
                            ? cub_median_ms / timing.median_ms
                            : 0;
}

void sanitize_file_name(const char *name, char *out, size_t size)
{
    size_t i = 0;
    for (; name[i] != '\0' && i + 1 < size; i++) {
        unsigned char c = (unsigned char)name[i];
        out[i] = isalnum(c) || c == '_' || c == '-' ? (char)c : '_';
    }
    if (size > 0) out[i] = '\0';
}

void default_output_path(const char *gpu_name, bool subset, char *out, size_t size)
{
    char file[256];
    sanitize_file_name(gpu_name[0] != '\0' ? gpu_name : "unknown_gpu", file, sizeof file);
    snprintf(out, size, "%s/%s.csv", subset ? SUBSET_DIRECTORY : RESULTS_DIRECTORY, file);
}

/* mkdir -p of the file's directory. */
static bool create_parent_directories(const char *path)
{
    char *copy = strdup(path);
    if (copy == NULL) return false;
    bool ok = true;
    for (char *slash = strchr(copy + 1, '/'); ok && slash != NULL; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(copy, DIRECTORY_MODE) != 0 && errno != EEXIST) {
            fprintf(stderr, "bench: cannot create directory %s: %s\n", copy, strerror(errno));
            ok = false;
        }
        *slash = '/';
    }
    free(copy);
    return ok;
}

static void write_row(FILE *out, const struct results *results, const struct row *row)
{
    fprintf(out, "%s,%zu,%.6f,%.6f,%.6f,%.2f,%.2f,", row->step, row->n, row->timing.median_ms,
            row->timing.min_ms, row->timing.max_ms, row->gb_per_s, row->peak_pct);
    if (row->ratio_to_cub > 0) fprintf(out, "%.3f", row->ratio_to_cub);
    fputc(',', out);
    csv_field(out, results->device->name);
    fprintf(out, ",%s,%s\n", results->cuda_version, results->date);
}

bool results_write_csv(const struct results *results, const char *path)
{
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp", path);
    if (!create_parent_directories(path)) return false;
    FILE *out = fopen(temporary, "w");
    if (out == NULL) {
        fprintf(stderr, "bench: cannot write %s: %s\n", temporary, strerror(errno));
        return false;
    }
    fputs("step,n,ms_median,ms_min,ms_max,gb_per_s,peak_pct,ratio_to_cub,device,cuda_version,"
          "date\n", out);
    for (int i = 0; i < results->count; i++) write_row(out, results, &results->rows[i]);
    bool ok = !ferror(out);
    ok = fclose(out) == 0 && ok;
    if (ok && rename(temporary, path) != 0) ok = false;
    if (!ok) fprintf(stderr, "bench: cannot write %s: %s\n", path, strerror(errno));
    return ok;
}

void results_print_table(FILE *out, const struct results *results, size_t n)
{
    fprintf(out, "%-8s %10s %10s %10s %8s %8s\n", "step", "ms median", "ms min", "GB/s", "% peak",
            "x CUB");
    for (int i = 0; i < results->count; i++) {
        const struct row *row = &results->rows[i];
        if (row->n != n) continue;
        fprintf(out, "%-8s %10.4f %10.4f %10.1f %8.1f ", row->step, row->timing.median_ms,
                row->timing.min_ms, row->gb_per_s, row->peak_pct);
        if (row->ratio_to_cub > 0) fprintf(out, "%8.2f\n", row->ratio_to_cub);
        else fprintf(out, "%8s\n", "-");
    }
}
