#!/usr/bin/env python3
# tests/tools/grade-callers.py - grade `report --callers/--callees LEAF --json` against the truth.
"""Usage: grade-callers.py REPORT_JSON TRUTH NM_OUTPUT LEAF FOLDED [--tol-sigma S]

REPORT_JSON: `axprof report --callers LEAF --callees LEAF --json` of a `record -g` database;
TRUTH: the same run's --proc-truth file (exact callers per procedure entry); NM_OUTPUT: `nm` of
the program; FOLDED: `axprof export --format folded` of the same database.
Checks, one line each ('ok' or 'BAD'):
  - every call site the report names is an exact caller of LEAF (a call pc in the truth), and
    the callers' samples add up to LEAF's inclusive samples; self + callees = inclusive;
  - each exact caller's share of the inclusive samples is within S (default 4) binomial standard
    deviations, sqrt(p (1 - p) / inclusive), of its exact share of LEAF's calls (each sample of
    LEAF lands under one call site, drawn with the share of the calls made from it when every
    call of LEAF costs the same, as in callargs);
  - the folded export splits LEAF's samples among its callers' procedures exactly as the report.
Exit 1 if any line is BAD.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

gs = import_module("grade-stacks")


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    rep_path, truth_path, nm_path, leaf, folded_path = argv[:5]
    sigma = float(argv[6]) if len(argv) > 6 and argv[5] == "--tol-sigma" else 4.0
    rep = json.load(open(rep_path))
    truth_callers = gs.read_truth_callers(truth_path)
    procs = gs.read_procs(nm_path)
    fails = 0

    def report(good, what):
        nonlocal fails
        print(("ok   " if good else "BAD  ") + what)
        fails += not good

    entry = [a for a, end, name in procs if name == leaf]
    if not entry or entry[0] not in truth_callers:
        report(False, "%s: no truth for its callers" % leaf)
        return 1
    truth = truth_callers[entry[0]]
    tot_truth = sum(truth.values())
    inc, self_ = rep["inclusive"], rep["self"]
    callers, callees = rep["callers"], rep["callees"]
    report(inc >= 100, "%s: %d inclusive samples (self %d)" % (leaf, inc, self_))
    sites = {}
    for c in callers:
        sites[int(c["address"], 16) if "address" in c else None] = c["samples"]
    report(sum(sites.values()) == inc,
           "callers' samples add up to the inclusive %d (%d)" % (inc, sum(sites.values())))
    report(set(sites) <= set(truth),
           "every reported call site is an exact caller: %s"
           % ", ".join(c["site"] for c in callers))
    report(self_ + sum(c["samples"] for c in callees) == inc,
           "self %d + callees %d = inclusive %d"
           % (self_, sum(c["samples"] for c in callees), inc))
    for pc, k in sorted(truth.items()):
        p = k / tot_truth
        got = sites.get(pc, 0) / inc if inc else 0
        sd = (p * (1 - p) / inc) ** 0.5 if inc else 1
        report(abs(got - p) <= sigma * sd + 1e-9,
               "caller %#x (%s): share %.2f%%, exact %.2f%% (%.1f sd; tolerance %.1f sd = "
               "%.2f points)" % (pc, (gs.owner(procs, pc) or (0, "?"))[1], 100 * got, 100 * p,
                                 abs(got - p) / sd if sd else 0, sigma, 100 * sigma * sd))
    # The folded export: lines ending in ";PROC;LEAF" by caller procedure.
    fold = {}
    for line in open(folded_path):
        frames, count = line.rsplit(" ", 1)
        f = frames.split(";")
        if f[-1] == leaf and len(f) > 1:
            fold[f[-2]] = fold.get(f[-2], 0) + int(count)
    by_proc = {}
    for c in callers:
        by_proc[c.get("procedure")] = by_proc.get(c.get("procedure"), 0) + c["samples"]
    report(fold == by_proc, "folded split of %s by caller %s = report's %s" % (leaf, fold, by_proc))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
