# daemon/module.mk - axprofd (dmn_*) and the profile database library (pdb_*).
LIB_SRCS += $(wildcard daemon/pdb*.c)

# Crash-safety helper (SIGKILLed by tests/daemon/pdb_crash.sh; also writes fuzzing seeds). Built
# -O2 without sanitizers against libaxprof.a: the script starts it 120 times and must stay fast.
PDB_STRESS := $(BUILD)/tests/daemon/pdb_stress
TEST_PROGS += $(PDB_STRESS)
$(PDB_STRESS): tests/daemon/pdb_stress.c $(BUILD)/lib/libaxprof.a
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -o $@ $< $(BUILD)/lib/libaxprof.a $(LDLIBS)
CHECK_STEPS += tests/daemon/pdb_crash.sh
# The same for axprofd itself: SIGKILLed at random instants while it merges saved records.
CHECK_STEPS += tests/daemon/dmn_crash.sh

# The reader's fuzz target: built with gcc as a replay program by `make tests`, and with clang's
# libFuzzer by `make fuzz` (when clang is installed). Seeds: pdb_stress corpus DIR.
TEST_PROGS += $(BUILD)/tests/daemon/fuzz_pdb_read
CHECK_STEPS += tests/daemon/pdb_fuzz_seeds.sh
FUZZ_CC ?= clang
PDB_FUZZ := $(BUILD)/fuzz/fuzz_pdb_read
.PHONY: fuzz
ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
fuzz: $(PDB_FUZZ)
$(PDB_FUZZ): tests/daemon/fuzz_pdb_read.c $(wildcard daemon/pdb*.c daemon/pdb*.h) hotlist/hotlist.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -DPDB_FUZZ_LIBFUZZER \
		$(INCS) -o $@ $(filter %.c,$^) $(LDLIBS)
else
fuzz:
	@echo "fuzz: $(FUZZ_CC) not found; install clang to build $(PDB_FUZZ)"
endif

# Benchmark: merge throughput and bytes per offset (bench/bench_pdb.c).
TOOLS += bench_pdb
bench_pdb_SRCS := bench/bench_pdb.c
BENCH_STEPS += tests/daemon/pdb_bench.sh
