#!/usr/bin/env bash
# tests/workloads/check-planted.sh - check workloads/*.planted against the sources and the binaries.
#
# Usage: tests/workloads/check-planted.sh     (BUILD in the environment, default build;
#                                              AOBJDUMP default alpha-linux-gnu-objdump)
# The value profiler and the replay-trap diagnosis are graded against workloads/semiinv.planted and
# workloads/storeload.planted. This keeps those files true:
#   - every planted line's LINE holds the marker "PLANT <id>" in the source, and every marker in the
#     source is listed (nothing planted is forgotten);
#   - in the -g binary, the OCC-th instruction with mnemonic INSN in FUNCTION (address order) comes
#     from that source line, so a tool that maps PCs to lines finds the planted instruction;
#   - functions and "sym:NAME" values exist in the symbol table.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
AOBJDUMP=${AOBJDUMP:-alpha-linux-gnu-objdump}
ANM=${ANM:-alpha-linux-gnu-nm}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/axprof-planted.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
errors=0
err() {
	errors=$((errors + 1))
	echo "check-planted: $*"
}

# insn_table BIN - lines "FUNCTION MNEMONIC OCC LINE" for every instruction of BIN.
insn_table() {
	"$AOBJDUMP" -dl --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <[^>]+>:$/ {
			fn = $2; gsub(/[<>:]/, "", fn); line = "?"; delete occ; next
		}
		/^\/.*:[0-9]+( \(discriminator [0-9]+\))?$/ {
			s = $1; sub(/.*:/, "", s); line = s; next
		}
		/^ +[0-9a-f]+:\t/ {
			split($0, f, "\t"); m = f[2]; sub(/ .*/, "", m)
			if (m == "") next
			occ[m]++
			print fn, m, occ[m], line
		}'
}

# marker_ok SRC LINE PATTERN - source line LINE contains the extended regex PATTERN.
marker_ok() {
	sed -n "${2}p" "$1" | grep -Eq "$3"
}

# insn_at TABLE FUNCTION INSN OCC - the source line of that instruction, or nothing.
insn_at() {
	awk -v fn="$2" -v m="$3" -v o="$4" '$1 == fn && $2 == m && $3 == o { print $4; exit }' "$1"
}

check_insn() { # TABLE FILE ID FUNCTION INSN OCC LINE
	local got
	got=$(insn_at "$1" "$4" "$5" "$6")
	if [ -z "$got" ]; then
		err "$2: $3: no $5 number $6 in $4"
	elif [ "$got" != "$7" ]; then
		err "$2: $3: $5 number $6 in $4 comes from line $got, the file says $7"
	fi
}

have_sym() { # SYMS NAME
	grep -Eq " [A-Za-z] $2\$" "$1"
}

# --- semiinv ----------------------------------------------------------------------------------------
check_semiinv() {
	local src=$top/workloads/semiinv.c pl=$top/workloads/semiinv.planted bin=$BUILD/workloads/semiinv
	local id fn line insn occ what value share ids=" "
	[ -x "$bin" ] || {
		err "$bin not built (run make all)"
		return
	}
	insn_table "$bin" >"$tmp/si.tab"
	"$ANM" "$bin" >"$tmp/si.syms"
	while read -r id fn line insn occ what value share; do
		case "$id" in '' | '#'*) continue ;; esac
		ids="$ids$id "
		[ -n "$share" ] || err "semiinv.planted: $id: too few fields"
		marker_ok "$src" "$line" "PLANT( [a-z_]+)* $id( |\*)" ||
			err "semiinv.planted: $id: line $line of semiinv.c has no 'PLANT $id' marker"
		have_sym "$tmp/si.syms" "$fn" || err "semiinv.planted: $id: no function $fn in $bin"
		case "$value" in sym:*)
			have_sym "$tmp/si.syms" "${value#sym:}" ||
				err "semiinv.planted: $id: no symbol ${value#sym:} in $bin"
			;;
		esac
		case "$what" in result | address | a0@entry | v0@return) ;;
		*) err "semiinv.planted: $id: unknown WHAT '$what'" ;;
		esac
		[ "$insn" = - ] || check_insn "$tmp/si.tab" semiinv.planted "$id" "$fn" "$insn" "$occ" "$line"
	done <"$pl"
	# shellcheck disable=SC2013 # ids are single words
	for id in $(grep -o 'PLANT [a-z_ ]*' "$src" | sed 's/^PLANT //'); do
		case "$ids" in *" $id "*) ;; *) err "semiinv.c marks '$id' but semiinv.planted does not list it" ;; esac
	done
}

# --- storeload --------------------------------------------------------------------------------------
check_storeload() {
	local src=$top/workloads/storeload.c pl=$top/workloads/storeload.planted bin=$BUILD/workloads/storeload
	local id kind fn sl si so ll li lo bytes order ids=" "
	[ -x "$bin" ] || {
		err "$bin not built (run make all)"
		return
	}
	insn_table "$bin" >"$tmp/sl.tab"
	"$ANM" "$bin" >"$tmp/sl.syms"
	while read -r id kind fn sl si so ll li lo bytes order; do
		case "$id" in '' | '#'*) continue ;; esac
		ids="$ids$id "
		[ -n "$order" ] || err "storeload.planted: $id: too few fields"
		case "$kind" in conflict | noconflict) ;; *) err "storeload.planted: $id: bad KIND '$kind'" ;; esac
		case "$bytes" in '' | *[!0-9]*) err "storeload.planted: $id: BYTES '$bytes' is not a count" ;; esac
		case "$order" in store-first | load-first | loop-carried) ;;
		*) err "storeload.planted: $id: bad ORDER '$order'" ;;
		esac
		marker_ok "$src" "$sl" "PLANT $id store" ||
			err "storeload.planted: $id: line $sl of storeload.c has no 'PLANT $id store'"
		marker_ok "$src" "$ll" "PLANT $id load" ||
			err "storeload.planted: $id: line $ll of storeload.c has no 'PLANT $id load'"
		have_sym "$tmp/sl.syms" "$fn" || err "storeload.planted: $id: no function $fn in $bin"
		check_insn "$tmp/sl.tab" storeload.planted "$id" "$fn" "$si" "$so" "$sl"
		check_insn "$tmp/sl.tab" storeload.planted "$id" "$fn" "$li" "$lo" "$ll"
	done <"$pl"
	# shellcheck disable=SC2013 # ids are single words
	for id in $(grep -o 'PLANT [a-z_]* \(store\|load\)' "$src" | awk '{ print $2 }' | sort -u); do
		case "$ids" in *" $id "*) ;; *) err "storeload.c marks '$id' but storeload.planted does not list it" ;; esac
	done
}

check_semiinv
check_storeload
if [ "$errors" != 0 ]; then
	echo "check-planted: $errors problems"
	exit 1
fi
echo "check-planted: semiinv.planted and storeload.planted agree with the sources and binaries"
