#!/usr/bin/env python3
"""bench/kirq_trace.py - boot the Alpha kernel with bench/kirq_guest.c as /init under
qemu-system-alpha -icount and count, from QEMU's execution log, the guest instructions of each
sampling interrupt, by function (issue 18 item 2). Run by bench/kernel-irq.sh, which builds the
guest and the initramfs; see there for the figures' meaning.

How: QEMU logs every translated block's instructions (-d in_asm) and, between the guest's
"KIRQ-START mode" and "KIRQ-STOP mode" markers only, every block it executes (-d exec with
nochain, so every execution is logged), restricted by -dfilter to PALcode and the kernel (the
user loop is not logged). The host switches the execution log on and off through QEMU's monitor.
The log of a window is cut into pieces, one per kernel entry (analyse() says how blocks are
counted and nested entries kept apart). A piece entered at entInt that ran the driver's hrtimer
callback and not Linux's tick (tick_sched_timer) is a sampling interrupt; one with both is left
out (its cost is shared).
"""
import argparse
import bisect
import collections
import os
import re
import socket
import subprocess
import sys
import time

KSEG = 0xFFFFFC0000000000
CALLBACK = ("tick", "[axprof]")  # the hrtimer callback in kmod/sampler/linux/vs_drv_source.c
LINUX_TICK = "tick_sched_timer"
HRTIMER = re.compile(r"hrtimer|timerqueue|clockevent|tick_program|ktime|timekeeping|qemu_cs_read|"
                     r"qemu_ce_set_next_event|^rb_|_raw_spin")
GROUPS = ["PALcode", "Linux interrupt entry and exit", "Linux hrtimer and clock events",
          "axprof.ko", "axp_interp.ko"]
TRACE = re.compile(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/[0-9a-f]+/([0-9a-f]+)\]")
ENTRIES = ("entInt", "entSys", "entMM", "entIF", "entArith", "entUna", "entDbg")
CF_COUNT_MASK = 0x1FF  # QEMU 7.2 include/exec/exec-all.h: a block cut to this many instructions
ICOUNT_SHIFT = 2  # -icount shift=2: the guest clock advances 4 ns per instruction (250 MHz)
NS_PER_INSN = 1 << ICOUNT_SHIFT


def die(msg):
    print("kernel-irq: " + msg, file=sys.stderr)
    sys.exit(1)


class Symbols:
    def __init__(self, system_map):
        self.syms = []
        self.stext = None
        with open(system_map) as f:
            for line in f:
                w = line.split()
                if len(w) >= 3 and w[1] in "tTwW":
                    self.syms.append((int(w[0], 16), w[2], "vmlinux"))
                    if w[2] == "_stext":
                        self.stext = int(w[0], 16)
        if self.stext is None:
            die(system_map + ": no _stext")
        self.ready = False

    def add_module(self, line):
        # "KIRQ-SYM ffffffff8f012340 t tick\t[axprof]"
        w = line.split()
        if len(w) >= 5 and w[2] in "tT":
            self.syms.append((int(w[1], 16), w[3], w[4]))
            self.ready = False

    def lookup(self, pc):
        if not self.ready:
            self.syms.sort()
            self.addrs = [s[0] for s in self.syms]
            self.ready = True
        if KSEG <= pc < self.stext:
            return ("PALcode", "PALcode")
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i < 0:
            return ("?", "other")
        _, name, where = self.syms[i]
        if where == "[axprof]":
            group = "axprof.ko"
        elif where == "[axp_interp]":
            group = "axp_interp.ko"
        elif HRTIMER.search(name):
            group = "Linux hrtimer and clock events"
        else:
            group = "Linux interrupt entry and exit"
        label = name if where == "vmlinux" else name + " " + where
        return (label, group)


def boot(a, logdir):
    """Run QEMU; return the console lines and the ordered log files."""
    mon = os.path.join(logdir, "monitor.sock")
    if os.path.exists(mon):
        os.unlink(mon)
    files = [os.path.join(logdir, "log-0-boot.txt")]
    append = "console=ttyS0 rdinit=/init panic=1 kirq_modes=%s kirq_n=%d" % (a.modes, a.n)
    cmd = ["qemu-system-alpha", "-M", "clipper", "-m", "256", "-vga", "none", "-nic", "none",
           "-kernel", a.vmlinux, "-initrd", a.initrd, "-nographic", "-no-reboot",
           "-append", append, "-icount", "shift=%d,sleep=off" % ICOUNT_SHIFT,
           "-monitor", "unix:%s,server=on,wait=off" % mon,
           "-d", "in_asm,nochain", "-dfilter", "0x%x..0xffffffffffffffff" % KSEG, "-D", files[0]]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    deadline = time.time() + a.timeout
    while not os.path.exists(mon):
        if p.poll() is not None or time.time() > deadline:
            die("QEMU did not start its monitor: " + p.stdout.read().decode(errors="replace"))
        time.sleep(0.05)
    s = socket.socket(socket.AF_UNIX)
    s.connect(mon)
    s.setblocking(False)
    time.sleep(0.2)

    def monitor(c):
        """Send a command and wait for QEMU's next prompt (the command has run)."""
        s.sendall((c + "\n").encode())
        got, until = b"", time.time() + 10
        while b"(qemu)" not in got.split(c.encode())[-1] and time.time() < until:
            try:
                got += s.recv(65536)
            except BlockingIOError:
                time.sleep(0.002)

    def ack():
        """The guest waits for a line on its console after each marker."""
        p.stdin.write(b"go\n")
        p.stdin.flush()

    lines = []
    for raw in p.stdout:
        line = raw.decode(errors="replace").rstrip("\r\n")
        lines.append(line)
        if a.verbose:
            print(line, flush=True)
        if time.time() > deadline:
            p.kill()
            die("the boot took more than %d s (console: %s)" % (a.timeout, logdir))
        if line.startswith("KIRQ-START "):
            files.append(os.path.join(logdir, "log-%d-%s.txt" % (len(files), line.split()[1])))
            monitor("logfile " + files[-1])
            monitor("log in_asm,nochain,exec")
            ack()
        elif line.startswith("KIRQ-STOP "):
            monitor("log in_asm,nochain")
            files.append(os.path.join(logdir, "log-%d-between.txt" % len(files)))
            monitor("logfile " + files[-1])
            ack()
    p.wait()
    s.close()
    with open(os.path.join(logdir, "console.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return lines, files


def analyse(files, syms):
    """Per window (mode): a list of pieces, each a list of [label, group, insns].

    A piece is what the CPU did from one kernel entry (an interrupt, a system call, a fault) to
    its return, less what nested entries did: an entry while a piece is still running (it has
    not reached restore_all) puts the piece aside, and the kernel code after the nested one's
    return continues it (an interpretation in the task work of a sampling interrupt stays whole
    when a timer interrupt arrives in it). The pieces still open when the window ends and its
    first piece (the log may start inside it) are dropped.

    A block's size is its longest translation's (QEMU's in_asm), or the count its cflags cut it
    to: under -icount QEMU retranslates the block an interrupt arrives in, cut to the instructions
    left before it. A block left by an exception (a TB miss in module code or data) ran only up
    to the faulting instruction, where execution resumes after the PALcode: it is counted so.
    """
    size = {}
    windows = {}
    resumed = 0
    # The kernel's entry points (arch/alpha/kernel/entry.S).
    entries = dict((s[0], s[1]) for s in syms.syms if s[1] in ENTRIES)
    if "entInt" not in entries.values():
        die("System.map has no entInt")
    for path in files:
        mode = os.path.basename(path).split("-", 2)[2][:-4]
        tracing = mode not in ("boot", "between")
        cur, n = None, 0
        done, piece, aside = [], [], []
        first = True  # the piece in progress is the window's first
        last = None  # the last non-PALcode block: [pc, its record]
        closing = False  # the piece has run restore_all: its PALcode return follows
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("IN:"):
                    cur, n = None, 0
                elif line.startswith("0x") and ":  " in line:
                    pc = int(line.split(":", 1)[0], 16)
                    if cur is None:
                        cur = pc
                    n += 1
                    size[cur] = max(size.get(cur, 0), n)
                elif tracing and line.startswith("Trace"):
                    m = TRACE.match(line)
                    if not m:
                        continue
                    pc = int(m.group(1), 16)
                    cut = int(m.group(2), 16) & CF_COUNT_MASK
                    label, group = syms.lookup(pc)
                    insns = size.get(pc, 0)
                    if cut:
                        insns = min(insns, cut)
                    if group != "PALcode":
                        if last and piece and piece[-1][1] == "PALcode" and \
                                last[0] < pc < last[0] + 4 * last[1][2]:
                            last[1][2] = (pc - last[0]) // 4
                            resumed += 1
                    if pc in entries:
                        # the PALcode blocks just before an entry are its own
                        k = len(piece)
                        while k > 0 and piece[k - 1][1] == "PALcode":
                            k -= 1
                        head = piece[k:]
                        del piece[k:]
                        if closing or not any(x[1] != "PALcode" for x in piece):
                            if not first:
                                done.append(piece)
                        else:
                            aside.append((piece, first))  # nested: it goes on afterwards
                        piece, first, closing = head, False, False
                    elif closing and group != "PALcode" and label != "restore_all":
                        # back in interrupted kernel code
                        if not first:
                            done.append(piece)
                        if aside:
                            piece, first = aside.pop()
                        else:
                            piece, first = [], True  # interrupted before the window
                        closing = False
                    if label == "restore_all":
                        closing = True
                    rec = [label, group, insns]
                    piece.append(rec)
                    if group != "PALcode":
                        last = [pc, rec]
        if tracing:
            windows[mode] = done
    return windows, resumed


def report(mode, pieces, timing, top):
    cb = CALLBACK[0] + " " + CALLBACK[1]
    sample, interp, plain, shared = [], [], [], 0
    for p in pieces:
        names = set(x[0] for x in p)
        if next((x[0] for x in p if x[1] != "PALcode"), "") != "entInt" or cb not in names:
            continue
        if LINUX_TICK in names:
            shared += 1
            continue
        sample.append(p)
        (interp if any(x[1] == "axp_interp.ko" for x in p) else plain).append(p)
    if not sample:
        print("kernel-irq: %s: no sampling interrupt in the trace (%d pieces)" % (mode, len(pieces)))
        return None
    tot = lambda ps: sum(x[2] for p in ps for x in p)
    mean = tot(sample) / len(sample)
    clock = ""
    if timing:
        off, on, nint = timing
        if nint:
            clock = "; the loop's clock: %s each over %d interrupts (%+.2f%%)" % (
                format(round((on - off) / NS_PER_INSN / nint), ","), nint, 100.0 * (on - off) / off)
    print("kernel-irq: %s: %d sampling interrupts traced (%d shared with Linux's tick left out): "
          "%s guest instructions each%s" % (mode, len(sample), shared, format(round(mean), ","),
                                            clock))
    if interp:
        print("  %d interpreted: %s each; %d did not: %s each" % (
            len(interp), format(round(tot(interp) / len(interp)), ","), len(plain),
            format(round(tot(plain) / len(plain)), ",") if plain else "-"))
    groups = collections.Counter()
    funcs = collections.Counter()
    for p in sample:
        for label, group, n in p:
            groups[group] += n
            funcs[label] += n
    for g in GROUPS:
        print("  %-34s %9.1f" % (g, groups[g] / len(sample)))
    print("  top functions (instructions per sampling interrupt):")
    for label, n in funcs.most_common(top):
        print("    %9.1f  %s" % (n / len(sample), label))
    return mean, groups, len(sample)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vmlinux", help="the kernel to boot (not with --analyse)")
    ap.add_argument("--system-map", required=True, help="the kernel's System.map")
    ap.add_argument("--initrd", help="the initramfs, /init being bench/kirq_guest.c")
    ap.add_argument("--logdir", required=True,
                    help="where QEMU's logs and the console go (console.txt, log-N-WHAT.txt)")
    ap.add_argument("--analyse", action="store_true",
                    help="no boot: analyse the console and logs an earlier run left in --logdir")
    ap.add_argument("--modes", default="floor,cycles,vprof,vreplay")
    ap.add_argument("--n", type=int, default=4000000, help="loop iterations per window")
    ap.add_argument("--timeout", type=int, default=600, help="seconds for the boot")
    ap.add_argument("--top", type=int, default=12, help="functions listed per mode")
    ap.add_argument("--verbose", action="store_true", help="copy the console to stdout")
    a = ap.parse_args()
    need = [a.system_map] + ([] if a.analyse else [a.vmlinux, a.initrd])
    for path in need:
        if not path or not os.path.exists(path):
            die("%s: missing (--vmlinux and --initrd are needed unless --analyse)" % path)
    syms = Symbols(a.system_map)
    if a.analyse:
        try:
            with open(os.path.join(a.logdir, "console.txt"), errors="replace") as f:
                lines = f.read().split("\n")
        except OSError as e:
            die("%s: %s (run without --analyse first)" % (a.logdir, e.strerror))
        files = [os.path.join(a.logdir, f) for f in os.listdir(a.logdir)
                 if re.match(r"log-\d+-[a-z]+\.txt$", f)]
        files.sort(key=lambda p: int(os.path.basename(p).split("-")[1]))
    else:
        os.makedirs(a.logdir, exist_ok=True)
        lines, files = boot(a, a.logdir)
    timing = {}
    for line in lines:
        if line.startswith("KIRQ-SYM "):
            syms.add_module(line)
        elif line.startswith("KIRQ-TIME "):
            w = line.split()
            timing[w[1]] = (int(w[2]), int(w[3]), int(w[4]))
        elif line.startswith("KIRQ-ERROR "):
            die("the guest says: " + line[11:])
    if not any(l.startswith("KIRQ-DONE") for l in lines):
        die("the guest did not finish (console: %s/console.txt)" % a.logdir)
    windows, resumed = analyse(files, syms)
    print("kernel-irq: %d blocks left by an exception counted to the faulting instruction" % resumed)
    bad = 0
    own = []
    linux = None
    for mode in a.modes.split(","):
        if mode not in windows:
            die("%s: no trace window (console: %s/console.txt)" % (mode, a.logdir))
        r = report(mode, windows[mode], timing.get(mode), a.top)
        if r is None:
            bad += 1
            continue
        mean, groups, n = r
        own.append("%s %s" % (mode, format(round((groups["axprof.ko"] + groups["axp_interp.ko"]) / n), ",")))
        if linux is None:
            linux = (sum(groups[g] for g in GROUPS[:3]) / n, mode)
    # The share of the CPU Linux's part alone takes at the interrupt rate the loop saw.
    rates = [t[2] / (t[1] * 1e-9) for t in timing.values() if t[1] > 0 and t[2] > 0]
    if linux and rates:
        rate = sum(rates) / len(rates)
        print("kernel-irq summary: PALcode and Linux take %s guest instructions of each sampling "
              "interrupt (%s): %.2f%% of the CPU at %s interrupts/s; axprof's own per sampling "
              "interrupt: %s" % (format(round(linux[0]), ","), linux[1],
                                 100.0 * linux[0] * NS_PER_INSN * 1e-9 * rate, format(round(rate), ","),
                                 ", ".join(own)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
