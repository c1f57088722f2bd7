# daemon/module.mk - axprofd and the daemon library (dmn_*): device drain, image maps, merging.
MODULES += daemon
daemon_DIR := daemon
daemon_DEPS := pdb sampler image
daemon_PRIVATE := dmn_int.h
daemon_SRCS := $(wildcard daemon/dmn_*.c)
TOOLS += axprofd
axprofd_SRCS := daemon/axprofd.c
# axprofd itself SIGKILLed at random instants while it merges saved records.
CHECK_STEPS += tests/daemon/dmn_crash.sh
# Kernel samples to the kernel image and modules from saved kallsyms/modules (issue 21).
CHECK_STEPS += tests/daemon/check-kernel.sh

# Benchmarks: daemon merge throughput, hash reduction, database size, sampling slowdown.
TOOLS += bench_daemon
bench_daemon_SRCS := bench/bench_daemon.c
BENCH_STEPS += bench/bench_daemon.sh
