# compat/module.mk - base headers (the core's stand-ins for kernel facilities) and the error
# convention every user-space library reports through (ax_err.h).
MODULES += compat
compat_DIR := compat
compat_DEPS :=
compat_SRCS := compat/ax_err.c
