#!/usr/bin/env bash
# tools/vprof/demo.sh - `make demo`: profile semiinv and storeload on the hosted machine, show reports.
#
# Records workloads/semiinv under --mode vprof (every sample interpreted, a short period, so the
# planted values show up in seconds) and workloads/storeload under --mode vreplay into
# $BUILD/demo-db (storeload on the out-of-order 21264 model, whose replay traps fill vreplay's
# replays column), then prints axprof report (images, procedures), vprof (the value profile of the
# planted procedures, load latencies, the most semi-invariant instructions) and vreplay (the
# conflicting store-load pairs), next to the planted values and pairs they should find.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
bin=$BUILD/bin
wl=$BUILD/workloads
db=$BUILD/demo-db

banner() {
	printf '\n\033[1m==== %s\033[0m\n\n' "$*"
}
rm -rf "$db" "$db-pme"
banner "axprof record --mode vprof: semiinv (planted semi-invariant values)"
"$bin/axprof" record -d "$db" --mode vprof --period 400-440 --budget 8 --share 1/1 --hotlist-m 32 \
	-- "$wl/semiinv"
banner "axprof record --mode vreplay --cpu ev6: storeload (planted store-load conflicts; the 21264's replay traps sampled beside cycles)"
"$bin/axprof" record -d "$db" --mode vreplay --cpu ev6 --period 5000-5500 --share 1/8 -- "$wl/storeload"

banner "axprof report (dcpiprof's view: images)"
"$bin/axprof" report -d "$db"
banner "axprof report --procedures --image semiinv"
"$bin/axprof" report -d "$db" --procedures --image semiinv

banner "vprof --image semiinv --top 6 (value profiles, 'A value profile' slide)"
"$bin/vprof" -d "$db" --image semiinv --top 6
banner "vprof --image semiinv --proc si_deref --latency ('Load latencies' slide)"
"$bin/vprof" -d "$db" --image semiinv --proc si_deref --latency
banner "the planted values (workloads/semiinv.planted)"
grep -v '^#' "$top/workloads/semiinv.planted"

banner "vreplay --image storeload --top 3 ('vreplay output' slide: replays from the EV6's counter, conflicts from the interpreter)"
"$bin/vreplay" -d "$db" --image storeload --top 3
banner "the planted pairs (workloads/storeload.planted)"
grep -v '^#' "$top/workloads/storeload.planted"

banner "axprof record --mode profileme --cpu ev6: copy (ProfileMe instruction samples, MICRO'97)"
"$bin/axprof" record -d "$db-pme" --mode profileme --cpu ev6 --period 5000-6000 -- "$wl/copy"
banner "axprof profileme --image copy -n 10 (per instruction, procedure and image)"
"$bin/axprof" profileme -d "$db-pme" --image copy -n 10
printf '\nThe database is %s (axprof report -d %s ...); ProfileMe: %s-pme.\n' "$db" "$db" "$db"
