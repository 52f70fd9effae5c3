/* step15_multi_gpu: the GPUs a process drives and how they meet. NCCL joins the GPUs; under
 * mpirun, MPI starts one process per GPU and hands them NCCL's id. host.c is the program;
 * team.c keeps the set-up, the combines and the clocks of several GPUs out of its way. */
#ifndef STEP_TEAM_H
#define STEP_TEAM_H

#include <nccl.h>

#include "reduce.h"
#include "toolbox.h"

enum { MAX_GPUS = 64 };
/* The order of host.c's variants: where the data meets the reduction (local: where it lies;
 * gather: copied to GPU 0 first; elementwise: the shards added into one by NCCL first). */
enum { DATA_LOCAL, DATA_GATHERED, DATA_SUMMED_ELEMENTWISE };

/* A failed NCCL call prints where, what and why; the caller unwinds (exit code 3). */
bool nccl_succeeded(ncclResult_t status, const char *call, const char *file, int line);
#define NCCL_OK(call) nccl_succeeded((call), #call, __FILE__, __LINE__)

struct gpu {
    int device;          /* the CUDA device in this process */
    int rank;            /* its place among all the GPUs: 0 .. size - 1 */
    cudaStream_t stream; /* its reduction and its part of every combine */
    ncclComm_t comm;
    struct timer timer; /* flushes its L2 and records each run's start */
    cudaEvent_t end;    /* each run's end, on its stream */
    cudaEvent_t combine_start, combine_end;
    bool combined;        /* this run recorded the two events above */
    size_t first, length; /* its shard: elements first .. first + length - 1 */
    float *shard;         /* rank 0: the whole input, its own shard first */
    float *summed;        /* elementwise: the sums of the shards, element by element */
    struct scratch scratch;
};

struct team {
    const char *program;
    bool mpi;                      /* started by mpirun: one process per GPU */
    bool mpi_started;              /* MPI_Init succeeded: MPI_Finalize or MPI_Abort at the end */
    int process, processes;        /* this process and how many there are (1 without mpirun) */
    int size;                      /* K: every process's GPUs together */
    int count;                     /* the GPUs this process drives */
    bool direct_copies;            /* gather without mpirun: GPU 0 reads the others directly */
    struct device_info together;   /* K times GPU 0: the report's device line */
    struct timer slowest, combine; /* per run: the slowest GPU; the combine (team.c says how) */
    struct gpu gpus[MAX_GPUS];
};

/* processes.c: MPI, under mpirun. Each says what failed and gives false. */
bool mpi_start(struct team *team);             /* MPI_Init; only rank 0 keeps its stdout */
bool mpi_local_rank(int *local);               /* this process's place on its machine */
bool mpi_from_rank0(void *bytes, size_t size); /* rank 0's bytes to every process */
bool mpi_barrier(void);
bool mpi_agree(double *slowest, double *combine); /* the largest slowest, the smallest combine */
void mpi_abort(int status);                       /* stops every process */
bool mpi_finish(void);                            /* MPI_Finalize */

/* --gpus K (text NULL: absent, *gpus 0): 1 .. MAX_GPUS, else EXIT_USAGE naming the value. */
int team_gpus_option(const char *text, const char *program, int *gpus);

/* Before anything else: under mpirun, MPI_Init (built without MPI: a message, and false). */
bool team_begin(struct team *team, const char *program);
/* The GPUs, their streams, clocks and NCCL communicators: every visible GPU, or `wanted`
 * (0: all); under mpirun one per process. OPTIONS_RUN, or the exit code after a message. */
int team_open(struct team *team, const struct device_info *device, int wanted,
              const struct options *options);
/* Frees everything; under mpirun ends MPI, or after an error (status 3) aborts every process,
 * so that none waits forever for a partner that is gone. Returns status. */
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
struct gpu *team_first(struct team *team); /* rank 0's GPU, or NULL in the other processes */

/* The combines, enqueued on the GPUs' streams between their combine events. */
bool team_allreduce_totals(struct team *team);
bool team_gather(struct team *team, size_t n);
bool team_allreduce_arrays(struct team *team, size_t count);

/* A timed run: every GPU's L2 flushed and a start on every GPU's stream; then a stop on every
 * stream and, unless warm-up, the slowest GPU's time and the shortest combine kept. */
bool team_clock_start(struct team *team);
bool team_clock_stop(struct team *team, bool keep);
/* The kept runs' slowest-GPU times, and into *combine the combine's; both start afresh. */
struct timing team_times(struct team *team, struct timing *combine);
/* The report's own lines: how the GPUs meet, the combine in microseconds, GPU 0 alone (when
 * this process timed it: alone.runs > 0) and the speed-up over it. */
void team_print(const struct team *team, int variant, const struct report *report,
                struct timing combine, struct timing alone);
/* The total, read back from every GPU of this process that holds it: all of them, or GPU 0
 * alone (gather). *held false: this process holds none. GPUs that disagree make it NaN. */
bool team_total(struct team *team, int variant, float *total, bool *held);

#endif
