#!/usr/bin/env bash
# tests/tools/check-callgraph.sh - issue 16 item 4: `record -g` call stacks on the hosted machine
# are exact against the machine's procedure truth.
#
# Records build/workloads/callargs (ca_callee called from ca_site_a 70% and ca_site_b 30% of
# the time) with -g, the exact procedure truth (--proc-truth) and the drained record stream
# (--save-records), and grades the VS_REC_STACK records with grade-stacks.py: one stack per
# sample, every caller frame inside the program an exact caller of the procedure of the frame
# inside it, and ca_callee's sampled callers' shares within 4 binomial sd of the exact call
# shares. Then -g is refused with the kernel driver (a character device as --device) and shown in
# --help. Deterministic: fixed seed.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/callargs"

"$axprof" record --hosted -g -d "$tmp/db" --period 400-440 --seed 7 --proc-truth "$tmp/pt" \
	--save-records "$tmp/rec" -- "$wl/callargs" 50000 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^calls 50000$' "$tmp/out" &&
	grep -Eq '^axprof record: [0-9]+ call stacks \(0 deeper than 62 frames' "$tmp/err"; then
	ok "record -g callargs: exit 0, its output, the stacks line"
else
	bad "record -g callargs" "exit $rc: $(head -c 400 "$tmp/err")"
fi
nm "$wl/callargs" >"$tmp/nm" 2>/dev/null || alpha-linux-gnu-nm "$wl/callargs" >"$tmp/nm"
if python3 "$top/tests/tools/grade-stacks.py" "$tmp/rec" "$tmp/pt" "$tmp/nm" ca_callee \
	>"$tmp/grade" 2>&1; then
	ok "stacks against the truth ($(grep -c '^ok' "$tmp/grade") checks)"
else
	bad "stacks against the truth" "$(grep -v '^ok' "$tmp/grade" | head -5)"
fi
sed 's/^/    /' "$tmp/grade"
# The kernel driver has no stacks: a character device as the driver makes record refuse -g.
"$axprof" record -g --device /dev/null -d "$tmp/db2" -- "$wl/callargs" 10 >/dev/null 2>"$tmp/kerr"
rc=$?
if [ "$rc" = 2 ] && grep -q 'call stacks are not available with the kernel driver' "$tmp/kerr" &&
	[ ! -e "$tmp/db2" ]; then
	ok "record -g with the kernel driver: usage error naming the reason, no database"
else
	bad "record -g with the kernel driver" "exit $rc: $(head -c 300 "$tmp/kerr")"
fi
if "$axprof" record --help | grep -q -- '-g, --call-graph'; then
	ok "record --help lists -g"
else
	bad "record --help" "no -g"
fi
finish
