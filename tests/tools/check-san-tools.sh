#!/usr/bin/env bash
# tests/tools/check-san-tools.sh - the tools themselves under ASan/UBSan/LSan (build/san-bin/).
#
# Runs check-cli.sh, check-golden.sh, check-json.sh, check-vreplay-replays.sh and
# tests/machine/confine.sh with AXPROF_BIN pointing at the sanitized tools, then the demo's reports
# (axprof report, vprof, vreplay; text and JSON), `axprof epoch --list` on a database whose
# `current` is invalid, with sanitized tools on a database recorded by the ordinary ones
# (recording on the hosted machine under ASan is slow), and run, stat and record of a tiny
# program with relative output paths. A finding stops the tool with exit status
# 99, which no check accepts (they expect 0, 1 or 2), so the check fails. ASan and LSan reports
# also go to log files (log_path), and the step fails
# when any was written, even where a check ignores a tool's status (gcc's UBSan runtime writes
# its reports to stderr whatever log_path says: those are caught by the status alone).
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
export BUILD
san=${AXPROF_SAN_BIN:-$BUILD/san-bin}
wl=$BUILD/workloads
for t in axprof vprof vreplay axprofd axeval; do
	if [ ! -x "$san/$t" ]; then
		echo "check-san-tools: $san/$t not built (make san-tools)" >&2
		exit 1
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-san.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/logs"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:exitcode=99:log_path=$tmp/logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=99"
export LSAN_OPTIONS="exitcode=99"
failed=()

# 1. existing end-to-end checks, with the sanitized tools
for c in check-cli.sh check-golden.sh check-json.sh check-vreplay-replays.sh; do
	echo "--- $c (sanitized tools)"
	if ! AXPROF_BIN=$san "$here/$c"; then
		failed+=("$c")
	fi
done
echo "--- tests/machine/confine.sh (sanitized tools)"
if ! AXPROF_BIN=$san "$top/tests/machine/confine.sh"; then
	failed+=("confine.sh")
fi

# 2. the demo's reports (tools/vprof/demo.sh) and the source-line, diff and export commands on
# databases recorded by the ordinary tools
echo "--- demo reports (sanitized tools)"
db=$tmp/demo-db
if ! "$BUILD/bin/axprof" record -q -d "$db" --mode vprof --period 400-440 --budget 8 --share 1/1 \
	--hotlist-m 32 -- "$wl/semiinv" >/dev/null ||
	! "$BUILD/bin/axprof" record -q -d "$db" --mode vreplay --period 5000-5500 --share 1/8 \
		-- "$wl/storeload" >/dev/null; then
	failed+=("demo record")
fi
# hotspots (-g, inlined code) for source lines, diff and export
hs=$tmp/hs-db
for sd in 1 2; do
	"$BUILD/bin/axprof" record -q -d "$hs$sd" --seed "$sd" --period 20000-22000 \
		-- "$wl/hotspots" 60 >/dev/null || failed+=("hotspots record")
done
demo=(
	"$san/axprof report -d ${hs}1 --lines"
	"$san/axprof annotate -d ${hs}1 hotspots hs_mix"
	"$san/axprof annotate -d ${hs}1 --json --source-dir $tmp hotspots hs_mix"
	"$san/axprof topstalls -d ${hs}1 --json"
	"$san/axprof diff ${hs}1 ${hs}2"
	"$san/axprof diff --json ${hs}1,${hs}2 ${hs}2,${hs}1"
	"$san/axprof export -d ${hs}1 --format pprof -o $tmp/p.pb.gz"
	"$san/axprof export -d ${hs}1 --format folded"
	"$san/axprof export -d ${hs}1 --format csv"
	"$san/axprof report -d $db"
	"$san/axprof report -d $db --procedures --image semiinv"
	"$san/axprof report -d $db --json"
	"$san/vprof -d $db --image semiinv --top 6"
	"$san/vprof -d $db --image semiinv --proc si_deref --latency"
	"$san/vprof -d $db --json"
	"$san/vreplay -d $db --image storeload --top 3"
	"$san/vreplay -d $db --json"
)
for c in "${demo[@]}"; do
	# shellcheck disable=SC2086
	if $c >"$tmp/o" 2>"$tmp/e"; then
		echo "ok    ${c#"$san"/}"
	else
		echo "FAIL  ${c#"$san"/}: exit $?: $(head -c 300 "$tmp/e")"
		failed+=("${c#"$san"/}")
	fi
done

# 3. `axprof epoch --list` when `current` is invalid: exit 1, and nothing leaked on the way
cp -r "$db" "$tmp/badcur"
echo garbage >"$tmp/badcur/current"
"$san/axprof" epoch --list -d "$tmp/badcur" >"$tmp/o" 2>"$tmp/e"
rc=$?
if [ "$rc" = 1 ] && [ -s "$tmp/e" ]; then
	echo "ok    axprof epoch --list, invalid current: exit 1"
else
	echo "FAIL  axprof epoch --list, invalid current: exit $rc: $(head -c 300 "$tmp/e")"
	failed+=("epoch --list invalid current")
fi

# 4. relative output paths for run, stat and record (tl_abs_path makes them absolute: the
# strings are freed, LSan finds no leak), on the hosted machine with the sanitized tools;
# exitcode 5 runs a few thousand instructions and exits with 5, which the tools pass through
rel=(
	"run --cpu ev5 --truth rel.truth -- $wl/exitcode 5:rel.truth"
	"stat -o rel.stat -- $wl/exitcode 5:rel.stat"
	"record -q -d rel-db --truth rec.truth -- $wl/exitcode 5:rec.truth"
)
for c in "${rel[@]}"; do
	out=${c##*:}
	c=${c%:*}
	# shellcheck disable=SC2086
	(cd "$tmp" && "$san/axprof" $c >"$tmp/o" 2>"$tmp/e")
	rc=$?
	if [ "$rc" = 5 ] && [ -s "$tmp/$out" ]; then
		echo "ok    axprof ${c%% -- *} (relative paths)"
	else
		echo "FAIL  axprof ${c%% -- *} (relative paths): exit $rc (want 5), $out $([ -s "$tmp/$out" ] || echo not) written: $(head -c 300 "$tmp/e")"
		failed+=("axprof ${c%% -- *}")
	fi
done

# 5. any sanitizer report, from any of the above
reports=$(find "$tmp/logs" -type f | sort)
if [ -n "$reports" ]; then
	for r in $reports; do
		echo "==== sanitizer report $(basename "$r")"
		head -n 40 "$r"
	done
	failed+=("$(echo "$reports" | wc -l) sanitizer report(s)")
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "check-san-tools: failing: ${failed[*]}"
	exit 1
fi
echo "check-san-tools: no sanitizer findings in the tools"
