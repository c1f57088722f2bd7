#!/usr/bin/env bash
# tests/tools/check-daemon.sh - axprofd end to end with a fake device (a file of driver records).
#
#   1. the saved records of golden/semiinv.rec without image maps: every sample is counted as
#      unknown (its pid has no maps) and stored in the unknown profile;
#   2. damaged records (garbage inserted, bytes zeroed, a truncated tail): rejected and counted,
#      no crash, the rest merged;
#   3. a detached daemon: pid file, `axprof flush` makes it store (status file counts flushes);
#   4. SIGTERM: the final flush stores what was read, the pid file goes away;
#   5. image maps saved elsewhere: PID/maps files under --proc-root, paths under --sysroot;
#   6. usage errors (exit 2), a missing device, `axprof flush` with no daemon (exit 1).
. "$(dirname "$0")/lib.sh"
axd=$bin/axprofd
need "$axd" "$axprof"
rec=$here/golden/semiinv.rec
maps=$tmp/maps
sed -e "s#@WL@#$wl#g" "$here/golden/semiinv.rec.maps" >"$maps"
field() { # JSON-ish FILE KEY: the number after "KEY":
	sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1" | head -n 1
}

# --- 1. unknown pids ---------------------------------------------------------------------------------
"$axd" -f --once --no-proc-maps --json -d "$tmp/u" --device "$rec" >"$tmp/u.json" 2>"$tmp/u.err"
rc=$?
s=$(field "$tmp/u.json" samples)
su=$(field "$tmp/u.json" unknown_samples)
if [ "$rc" = 0 ] && [ -n "$s" ] && [ "$s" -gt 0 ] && [ "$s" = "$su" ]; then
	ok "no maps: all $s samples counted unknown"
else
	bad "unknown pids" "exit $rc, samples '$s', unknown '$su': $(head -c 200 "$tmp/u.err")"
fi
if "$axprof" report -d "$tmp/u" | grep -q "^ *$s 100.00% 100.00%  unknown$"; then
	ok "the unknown profile holds them"
else
	bad "unknown profile" "$("$axprof" report -d "$tmp/u" 2>&1 | tail -n 3 | tr '\n' ' ')"
fi
# (with the system calls' kernel symbols record saved with them: the [kernel] samples)
"$axd" -f --once --no-proc-maps --json -d "$tmp/k" --device "$rec" --maps "$maps" \
	--kallsyms "$rec.kallsyms" >"$tmp/k.json"
if [ "$(field "$tmp/k.json" unknown_samples)" = 0 ] && [ "$(field "$tmp/k.json" samples)" = "$s" ]; then
	ok "with the saved maps: every sample attributed"
else
	bad "attributed" "$(cat "$tmp/k.json")"
fi

# --- 2. damaged records ------------------------------------------------------------------------------
d=$tmp/damaged.rec
{
	head -c 1000 "$rec"
	printf 'garbage!\377\377\377\377\001\000\011\000'
	tail -c +1001 "$rec" | head -c 9000
	printf '\001\000\030\000'            # a SAMPLE header, then a record's worth of zeros
	head -c 20 /dev/zero
	tail -c +10001 "$rec"
	head -c 13 "$rec"                     # a truncated record at the end
} >"$d"
printf '\000\000\000\000\000\000\000\000' | dd of="$d" bs=1 seek=3000 conv=notrunc 2>/dev/null
"$axd" -f --once --no-proc-maps --json -d "$tmp/dmg" --device "$d" --maps "$maps" \
	>"$tmp/d.json" 2>"$tmp/d.err"
rc=$?
dm=$(field "$tmp/d.json" damaged)
ds=$(field "$tmp/d.json" samples)
if [ "$rc" = 0 ] && [ -n "$dm" ] && [ "$dm" -ge 3 ] && [ -n "$ds" ] && [ "$ds" -gt $((s / 2)) ]; then
	ok "damaged records rejected and counted ($dm), the rest merged ($ds of $s samples)"
else
	bad "damaged records" "exit $rc, damaged '$dm', samples '$ds': $(head -c 300 "$tmp/d.err")"
fi
"$axprof" report -d "$tmp/dmg" >/dev/null 2>&1 && ok "the database stays readable" ||
	bad "damaged" "report fails on the database"

# --- 3. detached daemon and axprof flush ---------------------------------------------------------------
wait_file() { # FILE: up to 10 s
	for _ in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
if "$axd" -d "$tmp/f" --device "$rec" --maps "$maps" --no-proc-maps --flush-interval 0 \
	2>"$tmp/f.err" && wait_file "$tmp/f/axprofd.pid"; then
	ok "detached: pid file $(cat "$tmp/f/axprofd.pid")"
	if "$axprof" flush -d "$tmp/f" >"$tmp/flush.out" 2>&1 &&
		grep -q '^flushes 1$' "$tmp/f/axprofd.pid.status"; then
		ok "axprof flush: $(cat "$tmp/flush.out")"
	else
		bad "axprof flush" "$(cat "$tmp/flush.out")"
	fi
	if "$axprof" report -d "$tmp/f" | grep -q semiinv; then
		ok "the flushed profiles are in the database"
	else
		bad "flush" "no semiinv profile after the flush"
	fi
	kill -TERM "$(cat "$tmp/f/axprofd.pid")"
else
	bad "detached daemon" "no pid file: $(head -c 300 "$tmp/f.err")"
fi

# --- 4. SIGTERM: final flush ---------------------------------------------------------------------------
"$axd" -f -d "$tmp/t" --device "$rec" --maps "$maps" --no-proc-maps --flush-interval 0 \
	>"$tmp/t.out" 2>"$tmp/t.err" &
pid=$!
wait_file "$tmp/t/axprofd.pid"
sleep 0.3
if "$axprof" report -d "$tmp/t" 2>/dev/null | grep -q semiinv; then
	bad "SIGTERM" "profiles stored before any flush"
fi
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" = 0 ] && [ ! -e "$tmp/t/axprofd.pid" ] && grep -q '^flushes 1$' "$tmp/t/axprofd.pid.status" &&
	[ "$("$axprof" report -d "$tmp/t" --json | grep -o '"cycles":[0-9]*' | head -n 1)" = "\"cycles\":$s" ]; then
	ok "SIGTERM: final flush stored all $s samples, pid file removed"
else
	bad "SIGTERM" "exit $rc; $(cat "$tmp/t/axprofd.pid.status" 2>/dev/null | tr '\n' ' ') $(head -c 200 "$tmp/t.err")"
fi

# --- 5. maps saved on another machine: --proc-root and --sysroot ----------------------------------------
# What an Alpha guest would save: its /proc/1/maps with guest paths; the host finds the files under
# the sysroot. Only libc is mapped here, so libc's samples are attributed and the rest unknown.
if [ -f /usr/alpha-linux-gnu/lib/libc.so.6.1 ]; then
	# the recording's pid: the machine's first virtual pid (machine/mach_vpid.c)
	mkdir -p "$tmp/proc/1000"
	echo "20000050000-20000240000 r-xp 00000000 08:01 77 /lib/libc.so.6.1" >"$tmp/proc/1000/maps"
	"$axd" -f --once --json -d "$tmp/g" --device "$rec" --proc-root "$tmp/proc" \
		--sysroot /usr/alpha-linux-gnu >"$tmp/g.json" 2>"$tmp/g.err"
	lib=$("$axprof" report -d "$tmp/g" --json | grep -o '"image":"/usr/alpha-linux-gnu/lib/libc.so.6.1","samples_by_event":{"cycles":[0-9]*' | sed 's/.*://')
	want=$("$axprof" report -d "$tmp/k" --json | grep -o '"image":"/usr/alpha-linux-gnu/lib/libc.so.6.1","samples_by_event":{"cycles":[0-9]*' | sed 's/.*://')
	if [ -n "$lib" ] && [ "$lib" = "$want" ]; then
		ok "--proc-root/--sysroot: guest maps attribute libc's $lib samples"
	else
		bad "--proc-root/--sysroot" "libc samples '$lib', want '$want': $(head -c 200 "$tmp/g.err")"
	fi
fi

# --- 6. errors ---------------------------------------------------------------------------------------
"$axd" --device "$rec" >/dev/null 2>&1
[ $? = 2 ] && ok "axprofd without -d: exit 2" || bad "axprofd without -d" "not exit 2"
"$axd" -f -d "$tmp/e" --device "$tmp/nonexistent" >/dev/null 2>"$tmp/e.err"
[ $? = 1 ] && grep -q nonexistent "$tmp/e.err" && ok "missing device: exit 1 with a message" ||
	bad "missing device" "$(cat "$tmp/e.err")"
"$axprof" flush -d "$tmp/e" --timeout 1 >/dev/null 2>&1
[ $? = 1 ] && ok "axprof flush with no daemon: exit 1" || bad "flush, no daemon" "not exit 1"
"$axd" --help | grep -q '^usage: axprofd' && ok "axprofd --help" || bad "axprofd --help" "no usage"
finish
