#!/usr/bin/env bash
# tests/pdb/pdb_crash.sh - crash safety: SIGKILL a profile-database writer at random instants.
#
# build/tests/pdb/pdb_stress writes the same increment into a database over and over and acks
# each completed flush (every file fsynced and renamed) on a pipe. This script kills it (SIGKILL)
# at a random moment, PDB_KILLS times (default 60), restarting it on the same database each time,
# and after every kill runs the checker: every file must be readable and hold a whole number of
# increments (no torn merge), at least what it held before plus the flushes acked since, and at
# most one more (the flush in progress). The database lives under $PDB_CRASH_DIR (default $TMPDIR
# or /tmp: a real disk, real fsyncs). The whole run stays well under 30 s.
set -u
BUILD=${BUILD:-build}
stress=$BUILD/tests/pdb/pdb_stress
kills=${PDB_KILLS:-60}
base=$(mktemp -d "${PDB_CRASH_DIR:-${TMPDIR:-/tmp}}/pdbcrash.XXXXXX") || exit 1
db=$base/db
state=$base/state
trap 'rm -rf "$base"' EXIT

[ -x "$stress" ] || { echo "pdb_crash: $stress not built (make tests)"; exit 1; }

kmax=0 acked_total=0 partial_kills=0 start=$SECONDS
for ((i = 1; i <= kills; i++)); do
	coproc W { exec "$stress" write "$db"; }
	wpid=$W_PID
	exec {rfd}<&"${W[0]}"
	# Kill anywhere in the first few flushes: at start-up, inside a flush, between flushes.
	sleep "0.$(printf '%03d' $((RANDOM % 200)))"
	kill -KILL "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	acked=0
	while read -r -u "$rfd" line; do acked=$line; done
	exec {rfd}<&-
	if ! out=$("$stress" check "$db" "$state" "$acked"); then
		echo "pdb_crash: kill $i, after $acked acked flushes: inconsistent database"
		exit 1
	fi
	read -r _ kmax partial <<<"$out"
	[ "$partial" != 0 ] && partial_kills=$((partial_kills + 1))
	acked_total=$((acked_total + acked))
done
# Opening the database for writing sweeps the temporary files the killed writers left.
temps=$(find "$db" -name '.*.tmp.*' | wc -l)
"$stress" open "$db" || exit 1
left=$(find "$db" -name '.*.tmp.*' | wc -l)
if [ "$left" != 0 ]; then
	echo "pdb_crash: $left temporary files left after pdb_open(create)"
	exit 1
fi
"$stress" check "$db" "$state" 0 >/dev/null || exit 1
echo "pdb_crash: $kills kills in $((SECONDS - start)) s, $acked_total flushes acked, up to $kmax" \
	"stored; $partial_kills kills landed inside a flush; $temps temporary files swept;" \
	"every file consistent"
