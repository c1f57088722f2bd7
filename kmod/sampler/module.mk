# kmod/sampler/module.mk - the sampler core (freestanding): hash, buffers, PRNG, policy, observers.
MODULES += sampler
sampler_DIR := kmod/sampler
sampler_DEPS := interp hotlist
sampler_SRCS := $(wildcard kmod/sampler/*.c)
TOOLS += bench_sampler
bench_sampler_SRCS := bench/bench_sampler.c
BENCH_STEPS += kmod/sampler/bench-sampler
