/* machine/mach_sys_proc.c - Linux/Alpha process system calls: fork/vfork/clone, wait4, execve. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mach_sys.h"

/*
 * The machine is one host process holding the whole Alpha process, so a host fork() is an
 * exact fork of the Alpha process. The child gets v0 = 0, a4 = 1 and the parent v0 = pid,
 * a4 = 0 (arch/alpha/kernel/process.c copy_thread: "OSF/1 has some strange fork() semantics").
 * CLONE_VM|CLONE_VFORK (posix_spawn, vfork) becomes a fork whose parent waits until the child
 * has called execve or exited (the child cannot write into the parent's memory: a failed
 * execve after posix_spawn shows up as exit status 127, not as posix_spawn's error). Threads
 * (CLONE_VM without CLONE_VFORK) are mach_thread.c's; flags a fork cannot honour (FORK_FLAGS)
 * fail with EINVAL and are named once.
 *
 * execve of an Alpha ELF program re-executes axprof (`axprof run --sysroot S --argv0 A -- P
 * ARGS`, or the command mach_opts.exec_cmd names: `axprof record ...` profiles the new
 * program too) in the same host process, which keeps its pid; any other file (a host program,
 * a script) is executed by the host directly. The leave event comes first either way.
 */

#define A_CLONE_VM 0x00000100u
#define A_CLONE_VFORK 0x00004000u
#define A_CLONE_THREAD 0x00010000u
#define A_CLONE_SETTLS 0x00080000u
#define A_CLONE_PARENT_SETTID 0x00100000u
#define A_CLONE_CHILD_CLEARTID 0x00200000u
#define A_CLONE_CHILD_SETTID 0x01000000u
#define A_CLONE_PTRACE 0x00002000u
#define A_CLONE_UNTRACED 0x00800000u
#define A_CSIGNAL 0xffu
/* What a fork (no CLONE_VM, or CLONE_VM|CLONE_VFORK) may ask: glibc's fork, vfork and
 * posix_spawn use these; PTRACE and UNTRACED are ignored (no tracer). The rest (namespaces,
 * CLONE_PARENT, CLONE_FS/FILES without a thread...) is refused with EINVAL and named. */
#define FORK_FLAGS                                                                         \
	(A_CSIGNAL | A_CLONE_VM | A_CLONE_VFORK | A_CLONE_SETTLS | A_CLONE_PARENT_SETTID | \
	 A_CLONE_CHILD_CLEARTID | A_CLONE_CHILD_SETTID | A_CLONE_PTRACE | A_CLONE_UNTRACED)

static int64_t do_fork(struct mach *m, uint64_t flags, uint64_t newsp, uint64_t ptid, uint64_t ctid,
		       uint64_t tls)
{
	int sync[2] = { -1, -1 };
	int32_t vpid;
	pid_t pid;
	char c;

	if ((flags & A_CLONE_VM) && !(flags & A_CLONE_VFORK))
		return mach_thread_clone(m, flags, newsp, ptid, ctid, tls);
	if (flags & A_CLONE_THREAD)
		return mach_thread_clone(m, flags, newsp, ptid, ctid, tls); /* EINVAL, named */
	if (flags & ~(uint64_t)FORK_FLAGS) {
		mach_warn_once(m, MACH_WARN_FORK_FLAGS, "clone flags",
			       flags & ~(uint64_t)FORK_FLAGS,
			       "EINVAL (a new process takes only CLONE_VFORK, CLONE_SETTLS and the "
			       "TID flags besides its exit signal)");
		return -EINVAL;
	}
	if ((flags & A_CLONE_VFORK) && pipe2(sync, O_CLOEXEC))
		return -errno;
	vpid = mach_vpid_alloc(m); /* the child's pid (mach_vpid.c) */
	if (vpid < 0) {
		pid = -1;
		errno = EAGAIN;
	} else {
		fflush(m->err);
		pid = fork();
	}
	if (pid < 0) {
		int e = errno;

		mach_vpid_free(m, vpid);
		if (sync[0] >= 0) {
			close(sync[0]);
			close(sync[1]);
		}
		return -e;
	}
	if (pid == 0) {
		int32_t parent = m->pid;
		uint32_t tid;

		if (sync[0] >= 0)
			close(sync[0]); /* sync[1] closes itself at execve or exit */
		mach_vpid_bind(m, vpid, getpid());
		m->pid = vpid;
		mach_thread_fork_child(m);
		tid = (uint32_t)m->pid;
		if (newsp)
			m->ctx.r[30] = newsp;
		if (flags & A_CLONE_SETTLS)
			m->ctx.unique = tls;
		if (flags & A_CLONE_CHILD_SETTID)
			mach_mem_write(m->mem, ctid, &tid, 4);
		if (flags & A_CLONE_CHILD_CLEARTID)
			m->tid_address = ctid;
		m->ctx.r[20] = 1;
		mach_ev_fork(m, parent);
		return 0;
	}
	mach_vpid_bind(m, vpid, pid);
	if (flags & A_CLONE_PARENT_SETTID) {
		uint32_t tid = (uint32_t)vpid;

		mach_mem_write(m->mem, ptid, &tid, 4);
	}
	if (sync[0] >= 0) {
		close(sync[1]);
		while (read(sync[0], &c, 1) < 0 && errno == EINTR)
			;
		close(sync[0]);
	}
	m->ctx.r[20] = 0;
	return vpid;
}

static int64_t sys_fork(struct mach *m, const uint64_t *a)
{
	(void)a;
	return do_fork(m, 0, 0, 0, 0, 0);
}

static int64_t sys_vfork(struct mach *m, const uint64_t *a)
{
	(void)a;
	return do_fork(m, A_CLONE_VM | A_CLONE_VFORK, 0, 0, 0, 0);
}

/* clone(flags, newsp, parent_tidptr, child_tidptr, tls): the generic order (kernel/fork.c). */
static int64_t sys_clone(struct mach *m, const uint64_t *a)
{
	return do_fork(m, a[0], a[1], a[2], a[3], a[4]);
}

/* Wait status: the host's encoding with Alpha signal numbers. */
static int status_to_alpha(int st)
{
	if (WIFSIGNALED(st))
		return (st & ~0x7f) | (mach_signo_to_alpha(WTERMSIG(st)) & 0x7f);
	if (WIFSTOPPED(st))
		return (st & 0xff) | (mach_signo_to_alpha(WSTOPSIG(st)) << 8);
	return st;
}

static int64_t sys_wait4(struct mach *m, const uint64_t *a)
{
	struct rusage ru;
	int st = 0;
	int64_t pid = mach_vpid_wait_arg(m, (int64_t)(int32_t)a[0]);
	int32_t v;
	pid_t r;

	if (pid == -ECHILD)
		return pid;
	r = wait4((pid_t)pid, &st, (int)a[2], a[3] ? &ru : NULL);
	if (r < 0)
		return -errno;
	v = r > 0 ? mach_vpid_of_host(m, r) : 0;
	if (v && (WIFEXITED(st) || WIFSIGNALED(st)))
		mach_vpid_free(m, v); /* reaped */
	if (a[1] && r > 0) {
		int32_t ast = status_to_alpha(st);

		if (mach_mem_write(m->mem, a[1], &ast, 4))
			return -EFAULT;
	}
	if (a[3] && mach_mem_write(m->mem, a[3], &ru, sizeof(ru)))
		return -EFAULT;
	return v ? v : r;
}

/* waitid(idtype, id, infop, options, rusage): Linux's, with the siginfo's signal numbers made
 * Alpha's (si_signo SIGCHLD; si_status a signal for CLD_KILLED, CLD_DUMPED, CLD_STOPPED,
 * CLD_TRAPPED). The 64-bit siginfo layout is the generic one on both: signo, errno, code at
 * 0, 4, 8; pid, uid, status at 16, 20, 24. */
static int64_t sys_waitid(struct mach *m, const uint64_t *a)
{
	siginfo_t si;
	struct rusage ru;
	int32_t out[32], v;
	int64_t id = (int32_t)a[1];

	if (a[0] == P_PID || a[0] == P_PGID) {
		/* P_PGID 0: our own group */
		id = id || a[0] == P_PID ? mach_vpid_wait_arg(m, id) : 0;
		if (id == -ECHILD)
			return id;
	}
	memset(&si, 0, sizeof(si));
	if (syscall(SYS_waitid, (int)a[0], (int)id, &si, (int)a[3], a[4] ? &ru : NULL) < 0)
		return -errno;
	v = si.si_pid ? mach_vpid_of_host(m, si.si_pid) : 0;
	if (v && !((int)a[3] & WNOWAIT) &&
	    (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED))
		mach_vpid_free(m, v); /* reaped */
	if (v)
		si.si_pid = v;
	if (a[2]) {
		memset(out, 0, sizeof(out));
		if (si.si_pid) {
			out[0] = mach_signo_to_alpha(si.si_signo);
			out[2] = si.si_code;
			out[4] = si.si_pid;
			out[5] = (int32_t)si.si_uid;
			out[6] = si.si_code == CLD_EXITED ? si.si_status :
							    mach_signo_to_alpha(si.si_status);
		}
		if (mach_mem_write(m->mem, a[2], out, sizeof(out)))
			return -EFAULT;
	}
	if (a[4] && mach_mem_write(m->mem, a[4], &ru, sizeof(ru)))
		return -EFAULT;
	return 0;
}

/* A NULL-terminated vector of guest strings (argv, envp) as host pointers. */
static int get_strv(struct mach *m, uint64_t va, char ***out, size_t extra)
{
	size_t n = 0, cap = 16;
	char **v = calloc(cap + extra + 1, sizeof(*v));
	uint64_t p;

	if (!v)
		return -ENOMEM;
	for (; va; va += 8) {
		const char *s;

		if (mach_mem_read(m->mem, va, &p, 8))
			goto fault;
		if (!p)
			break;
		if (mach_mem_str(m->mem, p, 128 * 1024, &s))
			goto fault;
		if (n == cap) {
			char **nv = realloc(v, (2 * cap + extra + 1) * sizeof(*v));

			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = (char *)s;
	}
	v[n] = NULL;
	*out = v;
	return 0;
fault:
	free(v);
	return -EFAULT;
}

static bool is_alpha_elf(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, &eh, sizeof(eh)) == (ssize_t)sizeof(eh) && !memcmp(eh.e_ident, ELFMAG, 4) &&
	      eh.e_machine == EM_ALPHA;
	close(fd);
	return yes;
}

static int64_t sys_execve(struct mach *m, const uint64_t *a)
{
	char buf[PATH_MAX], self[PATH_MAX], tabfd[16];
	char **argv = NULL, **envp = NULL, **nv;
	const char *path;
	static char *const run_cmd[] = { (char *)"run", NULL };
	char *const *cmd = m->opts.exec_cmd ? m->opts.exec_cmd : run_cmd;
	size_t argc = 0, k = 0, ncmd = 0;
	ssize_t n;
	char host[PATH_MAX];
	int ret = sys_path(m, AT_FDCWD, a[0], MACH_CF_FOLLOW, buf, sizeof(buf), &path);

	if (ret)
		return ret;
	if (access(path, X_OK))
		return -errno;
	if (m->confine.on) {
		/* Confined: only Alpha programs (they run confined too), from their host path,
		 * with the host's cwd moved to the program's for the new axprof. */
		if (!is_alpha_elf(path))
			return -EACCES;
		ret = mach_confine_host_path(m, path, host, sizeof(host));
		if (ret)
			return ret;
		path = host;
	}
	ret = get_strv(m, a[1], &argv, 0);
	if (!ret)
		ret = get_strv(m, a[2], &envp, 0);
	if (ret)
		goto out;
	if (!is_alpha_elf(path)) {
		mach_ev_leave(m);
		execve(path, argv, envp);
		ret = -errno;
		goto out;
	}
	while (argv[argc])
		argc++;
	while (cmd[ncmd])
		ncmd++;
	nv = calloc(argc + ncmd + 16, sizeof(*nv));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (!nv || n <= 0) {
		free(nv);
		ret = nv ? -ENOEXEC : -ENOMEM;
		goto out;
	}
	self[n] = 0;
	nv[k++] = (char *)"axprof";
	for (size_t i = 0; i < ncmd; i++)
		nv[k++] = cmd[i];
	nv[k++] = (char *)"--sysroot";
	nv[k++] = m->sysroot[0] ? m->sysroot : (char *)"/";
	if (m->confine.on) {
		nv[k++] = (char *)"--confine";
		nv[k++] = m->confine.dir[0] ? m->confine.dir : (char *)"/";
	}
	if (m->opts.trace_syscalls)
		nv[k++] = (char *)"--trace-syscalls";
	ret = mach_vpid_keep_fd(m, true); /* the same pid after the execve (mach_vpid.c) */
	if (ret < 0) {
		free(nv);
		goto out;
	}
	snprintf(tabfd, sizeof(tabfd), "%d", ret);
	nv[k++] = (char *)"--pid-table";
	nv[k++] = tabfd;
	if (argc) {
		nv[k++] = (char *)"--argv0";
		nv[k++] = argv[0];
	}
	nv[k++] = (char *)"--";
	nv[k++] = (char *)path;
	for (size_t i = 1; i < argc; i++)
		nv[k++] = argv[i];
	nv[k] = NULL;
	fflush(m->err);
	mach_ev_leave(m);
	if (m->confine.on) {
		int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);

		ret = here < 0 ? -errno : mach_confine_enter_cwd(m);
		if (!ret) {
			execve(self, nv, envp);
			ret = -errno;
		}
		if (here >= 0 && fchdir(here))
			ret = -errno; /* cannot happen: here is an open directory */
		if (here >= 0)
			close(here);
	} else {
		execve(self, nv, envp);
		ret = -errno;
	}
	mach_vpid_keep_fd(m, false);
	free(nv);
out:
	free(argv);
	free(envp);
	return ret;
}

void mach_sys_proc_table(mach_sys_fn *t)
{
	t[MACH_NR_fork] = sys_fork;
	t[MACH_NR_vfork] = sys_vfork;
	t[MACH_NR_clone] = sys_clone;
	t[MACH_NR_wait4] = sys_wait4;
	t[MACH_NR_waitid] = sys_waitid;
	t[MACH_NR_execve] = sys_execve;
}
