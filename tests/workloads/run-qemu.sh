#!/usr/bin/env bash
# tests/workloads/run-qemu.sh - run the Alpha workloads and check them against golden files.
#
# Usage: tests/workloads/run-qemu.sh [--update] [NAME...]
#   NAME...   only these: workloads/<NAME>.c programs, and "bzip2" / "gzip" / "lua" for the real
#             programs (default: every workloads/*.c, then bzip2, gzip and lua)
#   --update  write the golden files from this run instead of comparing (review the diff!)
# Environment:
#   BUILD    build directory (default build); programs are $BUILD/workloads/<name>
#   RUNNER   the command that runs an Alpha program (default "qemu-alpha -L /usr/alpha-linux-gnu").
#            Swap it to check another Alpha implementation against the same golden files, e.g.
#            RUNNER="build/bin/axprof run --".
#   TIMEOUT  seconds allowed for one program run (default 300)
#
# For each workload: stdout must equal tests/workloads/golden/<name>.out, the exit status
# golden/<name>.status, and stderr golden/<name>.err where that file exists. The golden files were
# made under qemu-alpha (QEMU 7.2, Debian 12) with each workload's default argument.
# Then, if `make workloads` has built $BUILD/workloads/bzip2 and gzip (else "skipped"): compress a
# generated file under RUNNER, check the round trip, and check the compressed bytes equal the host's
# /usr/bin/bzip2 -c and gzip -n -c output for the same flags. And if it built $BUILD/workloads/lua:
# `lua workloads/lua/mix.lua 1000` must print golden/lua-mix.out (made under qemu-alpha).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
golden=$here/golden
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
RUNNER=${RUNNER:-qemu-alpha -L /usr/alpha-linux-gnu}
TIMEOUT=${TIMEOUT:-300}
read -r -a runner <<<"$RUNNER"

update=0
names=()
real=()
for a in "$@"; do
	case "$a" in
	--update) update=1 ;;
	-h | --help)
		awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
		exit 0
		;;
	-*)
		echo "run-qemu: unknown option '$a' (try --help)" >&2
		exit 2
		;;
	bzip2 | gzip | lua) real+=("$a") ;;
	*) names+=("$a") ;;
	esac
done
if [ $# = 0 ] || { [ ${#names[@]} = 0 ] && [ ${#real[@]} = 0 ]; }; then
	for f in "$top"/workloads/*.c; do
		names+=("$(basename "$f" .c)")
	done
	real=(bzip2 gzip lua)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-wl.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# wl_args NAME - the arguments a workload is run with (its defaults, except where it needs a place).
wl_args() {
	case "$1" in
	syscalls)
		mkdir -p "$tmp/scratch"
		echo "$tmp/scratch"
		;;
	esac
}

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

for n in ${names[@]+"${names[@]}"}; do
	bin=$BUILD/workloads/$n
	if [ ! -x "$bin" ]; then
		bad "$n" "$bin not built (run make all)"
		continue
	fi
	args=$(wl_args "$n")
	# shellcheck disable=SC2086 # $args is one word or none
	timeout "$TIMEOUT" "${runner[@]}" "$bin" $args >"$tmp/$n.out" 2>"$tmp/$n.err"
	echo $? >"$tmp/$n.status"
	if [ "$update" = 1 ]; then
		cp "$tmp/$n.out" "$golden/$n.out"
		cp "$tmp/$n.status" "$golden/$n.status"
		if [ -s "$tmp/$n.err" ]; then
			cp "$tmp/$n.err" "$golden/$n.err"
		else
			rm -f "$golden/$n.err"
		fi
		echo "wrote golden/$n.{out,status$([ -s "$tmp/$n.err" ] && echo ,err)} (status $(cat "$tmp/$n.status"))"
		continue
	fi
	if [ ! -f "$golden/$n.out" ] || [ ! -f "$golden/$n.status" ]; then
		bad "$n" "no golden files (make them with: $0 --update $n)"
		continue
	fi
	why=""
	if ! cmp -s "$tmp/$n.status" "$golden/$n.status"; then
		why="exit status $(cat "$tmp/$n.status"), expected $(cat "$golden/$n.status")"
	fi
	if ! cmp -s "$tmp/$n.out" "$golden/$n.out"; then
		why="${why:+$why; }stdout differs"
		diff -u "$golden/$n.out" "$tmp/$n.out" | head -n 20
	fi
	if [ -f "$golden/$n.err" ] && ! cmp -s "$tmp/$n.err" "$golden/$n.err"; then
		why="${why:+$why; }stderr differs"
		diff -u "$golden/$n.err" "$tmp/$n.err" | head -n 10
	fi
	if [ -n "$why" ]; then
		bad "$n" "$why"
		[ -s "$tmp/$n.err" ] && [ ! -f "$golden/$n.err" ] && head -n 5 "$tmp/$n.err"
	else
		ok "$n"
	fi
done
[ "$update" = 1 ] && exit 0

# --- real programs from Debian sources (make workloads) -------------------------------------------
# make_input FILE - a deterministic mix of text lines, repeats and binary bytes (about 200 KB).
make_input() {
	{
		awk 'BEGIN {
			for (i = 0; i < 3000; i++)
				printf "%05d the quick brown fox %d jumps over %x lazy dogs\n", i, (i * i) % 977, i * 2654435761 % 65536
		}'
		for i in 1 2 3 4; do
			printf 'repeated block %d: ' "$i"
			head -c 4000 "$top/workloads/copy.c"
		done
		# Bytes that do not depend on the build: a fixed pseudo-random stream.
		awk 'BEGIN { x = 12345; for (i = 0; i < 40000; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%c", int(x / 65536) % 256 } }'
	} >"$1"
}

want_real() {
	case " ${real[*]-} " in *" $1 "*) return 0 ;; esac
	return 1
}
bz=$BUILD/workloads/bzip2
gz=$BUILD/workloads/gzip
if [ ${#real[@]} = 0 ]; then
	:
elif [ ! -x "$bz" ] || [ ! -x "$gz" ]; then
	echo "skipped: bzip2/gzip round trip ($BUILD/workloads/bzip2 and gzip not built; run make workloads)"
else
	in=$tmp/input.bin
	LC_ALL=C make_input "$in"
	# compress_check NAME BIN HOSTPROG FLAGS... - round trip under RUNNER, bytes equal to the host's.
	compress_check() {
		local name=$1 bin=$2 host=$3 tag
		shift 3
		tag="$name $*"
		if ! timeout "$TIMEOUT" "${runner[@]}" "$bin" "$@" -c <"$in" >"$tmp/c.out" 2>"$tmp/c.err"; then
			bad "$tag" "compression failed: $(head -c 200 "$tmp/c.err")"
			return
		fi
		if ! timeout "$TIMEOUT" "${runner[@]}" "$bin" -d -c <"$tmp/c.out" >"$tmp/d.out" 2>"$tmp/d.err"; then
			bad "$tag" "decompression failed: $(head -c 200 "$tmp/d.err")"
			return
		fi
		if ! cmp -s "$in" "$tmp/d.out"; then
			bad "$tag" "round trip changed the data"
			return
		fi
		if command -v "$host" >/dev/null 2>&1; then
			"$host" "$@" -c <"$in" >"$tmp/h.out"
			if ! cmp -s "$tmp/c.out" "$tmp/h.out"; then
				bad "$tag" "compressed bytes differ from the host's $host $* -c"
				return
			fi
			ok "$tag (round trip; bytes equal host $host)"
		else
			ok "$tag (round trip; host $host missing, bytes not compared)"
		fi
	}
	if want_real bzip2; then
		compress_check bzip2 "$bz" bzip2 -1
		compress_check bzip2 "$bz" bzip2 -9
	fi
	if want_real gzip; then
		compress_check gzip "$gz" gzip -n -1
		compress_check gzip "$gz" gzip -n -6
		compress_check gzip "$gz" gzip -n -9
	fi
fi

lua=$BUILD/workloads/lua
if want_real lua; then
	if [ ! -x "$lua" ]; then
		echo "skipped: lua ($lua not built; run make workloads)"
	elif ! timeout "$TIMEOUT" "${runner[@]}" "$lua" "$top/workloads/lua/mix.lua" 1000 \
		>"$tmp/lua.out" 2>"$tmp/lua.err"; then
		bad "lua mix.lua" "failed: $(head -c 200 "$tmp/lua.err")"
	elif ! cmp -s "$tmp/lua.out" "$golden/lua-mix.out"; then
		bad "lua mix.lua" "output differs from golden/lua-mix.out: $(head -c 200 "$tmp/lua.out")"
	else
		ok "lua mix.lua 1000 (output equals golden/lua-mix.out)"
	fi
fi

echo "run-qemu: runner '$RUNNER': $passed ok, $failed failing${failures[*]:+ (${failures[*]})}"
[ "$failed" = 0 ]
