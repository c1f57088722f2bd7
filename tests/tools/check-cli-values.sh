#!/usr/bin/env bash
# tests/tools/check-cli-values.sh - option values and arguments the tools must refuse (issue 12, defect 9).
#
# Negative counts are refused (exit 2, the option named) instead of wrapping to huge numbers;
# --proc of a procedure no image has is an error (exit 1, the name given); a missing --sysroot is
# an error (exit 2), not a silent fall-back to the host's loader; record of a missing program
# makes no database; a database is not merged into itself (exit 1); getopt's own messages name
# "axprof CMD".
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$wl/exitcode" "$wl/semiinv"

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS with PATTERN (grep -E) on stderr.
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$pat" ] || grep -Eq -- "$pat" "$tmp/e"; }; then
		ok "$name: exit $want"
	else
		bad "$name" "exit $rc (want $want): $(head -c 300 "$tmp/e")"
	fi
}

db=$tmp/db
"$axprof" record -q --mode vprof -d "$db" -- "$wl/semiinv" 5 >/dev/null 2>"$tmp/e" ||
	bad "record --mode vprof semiinv" "$(cat "$tmp/e")"

expect "vprof --min-n -1" 2 "^vprof: --min-n .*'-1'" "$bin/vprof" -d "$db" --min-n -1
expect "vprof --min-n 18446744073709551616" 2 "^vprof: --min-n" \
	"$bin/vprof" -d "$db" --min-n 18446744073709551616
expect "vprof --min-n 3" 0 "" "$bin/vprof" -d "$db" --min-n 3
expect "record --seed -1" 2 "^axprof record: --seed .*'-1'" \
	"$axprof" record -d "$tmp/seeddb" --seed -1 -- "$wl/exitcode" 7
expect "run --max-insns -1" 2 "^axprof run: --max-insns .*'-1'" \
	"$axprof" run --max-insns -1 "$wl/exitcode" 7
expect "run --max-insns 1000" 0 "stopped after 1000 instructions" \
	"$axprof" run --max-insns 1000 "$wl/exitcode" 7
for t in vprof vreplay; do
	expect "$t --proc nosuch" 1 "^$t: .*'nosuch'" "$bin/$t" -d "$db" --proc nosuch
	expect "$t --image semiinv --proc nosuch" 1 "^$t: .*'nosuch'" \
		"$bin/$t" -d "$db" --image semiinv --proc nosuch
	expect "$t --proc main" 0 "" "$bin/$t" -d "$db" --proc main
done
expect "run --sysroot /nonexistent" 2 "^axprof run: --sysroot $tmp/nonexistent: No such file" \
	"$axprof" run --sysroot "$tmp/nonexistent" "$wl/exitcode" 7
expect "run --sysroot FILE" 2 "^axprof run: --sysroot .*: not a directory" \
	"$axprof" run --sysroot "$wl/exitcode" "$wl/exitcode" 7
expect "record --sysroot /nonexistent" 2 "^axprof record: --sysroot $tmp/nonexistent" \
	"$axprof" record -d "$tmp/srdb" --sysroot "$tmp/nonexistent" -- "$wl/exitcode" 7
[ ! -e "$tmp/srdb" ] && ok "record --sysroot /nonexistent: no database made" ||
	bad "record --sysroot /nonexistent" "made $tmp/srdb"
expect "record of a missing program" 127 "^axprof record: cannot run $tmp/nosuch:" \
	"$axprof" record -d "$tmp/nodb" -- "$tmp/nosuch"
[ ! -e "$tmp/nodb" ] && ok "record of a missing program: no database made" ||
	bad "record of a missing program" "made $tmp/nodb"
expect "merge a database into itself" 1 "^axprof merge: .*itself" "$axprof" merge -d "$db" "$db"
ln -s "$db" "$tmp/alias"
expect "merge a database into itself (by a symbolic link)" 1 "^axprof merge: .*itself" \
	"$axprof" merge -d "$db" "$tmp/alias"
for c in record report merge epoch run stat flush annotate topstalls cfg dis; do
	expect "axprof $c --bogus" 2 "^axprof $c: (unrecognized|unknown) option '--bogus'" \
		"$axprof" "$c" --bogus
done
finish
