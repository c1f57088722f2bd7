#!/usr/bin/env bash
# tests/layers/check-layers.sh - `make check-layers` passes on the tree and fails on broken layers.
#
# Copies the tracked sources into a scratch tree, checks it as it is (must pass), then plants one
# violation at a time and requires scripts/check-layers to fail naming the file and line:
#   an include that goes up a layer (analysis including the daemon's header),
#   a module including another's private header (daemon including pdb_int.h),
#   an include across to a module not depended on (isa including a machine header).
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z -- '*.c' '*.h' '*module.mk' | tar --null -T - -cf - | tar -xf - -C "$tmp"

fail=0
if ! out=$(scripts/check-layers "$tmp" 2>&1); then
	echo "FAIL the tree as it is breaks the layers:"
	echo "$out"
	fail=1
else
	echo "ok   clean tree: $out"
fi

plant() { # FILE LINE-TO-INSERT EXPECTED-WORDS
	local f=$1 line=$2 want=$3 out rc
	cp "$tmp/$f" "$tmp/$f.orig"
	sed -i "0,/^#include/s//$line\n#include/" "$tmp/$f"
	set +e
	out=$(scripts/check-layers "$tmp" 2>&1)
	rc=$?
	set -e
	mv "$tmp/$f.orig" "$tmp/$f"
	if [ "$rc" = 1 ] && grep -q "^$f:[0-9]*: .*$want" <<<"$out"; then
		echo "ok   $f with '$line' rejected: $(grep "^$f:" <<<"$out" | head -n1)"
	else
		echo "FAIL $f with '$line': exit $rc, expected 1 and a line naming $f with '$want':"
		echo "$out"
		fail=1
	fi
}
plant analysis/an_cfg.c '#include "dmn_lib.h"' 'does not depend on'
plant daemon/dmn_merge.c '#include "pdb_int.h"' 'private header of module pdb'
plant isa/isa_dis.c '#include "mach.h"' 'does not depend on'
exit $fail
