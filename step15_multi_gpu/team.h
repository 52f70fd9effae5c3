/* step15_multi_gpu: the GPUs a process drives and how they meet. NCCL joins the GPUs; under
 * mpirun, MPI starts one process per GPU and hands them NCCL's id. host.c is the program;
 * team.c keeps the set-up, the combines and the clocks of several GPUs out of its way. */
#ifndef STEP_TEAM_H
#define STEP_TEAM_H

#include <nccl.h>

#include "reduce.h"
#include "toolbox.h"

enum { MAX_GPUS = 64 };
/* The report's kernel and finish: each GPU's name, then the list of all of them when they
 * differ ("mixed: GPU 0 A, GPU 1 B", launched.h): 16 bytes hold "mixed:", and a GPU's
 * " GPU 63" and separator. */
enum { LAUNCHED_NAME_BYTES = 96, LAUNCHED_TEXT_BYTES = 16 + MAX_GPUS * (LAUNCHED_NAME_BYTES + 16) };
/* How long any wait for the other GPUs or processes may last (--timeout S): long enough for
 * the slowest legitimate wait (a process building 2^32 floats while the others wait for it). */
enum { DEFAULT_TIMEOUT_S = 60, MAX_TIMEOUT_S = 3600 };
/* The order of host.c's variants: where the data meets the reduction (local: where it lies;
 * gather: copied to GPU 0 first; elementwise: the shards added into one by NCCL first). */
enum { DATA_LOCAL, DATA_GATHERED, DATA_SUMMED_ELEMENTWISE };

/* A failed NCCL call prints where, what and why; the caller unwinds (exit code 3).
 * ncclInProgress is no failure: the communicators are non-blocking, and team.c waits for it. */
bool nccl_succeeded(ncclResult_t status, const char *call, const char *file, int line);
#define NCCL_OK(call) nccl_succeeded((call), #call, __FILE__, __LINE__)

struct gpu {
    int device;          /* the CUDA device in this process */
    int rank;            /* its place among all the GPUs: 0 .. size - 1 */
    cudaStream_t stream; /* its reduction and its part of every combine */
    ncclComm_t comm;
    struct timer timer; /* flushes its L2 before each run */
    cudaEvent_t begin;  /* each run's start: after its stream has waited for every flush */
    cudaEvent_t end;    /* each run's end, on its stream */
    cudaEvent_t combine_start, combine_end;
    bool combined;        /* this run recorded the two events above */
    size_t first, length; /* its shard: elements first .. first + length - 1 */
    float *shard;         /* rank 0: the whole input, its own shard first */
    float *summed;        /* elementwise: the sums of the shards, element by element */
    struct scratch scratch;
    struct launched launched; /* what its latest run launched ({NULL, NULL}: nothing) */
};

struct team {
    const char *program;
    bool mpi;                      /* started by mpirun: one process per GPU */
    bool mpi_started;              /* MPI_Init succeeded: MPI_Finalize or MPI_Abort at the end */
    int process, processes;        /* this process and how many there are (1 without mpirun) */
    int size;                      /* K: every process's GPUs together */
    int count;                     /* the GPUs this process drives */
    bool direct_copies;            /* gather without mpirun: GPU 0 reads the others directly */
    double timeout_s;              /* the longest any wait for the others may last */
    bool failed;                   /* a wait gave up: NCCL was aborted, the end stops every rank */
    struct device_info together;   /* K times GPU 0: the report's device line */
    struct timer slowest, combine; /* per run: the slowest GPU; the combine (team.c says how) */
    struct gpu gpus[MAX_GPUS];
    char kernels[LAUNCHED_TEXT_BYTES], finishes[LAUNCHED_TEXT_BYTES]; /* team_launched's */
};

/* processes.c: MPI, under mpirun. Each says what failed and gives false. The collectives wait
 * at most team->timeout_s for the other processes, so a process that is gone stops the rest. */
bool mpi_start(struct team *team); /* MPI_Init; only rank 0 keeps its stdout */
bool mpi_local_rank(int *local);   /* this process's place on its machine */
bool mpi_from_rank0(const struct team *team, void *bytes, size_t size); /* rank 0's, to all */
bool mpi_barrier(const struct team *team);
/* the largest slowest, the smallest combine */
bool mpi_agree(const struct team *team, double *slowest, double *combine);
/* Every process's first `size` bytes of `all`, into rank 0's `all` in rank order. */
bool mpi_to_rank0(const struct team *team, void *all, size_t size);
void mpi_abort(int status); /* stops every process */
bool mpi_finish(void);      /* MPI_Finalize */

/* --NAME V (text NULL: absent, *value unchanged): a whole number in 1 .. highest, else
 * EXIT_USAGE naming the value. */
int team_number_option(const char *name, const char *text, int highest, const char *program,
                       int *value);

/* Before anything else: under mpirun, MPI_Init (built without MPI: a message, and false). */
bool team_begin(struct team *team, const char *program, int timeout_s);
/* Which GPUs this process drives: every visible GPU, or `wanted` (0: all); under mpirun one
 * per process, its place on its machine. No CUDA context is made yet, so a process touches
 * no GPU but its own. No GPU at all: OPTIONS_RUN with GPU 0, for device_open_number to
 * explain. OPTIONS_RUN, or the exit code after a message. */
int team_choose(struct team *team, int wanted);
/* The chosen GPUs' streams, clocks and NCCL communicators; `device` describes the first.
 * OPTIONS_RUN, or the exit code after a message. */
int team_open(struct team *team, const struct device_info *device, const struct options *options);
/* Frees everything; under mpirun ends MPI, or after an error (status 3) aborts every process,
 * so that none waits for a partner that is gone. Returns status. */
int team_end(struct team *team, int status);

/* Where rank's shard of n elements starts: the first shard is a longest one. */
size_t shard_start(size_t n, int rank, int size);
/* Room for n elements: on rank 0's GPU all of them, on the others the longest shard. */
bool team_buffers(struct team *team, size_t n, bool summed);
/* step13's float4 a thread for these GPUs (card_vectors): from their bandwidth per SM. */
unsigned team_card_vectors(const struct team *team);
void team_buffers_free(struct team *team);
/* Rank 0's GPU gets all n elements, copied from `whole` (host or device memory); every other
 * GPU its shard of `host`, then zeros up to the longest shard's length. */
bool team_scatter(struct team *team, const float *whole, const float *host, size_t n);
/* NaN past rank 0's shard: a shard that the gather misses shows in the total. */
bool team_poison(struct team *team, size_t n);
/* Fills every local GPU's total with a NaN (outputs_poison) before a run whose total is read,
 * so that a total no launch wrote cannot pass. */
bool team_poison_totals(struct team *team);
struct gpu *team_first(struct team *team); /* rank 0's GPU, or NULL in the other processes */

/* The combines, enqueued on the GPUs' streams between their combine events. */
bool team_allreduce_totals(struct team *team);
bool team_gather(struct team *team, size_t n);
bool team_allreduce_arrays(struct team *team, size_t count);

/* A timed run: every GPU's L2 flushed, every GPU's stream waits for all the flushes, then its
 * start; then a stop on every stream and, unless warm-up, the slowest GPU's time and the
 * combine's kept. Every wait is bounded (--timeout) and watches NCCL's asynchronous errors. */
bool team_clock_start(struct team *team);
bool team_clock_stop(struct team *team, bool keep);
/* The kept runs' slowest-GPU times, and into *combine the combine's; both start afresh. */
struct timing team_times(struct team *team, struct timing *combine);
/* The report's own lines: how the GPUs meet, the combine in microseconds, GPU 0 alone (when
 * this process timed it: alone.runs > 0) and the speed-up over it. */
void team_print(const struct team *team, int variant, const struct report *report,
                struct timing combine, struct timing alone);
/* The report's kernel and finish: every GPU's latest run's, the one name when they agree, else
 * "mixed: GPU 0 A, GPU 1 B, ..." (under mpirun each process's, gathered to rank 0). The
 * texts are the team's own. Under mpirun every process calls it at the same point. */
bool team_launched(struct team *team, struct launched *launched);
/* Waits (bounded) for every GPU of this process, then reads the total back from every one
 * that holds it: all of them, or GPU 0 alone (gather). *held false: this process holds none.
 * GPUs that disagree make it NaN. */
bool team_total(struct team *team, int variant, float *total, bool *held);

#endif
