#!/usr/bin/env bash
# tests/machine/confine.sh - `axprof run/record --confine DIR`: the guest cannot leave DIR.
#
# tests/machine/confine/escape.c (an Alpha program) tries /etc/shadow, /etc/passwd, "../" past
# the root, relative and absolute symbolic links pointing out, a descriptor-relative "..",
# chdir above the root, creating a file through a symbolic link that points out, and execve of
# the host's /bin/sh and of a host program copied inside DIR. Confined, only the names inside
# DIR work (and execve of an Alpha program, which stays confined); without --confine, each
# attempt does what the host allows (the behaviour is unchanged). Then option errors.
. "$(dirname "$0")/../tools/lib.sh" # BUILD, top, ok/bad/finish, $tmp
axprof=${AXPROF_BIN:-$BUILD/bin}/axprof
case "$axprof" in /*) ;; *) axprof=$PWD/$axprof ;; esac # the runs below cd
ACC=${ACC:-alpha-linux-gnu-gcc}
if ! command -v "$ACC" >/dev/null 2>&1; then
	echo "confine.sh: skipped ($ACC missing)"
	exit 0
fi
D=$tmp/D
mkdir -p "$D/sub"
echo inside >"$D/inside.txt"
ln -s ../../../../../../../../../../etc/passwd "$D/sub/rel-out"
ln -s /etc/passwd "$D/sub/abs-out"
ln -s "$tmp/planted" "$D/sub/plant"
cp /bin/sh "$D/sub/hostprog"
# A sysroot of our own (the test tries to change it): the loader, libc and a probe file.
SYSROOT=${SYSROOT:-/usr/alpha-linux-gnu}
S=$tmp/sysroot
mkdir -p "$S/lib"
cp "$SYSROOT/lib/ld-linux.so.2" "$SYSROOT/lib/libc.so.6.1" "$S/lib/"
echo probe >"$S/lib/probe"
if ! "$ACC" -O2 -o "$D/escape" "$here/confine/escape.c" 2>"$tmp/cc"; then
	echo "FAIL  escape.c does not compile: $(head -c 300 "$tmp/cc")"
	exit 1
fi

# line WHAT FILE: the result the program printed for WHAT ("" if none)
line() { sed -n "s|^$1: ||p" "$2" | head -n 1; }
expect() { # FILE WHAT WANT LABEL
	local got
	got=$(line "$2" "$1")
	if [ "$got" = "$3" ]; then ok "$4: $2 -> $3"; else bad "$4: $2" "got '$got', want '$3'"; fi
}
refused() { # FILE WHAT LABEL: anything but ok (ENOENT or EACCES)
	local got
	got=$(line "$2" "$1")
	case "$got" in ENOENT | EACCES) ok "$3: $2 refused ($got)" ;; *) bad "$3: $2" "got '$got'" ;; esac
}

# --- confined ---------------------------------------------------------------------------------
(cd "$D/sub" && "$axprof" run --sysroot "$S" --confine "$D" -- ../escape confined >"$tmp/c.out" 2>"$tmp/c.err")
s=$?
if [ "$s" = 0 ]; then ok "confined run exits 0"; else
	bad "confined run" "status $s: $(head -c 300 "$tmp/c.err")"; fi
expect "$tmp/c.out" inside ok confined
for w in /etc/shadow /etc/passwd dotdot rel-symlink abs-symlink "stat abs-symlink" \
	"access /etc/passwd" "openat dirfd dotdot" "etc/passwd from /" "create through symlink" \
	"execve /bin/sh" "child /etc/passwd" "sysroot create" "sysroot unlink"; do
	refused "$tmp/c.out" "$w" confined
done
if [ -e "$S/lib/axprof-confine-probe" ] || [ ! -e "$S/lib/probe" ]; then
	bad "confined" "the sysroot was changed"
else
	ok "confined: the sysroot is unchanged"
fi
expect "$tmp/c.out" "execve host program inside" EACCES confined
expect "$tmp/c.out" "getcwd after chdir up" / confined
for w in "mkdir inside" "rename inside" "rmdir inside" "/proc/self/maps" "fchdir back" \
	"sysroot read"; do
	expect "$tmp/c.out" "$w" ok confined
done
expect "$tmp/c.out" "child cwd is sub" yes "confined execve of an Alpha program"
if [ -e "$tmp/planted" ]; then bad "confined" "created $tmp/planted outside DIR"; else
	ok "confined: nothing created outside DIR"; fi
if grep -q "host shell ran" "$tmp/c.out"; then bad "confined" "the host's sh ran"; else
	ok "confined: the host's sh did not run"; fi

# --- unconfined: what the host allows ---------------------------------------------------------
(cd "$D/sub" && "$axprof" run --sysroot "$S" -- ../escape >"$tmp/u.out" 2>"$tmp/u.err")
s=$?
if [ "$s" = 0 ]; then ok "unconfined run exits 0"; else
	bad "unconfined run" "status $s: $(head -c 300 "$tmp/u.err")"; fi
if [ -r /etc/shadow ]; then want=ok; else want=EACCES; fi
expect "$tmp/u.out" /etc/shadow "$want" unconfined
for w in inside "sysroot read" /etc/passwd dotdot rel-symlink abs-symlink "openat dirfd dotdot" \
	"etc/passwd from /" "create through symlink" "child /etc/passwd"; do
	expect "$tmp/u.out" "$w" ok unconfined
done
if [ -e "$tmp/planted" ]; then ok "unconfined: the symbolic link created its target"; else
	bad "unconfined" "$tmp/planted not created"; fi
if grep -q "host shell ran" "$tmp/u.out"; then ok "unconfined: execve of the host's sh runs it"; else
	bad "unconfined" "the host's sh did not run"; fi

# --- record --confine ---------------------------------------------------------------------------
rm -f "$tmp/planted"
(cd "$D/sub" && "$axprof" record -q -d "$tmp/db" --sysroot "$S" --confine "$D" -- ../escape >"$tmp/r.out" 2>"$tmp/r.err")
s=$?
if [ "$s" = 0 ] && [ "$(line /etc/passwd "$tmp/r.out")" = ENOENT ] && [ ! -e "$tmp/planted" ] &&
	[ -d "$tmp/db" ]; then
	ok "record --confine: confined and recorded"
else
	bad "record --confine" "status $s, /etc/passwd: $(line /etc/passwd "$tmp/r.out"); $(head -c 200 "$tmp/r.err")"
fi

# --- option errors --------------------------------------------------------------------------------
for cmd in run record; do
	"$axprof" $cmd --confine "$tmp/nosuch" -- "$D/escape" >/dev/null 2>"$tmp/e"
	s=$?
	if [ "$s" = 2 ] && grep -q "^axprof $cmd: --confine $tmp/nosuch: No such file or directory" "$tmp/e"; then
		ok "$cmd --confine on a missing directory: exit 2 and message"
	else
		bad "$cmd --confine missing" "status $s: $(cat "$tmp/e")"
	fi
	"$axprof" $cmd --confine "$D/inside.txt" -- "$D/escape" >/dev/null 2>"$tmp/e"
	s=$?
	if [ "$s" = 2 ] && grep -q "not a directory" "$tmp/e"; then
		ok "$cmd --confine on a file: exit 2 and message"
	else
		bad "$cmd --confine file" "status $s: $(cat "$tmp/e")"
	fi
done
if [ ! -e "$tmp/nosuch" ]; then ok "no database or directory created by the refused commands"; else
	bad "refused commands" "created $tmp/nosuch"; fi

finish
