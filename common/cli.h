/* The command line every step binary shares (getopt_long). */
#ifndef REDUCE_CLI_H
#define REDUCE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pattern.h"
#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The documents' N = 32*1024*1024. */
#define DEFAULT_N ((size_t)32 * 1024 * 1024)
/* Indices stay below 2^32 and the largest input (16 GiB) fits an 80 GB card. */
#define MAX_N ((size_t)1 << 32)
enum { DEFAULT_ITERS = 20, DEFAULT_WARMUP = 3, MAX_ITERS = 100000, MAX_BLOCKS = 1u << 30 };
#define DEFAULT_SEED 2026u

enum finish { FINISH_GPU, FINISH_CPU };
enum exit_code { EXIT_CORRECT = 0, EXIT_WRONG = 1, EXIT_USAGE = 2, EXIT_ENVIRONMENT = 3 };

struct options {
    size_t n;
    struct pattern pattern;
    uint64_t seed;
    int iters;
    int warmup;
    unsigned threads;                 /* 0: the step's default */
    unsigned blocks;                  /* 0: the step's default */
    int variant;
    const char *op;                   /* step10: NULL for the default */
    const char *type;                 /* step10: NULL for the default */
    bool sweep_blocks;
    bool clock;
    enum finish finish;
    bool csv;
    bool quiet;
    bool help;
};

/* "33554432", "2^25", "32M", "4K", "1G" (K, M, G are powers of 1024). */
bool parse_size(const char *text, size_t *value);

/* Parses argv for this step. Returns EXIT_CORRECT (0) or EXIT_USAGE; on a usage error
 * `error` names the bad value. */
int cli_parse(int argc, char **argv, const struct step *step, struct options *options,
              char *error, size_t error_size);

void cli_usage(FILE *out, const struct step *step);

#ifdef __cplusplus
}
#endif
#endif
