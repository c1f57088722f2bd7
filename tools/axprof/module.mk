# tools/axprof/module.mk - the axprof hub and its builtin commands (tools/axprof/builtin-*.c).
MODULES += axprof
axprof_DIR := tools/axprof
axprof_DEPS := toolslib
axprof_EXTRA_INCS := -Itools
TOOLS += axprof
axprof_SRCS := tools/axprof/axprof.c $(wildcard tools/axprof/builtin-*.c)
# ProfileMe recording cost on the hosted EV6 machine (printed, never timed).
BENCH_STEPS += bench/profileme-overhead.sh
