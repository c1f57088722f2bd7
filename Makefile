# Makefile - axprof's one non-recursive build. Each directory adds itself through its module.mk.
#
#   make            build libraries and tools into build/ (tools in build/bin/)
#   make check      install missing deps, build, run every test (unit, differential, integration)
#   make bench      print performance figures (never asserts on time)
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
INCS     := -Icompat -Ikmod/interp -Ikmod/sampler -Ihotlist -Iisa -Imachine -Ipdb -Idaemon -Ianalysis -Ieval -Itools/lib -Itools -Itests -Iimage
CFLAGS   ?= -O2 -g
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
DEPFLAGS  = -MMD -MP
LDLIBS   := -lelf -lz -lm

# Filled by module.mk files:
CORE_SRCS :=	# freestanding, kernel-compatible core (also part of the library)
LIB_SRCS  :=	# user-space library code (libaxprof)
TOOLS     :=	# tool names; each has <name>_SRCS
TEST_PROGS :=	# extra test programs beyond tests/*/test_*.c
ALL_TARGETS :=
CHECK_STEPS :=	# extra commands run after the unit tests by `make check`
BENCH_STEPS :=

.PHONY: all check check-core bench deps clean format-check tests modules
all:

# The libraries every program links; defined before the module.mk files so their rules can name them.
LIB      := $(BUILD)/lib/libaxprof.a
LIB_SAN  := $(BUILD)/lib/libaxprof-san.a

include $(wildcard */module.mk */*/module.mk)

LIB_OBJS     := $(patsubst %.c,$(BUILD)/obj/%.o,$(CORE_SRCS) $(LIB_SRCS))
LIB_SAN_OBJS := $(patsubst %.c,$(BUILD)/san/%.o,$(CORE_SRCS) $(LIB_SRCS))

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -c $< -o $@

$(BUILD)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC-SAN  $<")
	$(Q)$(CC) $(WARN) $(SANFLAGS) $(DEPFLAGS) $(INCS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SAN): $(LIB_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Tools: build/bin/<name> from <name>_SRCS.
define tool_rule
$(BUILD)/bin/$(1): $$(patsubst %.c,$(BUILD)/obj/%.o,$$($(1)_SRCS)) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  LD      $$@")
	$$(Q)$$(CC) $$(CFLAGS) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))
TOOL_BINS := $(addprefix $(BUILD)/bin/,$(TOOLS))

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
	$(Q)$(MAKE) --no-print-directory all tests workloads
	$(Q)$(MAKE) --no-print-directory check-core format-check
	$(Q)scripts/run-tests $(BUILD) $(TEST_BINS) -- $(CHECK_STEPS)

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCH_PROGS)
	$(Q)for s in $(BENCH_STEPS); do BUILD=$(BUILD) $$s || exit 1; done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(BUILD)/san $(BUILD)/tests -name '*.d' 2>/dev/null)
