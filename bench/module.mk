# bench/module.mk - benchmarks that print figures (never timed assertions). `make bench` runs BENCH_STEPS.
TOOLS += bench_interp
bench_interp_SRCS := bench/bench_interp.c
BENCH_STEPS += bench/interp.sh
TOOLS += bench_ev5
bench_ev5_SRCS := bench/bench_ev5.c
BENCH_STEPS += bench/ev5.sh
TOOLS += bench_decode
bench_decode_SRCS := bench/bench_decode.c
BENCH_STEPS += bench/decode-sweep.sh

# The guest /init of bench/kernel-irq.sh (a dynamic Alpha program, as tests/kernel's init).
KIRQ_INIT_SRCS := bench/kirq_guest.c kmod/sampler/vs_abi.c kmod/sampler/vs_prime.c \
	kmod/sampler/vs_prng.c hotlist/hotlist.c
$(BUILD)/kernel-irq/init: $(KIRQ_INIT_SRCS) kmod/sampler/linux/axprof_ioctl.h kmod/sampler/vs_abi.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACC     $@")
	$(Q)$(ACC) $(WARN) -O2 -g -Icompat -Ikmod/interp -Ikmod/sampler -Ihotlist -Ikmod/sampler/linux \
		-o $@ $(KIRQ_INIT_SRCS)
BENCH_STEPS += bench/kernel-irq.sh
