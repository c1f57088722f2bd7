# workloads/ev6-micro/module.mk - the EV6 microbenchmarks (sim-alpha style; EXPECTED.md, expected.tsv).
#
# Each workloads/ev6-micro/<name>.c becomes build/workloads/ev6-micro/<name>, built like the
# other workloads (dynamic, -O2 -g); the kernels are assembly, so the flags do not change them.
# `make eval` runs them (eval/run-micro.sh) and compares with the cycles per iteration derived
# from the 21264 HRM.
MICRO_SRCS := $(wildcard workloads/ev6-micro/*.c)
MICRO_BINS := $(patsubst workloads/%.c,$(BUILD)/workloads/%,$(MICRO_SRCS))

ALL_TARGETS += $(MICRO_BINS)
CHECK_STEPS += tests/workloads/check-micro.sh

$(MICRO_BINS): $(BUILD)/workloads/ev6-micro/%: workloads/ev6-micro/%.c workloads/ev6-micro/micro.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACC     $<")
	$(Q)$(ACC) $(WARN) $(WL_CFLAGS) -o $@ $<
