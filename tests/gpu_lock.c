/* The tests' GPU lock (tests/harness.c, tests_gpu_lock): while one test's program holds it
 * alone, no other test's program starts on the same GPUs, and it starts as soon as the lock is
 * given back; single runs share it, a --check waits for them. No GPU needed: the program here
 * is `true`. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* How long the program must keep waiting while the lock is held, and how long it may take
 * to start and end once it is given back. */
enum { HELD_MS = 1000, STARTS_WITHIN_MS = 10000, TEST_TIMEOUT_S = 60 };

Test(gpu_lock, a_program_waits_for_the_lock_and_runs_once_it_is_given_back,
     .timeout = TEST_TIMEOUT_S)
{
    char own[64];
    snprintf(own, sizeof own, "lock-test-%ld", (long)getpid()); /* no other test waits on it */
    setenv("CUDA_VISIBLE_DEVICES", own, 1);
    const char *lock = tests_gpu_lock();
    int held = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0666), ran[2];
    cr_assert_geq(held, 0, "cannot open %s: %s", lock, strerror(errno));
    cr_assert_eq(flock(held, LOCK_EX), 0, "cannot lock %s: %s", lock, strerror(errno));
    cr_assert_eq(pipe(ran), 0, "pipe: %s", strerror(errno));
    pid_t child = fork();
    cr_assert_geq(child, 0, "fork: %s", strerror(errno));
    if (child == 0) { /* a test beside this one: says when its program has run */
        close(held);  /* the parent's copy still holds the lock */
        struct finished done = program_run_alone("true", (const char *const[]){NULL});
        _exit(done.exit_code == 0 && write(ran[1], "r", 1) == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
    }
    struct pollfd finished = {.fd = ran[0], .events = POLLIN};
    cr_expect_eq(poll(&finished, 1, HELD_MS), 0, "the program ran while %s was held", lock);
    close(held); /* gives the lock back */
    cr_expect_eq(poll(&finished, 1, STARTS_WITHIN_MS), 1,
                 "the program had not run %d ms after %s was given back", STARTS_WITHIN_MS, lock);
    int status;
    while (waitpid(child, &status, 0) < 0)
        cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SUCCESS,
              "the waiting test's program_run_alone failed");
}

/* Each set of visible GPUs has a lock of its own: lanes on separate GPUs never wait for each
 * other. */
Test(gpu_lock, each_set_of_visible_gpus_has_its_own_lock)
{
    char every[512], first[512];
    unsetenv("CUDA_VISIBLE_DEVICES");
    snprintf(every, sizeof every, "%s", tests_gpu_lock());
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    snprintf(first, sizeof first, "%s", tests_gpu_lock());
    cr_expect(strstr(every, "/build/tests/gpu.lock") != NULL, "%s", every);
    cr_expect(strstr(first, "/build/tests/gpu-0.lock") != NULL, "%s", first);
}

/* A child that runs `true` (with --check when checking) taking turns, and writes a byte to
 * `ran` once it has run. It closes its copy of `held`, which would keep the parent's lock. */
static pid_t run_taking_turns_in_a_child(int held, int ran, bool checking)
{
    pid_t child = fork();
    cr_assert_geq(child, 0, "fork: %s", strerror(errno));
    if (child == 0) {
        close(held);
        const char *const args[] = {checking ? "--check" : NULL, NULL};
        struct finished done = program_run_taking_turns("true", args);
        _exit(done.exit_code == 0 && write(ran, "r", 1) == 1 ? EXIT_SUCCESS : EXIT_FAILURE);
    }
    return child;
}

static void expect_child_succeeded(pid_t child)
{
    int status;
    while (waitpid(child, &status, 0) < 0)
        cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SUCCESS,
              "a waiting test's program_run_taking_turns failed");
}

/* While a single run holds the lock shared, another single run starts at once and a --check
 * waits until the lock is given back. */
Test(gpu_lock, single_runs_share_the_gpu_and_a_check_waits_for_them, .timeout = TEST_TIMEOUT_S)
{
    char own[64];
    snprintf(own, sizeof own, "share-test-%ld", (long)getpid());
    setenv("CUDA_VISIBLE_DEVICES", own, 1);
    const char *lock = tests_gpu_lock();
    int held = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0666), single[2], check[2];
    cr_assert_geq(held, 0, "cannot open %s: %s", lock, strerror(errno));
    cr_assert_eq(flock(held, LOCK_SH), 0, "cannot lock %s: %s", lock, strerror(errno));
    cr_assert(pipe(single) == 0 && pipe(check) == 0, "pipe: %s", strerror(errno));
    pid_t beside = run_taking_turns_in_a_child(held, single[1], false);
    pid_t checking = run_taking_turns_in_a_child(held, check[1], true);
    struct pollfd single_ran = {.fd = single[0], .events = POLLIN};
    struct pollfd check_ran = {.fd = check[0], .events = POLLIN};
    cr_expect_eq(poll(&single_ran, 1, STARTS_WITHIN_MS), 1,
                 "a single run waited while %s was only shared", lock);
    cr_expect_eq(poll(&check_ran, 1, HELD_MS), 0, "a --check ran while %s was shared", lock);
    close(held);
    cr_expect_eq(poll(&check_ran, 1, STARTS_WITHIN_MS), 1,
                 "the --check had not run %d ms after %s was given back", STARTS_WITHIN_MS, lock);
    expect_child_succeeded(beside);
    expect_child_succeeded(checking);
}
