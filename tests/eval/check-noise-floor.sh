#!/bin/sh
# tests/eval/check-noise-floor.sh - eval/noise-floor.sh on a small detail CSV whose figures are
# known: a class of 4 clean points with 100 samples each (400 clean samples: an own-points
# estimate is within 5% with probability erf(0.05 sqrt(400) / sqrt(2)) = 68.27%, within 15%
# 99.73%) estimated 2% high with high confidence (z = 0.02 x 20 = 0.40), and a class in the
# program's libc whose one point stalls (no clean sample), 50% high.
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
h=run,procedure,addr,block,class,samples,m,est,exec,err,confidence,how,true_static,unexplained,true_head
{
	echo "$h"
	for a in 0x10 0x14 0x18 0x1c; do
		echo "A,p,$a,0,1,100,1,10200,10000,0.0200,high,cluster,10000,0.000,10000"
	done
	echo "A/libc.so.6.1,q,0x20,0,2,50,1,15000,10000,0.5000,low,cluster,10000,0.000,20000"
} >"$tmp/d.csv"
eval/noise-floor.sh "$tmp/d.csv" >"$tmp/out.txt"
cat "$tmp/out.txt"
# 450 samples: floor 400 x 0.6827 / 450 = 60.7%, 400 x 0.9973 / 450 = 88.6%; achieved 88.9%
grep -Eq '^  A +450 +60\.7% +88\.6% +88\.9% +88\.9% +\+0\.40 \(0\.00\) 0\.00 +100%$' "$tmp/out.txt" ||
	{ echo "check-noise-floor: wrong figures for A"; exit 1; }
grep -Eq '^  all +450 ' "$tmp/out.txt" || { echo "check-noise-floor: no 'all' line"; exit 1; }
# a CSV without the columns it needs is an error, not a table of zeros
echo "run,samples" >"$tmp/bad.csv"
if eval/noise-floor.sh "$tmp/bad.csv" >"$tmp/bad.txt" 2>&1; then
	echo "check-noise-floor: a CSV without its columns was accepted"
	exit 1
fi
grep -q "no column" "$tmp/bad.txt" || { echo "check-noise-floor: no error message"; exit 1; }
echo "check-noise-floor: ok"
