#!/usr/bin/env bash
# tests/tools/check-golden.sh - golden outputs of axprof report, vprof and vreplay; reproducibility.
#
# Usage: tests/tools/check-golden.sh [--update | --outputs]
#   1. A database is rebuilt from driver records saved in tests/tools/golden/ (semiinv under
#      vprof, storeload under vreplay, recorded on the hosted machine with fixed seeds by
#      `axprof record --save-records`) by axprofd reading them as a fake device, with the saved
#      image-map events (--maps) and the system calls' kernel symbols (--kallsyms: their kernel
#      time is the image [kernel], named vmlinux here; machine/mach_kern.h); the reports (text
#      and JSON) must equal the golden files. Paths and build-id keys are normalised (@DB@, @WL@,
#      b-@KEY@). The records depend on the machine model's timing (where samples land), so this
#      part changes when the workloads' binaries or the timing (e.g. system-call costs) change.
#   2. Reproducibility: recording semiinv twice (vprof, every sample interpreted) under the same
#      pid gives byte-identical databases, and the same reports as the database rebuilt from its
#      saved records.
#   --update: record the golden records again and rewrite every golden file (review the diff).
#   --outputs: rewrite the golden reports from the saved records (a report's format or an
#   estimator changed; the records did not).
. "$(dirname "$0")/lib.sh"
golden=$here/golden
need "$axprof" "$bin/axprofd" "$bin/vprof" "$bin/vreplay" "$wl/semiinv" "$wl/storeload"
update=0
[ "${1:-}" = --update ] && update=1
[ "${1:-}" = --outputs ] && update=2

SEMI_OPTS=(--mode vprof --period 20000-22000 --share 1/1 --budget 4)
STORE_OPTS=(--mode vreplay --period 20000-22000 --share 1/4)

wl_real=$(cd "$wl" && pwd -P)
norm() {
	sed -e "s#$tmp/db#@DB@#g" -e "s#$wl_real#@WL@#g" -e "s#$wl#@WL@#g" \
		-e 's/b-[0-9a-f]\{8,\}/b-@KEY@/g' -e 's/h-[0-9a-f]\{16\}/h-@KEY@/g'
}

if [ "$update" = 1 ]; then # re-record
	mkdir -p "$golden"
	for w in semiinv storeload; do
		if [ $w = semiinv ]; then opts=("${SEMI_OPTS[@]}"); else opts=("${STORE_OPTS[@]}"); fi
		"$axprof" record -q --hosted -d "$tmp/rec-$w" "${opts[@]}" \
			--save-records "$golden/$w.rec" -- "$wl/$w" >/dev/null || exit 1
		sed -e "s#$wl_real#@WL@#g" -e "s#$wl#@WL@#g" "$golden/$w.rec.maps" >"$tmp/m" &&
			mv "$tmp/m" "$golden/$w.rec.maps"
	done
fi

# --- 1. reports from the saved records --------------------------------------------------------------
for w in semiinv storeload; do
	sed -e "s#@WL@#$wl#g" "$golden/$w.rec.maps" >"$tmp/$w.maps"
	if ! "$bin/axprofd" -f --once --no-proc-maps -d "$tmp/db" --device "$golden/$w.rec" \
		--maps "$tmp/$w.maps" --kallsyms "$golden/$w.rec.kallsyms" --pid-file "$tmp/pid" \
		>"$tmp/axprofd.log" 2>&1; then
		bad "axprofd $w.rec" "$(head -c 300 "$tmp/axprofd.log")"
	fi
done
reports=(
	"report.txt|$axprof report -d $tmp/db"
	"report-procedures.txt|$axprof report -d $tmp/db --procedures"
	"report.json|$axprof report -d $tmp/db --json"
	"vprof.txt|$bin/vprof -d $tmp/db --image semiinv"
	"vprof-latency.txt|$bin/vprof -d $tmp/db --image semiinv --latency"
	"vprof-proc.txt|$bin/vprof -d $tmp/db --proc si_table_lookup --values 4"
	"vprof.json|$bin/vprof -d $tmp/db --image semiinv --json"
	"vreplay.txt|$bin/vreplay -d $tmp/db --image storeload"
	"vreplay.json|$bin/vreplay -d $tmp/db --image storeload --json"
)
for r in "${reports[@]}"; do
	name=${r%%|*}
	cmd=${r#*|}
	# shellcheck disable=SC2086 # cmd is a command line without quoting needs
	if ! $cmd >"$tmp/out.raw" 2>"$tmp/err"; then
		bad "$name" "the command failed: $(head -c 300 "$tmp/err")"
		continue
	fi
	norm <"$tmp/out.raw" >"$tmp/$name"
	if [ "$update" != 0 ]; then
		cp "$tmp/$name" "$golden/$name"
		echo "wrote golden/$name"
	elif [ ! -f "$golden/$name" ]; then
		bad "$name" "no golden file (run $0 --update)"
	elif cmp -s "$tmp/$name" "$golden/$name"; then
		ok "$name"
	else
		bad "$name" "differs from golden/$name"
		diff -u "$golden/$name" "$tmp/$name" | head -n 30
	fi
done
case "$(head -c 1 "$tmp/report.json")" in
"{") ok "report.json is an object" ;;
*) bad "report.json" "not JSON" ;;
esac
if command -v python3 >/dev/null 2>&1; then
	for j in report.json vprof.json vreplay.json; do
		if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/$j" 2>"$tmp/jerr"; then
			ok "$j parses as JSON"
		else
			bad "$j" "does not parse: $(head -c 200 "$tmp/jerr")"
		fi
	done
fi
[ "$update" = 1 ] && exit 0

# --- 2. the recorded database is reproducible ---------------------------------------------------------
# The guest sees virtual pids (machine/mach_vpid.c: the program is pid 1000 in every run), so two
# recordings are identical without a pid namespace.
for k in 1 2; do
	"$axprof" record -q --hosted -d "$tmp/rep$k" --mode vprof --period 2000-2200 --share 1/1 --save-records "$tmp/rep$k.rec" \
		-- "$wl/semiinv" >/dev/null 2>"$tmp/rep$k.err" || bad "record #$k" "$(head -c 200 "$tmp/rep$k.err")"
done
# (but for each database's random identity, DIR/id: pdb.h MERGES, and the index, which holds
# the path of the [kernel] image, DIR/kernel/KEY/[kernel]: the images report lists must agree
# but for DIR)
images() { "$axprof" report -d "$1" 2>&1 | sed "s#$1#@DB@#g"; }
if diff -r -x id -x index "$tmp/rep1" "$tmp/rep2" >"$tmp/diff" 2>&1 &&
	cmp -s <(images "$tmp/rep1") <(images "$tmp/rep2") >>"$tmp/diff" 2>&1 &&
	images "$tmp/rep1" | grep -q '@DB@/kernel/.*/\[kernel\]$'; then
	ok "two recordings with the same seed give identical databases ($(find "$tmp/rep1" -name '*.prof' | wc -l) files)"
else
	bad "reproducibility" "$(head -n 5 "$tmp/diff" | tr '\n' ' ')"
fi
# ... and axprofd rebuilding it from the saved records, told the period they were taken at (the
# records do not carry it; the database keeps it), gives the same profiles.
"$bin/axprofd" -f --once --no-proc-maps -d "$tmp/rep3" --device "$tmp/rep1.rec" \
	--maps "$tmp/rep1.rec.maps" --kallsyms "$tmp/rep1.rec.kallsyms" --pid-file "$tmp/pid3" \
	--period 2000-2200 >/dev/null 2>&1
if diff -r -x index "$tmp/rep1/epoch-1" "$tmp/rep3/epoch-1" >"$tmp/diff" 2>&1; then
	ok "axprofd from the saved records stores the same profiles as record"
else
	bad "axprofd replay" "$(head -n 5 "$tmp/diff" | tr '\n' ' ')"
fi
finish
