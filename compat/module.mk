# compat/module.mk - base headers (the core's stand-ins for kernel facilities), the error convention
# every user-space library reports through (ax_err.h), and the one JSON writer (ax_json.h).
MODULES += compat
compat_DIR := compat
compat_DEPS :=
compat_SRCS := compat/ax_err.c compat/ax_json.c
