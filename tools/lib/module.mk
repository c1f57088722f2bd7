# tools/lib/module.mk - the tools library every command shares (tl_*): database views, periods.
MODULES += toolslib
toolslib_DIR := tools/lib
toolslib_DEPS := analysis daemon pdb machine isa
toolslib_SRCS := $(wildcard tools/lib/tl_*.c)
