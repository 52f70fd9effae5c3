/* The input of one size, uploaded once to several separately allocated device buffers. Every
 * point (CUB and each step) reads them in turn, one per run, so that all of them read the
 * same bytes at the same addresses. Why several: where a buffer lands in DRAM changes some
 * kernels' times. Measured on the H100 (docs/measuring.md): CUB's time at 2^22 floats is
 * 12.3 us on some buffers and 13.3 us on others, with the same data; step09's does not move.
 * One buffer per kernel would hand one of them a lucky or an unlucky placement. */
#ifndef BENCH_INPUTS_H
#define BENCH_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

enum { INPUT_COPIES = 4 };

struct input_copies {
    float *copies[INPUT_COPIES];
    int count;                        /* 0 when not even one fits */
    int next;                         /* the copy the next run reads */
    size_t n;
};

/* Uploads host[0..n) to as many copies as fit while keep_free_bytes stay free for the
 * points' own buffers. false: a CUDA error. */
bool input_copies_create(struct input_copies *inputs, const float *host, size_t n,
                         size_t keep_free_bytes);
void input_copies_destroy(struct input_copies *inputs);

/* Round robin from copy 0: a point rewinds before its first run. */
void input_copies_rewind(struct input_copies *inputs);
float *input_copies_next(struct input_copies *inputs);

#endif
