#!/usr/bin/env bash
# eval/run-paths.sh - ProfileMe Figure 6: path reconstruction success vs history length (issue 14).
#
# Each workload (bzip2, gzip, lua and listwalk when built; PATH_WORKLOADS picks others) is
# recorded with `axprof record --mode profileme --cpu ev6 --truth` at PERIOD fetched
# instructions per pair (default 4000-4800: a few thousand pairs a run; each retired second of
# a pair keeps its true path in the truth file, 536 bytes) with pairs at W = 50 as in the
# paper, and `axeval --paths` compares, for 0..12 history bits, the true path with the
# reconstruction (analysis/an_paths.h) from (a) execution counts only, (b) history bits,
# (c) history bits + the paired sample, intra- and interprocedurally. The truth files stay in
# $BUILD/eval/paths/ (t-NAME; rerun `axeval --paths NAME PROG TRUTH` on them). Exit 1 only when
# a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
axprof=$BUILD/bin/axprof
axeval=$BUILD/bin/axeval
wl=$BUILD/workloads
period=${PERIOD:-4000-4800}
for f in "$axprof" "$axeval"; do
	[ -x "$f" ] || { echo "run-paths: $f not built (make all)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-paths-eval.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "line %d of the paths eval %x\n", i, i * 7919 }' \
	>"$tmp/text"
printf 'local s = 0 for i = 1, 20000 do if i %% 3 == 0 then s = s + i %% 7 else s = s - 1 end end print(s)\n' \
	>"$tmp/prog.lua"
out=$BUILD/eval/paths
mkdir -p "$out" || exit 1
status=0
runs=()
echo "run-paths: ProfileMe Figure 6 on --cpu ev6, interval $period fetched instructions, pairs W = 50"
for name in ${PATH_WORKLOADS:-bzip2 gzip lua listwalk}; do
	prog=$wl/$name
	[ -x "$prog" ] || { echo "run-paths: $name not built, skipped"; continue; }
	case $name in
	bzip2 | gzip) args=(-9 -c); in=$tmp/text ;;
	lua) args=("$tmp/prog.lua"); in=/dev/null ;;
	*) args=(); in=/dev/null ;;
	esac
	rm -rf "$tmp/db"
	if ! "$axprof" record -q --hosted --seed 11 --mode profileme --cpu ev6 --period "$period" \
		--pair-window 50 -d "$tmp/db" --truth "$out/t-$name" -- "$prog" "${args[@]}" \
		<"$in" >/dev/null 2>"$tmp/err"; then
		echo "run-paths: $name: record failed: $(head -c 300 "$tmp/err")"
		status=1
		continue
	fi
	runs+=("$name" "$prog" "$out/t-$name")
done
[ ${#runs[@]} -gt 0 ] || { echo "run-paths: no workload recorded"; exit 1; }
"$axeval" --paths "${runs[@]}" || status=1
exit $status
