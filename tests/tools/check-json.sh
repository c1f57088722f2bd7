#!/usr/bin/env bash
# tests/tools/check-json.sh - every tool's --json follows docs/axprof-json.7.
#
# Databases recorded on the hosted machine (cycles, vprof, vreplay), then every tool's --json
# output (every mode; axprofd's on saved driver records) goes through check-json.py, which reads
# the key list and each tool's required keys from the manual page itself. A program whose path holds a byte that is not UTF-8
# is recorded too: report, annotate, topstalls, dis and axprofd (a database path with the byte)
# must still write valid JSON (the byte becomes U+FFFD).
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/axprofd" "$bin/vprof" "$bin/vreplay" "$bin/axeval" "$wl/semiinv" "$wl/storeload" "$wl/copy" "$wl/forkwork" "$wl/hotspots" "$wl/callargs" "$wl/addrwalk"
command -v python3 >/dev/null || { echo "check-json: python3 needed"; exit 1; }
doc=$top/docs/axprof-json.7
out=$tmp/out
mkdir -p "$out"
files=()
# NAME TOOL CMD...: run CMD, its standard output into NAME, checked as TOOL's documents.
j() {
	local name=$1 tool=$2
	shift 2
	if "$@" >"$out/$name" 2>"$out/$name.err"; then
		files+=("$out/$name:$tool")
	else
		bad "$name" "'$*' failed: $(head -c 300 "$out/$name.err")"
	fi
}
# Same, for tools that write their document on standard error.
j_err() {
	local name=$1 tool=$2
	shift 2
	if "$@" >/dev/null 2>"$out/$name"; then
		files+=("$out/$name:$tool")
	else
		bad "$name" "'$*' failed: $(head -c 300 "$out/$name")"
	fi
}

rec="$axprof record --hosted --seed 3"
j_err record.json record $rec -d "$tmp/db" --period 2000-2200 --truth "$tmp/semi.truth" --json \
	-- "$wl/semiinv"
$rec -q -d "$tmp/vp" --mode vprof --period 20000-22000 --share 1/1 -- "$wl/semiinv" >/dev/null
$rec -q -d "$tmp/vr" --mode vreplay --period 20000-22000 --share 1/4 -- "$wl/storeload" >/dev/null

j report.json report "$axprof" report -d "$tmp/db" --json
j report-procedures.json report "$axprof" report -d "$tmp/db" --procedures --json
j report-stalls.json report "$axprof" report -d "$tmp/db" --stalls -n 5 --json
# hotspots (-g, an inlined helper): source lines in report --lines, annotate and diff.
$rec -q -d "$tmp/hs" --period 20000-22000 -- "$wl/hotspots" 60 >/dev/null
$rec -q -d "$tmp/hs2" --seed 4 --period 20000-22000 -- "$wl/hotspots" 60 >/dev/null
j report-lines.json report "$axprof" report -d "$tmp/hs" --lines --json
j annotate-lines.json annotate "$axprof" annotate -d "$tmp/hs" --json hotspots hs_mix
j diff.json diff "$axprof" diff --json "$tmp/hs" "$tmp/hs2"
j diff-rep.json diff "$axprof" diff --json "$tmp/hs,$tmp/hs2" "$tmp/hs2,$tmp/hs"
j annotate.json annotate "$axprof" annotate -d "$tmp/db" --json -n 3 semiinv
j annotate-proc.json annotate "$axprof" annotate -d "$tmp/db" --json semiinv si_eval
j topstalls.json topstalls "$axprof" topstalls -d "$tmp/db" --json
$rec -q -d "$tmp/pm" --mode profileme --cpu ev6 --period 5000-6000 -- "$wl/copy" >/dev/null
j profileme.json profileme "$axprof" profileme -d "$tmp/pm" --json -n 5
j paths.json paths "$axprof" paths -d "$tmp/pm" --image copy --proc copy_words --json -n 2 --min-samples 1
j annotate-pme.json annotate "$axprof" annotate -d "$tmp/pm" --json -n 2 copy
j_err record-pme.json record $rec -d "$tmp/pm2" --mode profileme --cpu ev6 --json -- "$wl/copy"
j vprof.json vprof "$bin/vprof" -d "$tmp/vp" --json
j vprof-latency.json vprof "$bin/vprof" -d "$tmp/vp" --latency --json
$rec -q -d "$tmp/ca" --mode vprof --period 2000-2200 --share 1/1 --budget 32 \
	--observe args,callers -- "$wl/callargs" 20000 >/dev/null
j vprof-args.json vprof "$bin/vprof" -d "$tmp/ca" --args --fp --json
j vprof-callers.json vprof "$bin/vprof" -d "$tmp/ca" --callers --json
$rec -q -d "$tmp/aw" --mode vprof --period 2000-2200 --share 1/1 --budget 64 \
	--observe +addrs -- "$wl/addrwalk" 20000 >/dev/null
j vprof-addresses.json vprof "$bin/vprof" -d "$tmp/aw" --addresses --json
j vprof-aw.json vprof "$bin/vprof" -d "$tmp/aw" --json
j vreplay.json vreplay "$bin/vreplay" -d "$tmp/vr" --json
# vreplay with its replay counts from ProfileMe (same program, same database, --cpu ev6)
$rec -q -d "$tmp/vrp" --mode vreplay --period 20000-22000 --share 1/4 -- "$wl/storeload" >/dev/null
$rec -q -d "$tmp/vrp" --mode profileme --cpu ev6 --period 2000-2400 -- "$wl/storeload" >/dev/null
j vreplay-pme.json vreplay "$bin/vreplay" -d "$tmp/vrp" --json
j cfg.json cfg "$axprof" cfg --json "$wl/semiinv"
j cfg-proc.json cfg "$axprof" cfg --json "$wl/semiinv" si_table_lookup
j dis.json dis "$axprof" dis --json "$wl/semiinv"
j_err run.json run "$axprof" run --json "$wl/copy"
j_err run-ev5.json run "$axprof" run --cpu ev5 --json "$wl/copy"
j_err run-ev6.json run "$axprof" run --cpu ev6 --json "$wl/storeload" 20000
j_err stat.json stat "$axprof" stat --json -- "$wl/copy"
j_err stat-all.json stat "$axprof" stat -a --exact --per-process -r 2 --json -- "$wl/forkwork" 20000
j_err stat-ev6.json stat "$axprof" stat --cpu ev6 -a --exact --json -- "$wl/storeload" 20000
j epoch-list.json epoch "$axprof" epoch -d "$tmp/db" --list --json
j merge.json merge "$axprof" merge -d "$tmp/m" --json "$tmp/db" "$tmp/vp"
j epoch.json epoch "$axprof" epoch -d "$tmp/m" --json
if "$bin/axeval" --json "$out/axeval.json" semiinv "$tmp/db" "$wl/semiinv" "$tmp/semi.truth" \
	>/dev/null 2>"$tmp/axeval.err"; then
	files+=("$out/axeval.json:axeval")
else
	bad "axeval" "$(head -c 300 "$tmp/axeval.err")"
fi

# flush: a detached axprofd on an empty fake device.
: >"$tmp/empty.rec"
if "$bin/axprofd" -d "$tmp/f" --device "$tmp/empty.rec" --no-proc-maps --flush-interval 0 \
	2>"$tmp/f.err"; then
	for _ in $(seq 100); do
		[ -s "$tmp/f/axprofd.pid" ] && break
		sleep 0.1
	done
	j flush.json flush "$axprof" flush -d "$tmp/f" --json
	kill -TERM "$(cat "$tmp/f/axprofd.pid")" 2>/dev/null
else
	bad "axprofd" "$(head -c 300 "$tmp/f.err")"
fi

# --skip-damaged and fsck on a damaged copy (a flipped byte in one CYCLES.prof): "skipped",
# fsck's problems (fsck exits 1 there: damage found).
cp -a "$tmp/vp" "$tmp/dmg"
dmgf=$(find "$tmp/dmg/epoch-1" -name CYCLES.prof | head -n1)
printf '\377' | dd of="$dmgf" bs=1 seek=50 conv=notrunc 2>/dev/null
j skip-report.json report "$axprof" report -d "$tmp/dmg" --skip-damaged --json
j skip-vprof.json vprof "$bin/vprof" -d "$tmp/dmg" --skip-damaged --json
j skip-merge.json merge "$axprof" merge -d "$tmp/m2" --skip-damaged --json "$tmp/dmg"
j fsck.json fsck "$axprof" fsck -d "$tmp/db" --json
"$axprof" fsck -d "$tmp/dmg" --json >"$out/fsck-dmg.json" 2>/dev/null
files+=("$out/fsck-dmg.json:fsck")
grep -q '"kind":"damaged"' "$out/fsck-dmg.json" && ok "fsck --json reports the damage" ||
	bad "fsck --json" "$(head -c 300 "$out/fsck-dmg.json")"

# axprofd --json: driver records saved by record (tests/tools/golden/) read as a fake device,
# with their image maps (samples attributed, every record type but unknown) and without (all
# samples unknown, observations dropped).
for w in semiinv storeload; do
	sed -e "s#@WL@#$wl#g" "$here/golden/$w.rec.maps" >"$tmp/$w.maps"
	j "axprofd-$w.json" axprofd "$bin/axprofd" -f --once --no-proc-maps --json -d "$tmp/d-$w" \
		--device "$here/golden/$w.rec" --maps "$tmp/$w.maps"
done
j axprofd-nomaps.json axprofd "$bin/axprofd" -f --once --no-proc-maps --json -d "$tmp/d-none" \
	--device "$here/golden/semiinv.rec"

if python3 "$here/check-json.py" "$doc" "${files[@]}" >"$tmp/check.out" 2>&1; then
	ok "${#files[@]} outputs follow axprof-json.7: $(cat "$tmp/check.out")"
else
	bad "schema" "$(head -n 20 "$tmp/check.out")"
fi

# A key the page does not list, and a required key missing, must fail (the checker is not idle).
printf '{"tool":"epoch","database":"d","epoch":1,"frobs":2}\n' >"$tmp/undoc.json"
printf '{"tool":"epoch","database":"d"}\n' >"$tmp/missing.json"
python3 "$here/check-json.py" "$doc" "$tmp/undoc.json:epoch" >/dev/null 2>&1 &&
	bad "checker" "accepts an undocumented key" || ok "the checker rejects an undocumented key"
python3 "$here/check-json.py" "$doc" "$tmp/missing.json:epoch" >/dev/null 2>&1 &&
	bad "checker" "accepts a document without a required key" ||
	ok "the checker rejects a missing required key"

# --- a path that is not UTF-8 -------------------------------------------------------------------
badname=$'semi\xffinv'
mkdir -p "$tmp/w"
cp "$wl/semiinv" "$tmp/w/$badname"
files=()
$rec -q -d "$tmp/u" --period 2000-2200 -- "$tmp/w/$badname" >/dev/null 2>"$tmp/u.err" ||
	bad "record" "the non-UTF-8 path: $(head -c 200 "$tmp/u.err")"
j u-report.json report "$axprof" report -d "$tmp/u" --json
j u-procs.json report "$axprof" report -d "$tmp/u" --procedures --json
j u-topstalls.json topstalls "$axprof" topstalls -d "$tmp/u" --json
j u-annotate.json annotate "$axprof" annotate -d "$tmp/u" --json -n 1 "$badname"
j u-dis.json dis "$axprof" dis --json --stop 0x120000600 "$tmp/w/$badname"
j u-axprofd.json axprofd "$bin/axprofd" -f --once --no-proc-maps --json -d "$tmp/w/$badname.db" \
	--device "$here/golden/semiinv.rec"
if python3 "$here/check-json.py" "$doc" "${files[@]}" >"$tmp/check.out" 2>&1; then
	ok "a path with byte 0xff: valid JSON ($(cat "$tmp/check.out"))"
else
	bad "non-UTF-8 path" "$(head -n 20 "$tmp/check.out")"
fi
if grep -q $'semi\xef\xbf\xbdinv' "$out/u-report.json" && ! grep -q $'\xff' "$out/u-report.json"; then
	ok "the byte is replaced by U+FFFD"
else
	bad "non-UTF-8 path" "no U+FFFD in: $(head -c 300 "$out/u-report.json")"
fi
if grep -q "\"database\":\"$tmp/w/semi"$'\xef\xbf\xbd'"inv.db\"" "$out/u-axprofd.json"; then
	ok "axprofd: the database as given, its byte replaced"
else
	bad "axprofd non-UTF-8 database" "$(head -c 300 "$out/u-axprofd.json")"
fi
finish
