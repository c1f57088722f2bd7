#!/usr/bin/env bash
# tests/tools/check-symbols.sh - symbols everywhere: vreplay's pairs across images by symbol.
#
# storeload is recorded in vreplay mode; add-samples then plants a store-load conflict of one of
# its loads with a store in libc (at a libc function's address + 8, the function taken from
# binutils' nm -D, an independent reader). vreplay must name that store "libc.so.6.1:F+0x8"
# (F one of the names nm gives the address) in its text pairs and as prior_symbol in JSON.
# Then CYCLES samples are planted at each of storeload's PLT slots (found from the GOT words its
# R_ALPHA_JMP_SLOT relocations patch, which hold the slots' addresses before lazy binding: readelf
# and objdump, not axprof's reader) and in libc's __remqu (an assembly routine: STT_NOTYPE, not a
# function): report --procedures must list them as NAME@plt and __remqu. Last, syscalls is
# recorded and every stall topstalls blames on a CALL_PAL (SOSP'97 4.1) must name only that
# cause, with the call's address and text as objdump disassembles it.
. "$(dirname "$0")/lib.sh"
add=$BUILD/tests/tools/add-samples
need "$axprof" "$bin/vreplay" "$wl/storeload" "$add"
command -v python3 >/dev/null || { echo "check-symbols: python3 needed"; exit 1; }
# A short period, so that libc surely has samples (its image must be in the database: about 18
# of them here, where the default period leaves it 0-2).
"$axprof" record -q --hosted --mode vreplay --period 3000-3200 -d "$tmp/db" -- "$wl/storeload" >/dev/null \
	2>"$tmp/rec.err" || { bad "record" "$(head -c 300 "$tmp/rec.err")"; finish; exit 1; }
libc=$(sed -n 's/.*"image":"\([^"]*libc[^"]*\)".*/\1/p' <("$bin/vreplay" -d "$tmp/db" --json -n 0 |
	tr '{' '\n') | head -n 1)
[ -n "$libc" ] || libc=$("$axprof" report -d "$tmp/db" --json | tr '{' '\n' |
	sed -n 's/.*"image":"\([^"]*libc[^"]*\)".*/\1/p' | head -n 1)
func=$(alpha-linux-gnu-nm -D --defined-only "$libc" 2>/dev/null | awk '$2 == "T" && $3 ~ /^memset@/ { print $1 }')
load=$("$bin/vreplay" -d "$tmp/db" --json -n 0 --image storeload | tr '{' '\n' |
	sed -n 's/.*"load":"\(0x[0-9a-f]*\)".*/\1/p' | head -n 1)
if [ -z "$libc" ] || [ -z "$func" ] || [ -z "$load" ]; then
	bad "setup" "libc '$libc', memset '$func', a storeload load '$load'"
	finish
	exit 1
fi
prior=$(printf '0x%x' $((0x$func + 8)))
names=$(alpha-linux-gnu-nm -D --defined-only "$libc" | awk -v a="$func" '$1 == a { print $3 }' |
	sed 's/@.*//' | sort -u | tr '\n' ' ')
if ! "$add" "$tmp/db" storeload CONFLICT "$load=libc.so.6.1,$prior,7" 2>"$tmp/add.err"; then
	bad "add-samples CONFLICT" "$(cat "$tmp/add.err")"
	finish
	exit 1
fi
"$bin/vreplay" -d "$tmp/db" --image storeload -n 0 >"$tmp/vr.txt" 2>&1
"$bin/vreplay" -d "$tmp/db" --image storeload -n 0 --json >"$tmp/vr.json" 2>&1
found=
for n in $names; do
	if grep -q -- "<- libc.so.6.1:$n+0x8 " "$tmp/vr.txt" &&
		grep -q "\"prior_symbol\":\"libc.so.6.1:$n+0x8\"" "$tmp/vr.json"; then
		found=$n
	fi
done
if [ -n "$found" ]; then
	ok "vreplay: a store in libc is named libc.so.6.1:$found+0x8 (text and prior_symbol)"
else
	bad "vreplay partner in another image" "want one of: $names; got: $(grep -- "$load\|libc" "$tmp/vr.txt" | head -c 400)"
fi

# PLT slots and an assembly routine named in report (issue 16 item 7).
slots=$(python3 - "$wl/storeload" <<'PY'
import re, subprocess, sys
exe = sys.argv[1]
rel = subprocess.run(["alpha-linux-gnu-readelf", "-rW", exe], capture_output=True, text=True).stdout
got = subprocess.run(["alpha-linux-gnu-objdump", "-s", "-j", ".got", exe], capture_output=True,
                     text=True).stdout
mem = {}
for l in got.splitlines():
    m = re.match(r"\s*([0-9a-f]+) ((?:[0-9a-f]{2,8} ?){1,4})", l)
    if m:
        a = int(m.group(1), 16)
        for b in bytes.fromhex(m.group(2).replace(" ", "")):
            mem[a] = b
            a += 1
n = 20
for l in rel.splitlines():
    f = l.split()
    if len(f) >= 5 and f[2] == "R_ALPHA_JMP_SLOT":
        off = int(f[0], 16)
        slot = int.from_bytes(bytes(mem[off + i] for i in range(8)), "little")
        print("%s 0x%x %d" % (f[4].split("@")[0], slot, n))
        n += 1
PY
)
remqu=$(alpha-linux-gnu-nm -D --defined-only "$libc" | awk '$3 ~ /^__remqu@/ { print $1 }')
if [ -z "$slots" ] || [ -z "$remqu" ]; then
	bad "setup: PLT slots, __remqu" "slots '$slots', __remqu '$remqu'"
	finish
	exit 1
fi
plant=$(echo "$slots" | awk '{ printf "%s=%s ", $2, $3 }')
# shellcheck disable=SC2086
"$add" "$tmp/db" storeload CYCLES $plant 2>"$tmp/add.err" &&
	"$add" "$tmp/db" libc.so.6.1 CYCLES "$(printf '0x%x' $((0x$remqu + 0x64)))=19" 2>>"$tmp/add.err" ||
	bad "add-samples CYCLES" "$(cat "$tmp/add.err")"
"$axprof" report -d "$tmp/db" --procedures --json -n 0 >"$tmp/rep.json" 2>&1
while read -r name addr count; do
	if python3 - "$tmp/rep.json" "$name@plt" "$count" "storeload" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
rows = [p for p in d["procedures"] if p["procedure"] == sys.argv[2] and
        p["image"].endswith("/" + sys.argv[4])]
sys.exit(0 if rows and rows[0]["samples_by_event"]["cycles"] >= int(sys.argv[3]) else 1)
PY
		ok "report: storeload's PLT slot at $addr is $name@plt"
	else
		bad "report: PLT slot $name@plt at $addr" "$(tr '{' '\n' <"$tmp/rep.json" | grep -i "plt\|storeload" | head -c 400)"
	fi
done <<<"$slots"
if python3 - "$tmp/rep.json" __remqu 19 libc.so.6.1 <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
rows = [p for p in d["procedures"] if p["procedure"] == sys.argv[2] and
        p["image"].endswith("/" + sys.argv[4])]
sys.exit(0 if rows and rows[0]["samples_by_event"]["cycles"] >= int(sys.argv[3]) else 1)
PY
	ok "report: samples in libc's __remqu (STT_NOTYPE code) are named __remqu"
else
	bad "report: __remqu" "$(tr '{' '\n' <"$tmp/rep.json" | grep -i "remqu\|no symbol" | head -c 400)"
fi

# A CALL_PAL named as the culprit of the stall after it.
"$axprof" record -q --hosted --seed 3 --period 1500-1700 -d "$tmp/sys" -- "$wl/syscalls" \
	>/dev/null 2>"$tmp/rec.err"
# syscalls exits 3 on purpose
[ $? = 3 ] ||
	bad "record syscalls" "$(head -c 300 "$tmp/rec.err")"
"$axprof" topstalls -d "$tmp/sys" -n 0 --json >"$tmp/ts.json" 2>"$tmp/ts.err"
"$axprof" topstalls -d "$tmp/sys" -n 0 >"$tmp/ts.txt" 2>>"$tmp/ts.err"
if python3 - "$tmp/ts.json" "$tmp/ts.txt" <<'PY' >"$tmp/cmp" 2>&1; then
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
rows = [s for s in d["stalls"] if "pal" in s["causes"]]
bad = []
for s in rows:
    c = s["causes"]["pal"]
    a = int(c["culprit"], 16)
    out = subprocess.run(["alpha-linux-gnu-objdump", "-d", "--start-address=0x%x" % a,
                          "--stop-address=0x%x" % (a + 4), s["image"]],
                         capture_output=True, text=True).stdout.strip().splitlines()
    want = " ".join(out[-1].split("\t")[-1].split()) if out else "?"
    if set(s["causes"]) != {"pal"}:
        bad.append("%s: causes %s beside pal" % (s["address"], sorted(s["causes"])))
    if c.get("culprit_text") != want:
        bad.append("%s: culprit %s, objdump says %s" % (s["address"], c.get("culprit_text"), want))
    if "pal<-%s %s" % (c["culprit"], want) not in text:
        bad.append("%s: text lacks pal<-%s %s" % (s["address"], c["culprit"], want))
if bad or not rows:
    sys.exit("%d stalls after a CALL_PAL; %s" % (len(rows), "; ".join(bad)))
print("%d stalls after a CALL_PAL, each blamed on it alone: %s" %
      (len(rows), ", ".join(sorted({s["causes"]["pal"]["culprit_text"] for s in rows}))))
PY
	ok "topstalls: $(cat "$tmp/cmp")"
else
	bad "topstalls: CALL_PAL culprits" "$(cat "$tmp/ts.err" "$tmp/cmp" | head -c 600)"
fi
finish
