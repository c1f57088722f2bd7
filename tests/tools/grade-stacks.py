#!/usr/bin/env python3
# tests/tools/grade-stacks.py - grade `record -g` call stacks against `record --proc-truth`.
"""Usage: grade-stacks.py RECORDS TRUTH NM_OUTPUT LEAF [--tol-sigma S]

RECORDS: a `record -g --save-records` stream (vs_abi.h records); TRUTH: the same run's
--proc-truth file (machine/mach_ptruth.h: exact callers per procedure entry of PROG's own code);
NM_OUTPUT: `nm` of PROG (its procedures); LEAF: a procedure of PROG.
Checks, printing one line each ('ok' or 'BAD'):
  - every VS_REC_STACK record is well formed and the stacks' counts per event add up to the
    samples' (one stack per sample);
  - exactness: in every stack, each frame i >= 1 inside PROG whose inner frame i-1 lies in a
    procedure P of PROG is one of P's exact callers (the truth's call pcs for P's entry);
  - LEAF's callers: for the samples whose pc is in LEAF, the share of each calling site (frame 1)
    is within S (default 4) binomial standard deviations of the exact share of its calls.
Exit 1 if any line is BAD.
"""
import struct
import sys

REC_SAMPLE, REC_STACK = 1, 10


def read_records(path):
    data = open(path, "rb").read()
    off, out = 0, []
    while off + 4 <= len(data):
        typ, ln = struct.unpack_from("<HH", data, off)
        if ln < 8 or ln % 8 or off + ln > len(data):
            raise SystemExit("grade-stacks: damaged record stream at %d" % off)
        out.append((typ, data[off:off + ln]))
        off += ln
    return out


def read_truth_callers(path):
    callers = {}
    cur = None
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "proc":
            cur = None
            if int(w[3]) == 3:
                cur = callers.setdefault(int(w[1], 16), {})
        elif cur is not None:
            cur[int(w[0], 16)] = int(w[1])
    return callers


def read_procs(path):
    syms = []
    for line in open(path):
        w = line.split()
        if len(w) == 3 and w[1] in "tT":
            syms.append((int(w[0], 16), w[2]))
    syms.sort()
    procs = []
    for i, (a, name) in enumerate(syms):
        end = syms[i + 1][0] if i + 1 < len(syms) else a + 4
        if end > a:
            procs.append((a, end, name))
    return procs


def owner(procs, pc):
    for a, end, name in procs:
        if a <= pc < end:
            return (a, name)
    return None


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    recs_path, truth_path, nm_path, leaf = argv[:4]
    sigma = float(argv[5]) if len(argv) > 5 and argv[4] == "--tol-sigma" else 4.0
    recs = read_records(recs_path)
    callers = read_truth_callers(truth_path)
    procs = read_procs(nm_path)
    lo, hi = procs[0][0], procs[-1][1]
    samples, stacks, bad = {}, {}, 0
    stack_list = []
    for typ, r in recs:
        if typ == REC_SAMPLE:
            pid, pc, count, ev = struct.unpack_from("<IQIB", r, 4)
            samples[ev] = samples.get(ev, 0) + count
        elif typ == REC_STACK:
            pid, count, ev, flags, depth = struct.unpack_from("<IIBBH", r, 4)
            if not 1 <= depth <= 62 or len(r) != 16 + 8 * depth or count < 1 or flags & ~1:
                bad += 1
                continue
            pcs = struct.unpack_from("<%dQ" % depth, r, 16)
            stacks[ev] = stacks.get(ev, 0) + count
            stack_list.append((count, pcs))
    fails = 0

    def report(good, what):
        nonlocal fails
        print(("ok   " if good else "BAD  ") + what)
        fails += not good

    report(bad == 0 and stack_list, "%d stack records, all well formed" % len(stack_list))
    report(samples == stacks, "stacks per event %s = samples per event %s" % (stacks, samples))
    checked = wrong = 0
    for count, pcs in stack_list:
        for i in range(1, len(pcs)):
            inner = owner(procs, pcs[i - 1]) if lo <= pcs[i - 1] < hi else None
            if inner is None or not lo <= pcs[i] < hi or inner[0] not in callers:
                continue
            checked += count
            if pcs[i] not in callers[inner[0]]:
                wrong += count
    report(checked > 0 and wrong == 0,
           "exact frames: %d caller frames inside the program checked, %d not an exact caller"
           % (checked, wrong))
    entry = [a for a, end, name in procs if name == leaf]
    if not entry or entry[0] not in callers:
        report(False, "%s: no truth for its callers" % leaf)
        return 1
    a = entry[0]
    end = [e for x, e, n in procs if x == a][0]
    truth = callers[a]
    tot_truth = sum(truth.values())
    site = {}
    for count, pcs in stack_list:
        if a <= pcs[0] < end and len(pcs) > 1:
            site[pcs[1]] = site.get(pcs[1], 0) + count
    n = sum(site.values())
    report(n >= 100, "%s: %d samples with a caller frame" % (leaf, n))
    report(set(site) <= set(truth), "%s: every sampled caller is an exact caller" % leaf)
    for c, k in sorted(truth.items()):
        p = k / tot_truth
        got = site.get(c, 0) / n if n else 0
        sd = (p * (1 - p) / n) ** 0.5 if n else 1
        report(abs(got - p) <= sigma * sd + 1e-9,
               "%s caller %#x (%s): sampled share %.2f%%, exact %.2f%% (%.1f sd)"
               % (leaf, c, (owner(procs, c) or (0, "?"))[1], 100 * got, 100 * p,
                  abs(got - p) / sd if sd else 0))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
