# workloads/module.mk - Alpha test programs (ours) and the recipe for real ones from Debian sources.
#
# Each workloads/<name>.c becomes build/workloads/<name>, a DYNAMIC Alpha executable (static glibc
# crashes under qemu-alpha) built with -O2 -g: symbols and line tables stay, as DCPI-style tools
# read them. `make workloads` fetches and builds bzip2, gzip and lua (scripts/fetch-workloads).
WL_SRCS   := $(wildcard workloads/*.c)
WL_NAMES  := $(patsubst workloads/%.c,%,$(WL_SRCS))
WL_BINS   := $(addprefix $(BUILD)/workloads/,$(WL_NAMES))
WL_CFLAGS := -O2 -g -pthread

# C++ workloads (workloads/<name>.cc): compiled by the Alpha gcc driver as C++ (cc1plus, from
# g++-alpha-linux-gnu) and linked without libstdc++, which they do not use.
WL_CXX_SRCS  := $(wildcard workloads/*.cc)
WL_CXX_BINS  := $(patsubst workloads/%.cc,$(BUILD)/workloads/%,$(WL_CXX_SRCS))
WL_CXXFLAGS  := -O2 -g -fno-exceptions -fno-rtti

ALL_TARGETS += $(WL_BINS) $(WL_CXX_BINS)
CHECK_STEPS += tests/workloads/run-qemu.sh tests/workloads/check-planted.sh

$(WL_BINS): $(BUILD)/workloads/%: workloads/%.c workloads/wl.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACC     $<")
	$(Q)$(ACC) $(WARN) $(WL_CFLAGS) -o $@ $<

$(WL_CXX_BINS): $(BUILD)/workloads/%: workloads/%.cc workloads/wl.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  ACXX    $<")
	$(Q)$(ACC) -Wall -Wextra -Werror $(WL_CXXFLAGS) -o $@ $<

.PHONY: workloads
workloads:
	$(Q)BUILD=$(BUILD) ACC=$(ACC) scripts/fetch-workloads

# falsepad.c is falseshare.c with padding (#include).
$(BUILD)/workloads/falsepad: workloads/falseshare.c

# forkexec.c includes execworker.c (the work it does in place when execve cannot run it).
$(BUILD)/workloads/forkexec: workloads/execworker.c
