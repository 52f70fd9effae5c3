# CUDA parallel reduction, step by step. `make help` lists the targets.

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(CUDA_HOME)/bin/nvcc)
CC ?= gcc

# GPU architecture: the local GPU's compute capability when there is one; otherwise sm_90
# machine code plus compute_75 PTX that any newer GPU compiles when the program loads.
DETECTED_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                 | head -n 1 | tr -d '. ' | grep -E '^[0-9]+$$')
ifneq ($(DETECTED_CC),)
ARCH ?= sm_$(DETECTED_CC)
endif
ifdef ARCH
GENCODE := -gencode arch=compute_$(ARCH:sm_%=%),code=[sm_$(ARCH:sm_%=%),compute_$(ARCH:sm_%=%)]
else
GENCODE := -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75
endif

# The ladder, in order. Any other directory stepNN_<name>/ with a host.c (a copy of a step)
# builds the same way: make stepNN_<name> && ./stepNN_<name>/run
LADDER := step00_global step01_shared step02_divergence step03_bank step04_idle \
          step05_unroll_warp step06_full_unroll step07_blocks step08_shuffle \
          step09_last_block step10_vector_loads step11_in_flight step12_small_n step13_generic \
          step14_multi_gpu
STEP_DIRS := $(sort $(patsubst %/host.c,%,$(wildcard step[0-9][0-9]_*/host.c)))
LADDER_BUILT := $(filter $(STEP_DIRS),$(LADDER))
SHORT_NAMES := $(foreach d,$(LADDER_BUILT),$(firstword $(subst _, ,$(d))))

BUILD := build
COMMON_OBJECTS := $(patsubst %,$(BUILD)/%.o,$(basename $(wildcard common/*.c common/*.cu)))
step_objects = $(patsubst %,$(BUILD)/%.o,$(basename $(wildcard $(1)/*.c $(1)/*.cu)))

CPPFLAGS := -Icommon -I$(CUDA_HOME)/include -D_GNU_SOURCE -MMD -MP
CFLAGS := -std=c11 -O2 -g -fopenmp -Wall -Wextra -Werror=implicit-function-declaration
NVCCFLAGS := -std=c++17 -O3 -lineinfo $(GENCODE) -Icommon -Xcompiler -Wall,-Wextra -MMD -MP
LDLIBS := -lcudart -lgomp
comma := ,

# step14 combines the GPUs' totals with NCCL (and, under mpirun, MPI). NCCL_HOME overrides;
# otherwise the CUDA toolkit's copy, or the one pip's nvidia-nccl package brings.
NCCL_CANDIDATES := $(NCCL_HOME) $(CUDA_HOME) \
    $(wildcard /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl)
NCCL_DIR := $(firstword $(foreach d,$(NCCL_CANDIDATES),$(if $(wildcard $(d)/include/nccl.h),$(d))))
NCCL_LIBDIR := $(firstword $(wildcard $(NCCL_DIR)/lib64/libnccl.so* $(NCCL_DIR)/lib/libnccl.so*))
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS := $(shell mpicc --showme:link 2>/dev/null)
ifeq ($(NCCL_DIR),)
STEP_DIRS := $(filter-out step14_multi_gpu,$(STEP_DIRS))
NCCL_NOTE := step14_multi_gpu needs NCCL (nccl.h and libnccl): set NCCL_HOME to build it
else
STEP14_CPPFLAGS := -I$(NCCL_DIR)/include $(if $(MPI_CFLAGS),-DWITH_MPI $(MPI_CFLAGS))
# nvcc links: -Wl,x and -pthread reach the host linker through -Xlinker and -Xcompiler
STEP14_LIBS := -L$(dir $(NCCL_LIBDIR)) -Xlinker -rpath=$(dir $(NCCL_LIBDIR)) -l:$(notdir $(NCCL_LIBDIR)) \
    $(foreach f,$(MPI_LIBS),$(if $(filter -Wl$(comma)%,$(f)),-Xlinker $(patsubst -Wl$(comma)%,%,$(f)),$(if $(filter -pthread,$(f)),-Xcompiler -pthread,$(f))))
endif

.PHONY: all help test clean ladder bench charts profile sanitize accuracy ptx labs grade step12-variants \
        $(STEP_DIRS) $(SHORT_NAMES)
.DEFAULT_GOAL := all
.SECONDEXPANSION:

all: $(STEP_DIRS) $(SHORT_NAMES) labs step12-variants
	$(if $(NCCL_NOTE),@echo "note: $(NCCL_NOTE)")

help:
	@echo "make                build every step (stepNN_<name>/run, with a link stepNN) and lab"
	@echo "make stepNN         one step of the ladder: make step05 && ./step05/run"
	@echo "make <directory>    any step directory, a copy of a step too: make step04_mine"
	@echo "make test           build, then run the tests (installs Criterion if missing)"
	@echo "make labNN          a lab's starter kernel in its step's program: ./labs/labNN/run --check"
	@echo "make grade SUBMISSIONS=dir LAB=labNN   check every student's reduce.cu, write a CSV"
	@echo "make bench          on a GPU: every step and CUB over n = 2^10 .. 2^30 -> docs/results/bench.csv"
	@echo "make charts         from docs/results/bench.csv (BENCH_CSV=file): docs/*.svg and README.md's table"
	@echo "make accuracy       on a GPU: every step's error on real-valued data, and the CPU's -> docs/results/accuracy.csv"
	@echo "make profile STEP=NN  on a GPU: Nsight Compute counters of stepNN beside step(NN-1)"
	@echo "make sanitize       on a GPU: compute-sanitizer on every step"
	@echo "make ptx            the PTX (and SASS, where cuobjdump is installed) of every kernel"
	@echo "variables: ARCH=sm_NN (now $(or $(ARCH),sm_90 + compute_75 PTX)), CUDA_HOME, NVCC, CC, NCCL_HOME"

# make stepNN_<name>: its program; make stepNN: the same, and a link stepNN -> stepNN_<name>
$(STEP_DIRS): %: %/run
define short_name
$(firstword $(subst _, ,$(1))): $(1)/run
	@ln -sfn $(1) $$@
endef
$(foreach d,$(LADDER_BUILT),$(eval $(call short_name,$(d))))

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -I$(<D) $(if $(filter step14_multi_gpu/%,$<),$(STEP14_CPPFLAGS)) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -I$(<D) $(if $(filter step14_multi_gpu/%,$<),-I$(NCCL_DIR)/include) -c $< -o $@

# Each program's objects named outright, so that make keeps them and rebuilds a missing one.
# Named only by the pattern rule below, they would be intermediate files: make would delete
# them, and a run copied along with a step (cp -r) would pass for up to date.
$(foreach d,$(STEP_DIRS) step12_small_n/variants,$(eval $(d)/run: $(call step_objects,$(d))))

%/run: $$(call step_objects,$$*) $(COMMON_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS) $(if $(filter step14_multi_gpu/%,$@),$(STEP14_LIBS))

# The kernels step12 was chosen from, timed side by side (step12_small_n/variants/).
step12-variants: step12_small_n/variants/run

# bench/accuracy.sh's CPU sums of the steps' data (no GPU needed to run it)
$(BUILD)/bench/cpu_sums: $(BUILD)/bench/cpu_sums.o $(COMMON_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

include labs/labs.mk

TEST_BINARY := tests/bin/tests
TEST_OBJECTS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/*.c)) $(COMMON_OBJECTS)

$(TEST_BINARY): $(TEST_OBJECTS)
	@mkdir -p $(@D)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS) -lcriterion

# The tests run the programs as a student does: build them all first. The GPU tests share
# one GPU, so at most four run at once unless CRITERION_JOBS says otherwise.
TEST_JOBS := 4
test: all
	@tests/ensure-criterion.sh
	@$(MAKE) --no-print-directory $(TEST_BINARY)
	CRITERION_JOBS=$${CRITERION_JOBS:-$(TEST_JOBS)} $(TEST_BINARY)

ladder:
	@echo $(LADDER_BUILT)

bench: all
	bash bench/bench.sh

charts:
	bash bench/charts.sh $(BENCH_CSV)

profile: all
	bash bench/profile.sh "$(STEP)" "$(or $(PROFILE_N),1048576)"

sanitize: all
	bash bench/sanitize.sh

accuracy: all $(BUILD)/bench/cpu_sums
	bash bench/accuracy.sh

ptx:
	bash bench/ptx.sh

clean:
	rm -rf $(BUILD) tests/bin $(addsuffix /run,$(STEP_DIRS)) $(SHORT_NAMES) labs/lab*/program \
	    step12_small_n/variants/run

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
