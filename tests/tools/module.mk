# tests/tools/module.mk - end-to-end checks of the record pipeline (axprof record/report, vprof,
# vreplay, axprofd) on the hosted machine, and the planted-value grader they use.
GRADE_PLANTED := $(BUILD)/tests/tools/grade-planted
$(GRADE_PLANTED): tests/tools/grade-planted.c $(LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)
TEST_PROGS += $(GRADE_PLANTED)
ADD_SAMPLES := $(BUILD)/tests/tools/add-samples
$(ADD_SAMPLES): tests/tools/add-samples.c $(LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)
TEST_PROGS += $(ADD_SAMPLES)
PME_TRUTH := $(BUILD)/tests/tools/pme-truth
$(PME_TRUTH): tests/tools/pme-truth.c $(LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)
TEST_PROGS += $(PME_TRUTH)
PME_WASTE := $(BUILD)/tests/tools/pme-waste
$(PME_WASTE): tests/tools/pme-waste.c $(LIB)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(INCS) -o $@ $< $(LIB) $(LDLIBS)
TEST_PROGS += $(PME_WASTE)

CHECK_STEPS += tests/tools/check-cli.sh tests/tools/check-daemon.sh tests/tools/check-golden.sh \
	tests/tools/check-merge-epochs.sh tests/tools/check-planted-vprof.sh \
	tests/tools/check-planted-vreplay.sh tests/tools/check-sampling-output.sh \
	tests/tools/check-sampling-opts.sh tests/tools/check-json.sh tests/tools/check-periods.sh \
	tests/tools/check-record-signals.sh tests/tools/check-cli-values.sh tests/tools/check-identity.sh \
	tests/tools/check-vreplay-replays.sh tests/tools/check-vreplay-ev6.sh \
	tests/tools/check-fsck.sh tests/tools/check-lines.sh tests/tools/check-diff.sh \
	tests/tools/check-export.sh
# axprof stat (perfex): multiplexed projections vs exact counts, children's counts, bad -e.
CHECK_STEPS += tests/tools/check-stat.sh
# Coherence between --cpus N virtual CPUs: false sharing in stat, the truth and samples.
CHECK_STEPS += tests/tools/check-coherence.sh
# ProfileMe on the EV6 machine against its truth (axprof record --mode profileme, profileme).
CHECK_STEPS += tests/tools/check-profileme.sh
# ProfileMe's Figure 7: wasted issue slots vs the truth, the planted bottleneck ranked first.
CHECK_STEPS += tests/tools/check-pme-waste.sh
# annotate and vreplay from ProfileMe samples (executions, stage latencies, exact replays).
CHECK_STEPS += tests/tools/check-pme-tools.sh
# axprof paths: ctl_random's 1-bit paths against the truth; its refusals.
CHECK_STEPS += tests/tools/check-axprof-paths.sh
# The tools themselves under ASan/UBSan/LSan (build/san-bin/, `make san-tools`).
CHECK_STEPS += tests/tools/check-san-tools.sh
# The views' row filters: --percent-limit, --min-samples, -n against the unfiltered rows.
CHECK_STEPS += tests/tools/check-limits.sh
# Symbols everywhere: vreplay names a conflict partner in another image by that image's symbol.
CHECK_STEPS += tests/tools/check-symbols.sh
# vprof --args/--callers on callargs' planted arguments and callers, against --proc-truth.
CHECK_STEPS += tests/tools/check-planted-args.sh
# vprof --addresses on addrwalk's planted invariant and strided loads, against --addr-truth.
CHECK_STEPS += tests/tools/check-planted-addrs.sh
# Processes under record: virtual pids, execve'd programs under their own image, every process
# counted, reproducible without a pid namespace (issue 17).
CHECK_STEPS += tests/tools/check-procs.sh
# The database keeps threads and names: report --tid, --comm, --tasks on falseshare and forkexec.
CHECK_STEPS += tests/tools/check-threads.sh
# record -g: the hosted shadow call stacks against the procedure truth (callargs' 70/30 callers).
CHECK_STEPS += tests/tools/check-callgraph.sh
# record --period prime:LO-HI: the drawn periods' mean and the stored mean are the primes'.
CHECK_STEPS += tests/tools/check-prime-periods.sh
# C++ names demangled in every view, --no-demangle, vprof's pointer values named (issue 16 item 7).
CHECK_STEPS += tests/tools/check-cxx.sh
# --sort FIELD on every view that lists rows: orders, -n with an ordering field, unknown fields.
CHECK_STEPS += tests/tools/check-sort.sh
# -n, --percent-limit, --min-samples, --sort on cfg, paths, profileme, vprof and vreplay
# against their unfiltered rows (issue 16 item 7).
CHECK_STEPS += tests/tools/check-view-opts.sh
# run --stats/--json: top PCs named by symbol against nm, per process (issue 16 item 7).
CHECK_STEPS += tests/tools/check-run-stats.sh
# The hosted [kernel] pseudo-image: system-call time sampled as kernel time against the truth's
# section 10, on EV5 and EV6 (issue 21 item 3).
CHECK_STEPS += tests/tools/check-kernel-time.sh
# run --cpus N --truth: one truth for all CPUs, per-PC counts equal to --cpus 1's.
CHECK_STEPS += tests/tools/check-truth-cpus.sh
CHECK_STEPS += tests/tools/check-relpaths.sh
