# analysis/module.mk - offline analysis library (an_*): procedures, CFGs, schedules, estimates, listings.
MODULES += analysis
analysis_DIR := analysis
analysis_DEPS := isa image
analysis_SRCS := $(wildcard analysis/an_*.c)

# Procedures, CFGs, cycle equivalence, EV5 schedule (an_proc, an_cfg, an_cyceq, an_sched).
CHECK_STEPS += tests/analysis/test_an_cfg_libs.sh
TOOLS += bench_analysis
bench_analysis_SRCS := bench/bench_analysis.c
BENCH_STEPS += bench/bench_analysis.sh
