/* The one main of every step binary; the Makefile names the step with -DSTEP_SYMBOL. */
#include "run.h"

extern const struct step STEP_SYMBOL;

int main(int argc, char **argv) { return run_step(&STEP_SYMBOL, argc, argv); }
