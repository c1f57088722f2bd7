# image/module.mk - the one ELF image reader (img_*): segments, build-id, sections, symbols, and
# source lines (img_line.c: the only libdw user, as img_* are the only libelf users).
MODULES += image
image_DIR := image
image_DEPS := compat
image_PRIVATE := img_ver.h
image_SRCS := $(wildcard image/img_*.c)
