#!/usr/bin/env bash
# tools/vreplay/check-ci.sh - vreplay's conflict-rate intervals and its few-interpretations warning.
#
# storeload recorded under --mode vreplay at the slides' share (1/129: about 23 interpretations of
# its conflicting pair) must make vreplay warn on stderr that the rates are rough, naming --share,
# and report few_interpretations > 0 in the JSON; recorded at the hosted machine's default share
# (1/8) and with --share 1/4 (hundreds of interpretations) it must not warn. Every reported rate
# must lie inside rate_low..rate_high, and the interval must be narrower with more
# interpretations.
. "$(dirname "$0")/../../tests/tools/lib.sh"
need "$axprof" "$bin/vreplay" "$wl/storeload"
command -v python3 >/dev/null || {
	echo "check-ci: python3 needed"
	exit 1
}
for s in 1/129 default 1/4; do
	opt=()
	[ "$s" = default ] || opt=(--share "$s")
	db=$tmp/db-${s//\//_}
	if ! "$axprof" record -q --hosted -d "$db" --mode vreplay "${opt[@]}" -- "$wl/storeload" \
		>/dev/null 2>"$tmp/err"; then
		bad "record --share $s" "$(head -c 300 "$tmp/err")"
		continue
	fi
	"$bin/vreplay" -d "$db" --image storeload >"$tmp/out" 2>"$tmp/err" ||
		bad "vreplay ($s)" "exit status $?"
	"$bin/vreplay" -d "$db" --image storeload --json >"$tmp/j-${s//\//_}" 2>/dev/null
	if [ "$s" = 1/129 ]; then
		if grep -q "^vreplay: warning: .*fewer than 30 times.*--share" "$tmp/err"; then
			ok "share $s: warns of few interpretations, naming --share"
		else
			bad "share $s" "no warning naming --share: $(head -c 300 "$tmp/err")"
		fi
	elif [ -s "$tmp/err" ]; then
		bad "share $s" "unexpected stderr: $(head -c 300 "$tmp/err")"
	else
		ok "share $s: no warning"
	fi
done
python3 - "$tmp/j-1_129" "$tmp/j-1_4" >"$tmp/res" 2>&1 <<'PY'
import json, sys
def widths(path):
    d = json.load(open(path))
    ws, bad = [], 0
    for im in d["images"]:
        for p in im["procedures"]:
            for i in p["instructions"]:
                if "rate" in i:
                    r, lo, hi = min(i["rate"], 1.0), i["rate_low"], i["rate_high"]
                    bad += not (0 <= lo <= r + 1e-6 and r - 1e-6 <= hi <= 1)
                    ws.append(hi - lo)
    return d["few_interpretations"], ws, bad
f0, w0, b0 = widths(sys.argv[1])
f1, w1, b1 = widths(sys.argv[2])
print(f"few {f0} {f1} rates {len(w0)} {len(w1)} outside {b0 + b1} maxwidth {max(w0 or [0]):.3f} {max(w1 or [0]):.3f}")
ok = f0 > 0 and f1 == 0 and w0 and w1 and b0 + b1 == 0 and max(w1) < max(w0)
sys.exit(0 if ok else 1)
PY
if [ $? = 0 ]; then
	ok "JSON: rates inside their intervals, narrower with more interpretations ($(cat "$tmp/res"))"
else
	bad "JSON intervals" "$(cat "$tmp/res")"
fi
finish
