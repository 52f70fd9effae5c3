/* step15_multi_gpu: every MPI call of the step (team.h says what each function does). MPI is
 * used only when mpirun started the program: it starts one process per GPU, hands rank 0's
 * NCCL id to the others, and brings each rank's kernel name to rank 0 for the report. The
 * collectives are the non-blocking ones, polled like team.c's waits for the GPUs: a process
 * that has stopped makes the others give up after --timeout seconds instead of waiting for
 * ever. A build without MPI (no mpicc when it was built) keeps the same functions: mpi_start
 * says how to rebuild, and the others are never reached. */
#include <stdio.h>
#include <time.h>

#include "team.h"

#ifdef WITH_MPI
#include <mpi.h>

static bool mpi_succeeded(int status, const char *call, const char *file, int line)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int length = 0;
    if (status == MPI_SUCCESS) return true;
    if (MPI_Error_string(status, text, &length) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", status);
    fprintf(stderr, "MPI error at %s:%d: %s\n  in %s\n", file, line, text, call);
    return false;
}
#define MPI_OK(call) mpi_succeeded((call), #call, __FILE__, __LINE__)
#define MPI_TRY(call)                                                                              \
    do {                                                                                           \
        if (!MPI_OK(call)) return false;                                                           \
    } while (0)

/* Only rank 0 prints the report, a line at a time: its stdout is a pipe to mpirun, which
 * would otherwise get the lines only when the buffer fills or the process ends. The other
 * processes' stdout is dropped. */
bool mpi_start(struct team *t)
{
    MPI_TRY(MPI_Init(NULL, NULL));
    t->mpi_started = true;
    MPI_TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &t->process));
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &t->processes));
    if (t->process == 0 && setvbuf(stdout, NULL, _IOLBF, BUFSIZ) != 0)
        perror("rank 0: setvbuf for stdout");
    if (t->process > 0 && freopen("/dev/null", "w", stdout) == NULL)
        perror("rank > 0: freopen(/dev/null) for stdout");
    return true;
}

/* This process's place among those on its machine: which of the machine's GPUs it takes. */
bool mpi_local_rank(int *local)
{
    MPI_Comm machine;
    MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine));
    bool ok = MPI_OK(MPI_Comm_rank(machine, local));
    if (!MPI_OK(MPI_Comm_free(&machine))) ok = false;
    return ok;
}

/* A started collective, finished; or false after --timeout seconds, saying what it waited
 * for. MPI_Test between short pauses: the process does not spin a CPU at full speed. */
static bool mpi_wait(const struct team *t, MPI_Request *request, const char *what)
{
    static const struct timespec PAUSE = {.tv_sec = 0, .tv_nsec = 20000};
    static const double NS_PER_S = 1e9;
    struct timespec start, now;
    int done = 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        MPI_TRY(MPI_Test(request, &done, MPI_STATUS_IGNORE));
        if (done) return true;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / NS_PER_S >
            t->timeout_s)
            break;
        nanosleep(&PAUSE, NULL);
    }
    fprintf(stderr,
            "%s: process %d waited %.0f s (--timeout) for the other processes in %s: one of "
            "them has stopped or is gone\n",
            t->program, t->process, t->timeout_s, what);
    return false;
}

/* Rank 0's bytes to every process. */
bool mpi_from_rank0(const struct team *t, void *bytes, size_t size)
{
    MPI_Request request;
    MPI_TRY(MPI_Ibcast(bytes, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD, &request));
    return mpi_wait(t, &request, "MPI_Ibcast");
}

bool mpi_barrier(const struct team *t)
{
    MPI_Request request;
    MPI_TRY(MPI_Ibarrier(MPI_COMM_WORLD, &request));
    return mpi_wait(t, &request, "MPI_Ibarrier");
}

/* Every process's slowest time becomes the largest of them, its combine the smallest. */
bool mpi_agree(const struct team *t, double *slowest, double *combine)
{
    MPI_Request requests[2];
    MPI_TRY(MPI_Iallreduce(MPI_IN_PLACE, slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD,
                           &requests[0]));
    MPI_TRY(MPI_Iallreduce(MPI_IN_PLACE, combine, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD,
                           &requests[1]));
    return mpi_wait(t, &requests[0], "MPI_Iallreduce") &&
           mpi_wait(t, &requests[1], "MPI_Iallreduce");
}

/* Rank 0's own bytes are already in place at the start of `all` (MPI_IN_PLACE). */
bool mpi_to_rank0(const struct team *t, void *all, size_t size)
{
    MPI_Request request;
    const void *mine = t->process == 0 ? MPI_IN_PLACE : all;
    MPI_TRY(MPI_Igather(mine, (int)size, MPI_BYTE, all, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD,
                        &request));
    return mpi_wait(t, &request, "MPI_Igather");
}

void mpi_abort(int status)
{
    MPI_OK(MPI_Abort(MPI_COMM_WORLD, status)); /* returns only if it failed */
}
bool mpi_finish(void)
{
    return MPI_OK(MPI_Finalize());
}
#else
bool mpi_start(struct team *t)
{
    fprintf(stderr,
            "%s: started by mpirun, but built without MPI (no mpicc was found when it was built).\n"
            "  Run it without mpirun, and one process drives every GPU; or install OpenMPI's\n"
            "  development files and rebuild: make step15_multi_gpu\n",
            t->program);
    return false;
}

/* Only mpi_start is ever reached without MPI: it stops the program under mpirun, and the rest
 * is called only under mpirun. */
bool mpi_local_rank(int *local)
{
    *local = 0;
    return true;
}

bool mpi_from_rank0(const struct team *t, void *bytes, size_t size)
{
    (void)t, (void)bytes, (void)size;
    return true;
}

bool mpi_barrier(const struct team *t)
{
    (void)t;
    return true;
}

bool mpi_agree(const struct team *t, double *slowest, double *combine)
{
    (void)t, (void)slowest, (void)combine;
    return true;
}

bool mpi_to_rank0(const struct team *t, void *all, size_t size)
{
    (void)t, (void)all, (void)size;
    return true;
}

void mpi_abort(int status)
{
    (void)status;
}

bool mpi_finish(void)
{
    return true;
}
#endif
