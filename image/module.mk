# image/module.mk - the one ELF image reader (img_*): segments, build-id, sections, symbols.
LIB_SRCS += $(wildcard image/img_*.c)
