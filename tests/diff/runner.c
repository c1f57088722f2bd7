/* tests/diff/runner.c - Alpha program: runs differential-test vectors natively under qemu-alpha. */
/*
 * Built with alpha-linux-gnu-gcc (dynamic: static glibc crashes under qemu-alpha) and run as
 *
 *   qemu-alpha -L /usr/alpha-linux-gnu runner < vectors > results
 *
 * Entry into and exit from each vector go through signals, which gives control of every
 * register: the handler (on a sigaltstack, so a vector may set sp to anything) writes the
 * vector's integer and FP registers, FPCR and pc = DV_SLOT into the interrupted context's
 * sigcontext and returns; rt_sigreturn loads them and the test instruction runs. Every other word
 * of the code page is CALL_PAL bpt, so the next signal (SIGTRAP on a landing pad, or the test
 * instruction's own SIGILL/SIGSEGV/SIGBUS/SIGFPE) delivers the complete result state.
 * Formats and the address map: diffvec.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "diffvec.h"

#define IN_BUF_SIZE (64 * 1024)
#define OUT_BUF_SIZE (256 * 1024)
#define ALTSTACK_SIZE (256 * 1024)

static uint8_t in_buf[IN_BUF_SIZE];
static size_t in_len, in_pos;
static uint8_t out_buf[OUT_BUF_SIZE];
static size_t out_len;
static struct dv_vec cur;
static int in_test;
static uint32_t *code;
static uint8_t *data_page;

static void die(const char *msg)
{
	static const char pfx[] = "runner: ";

	(void)!write(2, pfx, sizeof(pfx) - 1);
	(void)!write(2, msg, strlen(msg));
	(void)!write(2, "\n", 1);
	_exit(2);
}

static void out_flush(void)
{
	size_t off = 0;

	while (off < out_len) {
		ssize_t n = write(1, out_buf + off, out_len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write to stdout failed");
		off += (size_t)n;
	}
	out_len = 0;
}

static void out_put(const void *p, size_t n)
{
	if (out_len + n > sizeof(out_buf))
		out_flush();
	memcpy(out_buf + out_len, p, n);
	out_len += n;
}

/* Read exactly one vector; 0 at a clean end of input. */
static int in_get(struct dv_vec *v)
{
	size_t need = sizeof(*v), got = 0;

	while (got < need) {
		if (in_pos == in_len) {
			ssize_t n = read(0, in_buf, sizeof(in_buf));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				die("read from stdin failed");
			if (n == 0) {
				if (got)
					die("truncated vector at end of input");
				return 0;
			}
			in_len = (size_t)n;
			in_pos = 0;
		}
		size_t k = in_len - in_pos;

		if (k > need - got)
			k = need - got;
		memcpy((uint8_t *)v + got, in_buf + in_pos, k);
		in_pos += k;
		got += k;
	}
	if (v->magic != DV_VEC_MAGIC || v->ninsn < 1 || v->ninsn > DV_MAX_INSN)
		die("bad vector record (magic or ninsn)");
	return 1;
}

static void imb(void)
{
	__asm__ __volatile__("call_pal 0x86" ::: "memory");
}

static void set_slots(const struct dv_vec *v)
{
	unsigned int i;

	if (mprotect(code, DV_PAGE, PROT_READ | PROT_WRITE))
		die("mprotect code RW failed");
	for (i = 0; i < DV_MAX_INSN; i++)
		code[(DV_SLOT - DV_CODE_BASE) / 4 + i] = i < v->ninsn ? v->insn[i] : DV_PAD;
	if (mprotect(code, DV_PAGE, PROT_READ | PROT_EXEC))
		die("mprotect code RX failed");
	imb();
}

/* The unmodelled part of the data page must stay zero; restore it if a vector wrote there. */
static uint64_t check_dirty(void)
{
	const uint64_t *p = (const uint64_t *)data_page;
	uint64_t dirty = 0;
	size_t i;

	for (i = 0; i < (DV_PAGE - DV_WIN_SIZE) / 8; i++)
		dirty |= p[i];
	if (dirty)
		memset(data_page, 0, DV_PAGE - DV_WIN_SIZE);
	return dirty != 0;
}

/*
 * QEMU's VAX FP helpers leave softfloat exception flags set, and the next IEEE instruction then
 * reports them as its own (a spurious trap or FPCR status bit). Every vector must start from a
 * clean state: consume the flags with an IEEE op while all traps are disabled. The FPCR this
 * changes is replaced from the sigcontext on return.
 */
static void scrub_fp_flags(void)
{
	static const uint64_t all_disabled = 0x7e0e000000000000ull | (2ull << 58);

	__asm__ __volatile__("ldt $f10,%0\n\t"
			     "mt_fpcr $f10\n\t"
			     "excb\n\t"
			     "adds/sui $f31,$f31,$f31\n\t"
			     "excb"
			     :
			     : "m"(all_disabled)
			     : "$f10", "memory");
}

static void handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	mcontext_t *sc = &uc->uc_mcontext;
	int i;

	if (in_test) {
		static struct dv_res res;

		memset(&res, 0, sizeof(res));
		res.magic = DV_RES_MAGIC;
		res.signo = sig;
		res.code = si->si_code;
		res.addr = (uint64_t)(uintptr_t)si->si_addr;
		res.pc = (uint64_t)sc->sc_pc;
		for (i = 0; i < 32; i++) {
			res.r[i] = (uint64_t)sc->sc_regs[i];
			res.f[i] = (uint64_t)sc->sc_fpregs[i];
		}
		res.fpcr = sc->sc_fpcr;
		memcpy(res.mem, (void *)(uintptr_t)DV_WIN, DV_WIN_SIZE);
		res.dirty = check_dirty();
		res.vec = cur;
		out_put(&res, sizeof(res));
		in_test = 0;
	} else if (sig != SIGTRAP) {
		die("unexpected signal outside a vector");
	}

	if (!in_get(&cur)) {
		out_flush();
		_exit(0);
	}
	scrub_fp_flags();
	set_slots(&cur);
	memcpy((void *)(uintptr_t)DV_WIN, cur.mem, DV_WIN_SIZE);
	for (i = 0; i < 31; i++) {
		sc->sc_regs[i] = (long)cur.r[i];
		sc->sc_fpregs[i] = (long)cur.f[i];
	}
	sc->sc_fpcr = cur.fpcr;
	sc->sc_pc = (long)DV_SLOT;
	in_test = 1;
}

static void *map_at(uint64_t addr, size_t len, int prot)
{
	void *p = mmap((void *)(uintptr_t)addr, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || (uint64_t)(uintptr_t)p != addr)
		die("cannot map the fixed test pages (address taken?)");
	return p;
}

int main(void)
{
	static const int sigs[] = { SIGTRAP, SIGILL, SIGSEGV, SIGBUS, SIGFPE };
	struct sigaction sa;
	stack_t ss;
	uint8_t *ro;
	size_t i;

	code = map_at(DV_CODE_BASE, DV_PAGE, PROT_READ | PROT_WRITE);
	for (i = 0; i < DV_PAGE / 4; i++)
		code[i] = DV_PAD;
	if (mprotect(code, DV_PAGE, PROT_READ | PROT_EXEC))
		die("mprotect code RX failed");
	imb();
	data_page = map_at(DV_DATA_BASE, DV_PAGE, PROT_READ | PROT_WRITE);
	ro = map_at(DV_RO_BASE, DV_PAGE, PROT_READ | PROT_WRITE);
	for (i = 0; i < DV_PAGE; i++)
		ro[i] = dv_ro_byte(i);
	if (mprotect(ro, DV_PAGE, PROT_READ))
		die("mprotect read-only page failed");

	ss.ss_sp = malloc(ALTSTACK_SIZE);
	ss.ss_size = ALTSTACK_SIZE;
	ss.ss_flags = 0;
	if (!ss.ss_sp || sigaltstack(&ss, NULL))
		die("sigaltstack failed");

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			die("sigaction failed");

	/* The first signal reads the first vector; the handler exits at the end of input. */
	__asm__ __volatile__("call_pal 0x80" ::: "memory");
	die("returned from the vector loop");
	return 2;
}
