# tools/lib/module.mk - the tools library every command shares (tl_*): database views, periods.
LIB_SRCS += $(wildcard tools/lib/tl_*.c)
