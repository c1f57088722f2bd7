#!/usr/bin/env python3
# tests/tools/grade-procs.py - grade vprof --args/--callers JSON against `record --proc-truth`.
"""Usage: grade-procs.py ARGS.json CALLERS.json TRUTH [--image NAME] [--min-entries N]
                      [--value-tol P] [--caller-tol P] [--summary]

For every procedure of the image (file name NAME: required) with at least N interpreted entries
(default 200):
  - each argument a0-a5 and v0 (every ret of the procedure merged) whose exact top share is at
    least 10%: vprof's top value must be the truth's (or tie with it, below), its share within P
    points (default 2);
    below 10% (no dominant value) vprof's top share must stay below 10% + P;
  - each caller with an exact share of at least 5%: vprof lists it with a share within P points
    (default 3).
The truth (machine/mach_ptruth.h) is keyed by the call's target and the ret's pc: each is given
to the JSON procedure whose [address, end) holds it. When the top values nearly tie, vprof's top
may be another value: it passes when its share is within P points of that value's exact share
and that exact share within P points of the exact top's. Prints one line per graded item
('ok' or 'BAD'); exit 1 if any is BAD, 0 otherwise (--summary: counts only, exit 0).
"""
import json
import sys

REGS = {16: "a0", 17: "a1", 18: "a2", 19: "a3", 20: "a4", 21: "a5"}


def read_truth(path):
    blocks = {}
    cur = None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.split()
            if w[0] == "proc":
                cur = {"n": int(w[7]), "vals": {}}
                blocks[(int(w[1], 16), int(w[3]), int(w[5]))] = cur
            else:
                cur["vals"][int(w[0], 16)] = int(w[1])
    return blocks


def procs_of(doc, name):
    for im in doc["images"]:
        if im["image"].rsplit("/", 1)[-1] == name:
            return sorted(im["procedures"], key=lambda p: int(p["address"], 16))
    return []


def owner(procs, pc):
    for p in procs:
        if int(p["address"], 16) <= pc < int(p["end"], 16):
            return p
    return None


def main(argv):
    opts = {"--image": None, "--min-entries": "200", "--value-tol": "2", "--caller-tol": "3"}
    pos, summary, i = [], False, 0
    while i < len(argv):
        if argv[i] in opts:
            opts[argv[i]] = argv[i + 1]
            i += 2
        elif argv[i] == "--summary":
            summary = True
            i += 1
        else:
            pos.append(argv[i])
            i += 1
    if len(pos) != 3 or not opts["--image"]:
        sys.stderr.write(__doc__)
        return 2
    args, callers = json.load(open(pos[0])), json.load(open(pos[1]))
    truth = read_truth(pos[2])
    minn = int(opts["--min-entries"])
    vtol, ctol = float(opts["--value-tol"]) / 100, float(opts["--caller-tol"]) / 100
    aprocs, cprocs = procs_of(args, opts["--image"]), procs_of(callers, opts["--image"])
    # merge the truth per (procedure, kind, reg)
    merged = {}
    for (pc, kind, reg), b in truth.items():
        p = owner(aprocs if kind != 3 else cprocs, pc)
        if p is None:
            continue
        m = merged.setdefault((p["procedure"], kind, reg), {"n": 0, "vals": {}})
        m["n"] += b["n"]
        for v, c in b["vals"].items():
            m["vals"][v] = m["vals"].get(v, 0) + c
    good = bad = 0

    def grade(ok, text):
        nonlocal good, bad
        good += ok
        bad += not ok
        if not summary:
            print(("ok  " if ok else "BAD ") + text)

    for p in aprocs:
        if p["entries"] < minn:
            continue
        have = {a["reg"]: a for a in p["args"] + p["returns"]}
        for kind, reg, rn in [(1, r, n) for r, n in REGS.items()] + [(2, 0, "v0")]:
            t, a = merged.get((p["procedure"], kind, reg)), have.get(rn)
            if not t or not t["n"] or not a or not a["values"]:
                continue
            tv, tc = max(t["vals"].items(), key=lambda x: (x[1], -x[0]))
            ts = tc / t["n"]
            top = a["values"][0]
            vs = top["share"]
            if ts >= 0.10:
                mine = t["vals"].get(int(top["value"], 16), 0) / t["n"]
                ok = abs(vs - mine) <= vtol and mine >= ts - vtol
                grade(ok, "%s %s: top 0x%x %.2f%% (truth 0x%x %.2f%%, n %d)" %
                      (p["procedure"], rn, int(top["value"], 16), 100 * vs, tv, 100 * ts,
                       a["n"]))
            else:
                grade(vs < 0.10 + vtol, "%s %s: no dominant value, top share %.2f%% (truth %.2f%%)"
                      % (p["procedure"], rn, 100 * vs, 100 * ts))
    for p in cprocs:
        if p["entries"] < minn:
            continue
        t = merged.get((p["procedure"], 3, 26))
        if not t or not t["n"]:
            continue
        have = {int(c["address"], 16): c["share"] for c in p["callers"]}
        for v, c in sorted(t["vals"].items(), key=lambda x: -x[1]):
            ts = c / t["n"]
            if ts < 0.05:
                continue
            vs = have.get(v)
            grade(vs is not None and abs(vs - ts) <= ctol,
                  "%s caller 0x%x: %s (truth %.2f%%)" % (p["procedure"], v,
                  "%.2f%%" % (100 * vs) if vs is not None else "missing", 100 * ts))
    print("graded %d: %d within tolerance, %d not" % (good + bad, good, bad))
    return 0 if summary or not bad else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
