# kmod/interp/module.mk - the Alpha ISA core (freestanding): decode, execute, IEEE FP in integers.
CORE_SRCS += $(wildcard kmod/interp/*.c)
include tests/interp/fpcheck/fpcheck.mk
