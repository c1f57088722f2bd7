#!/usr/bin/env bash
# tests/machine/run-workloads.sh - check `axprof run` (the hosted Alpha machine) end to end.
#
# Usage: tests/machine/run-workloads.sh        (make check runs it with BUILD set)
#   1. the workloads helper's golden check, tests/workloads/run-qemu.sh, with
#      RUNNER="$BUILD/bin/axprof run --" (includes the bzip2/gzip round trips and lua when built);
#   2. the same golden check for a few workloads under --cpu ev5 (timing must not change results),
#      and --truth writes a file; the thread and process workloads (falseshare, falsepad,
#      prodcons, forkpipe) under --cpu ev5 and ev6 and under `record --mode vprof` (sampling and
#      interpretation on); same seed twice -> the same counts; per-thread --stats lines;
#      --cpus 4 (per-CPU models; record: per-CPU sampler buffers); record counts forked children;
#   3. tests/machine/progs/*.c compiled for Alpha and run under both qemu-alpha and axprof run:
#      stdout and exit status must be identical (signals, FP traps, files, arguments, /proc/self);
#      tests/machine/linux-progs/*.c, where qemu-alpha is not Linux, against their .expected;
#   4. bad input: missing program, not ELF, not Alpha, missing interpreter, bad options, and the
#      message of an uncaught fault.
# Skips (with a note) what needs a missing tool: alpha-linux-gnu-gcc, qemu-alpha.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
SYSROOT=${SYSROOT:-/usr/alpha-linux-gnu}
ACC=${ACC:-alpha-linux-gnu-gcc}
QEMU=(qemu-alpha -L "$SYSROOT")

passed=0
failed=0
failures=()
ok() {
	passed=$((passed + 1))
	echo "ok    $1"
}
bad() {
	failed=$((failed + 1))
	failures+=("$1")
	echo "FAIL  $1: $2"
}

if [ ! -x "$axprof" ]; then
	echo "run-workloads: $axprof not built (make all)" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-mach.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# --- 1. golden workloads --------------------------------------------------------------------------
if RUNNER="$axprof run --" BUILD="$BUILD" "$top/tests/workloads/run-qemu.sh" >"$tmp/wl.log" 2>&1; then
	ok "workloads under axprof run ($(tail -n 1 "$tmp/wl.log"))"
else
	bad "workloads under axprof run" "$(grep -E '^FAIL' "$tmp/wl.log" | head -n 5 | tr '\n' ' ')"
	tail -n 20 "$tmp/wl.log"
fi

# --- 2. timing mode ---------------------------------------------------------------------------------
if RUNNER="$axprof run --cpu ev5 --" BUILD="$BUILD" "$top/tests/workloads/run-qemu.sh" exitcode \
	syscalls semiinv >"$tmp/ev5.log" 2>&1; then
	ok "workloads under axprof run --cpu ev5"
else
	bad "workloads under --cpu ev5" "$(grep -E '^FAIL' "$tmp/ev5.log" | head -n 3 | tr '\n' ' ')"
fi
thr_wl=(falseshare falsepad prodcons forkpipe)
for cpu in ev5 ev6; do
	if RUNNER="$axprof run --cpu $cpu --" BUILD="$BUILD" "$top/tests/workloads/run-qemu.sh" \
		"${thr_wl[@]}" >"$tmp/thr.log" 2>&1; then
		ok "threads and processes under axprof run --cpu $cpu"
	else
		bad "threads/processes --cpu $cpu" "$(grep -E '^FAIL' "$tmp/thr.log" | head -n 3 | tr '\n' ' ')"
	fi
	if RUNNER="$axprof record -q -d $tmp/db-$cpu --mode vprof --cpu $cpu --" BUILD="$BUILD" \
		"$top/tests/workloads/run-qemu.sh" "${thr_wl[@]}" >"$tmp/thr.log" 2>&1; then
		ok "threads and processes under record --mode vprof --cpu $cpu"
	else
		bad "threads/processes record --cpu $cpu" "$(grep -E '^FAIL' "$tmp/thr.log" | head -n 3 | tr '\n' ' ')"
	fi
done
# --cpus 4: the same results; one model per CPU in --stats; deterministic.
if RUNNER="$axprof run --cpu ev6 --cpus 4 --" BUILD="$BUILD" "$top/tests/workloads/run-qemu.sh" \
	"${thr_wl[@]}" >"$tmp/thr.log" 2>&1; then
	ok "threads and processes under axprof run --cpu ev6 --cpus 4"
else
	bad "threads/processes --cpus 4" "$(grep -E '^FAIL' "$tmp/thr.log" | head -n 3 | tr '\n' ' ')"
fi
if [ -x "$BUILD/workloads/falseshare" ]; then
	for i in 1 2; do
		"$axprof" run --cpu ev5 --cpus 4 --quantum 5000 --stats -- "$BUILD/workloads/falseshare" \
			2>&1 >/dev/null | grep -v MIPS | sed -E 's/pid [0-9]+//; s/tid [0-9]{1,7}:/tid main:/' >"$tmp/cpus$i"
	done
	ncpu=$(grep -c '^axprof run: cpu [0-3]:$' "$tmp/cpus1")
	busy=$(grep -A1 '^axprof run: cpu [1-3]:$' "$tmp/cpus1" | grep -c 'RETIRED [1-9]')
	if [ "$ncpu" = 4 ] && [ "$busy" = 3 ] && cmp -s "$tmp/cpus1" "$tmp/cpus2"; then
		ok "falseshare --cpus 4: four CPU models, each retiring a thread's instructions; same counts twice"
	else
		bad "--cpus 4" "$ncpu cpu blocks, $busy busy; $(diff "$tmp/cpus1" "$tmp/cpus2" | head -n 4 | tr '\n' ' ')"
	fi
fi
# record --cpus 4: one sampler (vs_cpu) per CPU: four STATS records (cpu 0-3) in the stream, the
# summary's samples all stored.
if [ -x "$BUILD/workloads/falseshare" ] && command -v python3 >/dev/null 2>&1; then
	"$axprof" record --json -d "$tmp/db-cpus" --cpus 4 --save-records "$tmp/cpus.rec" -- \
		"$BUILD/workloads/falseshare" 2>"$tmp/cpus.json" >/dev/null
	"$axprof" report --json -d "$tmp/db-cpus" >"$tmp/cpus-rep.json" 2>&1
	cpus=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
o, cpus = 0, set()
while o + 4 <= len(b):
    t, n = struct.unpack_from("<HH", b, o)
    if n < 8: break
    if t == 6: cpus.add(struct.unpack_from("<I", b, o + 4)[0])
    o += n
print(" ".join(str(c) for c in sorted(cpus)))' "$tmp/cpus.rec")
	rs=$(sed -n 's/^[^[]*"samples":\([0-9]*\).*/\1/p' "$tmp/cpus.json")
	ds=$(sed -n 's/.*"totals":{"cycles":\([0-9]*\)}.*/\1/p' "$tmp/cpus-rep.json")
	if [ "$cpus" = "0 1 2 3" ] && [ -n "$rs" ] && [ "$rs" = "$ds" ] && [ "$rs" -gt 20 ]; then
		ok "record --cpus 4: per-CPU sampler buffers (STATS of cpus $cpus), $rs samples stored"
	else
		bad "record --cpus 4" "STATS cpus '$cpus'; summary $rs samples, database $ds"
	fi
fi
expect_usage() {
	local name=$1
	shift
	("$@" >/dev/null 2>"$tmp/err" </dev/null; exit $?) 2>/dev/null
	local s=$?
	if [ "$s" = 2 ] && grep -q -e "--cpus needs\|--quantum needs" "$tmp/err"; then
		ok "$name: usage error"
	else
		bad "$name" "status $s: $(head -c 200 "$tmp/err")"
	fi
}
expect_usage "--cpus 9" "$axprof" run --cpus 9 -- /bin/true
expect_usage "--cpus 0" "$axprof" run --cpus 0 -- /bin/true
expect_usage "--quantum x" "$axprof" run --quantum x -- /bin/true
# record's summary counts every process's samples: forkpipe's forked child does most of the work.
if [ -x "$BUILD/workloads/forkpipe" ]; then
	"$axprof" record --json -d "$tmp/db-fork" -- "$BUILD/workloads/forkpipe" 300000 \
		2>"$tmp/fork.json" >/dev/null
	"$axprof" report --json -d "$tmp/db-fork" >"$tmp/fork-rep.json" 2>&1
	rs=$(sed -n 's/^[^[]*"samples":\([0-9]*\).*/\1/p' "$tmp/fork.json")
	np=$(sed -n 's/.*"processes_counted":\([0-9]*\).*/\1/p' "$tmp/fork.json")
	ds=$(sed -n 's/.*"totals":{"cycles":\([0-9]*\)}.*/\1/p' "$tmp/fork-rep.json")
	if [ -n "$rs" ] && [ "$rs" = "$ds" ] && [ "$np" = 3 ] && [ "$rs" -gt 50 ]; then
		ok "record's summary counts the forked children's samples ($rs = the database's, 3 processes)"
	else
		bad "record summary with children" "summary $rs samples, $np processes; database $ds"
	fi
fi
# Deterministic scheduling: the same counts run to run (pids and times aside).
if [ -x "$BUILD/workloads/prodcons" ]; then
	for i in 1 2; do
		"$axprof" run --cpu ev5 --stats -- "$BUILD/workloads/prodcons" 2>&1 >/dev/null |
			grep -v MIPS | sed -E 's/pid [0-9]+//; s/tid [0-9]{1,7}:/tid main:/' >"$tmp/det$i"
	done
	nthr=$(grep -c ' tid ' "$tmp/det1")
	if [ "$nthr" = 5 ] && grep -q CPI "$tmp/det1" && cmp -s "$tmp/det1" "$tmp/det2"; then
		ok "prodcons: 5 threads labelled in --stats, same counts in two runs"
	else
		bad "thread determinism" "$nthr thread lines; $(diff "$tmp/det1" "$tmp/det2" | head -n 6 | tr '\n' ' ')"
	fi
fi
if [ -x "$BUILD/workloads/semiinv" ]; then
	if "$axprof" run --cpu ev5 --stats --truth "$tmp/t.truth" -- "$BUILD/workloads/semiinv" \
		>/dev/null 2>"$tmp/stats" && [ -s "$tmp/t.truth" ] && grep -q 'CPI' "$tmp/stats"; then
		ok "--cpu ev5 --stats --truth writes the truth file and prints CPI"
	else
		bad "--truth" "no truth file or no CPI line: $(head -c 300 "$tmp/stats")"
	fi
fi

# --- 3. differential test programs ------------------------------------------------------------------
if ! command -v "$ACC" >/dev/null 2>&1 || ! command -v qemu-alpha >/dev/null 2>&1; then
	echo "skipped: tests/machine/progs ($ACC or qemu-alpha missing)"
else
	for src in "$here"/progs/*.c; do
		n=$(basename "$src" .c)
		bin=$tmp/$n
		if ! "$ACC" -O2 -o "$bin" "$src" -lm 2>"$tmp/$n.cc"; then
			bad "$n" "does not compile: $(head -c 300 "$tmp/$n.cc")"
			continue
		fi
		mkdir -p "$tmp/q" "$tmp/a"
		# Arguments: a scratch directory and an exit status, for programs that use them.
		(cd "$tmp/q" && echo "some input" | AXPROF_TEST_VAR=v1 "${QEMU[@]}" "$bin" "$tmp/q" 7 \
			>"$tmp/$n.qout" 2>"$tmp/$n.qerr") 2>/dev/null
		qs=$?
		(cd "$tmp/a" && echo "some input" | AXPROF_TEST_VAR=v1 "$axprof" run --sysroot "$SYSROOT" \
			-- "$bin" "$tmp/a" 7 >"$tmp/$n.aout" 2>"$tmp/$n.aerr") 2>/dev/null
		as=$?
		sed -i "s|$tmp/[qa]|DIR|g" "$tmp/$n.qout" "$tmp/$n.aout"
		if [ "$qs" != "$as" ]; then
			bad "$n" "exit status $as, qemu-alpha $qs; stderr: $(head -c 300 "$tmp/$n.aerr")"
		elif ! cmp -s "$tmp/$n.qout" "$tmp/$n.aout"; then
			bad "$n" "stdout differs from qemu-alpha"
			diff -u "$tmp/$n.qout" "$tmp/$n.aout" | head -n 20
		else
			ok "$n (same stdout and exit status $as as qemu-alpha)"
		fi
	done
	# Programs where qemu-alpha is not Linux: their stdout must be the .expected file, what
	# Linux/Alpha prints (mmap_eof: qemu-alpha raises SIGSEGV SEGV_MAPERR on a file page past
	# EOF and refuses a mapping that starts past EOF; Linux raises SIGBUS BUS_ADRERR).
	for src in "$here"/linux-progs/*.c; do
		n=$(basename "$src" .c)
		bin=$tmp/$n
		if ! "$ACC" -O2 -o "$bin" "$src" 2>"$tmp/$n.cc"; then
			bad "$n" "does not compile: $(head -c 300 "$tmp/$n.cc")"
			continue
		fi
		mkdir -p "$tmp/l"
		(cd "$tmp/l" && "$axprof" run --sysroot "$SYSROOT" -- "$bin" "$tmp/l" >"$tmp/$n.aout" \
			2>"$tmp/$n.aerr") 2>/dev/null
		as=$?
		if [ "$as" != 0 ]; then
			bad "$n" "exit status $as; stderr: $(head -c 300 "$tmp/$n.aerr")"
		elif ! cmp -s "${src%.c}.expected" "$tmp/$n.aout"; then
			bad "$n" "stdout differs from Linux's ($n.expected)"
			diff -u "${src%.c}.expected" "$tmp/$n.aout" | head -n 20
		else
			ok "$n (stdout as on Linux/Alpha)"
		fi
	done
	# An unsupported system call: ENOSYS (same output as qemu-alpha, above) and named once.
	if [ -x "$tmp/threads" ]; then
		"$axprof" run -- "$tmp/threads" >/dev/null 2>"$tmp/thr.err"
		if [ "$(grep -c 'unsupported system call 1000 (unknown) at pc 0x[0-9a-f]*: ENOSYS$' "$tmp/thr.err")" = 1 ]; then
			ok "unsupported system call: ENOSYS, one warning for two calls"
		else
			bad "unsupported system call warning" "$(head -c 300 "$tmp/thr.err")"
		fi
		# Unsupported clone flags: EINVAL (same output as qemu-alpha) and named once.
		if [ "$(grep -c '^axprof run: .*threads: clone flags 0x10800 not supported: EINVAL' "$tmp/thr.err")" = 1 ]; then
			ok "unsupported clone flags: EINVAL, one warning for two calls"
		else
			bad "unsupported clone flags warning" "$(head -c 300 "$tmp/thr.err")"
		fi
		# Threads in the profile (ABI 5, VS_REC_TASK): the writer thread renamed itself with
		# prctl(PR_SET_NAME); record's summary counts its samples under its own tid and the
		# 15 bytes of its new name (the child it forks inherits the name), and the threads'
		# samples add up to the total (the first "samples" of the summary: before the array).
		"$axprof" record --hosted -d "$tmp/thr.db" --seed 3 --json -- "$tmp/threads" >/dev/null 2>"$tmp/thr.rec"
		if tail -n 1 "$tmp/thr.rec" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d["threads"]
w = [r for r in rows if r["comm"] == "writer-thread-l" and r["pid"] == 1000]
ok = (len(w) == 1 and w[0]["pid"] == 1000 and w[0]["tid"] != 1000 and w[0]["samples"] > 0
      and any(r["tid"] == 1000 and r["comm"] == "threads" for r in rows)
      and sum(r["samples"] for r in rows) == d["samples"] and d["threads_lost"] == 0)
sys.exit(0 if ok else print(d["samples"], rows) or 1)'; then
			ok "record: the renamed writer thread's samples under its tid and new comm; threads sum to the total"
		else
			bad "record threads" "$(tail -c 400 "$tmp/thr.rec")"
		fi
		if [ "$(grep -c '^axprof run: .*threads: clone flags 0x20000 not supported: EINVAL' "$tmp/thr.err")" = 1 ]; then
			ok "clone flags a fork cannot honour: EINVAL and named"
		else
			bad "fork clone flags warning" "$(head -c 300 "$tmp/thr.err")"
		fi
	fi
	# An uncaught SIGBUS past EOF: status 128 + SIGBUS and the fault's message.
	if [ -x "$tmp/mmap_eof" ]; then
		("$axprof" run -- "$tmp/mmap_eof" "$tmp/l" uncaught >/dev/null 2>"$tmp/bus.msg"; exit $?) 2>/dev/null
		s=$?
		if [ "$s" = 135 ] && grep -Eq '^axprof run: .*mmap_eof: SIGBUS at pc 0x[0-9a-f]+: ldq .*: load at address 0x[0-9a-f]+ \(past the end of the file\)$' "$tmp/bus.msg"; then
			ok "uncaught SIGBUS past EOF: status 135 and message"
		else
			bad "uncaught SIGBUS past EOF" "status $s, message: $(cat "$tmp/bus.msg")"
		fi
	fi
	# execve of an Alpha program re-enters the machine (qemu-alpha cannot do this part).
	if [ -x "$tmp/procs" ]; then
		if "$axprof" run -- "$tmp/procs" exec 2>&1 | grep -q "exec'd child: argc 3 argv\[2\] two" &&
			"$axprof" run -- "$tmp/procs" exec 2>&1 | grep -q "exec child exit 5"; then
			ok "execve of an Alpha program"
		else
			bad "execve of an Alpha program" "$("$axprof" run -- "$tmp/procs" exec 2>&1 | head -c 300)"
		fi
	fi
	# The uncaught fault's message names the signal, pc, instruction and cause.
	if [ -x "$tmp/segv" ]; then
		("$axprof" run "$tmp/segv" >/dev/null 2>"$tmp/segv.msg"; exit $?) 2>/dev/null
		s=$?
		if [ "$s" = 139 ] && grep -Eq '^axprof run: .*segv: SIGSEGV at pc 0x[0-9a-f]+: ldq .*: load at address 0x10 \(not mapped\)$' "$tmp/segv.msg"; then
			ok "uncaught SIGSEGV: status 139 and message"
		else
			bad "uncaught SIGSEGV" "status $s, message: $(cat "$tmp/segv.msg")"
		fi
	fi
fi

# --- 4. bad input -----------------------------------------------------------------------------------
# expect NAME STATUS REGEX CMD... - CMD exits with STATUS and its stderr matches REGEX.
expect() {
	local name=$1 want=$2 re=$3
	shift 3
	("$@" >/dev/null 2>"$tmp/err" </dev/null; exit $?) 2>/dev/null
	local s=$?
	if [ "$s" = "$want" ] && grep -Eq -e "$re" "$tmp/err"; then
		ok "$name"
	else
		bad "$name" "status $s (want $want), stderr: $(head -c 300 "$tmp/err")"
	fi
}
printf '#!/bin/sh\necho hi\n' >"$tmp/script"
chmod +x "$tmp/script"
expect "missing program" 127 "/nonexistent/prog: No such file" "$axprof" run /nonexistent/prog
expect "not an ELF file" 1 "script: not an ELF file" "$axprof" run "$tmp/script"
expect "not an Alpha program" 1 "not an Alpha program" "$axprof" run /bin/true
expect "empty file" 1 "not an ELF file" "$axprof" run /dev/null
expect "no program" 2 "no program" "$axprof" run
expect "bad --cpu" 2 "--cpu must be" "$axprof" run --cpu ev7 -- /bin/true
expect "bad --max-insns" 2 "needs a number" "$axprof" run --max-insns x -- /bin/true
expect "--truth without ev5" 2 "needs --cpu ev5" "$axprof" run --truth "$tmp/x" -- /bin/true
if [ -x "$BUILD/workloads/exitcode" ]; then
	mkdir -p "$tmp/emptyroot"
	expect "missing interpreter" 1 "interpreter /lib/ld-linux.so.2.*(not found|not an Alpha).*sysroot" \
		"$axprof" run --sysroot "$tmp/emptyroot" -- "$BUILD/workloads/exitcode"
	expect "missing sysroot" 2 "--sysroot $tmp/nowhere: No such file" \
		"$axprof" run --sysroot "$tmp/nowhere" -- "$BUILD/workloads/exitcode"
	"$axprof" run --max-insns 1000 -- "$BUILD/workloads/exitcode" >/dev/null 2>"$tmp/max"
	s=$?
	if [ "$s" = 0 ] && grep -q "stopped after 1000 instructions" "$tmp/max"; then
		ok "--max-insns stops the program"
	else
		bad "--max-insns" "status $s: $(cat "$tmp/max")"
	fi
fi

echo "run-workloads: $passed ok, $failed failing${failures[*]:+ (${failures[*]})}"
[ "$failed" = 0 ]
