/* machine/mach_sys.c - Linux/Alpha system calls: dispatch, ABI translation, process and memory. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "mach_kern.h"
#include "mach_sys.h"

/*
 * Calling convention (arch/alpha/kernel/entry.S entSys): v0 (r0) = number, a0-a5 (r16-r21) =
 * arguments; on return v0 = result and a3 (r19) = 0, or v0 = positive errno and a3 = 1. A few
 * calls return a second value in a4 (r20): getxpid, getxuid, getxgid, pipe.
 */

/* ---------------------------------------------------------------------------------------- */
/* ABI tables. */

static const char *const sys_names[MACH_NR_MAX] = {
#define MACH_SYSNR(name, nr) [nr] = #name,
#include "mach_sysnr.h"
#undef MACH_SYSNR
};

const char *mach_sysname(unsigned int nr)
{
	return nr < MACH_NR_MAX ? sys_names[nr] : NULL;
}

/* host errno -> Alpha errno (asm/errno.h, generated); unknown ones become EINVAL. */
static const int16_t errno_h2a[4096] = {
#define MACH_ERRNO(name, val) [name] = val,
#include "mach_errno.h"
#undef MACH_ERRNO
};

int mach_errno_to_alpha(int e)
{
	if (e > 0 && e < 4096 && errno_h2a[e])
		return errno_h2a[e];
	return 22; /* EINVAL */
}

struct signame {
	int alpha, host;
	const char *name;
};

static const struct signame signames[] = {
#define MACH_SIGNO(name, val) { val, name, #name },
#include "mach_signo.h"
#undef MACH_SIGNO
};

int mach_signo_to_alpha(int host_sig)
{
	if (host_sig >= 32 && host_sig < 64)
		return host_sig; /* real-time signals keep their kernel numbers */
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].host == host_sig)
			return signames[i].alpha;
	if (host_sig == SIGPWR)
		return MACH_SIGINFO;
	return 0;
}

int mach_signo_to_host(int alpha_sig)
{
	if (alpha_sig >= 32 && alpha_sig < 64)
		return alpha_sig;
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].alpha == alpha_sig)
			return signames[i].host;
	if (alpha_sig == MACH_SIGINFO)
		return SIGPWR;
	return 0;
}

const char *mach_signame(int alpha_sig)
{
	static char buf[16];

	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].alpha == alpha_sig)
			return signames[i].name;
	if (alpha_sig == MACH_SIGEMT)
		return "SIGEMT";
	if (alpha_sig == MACH_SIGINFO)
		return "SIGINFO";
	snprintf(buf, sizeof(buf), "signal %d", alpha_sig);
	return buf;
}

uint64_t mach_swcr_to_fpcr(uint64_t sw)
{
	const uint64_t status = 0x7eull << 16, inv_dze_ovf = 0xeull, unf_ine = 0x30ull;
	uint64_t fp;

	fp = (sw & status) << 35;
	fp |= (sw & (1ull << 12)) << 36; /* IEEE_MAP_DMZ -> DNZ */
	fp |= (sw & status) ? 1ull << 63 : 0; /* SUM */
	fp |= (~sw & inv_dze_ovf) << 48;
	fp |= (~sw & unf_ine) << 57;
	fp |= (sw & (1ull << 13)) ? (1ull << 60) | (1ull << 61) : 0; /* IEEE_MAP_UMZ */
	fp |= (~sw & (1ull << 6)) << 41; /* DNO */
	return fp;
}

uint64_t mach_fpcr_to_swcr(uint64_t fp)
{
	uint64_t sw;

	sw = (fp >> 35) & (0x7eull << 16);
	sw |= (fp >> 36) & (1ull << 12);
	sw |= (~fp >> 48) & 0xeull;
	sw |= (~fp >> 57) & 0x30ull;
	sw |= (fp >> 47) & (1ull << 13);
	sw |= (~fp >> 41) & (1ull << 6);
	return sw;
}

/* ---------------------------------------------------------------------------------------- */
/* Paths. */

int sys_path(struct mach *m, int dirfd, uint64_t va, unsigned int how, char *buf, size_t len,
	     const char **out)
{
	const char *s;
	int ret = mach_mem_str(m->mem, va, PATH_MAX, &s);

	if (ret)
		return ret;
	if (!strcmp(s, "/proc/self/exe") || !strcmp(s, "/proc/self/exe/")) {
		snprintf(buf, len, "%s", m->exe);
		*out = buf;
		return 0;
	}
	if (m->confine.on)
		return mach_confine_path(m, dirfd, s, how, buf, len, out);
	*out = mach_path(m, s, buf, len);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Process. */

static int64_t sys_exit(struct mach *m, const uint64_t *a)
{
	return mach_thread_exit(m, (int)a[0]);
}

static int64_t sys_exit_group(struct mach *m, const uint64_t *a)
{
	m->exited = true;
	m->exit_code = (int)(a[0] & 0xff);
	return SYS_NORET;
}

static int64_t sys_getxpid(struct mach *m, const uint64_t *a)
{
	(void)a;
	m->ctx.r[20] = (uint64_t)mach_vpid_ppid(m);
	return m->pid;
}

/* The parent's virtual pid (mach_vpid.c). */
static int64_t sys_getppid(struct mach *m, const uint64_t *a)
{
	(void)a;
	return mach_vpid_ppid(m);
}

static int64_t sys_getxuid(struct mach *m, const uint64_t *a)
{
	(void)a;
	m->ctx.r[20] = geteuid();
	return getuid();
}

static int64_t sys_getxgid(struct mach *m, const uint64_t *a)
{
	(void)a;
	m->ctx.r[20] = getegid();
	return getgid();
}

static int64_t sys_geteuid(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return geteuid();
}

static int64_t sys_getegid(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return getegid();
}

static int64_t sys_gettid(struct mach *m, const uint64_t *a)
{
	(void)a;
	return m->tid;
}

static int64_t sys_set_tid_address(struct mach *m, const uint64_t *a)
{
	m->tid_address = a[0];
	return m->tid;
}

static int64_t sys_set_robust_list(struct mach *m, const uint64_t *a)
{
	if (a[1] != 24) /* sizeof(struct robust_list_head) */
		return -EINVAL;
	m->robust_list = a[0];
	m->robust_len = a[1];
	return 0;
}

static int64_t sys_enosys(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return -ENOSYS;
}

/*
 * Process groups and sessions: their ids are pids, so virtual ones (mach_vpid.c). An argument
 * names a process of the run (0: the caller); a group or session led from outside the run reads
 * as 0.
 */
static pid_t host_pid_arg(struct mach *m, uint64_t a)
{
	return (pid_t)a ? mach_vpid_to_host(m, (int32_t)a) : 0;
}

static int64_t vpid_ret(struct mach *m, pid_t r)
{
	return r < 0 ? -errno : mach_vpid_of_host(m, r);
}

static int64_t sys_getpgrp(struct mach *m, const uint64_t *a)
{
	(void)a;
	return mach_vpid_of_host(m, getpgrp());
}

static int64_t sys_getpgid(struct mach *m, const uint64_t *a)
{
	pid_t h = host_pid_arg(m, a[0]);

	return h < 0 ? -ESRCH : vpid_ret(m, getpgid(h));
}

static int64_t sys_setpgid(struct mach *m, const uint64_t *a)
{
	pid_t h = host_pid_arg(m, a[0]), g = host_pid_arg(m, a[1]);

	if (h < 0)
		return -ESRCH;
	if (g < 0)
		return (int32_t)a[1] < 0 ? -EINVAL : -EPERM; /* no such group in the session */
	return sys_ret(setpgid(h, g));
}

static int64_t sys_getsid(struct mach *m, const uint64_t *a)
{
	pid_t h = host_pid_arg(m, a[0]);

	return h < 0 ? -ESRCH : vpid_ret(m, getsid(h));
}

static int64_t sys_setsid(struct mach *m, const uint64_t *a)
{
	(void)a;
	return vpid_ret(m, setsid());
}

static int64_t sys_getgroups(struct mach *m, const uint64_t *a)
{
	int n = (int)a[0];
	void *p = NULL;

	if (n < 0)
		return -EINVAL;
	if (n && sys_buf(m, a[1], (uint64_t)n * 4, MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(getgroups(n, p));
}

static int64_t sys_getresuid(struct mach *m, const uint64_t *a)
{
	uid_t r, e, s;
	uint32_t v[3];

	if (getresuid(&r, &e, &s))
		return -errno;
	v[0] = r, v[1] = e, v[2] = s;
	for (int i = 0; i < 3; i++)
		if (mach_mem_write(m->mem, a[i], &v[i], 4))
			return -EFAULT;
	return 0;
}

static int64_t sys_getresgid(struct mach *m, const uint64_t *a)
{
	gid_t r, e, s;
	uint32_t v[3];

	if (getresgid(&r, &e, &s))
		return -errno;
	v[0] = r, v[1] = e, v[2] = s;
	for (int i = 0; i < 3; i++)
		if (mach_mem_write(m->mem, a[i], &v[i], 4))
			return -EFAULT;
	return 0;
}

/* set*id: the machine is the process; pretend success only for no-op changes. */
static int64_t sys_setid(struct mach *m, const uint64_t *a)
{
	(void)m;
	return (a[0] == getuid() || a[0] == (uint64_t)-1) ? 0 : -EPERM;
}

static int64_t sys_setgroups(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return -EPERM;
}

/* setreuid/setresuid and friends: -1 or the current ids are no-ops; anything else EPERM. */
static int64_t check_ids(const uint64_t *a, int n)
{
	for (int i = 0; i < n; i++)
		if ((uint32_t)a[i] != UINT32_MAX && a[i] != getuid() && a[i] != getgid())
			return -EPERM;
	return 0;
}

static int64_t sys_setreids(struct mach *m, const uint64_t *a)
{
	(void)m;
	return check_ids(a, 2);
}

static int64_t sys_setresids(struct mach *m, const uint64_t *a)
{
	(void)m;
	return check_ids(a, 3);
}

static int64_t sys_sched_getparam(struct mach *m, const uint64_t *a)
{
	int32_t prio = 0;

	return mach_mem_write(m->mem, a[1], &prio, 4);
}

static int64_t sys_sched_prio(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return 0; /* SCHED_OTHER has priority 0 only */
}

static int64_t sys_umask(struct mach *m, const uint64_t *a)
{
	(void)m;
	return umask((mode_t)(a[0] & 0777));
}

static int64_t sys_uname(struct mach *m, const uint64_t *a)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	snprintf(u.machine, sizeof(u.machine), "alpha");
	/* struct new_utsname: six 65-byte strings, as on the host. */
	return mach_mem_write(m->mem, a[0], &u, 6 * 65);
}

static int64_t sys_sethostname(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return -EPERM;
}

static int64_t sys_sysinfo(struct mach *m, const uint64_t *a)
{
	struct sysinfo si;

	/* struct sysinfo of a 64-bit kernel: the same layout on Alpha and the host. */
	if (sysinfo(&si))
		return -errno;
	return mach_mem_write(m->mem, a[0], &si, 112);
}

/* Resource numbers: Alpha swaps NOFILE/AS/NPROC/MEMLOCK (asm/resource.h). */
static int rlimit_to_host(uint64_t r)
{
	static const int map[16] = {
		RLIMIT_CPU,	 RLIMIT_FSIZE,	 RLIMIT_DATA,	RLIMIT_STACK,
		RLIMIT_CORE,	 RLIMIT_RSS,	 RLIMIT_NOFILE, RLIMIT_AS,
		RLIMIT_NPROC,	 RLIMIT_MEMLOCK, RLIMIT_LOCKS,	RLIMIT_SIGPENDING,
		RLIMIT_MSGQUEUE, RLIMIT_NICE,	 RLIMIT_RTPRIO, RLIMIT_RTTIME,
	};
	return r < 16 ? map[r] : -1;
}

#define ALPHA_RLIM_INFINITY 0x7fffffffffffffffull

static uint64_t rlim_to_alpha(rlim_t v)
{
	return v == RLIM_INFINITY || v > ALPHA_RLIM_INFINITY ? ALPHA_RLIM_INFINITY : v;
}

static rlim_t rlim_to_host(uint64_t v)
{
	return v >= ALPHA_RLIM_INFINITY ? RLIM_INFINITY : v;
}

static int64_t do_prlimit(struct mach *m, uint64_t res, uint64_t newva, uint64_t oldva)
{
	int r = rlimit_to_host(res);
	struct rlimit nl, ol;
	uint64_t v[2];

	if (r < 0)
		return -EINVAL;
	if (newva) {
		if (mach_mem_read(m->mem, newva, v, 16))
			return -EFAULT;
		nl.rlim_cur = rlim_to_host(v[0]);
		nl.rlim_max = rlim_to_host(v[1]);
	}
	/* The stack is mapped whole (8 MB) and address-space limits would bite the host. */
	if (newva && (r == RLIMIT_STACK || r == RLIMIT_AS || r == RLIMIT_DATA)) {
		if (getrlimit(r, &ol))
			return -errno;
	} else if (prlimit(0, r, newva ? &nl : NULL, &ol)) {
		return -errno;
	}
	if (oldva) {
		v[0] = rlim_to_alpha(ol.rlim_cur);
		v[1] = rlim_to_alpha(ol.rlim_max);
		if (r == RLIMIT_STACK && v[0] == ALPHA_RLIM_INFINITY)
			v[0] = MACH_STACK_SIZE;
		if (mach_mem_write(m->mem, oldva, v, 16))
			return -EFAULT;
	}
	return 0;
}

static int64_t sys_prlimit64(struct mach *m, const uint64_t *a)
{
	if ((int32_t)a[0] && (int32_t)a[0] != m->pid)
		return -ESRCH;
	return do_prlimit(m, a[1], a[2], a[3]);
}

static int64_t sys_getrlimit(struct mach *m, const uint64_t *a)
{
	return do_prlimit(m, a[0], 0, a[1]);
}

static int64_t sys_setrlimit(struct mach *m, const uint64_t *a)
{
	return do_prlimit(m, a[0], a[1], 0);
}

static int64_t sys_getrusage(struct mach *m, const uint64_t *a)
{
	struct rusage ru;

	/* struct rusage with 64-bit timevals: the same layout as the host's. */
	if (getrusage((int)a[0], &ru))
		return -errno;
	return mach_mem_write(m->mem, a[1], &ru, sizeof(ru));
}

static int64_t sys_times(struct mach *m, const uint64_t *a)
{
	struct tms t;
	clock_t c = times(&t);

	if (a[0] && mach_mem_write(m->mem, a[0], &t, sizeof(t)))
		return -EFAULT;
	return sys_force(m, (uint64_t)c);
}

static int64_t sys_getpriority(struct mach *m, const uint64_t *a)
{
	int v;

	errno = 0;
	v = getpriority((int)a[0], (id_t)a[1]);
	if (v == -1 && errno)
		return -errno;
	/* The raw system call returns 20 - nice; Alpha forces success (osf_sys.c). */
	return sys_force(m, (uint64_t)(20 - v));
}

static int64_t sys_setpriority(struct mach *m, const uint64_t *a)
{
	(void)m;
	return sys_ret(setpriority((int)a[0], (id_t)a[1], (int)a[2]));
}

void mach_set_comm(struct mach *m, const char *name)
{
	memset(m->comm, 0, sizeof(m->comm));
	for (unsigned int i = 0; i < sizeof(m->comm) - 1 && name[i]; i++)
		m->comm[i] = name[i];
}

static int64_t sys_prctl(struct mach *m, const uint64_t *a)
{
	char name[16];

	switch (a[0]) {
	case 15: /* PR_SET_NAME: the thread's comm, up to 15 bytes (kernel/sys.c) */
		memset(name, 0, sizeof(name));
		for (unsigned int i = 0; i < sizeof(name) - 1; i++) {
			if (mach_mem_read(m->mem, a[1] + i, &name[i], 1))
				return -EFAULT;
			if (!name[i])
				break;
		}
		mach_set_comm(m, name);
		return 0;
	case 16: /* PR_GET_NAME */
		memcpy(name, m->comm, sizeof(name));
		return mach_mem_write(m->mem, a[1], name, sizeof(name));
	case 1: /* PR_SET_PDEATHSIG */
	case 4: /* PR_SET_DUMPABLE */
		return 0;
	case 3: /* PR_GET_DUMPABLE */
		return 1;
	default:
		return -EINVAL;
	}
}

static int64_t sys_personality(struct mach *m, const uint64_t *a)
{
	(void)m;
	return a[0] == 0xffffffff || a[0] == 0 ? 0 : -EINVAL;
}

/* ---------------------------------------------------------------------------------------- */
/* Time. */

static int64_t sys_clock_gettime(struct mach *m, const uint64_t *a)
{
	struct timespec ts;

	if (clock_gettime((clockid_t)a[0], &ts))
		return -errno;
	return mach_mem_write(m->mem, a[1], &ts, sizeof(ts));
}

static int64_t sys_clock_getres(struct mach *m, const uint64_t *a)
{
	struct timespec ts;

	if (clock_getres((clockid_t)a[0], &ts))
		return -errno;
	return a[1] ? mach_mem_write(m->mem, a[1], &ts, sizeof(ts)) : 0;
}

static int64_t sys_gettimeofday(struct mach *m, const uint64_t *a)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	if (a[0] && mach_mem_write(m->mem, a[0], &tv, sizeof(tv)))
		return -EFAULT;
	if (a[1]) {
		uint32_t tz[2] = { 0, 0 };

		if (mach_mem_write(m->mem, a[1], tz, sizeof(tz)))
			return -EFAULT;
	}
	return 0;
}

/* osf_gettimeofday: struct timeval32 (two 32-bit words). */
static int64_t sys_osf_gettimeofday(struct mach *m, const uint64_t *a)
{
	struct timeval tv;
	int32_t t[2];

	gettimeofday(&tv, NULL);
	t[0] = (int32_t)tv.tv_sec;
	t[1] = (int32_t)tv.tv_usec;
	if (a[0] && mach_mem_write(m->mem, a[0], t, sizeof(t)))
		return -EFAULT;
	return 0;
}

static int64_t sys_nanosleep(struct mach *m, const uint64_t *a)
{
	struct timespec req, rem;
	int ret;

	if (mach_mem_read(m->mem, a[0], &req, sizeof(req)))
		return -EFAULT;
	ret = nanosleep(&req, &rem);
	if (ret && errno == EINTR && a[1])
		mach_mem_write(m->mem, a[1], &rem, sizeof(rem));
	return sys_ret(ret);
}

static int64_t sys_clock_nanosleep(struct mach *m, const uint64_t *a)
{
	struct timespec req, rem;
	int ret;

	if (mach_mem_read(m->mem, a[2], &req, sizeof(req)))
		return -EFAULT;
	ret = clock_nanosleep((clockid_t)a[0], (int)a[1], &req, &rem);
	if (ret == EINTR && a[3] && !(a[1] & TIMER_ABSTIME))
		mach_mem_write(m->mem, a[3], &rem, sizeof(rem));
	return -ret;
}

static int64_t sys_getitimer(struct mach *m, const uint64_t *a)
{
	struct itimerval v;

	if (getitimer((int)a[0], &v))
		return -errno;
	return mach_mem_write(m->mem, a[1], &v, sizeof(v));
}

static int64_t sys_setitimer(struct mach *m, const uint64_t *a)
{
	struct itimerval v, o;

	if (mach_mem_read(m->mem, a[1], &v, sizeof(v)))
		return -EFAULT;
	if (setitimer((int)a[0], &v, &o))
		return -errno;
	return a[2] ? mach_mem_write(m->mem, a[2], &o, sizeof(o)) : 0;
}

static int64_t sys_getrandom(struct mach *m, const uint64_t *a)
{
	void *p;

	if (sys_buf(m, a[0], a[1], MACH_PROT_W, &p))
		return -EFAULT;
	return sys_ret(getrandom(p, a[1], (unsigned int)a[2]));
}

/* ---------------------------------------------------------------------------------------- */
/* Memory. */

static int64_t sys_brk(struct mach *m, const uint64_t *a)
{
	return sys_force(m, mach_mem_brk(m->mem, a[0]));
}

static unsigned int prot_from_alpha(uint64_t p)
{
	/* PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4 (asm/mman.h) */
	return ((p & 1) ? MACH_PROT_R : 0) | ((p & 2) ? MACH_PROT_W : 0) |
	       ((p & 4) ? MACH_PROT_X : 0);
}

#define A_MAP_SHARED 0x01
#define A_MAP_PRIVATE 0x02
#define A_MAP_SHARED_VALIDATE 0x03
#define A_MAP_TYPE 0x0f
#define A_MAP_FIXED 0x100
#define A_MAP_ANONYMOUS 0x10
#define A_MAP_FIXED_NOREPLACE 0x200000

static int64_t sys_mmap(struct mach *m, const uint64_t *a)
{
	uint64_t addr = a[0], len = a[1], flags = a[3], off = a[5], va;
	int fd = (int)a[4];
	unsigned int mf = 0;
	int ret;

	switch (flags & A_MAP_TYPE) {
	case A_MAP_SHARED:
	case A_MAP_SHARED_VALIDATE:
		mf |= MACH_MAP_SHARED;
		break;
	case A_MAP_PRIVATE:
		break;
	default:
		return -EINVAL;
	}
	if (flags & A_MAP_FIXED)
		mf |= MACH_MAP_FIXED;
	else if (flags & A_MAP_FIXED_NOREPLACE)
		mf |= MACH_MAP_NOREPLACE;
	if (flags & A_MAP_ANONYMOUS)
		fd = -1;
	else if (fd < 0)
		return -EBADF;
	ret = mach_mem_map(m->mem, addr, len, prot_from_alpha(a[2]), mf, fd, off, &va);
	if (ret)
		return ret;
	mach_ev_mmap(m, va, len, prot_from_alpha(a[2]), fd, NULL, off);
	return sys_force(m, va);
}

static int64_t sys_munmap(struct mach *m, const uint64_t *a)
{
	int ret = mach_mem_unmap(m->mem, a[0], a[1]);

	if (!ret)
		mach_ev_munmap(m, a[0], a[1]);
	return ret;
}

static int64_t sys_mprotect(struct mach *m, const uint64_t *a)
{
	bool was_x = mach_ev_range_exec(m, a[0], a[1]);
	int ret = mach_mem_protect(m->mem, a[0], a[1], prot_from_alpha(a[2]));

	if (!ret)
		mach_ev_mprotect(m, a[0], a[1], prot_from_alpha(a[2]), was_x);
	return ret;
}

static int64_t sys_mremap(struct mach *m, const uint64_t *a)
{
	uint64_t va;
	int ret = mach_mem_remap(m->mem, a[0], a[1], a[2], (unsigned int)a[3] & 3, a[4], &va);

	if (ret)
		return ret;
	mach_ev_mremap(m, a[0], a[1], va, a[2]);
	return sys_force(m, va);
}

static int64_t sys_madvise(struct mach *m, const uint64_t *a)
{
	uint64_t len = (a[1] + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;

	if (a[0] & MACH_PAGE_MASK)
		return -EINVAL;
	if (!len)
		return 0;
	if (!mach_mem_range_ok(m->mem, a[0], len, 0))
		return -ENOMEM;
	/* MADV_DONTNEED (6 on Alpha) and MADV_FREE (8): later reads see zeros (or the file). */
	if (a[2] == 6 || a[2] == 8)
		madvise(m->mem->host + a[0], len, MADV_DONTNEED);
	return 0;
}

static int64_t sys_msync(struct mach *m, const uint64_t *a)
{
	if (!mach_mem_range_ok(m->mem, a[0], a[1], 0))
		return -ENOMEM;
	return sys_ret(msync(m->mem->host + a[0], a[1], MS_ASYNC));
}

static int64_t sys_mincore(struct mach *m, const uint64_t *a)
{
	uint64_t n = (a[1] + MACH_PAGE_MASK) >> MACH_PAGE_SHIFT;
	uint8_t v = 1;

	if (!mach_mem_range_ok(m->mem, a[0], a[1], 0))
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		if (mach_mem_write(m->mem, a[2] + i, &v, 1))
			return -EFAULT;
	return 0;
}

static int64_t sys_zero(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return 0;
}

static int64_t sys_getpagesize(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return MACH_PAGE_SIZE;
}

/* ---------------------------------------------------------------------------------------- */
/* Alpha specifics: osf_getsysinfo / osf_setsysinfo (arch/alpha/kernel/osf_sys.c). */

#define GSI_UACPROC 8
#define GSI_IEEE_FP_CONTROL 45
#define GSI_IEEE_STATE_AT_SIGNAL 46
#define GSI_PROC_TYPE 60
#define GSI_GET_HWRPB 101
#define SSI_NVPAIRS 1
#define SSI_IEEE_FP_CONTROL 14
#define SSI_IEEE_STATE_AT_SIGNAL 15
#define SSI_IEEE_IGNORE_STATE_AT_SIGNAL 16
#define SSI_IEEE_RAISE_EXCEPTION 1001
#define SSIN_UACPROC 6
#define IEEE_SW_MASK 0x7e307eull /* trap enables, status, map bits (asm/fpu.h) */
#define IEEE_STATUS_MASK (0x7eull << 16)
#define IEEE_TRAP_ENABLE_MASK 0x7eull
#define FPCR_DYN_MASK (3ull << 58)

static int64_t sys_osf_getsysinfo(struct mach *m, const uint64_t *a)
{
	uint64_t w;
	uint32_t w32;

	switch (a[0]) {
	case GSI_IEEE_FP_CONTROL:
		/* The software control word with the FPCR's current status bits. */
		w = m->ieee_state & IEEE_SW_MASK;
		w |= mach_fpcr_to_swcr(m->ctx.fpcr) & IEEE_STATUS_MASK;
		return mach_mem_write(m->mem, a[1], &w, 8) ? -EFAULT : 0;
	case GSI_UACPROC:
		if (a[2] < 4)
			return -EINVAL;
		w32 = (uint32_t)m->uac_flags;
		return mach_mem_write(m->mem, a[1], &w32, 4) ? -EFAULT : 1;
	case GSI_PROC_TYPE:
		if (a[2] < 8)
			return -EINVAL;
		w = 5; /* EV5_CPU (hwrpb.h) */
		return mach_mem_write(m->mem, a[1], &w, 8) ? -EFAULT : 1;
	case GSI_IEEE_STATE_AT_SIGNAL:
	case GSI_GET_HWRPB:
	default:
		return -EOPNOTSUPP;
	}
}

static int64_t sys_osf_setsysinfo(struct mach *m, const uint64_t *a)
{
	uint64_t swcr, exc;

	switch (a[0]) {
	case SSI_IEEE_FP_CONTROL:
		if (mach_mem_read(m->mem, a[1], &swcr, 8))
			return -EFAULT;
		m->ieee_state = (m->ieee_state & ~IEEE_SW_MASK) | (swcr & IEEE_SW_MASK);
		m->ctx.fpcr = mach_swcr_to_fpcr(m->ieee_state) | (m->ctx.fpcr & FPCR_DYN_MASK);
		return 0;
	case SSI_IEEE_RAISE_EXCEPTION:
		if (mach_mem_read(m->mem, a[1], &exc, 8))
			return -EFAULT;
		exc &= IEEE_STATUS_MASK;
		m->ieee_state |= exc;
		m->ctx.fpcr = mach_swcr_to_fpcr(m->ieee_state) | (m->ctx.fpcr & FPCR_DYN_MASK);
		/* Raise SIGFPE for the first exception that is enabled (osf_sys.c). */
		if (exc & (m->ieee_state << 16) & IEEE_STATUS_MASK) {
			static const int codes[] = { MACH_FPE_FLTINV, MACH_FPE_FLTDIV,
						     MACH_FPE_FLTOVF, MACH_FPE_FLTUND,
						     MACH_FPE_FLTRES, MACH_FPE_FLTINV };
			uint64_t en = exc & (m->ieee_state << 16);
			struct mach_siginfo si = { .signo = MACH_SIGFPE, .addr = m->ctx.pc };

			for (int i = 0; i < 6; i++)
				if (en & (1ull << (17 + i))) {
					si.code = codes[i];
					break;
				}
			mach_signal_raise(m, &si);
		}
		return 0;
	case SSI_IEEE_STATE_AT_SIGNAL:
	case SSI_IEEE_IGNORE_STATE_AT_SIGNAL:
		return 0;
	case SSI_NVPAIRS: {
		/* pairs of (name, value) quadwords; only UACPROC is known. */
		for (uint64_t i = 0; i < a[2]; i++) {
			uint64_t pair[2];

			if (mach_mem_read(m->mem, a[1] + 16 * i, pair, 16))
				return -EFAULT;
			if (pair[0] != SSIN_UACPROC)
				return -EOPNOTSUPP;
			m->uac_flags = pair[1] & 7;
		}
		return 0;
	}
	default:
		return -EOPNOTSUPP;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Scheduling (threads and futexes: mach_thread.c). */

static int64_t sys_sched_yield(struct mach *m, const uint64_t *a)
{
	(void)a;
	return mach_thread_yield(m);
}

static int64_t sys_sched_getaffinity(struct mach *m, const uint64_t *a)
{
	uint64_t mask = (1ull << m->ncpus) - 1; /* the virtual CPUs (mach_opts.cpus) */

	if (a[1] < 8 || (a[1] & 7))
		return -EINVAL;
	if (mach_mem_write(m->mem, a[2], &mask, 8))
		return -EFAULT;
	return 8;
}

static int64_t sys_sched_getscheduler(struct mach *m, const uint64_t *a)
{
	(void)m, (void)a;
	return 0; /* SCHED_OTHER */
}

static int64_t sys_getcpu(struct mach *m, const uint64_t *a)
{
	uint32_t z = 0, cpu = m->cpu_id;

	if (a[0] && mach_mem_write(m->mem, a[0], &cpu, 4))
		return -EFAULT;
	if (a[1] && mach_mem_write(m->mem, a[1], &z, 4))
		return -EFAULT;
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Dispatch. */

static mach_sys_fn sys_table[MACH_NR_MAX];

static void fill_table(void)
{
	mach_sys_fn *t = sys_table;

	t[MACH_NR_exit] = sys_exit;
	t[MACH_NR_exit_group] = sys_exit_group;
	t[MACH_NR_getxpid] = sys_getxpid;
	t[MACH_NR_getppid] = sys_getppid;
	t[MACH_NR_getxuid] = sys_getxuid;
	t[MACH_NR_getxgid] = sys_getxgid;
	t[MACH_NR_geteuid] = sys_geteuid;
	t[MACH_NR_getegid] = sys_getegid;
	t[MACH_NR_gettid] = sys_gettid;
	t[MACH_NR_set_tid_address] = sys_set_tid_address;
	t[MACH_NR_set_robust_list] = sys_set_robust_list;
	t[MACH_NR_rseq] = sys_enosys;
	t[MACH_NR_getpgrp] = sys_getpgrp;
	t[MACH_NR_getpgid] = sys_getpgid;
	t[MACH_NR_setpgid] = sys_setpgid;
	t[MACH_NR_getsid] = sys_getsid;
	t[MACH_NR_setsid] = sys_setsid;
	t[MACH_NR_getgroups] = sys_getgroups;
	t[MACH_NR_getresuid] = sys_getresuid;
	t[MACH_NR_getresgid] = sys_getresgid;
	t[MACH_NR_setuid] = sys_setid;
	t[MACH_NR_setgid] = sys_setid;
	t[MACH_NR_umask] = sys_umask;
	t[MACH_NR_setgroups] = sys_setgroups;
	t[MACH_NR_setreuid] = sys_setreids;
	t[MACH_NR_setregid] = sys_setreids;
	t[MACH_NR_setresuid] = sys_setresids;
	t[MACH_NR_setresgid] = sys_setresids;
	t[MACH_NR_sched_getparam] = sys_sched_getparam;
	t[MACH_NR_sched_get_priority_max] = sys_sched_prio;
	t[MACH_NR_sched_get_priority_min] = sys_sched_prio;
	t[MACH_NR_membarrier] = sys_enosys;
	t[MACH_NR_uname] = sys_uname;
	t[MACH_NR_sethostname] = sys_sethostname;
	t[MACH_NR_sysinfo] = sys_sysinfo;
	t[MACH_NR_prlimit64] = sys_prlimit64;
	t[MACH_NR_getrlimit] = sys_getrlimit;
	t[MACH_NR_setrlimit] = sys_setrlimit;
	t[MACH_NR_getrusage] = sys_getrusage;
	t[MACH_NR_times] = sys_times;
	t[MACH_NR_getpriority] = sys_getpriority;
	t[MACH_NR_setpriority] = sys_setpriority;
	t[MACH_NR_prctl] = sys_prctl;
	t[MACH_NR_personality] = sys_personality;
	t[MACH_NR_clock_gettime] = sys_clock_gettime;
	t[MACH_NR_clock_getres] = sys_clock_getres;
	t[MACH_NR_gettimeofday] = sys_gettimeofday;
	t[MACH_NR_osf_gettimeofday] = sys_osf_gettimeofday;
	t[MACH_NR_nanosleep] = sys_nanosleep;
	t[MACH_NR_clock_nanosleep] = sys_clock_nanosleep;
	t[MACH_NR_getitimer] = sys_getitimer;
	t[MACH_NR_setitimer] = sys_setitimer;
	t[MACH_NR_getrandom] = sys_getrandom;
	t[MACH_NR_brk] = sys_brk;
	t[MACH_NR_mmap] = sys_mmap;
	t[MACH_NR_munmap] = sys_munmap;
	t[MACH_NR_mprotect] = sys_mprotect;
	t[MACH_NR_mremap] = sys_mremap;
	t[MACH_NR_madvise] = sys_madvise;
	t[MACH_NR_msync] = sys_msync;
	t[MACH_NR_mincore] = sys_mincore;
	t[MACH_NR_mlock] = sys_zero;
	t[MACH_NR_munlock] = sys_zero;
	t[MACH_NR_mlockall] = sys_zero;
	t[MACH_NR_munlockall] = sys_zero;
	t[MACH_NR_getpagesize] = sys_getpagesize;
	t[MACH_NR_osf_getsysinfo] = sys_osf_getsysinfo;
	t[MACH_NR_osf_setsysinfo] = sys_osf_setsysinfo;
	t[MACH_NR_sched_yield] = sys_sched_yield;
	t[MACH_NR_sched_getaffinity] = sys_sched_getaffinity;
	t[MACH_NR_sched_setaffinity] = sys_zero;
	t[MACH_NR_sched_getscheduler] = sys_sched_getscheduler;
	t[MACH_NR_getcpu] = sys_getcpu;
	t[MACH_NR_futex] = mach_futex;
	mach_sys_fs_table(t);
	mach_sys_signal_table(t);
	mach_sys_proc_table(t);
}

static void trace(struct mach *m, unsigned int nr, const uint64_t *a, int64_t ret)
{
	const char *name = mach_sysname(nr);

	fprintf(m->err, "%d %s(0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ", 0x%" PRIx64 ")", m->pid,
		name ? name : "?", a[0], a[1], a[2], a[3]);
	if (ret == SYS_NORET)
		fprintf(m->err, "\n");
	else if (m->ctx.r[19])
		fprintf(m->err, " = -1 errno=%" PRIu64 "\n", m->ctx.r[0]);
	else
		fprintf(m->err, " = 0x%" PRIx64 "\n", m->ctx.r[0]);
}

/* Calls the kernel never restarts after a handler (ERESTARTNOHAND, ERESTART_RESTARTBLOCK):
 * they return EINTR whatever SA_RESTART says (signal(7), "Interruption of system calls"). */
static bool never_restarted(unsigned int nr)
{
	switch (nr) {
	case MACH_NR_rt_sigsuspend:
	case MACH_NR_sigsuspend:
	case MACH_NR_nanosleep:
	case MACH_NR_clock_nanosleep:
	case MACH_NR_poll:
	case MACH_NR_ppoll:
	case MACH_NR_select:
	case MACH_NR_pselect6:
		return true;
	default:
		return false;
	}
}

/* A signal is pending that the program handles with SA_RESTART semantics? */
static bool restartable(struct mach *m, unsigned int nr, int64_t ret)
{
	uint64_t p = m->sigpending & ~m->sigmask;

	if (ret != -EINTR || !p || never_restarted(nr))
		return false;
	for (int s = 1; s <= MACH_NSIG; s++)
		if (p & (1ull << (s - 1)))
			return m->sigact[s].handler > MACH_SIG_IGN &&
			       (m->sigact[s].flags & MACH_SA_RESTART);
	return false;
}

/* The call ran (or failed in the kernel): its kernel time for the run loop (mach_kern.h). */
static void kern_time(struct mach *m, unsigned int nr, const uint64_t *a, int64_t ret)
{
	m->kern_pending = true;
	m->kern_nr = nr;
	m->kern_cycles = mach_kern_cycles(&mach_kern_default, nr, a, ret);
}

void mach_syscall(struct mach *m)
{
	unsigned int nr = (unsigned int)m->ctx.r[0];
	uint64_t a[6], a3 = m->ctx.r[19];
	int64_t ret;

	if (!sys_table[MACH_NR_exit])
		fill_table();
	memcpy(a, &m->ctx.r[16], sizeof(a));
	/* A call that would block while another thread can run: that thread's turn first. */
	if (mach_thread_would_block(m, nr, a)) {
		m->ctx.r[0] = nr;
		m->ctx.r[19] = a3;
		m->ctx.pc -= 4;
		return;
	}
	m->syscalls++;
	if (m->ctx.r[0] >= MACH_NR_MAX || !sys_table[nr]) {
		const char *name = m->ctx.r[0] < MACH_NR_MAX ? mach_sysname(nr) : NULL;

		uint64_t bit = nr < MACH_NR_MAX ? nr : MACH_NR_MAX - 1;

		/* ENOSYS, as Linux's sys_ni_syscall, named once per number. */
		if (!(m->warned_sys[bit / 64] & (1ull << (bit % 64))))
			fprintf(m->err,
				"axprof run: %s: unsupported system call %" PRIu64
				" (%s) at pc 0x%" PRIx64 ": ENOSYS\n",
				m->prog, m->ctx.r[0], name ? name : "unknown", m->ctx.pc - 4);
		m->warned_sys[bit / 64] |= 1ull << (bit % 64);
		m->ctx.r[0] = (uint64_t)mach_errno_to_alpha(ENOSYS);
		m->ctx.r[19] = 1;
		kern_time(m, nr < MACH_NR_MAX ? nr : 0, a, -ENOSYS);
		if (m->opts.trace_syscalls)
			trace(m, nr, a, -ENOSYS);
		return;
	}
	/* Stopped by mach_interrupt() before a call that could block: it never runs. */
	ret = m->interrupted ? -EINTR : sys_table[nr](m, a);
	mach_confine_release(m);
	if (ret == SYS_NORET)
		goto out;
	if (ret == -EINTR)
		mach_signal_poll(m);
	if (restartable(m, nr, ret)) {
		/* Replay the call after the handler (signal.c syscall_restart()). */
		m->ctx.r[0] = nr;
		m->ctx.r[19] = a3;
		m->ctx.pc -= 4;
	} else if (ret == SYS_FORCED) {
		/* v0, a3 already set */
	} else if (ret < 0 && ret >= -4095) {
		m->ctx.r[0] = (uint64_t)mach_errno_to_alpha((int)-ret);
		m->ctx.r[19] = 1;
	} else {
		m->ctx.r[0] = (uint64_t)ret;
		m->ctx.r[19] = 0;
	}
out:
	kern_time(m, nr, a, ret == SYS_NORET || ret == SYS_FORCED ? 0 : ret);
	if (m->opts.trace_syscalls)
		trace(m, nr, a, ret);
}
