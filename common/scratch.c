#include <pthread.h>

#include "toolbox.h"

enum { MOST_SCRATCHES = 64 };

/* Each scratch that a launch has used: its ticket counter (the scratch's name), the stream and
 * device of its latest launch, and an event recorded after that launch (an event costs the
 * stream nothing: a launch timed between two others is timed the same). One host thread at a
 * time: the lock is held from the claim to the release. */
struct scratch_use {
    const void *ticket_counter;
    cudaStream_t stream;
    cudaEvent_t after;
    int device;
};
static struct scratch_use uses[MOST_SCRATCHES];
static pthread_mutex_t uses_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether the latest launch on this scratch may still run: cudaErrorNotReady, or an error. */
static cudaError_t still_running(const struct scratch_use *use)
{
    return use->after != NULL ? cudaEventQuery(use->after) : cudaSuccess;
}

/* Launches on one stream of one device run in the order they were enqueued. */
static bool same_stream(const struct scratch_use *use, cudaStream_t stream)
{
    int device = 0;
    return use->stream == stream && cudaGetDevice(&device) == cudaSuccess && device == use->device;
}

static struct scratch_use *use_of(const void *ticket_counter)
{
    struct scratch_use *free_slot = NULL;
    for (int i = 0; i < MOST_SCRATCHES; i++) {
        if (uses[i].ticket_counter == ticket_counter) return &uses[i];
        if (free_slot == NULL && uses[i].ticket_counter == NULL) free_slot = &uses[i];
    }
    /* A full table forgets a scratch whose latest launch has finished. */
    for (int i = 0; free_slot == NULL && i < MOST_SCRATCHES; i++)
        if (still_running(&uses[i]) == cudaSuccess) free_slot = &uses[i];
    if (free_slot != NULL) free_slot->ticket_counter = NULL;
    return free_slot;
}

cudaError_t scratch_claim(const void *ticket_counter, cudaStream_t stream)
{
    pthread_mutex_lock(&uses_lock);
    struct scratch_use *use = use_of(ticket_counter);
    cudaError_t running = use == NULL || use->ticket_counter == NULL || same_stream(use, stream)
                              ? cudaSuccess
                              : still_running(use);
    if (use == NULL) {
        fprintf(stderr, "scratch_claim: more than %d scratches with launches in flight\n",
                MOST_SCRATCHES);
        running = cudaErrorNotPermitted;
    } else if (running == cudaErrorNotReady) {
        fprintf(stderr,
                "scratch_claim: the block sums and ticket counter at %p are still in use by a "
                "launch on another stream; two launches in flight on one scratch would mix "
                "their block sums. Give each stream a scratch of its own, or make this stream "
                "wait for the other one first (reduce.h).\n",
                ticket_counter);
        running = cudaErrorNotPermitted;
    }
    if (running != cudaSuccess) pthread_mutex_unlock(&uses_lock);
    return running;
}

cudaError_t scratch_release(const void *ticket_counter, cudaStream_t stream, cudaError_t launch)
{
    struct scratch_use *use = use_of(ticket_counter);
    cudaError_t status = launch;
    int device = 0;
    if (status == cudaSuccess) status = cudaGetDevice(&device);
    if (status == cudaSuccess && use->after != NULL && use->device != device) {
        status = cudaEventDestroy(use->after); /* an event records on its own device only */
        use->after = NULL;
    }
    if (status == cudaSuccess && use->after == NULL)
        status = cudaEventCreateWithFlags(&use->after, cudaEventDisableTiming);
    if (status == cudaSuccess) status = cudaEventRecord(use->after, stream);
    if (status == cudaSuccess)
        *use = (struct scratch_use){ticket_counter, stream, use->after, device};
    pthread_mutex_unlock(&uses_lock);
    return status;
}
