/* hold_memory: takes all of a GPU's free memory but a given number of MiB, and sleeps until it
 * is killed, so that programs started beside it on the same GPU see the free memory of a
 * smaller card (memory_at_2_to_32.sh leaves 80800 MiB, about what an H100 80GB has free). It
 * prints one line once it holds the memory:
 *   ballast: holding H MiB, F MiB free of T
 * (F: the free memory it then sees; T: the card's total). The held memory is written once,
 * like memory a program uses.
 *   nvcc -o build/hold_memory docs/results/2026-11-27/hold_memory.cu
 *   build/hold_memory 80800 &      (CUDA_VISIBLE_DEVICES picks the GPU; kill it when done)
 * Exit codes: 2 usage, 3 a CUDA error or no more than the MiB to leave free. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuda_runtime.h>

static const size_t BYTES_PER_MIB = (size_t)1 << 20;
enum { EXIT_USAGE = 2, EXIT_ENVIRONMENT = 3 };

/* A failed CUDA call: the call, its line and CUDA's message, then exit 3. */
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t error_ = (call);                                                               \
        if (error_ != cudaSuccess) {                                                               \
            fprintf(stderr, "hold_memory: %s failed (line %d): %s\n", #call, __LINE__,             \
                    cudaGetErrorString(error_));                                                   \
            exit(EXIT_ENVIRONMENT);                                                                \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    char *end = NULL;
    unsigned long long leave_mib = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
    if (argc != 2 || end == argv[1] || *end != '\0') {
        fprintf(stderr, "usage: hold_memory MIB_TO_LEAVE_FREE\n");
        return EXIT_USAGE;
    }
    size_t leave_bytes = (size_t)leave_mib * BYTES_PER_MIB, free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes <= leave_bytes) {
        fprintf(stderr, "hold_memory: %zu MiB are free, not more than the %llu MiB to leave\n",
                free_bytes / BYTES_PER_MIB, leave_mib);
        return EXIT_ENVIRONMENT;
    }
    size_t held_bytes = free_bytes - leave_bytes;
    void *held = NULL;
    CUDA_CHECK(cudaMalloc(&held, held_bytes));
    CUDA_CHECK(cudaMemset(held, 0, held_bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    printf("ballast: holding %zu MiB, %zu MiB free of %zu\n", held_bytes / BYTES_PER_MIB,
           free_bytes / BYTES_PER_MIB, total_bytes / BYTES_PER_MIB);
    fflush(stdout);
    pause(); /* until a signal ends it */
    return 0;
}
