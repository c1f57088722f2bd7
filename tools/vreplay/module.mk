# tools/vreplay/module.mk - vreplay (replay-trap diagnosis).
MODULES += vreplay
vreplay_DIR := tools/vreplay
vreplay_DEPS := toolslib
TOOLS += vreplay
vreplay_SRCS := tools/vreplay/vreplay.c

# Conflict-rate intervals and the few-interpretations warning (storeload, two recordings, ~5 s).
CHECK_STEPS += tools/vreplay/check-ci.sh
