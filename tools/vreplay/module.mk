# tools/vreplay/module.mk - vreplay (replay-trap diagnosis).
MODULES += vreplay
vreplay_DIR := tools/vreplay
vreplay_DEPS := toolslib
TOOLS += vreplay
vreplay_SRCS := tools/vreplay/vreplay.c
