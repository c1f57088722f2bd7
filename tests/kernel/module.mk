# tests/kernel/module.mk - `make kernel-test` (issue 6): axprof.ko in a real Alpha Linux 6.1 kernel.
# tests/kernel/kernel-test.sh does everything (deps, cached kernel tree, modules, initramfs, boot
# under qemu-system-alpha, host checks); `make check` runs it as one step. kt_check is its host-side
# record checker and init the guest's /init (neither is a cmocka test: no test_ prefix).
KT_CHECK := $(BUILD)/tests/kernel/kt_check
KT_INIT := $(BUILD)/kernel-test/init
TEST_PROGS += $(KT_CHECK) $(KT_INIT)
CHECK_STEPS += tests/kernel/kernel-test.sh
# scripts/kernel-tree's configuration stamp (SMP tree accepted, others refused): no kernel needed.
CHECK_STEPS += tests/kernel/kernel-tree-config.sh
# bench/kirq_trace.py's instruction count on a made-up trace: no kernel needed.
CHECK_STEPS += tests/kernel/check-kirq-trace.sh

$(KT_CHECK): tests/kernel/kt_check.c tests/kernel/kt_procs.c tests/kernel/kt_procs.h $(LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(INCS) -o $@ $(filter %.c,$^) $(LIB) $(LDLIBS)

# Guest programs (dynamic Alpha programs in the initramfs): the kernel test's /init and
# bench/kernel-irq.sh's, built alike against the sampler's ABI.
KT_GUEST_SRCS := kmod/sampler/vs_abi.c kmod/sampler/vs_prime.c kmod/sampler/vs_prng.c hotlist/hotlist.c
KT_GUEST_HDRS := tests/kernel/kt_module.h kmod/sampler/linux/axprof_ioctl.h kmod/sampler/vs_abi.h \
	hotlist/hotlist.h
KT_GUEST_FLAGS := -O2 -g -Icompat -Ikmod/interp -Ikmod/sampler -Ihotlist -Ikmod/sampler/linux \
	-Itests/kernel
KIRQ_INIT := $(BUILD)/kernel-irq/init
$(KT_INIT): tests/kernel/init.c
$(KIRQ_INIT): bench/kirq_guest.c
$(KT_INIT) $(KIRQ_INIT): $(KT_GUEST_SRCS) $(KT_GUEST_HDRS)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACC     $@")
	$(Q)$(ACC) $(WARN) $(KT_GUEST_FLAGS) -o $@ $(filter %.c,$^)

# The register-exactness workload (hand-written assembly through every register).
$(BUILD)/kernel-test/regcheck: tests/kernel/regcheck.c tests/kernel/regloop.S
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACC     $@")
	$(Q)$(ACC) $(WARN) -O2 -g -o $@ tests/kernel/regcheck.c tests/kernel/regloop.S
TEST_PROGS += $(BUILD)/kernel-test/regcheck

.PHONY: kernel-test
kernel-test:
	$(Q)BUILD=$(BUILD) KDIR=$(KDIR) tests/kernel/kernel-test.sh
