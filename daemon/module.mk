# daemon/module.mk - axprofd and the daemon library (dmn_*): device drain, image maps, merging.
LIB_SRCS += $(wildcard daemon/dmn_*.c)
TOOLS += axprofd
axprofd_SRCS := daemon/axprofd.c
# axprofd itself SIGKILLed at random instants while it merges saved records.
CHECK_STEPS += tests/daemon/dmn_crash.sh
