#!/usr/bin/env python3
# tests/tools/grade-addrs.py - grade vprof --addresses JSON against `record --addr-truth`.
"""Usage: grade-addrs.py ADDRS.json TRUTH --image NAME [--proc P] [--min-n N] [--tol P]

For every load the truth saw execute at least N times (default 1000), against vprof's candidates
of the image (file name NAME; of procedure P only, when given):
  - exact top address share >= 95%: vprof must list it as "invariant" with the truth's top
    address and a share within P points (default 2);
  - else exact top nonzero stride share >= 95% of its strides: listed "strided" with that stride
    and a stride share within P points;
  - exact top address share and top stride share both below 50%: NOT listed (a negative);
  - in between: not graded.
Every load vprof lists must be one of these. Prints one line per graded item ('ok' or 'BAD')
and a summary; exit 1 if any is BAD.
"""
import json
import sys


def read_truth(path):
    loads = {}
    cur = None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.split()
            if w[0] == "load":
                cur = {"n": int(w[3]), "strides": int(w[9]), "ea": [], "stride": []}
                loads[int(w[1], 16)] = cur
            elif w[0] == "ea":
                cur["ea"].append((int(w[1], 16), int(w[2])))
            else:
                cur["stride"].append((int(w[1]), int(w[2])))
    return loads


def main(argv):
    args, opts = [], {"--image": None, "--proc": None, "--min-n": "1000", "--tol": "2"}
    i = 1
    while i < len(argv):
        if argv[i] in opts:
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2 or not opts["--image"]:
        print(__doc__, file=sys.stderr)
        return 2
    doc = json.load(open(args[0]))
    truth = read_truth(args[1])
    tol = float(opts["--tol"]) / 100
    min_n = int(opts["--min-n"])
    cands = {}
    for c in doc["prefetch"]:
        if c["image"].rsplit("/", 1)[-1] != opts["--image"]:
            continue
        if opts["--proc"] and c.get("procedure") != opts["--proc"]:
            continue
        cands[int(c["address"], 16)] = c
    bad = graded = 0
    for pc, t in sorted(truth.items()):
        if t["n"] < min_n:
            continue
        c = cands.get(pc)
        ea_top, ea_cnt = t["ea"][0]
        ea_share = ea_cnt / t["n"]
        nz = [s for s in t["stride"] if s[0] != 0]
        st_top, st_cnt = nz[0] if nz else (0, 0)
        st_share = st_cnt / t["strides"] if t["strides"] else 0.0
        name = "load 0x%x" % pc
        if ea_share >= 0.95:
            graded += 1
            ok = (c is not None and c["kind"] == "invariant" and int(c["ea"], 16) == ea_top
                  and abs(c["ea_share"] - ea_share) <= tol)
            what = "invariant 0x%x %.2f%%" % (ea_top, 100 * ea_share)
        elif st_share >= 0.95:
            graded += 1
            ok = (c is not None and c["kind"] == "strided" and c.get("stride") == st_top
                  and abs(c["stride_share"] - st_share) <= tol)
            what = "strided %+d %.2f%%" % (st_top, 100 * st_share)
        elif ea_share < 0.5 and st_share < 0.5 and (not t["stride"] or
                                                     t["stride"][0][1] / t["strides"] < 0.5):
            graded += 1
            ok = c is None
            what = "not a candidate (top address %.2f%%, top stride %.2f%%)" % (
                100 * ea_share, 100 * st_share)
        else:
            cands.pop(pc, None)
            continue
        got = "absent" if c is None else "%s ea 0x%s %.2f%% stride %s %.2f%%" % (
            c["kind"], c["ea"][2:], 100 * c["ea_share"], c.get("stride"),
            100 * c.get("stride_share", 0))
        print("%s  %s: truth %s, vprof %s" % ("ok " if ok else "BAD", name, what, got))
        bad += not ok
        cands.pop(pc, None)
    for pc, c in sorted(cands.items()):
        if c["n"] >= min_n:
            print("BAD  load 0x%x: listed (%s) but not a graded candidate" % (pc, c["kind"]))
            bad += 1
    print("%d graded, %d bad" % (graded, bad))
    return 1 if bad or not graded else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
