# hotlist/module.mk - Gibbons–Matias counting-sample hotlists (freestanding core) and their benchmark.
MODULES += hotlist
hotlist_DIR := hotlist
hotlist_DEPS := compat
hotlist_SRCS := hotlist/hotlist.c
TOOLS += bench_hotlist
bench_hotlist_SRCS := bench/bench_hotlist.c
BENCH_STEPS += hotlist/bench-hotlist
