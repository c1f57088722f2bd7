# pdb/module.mk - the profile database library (pdb_*), its crash, fuzz and benchmark programs.
MODULES += pdb
pdb_DIR := pdb
pdb_DEPS := hotlist compat image
pdb_SRCS := $(wildcard pdb/pdb_*.c)

# Crash-safety helper (SIGKILLed by tests/pdb/pdb_crash.sh; also writes fuzzing seeds). Built
# -O2 without sanitizers against the archives: the script starts it 120 times and must stay fast.
PDB_STRESS := $(BUILD)/tests/pdb/pdb_stress
TEST_PROGS += $(PDB_STRESS)
$(PDB_STRESS): tests/pdb/pdb_stress.c $(LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)
CHECK_STEPS += tests/pdb/pdb_crash.sh

# kill -9 campaigns on record, merge, epoch and flush (tests/pdb/pdb_tx_crash.sh): a short one in
# make check, >= 100 trials each in `make crash`. failopen.so fails one file of a flush.
PDB_FAILOPEN := $(BUILD)/tests/pdb/failopen.so
TEST_PROGS += $(PDB_FAILOPEN)
$(PDB_FAILOPEN): tests/pdb/failopen.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) -O2 -fPIC -shared -o $@ $< -ldl
CHECK_STEPS += tests/pdb/pdb_tx_crash.sh
.PHONY: crash
crash: all tests
	TX_TRIALS=100 TX_RECORD_TRIALS=100 nice tests/pdb/pdb_tx_crash.sh
	PDB_KILLS=100 nice tests/pdb/pdb_crash.sh

# The reader's fuzz target: built with gcc as a replay program for `make tests`, and with clang's
# libFuzzer by `make fuzz` (tests/fuzz/module.mk runs the campaigns). Seeds: pdb_stress corpus DIR.
TEST_PROGS += $(BUILD)/tests/pdb/fuzz_pdb_read
CHECK_STEPS += tests/pdb/pdb_fuzz_seeds.sh
FUZZ_CC ?= clang
$(BUILD)/fuzz/fuzz_pdb_read: tests/pdb/fuzz_pdb_read.c $(wildcard pdb/pdb*.c pdb/pdb*.h image/img*.c image/img*.h) \
		compat/ax_err.c hotlist/hotlist.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -DPDB_FUZZ_LIBFUZZER \
		$(INCS) -o $@ $(filter %.c,$^) $(LDLIBS)

# Benchmark: merge throughput and bytes per offset (bench/bench_pdb.c).
TOOLS += bench_pdb
bench_pdb_SRCS := bench/bench_pdb.c
BENCH_STEPS += tests/pdb/pdb_bench.sh
