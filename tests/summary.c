/* The last line of a test run: how many tests were skipped for want of a CUDA device, so that
 * a run on a machine without a GPU never reads as if everything had been tested, and how long
 * the run took (what the README's "at most 5 minutes on one GPU" is measured with). It is
 * printed when the runner exits, after Criterion's own synthesis. */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

/* What every skip for want of a GPU says after the step's name (require_gpu, harness.c). */
static const char NO_DEVICE_SKIP[] = ": no CUDA device: ";
static size_t skipped_without_gpu, skipped_otherwise, ran;
static struct timespec started;

static double seconds_since_start(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - started.tv_sec) + (double)(now.tv_nsec - started.tv_nsec) * 1e-9;
}

/* The target that ran the tests (the Makefile sets TESTS_TARGET: make test or make test-long). */
static const char *target(void)
{
    const char *named = getenv("TESTS_TARGET");
    return named != NULL && *named != '\0' ? named : "make test";
}

static void print_summary(void)
{
    if (skipped_without_gpu > 0)
        fprintf(stderr, "%s: %zu tests skipped (no CUDA device), %zu ran", target(),
                skipped_without_gpu, ran);
    else
        fprintf(stderr, "%s: %zu ran, none skipped for want of a CUDA device", target(), ran);
    if (skipped_otherwise > 0)
        fprintf(stderr, ", %zu skipped for another reason (--verbose says why)", skipped_otherwise);
    fprintf(stderr, "; %.0f s\n", seconds_since_start());
}

ReportHook(PRE_ALL)(struct criterion_test_set *tests)
{
    (void)tests;
    clock_gettime(CLOCK_MONOTONIC, &started);
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
