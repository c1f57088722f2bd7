/* machine/mach_thread.c - guest threads in the one host process: clone, futex, exit, scheduling. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mach_sys.h"

/*
 * A Linux/Alpha thread group runs inside the machine's one host process. The running thread's
 * state is the machine's own (m->ctx, m->sigmask, m->tid_address, ...: everything the
 * system-call and signal files already use); every other thread's is saved in a struct
 * mach_thread and swapped in by the scheduler. Shared by all threads, as CLONE_VM|CLONE_FS|
 * CLONE_FILES|CLONE_SIGHAND make them in Linux: the address space, the descriptors, the signal
 * actions. Per thread (kernel task_struct / thread_info): registers and the PAL unique value
 * (the TLS pointer, CALL_PAL rduniq/wruniq; CLONE_SETTLS sets it), the signal mask, pending
 * thread-directed signals and their siginfo, the alternate stack, set_tid_address's
 * clear_child_tid, set_robust_list's head, the IEEE software control word.
 *
 * Scheduling is deterministic: round-robin in creation order, each thread runs for a quantum
 * of mach_opts.quantum instructions (MACH_QUANTUM_DEFAULT: [U], our choice, a parameter) or
 * until it blocks (futex wait), yields (sched_yield) or exits. Nothing depends on host time
 * except futex timeouts, which are checked at each switch and, when every thread waits, slept
 * in the host. A switch clears the lock flag (the interrupt's rei does, Alpha Architecture
 * Handbook 4.2.5), so a LDx_L/STx_C sequence cut by a switch retries.
 *
 * Virtual CPUs (mach_opts.cpus = N): thread k (in creation order, the first is 0) is bound to
 * CPU k mod N, whose timing model retires its instructions; the round-robin above is then a
 * deterministic interleaving of the N CPUs, one quantum at a time. The CPUs' caches are kept
 * coherent by machine/mach_coh.c, in this interleaving's order.
 *
 * Thread ids: the first thread's is the pid; the others are MACH_TID_BASE + n (above Linux's
 * PID_MAX_LIMIT, include/linux/threads.h, so never a host process's pid).
 *
 * A process-directed signal (kill to our pid, signals from the host) is taken by the running
 * thread; tgkill/tkill reach the named thread, waking it from a futex wait with EINTR (the
 * glibc futex wrappers retry). When every thread waits without a timeout the machine waits
 * for a host signal, as the process would hang on Linux.
 */

#define MACH_TID_BASE 4194304 /* PID_MAX_LIMIT on 64-bit (include/linux/threads.h) */

#define A_CLONE_VM 0x00000100u
#define A_CLONE_FS 0x00000200u
#define A_CLONE_FILES 0x00000400u
#define A_CLONE_SIGHAND 0x00000800u
#define A_CLONE_THREAD 0x00010000u
#define A_CLONE_SYSVSEM 0x00040000u
#define A_CLONE_SETTLS 0x00080000u
#define A_CLONE_PARENT_SETTID 0x00100000u
#define A_CLONE_CHILD_CLEARTID 0x00200000u
#define A_CLONE_DETACHED 0x00400000u
#define A_CLONE_CHILD_SETTID 0x01000000u
#define A_CSIGNAL 0xffu

/* The thread flags we support: glibc's pthread_create set (sysdeps/unix/sysv/linux/
 * createthread.c / pthread_create.c), plus CHILD_SETTID and the ignored DETACHED. */
#define THREAD_FLAGS                                                                         \
	(A_CLONE_VM | A_CLONE_FS | A_CLONE_FILES | A_CLONE_SIGHAND | A_CLONE_THREAD |        \
	 A_CLONE_SYSVSEM | A_CLONE_SETTLS | A_CLONE_PARENT_SETTID | A_CLONE_CHILD_CLEARTID | \
	 A_CLONE_DETACHED | A_CLONE_CHILD_SETTID)
#define THREAD_REQUIRED (A_CLONE_VM | A_CLONE_FS | A_CLONE_FILES | A_CLONE_SIGHAND | A_CLONE_THREAD)

enum thr_state { THR_RUN, THR_FUTEX, THR_DEAD };

struct mach_thread {
	int32_t tid;
	unsigned int cpu; /* the virtual CPU it is bound to (creation order mod ncpus) */
	enum thr_state state;
	uint64_t seq; /* order of waiting (FIFO wakes) */
	uint64_t futex; /* the futex word waited on */
	uint32_t bitset;
	bool io_wait; /* it yielded at a system call that would block (mach_thread_would_block) */
	bool has_deadline;
	struct timespec deadline; /* CLOCK_MONOTONIC */

	struct axp_ctx ctx;
	uint64_t tid_address, robust_list, robust_len, ieee_state;
	char comm[16]; /* its command name (m->comm while it runs) */
	uint64_t sigmask, sigpending;
	struct mach_siginfo siginfo[MACH_NSIG + 1];
	uint64_t ss_sp, ss_size;
	int32_t ss_flags;
	bool has_saved_mask;
	uint64_t saved_mask;
	uint64_t insns, syscalls; /* statistics per thread */
};

struct mach_threads {
	struct mach_thread *t; /* creation order, dead ones kept for the statistics; t[cur]'s
				* state is stale while it runs (it is in the machine) */
	size_t n, cap, cur;
	int32_t next_tid;
	uint64_t seq;
	uint64_t insns0, syscalls0; /* m->insns/syscalls when t[cur] was switched in */
};

static void save(struct mach *m, struct mach_thread *t)
{
	t->ctx = m->ctx;
	t->tid_address = m->tid_address;
	t->robust_list = m->robust_list;
	t->robust_len = m->robust_len;
	t->ieee_state = m->ieee_state;
	memcpy(t->comm, m->comm, sizeof(t->comm));
	t->sigmask = m->sigmask;
	t->sigpending = m->sigpending;
	memcpy(t->siginfo, m->siginfo, sizeof(t->siginfo));
	t->ss_sp = m->ss_sp;
	t->ss_size = m->ss_size;
	t->ss_flags = m->ss_flags;
	t->has_saved_mask = m->has_saved_mask;
	t->saved_mask = m->saved_mask;
	t->insns += m->insns - m->thr->insns0;
	t->syscalls += m->syscalls - m->thr->syscalls0;
	m->thr->insns0 = m->insns;
	m->thr->syscalls0 = m->syscalls;
}

static void load(struct mach *m, size_t i)
{
	const struct mach_thread *t = &m->thr->t[i];

	m->thr->cur = i;
	m->tid = t->tid;
	m->cpu_id = t->cpu;
	if (m->model)
		m->model = m->models[t->cpu];
	m->ctx = t->ctx;
	m->ctx.lock_addr = AXP_NO_LOCK;
	m->tid_address = t->tid_address;
	m->robust_list = t->robust_list;
	m->robust_len = t->robust_len;
	m->ieee_state = t->ieee_state;
	memcpy(m->comm, t->comm, sizeof(m->comm));
	m->sigmask = t->sigmask;
	m->sigpending = t->sigpending;
	memcpy(m->siginfo, t->siginfo, sizeof(m->siginfo));
	m->ss_sp = t->ss_sp;
	m->ss_size = t->ss_size;
	m->ss_flags = t->ss_flags;
	m->has_saved_mask = t->has_saved_mask;
	m->saved_mask = t->saved_mask;
	m->thr->insns0 = m->insns;
	m->thr->syscalls0 = m->syscalls;
}

/* Live threads (running or waiting). */
static size_t live(const struct mach *m)
{
	size_t n = 0;

	if (!m->thr)
		return 1;
	for (size_t i = 0; i < m->thr->n; i++)
		n += m->thr->t[i].state != THR_DEAD;
	return n;
}

size_t mach_thread_count(const struct mach *m)
{
	return live(m);
}

uint64_t mach_thread_quantum(const struct mach *m)
{
	return m->opts.quantum ? m->opts.quantum : MACH_QUANTUM_DEFAULT;
}

/* The table, made on the first clone with the running thread as its first entry. */
static int threads_init(struct mach *m)
{
	struct mach_threads *th;

	if (m->thr)
		return 0;
	th = calloc(1, sizeof(*th));
	if (!th)
		return -ENOMEM;
	th->cap = 4;
	th->t = calloc(th->cap, sizeof(*th->t));
	if (!th->t) {
		free(th);
		return -ENOMEM;
	}
	th->n = 1;
	th->t[0].tid = m->tid;
	th->t[0].state = THR_RUN;
	th->next_tid = MACH_TID_BASE + 1;
	/* insns0 = syscalls0 = 0: the first thread's statistics start at the beginning */
	m->thr = th;
	m->slice = mach_thread_quantum(m);
	return 0;
}

void mach_threads_free(struct mach_threads *th)
{
	if (!th)
		return;
	free(th->t);
	free(th);
}

/* Name what is not supported, once per kind: "axprof run: PROG: WHAT 0xV not supported: WHY". */
void mach_warn_once(struct mach *m, unsigned int kind, const char *what, uint64_t v,
		    const char *why)
{
	if (m->warned & (1u << kind))
		return;
	m->warned |= 1u << kind;
	fprintf(m->err, "axprof run: %s: %s 0x%" PRIx64 " not supported: %s\n", m->prog, what, v,
		why);
}

/* clone() of a thread (flags has CLONE_VM without CLONE_VFORK): the new thread's tid. */
int64_t mach_thread_clone(struct mach *m, uint64_t flags, uint64_t newsp, uint64_t ptid,
			  uint64_t ctid, uint64_t tls)
{
	struct mach_threads *th;
	struct mach_thread *t;
	uint32_t tid32;
	int ret;

	if ((flags & ~(uint64_t)A_CSIGNAL & ~(uint64_t)THREAD_FLAGS) ||
	    (flags & THREAD_REQUIRED) != THREAD_REQUIRED || (flags & A_CSIGNAL)) {
		mach_warn_once(
			m, MACH_WARN_CLONE, "clone flags", flags,
			"EINVAL (a thread needs CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
			"CLONE_THREAD, as pthread_create passes; a process cannot share memory)");
		return -EINVAL;
	}
	ret = threads_init(m);
	if (ret)
		return ret;
	th = m->thr;
	if (th->n == th->cap) {
		struct mach_thread *nt = realloc(th->t, 2 * th->cap * sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		th->t = nt;
		th->cap *= 2;
	}
	t = &th->t[th->n];
	memset(t, 0, sizeof(*t));
	save(m, &th->t[th->cur]); /* the parent's state, which the child copies */
	*t = th->t[th->cur];
	t->tid = th->next_tid++;
	t->cpu = (unsigned int)(th->n % m->ncpus);
	t->state = THR_RUN;
	t->insns = t->syscalls = 0;
	t->sigpending = 0;
	memset(t->siginfo, 0, sizeof(t->siginfo));
	/* copy_process: CLONE_VM without CLONE_VFORK clears the alternate stack. */
	t->ss_sp = t->ss_size = 0;
	t->ss_flags = 2; /* SS_DISABLE */
	t->has_saved_mask = false;
	t->robust_list = t->robust_len = 0;
	t->tid_address = (flags & A_CLONE_CHILD_CLEARTID) ? ctid : 0;
	/* arch/alpha/kernel/process.c copy_thread. */
	if (newsp)
		t->ctx.r[30] = newsp;
	if (flags & A_CLONE_SETTLS)
		t->ctx.unique = tls;
	else
		m->ctx.r[20] = 0;
	t->ctx.r[0] = 0;
	t->ctx.r[19] = 0;
	t->ctx.r[20] = 1;
	t->ctx.lock_addr = AXP_NO_LOCK;
	tid32 = (uint32_t)t->tid;
	th->n++;
	if ((flags & A_CLONE_PARENT_SETTID) && mach_mem_write(m->mem, ptid, &tid32, 4))
		return -EFAULT;
	if ((flags & A_CLONE_CHILD_SETTID) && mach_mem_write(m->mem, ctid, &tid32, 4))
		return -EFAULT;
	return t->tid;
}

/* ---- futex (kernel/futex/waitwake.c, requeue.c) ---- */

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_REQUEUE 3
#define FUTEX_CMP_REQUEUE 4
#define FUTEX_WAKE_OP 5
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_PRIVATE 128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_CMD_MASK (~(uint64_t)(FUTEX_PRIVATE | FUTEX_CLOCK_REALTIME))

/* Make waiting thread i runnable with system-call result ret (a host errno when < 0). */
static void wake(struct mach *m, size_t i, int64_t ret)
{
	struct mach_thread *t = &m->thr->t[i];

	t->state = THR_RUN;
	if (ret < 0) {
		t->ctx.r[0] = (uint64_t)mach_errno_to_alpha((int)-ret);
		t->ctx.r[19] = 1;
	} else {
		t->ctx.r[0] = (uint64_t)ret;
		t->ctx.r[19] = 0;
	}
}

/* The waiters of uaddr (matching bitset), oldest first, at most max: woken with 0. */
static int64_t futex_wake(struct mach *m, uint64_t uaddr, uint32_t bitset, uint64_t max)
{
	int64_t n = 0;

	if (!bitset)
		return -EINVAL;
	if (!m->thr)
		return 0;
	while ((uint64_t)n < max) {
		size_t best = SIZE_MAX;

		for (size_t i = 0; i < m->thr->n; i++) {
			const struct mach_thread *t = &m->thr->t[i];

			if (t->state == THR_FUTEX && t->futex == uaddr && (t->bitset & bitset) &&
			    (best == SIZE_MAX || t->seq < m->thr->t[best].seq))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		wake(m, best, 0);
		n++;
	}
	return n;
}

/* Move up to max waiters of uaddr to uaddr2 (oldest first). */
static int64_t futex_requeue(struct mach *m, uint64_t uaddr, uint64_t uaddr2, uint64_t max)
{
	int64_t n = 0;

	for (size_t i = 0; m->thr && i < m->thr->n && (uint64_t)n < max; i++) {
		struct mach_thread *t = &m->thr->t[i];

		if (t->state == THR_FUTEX && t->futex == uaddr) {
			t->futex = uaddr2;
			n++;
		}
	}
	return n;
}

static int64_t futex_wait(struct mach *m, uint64_t uaddr, uint32_t val, uint64_t tsva,
			  uint32_t bitset, bool absolute, bool realtime)
{
	struct mach_thread *t;
	struct timespec ts = { 0, 0 }, now;
	uint32_t v;
	int ret;

	if (!bitset || (uaddr & 3))
		return -EINVAL;
	if (mach_mem_read(m->mem, uaddr, &v, 4))
		return -EFAULT;
	if (v != val)
		return -EAGAIN;
	if (tsva) {
		uint64_t q[2];

		if (mach_mem_read(m->mem, tsva, q, sizeof(q)))
			return -EFAULT;
		if ((int64_t)q[0] < 0 || q[1] >= 1000000000)
			return -EINVAL;
		ts.tv_sec = (time_t)q[0];
		ts.tv_nsec = (long)q[1];
	}
	if (live(m) == 1) {
		/* Nobody else can wake the only thread: a timeout elapses, otherwise deadlock. */
		if (!tsva)
			return -EDEADLK;
		if (!absolute)
			nanosleep(&ts, NULL);
		else
			clock_nanosleep(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, TIMER_ABSTIME,
					&ts, NULL);
		return -ETIMEDOUT;
	}
	ret = threads_init(m);
	if (ret)
		return ret;
	t = &m->thr->t[m->thr->cur];
	t->state = THR_FUTEX;
	t->futex = uaddr;
	t->bitset = bitset;
	t->seq = m->thr->seq++;
	t->has_deadline = tsva != 0;
	if (tsva) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (absolute && realtime) {
			struct timespec rt;

			clock_gettime(CLOCK_REALTIME, &rt);
			ts.tv_sec -= rt.tv_sec;
			ts.tv_nsec -= rt.tv_nsec;
			absolute = false;
		}
		if (!absolute) {
			ts.tv_sec += now.tv_sec;
			ts.tv_nsec += now.tv_nsec;
		}
		while (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		while (ts.tv_nsec < 0) {
			ts.tv_sec--;
			ts.tv_nsec += 1000000000;
		}
		t->deadline = ts;
	}
	m->resched = true;
	return SYS_NORET; /* the result is set when it wakes */
}

/* FUTEX_WAKE_OP's operation on *uaddr2 and its comparison (include/uapi/linux/futex.h). */
static int futex_wake_op(struct mach *m, uint64_t uaddr2, uint32_t op, bool *wake2)
{
	uint32_t old, nv, oparg = (op >> 12) & 0xfff, cmparg = op & 0xfff;
	int32_t so, sc;

	if (op & (8u << 28))
		oparg = 1u << (oparg & 31);
	if (mach_mem_read(m->mem, uaddr2, &old, 4))
		return -EFAULT;
	/* sign-extend the 12-bit fields */
	so = (int32_t)(oparg << 20) >> 20;
	sc = (int32_t)(cmparg << 20) >> 20;
	if (op & (8u << 28))
		so = (int32_t)oparg;
	switch ((op >> 28) & 7) {
	case 0:
		nv = (uint32_t)so;
		break;
	case 1:
		nv = old + (uint32_t)so;
		break;
	case 2:
		nv = old | (uint32_t)so;
		break;
	case 3:
		nv = old & ~(uint32_t)so;
		break;
	case 4:
		nv = old ^ (uint32_t)so;
		break;
	default:
		return -ENOSYS;
	}
	if (mach_mem_write(m->mem, uaddr2, &nv, 4))
		return -EFAULT;
	switch ((op >> 24) & 15) {
	case 0:
		*wake2 = (int32_t)old == sc;
		break;
	case 1:
		*wake2 = (int32_t)old != sc;
		break;
	case 2:
		*wake2 = (int32_t)old < sc;
		break;
	case 3:
		*wake2 = (int32_t)old <= sc;
		break;
	case 4:
		*wake2 = (int32_t)old > sc;
		break;
	case 5:
		*wake2 = (int32_t)old >= sc;
		break;
	default:
		return -ENOSYS;
	}
	return 0;
}

/* futex(uaddr, op, val, timeout/val2, uaddr2, val3). */
int64_t mach_futex(struct mach *m, const uint64_t *a)
{
	uint64_t cmd = a[1] & FUTEX_CMD_MASK;
	bool rt = a[1] & FUTEX_CLOCK_REALTIME;
	uint32_t v;
	int64_t n, n2;
	bool w2 = false;
	int ret;

	switch (cmd) {
	case FUTEX_WAIT:
		return futex_wait(m, a[0], (uint32_t)a[2], a[3], ~0u, false, false);
	case FUTEX_WAIT_BITSET:
		return futex_wait(m, a[0], (uint32_t)a[2], a[3], (uint32_t)a[5], true, rt);
	case FUTEX_WAKE:
		return futex_wake(m, a[0], ~0u, (uint32_t)a[2]);
	case FUTEX_WAKE_BITSET:
		return futex_wake(m, a[0], (uint32_t)a[5], (uint32_t)a[2]);
	case FUTEX_CMP_REQUEUE:
		if (mach_mem_read(m->mem, a[0], &v, 4))
			return -EFAULT;
		if (v != (uint32_t)a[5])
			return -EAGAIN;
		/* fall through */
	case FUTEX_REQUEUE:
		if ((int32_t)a[2] < 0 || (int32_t)a[3] < 0)
			return -EINVAL;
		n = futex_wake(m, a[0], ~0u, (uint32_t)a[2]);
		return n + futex_requeue(m, a[0], a[4], (uint32_t)a[3]);
	case FUTEX_WAKE_OP:
		ret = futex_wake_op(m, a[4], (uint32_t)a[5], &w2);
		if (ret)
			return ret;
		n = futex_wake(m, a[0], ~0u, (uint32_t)a[2]);
		n2 = w2 ? futex_wake(m, a[4], ~0u, (uint32_t)a[3]) : 0;
		return n + n2;
	default:
		mach_warn_once(
			m, MACH_WARN_FUTEX, "futex operation", cmd,
			"ENOSYS (only WAIT, WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP and the BITSET "
			"ones are)");
		return -ENOSYS;
	}
}

/* ---- exit ---- */

/* exit(2) of the running thread: clear_child_tid and its futex wake (kernel/fork.c
 * mm_release), then the thread is gone; the last one ends the process. */
int64_t mach_thread_exit(struct mach *m, int code)
{
	uint32_t zero = 0;

	if (live(m) <= 1) {
		m->exited = true;
		m->exit_code = code & 0xff;
		return SYS_NORET;
	}
	if (m->tid_address && !mach_mem_write(m->mem, m->tid_address, &zero, 4))
		futex_wake(m, m->tid_address, ~0u, 1);
	save(m, &m->thr->t[m->thr->cur]);
	m->thr->t[m->thr->cur].state = THR_DEAD;
	m->resched = true;
	return SYS_NORET;
}

int64_t mach_thread_yield(struct mach *m)
{
	if (live(m) > 1)
		m->resched = true;
	return 0;
}

/* ---- system calls that would block ---- */

/* Would read(fd) block? Only descriptors poll can say it of (pipes, terminals, sockets). */
static bool fd_would_block(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* Would wait4(pid, options) block: children exist, none has changed state yet? */
static bool wait_would_block(struct mach *m, int64_t vpid, uint64_t options)
{
	siginfo_t si;
	int64_t pid = mach_vpid_wait_arg(m, vpid);
	idtype_t type = pid < -1 ? P_PGID : pid == -1 ? P_ALL : pid == 0 ? P_PGID : P_PID;
	id_t id = pid < -1 ? (id_t)-pid : pid > 0 ? (id_t)pid : 0;
	int opt = WEXITED | WNOHANG | WNOWAIT | ((options & 2) ? WSTOPPED : 0);

	if ((options & 1) || pid == -ECHILD) /* WNOHANG, or fails at once */
		return false;
	memset(&si, 0, sizeof(si));
	return !waitid(type, id, &si, opt) && si.si_pid == 0;
}

/*
 * A blocking system call with other threads that could run: if it would block (no data to
 * read, no child to reap), the thread yields instead and makes the call again at its next
 * turn, so the thread that will write the pipe or the child that will exit gets to run. When
 * no other thread can run, the call blocks in the host. True: the caller must re-issue the call
 * later (pc back on the callsys).
 */
bool mach_thread_would_block(struct mach *m, unsigned int nr, const uint64_t *a)
{
	struct mach_thread *me;
	bool other = false, block;

	if (!m->thr || live(m) < 2)
		return false;
	switch (nr) {
	case MACH_NR_read:
	case MACH_NR_readv:
		block = fd_would_block((int)a[0]);
		break;
	case MACH_NR_wait4:
		block = wait_would_block(m, (int64_t)(int32_t)a[0], a[2]);
		break;
	default:
		return false;
	}
	me = &m->thr->t[m->thr->cur];
	me->io_wait = block;
	if (!block)
		return false;
	for (size_t i = 0; i < m->thr->n; i++)
		if (i != m->thr->cur && m->thr->t[i].state == THR_RUN && !m->thr->t[i].io_wait)
			other = true;
	if (!other)
		return false; /* nobody else can make progress: block in the host */
	m->resched = true;
	return true;
}

/* ---- signals to threads ---- */

/* Raise si in thread tid (0: the running one); a waiting thread it can interrupt wakes with
 * EINTR. si NULL: only check that the thread exists. -ESRCH if there is no such thread. */
int mach_thread_signal(struct mach *m, int32_t tid, const struct mach_siginfo *si)
{
	size_t cur, i;
	struct mach_thread *t;

	if (!tid || tid == m->tid) {
		if (si)
			mach_signal_raise(m, si);
		return 0;
	}
	if (!m->thr)
		return -ESRCH;
	for (i = 0; i < m->thr->n; i++)
		if (m->thr->t[i].tid == tid && m->thr->t[i].state != THR_DEAD)
			break;
	if (i == m->thr->n)
		return -ESRCH;
	if (!si)
		return 0;
	/* Raise it with the thread's state in the machine, then put both back. */
	cur = m->thr->cur;
	save(m, &m->thr->t[cur]);
	load(m, i);
	mach_signal_raise(m, si);
	save(m, &m->thr->t[i]);
	load(m, cur);
	t = &m->thr->t[i];
	if (t->state == THR_FUTEX && (t->sigpending & ~t->sigmask))
		wake(m, i, -EINTR);
	return 0;
}

/* ---- the scheduler ---- */

static bool deadline_passed(const struct mach_thread *t, const struct timespec *now)
{
	return t->has_deadline &&
	       (now->tv_sec > t->deadline.tv_sec ||
		(now->tv_sec == t->deadline.tv_sec && now->tv_nsec >= t->deadline.tv_nsec));
}

/* Wake the waiters whose timeout has passed; the earliest deadline, if any, in *first. */
static void expire(struct mach *m, size_t *first)
{
	struct timespec now;

	*first = SIZE_MAX;
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < m->thr->n; i++) {
		struct mach_thread *t = &m->thr->t[i];

		if (t->state != THR_FUTEX || !t->has_deadline)
			continue;
		if (deadline_passed(t, &now))
			wake(m, i, -ETIMEDOUT);
		else if (*first == SIZE_MAX ||
			 t->deadline.tv_sec < m->thr->t[*first].deadline.tv_sec ||
			 (t->deadline.tv_sec == m->thr->t[*first].deadline.tv_sec &&
			  t->deadline.tv_nsec < m->thr->t[*first].deadline.tv_nsec))
			*first = i;
	}
}

/* The next runnable thread after cur in round-robin order (cur itself last). */
static size_t next_runnable(const struct mach *m)
{
	size_t n = m->thr->n;

	for (size_t k = 1; k <= n; k++) {
		size_t i = (m->thr->cur + k) % n;

		if (m->thr->t[i].state == THR_RUN)
			return i;
	}
	return SIZE_MAX;
}

/* Every thread waits: sleep until the earliest timeout or a host signal (taken by the thread
 * in the machine, woken with EINTR when it does not block it). */
static void wait_all(struct mach *m, size_t first)
{
	sigset_t all, old;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	mach_signal_poll(m);
	if (!(m->sigpending & ~m->sigmask) && !m->interrupted) {
		if (first != SIZE_MAX) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &m->thr->t[first].deadline,
					NULL);
			return;
		}
		sigsuspend(&old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	mach_signal_poll(m);
}

void mach_sched(struct mach *m)
{
	struct mach_threads *th = m->thr;
	size_t i, first;

	m->resched = false;
	m->slice = mach_thread_quantum(m);
	if (!th)
		return;
	save(m, &th->t[th->cur]);
	for (;;) {
		expire(m, &first);
		i = next_runnable(m);
		if (i != SIZE_MAX)
			break;
		/* Nobody can run: the current thread's state is in the machine while we wait. */
		if (th->t[th->cur].state == THR_DEAD) {
			for (size_t k = 0; k < th->n; k++)
				if (th->t[k].state != THR_DEAD) {
					load(m, k);
					break;
				}
		}
		wait_all(m, first);
		save(m, &th->t[th->cur]);
		if (m->interrupted)
			return;
		if ((m->sigpending & ~m->sigmask) && th->t[th->cur].state == THR_FUTEX)
			wake(m, th->cur, -EINTR);
	}
	load(m, i);
}

/* In a forked child: only the calling thread exists, its tid the new pid. */
void mach_thread_fork_child(struct mach *m)
{
	m->tid = m->pid;
	if (!m->thr)
		return;
	mach_threads_free(m->thr);
	m->thr = NULL;
}

void mach_thread_print_stats(struct mach *m, FILE *f)
{
	if (!m->thr)
		return;
	save(m, &m->thr->t[m->thr->cur]);
	for (size_t i = 0; i < m->thr->n; i++)
		fprintf(f,
			"axprof run: pid %" PRId32 " tid %" PRId32 " (%s): %" PRIu64
			" instructions, %" PRIu64 " system calls\n",
			m->pid, m->thr->t[i].tid, m->thr->t[i].comm, m->thr->t[i].insns,
			m->thr->t[i].syscalls);
}

const char *mach_thread_leader_comm(const struct mach *m)
{
	if (!m->thr || m->thr->cur == 0)
		return m->comm;
	return m->thr->t[0].comm; /* saved when it was switched out */
}
