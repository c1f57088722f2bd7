#!/usr/bin/env bash
# tests/daemon/check-kernel.sh - axprofd attributes kernel samples to the kernel and its modules
# (issue 21), from saved kallsyms/modules/notes, and the tools read those images.
#
# Driver records are made by hand (vs_abi.h VS_REC_SAMPLE, kernel mode) at pcs chosen in an
# invented kernel's kallsyms: axprofd --device FILE --once must attribute every one that falls in
# the kernel's text or a module, count the one that does not, and `axprof report --procedures`
# must show the procedure each pc lies in; a vmlinux of another kernel (build-id) is refused, as
# are damaged kallsyms, and the database stays clean under `axprof fsck`. Seconds.
# shellcheck source=../tools/lib.sh
. "$(dirname "$0")/../tools/lib.sh"
need "$axprof" "$bin/axprofd"
command -v python3 >/dev/null || { echo "check-kernel: python3 needed" >&2; exit 1; }

cat >"$tmp/kallsyms" <<'EOF'
fffffc0000310800 T vfs_read
fffffc0000310000 T _stext
fffffc0000310100 t entSys
fffffc0000310400 T sys_write
fffffc0000310c00 T _etext
fffffc0000400000 D jiffies
fffffc0001000000 t drv_irq	[drv]
fffffc0001000040 T drv_read	[drv]
EOF
printf 'drv 4096 0 - Live 0xfffffc0001000000 (O)\n' >"$tmp/modules"
# pc -> samples: entSys 3, sys_write 5 + 1, vfs_read 2, drv_read 4, and 7 outside everything.
python3 - "$tmp/rec.bin" <<'EOF'
import struct, sys
recs = [(0xfffffc0000310104, 3), (0xfffffc0000310404, 5), (0xfffffc00003107fc, 1),
        (0xfffffc0000310808, 2), (0xfffffc0001000044, 4), (0xfffffc0002000000, 7)]
with open(sys.argv[1], "wb") as f:
    for pc, n in recs:
        f.write(struct.pack("<HHIQIBBH", 1, 24, 42, pc, n, 0, 2, 0))
EOF

db=$tmp/db
if "$bin/axprofd" -d "$db" -f --once --no-proc-maps --json --device "$tmp/rec.bin" \
	--kallsyms "$tmp/kallsyms" --modules "$tmp/modules" >"$tmp/d.json" 2>"$tmp/d.err"; then
	ok "axprofd takes saved kallsyms and modules"
else
	bad "axprofd" "$(cat "$tmp/d.err")"
fi
key() { grep -o "\"$1\":[^,}]*" "$tmp/d.json" | cut -d: -f2; }
if [ "$(key kernel_samples)" = 22 ] && [ "$(key kernel_unknown_samples)" = 7 ] &&
	[ "$(key kernel_images)" = 2 ] && [ "$(key kernel_note)" = '""' ]; then
	ok "kernel samples: 15 of 22 attributed, 7 outside any kernel image counted"
else
	bad "kernel counters" "$(cat "$tmp/d.json")"
fi
"$axprof" report -d "$db" --procedures >"$tmp/r.txt" 2>&1
procs=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $1, $4, $5 }' "$tmp/r.txt" | LC_ALL=C sort -k2 | tr '\n' ';')
if [ "$procs" = "4 drv_read drv.ko;3 entSys vmlinux;6 sys_write vmlinux;2 vfs_read vmlinux;" ]; then
	ok "report --procedures: the kernel's and the module's procedures"
else
	bad "report --procedures" "$procs"
fi
if "$axprof" fsck -d "$db" >"$tmp/f.txt" 2>&1 && ! grep -q 'kernel' "$tmp/f.txt"; then
	ok "fsck: the symbol images do not disturb the database"
else
	bad "fsck" "$(cat "$tmp/f.txt")"
fi
# Damaged kallsyms: refused with the line, nothing stored.
head -c 60 "$tmp/kallsyms" >"$tmp/ks.bad"
if "$bin/axprofd" -d "$tmp/db2" -f --once --no-proc-maps --device "$tmp/rec.bin" \
	--kallsyms "$tmp/ks.bad" 2>"$tmp/e.txt" || ! grep -q 'ks.bad:3:' "$tmp/e.txt"; then
	bad "truncated kallsyms" "$(cat "$tmp/e.txt")"
else
	ok "truncated kallsyms refused, the line named"
fi
# A vmlinux whose build-id is not the running kernel's (this database's symbol image, with a
# notes file of another build-id) is refused.
vml=$(find "$db/kernel" -name vmlinux | head -1)
printf '\004\000\000\000\010\000\000\000\003\000\000\000GNU\000\001\002\003\004\005\006\007\010' \
	>"$tmp/notes"
if "$bin/axprofd" -d "$tmp/db3" -f --once --no-proc-maps --device "$tmp/rec.bin" \
	--vmlinux "$vml" --kernel-notes "$tmp/notes" 2>"$tmp/e.txt" || ! grep -q 'build-id' "$tmp/e.txt"; then
	bad "vmlinux of another kernel" "$(cat "$tmp/e.txt")"
else
	ok "a vmlinux of another kernel refused"
fi
# Its own build-id: taken, offsets are addresses.
if "$bin/axprofd" -d "$tmp/db4" -f --once --no-proc-maps --device "$tmp/rec.bin" --vmlinux "$vml" \
	--kallsyms "$tmp/kallsyms" >/dev/null 2>"$tmp/e.txt" &&
	"$axprof" report -d "$tmp/db4" --procedures | grep -q 'sys_write'; then
	ok "a vmlinux checked against kallsyms' _stext"
else
	bad "vmlinux with kallsyms" "$(cat "$tmp/e.txt")"
fi
finish
