# tests/interp/fpcheck/fpcheck.mk - the FP checker against qemu-alpha (included by kmod/interp/module.mk).
FPCHECK_BIN := $(BUILD)/fpcheck

$(FPCHECK_BIN)/fpcheck-host: tests/interp/fpcheck/fpcheck_host.c $(LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)

$(FPCHECK_BIN)/fpcheck-alpha: tests/interp/fpcheck/fpcheck_alpha.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACC     $@")
	$(Q)$(ACC) -O2 -Wall -Wextra -o $@ $<

TEST_PROGS += $(FPCHECK_BIN)/fpcheck-host $(FPCHECK_BIN)/fpcheck-alpha
BENCH_PROGS += $(FPCHECK_BIN)/fpcheck-host $(FPCHECK_BIN)/fpcheck-alpha
CHECK_STEPS += tests/interp/fpcheck/check
BENCH_STEPS += tests/interp/fpcheck/bench
