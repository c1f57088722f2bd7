# tools/vprof/module.mk - vprof (value profiles and load latencies) and `make demo`.
MODULES += vprof
vprof_DIR := tools/vprof
vprof_DEPS := toolslib
TOOLS += vprof
vprof_SRCS := tools/vprof/vprof.c tools/vprof/vprof_args.c tools/vprof/vprof_addrs.c tools/vprof/vp_class.c

# `make demo`: from a fresh clone, dependencies, the build and the workloads, then semiinv and
# storeload recorded on the hosted machine into $(BUILD)/demo-db and the reports printed, then
# copy recorded with ProfileMe on the EV6 model ($(BUILD)/demo-db-pme) and `axprof profileme`.
.PHONY: demo
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory workloads || echo "demo: bzip2/gzip not built (not needed)"
	$(Q)BUILD=$(BUILD) tools/vprof/demo.sh

# vprof's 95% share intervals hold semiinv's exact shares at about their rate over seeds (~30 s).
CHECK_STEPS += tools/vprof/check-ci.sh

# Issue 20: the summary holds data invariants only, each with a suggestion, and still semiinv's
# planted values; invariants by construction are labelled under --all (semiinv; bzip2, gzip, Lua
# when built).
CHECK_STEPS += tools/vprof/check-vclass.sh
