/* common/scratch.c on a GPU, the guard of steps 12 and 13 used as a library: a launch on
 * another stream while the scratch's latest launch may still run is refused with a message;
 * on the same stream, or once that launch is over, it goes ahead. The "launch" on stream A
 * is a host function that waits until the test lets it go, so the stream stays busy for as
 * long as the test needs. */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

static atomic_bool let_go;

static void CUDART_CB wait_until_let_go(void *unused)
{
    (void)unused;
    while (!atomic_load(&let_go)) sched_yield();
}

Test(gpu_scratch, a_second_stream_is_refused_while_the_first_launch_may_run)
{
    unsigned *ticket_counter = NULL;
    cudaStream_t a, b;
    struct capture capture;
    require_gpu("step13");
    cr_assert_eq(cudaMalloc((void **)&ticket_counter, sizeof *ticket_counter), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    atomic_store(&let_go, false);

    cr_assert_eq(scratch_claim(ticket_counter, a), cudaSuccess);
    cr_assert_eq(scratch_release(ticket_counter, a, cudaLaunchHostFunc(a, wait_until_let_go, NULL)),
                 cudaSuccess);
    capture_begin(&capture, STDERR_FILENO);
    cudaError_t refused = scratch_claim(ticket_counter, b);
    char *said = capture_end(&capture);
    cr_expect_eq(refused, cudaErrorNotPermitted, "%s", cudaGetErrorName(refused));
    cr_expect_not_null(strstr(said, "still in use by a launch on another stream"), "%s", said);
    free(said);

    cr_expect_eq(scratch_claim(ticket_counter, a), cudaSuccess, "the same stream runs in order");
    cr_expect_eq(scratch_release(ticket_counter, a, cudaSuccess), cudaSuccess);

    atomic_store(&let_go, true);
    cr_assert_eq(cudaStreamSynchronize(a), cudaSuccess);
    cr_expect_eq(scratch_claim(ticket_counter, b), cudaSuccess, "a's launch is over");
    cr_expect_eq(scratch_release(ticket_counter, b, cudaSuccess), cudaSuccess);
    cr_expect_eq(cudaStreamSynchronize(b), cudaSuccess);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaFree(ticket_counter);
}
