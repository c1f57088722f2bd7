#!/usr/bin/env bash
# bench/bench_daemon.sh - figures of the record pipeline (DCPI SOSP'97 §4-5 and the value-sampling
# slides' overhead table): daemon merge throughput, the hash table's data reduction, database
# size against image size, and the hosted machine's slowdown under each sampling mode.
#
# Usage: bench/bench_daemon.sh          (make bench runs it with BUILD set)
# The workload is the Alpha bzip2 of `make workloads` compressing a generated text (SIZE_KB,
# default 300) when built, else semiinv. Times are CPU seconds (user + system) of the run, because
# the machine may be shared. Prints figures only; fails only when a run fails or outputs differ.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
bin=$BUILD/bin
axprof=$bin/axprof
wl=$BUILD/workloads
size_kb=${SIZE_KB:-300}
for f in "$axprof" "$bin/bench_daemon"; do
	[ -x "$f" ] || { echo "bench_daemon: $f not built (make all)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-bd.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

if [ -x "$wl/bzip2" ]; then
	awk -v n=$((size_kb * 1024 / 60)) 'BEGIN { for (i = 0; i < n; i++)
		printf "%06d the quick brown fox %d jumps over %x lazy dogs\n", i, (i * i) % 977, i * 2654435761 % 65536 }' \
		>"$tmp/in"
	prog=("$wl/bzip2" -9 -c)
	name="bzip2 -9 of ${size_kb} KB"
	input=$tmp/in
else
	prog=("$wl/semiinv")
	name="semiinv"
	input=/dev/null
fi
echo "bench_daemon: workload $name"

# cpu_time CMD... : run it RUNS times (stdin $input, stdout $tmp/out, stderr $tmp/err) and print the
# smallest user+sys seconds (the machine may be shared: the minimum is the least disturbed run).
RUNS=${RUNS:-3}
cpu_time() {
	local TIMEFORMAT='%3U %3S' best="" t
	for _ in $(seq "$RUNS"); do
		{ time "$@" <"$input" >"$tmp/out" 2>"$tmp/err"; } 2>"$tmp/time" ||
			{ echo "FAILED: $* ($(head -c 200 "$tmp/err"))" >&2; return 1; }
		t=$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/time")
		best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a < b) ? a : b }')
	done
	echo "$best"
}

# --- slowdown of each sampling mode (value-sampling slide 21's table) --------------------------------
base=$(cpu_time "$axprof" run --cpu ev5 -- "${prog[@]}") || exit 1
cp "$tmp/out" "$tmp/out.base"
printf '%-34s %8s %9s\n' "hosted machine, EV5 timing" "CPU s" "slowdown"
printf '%-34s %8s %9s\n' "no sampling (axprof run --cpu ev5)" "$base" "-"
record_mode() { # LABEL TAG RECORD-OPTIONS...
	local label=$1 tag=$2 t
	shift 2
	rm -rf "$tmp/db-$tag"
	t=$(cpu_time "$axprof" record --json -d "$tmp/db-$tag" "$@" -- "${prog[@]}") || exit 1
	cp "$tmp/err" "$tmp/$tag.json"
	if ! cmp -s "$tmp/out" "$tmp/out.base"; then
		echo "bench_daemon: output under $label differs from the unsampled run" >&2
		exit 1
	fi
	printf '%-34s %8s %8.1f%%\n' "$label" "$t" \
		"$(awk -v a="$t" -v b="$base" 'BEGIN { print (b > 0 ? 100 * (a - b) / b : 0) }')"
}
for mode in cycles vprof vreplay; do
	record_mode "axprof record --mode $mode" "$mode" --mode "$mode"
done
record_mode "vprof, every sample, period 6000" dense --mode vprof --share 1/1 --period 6000-6400
record_mode "vreplay, every sample, period 60000" densevr --mode vreplay --share 1/1
echo "(defaults: CYCLES period 60000-64000; vprof 4 instructions on 1 sample in 2; vreplay 128 on"
echo " 1 sample in 129. Slide 21, on Alpha hardware: 3.9%, 10.7%, 5.9%. On the hosted machine the"
echo " program itself is interpreted, so the sampler's and interpreter's share is far smaller.)"

# --- the hash table's data reduction (DCPI: 20x or more) ---------------------------------------------
num() { # FILE KEY: the number of "KEY": in a one-line JSON object
	grep -o "[{,]\"$2\":[0-9.]*" "$1" | head -n 1 | sed 's/.*://'
}
# The factor grows with the samples per instruction: this run is short (a few thousand samples at
# the default period). A run 100 times longer gives each instruction 100 times the samples; the
# table never drains in between (only evictions and the final drain), so recording this run at
# a period 100 times shorter shows what such a run's table does.
"$axprof" record --json -d "$tmp/db-long100" --period 600-640 -- "${prog[@]}" <"$input" \
	>/dev/null 2>"$tmp/long100.json" || { echo "bench_daemon: record --period 600-640 failed" >&2; exit 1; }
for mode in cycles vprof dense long100; do
	printf 'hash reduction (%s): %s samples in %s sample records drained: %sx\n' "$mode" \
		"$(num "$tmp/$mode.json" samples)" "$(num "$tmp/$mode.json" sample_records)" \
		"$(num "$tmp/$mode.json" reduction)"
done
echo "(long100: cycles at period 600-640, the samples of a 100x longer run at the default period;"
echo " DCPI reported 20x or more on real workloads running for minutes)"

# --- database size against image size after a long run (DCPI: an order of magnitude smaller) -------
rm -rf "$tmp/long"
"$axprof" record -q -d "$tmp/long" --mode vprof --save-records "$tmp/long.rec" -- "${prog[@]}" \
	<"$input" >/dev/null 2>&1 || exit 1
for _ in 1 2 3 4 5 6 7; do
	"$axprof" record -q -d "$tmp/long" --mode vprof -- "${prog[@]}" <"$input" >/dev/null 2>&1 || exit 1
done
prof_bytes=$(find "$tmp/long" -name '*.prof' -printf '%s\n' | awk '{ s += $1 } END { print s }')
img_bytes=0
while read -r p; do
	[ -f "$p" ] && img_bytes=$((img_bytes + $(stat -c %s "$p")))
done < <(awk '{ print $NF }' "$tmp/long.rec.maps" | sort -u)
samples=$("$axprof" report -d "$tmp/long" --json | sed -n 's/.*"totals":{"cycles":\([0-9]*\).*/\1/p')
echo "database after 8 vprof runs ($samples samples): $prof_bytes bytes of profiles for" \
	"$img_bytes bytes of images: $(awk -v a="$img_bytes" -v b="$prof_bytes" 'BEGIN { printf "%.1f", a / b }')x smaller"

# --- daemon merge throughput ------------------------------------------------------------------------
"$bin/bench_daemon" --seconds 2 --records "$tmp/long.rec" --maps "$tmp/long.rec.maps" "$tmp/bdb" \
	>"$tmp/merge" || exit 1
cat "$tmp/merge"
# issue 18's figure: merging a recorded stream, samples per CPU-second (as the figures above: the
# machine may be shared), the wall-clock rate beside it, and the target
awk '/^daemon merge: recorded/ { for (i = 1; i < NF; i++) if ($(i + 1) == "samples/s") w = $i / 1e6 }
	/^daemon merge CPU time:/ { for (i = 1; i < NF; i++) if ($(i + 1) == "samples/CPU-s") r = $i / 1e6 }
	END { if (r == "" || w == "") exit 1
	      printf "daemon merge summary: %.1f M samples/CPU-s (%.1f M/s wall) from a recorded vprof stream   target >= 10   %s\n",
		r, w, (r >= 10 ? "met" : "NOT met") }' "$tmp/merge" || { echo "bench_daemon: no merge figure" >&2; exit 1; }
rm -rf "$tmp/bdb"
"$bin/bench_daemon" --seconds 2 "$tmp/bdb" || exit 1
