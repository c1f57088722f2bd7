# machine/module.mk - the hosted Alpha machine (mach_*): address space, loader, system calls, run
# loop; the EV5 timing model files (mach_ev5*, mach_pmu*, mach_truth*) live here too.
MODULES += machine
machine_DIR := machine
machine_DEPS := isa sampler
machine_PRIVATE := mach_ev5_model.h mach_ev6_model.h mach_trec.h
machine_SRCS := $(wildcard machine/*.c)

# Linux/Alpha ABI tables generated from the Alpha kernel headers of the sysroot.
MACH_GEN := $(BUILD)/gen/machine
MACH_GEN_HDRS := $(MACH_GEN)/mach_sysnr.h $(MACH_GEN)/mach_errno.h $(MACH_GEN)/mach_signo.h
$(MACH_GEN_HDRS) &: machine/gen-tables.sh
	@mkdir -p $(MACH_GEN)
	$(if $(Q),@echo "  GEN     $(MACH_GEN)/mach_*.h")
	$(Q)machine/gen-tables.sh $(SYSROOT)/include $(MACH_GEN)

$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard machine/mach_sys*.c machine/mach_signal.c)) \
$(patsubst %.c,$(BUILD)/san/%.o,$(wildcard machine/mach_sys*.c machine/mach_signal.c)): $(MACH_GEN_HDRS)
machine_EXTRA_INCS := -I$(MACH_GEN)
$(BUILD)/tests/machine/%: $(MACH_GEN_HDRS)

# End-to-end checks of `axprof run` and its speed figures.
CHECK_STEPS += tests/machine/run-workloads.sh
# Truncated programs and interpreters are run whole or rejected, never half loaded.
CHECK_STEPS += tests/machine/truncated-elf.sh
# --confine DIR: the program cannot leave DIR (and behaves as before without it).
CHECK_STEPS += tests/machine/confine.sh
BENCH_STEPS += bench/machine-speed.sh

# Samples-vs-truth agreement check (tests/machine/samples-vs-truth.sh).
TEST_PROGS += $(BUILD)/tests/machine/samples_vs_truth
CHECK_STEPS += tests/machine/samples-vs-truth.sh
$(BUILD)/tests/machine/samples_vs_truth: tests/machine/samples_vs_truth.c $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(WARN) $(CFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)

# EV6 (21264) model: every workload runs alike timed and functionally, the truth invariants hold,
# storeload's planted conflicts replay (tests/machine/ev6-workloads.sh).
TEST_PROGS += $(BUILD)/tests/machine/ev6_truth_check
CHECK_STEPS += tests/machine/ev6-workloads.sh
$(BUILD)/tests/machine/ev6_truth_check: tests/machine/ev6_truth_check.c $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(WARN) $(CFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)
