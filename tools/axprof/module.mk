# tools/axprof/module.mk - the axprof hub and its builtin commands (tools/axprof/builtin-*.c).
TOOLS += axprof
axprof_SRCS := tools/axprof/axprof.c $(wildcard tools/axprof/builtin-*.c)
