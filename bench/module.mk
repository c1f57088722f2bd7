# bench/module.mk - benchmarks that print figures (never timed assertions). `make bench` runs BENCH_STEPS.
TOOLS += bench_interp
bench_interp_SRCS := bench/bench_interp.c
BENCH_STEPS += bench/interp.sh
