# tools/module.mk - vprof, vreplay, the record pipeline's tests
# (tests/tools/), the daemon benchmarks, and `make demo`.
# (The axprof hub's builtin-record/report/flush/epoch/merge.c are globbed by tools/axprof/module.mk.)

TOOLS += vprof vreplay
vprof_SRCS := tools/vprof/vprof.c
vreplay_SRCS := tools/vreplay/vreplay.c

# Benchmarks: daemon merge throughput, hash reduction, database size, sampling slowdown.
TOOLS += bench_daemon
bench_daemon_SRCS := bench/bench_daemon.c
BENCH_STEPS += bench/bench_daemon.sh

# `make demo`: from a fresh clone, dependencies, the build and the workloads, then semiinv and
# storeload recorded on the hosted machine into $(BUILD)/demo-db and the reports printed.
.PHONY: demo
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory workloads || echo "demo: bzip2/gzip not built (not needed)"
	$(Q)BUILD=$(BUILD) tools/vprof/demo.sh
