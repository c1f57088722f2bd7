#!/usr/bin/env bash
# tests/daemon/dmn_crash.sh - crash safety of the daemon itself: SIGKILL axprofd while it merges.
#
# Records semiinv once in vprof mode with --save-records (samples, value hotlists, latencies and
# interpreted counts of three images), then runs `axprofd --device RECORDS --once` on one
# database over and over, each time killing it (SIGKILL) after a random 0-20 ms: while it drains,
# attributes, merges or stores. A run that exited before the kill stored one whole copy of the
# records; a killed one may have stored some images (its files are renamed one after another) or
# none. After every kill the whole database must read (axprof report, vprof, vreplay, each
# --json), and every image's CYCLES samples must be a whole number k of one run's, with k never
# below the runs that completed (no stored sample lost), never below its value before the run and
# at most one above it (no torn or doubled merge). Loops until DMN_KILLS kills (default 50)
# landed on a live daemon, at most 20 times as many runs. make check runs it (a few seconds).
set -u
BUILD=${BUILD:-build}
axprof=$BUILD/bin/axprof
axprofd=$BUILD/bin/axprofd
vprof=$BUILD/bin/vprof
vreplay=$BUILD/bin/vreplay
prog=$BUILD/workloads/semiinv
want=${DMN_KILLS:-50}

for f in "$axprof" "$axprofd" "$vprof" "$vreplay" "$prog"; do
	[ -x "$f" ] || { echo "dmn_crash: $f not built (make all workloads)"; exit 1; }
done
command -v python3 >/dev/null || { echo "dmn_crash: python3 needed to read the reports"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmncrash.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rec=$tmp/rec.bin
db=$tmp/db

if ! "$axprof" record -q --hosted -d "$tmp/ref0" --mode vprof --period 2000-3000 \
	--save-records "$rec" -- "$prog" >/dev/null 2>"$tmp/err"; then
	echo "dmn_crash: recording failed:"
	cat "$tmp/err"
	exit 1
fi

run_daemon() { # DB: one axprofd run over the saved records
	exec "$axprofd" -f -d "$1" --device "$rec" --maps "$rec.maps" --once --no-proc-maps \
		>/dev/null 2>>"$tmp/daemon.err"
}

totals() { # DB: "image CYCLES-samples" lines
	"$axprof" report -d "$1" --json 2>>"$tmp/read.err" | python3 -c '
import json, sys
for im in json.load(sys.stdin)["images"]:
    print(im["image"], im["samples_by_event"].get("cycles", 0))'
}

# check ONE NOW PREV COMPLETED: prints "image k" lines; exit 1 (with reasons on stderr) when an
# image's samples are not a whole number k of runs, k is below the completed runs or its value
# before (PREV), or more than one above that.
check() {
	python3 -c '
import sys
def table(path):
    return {l.rsplit(" ", 1)[0]: int(l.rsplit(" ", 1)[1]) for l in open(path) if l.strip()}
one, now, prev = table(sys.argv[1]), table(sys.argv[2]), table(sys.argv[3])
completed = int(sys.argv[4])
bad = [im + ": an image no run stored" for im in now if im not in one]
for im, n in one.items():
    k, r = divmod(now.get(im, 0), n)
    was = prev.get(im, 0)
    if r:
        bad.append("%s: %d samples is not a whole number of runs of %d" % (im, now[im], n))
    elif k < completed or k < was:
        bad.append("%s: %d runs stored, %d completed, %d before" % (im, k, completed, was))
    elif k > was + 1:
        bad.append("%s: %d runs stored after %d: one run merged twice" % (im, k, was))
    print(im, k)
for b in bad:
    print("dmn_crash:", b, file=sys.stderr)
sys.exit(1 if bad else 0)' "$@"
}

# One run's worth, from a clean database.
(run_daemon "$tmp/ref") || { echo "dmn_crash: axprofd failed:"; cat "$tmp/daemon.err"; exit 1; }
totals "$tmp/ref" >"$tmp/one" || exit 1
nimg=$(wc -l <"$tmp/one")
[ "$nimg" -ge 2 ] || { echo "dmn_crash: the reference run stored $nimg images"; exit 1; }

completed=0 kills=0 runs=0 start=$SECONDS
before=0 inside=0 after=0 # where the kills landed: before the store, inside it, after it
awk '{ $NF = 0; print }' "$tmp/one" >"$tmp/k-prev" # no run stored yet
while [ "$kills" -lt "$want" ] && [ "$runs" -lt $((want * 20)) ]; do
	runs=$((runs + 1))
	run_daemon "$db" &
	pid=$!
	sleep "0.0$(printf '%02d' $((RANDOM % 20)))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	case $rc in
	0) completed=$((completed + 1)) ;;
	137) kills=$((kills + 1)) ;;
	*)
		echo "dmn_crash: run $runs: axprofd exited with $rc:"
		tail -n 5 "$tmp/daemon.err"
		exit 1
		;;
	esac
	[ -d "$db/epoch-1" ] || continue # killed before it created the database
	for t in "$axprof report" "$vprof" "$vreplay"; do
		if ! $t -d "$db" --json >/dev/null 2>"$tmp/read.err"; then
			echo "dmn_crash: run $runs (exit $rc): '$t --json' cannot read the database:"
			cat "$tmp/read.err"
			exit 1
		fi
	done
	totals "$db" >"$tmp/now" || exit 1
	if ! check "$tmp/one" "$tmp/now" "$tmp/k-prev" "$completed" >"$tmp/k-next"; then
		echo "dmn_crash: run $runs (exit $rc, $completed completed): samples lost, torn or doubled"
		exit 1
	fi
	if [ "$rc" = 137 ]; then
		# How many images did the killed run store: none, some or all?
		case $(awk -v n="$nimg" '{ k = $NF; sub(/ [0-9]+$/, "") }
			NR == FNR { was[$0] = k; next }
			k > was[$0] + 0 { s++ }
			END { print (s == 0 ? "none" : s < n ? "some" : "all") }' "$tmp/k-prev" "$tmp/k-next") in
		none) before=$((before + 1)) ;;
		some) inside=$((inside + 1)) ;;
		*) after=$((after + 1)) ;;
		esac
	fi
	mv "$tmp/k-next" "$tmp/k-prev"
done
if [ "$kills" -lt "$want" ]; then
	echo "dmn_crash: only $kills of $runs runs were killed alive (want $want)"
	exit 1
fi
echo "dmn_crash: $runs axprofd runs, $completed completed, $kills killed while running" \
	"($before before storing, $inside inside the store, $after after it); every file read," \
	"no stored sample lost, none torn or doubled ($((SECONDS - start)) s)"
