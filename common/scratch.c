#include <pthread.h>

#include "toolbox.h"

enum { MOST_SCRATCHES = 64 };

/* Each scratch that a launch has used: its ticket counter (the scratch's name), the stream,
 * device and host thread of its latest launch, and an event recorded after that launch (an
 * event costs the stream nothing: a launch timed between two others is timed the same). One
 * host thread at a time: the lock is held from the claim to the release. */
struct scratch_use {
    const void *ticket_counter;
    cudaStream_t stream;
    cudaEvent_t after;
    int device;
    pthread_t thread;
};
static struct scratch_use uses[MOST_SCRATCHES];
static pthread_mutex_t uses_lock = PTHREAD_MUTEX_INITIALIZER;

/* The same handle from the same host thread on the same device is the same stream, whose
 * launches run in order. From another thread it may not be: cudaStreamPerThread (and 0, where
 * per-thread default streams are on) names each thread's own stream. */
static bool same_stream(const struct scratch_use *use, cudaStream_t stream)
{
    int device = 0;
    return use->stream == stream && pthread_equal(use->thread, pthread_self()) &&
           cudaGetDevice(&device) == cudaSuccess && device == use->device;
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
        if (cudaEventQuery(uses[i].after) == cudaSuccess) free_slot = &uses[i];
    if (free_slot != NULL) free_slot->ticket_counter = NULL;
    return free_slot;
}

cudaError_t scratch_claim(const void *ticket_counter, cudaStream_t stream)
{
    pthread_mutex_lock(&uses_lock);
    struct scratch_use *use = use_of(ticket_counter);
    cudaError_t status = cudaSuccess;
    if (use == NULL) {
        fprintf(stderr, "scratch_claim: more than %d scratches with launches in flight\n",
                MOST_SCRATCHES);
        status = cudaErrorNotPermitted;
    } else if (use->ticket_counter != NULL && !same_stream(use, stream)) {
        status = cudaStreamWaitEvent(stream, use->after, 0); /* ordered after that launch */
    }
    if (status != cudaSuccess) pthread_mutex_unlock(&uses_lock);
    return status;
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
        *use = (struct scratch_use){ticket_counter, stream, use->after, device, pthread_self()};
    pthread_mutex_unlock(&uses_lock);
    return status;
}
