/* step15_multi_gpu: several GPUs as one team (team.h says what each function does).
 *
 * How several GPUs are timed. Each run flushes every GPU's L2 (the toolbox's timer_start, on
 * the GPU's stream 0); every GPU's own stream then waits for all the flushes of this process
 * and records its start event, so no GPU's clock runs before the last flush is over, however
 * late the host enqueued it. Its stop event is recorded on the same stream after its share of
 * the run, and all the stops are recorded before the host waits for any. A run's time is the
 * slowest GPU's: the total is known when the last GPU is done. A GPU that reaches an
 * all-reduce before the others waits there, so its time covers their later start (gather:
 * GPU 0 does the copies and the reduction, and its own time is the run's). The combine's
 * time: for an all-reduce the shortest that any GPU spent in it (the last to arrive waits for
 * no one, so its time is the all-reduce alone); for gather GPU 0's, from its first copy to its
 * last. Under mpirun the processes meet at an MPI barrier before each run, so that they start
 * together, and agree on both figures with MPI after it.
 *
 * No wait blocks. A GPU stuck in a collective whose partner has gone would block
 * cudaStreamSynchronize forever; instead every wait polls the stream, reads NCCL's
 * asynchronous errors between polls, and gives up after --timeout seconds. The communicators
 * are non-blocking (ncclConfig_t's blocking = 0): their set-up, which waits for every rank,
 * and any NCCL call that answers ncclInProgress are polled the same way (nccl_settle). Giving
 * up aborts the communicators (ncclCommAbort), and under mpirun team_end stops every
 * process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "launched.h"
#include "team.h"

static const double MS_PER_US = 1e-3, NS_PER_S = 1e9;
/* Between two looks at a stream that is still busy: short beside any run, long enough that
 * the polling host thread takes little of a CPU. */
static const struct timespec POLL_PAUSE = {.tv_sec = 0, .tv_nsec = 20000};
#define NCCL_TRY(call)                                                                             \
    do {                                                                                           \
        if (!NCCL_OK(call)) return false;                                                          \
    } while (0)
/* Inside ncclGroupStart .. ncclGroupEnd: a failed call stops the loop, and group_end still
 * closes the group. */
#define NCCL_IN_GROUP(ok, call) ((ok) = (ok) && NCCL_OK(call))
/* Any of these in the environment: a process that mpirun (or another MPI launcher) started. */
static const char *const LAUNCHER_VARIABLES[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};

/* ncclInProgress is no error: a non-blocking communicator goes on in the background, and
 * nccl_settle waits for it. */
bool nccl_succeeded(ncclResult_t status, const char *call, const char *file, int line)
{
    bool ok = status == ncclSuccess || status == ncclInProgress;
    if (!ok)
        fprintf(stderr, "NCCL error at %s:%d: %s\n  in %s\n  (%s)\n", file, line,
                ncclGetErrorString(status), call, ncclGetLastError(NULL));
    return ok;
}

/* Until every communicator of this process has done what `calls` started (set up, or
 * enqueued on its stream), for at most --timeout seconds: with the other waits, below. */
static bool nccl_settle(struct team *t, const char *calls);

/* Every ncclGroupStart has its ncclGroupEnd, whatever happened between them; the group's
 * `calls` are then settled before anything else is enqueued on their streams. */
static bool group_end(struct team *t, bool ok, const char *calls)
{
    bool ended = NCCL_OK(ncclGroupEnd());
    return ok && ended && nccl_settle(t, calls);
}

/* ---- Start-up: the processes, the GPUs, NCCL ------------------------------------------- */
int team_number_option(const char *name, const char *text, int highest, const char *program,
                       int *value)
{
    char *end = NULL;
    long number = text != NULL ? strtol(text, &end, 10) : 0;
    bool digits = text != NULL && *text >= '0' && *text <= '9' && *end == '\0';
    if (text == NULL) return OPTIONS_RUN;
    if (digits && number >= 1 && number <= highest) {
        *value = (int)number;
        return OPTIONS_RUN;
    }
    fprintf(stderr,
            "%s: --%s takes a whole number in 1..%d, not '%s'\n(%s/run --help lists the "
            "options)\n",
            program, name, highest, text, program);
    return EXIT_USAGE;
}

bool team_begin(struct team *t, const char *program, int timeout_s)
{
    memset(t, 0, sizeof *t);
    t->program = program;
    t->processes = 1;
    t->timeout_s = timeout_s;
    for (size_t v = 0; v < sizeof LAUNCHER_VARIABLES / sizeof LAUNCHER_VARIABLES[0]; v++)
        if (getenv(LAUNCHER_VARIABLES[v]) != NULL) t->mpi = true;
    return !t->mpi || mpi_start(t);
}

/* Without mpirun: the first `wanted` visible GPUs, or all of them. */
static int choose_local_gpus(struct team *t, int wanted, int visible)
{
    if (wanted > visible) {
        fprintf(stderr,
                "%s: --gpus %d, but this machine shows %d GPU(s) (CUDA_VISIBLE_DEVICES "
                "chooses which)\n",
                t->program, wanted, visible);
        return EXIT_ENVIRONMENT;
    }
    t->size = t->count = wanted > 0 ? wanted : visible < MAX_GPUS ? visible : MAX_GPUS;
    for (int i = 0; i < t->count; i++) t->gpus[i] = (struct gpu){.device = i, .rank = i};
    return OPTIONS_RUN;
}

/* Under mpirun: one GPU per process, the process's place on its machine. */
static int choose_mpi_gpu(struct team *t, int wanted, int visible)
{
    int local = 0;
    if (!mpi_local_rank(&local)) return EXIT_ENVIRONMENT;
    t->size = t->processes;
    t->count = 1;
    t->gpus[0] = (struct gpu){.device = visible > 1 ? local : 0, .rank = t->process};
    if (t->processes > MAX_GPUS) {
        fprintf(stderr, "%s: mpirun started %d processes, and each drives one GPU: at most %d\n",
                t->program, t->processes, MAX_GPUS);
        return EXIT_USAGE;
    }
    if (wanted > 0 && wanted != t->processes) {
        fprintf(stderr,
                "%s: --gpus %d, but mpirun started %d process(es), and each drives one GPU: "
                "leave --gpus out, or start %d\n",
                t->program, wanted, t->processes, wanted);
        return EXIT_USAGE;
    }
    if (visible == 1 || local < visible) return OPTIONS_RUN;
    fprintf(stderr,
            "%s: process %d is number %d on its machine, which shows %d GPU(s): start at "
            "most %d processes per machine\n",
            t->program, t->process, local + 1, visible, visible);
    return EXIT_ENVIRONMENT;
}

int team_choose(struct team *t, int wanted)
{
    int visible = 0;
    /* no GPU, or no driver: device_open_number explains it in the toolbox's words */
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) return OPTIONS_RUN;
    return t->mpi ? choose_mpi_gpu(t, wanted, visible) : choose_local_gpus(t, wanted, visible);
}

/* A stream, the run's and the combine's events, and a timer whose flush covers this GPU's own
 * L2. */
static bool gpu_prepare(struct gpu *g, const struct device_info *device, const struct options *o)
{
    struct device_info own = *device;
    int l2_bytes = 0;
    CUDA_TRY(cudaSetDevice(g->device));
    CUDA_TRY(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, g->device));
    own.l2_bytes = (size_t)l2_bytes;
    CUDA_TRY(cudaStreamCreate(&g->stream));
    CUDA_TRY(cudaEventCreate(&g->combine_start));
    CUDA_TRY(cudaEventCreate(&g->combine_end));
    CUDA_TRY(cudaEventCreate(&g->begin));
    CUDA_TRY(cudaEventCreate(&g->end));
    return timer_make(&g->timer, &own, o);
}

/* gather without mpirun: GPU 0 reads the others' memory over the link between them, where
 * the hardware allows it; otherwise the runtime stages each copy through host memory. */
static bool allow_direct_copies(struct team *t)
{
    t->direct_copies = t->count > 1;
    CUDA_TRY(cudaSetDevice(t->gpus[0].device));
    for (int i = 1; i < t->count; i++) {
        int possible = 0;
        CUDA_TRY(cudaDeviceCanAccessPeer(&possible, t->gpus[0].device, t->gpus[i].device));
        t->direct_copies = t->direct_copies && possible;
        if (!possible) continue;
        cudaError_t status = cudaDeviceEnablePeerAccess(t->gpus[i].device, 0);
        if (status == cudaErrorPeerAccessAlreadyEnabled) { /* enabled before: what we want */
            (void)cudaGetLastError();                      /* and not an error to report later */
            status = cudaSuccess;
        }
        CUDA_TRY(status);
    }
    return true;
}

/* One non-blocking communicator per GPU, each joining with its rank and NCCL's id: every GPU
 * of one process in one group (what ncclCommInitAll does, which takes no config); under
 * mpirun rank 0 makes the id and MPI hands it to the others, as it would across machines. The
 * set-up waits for every rank: a rank that never joins makes the others give up after
 * --timeout seconds instead of waiting for ever. */
static bool communicators(struct team *t)
{
    ncclUniqueId id;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    bool ok = true;
    config.blocking = 0;
    if (t->process == 0) NCCL_TRY(ncclGetUniqueId(&id));
    if (t->mpi && !mpi_from_rank0(t, &id, sizeof id)) return false;
    NCCL_TRY(ncclGroupStart());
    for (int i = 0; ok && i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        ok = CUDA_OK(cudaSetDevice(g->device));
        NCCL_IN_GROUP(ok, ncclCommInitRankConfig(&g->comm, t->size, id, g->rank, &config));
    }
    return group_end(t, ok, "ncclCommInitRankConfig (NCCL's set-up)");
}

/* The report's device: K times GPU 0, which is only right if the GPUs are alike; says so
 * when one is not (under mpirun each process compares its GPU with rank 0's). */
static bool describe(struct team *t, const struct device_info *device)
{
    char first[sizeof device->name];
    struct cudaDeviceProp prop;
    snprintf(first, sizeof first, "%s", device->name);
    if (t->mpi && !mpi_from_rank0(t, first, sizeof first)) return false;
    for (int i = 0; i < t->count; i++) {
        CUDA_TRY(cudaGetDeviceProperties(&prop, t->gpus[i].device));
        if (strcmp(prop.name, first) != 0)
            fprintf(stderr, "%s: note: GPU %d is a %s, GPU 0 a %s; the report counts %d of GPU 0\n",
                    t->program, t->gpus[i].rank, prop.name, first, t->size);
    }
    t->together = *device;
    snprintf(t->together.name, sizeof t->together.name, "%d x %.200s", t->size, device->name);
    t->together.sm_count *= t->size;
    t->together.peak_gb_per_s *= t->size;
    return true;
}

int team_open(struct team *t, const struct device_info *device, const struct options *o)
{
    for (int i = 0; i < t->count; i++)
        if (!gpu_prepare(&t->gpus[i], device, o)) return EXIT_ENVIRONMENT;
    if (!t->mpi && !allow_direct_copies(t)) return EXIT_ENVIRONMENT;
    if (!communicators(t)) return EXIT_ENVIRONMENT;
    if (!describe(t, device)) return EXIT_ENVIRONMENT;
    if (!timer_make_samples(&t->slowest, o->iters)) return EXIT_ENVIRONMENT;
    if (!timer_make_samples(&t->combine, o->iters)) return EXIT_ENVIRONMENT;
    return OPTIONS_RUN;
}

/* Every communicator finalized in one group: false if one fails. Finalizing waits for the
 * other ranks, so it is settled under --timeout too. */
static bool communicators_finalize(struct team *t)
{
    bool ok = true;
    NCCL_TRY(ncclGroupStart());
    for (int i = 0; i < t->count; i++)
        if (t->gpus[i].comm != NULL) NCCL_IN_GROUP(ok, ncclCommFinalize(t->gpus[i].comm));
    return group_end(t, ok, "ncclCommFinalize");
}

/* After an error NCCL's operations may never finish: ncclCommAbort ends them (and their
 * kernels, and a set-up still waiting for a rank) where ncclCommDestroy would wait for them. */
static void communicators_abort(struct team *t)
{
    for (int i = 0; i < t->count; i++) {
        if (t->gpus[i].comm != NULL) NCCL_OK(ncclCommAbort(t->gpus[i].comm));
        t->gpus[i].comm = NULL;
    }
}

/* false after an error, or when a communicator could not be finalized or freed. */
static bool communicators_close(struct team *t, bool failed)
{
    bool ok = !failed && communicators_finalize(t);
    if (!ok) {
        communicators_abort(t);
        return false;
    }
    for (int i = 0; i < t->count; i++) {
        if (t->gpus[i].comm != NULL && !NCCL_OK(ncclCommDestroy(t->gpus[i].comm))) ok = false;
        t->gpus[i].comm = NULL;
    }
    return ok;
}

static void gpu_close(struct gpu *g)
{
    if (!CUDA_OK(cudaSetDevice(g->device))) return;
    timer_free(&g->timer);
    if (g->combine_start != NULL) CUDA_OK(cudaEventDestroy(g->combine_start));
    if (g->combine_end != NULL) CUDA_OK(cudaEventDestroy(g->combine_end));
    if (g->begin != NULL) CUDA_OK(cudaEventDestroy(g->begin));
    if (g->end != NULL) CUDA_OK(cudaEventDestroy(g->end));
    if (g->stream != NULL) CUDA_OK(cudaStreamDestroy(g->stream));
}

int team_end(struct team *t, int status)
{
    if (t->failed) status = EXIT_ENVIRONMENT;
    if (!communicators_close(t, status == EXIT_ENVIRONMENT)) status = EXIT_ENVIRONMENT;
    if (t->mpi_started && status == EXIT_ENVIRONMENT && t->processes > 1) {
        fprintf(stderr, "%s: process %d stops every process (exit code %d)\n", t->program,
                t->process, status);
        mpi_abort(status);
    }
    team_buffers_free(t);
    for (int i = 0; i < t->count; i++) gpu_close(&t->gpus[i]);
    timer_free(&t->slowest);
    timer_free(&t->combine);
    if (t->mpi_started && !mpi_finish()) status = EXIT_ENVIRONMENT;
    return status;
}

/* ---- Waiting for the GPUs, never for ever ------------------------------------------------ */
static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / NS_PER_S;
}

/* Gives up: every communicator of this process aborted, so that no NCCL kernel keeps a GPU
 * busy; team_end turns this into exit code 3 (under mpirun: for every process). */
static bool team_fail(struct team *t)
{
    t->failed = true;
    communicators_abort(t);
    return false;
}

/* NCCL reports a lost peer or a broken connection asynchronously, on the communicator:
 * ncclInProgress is an operation still under way, anything else but success an error. */
static bool nccl_healthy(struct team *t)
{
    for (int i = 0; i < t->count; i++) {
        ncclResult_t async = ncclSuccess;
        if (t->gpus[i].comm == NULL) continue;
        if (!NCCL_OK(ncclCommGetAsyncError(t->gpus[i].comm, &async))) return false;
        if (async == ncclSuccess || async == ncclInProgress) continue;
        fprintf(stderr, "%s: NCCL reports an error on GPU %d while waiting for it: %s\n  (%s)\n",
                t->program, t->gpus[i].rank, ncclGetErrorString(async),
                ncclGetLastError(t->gpus[i].comm));
        return false;
    }
    return true;
}

/* Everything enqueued on g's stream done, or false after saying why: a CUDA error, an
 * asynchronous NCCL error, or --timeout seconds gone by. Either of the last two aborts NCCL. */
static bool team_wait(struct team *t, const struct gpu *g)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    CUDA_TRY(cudaSetDevice(g->device));
    for (;;) {
        cudaError_t status = cudaStreamQuery(g->stream);
        if (status == cudaSuccess) return true;
        if (status != cudaErrorNotReady) return CUDA_OK(status);
        /* not an error, but the runtime may keep it as the last one, where the next launch's
         * cudaGetLastError would find it */
        if (cudaPeekAtLastError() == cudaErrorNotReady) (void)cudaGetLastError();
        if (!nccl_healthy(t)) return team_fail(t);
        if (seconds_since(&start) > t->timeout_s) {
            fprintf(stderr,
                    "%s: GPU %d has not finished after %.0f s (--timeout): a GPU or process it "
                    "waits for has stopped or is gone. Aborting NCCL.\n",
                    t->program, g->rank, t->timeout_s);
            return team_fail(t);
        }
        nanosleep(&POLL_PAUSE, NULL);
    }
}

/* A non-blocking communicator answers ncclInProgress until the calls are done; then
 * ncclSuccess, or their error. No other NCCL call, and no launch on its stream, may come
 * before (NCCL's user guide, on non-blocking communicators). */
static bool nccl_settle(struct team *t, const char *calls)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < t->count; i++) {
        const struct gpu *g = &t->gpus[i];
        ncclResult_t state = ncclSuccess;
        if (g->comm == NULL) continue;
        for (;;) {
            if (!NCCL_OK(ncclCommGetAsyncError(g->comm, &state))) return team_fail(t);
            if (state != ncclInProgress) break;
            if (seconds_since(&start) > t->timeout_s) {
                fprintf(stderr,
                        "%s: %s on GPU %d has not finished after %.0f s (--timeout): a GPU or "
                        "process it waits for has stopped or is gone. Aborting NCCL.\n",
                        t->program, calls, g->rank, t->timeout_s);
                return team_fail(t);
            }
            nanosleep(&POLL_PAUSE, NULL);
        }
        if (state != ncclSuccess) {
            fprintf(stderr, "%s: NCCL reports an error on GPU %d in %s: %s\n  (%s)\n", t->program,
                    g->rank, calls, ncclGetErrorString(state), ncclGetLastError(g->comm));
            return team_fail(t);
        }
    }
    return true;
}

/* ---- The shards: where each GPU's part of the input lies -------------------------------- */
size_t shard_start(size_t n, int rank, int size)
{
    return (n * (size_t)rank + (size_t)size - 1) / (size_t)size;
}

/* step13's device memory beside the input, for the most blocks any block size needs: the
 * block sums, the total, and the ticket counter, zeroed once; each launch leaves them 0. */
static bool scratch_create(struct scratch *s, size_t n)
{
    size_t bytes = block_sums_bytes(grid_blocks(n, FEWEST_THREADS, FEWEST_VECTORS));
    CUDA_TRY(cudaMalloc((void **)&s->block_sums, bytes + sizeof(float)));
    CUDA_TRY(cudaMalloc((void **)&s->ticket_counter, sizeof(unsigned)));
    s->total = (float *)((char *)s->block_sums + bytes);
    CUDA_TRY(cudaMemset(s->block_sums, 0, bytes));
    return CUDA_OK(cudaMemset(s->ticket_counter, 0, sizeof(unsigned)));
}

/* step13's float4 a thread for these GPUs (one model): their bandwidth per SM. */
unsigned team_card_vectors(const struct team *t)
{
    return card_vectors(t->together.peak_gb_per_s / t->together.sm_count);
}

bool team_buffers(struct team *t, size_t n, bool summed)
{
    size_t longest = shard_start(n, 1, t->size);
    for (int i = 0; i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        size_t room = g->rank == 0 ? n : longest;
        CUDA_TRY(cudaSetDevice(g->device));
        /* cudaMalloc(0) gives NULL: one float keeps every buffer a real one */
        CUDA_TRY(cudaMalloc((void **)&g->shard, (room > 0 ? room : 1) * sizeof(float)));
        if (summed)
            CUDA_TRY(cudaMalloc((void **)&g->summed, (longest > 0 ? longest : 1) * sizeof(float)));
        if (!scratch_create(&g->scratch, room)) return false;
        g->scratch.card_vectors = team_card_vectors(t);
        g->scratch.l2_bytes = t->together.l2_bytes; /* GPU 0's: the together count is one card's */
    }
    return true;
}

void team_buffers_free(struct team *t)
{
    for (int i = 0; i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        if (g->shard == NULL || !CUDA_OK(cudaSetDevice(g->device))) continue;
        CUDA_OK(cudaFree(g->shard));
        CUDA_OK(cudaFree(g->summed));
        CUDA_OK(cudaFree(g->scratch.block_sums));
        CUDA_OK(cudaFree(g->scratch.ticket_counter));
        g->shard = g->summed = NULL;
        g->scratch = (struct scratch){0};
    }
}

bool team_scatter(struct team *t, const float *whole, const float *host, size_t n)
{
    size_t longest = shard_start(n, 1, t->size);
    for (int i = 0; i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        g->first = shard_start(n, g->rank, t->size);
        g->length = shard_start(n, g->rank + 1, t->size) - g->first;
        size_t padding = longest - g->length;
        CUDA_TRY(cudaSetDevice(g->device));
        if (g->rank == 0) {
            CUDA_TRY(cudaMemcpy(g->shard, whole, n * sizeof(float), cudaMemcpyDefault));
        } else {
            CUDA_TRY(cudaMemcpy(g->shard, host + g->first, g->length * sizeof(float),
                                cudaMemcpyHostToDevice));
            CUDA_TRY(cudaMemset(g->shard + g->length, 0, padding * sizeof(float)));
        }
        CUDA_TRY(cudaDeviceSynchronize());
    }
    return true;
}

bool team_poison(struct team *t, size_t n)
{
    struct gpu *g = team_first(t);
    enum { NAN_BYTE = 0xff }; /* all bits set: a NaN */
    if (g == NULL) return true;
    CUDA_TRY(cudaSetDevice(g->device));
    CUDA_TRY(cudaMemset(g->shard + g->length, NAN_BYTE, (n - g->length) * sizeof(float)));
    return CUDA_OK(cudaDeviceSynchronize());
}

bool team_poison_totals(struct team *t)
{
    for (int i = 0; i < t->count; i++) {
        CUDA_TRY(cudaSetDevice(t->gpus[i].device));
        if (!outputs_poison(t->gpus[i].scratch.total, sizeof(float))) return false;
    }
    return true;
}

struct gpu *team_first(struct team *t)
{
    return t->gpus[0].rank == 0 ? &t->gpus[0] : NULL;
}

/* ---- The combines, between each GPU's combine events ------------------------------------ */
static bool mark(struct gpu *g, bool end)
{
    CUDA_TRY(cudaSetDevice(g->device));
    CUDA_TRY(cudaEventRecord(end ? g->combine_end : g->combine_start, g->stream));
    g->combined = true;
    return true;
}

static bool mark_all(struct team *t, bool end)
{
    for (int i = 0; i < t->count; i++)
        if (!mark(&t->gpus[i], end)) return false;
    return true;
}

bool team_allreduce_totals(struct team *t)
{
    bool ok = true;
    if (!mark_all(t, false)) return false;
    NCCL_TRY(ncclGroupStart());
    for (int i = 0; ok && i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        float *total = g->scratch.total;
        NCCL_IN_GROUP(ok, ncclAllReduce(total, total, 1, ncclFloat, ncclSum, g->comm, g->stream));
    }
    return group_end(t, ok, "ncclAllReduce") && mark_all(t, true);
}

bool team_allreduce_arrays(struct team *t, size_t count)
{
    bool ok = true;
    if (!mark_all(t, false)) return false;
    NCCL_TRY(ncclGroupStart());
    for (int i = 0; ok && count > 0 && i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        NCCL_IN_GROUP(
            ok, ncclAllReduce(g->shard, g->summed, count, ncclFloat, ncclSum, g->comm, g->stream));
    }
    return group_end(t, ok, "ncclAllReduce") && mark_all(t, true);
}

/* One process: GPU 0 pulls each shard with cudaMemcpyPeerAsync on its own stream. */
static bool gather_by_copies(struct team *t)
{
    struct gpu *g = &t->gpus[0];
    for (int i = 1; i < t->count; i++) {
        const struct gpu *other = &t->gpus[i];
        CUDA_TRY(cudaMemcpyPeerAsync(g->shard + other->first, g->device, other->shard,
                                     other->device, other->length * sizeof(float), g->stream));
    }
    return true;
}

/* Under mpirun no process can see another's memory, so NCCL moves the shards: rank 0
 * receives one from every other rank, each of which sends its own. */
static bool gather_by_nccl(struct team *t, size_t n)
{
    struct gpu *g = &t->gpus[0];
    bool ok = true;
    NCCL_TRY(ncclGroupStart());
    for (int rank = 1; ok && g->rank == 0 && rank < t->size; rank++) {
        size_t first = shard_start(n, rank, t->size);
        size_t length = shard_start(n, rank + 1, t->size) - first;
        if (length > 0)
            NCCL_IN_GROUP(ok,
                          ncclRecv(g->shard + first, length, ncclFloat, rank, g->comm, g->stream));
    }
    if (g->rank > 0 && g->length > 0)
        NCCL_IN_GROUP(ok, ncclSend(g->shard, g->length, ncclFloat, 0, g->comm, g->stream));
    return group_end(t, ok, "ncclSend and ncclRecv");
}

/* The combine events on GPU 0 alone, around every shard's arrival there: the copies, or under
 * mpirun the receives (a sender's own time would be one shard's, not the gather's). */
bool team_gather(struct team *t, size_t n)
{
    struct gpu *first = team_first(t);
    if (first != NULL && !mark(first, false)) return false;
    if (!(t->mpi ? gather_by_nccl(t, n) : gather_by_copies(t))) return false;
    return first == NULL || mark(first, true);
}

/* ---- The clocks -------------------------------------------------------------------------- */
bool team_clock_start(struct team *t)
{
    if (t->mpi && !mpi_barrier(t)) return false;
    for (int i = 0; i < t->count; i++) {
        t->gpus[i].combined = false;
        CUDA_TRY(cudaSetDevice(t->gpus[i].device));
        if (!timer_start(&t->gpus[i].timer)) return false; /* the flush, then timer.start */
    }
    /* every stream waits for every flush: no GPU reads (or is read by a peer) while an L2
     * flush still runs anywhere in this process; only then does its clock start, so that the
     * host's turn-by-turn enqueueing of the flushes is not inside any GPU's time */
    for (int i = 0; i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        CUDA_TRY(cudaSetDevice(g->device));
        for (int j = 0; j < t->count; j++)
            CUDA_TRY(cudaStreamWaitEvent(g->stream, t->gpus[j].timer.start, 0));
        CUDA_TRY(cudaEventRecord(g->begin, g->stream));
    }
    return true;
}

static bool elapsed(cudaEvent_t from, cudaEvent_t to, double *milliseconds)
{
    float ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, from, to));
    *milliseconds = ms;
    return true;
}

bool team_clock_stop(struct team *t, bool keep)
{
    double slowest = 0, combine = INFINITY, ms = 0;
    for (int i = 0; i < t->count; i++) {
        CUDA_TRY(cudaSetDevice(t->gpus[i].device));
        CUDA_TRY(cudaEventRecord(t->gpus[i].end, t->gpus[i].stream));
    }
    for (int i = 0; i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        if (!team_wait(t, g)) return false;
        if (!elapsed(g->begin, g->end, &ms)) return false;
        slowest = fmax(slowest, ms);
        if (!g->combined) continue;
        if (!elapsed(g->combine_start, g->combine_end, &ms)) return false;
        combine = fmin(combine, ms);
    }
    if (t->mpi && !mpi_agree(t, &slowest, &combine)) return false;
    if (!keep) return true;
    timer_keep(&t->slowest, slowest);
    timer_keep(&t->combine, isfinite(combine) ? combine : 0);
    return true;
}

struct timing team_times(struct team *t, struct timing *combine)
{
    *combine = timer_summary(&t->combine);
    return timer_summary(&t->slowest);
}

/* ---- The report's own lines, and the total ---------------------------------------------- */
void team_print(const struct team *t, int variant, const struct report *r, struct timing combine,
                struct timing alone)
{
    const char *gather =
        t->mpi ? "every shard received by GPU 0 (ncclRecv from each rank's ncclSend), on GPU 0's "
                 "clock: a rank that sends late is inside it"
        : t->direct_copies || t->count == 1
            ? "every shard copied to GPU 0 (cudaMemcpyPeerAsync), on GPU 0's clock"
            : "every shard copied to GPU 0 (cudaMemcpyPeerAsync, staged through host memory), "
              "on GPU 0's clock";
    const char *combines[] = {"ncclAllReduce of one float per GPU; the GPU that waited least",
                              gather,
                              "ncclAllReduce of the shards, element by element; the GPU that "
                              "waited least"};
    double bytes = (double)r->n * sizeof(float);
    printf("gpus       %d, %s\n", t->size,
           t->mpi ? "one per process under mpirun (ncclCommInitRankConfig in each)"
                  : "all driven by one process (ncclCommInitRankConfig for each, in one group)");
    printf("combine    %.1f us median: %s\n", combine.median_ms / MS_PER_US, combines[variant]);
    if (alone.runs == 0) return;
    printf("one GPU    %.4f ms median, %.1f GB/s: the same n, the same kernel, on GPU 0 alone\n",
           alone.median_ms, effective_gb_per_s(bytes, alone.median_ms));
    printf("speed-up   %.2fx over one GPU, with %d GPU(s)\n", alone.median_ms / r->time.median_ms,
           t->size);
}

/* A GPU's kernel and finish as bytes that MPI can carry to rank 0. */
struct launched_names {
    char kernel[LAUNCHED_NAME_BYTES], finish[LAUNCHED_NAME_BYTES];
};

bool team_launched(struct team *t, struct launched *launched)
{
    struct launched_names names[MAX_GPUS] = {0}; /* by rank; under mpirun this process's first */
    const char *kernels[MAX_GPUS], *finishes[MAX_GPUS];
    for (int i = 0; i < t->count; i++) {
        const struct launched *l = &t->gpus[i].launched;
        snprintf(names[i].kernel, sizeof names[i].kernel, "%s", l->kernel ? l->kernel : "");
        snprintf(names[i].finish, sizeof names[i].finish, "%s", l->finish ? l->finish : "");
    }
    if (t->mpi && !mpi_to_rank0(t, names, sizeof names[0])) return false;
    for (int rank = 0; rank < t->size; rank++) {
        kernels[rank] = names[rank].kernel;
        finishes[rank] = names[rank].finish;
    }
    launched->kernel = launched_by_every_gpu(kernels, t->size, ",", t->kernels, sizeof t->kernels);
    /* ";" between finishes: the CSV quotes the kernel column, not the finish column */
    launched->finish = launched_by_every_gpu(finishes, t->size, ";", t->finishes,
                                             sizeof t->finishes);
    return true;
}

bool team_total(struct team *t, int variant, float *total, bool *held)
{
    float first = 0, value = 0;
    *held = false;
    for (int i = 0; i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        if (!team_wait(t, g)) return false; /* a sender too: its shard must have left */
        if (variant == DATA_GATHERED && g->rank != 0) continue;
        CUDA_TRY(cudaMemcpy(&value, g->scratch.total, sizeof value, cudaMemcpyDeviceToHost));
        if (!*held) {
            first = *total = value;
        } else if (memcmp(&value, &first, sizeof value) != 0) {
            fprintf(stderr,
                    "%s: GPU %d holds %.9g but GPU %d holds %.9g: an all-reduce must "
                    "leave the same total everywhere\n",
                    t->program, g->rank, value, t->gpus[0].rank, first);
            *total = NAN;
        }
        *held = true;
    }
    return true;
}
