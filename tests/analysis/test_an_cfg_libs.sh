#!/bin/sh
# tests/analysis/test_an_cfg_libs.sh - analyse every procedure of libc, libm and our workloads:
# CFG invariants (axprof cfg --check), counts; then two workloads run on the hosted machine and
# the frequency classes are checked against its ground-truth execution counts.
set -eu
B="${BUILD:-build}"
SYSROOT="${SYSROOT:-/usr/alpha-linux-gnu}"
AXPROF="$B/bin/axprof"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for lib in libc.so.6.1 libm.so.6.1; do
	if [ -r "$SYSROOT/lib/$lib" ]; then
		"$AXPROF" cfg --check "$SYSROOT/lib/$lib"
	else
		echo "skip: $SYSROOT/lib/$lib not found"
	fi
done
# libc's __remqu is a NOTYPE symbol (its procedure is a guessed one): found by name all the same
if [ -r "$SYSROOT/lib/libc.so.6.1" ]; then
	"$AXPROF" cfg "$SYSROOT/lib/libc.so.6.1" __remqu >"$tmp/remqu.txt"
	head -n 1 "$tmp/remqu.txt" | grep -q '^proc .*\[guessed\]' ||
		{ echo "axprof cfg libc __remqu: no guessed procedure"; exit 1; }
fi
for w in "$B"/workloads/*; do
	[ -f "$w" ] && [ -x "$w" ] || continue
	"$AXPROF" cfg --check "$w" >/dev/null
done
"$AXPROF" cfg --check tests/analysis/fixtures/cfgtest-stripped.so

# Lua's luaV_execute dispatches through one computed goto (s8addq op,s1,t; ldq t,0(t); jmp (t),
# s1 set by ldah/lda at its start): the table is resolved, and the only unreachable blocks are
# padding (before, 769 of 783 blocks were unreachable and the CFG missed edges).
if [ -x "$B/workloads/lua" ]; then
	"$AXPROF" cfg --json "$B/workloads/lua" luaV_execute >"$tmp/luav.json"
	python3 - "$tmp/luav.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["missing_edges"], "luaV_execute: missing edges"
dead = [b["address"] for b in d["blocks"]
	if "unreachable" in b["flags"] and "pad" not in b["flags"]]
assert not dead, "luaV_execute: unreachable handlers at %s" % dead[:5]
assert len(d["blocks"]) > 500, "luaV_execute: %d blocks" % len(d["blocks"])
print("luaV_execute: %d blocks, no unreachable handler" % len(d["blocks"]))
PY
	# calls that never return or return twice (an_callee.h): luaD_throw ends in longjmp or
	# abort through GOT slots; luaD_rawrunprotected's call of the protected function may
	# longjmp back to the block after its _setjmp; lua_yieldk calls luaD_throw, which has no
	# way back
	"$AXPROF" cfg --json "$B/workloads/lua" luaD_throw >"$tmp/throw.json"
	"$AXPROF" cfg --json "$B/workloads/lua" luaD_rawrunprotected >"$tmp/rawrun.json"
	"$AXPROF" cfg --json "$B/workloads/lua" lua_yieldk >"$tmp/yieldk.json"
	python3 - "$tmp/throw.json" "$tmp/rawrun.json" "$tmp/yieldk.json" <<'PY'
import json, sys
throw, rawrun, yieldk = (json.load(open(f)) for f in sys.argv[1:4])
def whys(d):
	return [e.get("why") for e in d["edges"] if e["kind"] == "exit"]
assert whys(throw).count("noreturn-call") >= 2, "luaD_throw: %s" % whys(throw)
assert "return" not in whys(throw), "luaD_throw returns: %s" % whys(throw)
lj = [e for e in rawrun["edges"] if e["kind"] == "longjmp"]
assert len(lj) == 1, "luaD_rawrunprotected: longjmp edges %s" % lj
assert "noreturn-call" in whys(yieldk), "lua_yieldk: %s" % whys(yieldk)
print("luaD_throw, luaD_rawrunprotected, lua_yieldk: noreturn and setjmp calls found")
PY
else
	echo "skip: $B/workloads/lua not built (make workloads)"
fi

# Classes against the machine's ground truth (the program and the libc it ran; libcheavy runs
# vfprintf, whose shared `jmp (t3)` dispatches get their edges from the data flow).
for run in "structsearch 300" "adi 2" "libcheavy 1"; do
	set -- $run
	w=$1
	prog="$B/workloads/$w"
	[ -x "$prog" ] || { echo "skip: $prog not built"; continue; }
	"$AXPROF" run --cpu ev5 --truth "$tmp/$w.truth" --trace-syscalls "$prog" "$2" \
		>/dev/null 2>"$tmp/$w.trace"
	"$AXPROF" cfg --check --truth "$tmp/$w.truth" "$prog"
	# libc: the machine maps it with the first executable mmap (PROT_READ|PROT_EXEC)
	base=$(sed -n 's/.* mmap(0x[0-9a-f]*, 0x[0-9a-f]*, 0x5, 0x[0-9a-f]*) = \(0x[0-9a-f]*\)$/\1/p' \
		"$tmp/$w.trace" | head -n1)
	if [ -n "$base" ] && [ -r "$SYSROOT/lib/libc.so.6.1" ]; then
		"$AXPROF" cfg --check --truth "$tmp/$w.truth" --base "$base" \
			"$SYSROOT/lib/libc.so.6.1"
	else
		echo "skip: libc's load address not found in the trace"
	fi
done
