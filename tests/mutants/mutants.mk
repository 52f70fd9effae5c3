# The oracle mutants (tests/mutants/README.md). Each tests/mutants/STEP-WHAT.mutant is one edit
# of STEP/reduce.cu; its program is the step's own host code linked with the edited kernel, as
# a lab's program is (labs/labs.mk, whose lab_host_objects this uses). Included by the
# Makefile after labs/labs.mk.
#   make mutants     build/mutants/STEP-WHAT/run for every mutant (tests/mutants/build.sh
#                    builds them the way the tests do, one build at a time)
#   make build/mutants/STEP-WHAT/run     one of them
# tests/mutants/mutate.sh writes build/mutants/STEP-WHAT/reduce.cu, and stops the build when
# the lines the mutant changes are no longer in the step's reduce.cu exactly once.

MUTANTS := $(patsubst tests/mutants/%.mutant,%,$(wildcard tests/mutants/*.mutant))
MUTANT_PROGRAMS := $(patsubst %,$(BUILD)/mutants/%/run,$(MUTANTS))

# $(1) the mutant, $(2) the step whose reduce.cu it edits (step13 also links step12's ceilings)
define mutant_rules
$(BUILD)/mutants/$(1)/reduce.cu: tests/mutants/$(1).mutant tests/mutants/mutate.sh $(2)/reduce.cu
	@mkdir -p $$(@D)
	bash tests/mutants/mutate.sh $$< $$@
$(BUILD)/mutants/$(1)/reduce.o: $(BUILD)/mutants/$(1)/reduce.cu
	$$(NVCC) $$(NVCCFLAGS) -I$(2) -c $$< -o $$@
$(BUILD)/mutants/$(1)/run: $(BUILD)/mutants/$(1)/reduce.o $(call lab_host_objects,$(2)) \
                           $(if $(filter $(2),$(CEILINGS_STEPS)),$(BUILD)/step12_small_n/ceilings.o) \
                           $(COMMON_OBJECTS)
	$$(NVCC) $$(GENCODE) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach m,$(MUTANTS),$(eval $(call mutant_rules,$(m),$(firstword $(subst -, ,$(m))))))

.PHONY: mutants
mutants: $(MUTANT_PROGRAMS)
