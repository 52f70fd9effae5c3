# CUDA parallel reduction, step by step.  `make help` lists the targets.

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(CUDA_HOME)/bin/nvcc)
CC ?= gcc

# GPU architecture: the local GPU's compute capability when there is one; otherwise sm_90
# machine code plus compute_75 PTX that any newer GPU can JIT. `make ARCH=sm_80` overrides.
DETECTED_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                 | head -n 1 | tr -d '. ' | grep -E '^[0-9]+$$')
ifneq ($(DETECTED_CC),)
ARCH ?= sm_$(DETECTED_CC)
endif
ifdef ARCH
ARCH_NUMBER := $(patsubst sm_%,%,$(ARCH))
GENCODE := -gencode arch=compute_$(ARCH_NUMBER),code=[sm_$(ARCH_NUMBER),compute_$(ARCH_NUMBER)]
else
GENCODE := -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
endif

BUILD := build
COMMON_SOURCES := $(filter-out common/main.c common/registry.c,$(wildcard common/*.c))
COMMON_OBJECTS := $(COMMON_SOURCES:%.c=$(BUILD)/%.o)

CPPFLAGS := -Icommon -I$(CUDA_HOME)/include -D_GNU_SOURCE -MMD -MP
CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror=implicit-function-declaration
NVCCFLAGS := -std=c++17 -O3 -lineinfo $(GENCODE) -Icommon -Xcompiler -Wall,-Wextra -MMD -MP
LDLIBS := -lcudart

# Every directory stepNN_<name> is a step: stepNN_<name>/host.c + reduce.cu -> stepNN_<name>/run
STEP_DIRS := $(sort $(wildcard step[0-9][0-9]_*))
STEPS := $(foreach d,$(STEP_DIRS),$(firstword $(subst _, ,$(d))))
step_dir = $(filter $(1)_%,$(STEP_DIRS))
STEP_BINARIES := $(addsuffix /run,$(STEP_DIRS))
STEP_OBJECTS := $(foreach d,$(STEP_DIRS),$(BUILD)/$(d)/host.o $(BUILD)/$(d)/reduce.o)

# bench/: one program that links every step and cub::DeviceReduce::Sum -> bench/run
BENCH_BINARY := bench/run
BENCH_OBJECTS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard bench/*.c)) \
                 $(patsubst %.cu,$(BUILD)/%.o,$(wildcard bench/*.cu))
BENCH_ARGS ?=
BENCH_CSV ?=
STEP ?=
PROFILE_N ?= 1048576
SANITIZE_JOBS ?= 4

TEST_BINARY := tests/bin/tests
TEST_SOURCES := $(wildcard tests/*.c)
TEST_OBJECTS := $(TEST_SOURCES:%.c=$(BUILD)/%.o) $(BUILD)/common/registry.o

.PHONY: all help test clean bench charts profile sanitize $(STEPS)
.DEFAULT_GOAL := all
.SECONDEXPANSION:
.SECONDARY:

all: $(STEPS) $(BENCH_BINARY)

help:
	@echo "targets:"
	@echo "  make               build every step (stepNN_<name>/run, with a link stepNN)"
	@echo "  make stepNN        build one step, e.g. make step05 && ./step05/run"
	@echo "  make test          build and run the tests (installs Criterion if missing)"
	@echo "  make bench         on the GPU: time every step and CUB (ladder at n = 2^25, sweep"
	@echo "                     2^10..2^30, L2 flushed) -> docs/results/<gpu>.csv; a subset for a"
	@echo "                     quick check: BENCH_ARGS=\"--steps step08,step09 --sizes 20:30\""
	@echo "                     (written to build/bench/); ./bench/run --help lists the options"
	@echo "  make charts        anywhere with gnuplot (apt-get install -y gnuplot-nox), from the"
	@echo "                     committed CSV: docs/ladder.svg, docs/scaling.svg and README.md's"
	@echo "                     results table; BENCH_CSV=docs/results/<gpu>.csv picks the CSV"
	@echo "  make profile STEP=NN  on the GPU: Nsight Compute counters of stepNN's first kernel"
	@echo "                     beside step(NN-1)'s -> docs/results/profile_stepNN.txt"
	@echo "  make sanitize      on the GPU: compute-sanitizer memcheck, racecheck, synccheck and"
	@echo "                     initcheck on every step -> docs/results/sanitize.txt"
	@echo "  make clean         remove what the build made"
	@echo "steps: $(STEPS)"
	@echo "variables:"
	@echo "  ARCH=sm_NN         GPU architecture (now: $(or $(ARCH),sm_90 + compute_75 PTX))"
	@echo "  CUDA_HOME=dir      CUDA toolkit (now: $(CUDA_HOME))"
	@echo "  NVCC=path          CUDA compiler (now: $(NVCC))"
	@echo "  CC=compiler        host C compiler (now: $(CC))"
	@echo "  BENCH_ARGS=...     options for bench/run (now: $(or $(BENCH_ARGS),none))"
	@echo "  BENCH_CSV=file     the CSV make charts draws (now: $(or $(BENCH_CSV),the one in docs/results))"
	@echo "  PROFILE_N=n        elements for make profile (now: $(PROFILE_N))"
	@echo "  SANITIZE_JOBS=j    sanitizer runs at once (now: $(SANITIZE_JOBS))"

# make step05: the binary, and step05 -> step05_unroll_warp so ./step05/run works
$(STEPS): %: $$(call step_dir,%)/run
	@ln -sfn $(call step_dir,$@) $@

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

# common/main.c once per step, told which descriptor to run
$(BUILD)/step%/main.o: common/main.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DSTEP_SYMBOL=$(firstword $(subst _, ,$(notdir $(@D)))) -c $< -o $@

%/run: $(BUILD)/%/main.o $(BUILD)/%/host.o $(BUILD)/%/reduce.o $(COMMON_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

$(BENCH_BINARY): $(BENCH_OBJECTS) $(BUILD)/common/registry.o $(STEP_OBJECTS) $(COMMON_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

# The GPU machine has no gnuplot: bench writes the CSV there, charts draws it here.
bench: $(BENCH_BINARY)
	$(BENCH_BINARY) $(BENCH_ARGS)

charts:
	bash bench/charts.sh $(BENCH_CSV)

profile: $(STEPS)
	CUDA_HOME="$(CUDA_HOME)" bash bench/profile.sh "$(STEP)" "$(PROFILE_N)"

sanitize: $(STEPS) $(BENCH_BINARY)
	CUDA_HOME="$(CUDA_HOME)" SANITIZE_JOBS="$(SANITIZE_JOBS)" bash bench/sanitize.sh

# The end-to-end tests run the step binaries: build them first.
$(TEST_BINARY): $(TEST_OBJECTS) $(STEP_OBJECTS) $(COMMON_OBJECTS) | $(STEP_BINARIES)
	@mkdir -p $(@D)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS) -lcriterion

test: all
	@tests/ensure-criterion.sh
	@$(MAKE) --no-print-directory $(TEST_BINARY)
	$(TEST_BINARY)

clean:
	rm -rf $(BUILD) tests/bin $(STEP_BINARIES) $(STEPS) $(BENCH_BINARY)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
