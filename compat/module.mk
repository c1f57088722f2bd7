# compat/module.mk - base code of user space: the error convention every library reports through.
LIB_SRCS += compat/ax_err.c
