#!/usr/bin/env bash
# tests/tools/check-record-signals.sh - axprof record stopped by SIGINT, SIGTERM, SIGHUP keeps its samples.
#
# For each signal: record a long program on the hosted machine, send the signal after 2 s, then
# the recorder must stop the program, store every sample it collected (the database's CYCLES
# total equals the --json summary's samples_by_event.cycles, and is not 0), print the summary
# (marked "interrupted") and die by the same signal (status 128 + N). A second signal while the
# store waits for the database lock (held here with flock(1)) ends the recorder at once. A
# program blocked in a system call is stopped as well.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/copy"
set -m # background jobs get SIGINT (a shell without job control ignores it for them)

long=("$wl/copy" 100000000) # hours on the hosted machine

# Wait up to $2 seconds for pid $1 to end; its status in $rc, "timeout" if it did not.
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		if ! kill -0 "$1" 2>/dev/null; then
			wait "$1"
			rc=$?
			return 0
		fi
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	rc=timeout
	return 1
}

# The value of key $2 (a.b for nested) in the last JSON line of file $1 ("" if none).
json_get() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
doc = None
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if line.startswith("{"):
        try:
            doc = json.loads(line)
        except ValueError:
            pass
v = doc
for k in sys.argv[2].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)
EOF
}

# SIG, or SIG:FLUSH-INTERVAL (stores during the run as well: the total is still exact).
for spec in INT TERM HUP INT:1; do
	sig=${spec%%:*}
	flush=600
	[ "$spec" != "$sig" ] && flush=${spec#*:}
	db=$tmp/db-$spec
	"$axprof" record --json --flush-interval "$flush" -d "$db" -- "${long[@]}" >"$tmp/out" \
		2>"$tmp/err-$sig" &
	pid=$!
	sleep 2.5
	kill -"$sig" "$pid"
	wait_for "$pid" 60
	sig="$sig (flush every $flush s)"
	sig=${sig% (flush every 600 s)}
	want=$((128 + $(kill -l "${spec%%:*}")))
	if [ "$rc" = "$want" ]; then
		ok "SIG$sig: record dies by the signal (status $want) after storing"
	else
		bad "SIG$sig: exit status" "$rc, want $want"
	fi
	err=$tmp/err-${spec%%:*}
	said=$(json_get "$err" samples_by_event.cycles)
	intr=$(json_get "$err" interrupted)
	all=$(json_get "$err" samples)
	dropped=$(json_get "$err" dropped)
	if [ -n "$said" ] && [ "$said" -gt 0 ] && [ "$intr" = "SIG${spec%%:*}" ] &&
		[ "$all" = "$said" ] && [ "$dropped" = 0 ]; then
		ok "SIG$sig: summary printed: $said CYCLES samples, none dropped, interrupted $intr"
	else
		bad "SIG$sig: summary" "cycles '$said' of '$all', dropped '$dropped', interrupted '$intr': $(tail -c 300 "$err")"
	fi
	"$axprof" report --json -d "$db" >"$tmp/rep" 2>"$tmp/rep.err"
	stored=$(json_get "$tmp/rep" totals.cycles)
	if [ -n "$said" ] && [ "$stored" = "$said" ]; then
		ok "SIG$sig: the database holds every sample collected ($stored)"
	else
		bad "SIG$sig: stored samples" "database '$stored', recorder said '$said'"
	fi
done

# A program blocked in a system call (lua reading a pipe no one writes): stopped all the same.
if [ -x "$wl/lua" ]; then
	db=$tmp/db-blocked
	mkfifo "$tmp/fifo"
	exec 3<>"$tmp/fifo"
	"$axprof" record --json -d "$db" -- "$wl/lua" -e 'io.read()' <&3 >/dev/null \
		2>"$tmp/err-blocked" &
	pid=$!
	sleep 2
	kill -TERM "$pid"
	wait_for "$pid" 20
	exec 3<&-
	said=$(json_get "$tmp/err-blocked" samples_by_event.cycles)
	"$axprof" report --json -d "$db" >"$tmp/rep" 2>"$tmp/rep.err"
	stored=$(json_get "$tmp/rep" totals.cycles)
	if [ "$rc" = 143 ] && [ -n "$said" ] && [ "$stored" = "$said" ]; then
		ok "SIGTERM to a program blocked in read(2): stopped, $stored samples stored, status 143"
	else
		bad "SIGTERM, blocked program" "status $rc, said '$said', stored '$stored'"
	fi
else
	echo "skip  blocked program: $wl/lua not built (make workloads)"
fi

# A second signal while the store waits: the recorder ends at once, by that signal.
db=$tmp/db-twice
"$axprof" record --json -d "$db" -- "${long[@]}" >"$tmp/out" 2>"$tmp/err-twice" &
pid=$!
sleep 2
mkdir -p "$db"
flock "$db/lock" sleep 60 &
lockpid=$!
sleep 0.5
kill -INT "$pid"
sleep 1.5
if kill -0 "$pid" 2>/dev/null; then
	ok "first SIGINT: record waits for the database lock to store"
else
	bad "first SIGINT" "record did not wait for the database lock"
fi
t0=$(date +%s%N)
kill -INT "$pid"
wait_for "$pid" 10
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" = 130 ] && [ "$ms" -lt 2000 ]; then
	ok "second SIGINT: record ends at once ($ms ms, status 130)"
else
	bad "second SIGINT" "status $rc after $ms ms"
fi
if ! grep -q '"tool":"record"' "$tmp/err-twice"; then
	ok "second SIGINT: no summary (nothing was stored)"
else
	bad "second SIGINT" "a summary was printed"
fi
kill "$lockpid" 2>/dev/null
wait "$lockpid" 2>/dev/null
finish
