#!/usr/bin/env bash
# tests/machine/samples-vs-truth.sh - the machine's CYCLES samples per PC agree with ground-truth
# head-of-issue cycles / period (issue: hosted machine). Runs the DCPI copy loop, two others and
# sysloop (whose system calls' kernel time is sampled at their pseudo-pcs, machine/mach_kern.h),
# on the EV5 model and on the EV6 one (there the truth's head cycles are the cycles each
# instruction was the oldest not yet retired: where its PMU interrupt reports, mach_ev6_pmu.c).
set -u
BUILD=${BUILD:-build}
axprof=$BUILD/bin/axprof
check=$BUILD/tests/machine/samples_vs_truth
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-svt.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for cpu in ev5 ev6; do
	for w in copy listwalk conv3x3 sysloop; do
		if ! "$axprof" run --cpu $cpu --truth "$tmp/$w.truth" --samples "$tmp/$w.samples" \
			-- "$BUILD/workloads/$w" >/dev/null 2>"$tmp/$w.err"; then
			echo "FAIL $cpu $w: axprof run failed: $(head -c 300 "$tmp/$w.err")"
			fail=1
			continue
		fi
		# The built-in handler's period is uniform in [60000, 64000]: mean 62000.
		if out=$("$check" "$tmp/$w.truth" "$tmp/$w.samples" 62000); then
			echo "ok   $cpu $w: $out"
		else
			echo "FAIL $cpu $w: $out"
			fail=1
		fi
	done
done
exit $fail
