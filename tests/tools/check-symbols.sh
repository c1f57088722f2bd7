#!/usr/bin/env bash
# tests/tools/check-symbols.sh - symbols everywhere: vreplay's pairs across images by symbol.
#
# storeload is recorded in vreplay mode; add-samples then plants a store-load conflict of one of
# its loads with a store in libc (at a libc function's address + 8, the function taken from
# binutils' nm -D, an independent reader). vreplay must name that store "libc.so.6.1:F+0x8"
# (F one of the names nm gives the address) in its text pairs and as prior_symbol in JSON.
. "$(dirname "$0")/lib.sh"
add=$BUILD/tests/tools/add-samples
need "$axprof" "$bin/vreplay" "$wl/storeload" "$add"
command -v python3 >/dev/null || { echo "check-symbols: python3 needed"; exit 1; }
"$axprof" record -q --hosted --mode vreplay -d "$tmp/db" -- "$wl/storeload" >/dev/null \
	2>"$tmp/rec.err" || { bad "record" "$(head -c 300 "$tmp/rec.err")"; finish; exit 1; }
libc=$(sed -n 's/.*"image":"\([^"]*libc[^"]*\)".*/\1/p' <("$bin/vreplay" -d "$tmp/db" --json -n 0 |
	tr '{' '\n') | head -n 1)
[ -n "$libc" ] || libc=$("$axprof" report -d "$tmp/db" --json | tr '{' '\n' |
	sed -n 's/.*"image":"\([^"]*libc[^"]*\)".*/\1/p' | head -n 1)
func=$(alpha-linux-gnu-nm -D --defined-only "$libc" 2>/dev/null | awk '$2 == "T" && $3 ~ /^memset@/ { print $1 }')
load=$("$bin/vreplay" -d "$tmp/db" --json -n 0 --image storeload | tr '{' '\n' |
	sed -n 's/.*"load":"\(0x[0-9a-f]*\)".*/\1/p' | head -n 1)
if [ -z "$libc" ] || [ -z "$func" ] || [ -z "$load" ]; then
	bad "setup" "libc '$libc', memset '$func', a storeload load '$load'"
	finish
	exit 1
fi
prior=$(printf '0x%x' $((0x$func + 8)))
names=$(alpha-linux-gnu-nm -D --defined-only "$libc" | awk -v a="$func" '$1 == a { print $3 }' |
	sed 's/@.*//' | sort -u | tr '\n' ' ')
if ! "$add" "$tmp/db" storeload CONFLICT "$load=libc.so.6.1,$prior,7" 2>"$tmp/add.err"; then
	bad "add-samples CONFLICT" "$(cat "$tmp/add.err")"
	finish
	exit 1
fi
"$bin/vreplay" -d "$tmp/db" --image storeload -n 0 >"$tmp/vr.txt" 2>&1
"$bin/vreplay" -d "$tmp/db" --image storeload -n 0 --json >"$tmp/vr.json" 2>&1
found=
for n in $names; do
	if grep -q -- "<- libc.so.6.1:$n+0x8 " "$tmp/vr.txt" &&
		grep -q "\"prior_symbol\":\"libc.so.6.1:$n+0x8\"" "$tmp/vr.json"; then
		found=$n
	fi
done
if [ -n "$found" ]; then
	ok "vreplay: a store in libc is named libc.so.6.1:$found+0x8 (text and prior_symbol)"
else
	bad "vreplay partner in another image" "want one of: $names; got: $(grep -- "$load\|libc" "$tmp/vr.txt" | head -c 400)"
fi
finish
