# tests/diff/module.mk - differential test of the interpreter against qemu-alpha (tests/diff/diffvec.h).
#
# build/alpha/runner       Alpha program, cross-compiled dynamically (static glibc crashes under
#                          qemu-alpha); executes vectors natively under qemu-alpha
# build/tests/diff/vecgen  host: deterministic vector generator
# build/tests/diff/diffcheck  host: replays qemu's results through axp_step() and compares
# (the two host programs use the tests pattern rule: sanitizers, the -san archives.)
DIFF_RUNNER := $(BUILD)/alpha/runner
DIFF_PROGS := $(DIFF_RUNNER) $(BUILD)/tests/diff/vecgen

$(DIFF_RUNNER): tests/diff/runner.c tests/diff/diffvec.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACC     $@")
	$(Q)$(ACC) -std=gnu11 -O2 -g -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -o $@ $<

# diffcheck links axp_step(): only once the executor exists.
ifneq ($(wildcard kmod/interp/exec.c),)
DIFF_PROGS += $(BUILD)/tests/diff/diffcheck
CHECK_STEPS += tests/diff/check-quick
BENCH_STEPS += tests/diff/check-long
endif

TEST_PROGS += $(DIFF_PROGS)
BENCH_PROGS += $(DIFF_PROGS)
