#!/usr/bin/env bash
# eval/noise-floor.sh - noise or bias? The frequency estimates of axeval's detail CSV against
# what sampling noise alone allows (issue 15, stop 30).
#
# Usage: eval/noise-floor.sh DETAIL.CSV      (axeval --detail; one row per graded instruction)
#
# For each class, its clean issue points are those whose machine head cycles are within 3% of
# exec x M_i (no dynamic stall; the truth knows them, the analysis does not). An unbiased
# estimate made from those points alone (DCPI SOSP'97 §6.1's cluster, told which points are
# clean) has a relative sd of 1/sqrt(clean samples) (Poisson counts): the chance that it is
# within 5% (15%) of the exact count, weighted by the class's samples, is the "own-points
# floor". The analysis beats it only by using the flow equations (an_freq_recon.c). Then, for
# the medium- and high-confidence cluster estimates, z = error x sqrt(clean samples): mean
# near 0 and sd near 1 is noise; a mean away from 0 (in standard errors) is bias. Printed per
# program (a run name up to its first '/': the program and its shared objects) and in all.
set -eu
[ $# -eq 1 ] && [ -r "$1" ] || { echo "usage: eval/noise-floor.sh DETAIL.CSV" >&2; exit 2; }
awk -F, '
function erf(x,   t, y, s) { # Abramowitz-Stegun 7.1.26, |error| < 1.5e-7
	s = x < 0 ? -1 : 1; x = x < 0 ? -x : x; t = 1 / (1 + 0.3275911 * x)
	y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-x * x)
	return s * y
}
function within(lim, cs) { return cs > 0 ? erf(lim * sqrt(cs) / sqrt(2)) : 0 }
NR == 1 {
	for (i = 1; i <= NF; i++) col[$i] = i
	need = "run procedure class samples m exec err confidence how true_head"
	n = split(need, nd, " ")
	for (i = 1; i <= n; i++) if (!(nd[i] in col)) { print "noise-floor: no column " nd[i] > "/dev/stderr"; bad = 1; exit 2 }
	next
}
{
	k = $col["run"] SUBSEP $col["procedure"] SUBSEP $col["class"]
	if (!(k in S)) { order[++nk] = k; E[k] = $col["err"]; C[k] = $col["confidence"]; H[k] = $col["how"]
		run = $col["run"]; sub(/\/.*/, "", run); R[k] = run; if (!(run in seen)) { seen[run] = 1; runs[++nr] = run } }
	s = $col["samples"]; S[k] += s
	m = $col["m"]; ex = $col["exec"]; th = $col["true_head"]
	if (m > 0 && ex > 0 && (th - ex * m <= 0.03 * ex * m) && (ex * m - th <= 0.03 * ex * m)) CS[k] += s
}
END {
	if (bad)
		exit 2
	if (nk == 0) { print "noise-floor: no rows"; exit 0 }
	for (i = 1; i <= nk; i++) {
		k = order[i]; e = E[k]; ae = e < 0 ? -e : e
		for (pass = 0; pass < 2; pass++) {
			r = pass ? "all" : R[k]
			tot[r] += S[k]; f5[r] += S[k] * within(0.05, CS[k]); f15[r] += S[k] * within(0.15, CS[k])
			if (ae <= 0.05) a5[r] += S[k]; if (ae <= 0.15) a15[r] += S[k]
			if (H[k] == "cluster" && (C[k] == "medium" || C[k] == "high") && CS[k] >= 20) {
				z = e * sqrt(CS[k]); nz[r]++; sz[r] += z; szz[r] += z * z
				if (ae > 0.05) { b5[r] += S[k]; if (z <= 2 && z >= -2) b5n[r] += S[k] }
			}
		}
	}
	printf "Noise or bias (eval/noise-floor.sh): within 5%% / 15%%, the own-points floor against the\n"
	printf "estimates; z of the medium/high cluster estimates (mean, its standard error, sd); share of\n"
	printf "their samples beyond 5%% that lie within 2 sd of their noise\n"
	printf "  %-14s %9s %15s %15s %22s %9s\n", "program", "samples", "floor 5/15%", "achieved 5/15%", "z mean (se) sd", "noise"
	runs[++nr] = "all"
	for (j = 1; j <= nr; j++) {
		r = runs[j]; t = tot[r]
		mz = nz[r] ? sz[r] / nz[r] : 0; vz = nz[r] ? szz[r] / nz[r] - mz * mz : 0; vz = vz > 0 ? vz : 0
		printf "  %-14s %9d %6.1f%% %6.1f%% %6.1f%% %6.1f%%   %+5.2f (%4.2f) %4.2f %8.0f%%\n", r, t,
			100 * f5[r] / t, 100 * f15[r] / t, 100 * a5[r] / t, 100 * a15[r] / t,
			mz, nz[r] ? sqrt(vz / nz[r]) : 0, sqrt(vz), b5[r] ? 100 * b5n[r] / b5[r] : 100
	}
}' "$1"
