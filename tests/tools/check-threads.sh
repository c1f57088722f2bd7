#!/usr/bin/env bash
# tests/tools/check-threads.sh - the database keeps threads and command names (issue 17 item 5):
# tasks.prof rows per (pid, tid), threads.prof names, report --tid / --comm / --tasks.
#
#   1. A recorded pthread program (falseshare: the main thread and 4 workers, pid 1000):
#      report --tasks lists every thread record's summary names, with the summary's samples
#      exactly (the daemon counted both from the same records); the threads of pid 1000 add
#      up to its process row and to report --pid 1000's totals; report --tid T's totals are T's
#      row; every thread named falseshare.
#   2. After execve (forkexec: child 1001 runs execworker): the thread's comm is execworker,
#      report --comm execworker selects exactly pid 1001's samples, mostly in ew_work;
#      --comm forkexec selects pids 1000 and 1002.
#   3. axprof merge of two recordings into a third database: each thread's samples add up,
#      the names stay, fsck is clean.
#   4. Bad input: --tid of a thread without samples and --comm of a name no thread had: exit 1
#      and a message naming them (as --pid); --tid x, --comm '' or a name too long: exit 2.
# SEED (default 7) picks the recordings' sampling seed.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/falseshare" "$wl/forkexec" "$wl/execworker"
seed=${SEED:-7}

# 1. falseshare's threads
"$axprof" record --hosted -d "$tmp/fs" --seed "$seed" --json -- "$wl/falseshare" >/dev/null 2>"$tmp/fs.json"
"$axprof" report -d "$tmp/fs" --tasks --json >"$tmp/tasks.json" 2>&1
"$axprof" report -d "$tmp/fs" --pid 1000 --json >"$tmp/pid.json" 2>&1
tids=$(python3 -c '
import json, sys
print(" ".join(str(r["tid"]) for r in json.load(open(sys.argv[1]))["threads"]))' "$tmp/fs.json")
for t in $tids; do
	"$axprof" report -d "$tmp/fs" --tid "$t" --json >"$tmp/tid$t.json" 2>&1
done
python3 - "$tmp" "$tids" <<'PY' && ok "falseshare: report --tasks has the summary's 5 threads with its samples exactly, named falseshare; they add up to pid 1000's row and --pid 1000; --tid T gives T's samples" || bad "falseshare threads" "see above"
import json, sys
d, tids = sys.argv[1], [int(t) for t in sys.argv[2].split()]
s = json.load(open(d + "/fs.json"))
want = {}
for r in s["threads"]:
    want[(r["pid"], r["tid"])] = want.get((r["pid"], r["tid"]), 0) + r["samples"]
t = json.load(open(d + "/tasks.json"))["tasks"]
if [p["pid"] for p in t] != [1000]:
    sys.exit(print("processes", [p["pid"] for p in t]) or 1)
got = {(1000, r["tid"]): r["samples_by_event"]["cycles"] for r in t[0]["threads"]}
if got != want or len(got) != 5:
    sys.exit(print("threads: database", got, "summary", want) or 1)
if any(r["comm"] != "falseshare" or r["names"] != ["falseshare"] for r in t[0]["threads"]):
    sys.exit(print("names", t[0]["threads"]) or 1)
tot = t[0]["samples_by_event"]["cycles"]
if sum(got.values()) != tot or tot != s["samples"]:
    sys.exit(print("sum", sum(got.values()), "process", tot, "summary", s["samples"]) or 1)
if json.load(open(d + "/pid.json"))["totals"]["cycles"] != tot:
    sys.exit(print("--pid 1000 totals differ from", tot) or 1)
for tid in tids:
    j = json.load(open("%s/tid%d.json" % (d, tid)))
    if j["tid"] != tid or j["totals"]["cycles"] != got[(1000, tid)]:
        sys.exit(print("--tid", tid, j["totals"], got[(1000, tid)]) or 1)
PY

# 2. execve: the child's new name
"$axprof" record --hosted -d "$tmp/fe" --seed "$seed" -- "$wl/forkexec" >/dev/null 2>&1
"$axprof" report -d "$tmp/fe" --tasks --json >"$tmp/fe-tasks.json" 2>&1
"$axprof" report -d "$tmp/fe" --comm execworker --procedures --json >"$tmp/fe-ew.json" 2>&1
"$axprof" report -d "$tmp/fe" --comm forkexec --tasks --json >"$tmp/fe-fe.json" 2>&1
python3 - "$tmp" <<'PY' && ok "forkexec: pid 1001's thread is named execworker after its execve; --comm execworker gives exactly its samples (ew_work the most), --comm forkexec pids 1000 and 1002" || bad "--comm after execve" "see above"
import json, sys
d = sys.argv[1]
t = {p["pid"]: p for p in json.load(open(d + "/fe-tasks.json"))["tasks"]}
if sorted(t) != [1000, 1001, 1002]:
    sys.exit(print("pids", sorted(t)) or 1)
th = t[1001]["threads"]
if len(th) != 1 or th[0]["tid"] != 1001 or th[0]["comm"] != "execworker" or t[1001]["comm"] != "execworker":
    sys.exit(print("pid 1001", t[1001]) or 1)
ew = json.load(open(d + "/fe-ew.json"))
if ew["comm"] != "execworker" or ew["totals"]["cycles"] != t[1001]["samples_by_event"]["cycles"]:
    sys.exit(print("--comm execworker totals", ew["totals"], "pid 1001", t[1001]["samples_by_event"]) or 1)
top = ew["procedures"][0]
if top["procedure"] != "ew_work" or top["samples_by_event"]["cycles"] * 2 < ew["totals"]["cycles"]:
    sys.exit(print("top procedure", top) or 1)
fe = json.load(open(d + "/fe-fe.json"))["tasks"]
if sorted(p["pid"] for p in fe) != [1000, 1002] or any(p["comm"] != "forkexec" for p in fe):
    sys.exit(print("--comm forkexec", fe) or 1)
PY

# 3. merge: samples add, names stay
"$axprof" record --hosted -d "$tmp/fs2" --seed "$((seed + 1))" -- "$wl/falseshare" >/dev/null 2>&1
"$axprof" merge -d "$tmp/m" "$tmp/fs" "$tmp/fs2" >/dev/null 2>"$tmp/merge.err"
"$axprof" report -d "$tmp/fs2" --tasks --json >"$tmp/tasks2.json" 2>&1
"$axprof" report -d "$tmp/m" --tasks --json >"$tmp/tasksm.json" 2>&1
"$axprof" fsck -d "$tmp/m" >"$tmp/fsck" 2>&1
fsck_rc=$?
python3 - "$tmp" <<'PY' && [ $fsck_rc = 0 ] && ok "merge of two falseshare recordings: each thread's samples add up, names kept; fsck clean" || bad "merge" "fsck exit $fsck_rc $(cat "$tmp/merge.err" "$tmp/fsck" | head -n 3)"
import json, sys
d = sys.argv[1]
def rows(f):
    return {r["tid"]: (r["samples_by_event"]["cycles"], r["names"])
            for p in json.load(open(f))["tasks"] for r in p["threads"]}
a, b, m = rows(d + "/tasks.json"), rows(d + "/tasks2.json"), rows(d + "/tasksm.json")
for tid in set(a) | set(b):
    want = a.get(tid, (0, []))[0] + b.get(tid, (0, []))[0]
    if m.get(tid, (None,))[0] != want or m[tid][1] != ["falseshare"]:
        sys.exit(print("tid", tid, "merged", m.get(tid), "want", want) or 1)
PY

# 4. bad input
"$axprof" report -d "$tmp/fs" --tid 4242 >/dev/null 2>"$tmp/e1"
r1=$?
"$axprof" report -d "$tmp/fe" --comm nosuchname --procedures >/dev/null 2>"$tmp/e2"
r2=$?
"$axprof" report -d "$tmp/fs" --tid x >/dev/null 2>"$tmp/e3"
r3=$?
"$axprof" report -d "$tmp/fs" --comm '' >/dev/null 2>>"$tmp/e3"
r4=$?
"$axprof" report -d "$tmp/fs" --comm 0123456789abcdef >/dev/null 2>>"$tmp/e3"
r5=$?
if [ $r1 = 1 ] && grep -q 'no samples of tid 4242 in epoch 1' "$tmp/e1" && [ $r2 = 1 ] &&
	grep -q "no samples of command 'nosuchname'" "$tmp/e2" && [ $r3 = 2 ] && [ $r4 = 2 ] &&
	[ $r5 = 2 ] && grep -q -- '--tid needs a thread id' "$tmp/e3" &&
	[ "$(grep -c -- '--comm needs a command name' "$tmp/e3")" = 2 ]; then
	ok "bad input: --tid/--comm without samples exit 1 naming them; --tid x, --comm '' and a 16-byte name exit 2"
else
	bad "bad input" "exits $r1 $r2 $r3 $r4 $r5: $(cat "$tmp/e1" "$tmp/e2" "$tmp/e3" | tr '\n' ' ')"
fi
finish
