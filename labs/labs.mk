# The classroom labs (labs/README.md). Each labs/labNN/reduce.cu is a kernel with holes for
# one step's program; labs/steps.txt says which step. Included by the Makefile after its
# pattern rules.
#   make labNN    labs/labNN/program: the step's host code (host.c and any other .c of the
#                 step) linked with the lab's reduce.cu, compiled with -I<step> so that the
#                 step's reduce.h resolves; and the step programs the lab compares it with,
#                 with their short names (./step05/run)
#   make labs     every lab
#   make labNN-ptx build/labs/labNN/reduce.ptx: the PTX of the lab's kernel (no GPU needed;
#                 ARCH=sm_NN, default sm_90), as make ptx writes it for the steps
#   make labNN-sass build/labs/labNN/reduce.sass: the SASS of the same code, what the GPU runs
#                 after ptxas has scheduled it (no GPU needed; cuobjdump, which the CUDA
#                 toolkit installs in its bin, $(CUDA_HOME)/bin: CUOBJDUMP=path names another)
#   make grade SUBMISSIONS=dir LAB=labNN [GRADE_JOBS=N]
#                 labs/grade.sh: builds and checks every student's kernel, one CSV row each

LAB_TABLE := labs/steps.txt
# One word per lab: lab01:step02_divergence:step01_shared:step02_divergence
LAB_ROWS := $(shell awk '/^lab/ {print $$1 ":" $$2 ":" $$3 ":" $$4}' $(LAB_TABLE))
LABS := $(foreach row,$(LAB_ROWS),$(firstword $(subst :, ,$(row))))

# The flags of make ptx (bench/ptx.sh) that shape the code, and its default architecture.
LAB_PTX_FLAGS := -std=c++17 -O3 -lineinfo
LAB_PTX_ARCH := sm_90

# cuobjdump turns a cubin into SASS; found as bench/ptx.sh finds it.
CUOBJDUMP ?= $(or $(shell command -v cuobjdump 2>/dev/null),$(CUDA_HOME)/bin/cuobjdump)

# A step's objects without its kernel: the host program the lab's kernel completes.
lab_host_objects = $(filter-out $(BUILD)/$(1)/reduce.o,$(call step_objects,$(1)))

# $(1) lab, $(2) the step whose program it completes, $(3) the steps the lab covers
define lab_rules
LAB_STEP_$(1) := $(2)
$(1): labs/$(1)/program $(foreach step,$(sort $(2) $(3)),$(firstword $(subst _, ,$(step))))
labs/$(1)/program: $(BUILD)/labs/$(1)/reduce.o $(call lab_host_objects,$(2)) $(COMMON_OBJECTS)
	$$(NVCC) $$(GENCODE) -o $$@ $$^ $$(LDLIBS)
$(BUILD)/labs/$(1)/reduce.o: labs/$(1)/reduce.cu
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVCCFLAGS) -I$(2) -c $$< -o $$@
$(1)-ptx: $(BUILD)/labs/$(1)/reduce.ptx
$(BUILD)/labs/$(1)/reduce.ptx: labs/$(1)/reduce.cu
	@mkdir -p $$(@D)
	$$(NVCC) $(LAB_PTX_FLAGS) -arch=$$(or $$(ARCH),$(LAB_PTX_ARCH)) -Icommon -I$(2) -ptx $$< -o $$@
$(1)-sass: $(BUILD)/labs/$(1)/reduce.sass
$(BUILD)/labs/$(1)/reduce.sass: labs/$(1)/reduce.cu
	@test -x "$$(CUOBJDUMP)" || { echo "make $(1)-sass: no cuobjdump at $$(CUOBJDUMP): it comes with the CUDA toolkit, in its bin (package cuda-cuobjdump); CUOBJDUMP=path names one" >&2; exit 1; }
	@mkdir -p $$(@D)
	$$(NVCC) $(LAB_PTX_FLAGS) -arch=$$(or $$(ARCH),$(LAB_PTX_ARCH)) -Icommon -I$(2) -cubin $$< -o $$(@:.sass=.cubin)
	$$(CUOBJDUMP) -sass $$(@:.sass=.cubin) >$$@
endef
$(foreach row,$(LAB_ROWS),$(eval $(call lab_rules,$(word 1,$(subst :, ,$(row))),$(word 2,$(subst :, ,$(row))),$(wordlist 3,9,$(subst :, ,$(row))))))

.PHONY: $(LABS) $(addsuffix -ptx,$(LABS)) $(addsuffix -sass,$(LABS)) lab-submission
labs: $(LABS)

grade:
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=dir LAB=labNN [GRADE_JOBS=N]" >&2; exit 2; }
	bash labs/grade.sh $(if $(GRADE_JOBS),-j $(GRADE_JOBS)) "$(SUBMISSIONS)" $(LAB)

# How labs/grade.sh builds one submission in its scratch folder, never touching labs/:
#   make lab-submission LAB=labNN LAB_KERNEL=scratch/reduce.cu LAB_OUT=scratch
#     -> scratch/program, and scratch/reduce.ptx for labs/lesson.py
ifneq ($(and $(LAB_KERNEL),$(LAB_OUT)),)
ifeq ($(LAB_STEP_$(LAB)),)
$(error LAB=$(LAB) is not a lab of labs/steps.txt ($(LABS)))
endif
lab-submission: $(LAB_OUT)/program $(LAB_OUT)/reduce.ptx
$(LAB_OUT)/reduce.ptx: $(LAB_KERNEL)
	$(NVCC) $(LAB_PTX_FLAGS) -arch=$(or $(ARCH),$(LAB_PTX_ARCH)) -Icommon -I$(LAB_STEP_$(LAB)) -ptx $< -o $@
$(LAB_OUT)/reduce.o: $(LAB_KERNEL)
	$(NVCC) $(NVCCFLAGS) -I$(LAB_STEP_$(LAB)) -c $< -o $@
$(LAB_OUT)/program: $(LAB_OUT)/reduce.o $(call lab_host_objects,$(LAB_STEP_$(LAB))) $(COMMON_OBJECTS)
	$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)
endif
