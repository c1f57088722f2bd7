#!/usr/bin/env bash
# tests/tools/check-kernel-time.sh - the hosted [kernel] pseudo-image (issue 21 item 3): the time
# of emulated system calls is kernel time, sampled as [kernel] with one procedure per call.
#
#   1. sysloop (a checksum loop writing 16 KB to /dev/null per iteration) recorded with --truth
#      on the EV5 and EV6 models: axeval --kernel finds the [kernel] image's share of the CYCLES
#      samples within 4 standard deviations of the truth's system-call share of the cycles
#      (section 10), and its top procedure is sys_write, the truth's top call; sys_write's own
#      share of the samples is within 4 standard deviations of its share of the cycles.
#   2. report lists the [kernel] image and report --procedures shows sys_write and sys_getxpid
#      (getppid) under it; the summary counts no unknown samples.
#   3. The truth: section 10 names sys_write with one call per iteration (and the output line).
#   4. merge copies the [kernel] symbol image (DIR/kernel/KEY/[kernel]) into the destination:
#      with both sources removed, the merged database still shows sys_write under [kernel], its
#      image path inside the merged database.
. "$(dirname "$0")/lib.sh"
axeval=$bin/axeval
need "$axprof" "$axeval" "$wl/sysloop"

for cpu in ev5 ev6; do
	"$axprof" record --hosted -q -d "$tmp/$cpu" --cpu $cpu --seed 3 --period 1500-2500 \
		--truth "$tmp/$cpu.truth" -- "$wl/sysloop" 1000 >"$tmp/$cpu.out" 2>"$tmp/$cpu.err"
	"$axeval" --kernel $cpu "$tmp/$cpu" "$tmp/$cpu.truth" >"$tmp/$cpu.grade" 2>&1
	if python3 - "$tmp/$cpu.grade" <<'PY'; then
import math, sys
line = open(sys.argv[1]).readline().split()
kv = dict(w.split("=", 1) for w in line[1:] if "=" in w)
p, q, tol = float(kv["kernel_share"]), float(kv["truth_share"]), float(kv["tolerance"])
n, top_n = int(kv["samples"]), int(kv["top_samples"])
tq = float(kv["truth_top_share"])
ok = line[-1] == "met" and abs(p - q) <= tol and 0.2 < q < 0.8
ok = ok and kv["top"] == "sys_write" and kv["truth_top"] == "sys_write"
ok = ok and abs(top_n / n - tq) <= max(4 * math.sqrt(tq * (1 - tq) / n), 1 / n)
sys.exit(0 if ok else print(" ".join(line)) or 1)
PY
		ok "$cpu: $(awk '{print $2, $3, $7}' "$tmp/$cpu.grade" | head -n 1) (within 4 sd), sys_write on top"
	else
		bad "$cpu [kernel] share" "$(head -c 400 "$tmp/$cpu.grade") $(head -c 300 "$tmp/$cpu.err")"
	fi
done

# 2. report and report --procedures
"$axprof" report -d "$tmp/ev5" >"$tmp/images" 2>&1
"$axprof" report -d "$tmp/ev5" --procedures >"$tmp/procs" 2>&1
if grep -q '/\[kernel\]$' "$tmp/images" && grep -qE '  sys_write +\[kernel\]$' "$tmp/procs" &&
	grep -qE '  sys_getxpid +\[kernel\]$' "$tmp/procs" && grep -qE '  sl_fill +sysloop$' "$tmp/procs"; then
	ok "report lists [kernel]; --procedures shows sys_write and sys_getxpid in it, sl_fill in sysloop"
else
	bad "report" "$(head -n 16 "$tmp/procs" | tr '\n' '|')"
fi
"$axprof" record --hosted -d "$tmp/sum" --period 1500-2500 --json -- "$wl/sysloop" 200 \
	>/dev/null 2>"$tmp/sum.json"
if python3 - "$tmp/sum.json" <<'PY'; then
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["samples"] > 0 and s["unknown_samples"] == 0 else print(s) or 1)
PY
	ok "record: no unknown samples (the [kernel] samples are attributed)"
else
	bad "record summary" "$(head -c 400 "$tmp/sum.json")"
fi

# 3. the truth's system calls
python3 - "$tmp/ev5.truth" <<'PY' && ok "truth section 10: sys_write called 1001 times (1000 + the output line), at least 4096 cycles per 16 KB" || bad "truth section 10" "see above"
import struct, sys
b = open(sys.argv[1], "rb").read()
nsec = struct.unpack_from("<I", b, 20)[0]
for i in range(nsec):
    typ, rsz, off, cnt = struct.unpack_from("<IIQQ", b, 64 + 32 * i)
    if typ != 10:
        continue
    for k in range(cnt):
        nr, _, calls, cyc = struct.unpack_from("<IIQQ", b, off + k * rsz)
        name = b[off + k * rsz + 24 : off + k * rsz + 48].rstrip(b"\0").decode()
        if name == "sys_write":
            ok = nr == 4 and calls == 1001 and cyc >= 4096 * 1000
            sys.exit(0 if ok else print(nr, calls, cyc) or 1)
sys.exit(print("no sys_write in section 10") or 1)
PY

# 4. merge, then remove the sources: the merged database keeps the kernel's symbols
"$axprof" merge -d "$tmp/merged" "$tmp/ev5" "$tmp/ev6" >"$tmp/merge.out" 2>&1
rm -rf "$tmp/ev5" "$tmp/ev6"
"$axprof" report -d "$tmp/merged" >"$tmp/mimages" 2>&1
"$axprof" report -d "$tmp/merged" --procedures >"$tmp/mprocs" 2>&1
if grep -q "  $(cd "$tmp" && pwd -P)/merged/kernel/b-[0-9a-f]*/\[kernel\]\$" "$tmp/mimages" &&
	grep -qE '  sys_write +\[kernel\]$' "$tmp/mprocs" && ! grep -q '(no symbol) *\[kernel\]' "$tmp/mprocs"; then
	ok "merge copies [kernel]'s symbols: sources removed, sys_write still under [kernel]"
else
	bad "merge and [kernel]" "$(cat "$tmp/merge.out") $(grep -i kernel "$tmp/mimages" "$tmp/mprocs" | head -n 5 | tr '\n' '|')"
fi
finish
