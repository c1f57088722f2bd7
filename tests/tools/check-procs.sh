#!/usr/bin/env bash
# tests/tools/check-procs.sh - processes under record (issue 17 items 1 and 3): virtual pids,
# execve'd programs profiled under their own image, every process counted, reproducible.
#
#   1. Virtual pids: under `axprof run --trace-syscalls`, forkexec is pid 1000 and its two
#      forks return 1001 and 1002, which wait4 reaps by those numbers.
#   2. `record` of forkexec (fork + execve of execworker + pipes): the program's output and exit
#      status pass through; the summary counts 3 processes; the samples of each process land on
#      its own loop in its own image (ew_work in execworker, fe_child and fe_parent in forkexec),
#      each with a share of 20-45% (the three loops do the same number of iterations).
#      report --tasks lists pids 1000-1002 whose samples add up to the total, and report --pid P
#      --procedures shows only P's loop (tasks.prof); a pid with no samples: exit 1 and a message.
#   2c. The summary's threads (ABI 5): pid, tid and comm of every process's threads (comm after
#      execve the new program's), falseshare's workers under their own tids, summing to the total.
#   2d. stat --per-process shows each process's comm; run --stats labels its blocks by pid/tid.
#   3. Two recordings of the same seed give identical databases (but for DIR/id) without a pid
#      namespace: the pids in the records are the virtual ones.
#   4. Bad input: run --pid-table and record --exec-totals refuse a bad descriptor (exit 2).
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/forkexec" "$wl/execworker"
golden=$top/tests/workloads/golden

# 1. virtual pids
"$axprof" run --trace-syscalls -- "$wl/forkexec" 2000 >/dev/null 2>"$tmp/trace"
if grep -q '^1000 clone(.*) = 0x3e9$' "$tmp/trace" && grep -q '^1000 clone(.*) = 0x3ea$' "$tmp/trace" &&
	grep -q '^1000 wait4(0x3e9, .*) = 0x3e9$' "$tmp/trace" &&
	grep -q '^1000 wait4(0x3ea, .*) = 0x3ea$' "$tmp/trace" &&
	grep -q '^1001 set_tid_address(.*) = 0x3e9$' "$tmp/trace"; then
	ok "virtual pids: the program is 1000, its children 1001 and 1002 (fork, execve, wait4)"
else
	bad "virtual pids" "$(grep -E 'clone|wait4|set_tid' "$tmp/trace" | head -n 6 | tr '\n' ' ')"
fi

# 2. record: every process counted, each one's samples on its own image
for k in 1 2; do
	"$axprof" record --hosted -d "$tmp/db$k" --seed 7 --json -- "$wl/forkexec" >"$tmp/out$k" 2>"$tmp/sum$k.json"
	echo $? >"$tmp/st$k"
done
if cmp -s "$tmp/out1" "$golden/forkexec.out" && [ "$(cat "$tmp/st1")" = "$(cat "$golden/forkexec.status")" ]; then
	ok "record: forkexec's output and exit status pass through"
else
	bad "record output" "$(diff "$golden/forkexec.out" "$tmp/out1" | head -n 4 | tr '\n' ' ') status $(cat "$tmp/st1")"
fi
"$axprof" report -d "$tmp/db1" --procedures >"$tmp/procs" 2>&1
python3 - "$tmp/sum1.json" "$tmp/procs" <<'PY' && ok "record: 3 processes counted; ew_work (execworker), fe_child and fe_parent (forkexec) each hold 20-45% of the samples" || bad "record summary or images" "see above"
import json, sys
s = json.load(open(sys.argv[1]))
if s.get("processes_counted") != 3:
    sys.exit(print("processes_counted", s.get("processes_counted")) or 1)
total, rows = 0, {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 5 and f[0].isdigit() and f[1].endswith("%"):
        rows[(f[3], f[-1])] = int(f[0])
        total += int(f[0])
if total != s["samples"]:
    sys.exit(print("report total", total, "summary samples", s["samples"]) or 1)
for key in [("ew_work", "execworker"), ("fe_child", "forkexec"), ("fe_parent", "forkexec")]:
    n = rows.get(key, 0)
    if not 0.20 * total <= n <= 0.45 * total:
        sys.exit(print(key, n, "of", total, rows) or 1)
PY

# 2b. report --tasks / --pid (tasks.prof): each process's samples apart, summing to the total
"$axprof" report -d "$tmp/db1" --tasks --json >"$tmp/tasks.json" 2>&1
for p in 1000 1001 1002; do
	"$axprof" report -d "$tmp/db1" --pid $p --procedures --json >"$tmp/pid$p.json" 2>&1
done
python3 - "$tmp/sum1.json" "$tmp/tasks.json" "$tmp/pid1000.json" "$tmp/pid1001.json" "$tmp/pid1002.json" <<'PY' && ok "report --tasks: pids 1000-1002 sum to the total; --pid puts fe_parent, ew_work (execworker), fe_child each in its own process (>= 85% of its samples)" || bad "report --tasks/--pid" "see above"
import json, sys
s = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
pids = {r["pid"]: r["samples_by_event"]["cycles"] for r in t["tasks"]}
if sorted(pids) != [1000, 1001, 1002] or sum(pids.values()) != s["samples"]:
    sys.exit(print("tasks", pids, "summary", s["samples"]) or 1)
want = {1000: ("fe_parent", "forkexec"), 1001: ("ew_work", "execworker"), 1002: ("fe_child", "forkexec")}
for i, pid in enumerate([1000, 1001, 1002]):
    d = json.load(open(sys.argv[3 + i]))
    tot = d["totals"]["cycles"]
    rows = {(r["procedure"], r["image"].rsplit("/", 1)[-1]): r["samples_by_event"]["cycles"] for r in d["procedures"]}
    if d["pid"] != pid or tot != pids[pid] or sum(rows.values()) != tot:
        sys.exit(print(pid, "totals", tot, pids[pid], sum(rows.values())) or 1)
    if rows.get(want[pid], 0) < 0.85 * tot:
        sys.exit(print(pid, rows) or 1)
    for other in want.values():
        if other != want[pid] and rows.get(other, 0):
            sys.exit(print(pid, "has", other, rows) or 1)
PY
"$axprof" report -d "$tmp/db1" --pid 4242 >/dev/null 2>"$tmp/e0"
r0=$?
if [ $r0 = 1 ] && grep -q 'no samples of pid 4242 in epoch 1' "$tmp/e0"; then
	ok "report --pid of no such process: exit 1, 'no samples of pid 4242 in epoch 1 ...'"
else
	bad "report --pid 4242" "exit $r0: $(cat "$tmp/e0")"
fi
"$axprof" report -d "$tmp/db1" --pid x >/dev/null 2>"$tmp/e0"
r0=$?
"$axprof" report -d "$tmp/db1" --procedures --tasks >/dev/null 2>>"$tmp/e0"
r1=$?
[ $r0 = 2 ] && [ $r1 = 2 ] && ok "report --pid x, --tasks with --procedures: exit 2" || bad "report bad --pid" "$(cat "$tmp/e0")"

# 2c. threads and commands (ABI 5, VS_REC_TASK): record's summary lists each process's threads
# with the command it ran: execworker's after the execve, forkexec's children under their pids;
# falseshare's four workers under their own tids. The rows add up to the total.
need "$wl/falseshare"
"$axprof" record --hosted -d "$tmp/dbt" --seed 7 --json -- "$wl/falseshare" >/dev/null 2>"$tmp/fs.json"
python3 - "$tmp/sum1.json" "$tmp/fs.json" <<'PY' && ok "record threads: forkexec 1000/1002 and execworker 1001 (comm after execve), falseshare's 4 workers apart under pid 1000; rows sum to the samples" || bad "record threads" "see above"
import json, sys
s = json.load(open(sys.argv[1]))
rows = [(r["pid"], r["tid"], r["comm"]) for r in s["threads"]]
if rows != [(1000, 1000, "forkexec"), (1001, 1001, "execworker"), (1002, 1002, "forkexec")]:
    sys.exit(print("forkexec threads", rows) or 1)
if sum(r["samples"] for r in s["threads"]) != s["samples"]:
    sys.exit(print("forkexec thread samples", s["threads"], s["samples"]) or 1)
f = json.load(open(sys.argv[2]))
t = f["threads"]
workers = [r for r in t if r["tid"] != 1000]
if (len(workers) != 4 or len({r["tid"] for r in workers}) != 4
        or any(r["pid"] != 1000 or r["comm"] != "falseshare" or r["samples"] < 1 for r in t)
        or sum(r["samples"] for r in t) != f["samples"]):
    sys.exit(print("falseshare threads", t, f["samples"]) or 1)
PY

# 2d. stat --per-process names each process's command; run --stats labels its blocks by pid and
# each thread's line by its comm.
"$axprof" stat --per-process --json -- "$wl/forkexec" >/dev/null 2>"$tmp/stat.json"
"$axprof" run --stats --cpu ev5 -- "$wl/falseshare" >/dev/null 2>"$tmp/runstats"
if tail -n 1 "$tmp/stat.json" | python3 -c '
import json, sys
p = json.load(sys.stdin)["processes"]
sys.exit(0 if [(r["pid"], r["comm"]) for r in p] == [(1000, "forkexec"), (1002, "forkexec")] else print(p) or 1)' &&
	grep -q '^axprof run: pid 1000 (falseshare): timing and samples:$' "$tmp/runstats" &&
	[ "$(grep -c '^axprof run: pid 1000 tid [0-9]* (falseshare): [0-9]* instructions' "$tmp/runstats")" = 5 ]; then
	ok "stat --per-process: comm of pids 1000 and 1002; run --stats: the block labelled pid 1000 (falseshare), 5 thread lines with comm"
else
	bad "stat/run --stats labels" "$(head -c 300 "$tmp/runstats")"
fi

# 3. reproducible without a pid namespace
# (the index holds the path of the [kernel] image, DIR/kernel/KEY/[kernel]: compared through
# report's image list, DIR normalised)
images() { "$axprof" report -d "$1" 2>&1 | sed "s#$1#@DB@#g"; }
if diff -r -x id -x index "$tmp/db1" "$tmp/db2" >"$tmp/diff" 2>&1 &&
	cmp -s <(images "$tmp/db1") <(images "$tmp/db2") >>"$tmp/diff" 2>&1; then
	ok "two recordings of forkexec with the same seed give identical databases"
else
	bad "reproducibility" "$(head -n 5 "$tmp/diff" | tr '\n' ' ')"
fi

# 4. bad descriptors
"$axprof" run --pid-table 2 -- "$wl/execworker" >/dev/null 2>"$tmp/e1"
r1=$?
"$axprof" record --exec-totals 9:boss -- "$wl/execworker" >/dev/null 2>"$tmp/e2"
r2=$?
"$axprof" run --pid-table 99 -- "$wl/execworker" >/dev/null 2>"$tmp/e3"
r3=$?
if [ $r1 = 2 ] && grep -q -- '--pid-table needs a file descriptor' "$tmp/e1" && [ $r2 = 2 ] &&
	grep -q -- '--exec-totals needs FD:root or FD:child' "$tmp/e2" && [ $r3 = 1 ] &&
	grep -q 'cannot create the machine' "$tmp/e3"; then
	ok "bad --pid-table / --exec-totals: a message naming the option, exit 2 (1: not a pid table)"
else
	bad "bad descriptors" "$r1 $r2 $r3: $(cat "$tmp/e1" "$tmp/e2" "$tmp/e3" | head -c 300)"
fi
finish
