# eval/module.mk - `make eval`: DCPI SOSP'97 Figures 8, 9 and 10 graded against the hosted machine's
# ground truth (eval/run-eval.sh records the workload suite; axeval grades with ev_eval; outputs in
# build/eval/). Only eval/ reads truth files for grading.
MODULES += eval
eval_DIR := eval
eval_DEPS := toolslib
eval_SRCS := eval/ev_eval.c
TOOLS += axeval
axeval_SRCS := eval/axeval.c

.PHONY: eval eval-micro
eval: all
	$(Q)BUILD=$(BUILD) eval/run-eval.sh
	$(Q)BUILD=$(BUILD) eval/run-micro.sh

# The EV6 microbenchmarks alone (workloads/ev6-micro/EXPECTED.md): expected vs measured cycles
# per iteration under --cpu ev6 (skipped while axprof run rejects it) and ev5 (harness check).
eval-micro: all
	$(Q)BUILD=$(BUILD) eval/run-micro.sh

# `axprof annotate` / `axprof topstalls` end to end and on bad input (a few seconds).
CHECK_STEPS += eval/check-annotate.sh
