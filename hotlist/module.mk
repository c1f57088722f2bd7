# hotlist/module.mk - Gibbons–Matias counting-sample hotlists (freestanding core) and their benchmark.
CORE_SRCS += hotlist/hotlist.c
TOOLS += bench_hotlist
bench_hotlist_SRCS := bench/bench_hotlist.c
BENCH_STEPS += hotlist/bench-hotlist
