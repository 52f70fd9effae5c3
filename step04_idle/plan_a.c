/* step04_idle: document 003's planA, and the host check that lets it pass.
 * Plan A adds a[tidx] and a[tidx + gridDim.x]. Its host code checks each block's sum against
 * a sum that it computes with the same indexing (input[idx] and input[idx + BlockNum], where
 * BlockNum is gridDim.x), within 0.0001: the check mirrors the kernel's mistake, so both
 * sides add the same elements, and for the default data (integers 0..99) they agree
 * exactly. Only a check of the total against the array's real sum (the report printed
 * before) finds the error. */
#include <math.h>

#include "reduce.h"

static const float DOCUMENT_TOLERANCE = 0.0001f;

/* The input as the host sees it: ones and one-hot are made on the device (input_create) and
 * have no host copy, so they are read back. NULL when that failed (it said why). */
static float *read_back(const struct input *input)
{
    size_t bytes = input->n * sizeof(float);
    float *host = malloc(bytes > 0 ? bytes : 1);
    if (host == NULL) fprintf(stderr, "not enough host memory for %zu floats\n", input->n);
    if (host != NULL &&
        !CUDA_OK(cudaMemcpy(host, input->copies[0], bytes, cudaMemcpyDeviceToHost))) {
        free(host);
        return NULL;
    }
    return host;
}

bool plan_a_document_check(const struct input *input, unsigned threads, float *block_sums)
{
    size_t n = input->n;
    unsigned blocks = blocks_to_cover(n, 2 * (size_t)threads), differ = 0; /* two per thread */
    float *gpu = malloc(blocks * sizeof(float)), *downloaded = NULL;
    const float *host = input->host;
    struct launched launched;
    bool ok = false;
    if (gpu == NULL) goto done;
    if (host == NULL && (host = downloaded = read_back(input)) == NULL) goto done;
    if (!outputs_poison(block_sums, blocks * sizeof(float))) goto done; /* as every run's */
    if (!CUDA_OK(reduce_blocks(input->copies[0], n, block_sums, blocks, threads, VARIANT_PLAN_A,
                               &launched)))
        goto done;
    if (!CUDA_OK(cudaMemcpy(gpu, block_sums, blocks * sizeof(float), cudaMemcpyDeviceToHost)))
        goto done;
    for (unsigned b = 0; b < blocks; b++) {
        float s = 0; /* the document's loop, bounds added */
        for (size_t j = 0; j < threads; j++) {
            size_t idx = (size_t)b * threads + j;
            if (idx < n) s += host[idx];
            if (idx + blocks < n) s += host[idx + blocks];
        }
        differ += fabsf(gpu[b] - s) > DOCUMENT_TOLERANCE;
    }
    printf("document   document 003's own check (each block's sum against the host's, the same "
           "indexing, within 0.0001): %u of %u blocks differ -> %s\n",
           differ, blocks,
           differ ? "it prints them" : "it prints nothing, as if the result were correct");
    ok = true;
done:
    free(downloaded);
    free(gpu);
    return ok;
}
