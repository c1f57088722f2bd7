/* machine/mach_signal.c - Linux/Alpha signals: actions, masks, frames, sigreturn, default actions. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "mach_sys.h"

/*
 * Frames follow arch/alpha/kernel/signal.c (setup_frame, setup_rt_frame, restore_sigcontext):
 *
 *   struct sigframe    { struct sigcontext sc; u32 retcode[3]; }            (non-SA_SIGINFO)
 *   struct rt_sigframe { siginfo_t info; struct ucontext uc; u32 retcode[3]; }
 *   struct ucontext    { u64 uc_flags; u64 uc_link; u64 uc_osf_sigmask; stack_t uc_stack;
 *                        struct sigcontext uc_mcontext; sigset_t uc_sigmask; }
 *
 * The frame goes below the interrupted sp (or at the top of the alternate stack with
 * SA_ONSTACK), aligned down to 32 bytes. The handler gets a0 = signal, a1 = &info (rt) or 0,
 * a2 = &uc or &sc, ra = the restorer passed to rt_sigaction (or the retcode written in the
 * frame: mov sp,a0; lda v0,NR; callsys), pv = pc = handler, sp = frame.
 */

/* struct sigcontext (asm/sigcontext.h), 81 quadwords. */
#define SC_ONSTACK 0
#define SC_MASK 8
#define SC_PC 16
#define SC_PS 24
#define SC_REGS 32
#define SC_OWNEDFP 288
#define SC_FPREGS 296
#define SC_FPCR 552
#define SC_FP_CONTROL 560
#define SC_TRAPARG_A0 600
#define SC_SIZE 648

#define SI_SIZE 128
#define UC_FLAGS 0
#define UC_LINK 8
#define UC_OSF_SIGMASK 16
#define UC_STACK 24
#define UC_MCONTEXT 48
#define UC_SIGMASK (UC_MCONTEXT + SC_SIZE)
#define UC_SIZE (UC_SIGMASK + 8)

#define RT_FRAME_UC SI_SIZE
#define RT_FRAME_RETCODE (SI_SIZE + UC_SIZE)
#define RT_FRAME_SIZE ((RT_FRAME_RETCODE + 12 + 7) & ~7)
#define FRAME_RETCODE SC_SIZE
#define FRAME_SIZE ((SC_SIZE + 12 + 7) & ~7)

_Static_assert(RT_FRAME_UC + UC_MCONTEXT == 176, "offsetof(rt_sigframe, uc.uc_mcontext)");

#define INSN_MOV_R30_R16 0x47fe0410u
#define INSN_LDI_R0 0x201f0000u
#define INSN_CALLSYS 0x00000083u

#define A_SS_ONSTACK 1
#define A_SS_DISABLE 2

static inline uint64_t sigbit(int sig)
{
	return 1ull << (sig - 1);
}

#define UNBLOCKABLE (sigbit(MACH_SIGKILL) | sigbit(MACH_SIGSTOP))

/* ---------------------------------------------------------------------------------------- */
/* Signals from the host (terminal, timers, other processes). */

volatile int mach_host_signal_flag;
static volatile sig_atomic_t host_pending[65];

static void host_handler(int sig)
{
	if (sig > 0 && sig < 65) {
		host_pending[sig] = 1;
		mach_host_signal_flag = 1;
	}
}

void mach_signal_poll(struct mach *m)
{
	if (!mach_host_signal_flag)
		return;
	mach_host_signal_flag = 0;
	for (int h = 1; h < 65; h++) {
		if (!host_pending[h])
			continue;
		host_pending[h] = 0;
		int s = mach_signo_to_alpha(h);

		if (s > 0 && s <= MACH_NSIG) {
			struct mach_siginfo si = { .signo = s, .code = MACH_SI_USER };

			mach_signal_raise(m, &si);
		}
	}
}

static bool host_managed(int h)
{
	return h > 0 && h != SIGSEGV && h != SIGBUS && h != SIGFPE && h != SIGILL && h != SIGTRAP &&
	       h != SIGKILL && h != SIGSTOP;
}

void mach_signal_sync_host(struct mach *m, int sig)
{
	int h = mach_signo_to_host(sig);
	struct sigaction sa;

	if (!host_managed(h) || (m->opts.host_signals_kept & (1ull << (h - 1))))
		return;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (m->sigact[sig].handler == MACH_SIG_DFL)
		sa.sa_handler = SIG_DFL;
	else if (m->sigact[sig].handler == MACH_SIG_IGN)
		sa.sa_handler = SIG_IGN;
	else
		sa.sa_handler = host_handler; /* no SA_RESTART: EINTR lets the machine decide */
	sigaction(h, &sa, NULL);
}

/* ---------------------------------------------------------------------------------------- */

void mach_signal_raise(struct mach *m, const struct mach_siginfo *si)
{
	if (si->signo <= 0 || si->signo > MACH_NSIG)
		return;
	if (si->fault) {
		/* force_sig(): a blocked or ignored fault signal gets its default action. */
		struct mach_sigaction *sa = &m->sigact[si->signo];

		if ((m->sigmask & sigbit(si->signo)) || sa->handler == MACH_SIG_IGN) {
			sa->handler = MACH_SIG_DFL;
			m->sigmask &= ~sigbit(si->signo);
		}
	}
	/* Standard signals do not queue: a second one while pending is lost. */
	if (!(m->sigpending & sigbit(si->signo)) || si->fault)
		m->siginfo[si->signo] = *si;
	m->sigpending |= sigbit(si->signo);
}

enum dfl { DFL_TERM, DFL_CORE, DFL_IGN, DFL_STOP, DFL_CONT };

static enum dfl default_action(int sig)
{
	switch (sig) {
	case MACH_SIGQUIT:
	case MACH_SIGILL:
	case MACH_SIGTRAP:
	case MACH_SIGABRT:
	case MACH_SIGEMT:
	case MACH_SIGFPE:
	case MACH_SIGBUS:
	case MACH_SIGSEGV:
	case MACH_SIGSYS:
	case MACH_SIGXCPU:
	case MACH_SIGXFSZ:
		return DFL_CORE;
	case MACH_SIGCHLD:
	case MACH_SIGURG:
	case MACH_SIGWINCH:
		return DFL_IGN;
	case MACH_SIGSTOP:
	case MACH_SIGTSTP:
	case MACH_SIGTTIN:
	case MACH_SIGTTOU:
		return DFL_STOP;
	case MACH_SIGCONT:
		return DFL_CONT;
	default:
		return DFL_TERM;
	}
}

static int put64(struct mach *m, uint64_t va, uint64_t v)
{
	return mach_mem_write(m->mem, va, &v, 8);
}

static int get64(struct mach *m, uint64_t va, uint64_t *v)
{
	return mach_mem_read(m->mem, va, v, 8);
}

static int setup_sigcontext(struct mach *m, uint64_t sc, uint64_t mask, uint64_t sp,
			    const struct mach_siginfo *si, bool onstack)
{
	uint8_t buf[SC_SIZE];
	uint64_t w;

	memset(buf, 0, sizeof(buf));
#define PUT(off, v) (w = (v), memcpy(buf + (off), &w, 8))
	PUT(SC_ONSTACK, onstack);
	PUT(SC_MASK, mask);
	PUT(SC_PC, m->ctx.pc);
	PUT(SC_PS, 8);
	for (int i = 0; i < 31; i++)
		PUT(SC_REGS + 8 * i, m->ctx.r[i]);
	PUT(SC_REGS + 8 * 30, sp);
	for (int i = 0; i < 31; i++)
		PUT(SC_FPREGS + 8 * i, m->ctx.f[i]);
	PUT(SC_FPCR, m->ctx.fpcr);
	PUT(SC_FP_CONTROL, m->ieee_state);
	PUT(SC_TRAPARG_A0, si->trap_a0);
	PUT(SC_TRAPARG_A0 + 8, si->trap_a1);
	PUT(SC_TRAPARG_A0 + 16, si->trap_a2);
#undef PUT
	return mach_mem_write(m->mem, sc, buf, sizeof(buf));
}

static int restore_sigcontext(struct mach *m, uint64_t sc)
{
	uint8_t buf[SC_SIZE];
	uint64_t w;

	if (mach_mem_read(m->mem, sc, buf, sizeof(buf)))
		return -EFAULT;
#define GET(off) (memcpy(&w, buf + (off), 8), w)
	m->ctx.pc = GET(SC_PC);
	for (int i = 0; i < 31; i++)
		m->ctx.r[i] = GET(SC_REGS + 8 * i);
	for (int i = 0; i < 31; i++)
		m->ctx.f[i] = GET(SC_FPREGS + 8 * i);
	m->ctx.fpcr = GET(SC_FPCR);
#undef GET
	m->ctx.lock_addr = AXP_NO_LOCK;
	return 0;
}

static void put_siginfo(uint8_t *b, const struct mach_siginfo *si)
{
	int32_t v;
	uint64_t a;

	memset(b, 0, SI_SIZE);
	v = si->signo;
	memcpy(b + 0, &v, 4);
	v = si->errno_;
	memcpy(b + 4, &v, 4);
	v = si->code;
	memcpy(b + 8, &v, 4);
	if (si->fault) {
		a = si->addr;
		memcpy(b + 16, &a, 8); /* si_addr */
		v = si->trapno;
		memcpy(b + 24, &v, 4); /* si_trapno (__ARCH_SI_TRAPNO) */
	} else {
		v = si->pid;
		memcpy(b + 16, &v, 4);
		v = si->uid;
		memcpy(b + 20, &v, 4);
	}
}

static bool on_altstack(const struct mach *m, uint64_t sp)
{
	return m->ss_size && sp - m->ss_sp <= m->ss_size;
}

/* handle_signal(): build the frame and enter the handler. */
static int enter_handler(struct mach *m, int sig, const struct mach_siginfo *si)
{
	struct mach_sigaction *sa = &m->sigact[sig];
	bool rt = sa->flags & MACH_SA_SIGINFO;
	uint64_t oldsp = m->ctx.r[30], sp = oldsp, frame, sc, ra, oldmask;
	bool onstack = on_altstack(m, oldsp);
	uint32_t retcode[3];
	int err = 0;

	oldmask = m->has_saved_mask ? m->saved_mask : m->sigmask;
	if ((sa->flags & MACH_SA_ONSTACK) && m->ss_size && !(m->ss_flags & A_SS_DISABLE) &&
	    !onstack)
		sp = m->ss_sp + m->ss_size;
	frame = (sp - (rt ? RT_FRAME_SIZE : FRAME_SIZE)) & ~(uint64_t)31;
	if (!mach_mem_range_ok(m->mem, frame, rt ? RT_FRAME_SIZE : FRAME_SIZE, MACH_PROT_W))
		return -EFAULT;
	sc = rt ? frame + RT_FRAME_UC + UC_MCONTEXT : frame;
	if (rt) {
		uint8_t info[SI_SIZE];

		put_siginfo(info, si);
		err |= mach_mem_write(m->mem, frame, info, SI_SIZE);
		err |= put64(m, frame + RT_FRAME_UC + UC_FLAGS, 0);
		err |= put64(m, frame + RT_FRAME_UC + UC_LINK, 0);
		err |= put64(m, frame + RT_FRAME_UC + UC_OSF_SIGMASK, oldmask);
		err |= put64(m, frame + RT_FRAME_UC + UC_STACK, m->ss_sp);
		err |= put64(m, frame + RT_FRAME_UC + UC_STACK + 8,
			     m->ss_size ? (onstack ? A_SS_ONSTACK : (uint64_t)m->ss_flags) :
					  A_SS_DISABLE);
		err |= put64(m, frame + RT_FRAME_UC + UC_STACK + 16, m->ss_size);
		err |= put64(m, frame + RT_FRAME_UC + UC_SIGMASK, oldmask);
	}
	err |= setup_sigcontext(m, sc, oldmask, oldsp, si, onstack);
	ra = sa->restorer;
	if (!ra) {
		uint64_t rc = frame + (rt ? RT_FRAME_RETCODE : FRAME_RETCODE);

		retcode[0] = INSN_MOV_R30_R16;
		retcode[1] = INSN_LDI_R0 + (rt ? MACH_NR_rt_sigreturn : MACH_NR_sigreturn);
		retcode[2] = INSN_CALLSYS;
		err |= mach_mem_write(m->mem, rc, retcode, sizeof(retcode));
		ra = rc;
	}
	if (err)
		return -EFAULT;
	m->ctx.r[26] = ra;
	m->ctx.r[27] = m->ctx.pc = sa->handler;
	m->ctx.r[16] = (uint64_t)sig;
	m->ctx.r[17] = rt ? frame : 0;
	m->ctx.r[18] = rt ? frame + RT_FRAME_UC : frame;
	m->ctx.r[30] = frame;
	m->ctx.lock_addr = AXP_NO_LOCK;
	/* signal_delivered(): block sa_mask and the signal itself unless SA_NODEFER. */
	m->has_saved_mask = false;
	m->sigmask |= sa->mask | ((sa->flags & MACH_SA_NODEFER) ? 0 : sigbit(sig));
	m->sigmask &= ~UNBLOCKABLE;
	if (sa->flags & MACH_SA_RESETHAND) {
		sa->handler = MACH_SIG_DFL;
		mach_signal_sync_host(m, sig);
	}
	m->signals++;
	return 0;
}

bool mach_signal_deliver(struct mach *m)
{
	uint64_t p;
	int sig = 0;

	mach_signal_poll(m);
	p = m->sigpending & ~m->sigmask;
	if (!p) {
		/* No handler ran after sigsuspend: its mask ends now (restore_saved_sigmask). */
		if (m->has_saved_mask) {
			m->sigmask = m->saved_mask;
			m->has_saved_mask = false;
		}
		return false;
	}
	/* Synchronous faults first (dequeue_synchronous_signal), then the lowest number. */
	for (int s = 1; s <= MACH_NSIG; s++)
		if ((p & sigbit(s)) && m->siginfo[s].fault) {
			sig = s;
			break;
		}
	if (!sig)
		sig = __builtin_ctzll(p) + 1;
	m->sigpending &= ~sigbit(sig);

	struct mach_siginfo si = m->siginfo[sig];
	struct mach_sigaction *sa = &m->sigact[sig];

	if (sa->handler == MACH_SIG_IGN)
		return true;
	if (sa->handler != MACH_SIG_DFL) {
		if (!enter_handler(m, sig, &si))
			return true;
		/* No room for the frame: force SIGSEGV (signal_setup_done -> force_sigsegv). */
		sig = MACH_SIGSEGV;
		snprintf(m->fault_cause, sizeof(m->fault_cause), "cannot write the signal frame");
		m->fault_pc = m->ctx.pc;
	}
	switch (default_action(sig)) {
	case DFL_IGN:
	case DFL_CONT:
		return true;
	case DFL_STOP:
		if (mach_signo_to_host(sig))
			raise(SIGSTOP);
		return true;
	default:
		m->exited = true;
		m->exit_signal = sig;
		return true;
	}
}

int mach_sigreturn(struct mach *m, bool rt)
{
	uint64_t frame = m->ctx.r[16], mask, sc;

	if (rt) {
		sc = frame + RT_FRAME_UC + UC_MCONTEXT;
		if (get64(m, frame + RT_FRAME_UC + UC_SIGMASK, &mask))
			return -EFAULT;
	} else {
		sc = frame;
		if (get64(m, sc + SC_MASK, &mask))
			return -EFAULT;
	}
	if (restore_sigcontext(m, sc))
		return -EFAULT;
	m->sigmask = mask & ~UNBLOCKABLE;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* System calls. */

static int64_t sigreturn_common(struct mach *m, bool rt)
{
	if (mach_sigreturn(m, rt)) {
		struct mach_siginfo si = { .signo = MACH_SIGSEGV, .code = MACH_SI_KERNEL };

		snprintf(m->fault_cause, sizeof(m->fault_cause), "bad signal frame at 0x%llx",
			 (unsigned long long)m->ctx.r[16]);
		m->fault_pc = m->ctx.pc - 4;
		si.fault = true;
		mach_signal_raise(m, &si);
	}
	return SYS_NORET;
}

static int64_t sys_rt_sigreturn(struct mach *m, const uint64_t *a)
{
	(void)a;
	return sigreturn_common(m, true);
}

static int64_t sys_sigreturn(struct mach *m, const uint64_t *a)
{
	(void)a;
	return sigreturn_common(m, false);
}

static int do_sigaction(struct mach *m, int sig, const struct mach_sigaction *act,
			struct mach_sigaction *old)
{
	if (sig < 1 || sig > MACH_NSIG)
		return -EINVAL;
	if (old)
		*old = m->sigact[sig];
	if (!act)
		return 0;
	if (sig == MACH_SIGKILL || sig == MACH_SIGSTOP)
		return -EINVAL;
	m->sigact[sig] = *act;
	m->sigact[sig].mask &= ~UNBLOCKABLE;
	/* Setting SIG_IGN (or SIG_DFL where the default is to ignore) discards pending ones. */
	if (act->handler == MACH_SIG_IGN ||
	    (act->handler == MACH_SIG_DFL && default_action(sig) == DFL_IGN))
		m->sigpending &= ~sigbit(sig);
	mach_signal_sync_host(m, sig);
	return 0;
}

/* rt_sigaction(sig, act, oact, sigsetsize, restorer): kernel struct sigaction on Alpha is
 * { handler; unsigned long sa_flags; sigset_t sa_mask; } (asm/signal.h, __KERNEL__). */
static int64_t sys_rt_sigaction(struct mach *m, const uint64_t *a)
{
	struct mach_sigaction act, old;
	uint64_t k[3];
	int ret;

	if (a[3] != 8)
		return -EINVAL;
	if (a[1]) {
		if (mach_mem_read(m->mem, a[1], k, sizeof(k)))
			return -EFAULT;
		act.handler = k[0];
		act.flags = k[1];
		act.mask = k[2];
		act.restorer = a[4];
	}
	ret = do_sigaction(m, (int)a[0], a[1] ? &act : NULL, &old);
	if (ret)
		return ret;
	if (a[2]) {
		k[0] = old.handler;
		k[1] = old.flags;
		k[2] = old.mask;
		if (mach_mem_write(m->mem, a[2], k, sizeof(k)))
			return -EFAULT;
	}
	return 0;
}

/* osf_sigaction: struct osf_sigaction { handler; old_sigset_t sa_mask; int sa_flags; }. */
static int64_t sys_osf_sigaction(struct mach *m, const uint64_t *a)
{
	struct mach_sigaction act, old;
	uint64_t k[3];
	int ret;

	if (a[1]) {
		if (mach_mem_read(m->mem, a[1], k, 20))
			return -EFAULT;
		act.handler = k[0];
		act.mask = k[1];
		act.flags = (uint32_t)k[2];
		act.restorer = 0;
	}
	ret = do_sigaction(m, (int)a[0], a[1] ? &act : NULL, &old);
	if (ret)
		return ret;
	if (a[2]) {
		uint32_t fl = (uint32_t)old.flags;

		if (put64(m, a[2], old.handler) || put64(m, a[2] + 8, old.mask) ||
		    mach_mem_write(m->mem, a[2] + 16, &fl, 4))
			return -EFAULT;
	}
	return 0;
}

/* SIG_BLOCK 1, SIG_UNBLOCK 2, SIG_SETMASK 3 on Alpha. */
static int change_mask(struct mach *m, uint64_t how, uint64_t set)
{
	switch (how) {
	case 1:
		m->sigmask |= set;
		break;
	case 2:
		m->sigmask &= ~set;
		break;
	case 3:
		m->sigmask = set;
		break;
	default:
		return -EINVAL;
	}
	m->sigmask &= ~UNBLOCKABLE;
	return 0;
}

static int64_t sys_rt_sigprocmask(struct mach *m, const uint64_t *a)
{
	uint64_t set, old = m->sigmask;
	int ret;

	if (a[3] != 8)
		return -EINVAL;
	if (a[1]) {
		if (get64(m, a[1], &set))
			return -EFAULT;
		ret = change_mask(m, a[0], set);
		if (ret)
			return ret;
	}
	if (a[2] && put64(m, a[2], old))
		return -EFAULT;
	return 0;
}

static int64_t sys_osf_sigprocmask(struct mach *m, const uint64_t *a)
{
	uint64_t old = m->sigmask;
	int ret = change_mask(m, a[0], a[1]);

	return ret ? ret : sys_force(m, old);
}

static int64_t sys_rt_sigpending(struct mach *m, const uint64_t *a)
{
	mach_signal_poll(m);
	if (a[1] != 8)
		return -EINVAL;
	return put64(m, a[0], m->sigpending & m->sigmask) ? -EFAULT : 0;
}

static int64_t sys_sigpending(struct mach *m, const uint64_t *a)
{
	mach_signal_poll(m);
	return put64(m, a[0], m->sigpending & m->sigmask) ? -EFAULT : 0;
}

/* Wait until a signal the new mask lets through is pending; the handler then runs with the
 * old mask restored on return (saved_sigmask). */
static int64_t do_sigsuspend(struct mach *m, uint64_t mask)
{
	sigset_t all, old;

	m->saved_mask = m->sigmask;
	m->has_saved_mask = true;
	m->sigmask = mask & ~UNBLOCKABLE;
	sigfillset(&all);
	for (;;) {
		sigprocmask(SIG_BLOCK, &all, &old);
		mach_signal_poll(m);
		if ((m->sigpending & ~m->sigmask) || m->interrupted) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			break;
		}
		sigsuspend(&old);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	return -EINTR;
}

static int64_t sys_rt_sigsuspend(struct mach *m, const uint64_t *a)
{
	uint64_t mask;

	if (a[1] != 8)
		return -EINVAL;
	if (get64(m, a[0], &mask))
		return -EFAULT;
	return do_sigsuspend(m, mask);
}

static int64_t sys_sigsuspend(struct mach *m, const uint64_t *a)
{
	return do_sigsuspend(m, a[0]);
}

/* stack_t { void *ss_sp; int ss_flags; size_t ss_size; } (24 bytes). */
static int64_t sys_sigaltstack(struct mach *m, const uint64_t *a)
{
	uint64_t ss[3], old[3];
	bool onstack = on_altstack(m, m->ctx.r[30]);

	old[0] = m->ss_sp;
	old[1] = m->ss_size ? (onstack ? A_SS_ONSTACK : (uint64_t)(uint32_t)m->ss_flags) :
			      A_SS_DISABLE;
	old[2] = m->ss_size;
	if (a[0]) {
		if (mach_mem_read(m->mem, a[0], ss, sizeof(ss)))
			return -EFAULT;
		if (onstack)
			return -EPERM;
		if ((uint32_t)ss[1] & A_SS_DISABLE) {
			m->ss_sp = 0;
			m->ss_size = 0;
			m->ss_flags = A_SS_DISABLE;
		} else {
			if ((uint32_t)ss[1] & ~(uint32_t)(A_SS_ONSTACK | (1u << 31)))
				return -EINVAL;
			if (ss[2] < 4096) /* MINSIGSTKSZ */
				return -ENOMEM;
			m->ss_sp = ss[0];
			m->ss_size = ss[2];
			m->ss_flags = 0;
		}
	}
	if (a[1] && mach_mem_write(m->mem, a[1], old, sizeof(old)))
		return -EFAULT;
	return 0;
}

static int64_t send_self(struct mach *m, int sig, int code)
{
	struct mach_siginfo si = {
		.signo = sig, .code = code, .pid = m->pid, .uid = (int)getuid()
	};

	if (sig < 0 || sig > MACH_NSIG)
		return -EINVAL;
	if (sig)
		mach_signal_raise(m, &si);
	return 0;
}

static int64_t sys_kill(struct mach *m, const uint64_t *a)
{
	int pid = (int)a[0], sig = (int)a[1], h;

	/* To itself: queued at once (delivered on return, as Linux does). A group or another
	 * process gets a host signal; the machine then receives its own through its handlers. */
	if (pid == m->pid)
		return send_self(m, sig, MACH_SI_USER);
	if (sig < 0 || sig > MACH_NSIG)
		return -EINVAL;
	h = sig ? mach_signo_to_host(sig) : 0;
	if (sig && !h)
		return -EINVAL;
	if (pid == -1)
		return mach_vpid_kill_all(m, h);
	if (pid > 0 || pid < -1) {
		/* A process or group of the run (mach_vpid.c); no other is visible. */
		pid_t hp = mach_vpid_to_host(m, pid > 0 ? pid : -pid);

		if (hp < 0)
			return -ESRCH;
		pid = pid > 0 ? hp : -hp;
	}
	return sys_ret(kill(pid, h));
}

/* To one thread of ours (kernel/signal.c do_send_specific): queued in that thread. */
static int64_t send_thread(struct mach *m, int32_t tid, int sig)
{
	struct mach_siginfo si = {
		.signo = sig, .code = MACH_SI_TKILL, .pid = m->pid, .uid = (int)getuid()
	};

	if (sig < 0 || sig > MACH_NSIG || tid <= 0)
		return -EINVAL;
	return mach_thread_signal(m, tid, sig ? &si : NULL);
}

static int64_t sys_tgkill(struct mach *m, const uint64_t *a)
{
	if ((int)a[0] <= 0)
		return -EINVAL;
	if ((int)a[0] != m->pid)
		return -ESRCH;
	return send_thread(m, (int32_t)a[1], (int)a[2]);
}

static int64_t sys_tkill(struct mach *m, const uint64_t *a)
{
	return send_thread(m, (int32_t)a[0], (int)a[1]);
}

void mach_sys_signal_table(mach_sys_fn *t)
{
	t[MACH_NR_rt_sigreturn] = sys_rt_sigreturn;
	t[MACH_NR_sigreturn] = sys_sigreturn;
	t[MACH_NR_rt_sigaction] = sys_rt_sigaction;
	t[MACH_NR_sigaction] = sys_osf_sigaction;
	t[MACH_NR_rt_sigprocmask] = sys_rt_sigprocmask;
	t[MACH_NR_osf_sigprocmask] = sys_osf_sigprocmask;
	t[MACH_NR_rt_sigpending] = sys_rt_sigpending;
	t[MACH_NR_sigpending] = sys_sigpending;
	t[MACH_NR_rt_sigsuspend] = sys_rt_sigsuspend;
	t[MACH_NR_sigsuspend] = sys_sigsuspend;
	t[MACH_NR_sigaltstack] = sys_sigaltstack;
	t[MACH_NR_kill] = sys_kill;
	t[MACH_NR_tgkill] = sys_tgkill;
	t[MACH_NR_tkill] = sys_tkill;
}
