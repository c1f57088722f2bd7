# tools/lib/module.mk - the tools library every command shares (tl_*): database views, periods,
# the report options (tl_opts), JSON of analysis results (tl_json_an, through compat/ax_json).
MODULES += toolslib
toolslib_DIR := tools/lib
toolslib_DEPS := analysis daemon pdb machine isa image
toolslib_SRCS := $(wildcard tools/lib/tl_*.c)
