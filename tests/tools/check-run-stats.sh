#!/usr/bin/env bash
# tests/tools/check-run-stats.sh - `axprof run --stats` and --json name their top PCs by symbol
# (issue 16 item 7: "symbols everywhere ... top PCs in run --stats"), per process.
#
# The names are checked against binutils' nm, an independent reader: a PC in the executable (at
# its ELF address) or in libc (at the ELF address JSON gives) is named F+0xOFF when F's symbol covers
# it (any alias at F's address), and is left unnamed when no function symbol covers it. The text
# and JSON name the same PCs alike. forkwork's four processes each get a "pid N:" header.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/hotspots" "$wl/libcheavy" "$wl/forkwork"
command -v python3 >/dev/null || { echo "check-run-stats: python3 needed"; exit 1; }
command -v alpha-linux-gnu-nm >/dev/null || { echo "check-run-stats: alpha-linux-gnu-nm needed"; exit 1; }
libc=/usr/alpha-linux-gnu/lib/libc.so.6.1
alpha-linux-gnu-nm -S --defined-only "$wl/hotspots" >"$tmp/hotspots.nm"
alpha-linux-gnu-nm -S --defined-only "$wl/libcheavy" >"$tmp/libcheavy.nm"
alpha-linux-gnu-nm -D -S --defined-only "$libc" >"$tmp/libc.so.6.1.nm"

# verify PROG MIN-NAMED: the top PCs of PROG's run, text and JSON, against nm.
verify() {
	local prog=$1 min=$2
	if ! "$axprof" run --cpu ev5 --stats --json -- "$wl/$prog" >/dev/null 2>"$tmp/$prog.err"; then
		bad "run $prog" "$(head -c 300 "$tmp/$prog.err")"
		return
	fi
	if python3 - "$tmp/$prog.err" "$tmp" "$min" <<'PY' >"$tmp/cmp" 2>&1; then
import json, re, sys
err, tmp, want_named = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(err).read().splitlines()
doc = json.loads([l for l in lines if l.startswith('{"tool":"run"')][-1])
text = {}
for l in lines:
    m = re.match(r"\s+0x([0-9a-f]{16})\s+(\d+)\s+[\d.]+%(?:\s+(\S+))?$", l)
    if m:
        text[int(m.group(1), 16)] = m.group(3)
def syms(image):
    out = []
    for l in open("%s/%s.nm" % (tmp, image)):
        f = l.split()
        if len(f) == 4 and f[2] in "TtWi":
            out.append((int(f[0], 16), int(f[1], 16), f[3].split("@")[0]))
    return out
tables, named, bad = {}, 0, []
for e in doc["top_pcs"]:
    pc = int(e["pc"], 16)
    img = e.get("image")
    if img not in ("hotspots", "libcheavy", "libc.so.6.1"):
        continue
    off = int(e["address"], 16)
    t = tables.setdefault(img, syms(img))
    cover = [(v, n) for v, s, n in t if v <= off < v + s]
    want = {n if off == v else "%s+0x%x" % (n, off - v) for v, n in cover}
    got = e.get("symbol")
    shown = text.get(pc)
    if got is None and want:
        bad.append("%s: unnamed, nm says %s" % (e["pc"], sorted(want)))
    elif got is not None and got not in want:
        bad.append("%s: %s, nm says %s" % (e["pc"], got, sorted(want) or "no symbol"))
    elif shown != (got if got is not None else "%s:0x%x" % (img, off)):
        bad.append("%s: text shows %s, JSON %s" % (e["pc"], shown, got))
    named += got is not None
if bad or named < want_named:
    sys.exit("%d named (want >= %d); %s" % (named, want_named, "; ".join(bad)))
print("%d of %d top PCs named as nm names them, text and JSON alike" % (named, len(doc["top_pcs"])))
PY
		ok "run $prog --stats: $(cat "$tmp/cmp")"
	else
		bad "run $prog --stats" "$(head -c 600 "$tmp/cmp")"
	fi
}
verify hotspots 10
verify libcheavy 3

# One header per process, each its own pid.
"$axprof" run --cpu ev5 --stats -- "$wl/forkwork" >/dev/null 2>"$tmp/fw.err"
pids=$(sed -n 's/^axprof run: pid \([0-9]*\): [0-9]* CYCLES samples.*/\1/p' "$tmp/fw.err" | sort -u | wc -l)
named=$(grep -c '^  0x[0-9a-f]* .*%  work+0x' "$tmp/fw.err")
if [ "$pids" = 4 ] && [ "$named" -ge 4 ]; then
	ok "run forkwork --stats: top PCs of 4 processes under their pids, $named lines in work()"
else
	bad "run forkwork --stats" "$pids pids, $named lines in work: $(grep -A2 'CYCLES samples' "$tmp/fw.err" | head -c 400)"
fi
finish
