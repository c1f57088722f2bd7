#!/usr/bin/env bash
# tests/tools/check-relpaths.sh - relative output paths survive the hosted program's chdir.
#
# The hosted machine's chdir is the tool's own (machine/mach_sys_fs.c), and workloads/syscalls
# changes directory into a scratch directory of its own. record's -d and --truth, run's --truth
# and --samples, and stat's -o, given relative, must land in the directory the command was
# started in (tl_abs_path), not under the program's new directory.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/syscalls"
mkdir -p "$tmp/start"
cd "$tmp/start" || exit 1
# syscalls exits 3 on purpose
"$axprof" record -q --hosted --seed 1 -d db --truth rec.truth -- "$wl/syscalls" >/dev/null 2>rec.err
rc=$?
if [ $rc = 3 ] && [ -d db ] && [ -s rec.truth ] &&
	"$axprof" report -d db -n 1 >rep.txt 2>&1; then
	ok "record -d db --truth rec.truth: both in the starting directory, report reads db"
else
	bad "record with relative paths" "exit $rc; $(head -c 300 rec.err); $(ls -R . | head -20 | tr '\n' ' ')"
fi
"$axprof" run --cpu ev5 --truth run.truth --samples run.samples -- "$wl/syscalls" >/dev/null 2>run.err
rc=$?
if [ $rc = 3 ] && [ -s run.truth ] && [ -s run.samples ]; then
	ok "run --truth run.truth --samples run.samples: both in the starting directory"
else
	bad "run with relative paths" "exit $rc; $(head -c 300 run.err); $(ls | tr '\n' ' ')"
fi
"$axprof" stat -o stat.out -- "$wl/syscalls" >/dev/null 2>stat.err
rc=$?
if [ $rc = 3 ] && [ -s stat.out ]; then
	ok "stat -o stat.out: in the starting directory"
else
	bad "stat with a relative -o" "exit $rc; $(head -c 300 stat.err); $(ls | tr '\n' ' ')"
fi
finish
