/* Emptying the L2 cache between timed runs, so that every run reads its input from DRAM
 * as it would the first time (the H100's L2 holds 50 MB: 2^23 floats and below would
 * otherwise be served from the cache after the first run). */
#ifndef BENCH_L2_FLUSH_H
#define BENCH_L2_FLUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct l2_flusher {
    void *scratch;                    /* L2_FLUSH_CAPACITIES times the L2, zeroed once */
    size_t bytes;
    float *sink;                      /* keeps the compiler from dropping the reads */
};

/* How many L2 capacities a flush reads. The L2's replacement policy is not documented: if
 * it were random, reading k capacities would leave about e^-k of the old lines; 4 leaves
 * under 2%, and costs about 70 us on an H100. */
enum { L2_FLUSH_CAPACITIES = 4 };

/* Device bytes the flusher needs, to check against free memory. */
size_t l2_flusher_bytes(size_t l2_bytes);

bool l2_flusher_create(struct l2_flusher *flusher, size_t l2_bytes);
void l2_flusher_destroy(struct l2_flusher *flusher);

/* Enqueues the flush on the stream; it finishes before anything enqueued after it starts. */
cudaError_t l2_flush(const struct l2_flusher *flusher, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
