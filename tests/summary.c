/* The last line of a test run: how many tests were skipped for want of a CUDA device, so that
 * a run on a machine without a GPU never reads as if everything had been tested. It is
 * printed when the runner exits, after Criterion's own synthesis. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* What every skip for want of a GPU says after the step's name (require_gpu, harness.c). */
static const char NO_DEVICE_SKIP[] = ": no CUDA device: ";
static size_t skipped_without_gpu, skipped_otherwise, ran;

static void print_summary(void)
{
    if (skipped_without_gpu > 0)
        fprintf(stderr, "make test: %zu tests skipped (no CUDA device), %zu ran",
                skipped_without_gpu, ran);
    else
        fprintf(stderr, "make test: %zu ran, none skipped for want of a CUDA device", ran);
    if (skipped_otherwise > 0)
        fprintf(stderr, ", %zu skipped for another reason (--verbose says why)", skipped_otherwise);
    fprintf(stderr, "\n");
}

/* Tests left out by --filter are "skipped" without a message: they are not counted. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    for (struct criterion_suite_stats *suite = stats->suites; suite != NULL; suite = suite->next)
        for (struct criterion_test_stats *test = suite->tests; test != NULL; test = test->next) {
            if (test->test_status != CR_STATUS_SKIPPED)
                ran++;
            else if (test->message != NULL && strstr(test->message, NO_DEVICE_SKIP) != NULL)
                skipped_without_gpu++;
            else if (test->message != NULL)
                skipped_otherwise++;
        }
    atexit(print_summary);
}
