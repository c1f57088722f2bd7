# eval/module.mk - `make eval`: DCPI SOSP'97 Figures 8, 9 and 10 graded against the hosted machine's
# ground truth (eval/run-eval.sh records the workload suite; axeval grades with ev_eval; outputs in
# build/eval/), the EV6 microbenchmarks (run-micro.sh) and vreplay's conflicts against the EV6
# replay traps (run-replays.sh). Only eval/ reads truth files for grading.
MODULES += eval
eval_DIR := eval
eval_DEPS := toolslib
eval_SRCS := eval/ev_eval.c eval/ev_replay.c
TOOLS += axeval
axeval_SRCS := eval/axeval.c eval/axeval_replay.c eval/axeval_paths.c eval/axeval_kernel.c
# eval/noise-floor.sh (the estimates against sampling noise) on a CSV of known figures
CHECK_STEPS += tests/eval/check-noise-floor.sh

.PHONY: eval eval-micro eval-replays eval-paths
eval: all
	$(Q)BUILD=$(BUILD) eval/run-eval.sh
	$(Q)BUILD=$(BUILD) eval/run-micro.sh
	$(Q)BUILD=$(BUILD) eval/run-replays.sh
	$(Q)BUILD=$(BUILD) eval/run-profileme.sh
	$(Q)BUILD=$(BUILD) eval/run-pme-waste.sh
	$(Q)BUILD=$(BUILD) eval/run-skid.sh
	$(Q)BUILD=$(BUILD) eval/run-procs.sh
	$(Q)BUILD=$(BUILD) eval/run-paths.sh

# vreplay's named conflicts against the EV6 truth's replay traps (issue 13 item 4): recall and
# precision on storeload and the replay microbenchmarks (eval/ev_replay.h).
eval-replays: all
	$(Q)BUILD=$(BUILD) eval/run-replays.sh

# The EV6 microbenchmarks alone (workloads/ev6-micro/EXPECTED.md): expected vs measured cycles
# per iteration under --cpu ev6 (skipped while axprof run rejects it) and ev5 (harness check).
eval-micro: all
	$(Q)BUILD=$(BUILD) eval/run-micro.sh

# `axprof annotate` / `axprof topstalls` end to end and on bad input (a few seconds).
CHECK_STEPS += eval/check-annotate.sh
# The EV6 truth of sampled paths and axeval --paths (ProfileMe Figure 6) on a small run.
CHECK_STEPS += tests/tools/check-paths.sh

# ProfileMe Figure 6 alone: path reconstruction vs history length against the EV6 truth.
eval-paths: all
	$(Q)BUILD=$(BUILD) eval/run-paths.sh
