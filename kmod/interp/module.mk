# kmod/interp/module.mk - the Alpha ISA core (freestanding): decode, execute, IEEE FP in integers.
MODULES += interp
interp_DIR := kmod/interp
interp_DEPS := compat
interp_SRCS := $(wildcard kmod/interp/*.c)
include tests/interp/fpcheck/fpcheck.mk
