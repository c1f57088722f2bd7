#!/usr/bin/env bash
# tests/tools/check-sampling-opts.sh - `axprof record` and axprofd take the sampling options with
# one meaning: the same option strings are accepted by both, or rejected by both with the same
# message (after the tool's own name). Both parse them with daemon/dmn_opts.c
# (tests/daemon/test_dmn_opts.c checks the configurations they give).
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/axprofd" "$wl/copy"
: >"$tmp/empty.rec"

# axprofd on an empty fake device with --once: it parses, stores nothing, exits.
run_axprofd() {
	"$bin/axprofd" -f --once --no-proc-maps -d "$tmp/db-d" --device "$tmp/empty.rec" \
		--pid-file "$tmp/pid" "$@" >/dev/null 2>"$tmp/d.err"
}
run_record() {
	"$axprof" record -q --hosted -d "$tmp/db-r" "$@" -- "$wl/copy" >/dev/null 2>"$tmp/r.err"
}

accept=(
	""
	"--mode vprof"
	"--period 1000-1100 --mode vprof"
	"--mode vreplay --period 20000-22000 --share 1/4"
	"--event cycles,imiss --period imiss=500-600"
	"--budget 0x20 --hotlist-m 8 --seed 12345 --mode vprof"
	"--seed 7 --share 1/1"
	"--mode vprof --observe args,callers"
	"--mode vreplay --observe +args"
	"--observe none --mode vprof"
)
reject=(
	"--mode fast"
	"--period 100"
	"--period 0-10"
	"--period 1-2000000"
	"--period frob=1-2"
	"--event tlb"
	"--event cycles,"
	"--share 3/2"
	"--budget 0"
	"--budget 4097"
	"--hotlist-m 3"
	"--seed -1"
	"--seed 12x"
	"--observe args"
	"--mode vprof --observe args,frob"
	"--mode vprof --observe +"
	"--mode vprof --observe loadload"
)
for opts in "${accept[@]}"; do
	# shellcheck disable=SC2086 # word splitting wanted
	run_record $opts
	r=$?
	# shellcheck disable=SC2086
	run_axprofd $opts
	d=$?
	if [ "$r" = 0 ] && [ "$d" = 0 ]; then
		ok "both accept '$opts'"
	else
		bad "accept '$opts'" "record $r ($(head -c 200 "$tmp/r.err")), axprofd $d ($(head -c 200 "$tmp/d.err"))"
	fi
done
for opts in "${reject[@]}"; do
	# shellcheck disable=SC2086
	run_record $opts
	r=$?
	# shellcheck disable=SC2086
	run_axprofd $opts
	d=$?
	rm=$(sed -n 's/^axprof record: //p' "$tmp/r.err")
	dm=$(sed -n 's/^axprofd: //p' "$tmp/d.err")
	if [ "$r" = 2 ] && [ "$d" = 2 ] && [ -n "$rm" ] && [ "$rm" = "$dm" ]; then
		ok "both reject '$opts': $rm"
	else
		bad "reject '$opts'" "record $r '$rm', axprofd $d '$dm'"
	fi
done

# --observe args,callers: procedure records reach the daemon (the copy workload makes calls);
# without them, no proc_records key at all.
"$axprof" record --hosted -d "$tmp/db-ob" --mode vprof --period 2000-2100 \
	--observe +args,callers --json -- "$wl/copy" >/dev/null 2>"$tmp/ob.json"
n=$(grep -o '"proc_records":[0-9]*' "$tmp/ob.json" | cut -d: -f2)
"$axprof" record --hosted -d "$tmp/db-ob2" --mode vprof --period 2000-2100 \
	--json -- "$wl/copy" >/dev/null 2>"$tmp/ob2.json"
if [ "${n:-0}" -gt 0 ] && ! grep -q proc_records "$tmp/ob2.json"; then
	ok "record --observe +args,callers: $n procedure records; none without"
else
	bad "--observe proc records" "with: '${n}', without: $(grep -o '"proc_records":[0-9]*' "$tmp/ob2.json")"
fi

# REPLAY samples need a CPU with replay traps: the hosted EV5 refuses them before the program
# runs (it prints nothing), naming the reason; axprofd (the driver decides) accepts the option.
"$axprof" record --hosted -d "$tmp/db-rp" --mode vreplay --event cycles,replays \
	-- "$wl/copy" >"$tmp/rp.out" 2>"$tmp/rp.err"
r=$?
if [ "$r" = 1 ] && [ ! -s "$tmp/rp.out" ] && grep -q "the ev5 has no replay traps" "$tmp/rp.err"; then
	ok "record --cpu ev5 --event cycles,replays: $(head -n 1 "$tmp/rp.err")"
else
	bad "replays on ev5" "exit $r, $(head -c 200 "$tmp/rp.err")"
fi
if run_axprofd --mode vreplay --event cycles,replays; then
	ok "axprofd accepts --event cycles,replays"
else
	bad "axprofd replays" "$(head -c 200 "$tmp/d.err")"
fi
"$axprof" record --hosted -d "$tmp/db-rp" --cpu ev99 -- "$wl/copy" >"$tmp/rp.out" 2>"$tmp/rp.err"
r=$?
if [ "$r" = 2 ] && grep -q "cpu must name a timing model" "$tmp/rp.err"; then
	ok "record --cpu ev99: exit 2, $(head -n 1 "$tmp/rp.err")"
else
	bad "record --cpu ev99" "exit $r, $(head -c 200 "$tmp/rp.err")"
fi
finish
