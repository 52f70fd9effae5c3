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
          step09_last_block step10_vector_loads step11_in_flight step12_small_n step13_gather \
          step14_generic step15_multi_gpu step16_rows
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

# ---- step15_multi_gpu: NCCL, and MPI where mpicc is installed ----------------------------
# NCCL: the first of NCCL_HOME, the CUDA toolkit, the system's directories, and the copy that
# pip's nvidia-nccl package installs (Python says where its folder is).
PYTHON ?= python3
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
ifneq ($(NCCL_HOME),)
NCCL_ROOT := $(NCCL_HOME)
else ifneq ($(wildcard $(CUDA_HOME)/include/nccl.h),)
NCCL_ROOT := $(CUDA_HOME)
else ifneq ($(wildcard /usr/include/nccl.h),)
NCCL_ROOT := /usr
else
NCCL_ROOT := $(shell $(PYTHON) -c 'import importlib.util as u; \
    print(u.find_spec("nvidia.nccl").submodule_search_locations[0])' 2>/dev/null)
endif
# The library as the folder has it: libnccl.so, or only libnccl.so.2 (pip's copy).
NCCL_LIBRARY := $(firstword $(wildcard $(foreach d,lib64 lib lib/$(MULTIARCH),\
                  $(NCCL_ROOT)/$(d)/libnccl.so $(NCCL_ROOT)/$(d)/libnccl.so.[0-9])))
NCCL_LIBDIR := $(patsubst %/,%,$(dir $(NCCL_LIBRARY)))

# One of mpicc's link flags, as nvcc takes it: nvcc knows -L and -l, and hands on to the
# host linker or compiler only what -Xlinker or -Xcompiler names.
#   -Wl,a,b  becomes  -Xlinker a,b       -pthread  becomes  -Xcompiler -pthread
for_nvcc = $(or $(patsubst -Wl$(comma)%,-Xlinker %,$(filter -Wl$(comma)%,$(1))),\
                $(patsubst -pthread,-Xcompiler -pthread,$(1)))
MPI_CPPFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LDLIBS := $(foreach flag,$(shell mpicc --showme:link 2>/dev/null),$(call for_nvcc,$(flag)))

STEP15 := step15_multi_gpu
ifeq ($(and $(wildcard $(NCCL_ROOT)/include/nccl.h),$(NCCL_LIBRARY)),)
STEP_DIRS := $(filter-out $(STEP15),$(STEP_DIRS))
LADDER_BUILT := $(filter-out $(STEP15),$(LADDER_BUILT))
SHORT_NAMES := $(filter-out step15,$(SHORT_NAMES))
NCCL_NOTE := $(STEP15) needs NCCL (include/nccl.h and lib/libnccl.so): set NCCL_HOME to build it
# make step15 (or step15_multi_gpu) says why it cannot.
.PHONY: step15 $(STEP15)
step15 $(STEP15):
	@echo "$(NCCL_NOTE)" >&2; exit 2
endif
# Why step15 is left out, or an empty line when it is built: step15's tests skip on the note.
.PHONY: nccl-note
nccl-note:
	@echo "$(NCCL_NOTE)"
# Its kernels are step13's, compiled once (step13_gather/reduce.cu), not a copy.
$(STEP15)/run: $(BUILD)/step13_gather/reduce.o
$(STEP15)/run: LDLIBS += -L$(NCCL_LIBDIR) -Xlinker -rpath=$(NCCL_LIBDIR) \
                         -l:$(notdir $(NCCL_LIBRARY)) $(MPI_LDLIBS)
$(BUILD)/$(STEP15)/%.o: CPPFLAGS += -I$(NCCL_ROOT)/include \
                                    $(if $(MPI_CPPFLAGS),-DWITH_MPI $(MPI_CPPFLAGS))

.PHONY: all help test test-long clean ladder bench charts docs figures profile sanitize accuracy ptx labs grade step13-variants \
        format format-check \
        $(STEP_DIRS) $(SHORT_NAMES)
.DEFAULT_GOAL := all
.SECONDEXPANSION:

all: $(STEP_DIRS) $(SHORT_NAMES) labs
	$(if $(NCCL_NOTE),@echo "note: $(NCCL_NOTE)")

help:
	@echo "make                build every step (stepNN_<name>/run, with a link stepNN) and lab"
	@echo "make stepNN         one step of the ladder: make step05 && ./step05/run"
	@echo "make <directory>    any step directory, a copy of a step too: make step04_mine"
	@echo "make -j test        build, then run the tests (installs Criterion if missing)"
	@echo "make test TEST_ARGS=--verbose   the same, each test named; skipped ones say why"
	@echo "make test-long      the long tests: sizes past 2^31, the oracle mutants, every lab's graded kernels"
	@echo "make step13-variants  other loads and finishes beside step12's grid kernel and CUB"
	@echo "make mutants        the oracle mutants (tests/mutants/): kernels whose final write is broken"
	@echo "make labNN          a lab's starter kernel in its step's program: ./labs/labNN/run --check"
	@echo "make grade SUBMISSIONS=dir LAB=labNN   check every student's reduce.cu, write a CSV"
	@echo "make bench          on a GPU: every step and CUB over n = 2^10 .. 2^30 -> docs/results/bench.csv"
	@echo "make charts         from docs/results/bench.csv (BENCH_CSV=file): docs/*.svg and the scoreboards"
	@echo "make docs           every table of measured figures in the *.md files, from docs/results/*.csv"
	@echo "                    and the steps' --help (python3); the tests check them and every cited figure"
	@echo "make figures        the READMEs' figures of what each thread does (python3): docs/figures/*.svg"
	@echo "make accuracy       on a GPU: every step's error on real-valued data, and the CPU's -> docs/results/accuracy.csv"
	@echo "make profile STEP=NN  on a GPU: Nsight Compute counters of stepNN beside step(NN-1)"
	@echo "make sanitize       on a GPU: compute-sanitizer on every step"
	@echo "make ptx            the PTX (and SASS, where cuobjdump is installed) of every kernel"
	@echo "make format         clang-format every .c, .h, .cu and .cuh in place (.clang-format)"
	@echo "make format-check   list the files that make format would change; fail if any"
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
	$(CC) $(CPPFLAGS) -I$(<D) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -I$(<D) -c $< -o $@

# --ceilings is step12's tool, in one place: a step whose host.c includes
# "../step12_small_n/ceilings.h" (step13, and a copy of it) links step12's object.
CEILINGS_STEPS := $(patsubst %/host.c,%,$(shell grep -l 'step12_small_n/ceilings\.h' \
                    $(wildcard step[0-9][0-9]_*/host.c) /dev/null))
$(foreach d,$(CEILINGS_STEPS),$(eval $(d)/run: $(BUILD)/step12_small_n/ceilings.o))

# Each program's objects named outright, so that make keeps them and rebuilds a missing one.
# Named only by the pattern rule below, they would be intermediate files: make would delete
# them, and a run copied along with a step (cp -r) would pass for up to date.
$(foreach d,$(STEP_DIRS) step13_gather/variants,$(eval $(d)/run: $(call step_objects,$(d))))

%/run: $$(call step_objects,$$*) $(COMMON_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

# Other loads and finishes for step12's grid kernel, each timed beside CUB (step13_gather/variants/):
# not part of the ladder, so `make` leaves it out; the tests build it.
step13-variants: step13_gather/variants/run

# bench/accuracy.sh's CPU sums of the steps' data (no GPU needed to run it)
$(BUILD)/bench/cpu_sums: $(BUILD)/bench/cpu_sums.o $(COMMON_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

include labs/labs.mk
include tests/mutants/mutants.mk

TEST_BINARY := tests/bin/tests
# step14's host conversions to half, and the toolbox's to bf16, are tested on their own
# (tests/host_low_precision.c).
TEST_OBJECTS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/*.c)) $(COMMON_OBJECTS) \
                $(BUILD)/step14_generic/low_precision.o
# step16's chooser and launch shapes, plain C, tested on the host (tests/e2e_step16.c).
TEST_OBJECTS += $(BUILD)/step16_rows/plan.o
$(BUILD)/tests/e2e_step16.o: CPPFLAGS += -Istep16_rows

$(TEST_BINARY): $(TEST_OBJECTS)
	@mkdir -p $(@D)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS) -lcriterion

# The tests run the programs as a student does: build them all first (make -j builds them in
# parallel). One test a core (at least four) unless CRITERION_JOBS says otherwise; their
# programs take turns on the GPU (tests/README.md). TEST_ARGS goes to Criterion: --verbose
# lists every test, skipped ones with their reason; --filter 'step15/*' runs some.
# make test leaves out the long tests, make test-long runs only them: sizes past 2^31, the
# oracle mutants, the full --check of step14's every type, and every lab's whole table of
# graded kernels.
LONG_TESTS := gpu_large/*|mutants_gpu/*|step14/check_passes_*|labs_gpu/grade_tells_*|labs_gpu/grade_reports_*|labs_gpu/starter_*
TEST_JOBS := $(shell cores=$$(nproc); echo $$(( cores > 4 ? cores : 4 )))
test test-long: all step13-variants mutants
	@tests/ensure-criterion.sh
	@$(MAKE) --no-print-directory $(TEST_BINARY)
	CRITERION_JOBS=$${CRITERION_JOBS:-$(TEST_JOBS)} TESTS_TARGET='make $@' $(TEST_BINARY) \
	  --filter '$(if $(filter test-long,$@),@,!)($(LONG_TESTS))' $(TEST_ARGS)

ladder:
	@echo $(LADDER_BUILT)

bench: all
	bash bench/bench.sh

charts:
	bash bench/charts.sh $(BENCH_CSV)

# The measured tables of every *.md, rewritten between their markers from docs/results/*.csv;
# the options table from every step's --help, so the programs are built first.
docs: $(STEP_DIRS)
	python3 bench/docs_tables.py

# Drawn from the kernels' index formulas; the tests check them against the committed files.
figures:
	python3 docs/figures/make_figures.py

profile: all
	bash bench/profile.sh "$(STEP)" "$(or $(PROFILE_N),1048576)"

sanitize: all
	bash bench/sanitize.sh

accuracy: all $(BUILD)/bench/cpu_sums
	bash bench/accuracy.sh

ptx:
	bash bench/ptx.sh

# Every C, C++ and CUDA file of the project, the build's outputs and hidden folders left out.
CLANG_FORMAT ?= clang-format
FORMAT_FILES ?= $(shell find . \( -path ./$(BUILD) -o -path './.*' \) -prune -o -type f \
                  \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | sort)

format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	@$(CLANG_FORMAT) --version
	@differ=$$(for f in $(FORMAT_FILES); do $(CLANG_FORMAT) "$$f" | cmp -s "$$f" - || echo "$$f"; done); \
	if [ -n "$$differ" ]; then echo "not formatted (make format fixes them):"; echo "$$differ"; exit 1; fi

clean:
	rm -rf $(BUILD) tests/bin $(addsuffix /run,$(STEP_DIRS)) $(SHORT_NAMES) labs/lab*/program \
	    step13_gather/variants/run

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
