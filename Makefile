# Makefile - axprof's one non-recursive build. Each directory adds itself through its module.mk.
#
#   make            build libraries and tools into build/ (tools in build/bin/)
#   make check      install missing deps, build, run every test (unit, differential, integration)
#   make bench      print performance figures (never asserts on time)
#   make fuzz       long libFuzzer campaigns, FUZZ_SECONDS (600) per target (tests/fuzz/module.mk)
#   make check-core compile the freestanding core with -ffreestanding -nostdinc (no libc, no FP)
#   V=1             show commands;  WERROR=1  turn warnings into errors (CI does)

BUILD   ?= build
CC      ?= gcc
ACC     ?= alpha-linux-gnu-gcc
AOBJDUMP ?= alpha-linux-gnu-objdump
SYSROOT ?= /usr/alpha-linux-gnu
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

WARN := -std=gnu11 -Wall -Wextra -Wshadow -Wundef -Wwrite-strings -Wmissing-prototypes \
	-Wstrict-prototypes -Wformat=2 -Wimplicit-fallthrough
ifeq ($(WERROR),1)
WARN += -Werror
endif
CFLAGS   ?= -O2 -g
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
DEPFLAGS  = -MMD -MP
# -l:libstdc++.so.6: __cxa_demangle for C++ symbol names (tools/lib/tl_sym.c)
LDLIBS   := -ldw -lelf -lz -lm -l:libstdc++.so.6

# Filled by module.mk files:
MODULES   :=	# library modules (see "Modules and layers" below)
TOOLS     :=	# tool names; each has <name>_SRCS
TEST_PROGS :=	# extra test programs beyond tests/*/test_*.c
ALL_TARGETS :=
CHECK_STEPS :=	# extra commands run after the unit tests by `make check`
BENCH_STEPS :=

.PHONY: all check check-core check-layers bench deps clean format-check tests modules san-tools
all:

# Modules and layers (DESIGN.md "Layers"). Each directory's module.mk declares its module:
#   MODULES      += NAME
#   NAME_DIR     := the directory (its top-level files are the module's)
#   NAME_DEPS    := the modules it may include and link, directly (their own DEPS follow)
#   NAME_SRCS    := its library sources: an archive build/lib/libax-NAME.a
#   NAME_PRIVATE := headers no other module may include (besides every *_int.h)
# A module's objects are compiled with -I for its own directory and its dependencies' only, so an
# include that goes up a layer does not compile; `make check-layers` (scripts/check-layers) names
# it, and a private header included from another module, from the declarations alone.
# LAYERS lists the library modules from the top down: the archives are linked in this order (every
# one of them has sources; module.mk rules may name $(LIB) and $(LIB_SAN) as prerequisites).
LAYERS := eval toolslib analysis daemon pdb machine isa image sampler interp hotlist compat
LIB     := $(foreach m,$(LAYERS),$(BUILD)/lib/libax-$(m).a)
LIB_SAN := $(foreach m,$(LAYERS),$(BUILD)/lib/libax-$(m)-san.a)

LATE_RULES :=	# names of rule templates that need every module.mk read (tests/fuzz/module.mk)
include $(wildcard */module.mk */*/module.mk)
$(foreach r,$(LATE_RULES),$(eval $(call $(r))))

mod_closure = $(sort $(1) $(foreach d,$($(1)_DEPS),$(call mod_closure,$(d))))
mod_incs = $(foreach m,$(call mod_closure,$(1)),-I$($(m)_DIR) $($(m)_EXTRA_INCS))
# Tests, benchmarks and test programs see every module.
INCS := $(foreach m,$(LAYERS),$(if $($(m)_DIR),-I$($(m)_DIR))) $(foreach m,$(MODULES),$($(m)_EXTRA_INCS)) -Itools -Itests

define mod_rule
$(BUILD)/obj/$($(1)_DIR)/%.o $(BUILD)/san/$($(1)_DIR)/%.o: INCS = $$(call mod_incs,$(1))
$(if $(filter $(1),$(LAYERS)),$(BUILD)/lib/libax-$(1).a: $(patsubst %.c,$(BUILD)/obj/%.o,$($(1)_SRCS)))
$(if $(filter $(1),$(LAYERS)),$(BUILD)/lib/libax-$(1)-san.a: $(patsubst %.c,$(BUILD)/san/%.o,$($(1)_SRCS)))
endef
$(foreach m,$(MODULES),$(eval $(call mod_rule,$(m))))

# The freestanding, kernel-compatible core.
CORE_SRCS := $(interp_SRCS) $(sampler_SRCS) $(hotlist_SRCS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC-SAN  $<")
	$(Q)$(CC) $(WARN) $(SANFLAGS) $(DEPFLAGS) $(INCS) -c $< -o $@

$(BUILD)/lib/%.a:
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

check-layers:
	$(Q)scripts/check-layers .

# Tools: build/bin/<name> from <name>_SRCS.
define tool_rule
$(BUILD)/bin/$(1): $$(patsubst %.c,$(BUILD)/obj/%.o,$$($(1)_SRCS)) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  LD      $$@")
	$$(Q)$$(CC) $$(CFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))
TOOL_BINS := $(addprefix $(BUILD)/bin/,$(TOOLS))

# The user's tools once more with the sanitizers, against the -san archives: build/san-bin/<name>,
# run by tests/tools/check-san-tools.sh (through AXPROF_BIN) so that `make check` fails on an
# ASan/UBSan/LSan finding in the tools themselves, not only in the unit tests.
SAN_TOOLS := axprof vprof vreplay axprofd axeval
define san_tool_rule
$(BUILD)/san-bin/$(1): $$(patsubst %.c,$(BUILD)/san/%.o,$$($(1)_SRCS)) $(LIB_SAN)
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  LD-SAN  $$@")
	$$(Q)$$(CC) $$(SANFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach t,$(SAN_TOOLS),$(eval $(call san_tool_rule,$(t))))
SAN_TOOL_BINS := $(addprefix $(BUILD)/san-bin/,$(SAN_TOOLS))
san-tools: $(SAN_TOOL_BINS)

# Unit tests: every tests/<dir>/test_<file>.c is one cmocka program, built with the sanitizers.
TEST_SRCS := $(wildcard tests/*/test_*.c)
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
$(BUILD)/tests/%: tests/%.c $(LIB_SAN)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  TEST    $@")
	$(Q)$(CC) $(WARN) $(SANFLAGS) $(DEPFLAGS) $(INCS) -Itests -o $@ $< $(LIB_SAN) -lcmocka $(LDLIBS)

all: $(LIB) $(TOOL_BINS) $(ALL_TARGETS)
tests: $(TEST_BINS) $(TEST_PROGS)

deps:
	$(Q)scripts/install-deps

# The freestanding proof: core files compile with no libc headers, no FP registers.
CORE_FLAGS := -std=gnu11 -ffreestanding -nostdinc -fno-builtin -mgeneral-regs-only -fno-pic -O2 \
	-Icompat/freestanding -Ikmod/interp -Ikmod/sampler -Ihotlist $(WARN)
check-core:
	@rm -rf $(BUILD)/core && mkdir -p $(BUILD)/core
	$(Q)for f in $(CORE_SRCS); do \
		$(CC) $(CORE_FLAGS) -c $$f -o $(BUILD)/core/$$(echo $$f | tr / _).o || exit 1; \
	done
	$(Q)ld -r -o $(BUILD)/core/all.o $(BUILD)/core/*_*.o
	$(Q)if nm -u $(BUILD)/core/all.o | grep -vE ' U (memcpy|memset|memmove)$$'; then \
		echo "check-core: the core references symbols outside itself (above)"; exit 1; fi
	@echo "check-core: $(words $(CORE_SRCS)) core files are freestanding"

# Linux modules against a configured Alpha 6.1 tree (default: built by scripts/kernel-tree).
KDIR ?= $(BUILD)/kernel/linux
modules:
	$(Q)BUILD=$(BUILD) scripts/build-modules $(KDIR)

format-check:
	$(Q)if ! command -v clang-format >/dev/null; then echo "format-check: no clang-format, skipped"; exit 0; fi; \
	bad=$$(git ls-files '*.c' '*.h' | xargs -r clang-format --dry-run --Werror 2>&1 | grep -c 'clang-format-violations' || true); \
	if [ "$$bad" != 0 ]; then echo "format-check: clang-format would change $$bad places (run clang-format -i)"; exit 1; fi

check: deps
	$(Q)$(MAKE) --no-print-directory all tests workloads san-tools fuzz-build
	$(Q)$(MAKE) --no-print-directory check-core check-layers format-check
	$(Q)scripts/run-tests $(BUILD) $(TEST_BINS) -- $(CHECK_STEPS)

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_PROGS)
	$(Q)for s in $(BENCH_STEPS); do BUILD=$(BUILD) $$s || exit 1; done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(BUILD)/san $(BUILD)/tests -name '*.d' 2>/dev/null)
