# analysis/module.mk - offline analysis library (an_*): ELF images, disassembly text, listings.
LIB_SRCS += $(wildcard analysis/an_*.c)
CHECK_STEPS += tests/analysis/dis-vs-objdump.sh tests/analysis/dis-bad-input.sh
