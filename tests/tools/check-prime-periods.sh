#!/usr/bin/env bash
# tests/tools/check-prime-periods.sh - issue 16 item 2: `record --period prime:LO-HI` draws every
# period from the primes in [LO, HI] and the database keeps their mean.
#
# hotspots is recorded on the hosted machine with --period prime:1090-1200 (15 primes, mean
# 1137.4, against 1145 for the range's integers) and with --period 1090-1200. On the machine a
# CYCLES interrupt comes exactly a drawn period after the last, so cycles / samples is the mean of
# the drawn periods: it must lie within 4 standard errors of the primes' mean (computed here
# independently, by trial division) with primes, and of 1145 without (the two are ~20 standard
# errors apart). The mean period report --stalls --json reads from the database must be the
# primes' mean (2M rounded to an integer, halved: pdb.h PERIODS) with primes, 1145 without.
# Then a range without a prime is a usage error.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$wl/hotspots"

run() { # NAME PERIOD
	"$axprof" record --hosted --json --seed 3 -d "$tmp/$1" --period "$2" -- "$wl/hotspots" 50 \
		>/dev/null 2>"$tmp/$1.json" || bad "record --period $2" "$(head -c 300 "$tmp/$1.json")"
	"$axprof" report --stalls --json -d "$tmp/$1" >"$tmp/$1.rep" 2>"$tmp/$1.rep.err" ||
		bad "report $1" "$(head -c 300 "$tmp/$1.rep.err")"
}
run prime prime:1090-1200
run plain 1090-1200
for k in prime plain; do
	if msg=$(python3 - "$tmp/$k.json" "$tmp/$k.rep" "$k" <<'PY'
import json, sys
rec = json.loads(open(sys.argv[1]).read().splitlines()[-1])
rep = json.load(open(sys.argv[2]))
prime = sys.argv[3] == "prime"
vals = [v for v in range(1090, 1201)
        if not prime or all(v % d for d in range(2, int(v ** 0.5) + 1))]
mean = sum(vals) / len(vals)
sd = (sum((v - mean) ** 2 for v in vals) / len(vals)) ** 0.5
got = rec["cycles"] / rec["samples"]
se = sd / rec["samples"] ** 0.5
stored = round(2 * mean) / 2
ok = abs(got - mean) <= 4 * se + 0.2 and abs(rep["period"] - stored) < 1e-6
print("%s: %d periods, mean %.3f; cycles/samples %.3f (%.1f se); stored period %.1f (want %.1f)"
      % ("ok" if ok else "BAD", len(vals), mean, got, abs(got - mean) / se, rep["period"], stored))
sys.exit(0 if ok else 1)
PY
	); then
		ok "$k: $msg"
	else
		bad "$k" "$msg"
	fi
done
"$axprof" record --hosted -d "$tmp/none" --period prime:24-28 -- "$wl/hotspots" 1 >/dev/null \
	2>"$tmp/none.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "prime:LO-HI" "$tmp/none.err" && [ ! -e "$tmp/none" ]; then
	ok "--period prime:24-28 (no prime): usage error, no database"
else
	bad "--period prime:24-28" "exit $rc: $(head -c 300 "$tmp/none.err")"
fi
finish
