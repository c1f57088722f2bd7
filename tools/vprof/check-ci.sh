#!/usr/bin/env bash
# tools/vprof/check-ci.sh - vprof's share intervals cover the planted truth at about their 95% rate.
#
# Records build/workloads/semiinv under --mode vprof on the hosted machine with SEEDS different
# seeds (default 8; every sample interpreted, 8 instructions, a 4000-cycle period: n of about
# 1000 per planted load) and the machine's exact value histograms (--value-truth). For every
# planted (pc, value) of workloads/semiinv.planted (placed by grade-planted; the negative control
# left out: its top value is chosen by the estimate) vprof --json's share_low..share_high must
# hold the exact share in >= 88% of the cases (nominal 95%; 10 pairs a seed, so 80 trials: 88% is
# 3 standard errors below 95%). Then, as a check of the hotlist term (lists whose tau rose), every
# value vprof reports at any instruction of semiinv with n >= 50 and an exact share >= 20%:
# coverage >= 85%. The z-scores' spread (sd of (estimate - truth) / half-width * 1.96) is printed.
. "$(dirname "$0")/../../tests/tools/lib.sh"
grade=$BUILD/tests/tools/grade-planted
need "$axprof" "$grade" "$bin/vprof" "$wl/semiinv"
command -v python3 >/dev/null || {
	echo "check-ci: python3 needed"
	exit 1
}
seeds=${SEEDS:-8}
for s in $(seq 1 "$seeds"); do
	db=$tmp/db$s
	if ! "$axprof" record -q --hosted -d "$db" --mode vprof --period 4000-4400 --share 1/1 \
		--budget 8 --seed "$s" --value-truth "$tmp/vt$s" -- "$wl/semiinv" >/dev/null 2>"$tmp/err"; then
		bad "record seed $s" "$(head -c 300 "$tmp/err")"
		continue
	fi
	"$grade" --values --planted "$top/workloads/semiinv.planted" --binary "$wl/semiinv" \
		--db "$db" --value-truth "$tmp/vt$s" >"$tmp/grade$s" 2>&1
	if ! "$bin/vprof" -d "$db" --image semiinv --values 8 -n 0 --min-n 0 --json \
		>"$tmp/vprof$s.json" 2>"$tmp/err"; then
		bad "vprof --json seed $s" "$(head -c 300 "$tmp/err")"
	fi
done
python3 - "$tmp" "$seeds" >"$tmp/cov" <<'PY'
import json, math, sys
tmp, seeds = sys.argv[1], int(sys.argv[2])
def truth(path):
    t, pc = {}, None
    for line in open(path):
        f = line.split()
        if f[0] == "pc":
            pc = int(f[1], 16)
            t[pc] = {"n": int(f[3]), "v": {}}
        elif pc is not None and len(f) == 2 and f[0].startswith("0x"):
            t[pc]["v"][int(f[0], 16)] = int(f[1])
    return t
stats = {"planted": [0, 0, []], "all": [0, 0, []]}
for s in range(1, seeds + 1):
    try:
        doc = json.load(open(f"{tmp}/vprof{s}.json"))
        vt = truth(f"{tmp}/vt{s}")
    except (OSError, ValueError):
        continue
    planted = set()
    for line in open(f"{tmp}/grade{s}"):
        f = line.split()
        if len(f) >= 9 and f[1].startswith("0x") and not f[3].startswith("<"):
            planted.add((int(f[1], 16), int(f[2], 16)))
    for im in doc["images"]:
        for p in im["procedures"]:
            for i in p["instructions"]:
                pc = int(i["address"], 16)
                if pc not in vt or not i.get("values"):
                    continue
                n = vt[pc]["n"]
                for v in i["values"]:
                    val = int(v["value"], 16)
                    tr = vt[pc]["v"].get(val, 0) / n
                    lo, hi = v["share_low"], v["share_high"]
                    cov = lo - 1e-6 <= tr <= hi + 1e-6
                    half = max((hi - lo) / 2, 1e-9)
                    z = (v["share"] - tr) / half * 1.959964
                    keys = []
                    if (pc, val) in planted:
                        keys.append("planted")
                    if i["n"] >= 50 and tr >= 0.2:
                        keys.append("all")
                    for k in keys:
                        stats[k][0] += 1
                        stats[k][1] += cov
                        stats[k][2].append(z)
                    if "planted" in keys and not cov:
                        print(f"miss seed {s} pc {pc:#x} value {val:#x} truth {tr:.4f} est {v['share']:.4f} [{lo:.4f},{hi:.4f}] n {i['n']} tau {i['tau']}")
for k, (t, c, zs) in stats.items():
    sd = math.sqrt(sum(z * z for z in zs) / len(zs)) if zs else 0
    print(f"{k} {t} {c} {100.0 * c / t if t else 0:.1f} {sd:.2f}")
PY
cat "$tmp/cov"
read -r _ pt pc pr psd < <(grep '^planted ' "$tmp/cov")
read -r _ at ac ar asd < <(grep '^all ' "$tmp/cov")
if [ "${pt:-0}" -ge $((8 * seeds)) ] && [ $((100 * pc)) -ge $((88 * pt)) ]; then
	ok "planted shares: $pc of $pt 95% intervals hold the exact share ($pr%, rms z $psd)"
else
	bad "planted shares" "${pc:-0} of ${pt:-0} intervals hold the exact share (${pr:-?}%; need >= 88% of >= $((8 * seeds)))"
fi
if [ "${at:-0}" -gt 0 ] && [ $((100 * ac)) -ge $((85 * at)) ]; then
	ok "every value with n >= 50, share >= 20%: $ac of $at intervals hold it ($ar%, rms z $asd)"
else
	bad "all values" "${ac:-0} of ${at:-0} intervals hold the exact share (${ar:-?}%; need >= 85%)"
fi
finish
