#!/usr/bin/env bash
# tests/tools/check-identity.sh - profile files name their image and epoch; a manifest lists them.
#
# A recorded database is damaged the ways issue 12 (defect 2) found: CYCLES.prof swapped between
# two image directories, one deleted, one copied over from another epoch. report, vprof, vreplay
# and merge must each exit 1 naming the file, instead of crediting one image's samples to another
# or reading a missing file as no samples.
. "$(dirname "$0")/lib.sh"
need "$axprof" "$bin/vprof" "$bin/vreplay" "$wl/semiinv"

db=$tmp/db
"$axprof" record -q --hosted -d "$db" --mode vprof --period 20000-22000 --share 1/1 -- \
	"$wl/semiinv" 40 >/dev/null 2>"$tmp/rec.err" || bad "record" "$(head -c 300 "$tmp/rec.err")"
cp -a "$db/epoch-1" "$tmp/orig"
mapfile -t keys < <(cd "$db/epoch-1" && for k in */; do [ -f "$k/CYCLES.prof" ] && echo "${k%/}"; done)
[ "${#keys[@]}" -ge 2 ] || bad "record" "fewer than two images with CYCLES.prof"
k0=${keys[0]}
k1=${keys[1]}

restore() {
	rm -rf "$db/epoch-1"
	cp -a "$tmp/orig" "$db/epoch-1"
}

# expect_damage WHAT PATTERN [EPOCH]: every reader, and a merge of the epoch into a new database,
# exits 1 with a message matching PATTERN.
expect_damage() {
	local what=$1 pat=$2 e=${3:-1} t rc
	for t in report vprof vreplay merge; do
		case $t in
		report) "$axprof" report -d "$db" --epoch "$e" ;;
		merge) "$axprof" merge -d "$tmp/m-$RANDOM" --epoch "$e" "$db" ;;
		*) "$bin/$t" -d "$db" --epoch "$e" ;;
		esac >/dev/null 2>"$tmp/err" </dev/null
		rc=$?
		if [ "$rc" = 1 ] && grep -q -e "$pat" "$tmp/err"; then
			ok "$what: $t exits 1 naming the file"
		else
			bad "$what: $t" "exit $rc: $(head -c 300 "$tmp/err")"
		fi
	done
}

for t in "$axprof report" "$bin/vprof" "$bin/vreplay"; do
	if $t -d "$db" >/dev/null 2>"$tmp/err"; then
		ok "intact: ${t#*/bin/} exits 0"
	else
		bad "intact: ${t#*/bin/}" "$(head -c 300 "$tmp/err")"
	fi
done

mv "$db/epoch-1/$k0/CYCLES.prof" "$tmp/c0"
mv "$db/epoch-1/$k1/CYCLES.prof" "$db/epoch-1/$k0/CYCLES.prof"
mv "$tmp/c0" "$db/epoch-1/$k1/CYCLES.prof"
expect_damage "swapped CYCLES.prof" "CYCLES.prof: .*claims image $k1, epoch 1, but lies in image $k0"
restore

rm "$db/epoch-1/$k1/CYCLES.prof"
expect_damage "deleted CYCLES.prof" "$k1/CYCLES.prof: .*CYCLES.prof listed in epoch-1/manifest"
restore

rm -r "${db:?}/epoch-1/$k1"
expect_damage "deleted image directory" "image $k1: .* listed in epoch-1/manifest"
restore

# A second epoch of the same run: its files copied over epoch 1's are epoch 2's.
"$axprof" epoch -d "$db" >/dev/null || bad "axprof epoch" "failed"
"$axprof" record -q --hosted -d "$db" --mode vprof --period 20000-22000 --share 1/1 -- \
	"$wl/semiinv" 40 >/dev/null 2>"$tmp/rec.err" || bad "record epoch 2" "$(head -c 300 "$tmp/rec.err")"
cp "$db/epoch-2/$k0/CYCLES.prof" "$db/epoch-1/$k0/CYCLES.prof"
expect_damage "CYCLES.prof from epoch 2 in epoch 1" "claims image $k0, epoch 2, but lies in image $k0, epoch 1" 1

finish
