# image/module.mk - the one ELF image reader (img_*): segments, build-id, sections, symbols.
MODULES += image
image_DIR := image
image_DEPS := compat
image_PRIVATE := img_ver.h
image_SRCS := $(wildcard image/img_*.c)
