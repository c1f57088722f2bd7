# isa/module.mk - ISA knowledge above the core: the disassembler (objdump's spelling).
MODULES += isa
isa_DIR := isa
isa_DEPS := interp
isa_SRCS := $(wildcard isa/isa_*.c)
CHECK_STEPS += tests/isa/dis-vs-objdump.sh tests/isa/dis-bad-input.sh
