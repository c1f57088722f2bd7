#!/usr/bin/env bash
# tests/machine/ev6-workloads.sh - the EV6 (21264) model end to end (machine/EV6-MODEL.md).
#
# Usage: tests/machine/ev6-workloads.sh        (make check runs it with BUILD set)
#   1. every workload in $BUILD/workloads (ours; bzip2, gzip and lua when built, on small inputs)
#      gives the same output and exit status under `axprof run --cpu ev6` as functionally;
#   2. its truth file (--truth) holds the EV6 invariants (tests/machine/ev6_truth_check.c):
#      retires == the functional instruction count, fetches == retires + aborts per pc, every
#      replay abort has a kind, the summary agrees with the records;
#   3. `axprof run --cpu ev6 --stats` prints cycles, CPI and every PMU event, REPLAY included;
#   4. workloads/storeload: the planted conflicting loads (workloads/storeload.planted) replay
#      naming their planted store, or (same) get the store's data forwarded; the disjoint and
#      load-first loads never replay;
#   5. sampling on: `axprof record --cpu ev6 --mode vreplay --event cycles,replays` leaves the
#      program's output and status alone and takes replay samples; so do --mode vprof and
#      vreplay (interpretation on) on semiinv, structsearch and syscalls.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
check=$BUILD/tests/machine/ev6_truth_check
wl=$BUILD/workloads
AOBJDUMP=${AOBJDUMP:-alpha-linux-gnu-objdump}

for f in "$axprof" "$check"; do
	if [ ! -x "$f" ]; then
		echo "ev6-workloads: $f not built (make all tests)" >&2
		exit 1
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-ev6.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
ok() { echo "ok    $1"; }
bad() {
	failed=$((failed + 1))
	echo "FAIL  $1: $2"
}

awk 'BEGIN { for (i = 0; i < 3000; i++) printf "line %d of the ev6 check %x\n", i, i * 7919 }' \
	>"$tmp/text"
printf 'local s = 0 for i = 1, 20000 do s = s + i %% 7 end print(s)\n' >"$tmp/prog.lua"

# args_of NAME - the command line and input of a workload (ours take none).
input_of() {
	case "$1" in
	bzip2 | gzip) echo "$tmp/text" ;;
	*) echo /dev/null ;;
	esac
}
args_of() {
	case "$1" in
	bzip2 | gzip) echo "-9 -c" ;;
	lua) echo "$tmp/prog.lua" ;;
	*) ;;
	esac
}

# 1-3: every workload, functional vs EV6 with truth.
n=0
for bin in "$wl"/*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	name=${bin##*/}
	in=$(input_of "$name")
	# shellcheck disable=SC2046 # the arguments split on purpose
	"$axprof" run -- "$bin" $(args_of "$name") <"$in" >"$tmp/f.out" 2>/dev/null
	fs=$?
	# shellcheck disable=SC2046
	"$axprof" run --cpu ev6 --stats --truth "$tmp/t.truth" -- "$bin" $(args_of "$name") \
		<"$in" >"$tmp/e.out" 2>"$tmp/e.err"
	es=$?
	n=$((n + 1))
	if [ $fs != $es ] || ! cmp -s "$tmp/f.out" "$tmp/e.out"; then
		bad "$name" "output or status differ under --cpu ev6 (status $fs vs $es)"
		continue
	fi
	# A program that forks (forkwork, forkpipe) prints one block per process; the program's own
	# is the last (it reaps its children first), and only it writes the truth file.
	insns=$(sed -n 's/^axprof run: pid [0-9]*: \([0-9]*\) instructions.*/\1/p' "$tmp/e.err" | tail -n 1)
	line=$(grep '^axprof run: ev6: [0-9]* cycles, CPI [0-9.]*; CYCLES [0-9]* RETIRED [0-9]* .*REPLAY [0-9]*$' "$tmp/e.err" | tail -n 1)
	if [ -z "$line" ] || [ -z "$insns" ]; then
		bad "$name" "no ev6 stats line: $(head -c 300 "$tmp/e.err")"
		continue
	fi
	if ! out=$("$check" "$tmp/t.truth" "$insns" 2>&1 >"$tmp/rp"); then
		bad "$name" "truth invariants: $out $(grep -v '^replay\|^fwd' "$tmp/rp" | head -5)"
		continue
	fi
	ok "$name: identical output and status, truth invariants ($(echo "$line" | sed 's/.*ev6: //; s/;.*//'))"
	[ "$name" = storeload ] && cp "$tmp/t.truth" "$tmp/storeload.truth" && cp "$tmp/rp" "$tmp/sl.rp"
done
[ $n -gt 0 ] || bad workloads "none built in $wl (make all)"

# 4: storeload's planted pairs.
pc_of() { # FUNCTION MNEMONIC OCC
	"$AOBJDUMP" -d --no-show-raw-insn "$wl/storeload" | awk -v fn="<$1>:" -v m="$2" -v o="$3" '
		$2 == fn { on = 1; n = 0; next }
		/^[0-9a-f]+ </ { on = 0 }
		on && /^ +[0-9a-f]+:\t/ {
			split($0, f, "\t"); mn = f[2]; sub(/ .*/, "", mn)
			if (mn == m && ++n == o) { a = f[1]; sub(/:$/, "", a); gsub(/ /, "", a); print "0x" a; exit }
		}'
}
if [ -f "$tmp/sl.rp" ] && command -v "$AOBJDUMP" >/dev/null; then
	while read -r id kind fn _sl sinsn socc _ll linsn locc _bytes _order; do
		case "$id" in '#'* | '') continue ;; esac
		spc=$(pc_of "$fn" "$sinsn" "$socc")
		lpc=$(pc_of "$fn" "$linsn" "$locc")
		if [ -z "$spc" ] || [ -z "$lpc" ]; then
			bad "storeload $id" "planted instructions not found in the binary"
			continue
		fi
		named=$(awk -v l="$lpc" -v s="$spc" '$1 == "replay" && $2 == l && $3 == s { n += $5 } END { print n + 0 }' "$tmp/sl.rp")
		any=$(awk -v l="$lpc" '$1 == "replay" && $2 == l { n += $5 } END { print n + 0 }' "$tmp/sl.rp")
		kinds=$(awk -v l="$lpc" -v s="$spc" '$1 == "replay" && $2 == l && $3 == s { printf "%s %s ", $4, $5 }' "$tmp/sl.rp")
		fwd=$(awk -v l="$lpc" '$1 == "fwd" && $2 == l { print $3 + 0 }' "$tmp/sl.rp")
		case "$kind:$id" in
		conflict:same)
			# the store issues a cycle before the load: its data is forwarded (EV6-MODEL.md)
			if [ "$any" = "$named" ] && [ "${fwd:-0}" -gt 1000 ]; then
				ok "storeload $id: load $lpc: replays ${kinds:-none}, all naming store $spc; data forwarded $fwd times"
			else
				bad "storeload $id" "load $lpc: $any replays ($named naming store $spc), forwarded ${fwd:-0} times"
			fi
			;;
		conflict:*)
			if [ "$named" -gt 0 ] && [ "$any" = "$named" ]; then
				ok "storeload $id: load $lpc replays ($kinds) naming store $spc"
			else
				bad "storeload $id" "load $lpc: $named replays naming store $spc of $any"
			fi
			;;
		noconflict:*)
			if [ "$any" = 0 ]; then
				ok "storeload $id: load $lpc never replays"
			else
				bad "storeload $id" "load $lpc replays $any times"
			fi
			;;
		esac
	done <"$top/workloads/storeload.planted"
	stld=$(awk '$1 == "replay" && $4 == "stld" && $2 ~ /^0x1200/ { n += $5 } END { print n + 0 }' "$tmp/sl.rp")
	[ "$stld" -gt 0 ] && ok "storeload: $stld store-load order traps in the program" ||
		bad storeload "no store-load order trap in the program"
else
	echo "skip  storeload planted pairs (no storeload truth or no $AOBJDUMP)"
fi

# 5: sampling on, replay samples.
if [ -x "$wl/storeload" ]; then
	"$axprof" run -- "$wl/storeload" 10000 >"$tmp/f.out" 2>/dev/null
	if ! "$axprof" record --hosted -d "$tmp/db" --cpu ev6 --mode vreplay --event cycles,replays \
		--period replays=20-40 -- "$wl/storeload" 10000 >"$tmp/r.out" 2>"$tmp/r.err"; then
		bad "record --cpu ev6" "failed: $(head -c 300 "$tmp/r.err")"
	elif ! cmp -s "$tmp/f.out" "$tmp/r.out"; then
		bad "record --cpu ev6" "the program's output changed"
	elif ! grep -Eq 'samples \(.*replay [1-9]' "$tmp/r.err"; then
		bad "record --cpu ev6" "no replay samples: $(grep samples "$tmp/r.err")"
	else
		ok "record --cpu ev6 --mode vreplay: output unchanged, $(grep -o 'replay [0-9]*' "$tmp/r.err" | head -1) samples"
	fi
	if "$axprof" record --hosted -d "$tmp/db5" --cpu ev5 --event replays -- "$wl/exitcode" \
		>/dev/null 2>"$tmp/r5.err"; then
		bad "record --cpu ev5 --event replays" "accepted (the EV5 model counts no replays)"
	else
		ok "record --cpu ev5 --event replays refused: $(head -c 120 "$tmp/r5.err")"
	fi
fi

for name in semiinv structsearch syscalls; do
	[ -x "$wl/$name" ] || continue
	"$axprof" run -- "$wl/$name" >"$tmp/f.out" 2>/dev/null
	fs=$?
	for mode in vprof vreplay; do
		rm -rf "$tmp/db-$mode"
		"$axprof" record -q --hosted -d "$tmp/db-$mode" --cpu ev6 --mode $mode --share 1/8 \
			-- "$wl/$name" >"$tmp/r.out" 2>"$tmp/r.err"
		rs=$?
		if [ $fs != $rs ] || ! cmp -s "$tmp/f.out" "$tmp/r.out"; then
			bad "$name record --cpu ev6 --mode $mode" "output or status differ ($fs vs $rs): $(head -c 200 "$tmp/r.err")"
		else
			ok "$name record --cpu ev6 --mode $mode: identical output and status"
		fi
	done
done

if [ $failed -gt 0 ]; then
	echo "ev6-workloads: $failed FAILED"
	exit 1
fi
echo "ev6-workloads: all passed"
