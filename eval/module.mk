# eval/module.mk - `make eval`: DCPI SOSP'97 Figures 8, 9 and 10 graded against the hosted machine's
# ground truth (eval/run-eval.sh records the workload suite; axeval grades; outputs in build/eval/).
TOOLS += axeval
axeval_SRCS := eval/axeval.c tools/lib/tl_periods.c

.PHONY: eval
eval: all
	$(Q)BUILD=$(BUILD) eval/run-eval.sh

# `axprof annotate` / `axprof topstalls` end to end and on bad input (a few seconds).
CHECK_STEPS += eval/check-annotate.sh
LIB_SRCS += eval/ev_eval.c
