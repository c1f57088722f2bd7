#!/usr/bin/env bash
# tests/tools/check-truth-cpus.sh - `axprof run --cpus N --truth F` writes one truth for all CPUs.
#
# falseshare with 2 threads (each counts its own word; the interleaving moves only timing) runs
# at --cpus 1 and --cpus 2 on the EV5 and the EV6 model. The per-PC truth must not depend on how
# the threads were spread over CPUs: every PC's executions (section 2), every edge's count
# (section 3) and the summary's instructions equal at --cpus 1 and 2; the EV6 per-PC section 5
# has the same PCs as section 2. Cycles may differ (coherence misses). Before, the per-PC
# sections held only the CPU that ran last. axeval reads the 2-CPU file (its checks pass).
. "$(dirname "$0")/lib.sh"
axeval=$bin/axeval
need "$axprof" "$axeval" "$wl/falseshare"

for cpu in ev5 ev6; do
	for n in 1 2; do
		"$axprof" run --cpu $cpu --cpus $n --truth "$tmp/$cpu.$n" -- "$wl/falseshare" 20000 2 \
			>/dev/null 2>"$tmp/$cpu.$n.err" || bad "$cpu --cpus $n" "$(head -c 300 "$tmp/$cpu.$n.err")"
	done
	if python3 - "$tmp/$cpu.1" "$tmp/$cpu.2" >"$tmp/$cpu.cmp" 2>&1 <<'PY'; then
import struct, sys
def secs(path):
    b = open(path, "rb").read()
    out = {}
    for i in range(struct.unpack_from("<I", b, 20)[0]):
        typ, rsz, off, cnt = struct.unpack_from("<IIQQ", b, 64 + 32 * i)
        out[typ] = [b[off + k * rsz : off + (k + 1) * rsz] for k in range(cnt)]
    return out
one, two = secs(sys.argv[1]), secs(sys.argv[2])
ex = lambda s: {struct.unpack_from("<Q", r)[0]: struct.unpack_from("<Q", r, 8)[0] for r in s[2]}
ed = lambda s: {struct.unpack_from("<QQ", r): struct.unpack_from("<Q", r, 16)[0] for r in s[3]}
insns = lambda s: struct.unpack_from("<Q", s[1][0], 8)[0]
e1, e2 = ex(one), ex(two)
bad = [(hex(p), e1.get(p), e2.get(p)) for p in sorted(set(e1) | set(e2)) if e1.get(p) != e2.get(p)]
if bad or sum(e1.values()) < 100000:
    sys.exit("%d PCs differ (pc, --cpus 1, --cpus 2): %s" % (len(bad), bad[:5]))
if ed(one) != ed(two):
    sys.exit("edges differ: %d and %d edges" % (len(ed(one)), len(ed(two))))
if insns(one) != insns(two) or insns(two) != sum(e2.values()):
    sys.exit("summary instructions %d and %d, PCs add up to %d" % (insns(one), insns(two), sum(e2.values())))
if 5 in two and [struct.unpack_from("<Q", r)[0] for r in two[5]] != sorted(e2):
    sys.exit("section 5 does not hold section 2's PCs")
print("%d PCs, %d executions, %d edges equal at --cpus 1 and 2" % (len(e2), sum(e2.values()), len(ed(two))))
PY
		ok "$cpu: $(cat "$tmp/$cpu.cmp")"
	else
		bad "$cpu per-PC truth at --cpus 2" "$(head -c 600 "$tmp/$cpu.cmp")"
	fi
done

# The reader (mach_truth_read: order, sizes, CRC) accepts a 2-CPU file.
"$axprof" record --hosted -q --cpu ev6 --cpus 2 -d "$tmp/db" --truth "$tmp/rec.truth" -- \
	"$wl/falseshare" 20000 2 >/dev/null 2>"$tmp/rec.err"
if "$axeval" --kernel x "$tmp/db" "$tmp/rec.truth" >"$tmp/eval.out" 2>&1; then
	ok "axeval reads the truth of record --cpus 2"
else
	bad "axeval on a 2-CPU truth" "$(head -c 400 "$tmp/eval.out") $(head -c 200 "$tmp/rec.err")"
fi
finish
