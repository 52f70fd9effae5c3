/* common/scratch.c on a GPU, the guard of steps 12 and 13 used as a library: a launch on
 * another stream, or from another host thread, is made to wait for the scratch's latest
 * launch, so that two launches never use one scratch at once: streams of their own,
 * cudaStreamPerThread from two threads (one handle, two streams), and a stream already
 * ordered after the launch with cudaStreamWaitEvent all go ahead, without a message, and run
 * after it. The "launch" on the first stream is a host function that waits until the test
 * lets it go, so the stream stays busy for as long as the test needs; a stream that has to
 * wait for it answers cudaErrorNotReady until then. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

static atomic_bool let_go;
/* How long a stream that must wait is watched: one that ran ahead would finish within it. */
static const double WATCH_S = 0.2;
static const struct timespec WATCH_PAUSE = {.tv_sec = 0, .tv_nsec = 1000 * 1000};

static void CUDART_CB wait_until_let_go(void *unused)
{
    (void)unused;
    while (!atomic_load(&let_go)) sched_yield();
}

/* cudaErrorNotReady when `stream` still has not finished after WATCH_S; else how it ended. */
static cudaError_t still_waiting(cudaStream_t stream)
{
    struct timespec start, now;
    cudaError_t status;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        nanosleep(&WATCH_PAUSE, NULL);
        status = cudaStreamQuery(stream);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (status == cudaErrorNotReady &&
             (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec) <
                 WATCH_S);
    return status;
}

/* A scratch's ticket counter, the guard's name for it. */
static unsigned *scratch_make(void)
{
    unsigned *ticket_counter = NULL;
    require_gpu("step13");
    cr_assert_eq(cudaMalloc((void **)&ticket_counter, sizeof *ticket_counter), cudaSuccess);
    atomic_store(&let_go, false);
    return ticket_counter;
}

/* A "launch" on `stream` that lasts until the test lets it go, through the guard. */
static void busy_launch(const unsigned *ticket_counter, cudaStream_t stream)
{
    cr_assert_eq(scratch_claim(ticket_counter, stream), cudaSuccess);
    cr_assert_eq(scratch_release(ticket_counter, stream,
                                 cudaLaunchHostFunc(stream, wait_until_let_go, NULL)),
                 cudaSuccess);
}

/* A claim and an empty launch on `stream`: what the guard said, and whatever it printed. */
static cudaError_t quiet_launch(const unsigned *ticket_counter, cudaStream_t stream)
{
    struct capture capture;
    capture_begin(&capture, STDERR_FILENO);
    cudaError_t claimed = scratch_claim(ticket_counter, stream);
    if (claimed == cudaSuccess) claimed = scratch_release(ticket_counter, stream, cudaSuccess);
    char *said = capture_end(&capture);
    cr_expect_eq(said[0], '\0', "the guard printed: %s", said);
    free(said);
    return claimed;
}

Test(gpu_scratch, a_second_stream_waits_for_the_first_launch)
{
    unsigned *ticket_counter = scratch_make();
    cudaStream_t a, b;
    cr_assert_eq(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    busy_launch(ticket_counter, a);

    cudaError_t claimed = quiet_launch(ticket_counter, b);
    cudaError_t waiting = still_waiting(b);
    cudaError_t same = quiet_launch(ticket_counter, a);
    atomic_store(&let_go, true);
    cr_expect_eq(claimed, cudaSuccess, "stream b: %s", cudaGetErrorName(claimed));
    cr_expect_eq(waiting, cudaErrorNotReady, "stream b ran beside a's launch: %s",
                 cudaGetErrorName(waiting));
    cr_expect_eq(same, cudaSuccess, "the same stream runs in order: %s", cudaGetErrorName(same));
    cr_expect_eq(cudaStreamSynchronize(b), cudaSuccess);
    cr_expect_eq(cudaStreamSynchronize(a), cudaSuccess);
    cr_expect_eq(quiet_launch(ticket_counter, b), cudaSuccess, "a's launch is over");
    cr_expect_eq(cudaStreamSynchronize(b), cudaSuccess);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaFree(ticket_counter);
}

/* The order the guard's own message used to advise: the second stream waits for the first
 * one's launch itself, and the launch on it goes ahead. */
Test(gpu_scratch, a_stream_ordered_after_the_launch_goes_ahead)
{
    unsigned *ticket_counter = scratch_make();
    cudaStream_t a, b;
    cudaEvent_t launched;
    cr_assert_eq(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaEventCreateWithFlags(&launched, cudaEventDisableTiming), cudaSuccess);
    busy_launch(ticket_counter, a);
    cr_assert_eq(cudaEventRecord(launched, a), cudaSuccess);
    cr_assert_eq(cudaStreamWaitEvent(b, launched, 0), cudaSuccess);

    cudaError_t claimed = quiet_launch(ticket_counter, b);
    atomic_store(&let_go, true);
    cr_expect_eq(claimed, cudaSuccess, "stream b, ordered after a: %s", cudaGetErrorName(claimed));
    cr_expect_eq(cudaStreamSynchronize(b), cudaSuccess);
    cr_expect_eq(cudaStreamSynchronize(a), cudaSuccess);
    cudaEventDestroy(launched);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaFree(ticket_counter);
}

/* What a second host thread saw of its own cudaStreamPerThread. */
struct second_thread {
    const unsigned *ticket_counter;
    cudaError_t claimed, waiting, finished;
    atomic_bool queried;
};

static void *launch_from_a_second_thread(void *argument)
{
    struct second_thread *second = argument;
    second->claimed = scratch_claim(second->ticket_counter, cudaStreamPerThread);
    if (second->claimed == cudaSuccess)
        second->claimed = scratch_release(second->ticket_counter, cudaStreamPerThread, cudaSuccess);
    second->waiting = still_waiting(cudaStreamPerThread);
    atomic_store(&second->queried, true);
    second->finished = cudaStreamSynchronize(cudaStreamPerThread);
    return NULL;
}

/* cudaStreamPerThread is one handle that names each host thread's own stream: the second
 * thread's launch must wait for the first thread's. */
Test(gpu_scratch, per_thread_streams_of_two_threads_are_ordered)
{
    unsigned *ticket_counter = scratch_make();
    struct second_thread second = {.ticket_counter = ticket_counter};
    pthread_t thread;
    atomic_store(&second.queried, false);
    busy_launch(ticket_counter, cudaStreamPerThread);

    cr_assert_eq(pthread_create(&thread, NULL, launch_from_a_second_thread, &second), 0);
    while (!atomic_load(&second.queried)) sched_yield();
    atomic_store(&let_go, true);
    cr_assert_eq(pthread_join(thread, NULL), 0);
    cr_expect_eq(second.claimed, cudaSuccess, "the second thread: %s",
                 cudaGetErrorName(second.claimed));
    cr_expect_eq(second.waiting, cudaErrorNotReady,
                 "the second thread's stream ran beside the first thread's launch: %s",
                 cudaGetErrorName(second.waiting));
    cr_expect_eq(second.finished, cudaSuccess, "%s", cudaGetErrorName(second.finished));
    cr_expect_eq(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    cudaFree(ticket_counter);
}
