# tools/lib/module.mk - the tools library every command shares (tl_*): database views, periods,
# the report options (tl_opts), the JSON writer (tl_json, schema docs/axprof-json.7).
MODULES += toolslib
toolslib_DIR := tools/lib
toolslib_DEPS := analysis daemon pdb machine isa image
toolslib_SRCS := $(wildcard tools/lib/tl_*.c)
