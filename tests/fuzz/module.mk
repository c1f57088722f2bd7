# tests/fuzz/module.mk - the libFuzzer targets (tests/fuzz/fuzz_*.c, tests/pdb/fuzz_pdb_read.c).
#
# Every target is built twice: by `make tests` with gcc and ASan/UBSan as a replay program
# (build/tests/fuzz/fuzz_X reads the files it is given), and with clang -fsanitize=fuzzer
# against clang-built copies of the libraries (build/fuzz/fuzz_X, `make fuzz-build`; make check
# builds them when clang is installed). Seeds: tests/fuzz/corpus/<target>/ (fuzz_pdb_read's are
# written by `pdb_stress corpus`).
#   make check  replays the seeds (and truncations of them) through the gcc builds, then, with
#               clang, runs each libFuzzer target for FUZZ_CHECK_SECONDS (3) on its seeds
#               (tests/fuzz/fuzz-check.sh)
#   make fuzz   a campaign of FUZZ_SECONDS (600) per target, one at a time under nice -n 19
#               (tests/fuzz/campaign.sh; corpora and findings in build/fuzz/work/<target>/)
FUZZ_NAMES := fuzz_elf fuzz_dmn_stream fuzz_truth fuzz_cfg fuzz_opts fuzz_ksyms
TEST_PROGS += $(addprefix $(BUILD)/tests/fuzz/,$(FUZZ_NAMES))
CHECK_STEPS += tests/fuzz/fuzz-check.sh
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 600
FUZZ_FLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
FUZZ_LIB := $(BUILD)/fuzz/libax-fuzz.a
FUZZ_BINS := $(addprefix $(BUILD)/fuzz/,$(FUZZ_NAMES) fuzz_pdb_read)

.PHONY: fuzz fuzz-build
ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
# The libraries, instrumented for libFuzzer's coverage (linked into every target). The archive
# rule needs every module's sources: the Makefile evaluates it after all module.mk files.
define fuzz_lib_rule
FUZZ_LIB_OBJS := $$(patsubst %.c,$(BUILD)/fuzzobj/%.o,$$(foreach m,$(LAYERS),$$($$(m)_SRCS)))
$(FUZZ_LIB): $$(FUZZ_LIB_OBJS)
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  AR      $$@")
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
$$(patsubst %.c,$(BUILD)/fuzzobj/%.o,$$(machine_SRCS)): $$(MACH_GEN_HDRS)
endef
LATE_RULES += fuzz_lib_rule
$(BUILD)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP $(INCS) -c $< -o $@
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -DFUZZ_LIBFUZZER $(INCS) -o $@ $< \
		$(FUZZ_LIB) $(LDLIBS)
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build $(BUILD)/tests/pdb/pdb_stress
	$(Q)BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/campaign.sh $(FUZZ_NAMES) fuzz_pdb_read
else
fuzz-build:
fuzz:
	@echo "fuzz: $(FUZZ_CC) not found; install clang to build and run $(FUZZ_BINS)"
endif
-include $(shell find $(BUILD)/fuzzobj -name '*.d' 2>/dev/null)
