/* step15_multi_gpu: every MPI call of the step (team.h says what each function does). MPI is
 * used only when mpirun started the program: it starts one process per GPU, and hands rank
 * 0's NCCL id to the others. A build without MPI (no mpicc when it was built) keeps the same
 * functions: mpi_start says how to rebuild, and the others are never reached. */
#include <stdio.h>

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

/* Only rank 0 prints the report; the other processes' stdout is dropped. */
bool mpi_start(struct team *t)
{
    MPI_TRY(MPI_Init(NULL, NULL));
    t->mpi_started = true;
    MPI_TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_TRY(MPI_Comm_rank(MPI_COMM_WORLD, &t->process));
    MPI_TRY(MPI_Comm_size(MPI_COMM_WORLD, &t->processes));
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

/* Rank 0's bytes to every process. */
bool mpi_from_rank0(void *bytes, size_t size)
{
    return MPI_OK(MPI_Bcast(bytes, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD));
}

bool mpi_barrier(void)
{
    return MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Every process's slowest time becomes the largest of them, its combine the smallest. */
bool mpi_agree(double *slowest, double *combine)
{
    MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return MPI_OK(MPI_Allreduce(MPI_IN_PLACE, combine, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD));
}

void mpi_abort(int status)
{
    MPI_Abort(MPI_COMM_WORLD, status);
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

bool mpi_from_rank0(void *bytes, size_t size)
{
    (void)bytes, (void)size;
    return true;
}

bool mpi_barrier(void)
{
    return true;
}

bool mpi_agree(double *slowest, double *combine)
{
    (void)slowest, (void)combine;
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
