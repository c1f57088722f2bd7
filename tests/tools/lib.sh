# tests/tools/lib.sh - shared by the tests/tools/*.sh checks: paths, tallies, a temp directory.
# shellcheck shell=bash
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
# AXPROF_BIN: another directory of the same tools (check-san-tools.sh: build/san-bin).
bin=${AXPROF_BIN:-$BUILD/bin}
axprof=$bin/axprof
wl=$BUILD/workloads
passed=0
failed=0
failures=()
ok() {
	passed=$((passed + 1))
	echo "ok    $1"
}
bad() {
	failed=$((failed + 1))
	failures+=("$1")
	echo "FAIL  $1: $2"
}
need() {
	for f in "$@"; do
		if [ ! -x "$f" ]; then
			echo "$(basename "$0"): $f not built (make all)" >&2
			exit 1
		fi
	done
}
finish() {
	echo "$(basename "$0"): $passed ok, $failed failing${failures[*]:+ (${failures[*]})}"
	[ "$failed" = 0 ]
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-tools.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
