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

# bench/kernel-irq.sh boots $(BUILD)/kernel-irq/init (bench/kirq_guest.c; its rule: tests/kernel/module.mk).
BENCH_STEPS += bench/kernel-irq.sh
