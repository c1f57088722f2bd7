/* machine/mach_int.h - the hosted machine's internals: the process state its files share. */
#ifndef MACH_INT_H
#define MACH_INT_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "axp.h"
#include "mach.h"
#include "mach_mem.h"

/*
 * A `struct mach` is one single-threaded Linux/Alpha process: the executor's context, the
 * address space (mach_mem.h), the kernel state the emulated system calls keep (signal actions
 * and mask, FP software control word, brk, tid address), and the run statistics.
 *
 *   mach_new()      empty machine (address space reserved, nothing mapped)
 *   mach_load()     mach_load.c: map PROG (and its PT_INTERP) and build the initial stack
 *   mach_run()      mach_run.c: run until the program exits or dies
 *   mach_syscall()  mach_sys.c: service one CALL_PAL callsys
 */

#define MACH_NSIG 64 /* _NSIG on Alpha */

/* Alpha signal numbers used by the machine itself (asm/signal.h). */
#define MACH_SIGHUP 1
#define MACH_SIGINT 2
#define MACH_SIGQUIT 3
#define MACH_SIGILL 4
#define MACH_SIGTRAP 5
#define MACH_SIGABRT 6
#define MACH_SIGEMT 7
#define MACH_SIGFPE 8
#define MACH_SIGKILL 9
#define MACH_SIGBUS 10
#define MACH_SIGSEGV 11
#define MACH_SIGSYS 12
#define MACH_SIGPIPE 13
#define MACH_SIGALRM 14
#define MACH_SIGTERM 15
#define MACH_SIGURG 16
#define MACH_SIGSTOP 17
#define MACH_SIGTSTP 18
#define MACH_SIGCONT 19
#define MACH_SIGCHLD 20
#define MACH_SIGTTIN 21
#define MACH_SIGTTOU 22
#define MACH_SIGIO 23
#define MACH_SIGXCPU 24
#define MACH_SIGXFSZ 25
#define MACH_SIGVTALRM 26
#define MACH_SIGPROF 27
#define MACH_SIGWINCH 28
#define MACH_SIGINFO 29
#define MACH_SIGUSR1 30
#define MACH_SIGUSR2 31

/* si_code values (asm-generic/siginfo.h; the same on Alpha). */
#define MACH_SI_USER 0
#define MACH_SI_KERNEL 0x80
#define MACH_SI_TKILL (-6)
#define MACH_ILL_ILLOPC 1
#define MACH_FPE_INTDIV 1
#define MACH_FPE_INTOVF 2
#define MACH_FPE_FLTDIV 3
#define MACH_FPE_FLTOVF 4
#define MACH_FPE_FLTUND 5
#define MACH_FPE_FLTRES 6
#define MACH_FPE_FLTINV 7
#define MACH_FPE_FLTUNK 14
#define MACH_SEGV_MAPERR 1
#define MACH_SEGV_ACCERR 2
#define MACH_BUS_ADRALN 1
#define MACH_BUS_ADRERR 2
#define MACH_TRAP_BRKPT 1
#define MACH_TRAP_UNK 5

/* Signal dispositions as the program set them (kernel struct sigaction + ka_restorer). */
#define MACH_SIG_DFL 0
#define MACH_SIG_IGN 1
#define MACH_SA_ONSTACK 0x1
#define MACH_SA_RESTART 0x2
#define MACH_SA_NODEFER 0x8
#define MACH_SA_RESETHAND 0x10
#define MACH_SA_SIGINFO 0x40

struct mach_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t mask;
	uint64_t restorer;
};

/* The fields of a siginfo the machine fills (asm-generic/siginfo.h, 128 bytes on Alpha). */
struct mach_siginfo {
	int32_t signo, code, errno_;
	uint64_t addr; /* si_addr (faults) */
	int32_t pid, uid; /* kill/tgkill */
	int32_t trapno;
	bool fault; /* synchronous fault: force_sig() semantics (blocked/ignored -> default) */
	uint64_t trap_a0, trap_a1, trap_a2; /* sc_traparg_a0..a2 (what PALcode passed) */
};

struct mach_files;
struct mach_threads;

/* Kinds of one-line warnings printed once per run (mach.warned). */
enum { MACH_WARN_CLONE, MACH_WARN_FUTEX, MACH_WARN_FORK_FLAGS, MACH_WARN_NR };
/* Name what is not supported, once per kind: "axprof run: PROG: WHAT 0xV not supported: WHY"
 * (mach_thread.c). */
/* Set m->comm to name, cut to 15 bytes (Linux's __set_task_comm). */
void mach_set_comm(struct mach *m, const char *name);
void mach_warn_once(struct mach *m, unsigned int kind, const char *what, uint64_t v,
		    const char *why);

/* Instructions a guest thread runs before the next one's turn (mach_opts.quantum 0). [U] */
#define MACH_QUANTUM_DEFAULT 20000

/* Hooks the sampler plugs in (timing mode). pmu_irq may run the interpreter on ctx (side
 * effects); the machine resumes at ctx->pc afterwards. */
struct mach_hooks {
	void (*pmu_irq)(void *priv, struct axp_ctx *ctx, const struct mach_irq *irq);
	void *priv;
};

/* mach_opts.confine (mach_confine.c). */
struct mach_confine {
	bool on;
	bool walk; /* resolve with mach_confine_walk (no openat2) */
	char dir[PATH_MAX]; /* real path of the directory ("" for /) */
	size_t dirlen;
	char cwd[PATH_MAX]; /* the program's current directory, a name inside dir */
	int held[4]; /* descriptors behind the current system call's paths */
	int nheld;
};

struct mach {
	struct axp_ctx ctx;
	struct mach_mem *mem;
	struct axp_run_cfg cfg;
	struct mach_opts opts;
	char sysroot[4096]; /* "" when none */
	char exe[4096]; /* host path of the program (/proc/self/exe) */
	uint64_t arg_start, arg_end; /* the argument strings on the stack (/proc/self/cmdline) */
	const char *prog; /* name for messages */
	FILE *err; /* where the machine's own messages go (stderr) */

	/* Kernel state of the process. */
	uint64_t tid_address;
	uint64_t robust_list, robust_len;
	uint64_t ieee_state; /* thread_info->ieee_state: the software FP control word */
	uint64_t uac_flags; /* GSI_UACPROC / SSI_NVPAIRS unaligned-access control */
	struct mach_sigaction sigact[MACH_NSIG + 1];
	uint64_t sigmask; /* blocked: bit (n - 1) for signal n */
	uint64_t sigpending;
	struct mach_siginfo siginfo[MACH_NSIG + 1];
	uint64_t ss_sp, ss_size; /* sigaltstack */
	int32_t ss_flags;
	int32_t pid; /* virtual (mach_vpid.c) */
	/* The running thread's command name, as Linux's task->comm: the executed file's
	 * basename (mach_load), or what prctl(PR_SET_NAME) set; up to 15 bytes, NUL-padded. */
	char comm[16];
	struct mach_vpids *vpids; /* the run's pid table, shared by its host processes */
	int vpid_fd; /* its memfd, -1: none */
	bool has_saved_mask; /* rt_sigsuspend: the mask to restore after the handler */
	uint64_t saved_mask;

	/* The fault that killed the program (for the message). */
	uint64_t fault_pc;
	uint32_t fault_word;
	char fault_cause[96];

	/* How it ended. */
	bool exited;
	int exit_code; /* exit()/exit_group() status, when !exit_signal */
	int exit_signal; /* Alpha signal that killed it (0: exited) */
	bool stopped_at_max; /* --max-insns reached */
	volatile sig_atomic_t interrupted; /* mach_interrupt() */

	/* Statistics. */
	uint64_t insns;
	uint64_t syscalls;
	uint64_t signals;
	/* The system call just run, for its kernel time (mach_kern.h; timing mode books it). */
	bool kern_pending;
	unsigned int kern_nr;
	uint64_t kern_cycles;

	/* Timing mode (mach_run.c): the CPU model (NULL ops: functional). */
	const struct mach_cpu_ops *cpu;
	void *model; /* the running CPU's: models[cpu_id] */
	void *models[MACH_MAX_CPUS];
	unsigned int ncpus; /* virtual CPUs (mach_opts.cpus, at least 1) */
	unsigned int cpu_id; /* the CPU the running thread is bound to */
	struct mach_coh *coh; /* ncpus > 1 with a model: coherence (mach_coh.h); else NULL */
	struct mach_hooks hooks;
	struct mach_samples *samples; /* built-in PMU handler: samples per PC */
	mach_pc_namer_fn name_pc; /* names the top PCs (mach_set_pc_namer); NULL: none */
	void *name_pc_priv;

	/* Process events (mach.h EVENTS; mach_events.c). */
	struct mach_events events;
	struct mach_files *files; /* file-backed mappings, for mprotect's events */

	struct mach_confine confine;

	/* Threads (mach_thread.c). The running thread's state is in the fields above (ctx,
	 * tid_address, robust_list, ieee_state, the signal mask, pending, siginfo, altstack,
	 * saved mask); the other threads' wait in thr (NULL until the first clone). */
	struct mach_threads *thr;
	int32_t tid; /* the running thread's id */
	bool resched; /* it blocked, yielded or exited: switch at the next stop */
	uint64_t slice; /* instructions left in its quantum */
	unsigned int warned; /* 1 << MACH_WARN_*: warnings already printed */
	uint64_t warned_sys[10]; /* unsupported system calls already named */
};

/*
 * Virtual pids (mach_vpid.c): the guest's pids start at MACH_VPID_FIRST; the table maps them to
 * host pids for the host processes of one run.
 */
#define MACH_VPID_FIRST 1000
#define MACH_VPID_SLOTS 4095 /* live processes of a run */
#define MACH_VPID_PARENT 999 /* the first process's parent, outside the run */
/* A new run's table (inherit_fd 0) or an execve'd program's (--pid-table FD): sets m->pid. */
int mach_vpid_init(struct mach *m, int inherit_fd);
void mach_vpid_exit(struct mach *m);
/* The next process's number, its slot taken (host pid not yet known), or -EAGAIN. */
int32_t mach_vpid_alloc(struct mach *m);
void mach_vpid_bind(struct mach *m, int32_t vpid, pid_t host);
/* The process vpid was reaped (or its fork failed): its number leaves the table. */
void mach_vpid_free(struct mach *m, int32_t vpid);
/* The host pid of a process of the run, or -1. */
pid_t mach_vpid_to_host(struct mach *m, int32_t vpid);
/* The virtual pid of a host process of the run, or 0 (outside the run). */
int32_t mach_vpid_of_host(struct mach *m, pid_t host);
/* getppid(): the parent's virtual pid, MACH_VPID_PARENT or 1 (reparented). */
int32_t mach_vpid_ppid(struct mach *m);
/* wait4's pid argument for the host: -1 and 0 as they are, a pid or -pgid of the run's
 * mapped, else -ECHILD. */
int64_t mach_vpid_wait_arg(struct mach *m, int64_t pid);
/* kill(-1, sig): every process of the run but the caller (kernel/signal.c); 0 or -ESRCH. */
int mach_vpid_kill_all(struct mach *m, int host_sig);
/* Keep the table's descriptor open over an execve (keep) or not: the fd, or -errno. */
int mach_vpid_keep_fd(struct mach *m, bool keep);

/* Resolve a path the program names the way qemu-alpha -L does: an absolute path that exists
 * under the sysroot is taken from there. Writes the host path into buf (size len). */
const char *mach_path(struct mach *m, const char *path, char *buf, size_t len);

/*
 * Confinement (mach_confine.c). MACH_CF_NOFOLLOW: the call acts on the last component itself
 * (unlink, mkdir, rename, lstat, readlink, ...), so only its directory is resolved;
 * MACH_CF_WRITE: the call may change the file system (never looked up in the sysroot).
 */
#define MACH_CF_FOLLOW 0u
#define MACH_CF_NOFOLLOW 1u
#define MACH_CF_WRITE 2u
/* Resolve dir (realpath) and choose the resolver (openat2, else the walk): 0 or -errno. */
int mach_confine_init(struct mach *m, const char *dir);
/* The host name for `path` relative to dirfd: "/proc/self/fd/N[/LAST]", held until
 * mach_confine_release(); -errno (the lookup's: ENOENT, EXDEV for an escape, ...). */
int mach_confine_path(struct mach *m, int dirfd, const char *path, unsigned int how, char *buf,
		      size_t len, const char **out);
void mach_confine_release(struct mach *m);
/* open(2) of name inside root as openat2 RESOLVE_IN_ROOT does it, one component at a time
 * (mach_confine_walk.c): a host descriptor or -errno. */
int mach_confine_walk(int root, const char *name, int flags, mode_t mode);
/* open(2) inside the confinement: a host descriptor or -errno. */
int mach_confine_open(struct mach *m, int dirfd, const char *path, int hostflags, mode_t mode);
/* chdir to a path / to the directory open as fd (which must be inside): 0 or -errno. */
int mach_confine_chdir_path(struct mach *m, const char *path);
int mach_confine_chdir(struct mach *m, int fd);
/* Make the host's cwd the program's (before an execve hands it on): 0 or -errno. */
int mach_confine_enter_cwd(struct mach *m);
/* The host path of a resolved name (for execve and the loader): 0 or -errno. */
int mach_confine_host_path(struct mach *m, const char *resolved, char *out, size_t len);

/* Service the callsys at ctx->pc - 4 (pc already advanced): v0 = number, a0-a5 = arguments. */
void mach_syscall(struct mach *m);

/* Linux/Alpha ABI translations (mach_sys.c). */
int mach_errno_to_alpha(int host_errno);
int mach_signo_to_alpha(int host_sig); /* 0 if none */
int mach_signo_to_host(int alpha_sig); /* 0 if none */
const char *mach_sysname(unsigned int nr); /* NULL if unknown */
const char *mach_signame(int alpha_sig);

/* Signals (mach_signal.c). */
void mach_signal_raise(struct mach *m, const struct mach_siginfo *si);
/* Deliver one pending unblocked signal: build the frame, or take the default action
 * (m->exited set when it kills the program). Returns true if something was done. */
bool mach_signal_deliver(struct mach *m);
int mach_sigreturn(struct mach *m, bool rt);
/* Make the host disposition of a signal follow the program's (async signals from outside). */
void mach_signal_sync_host(struct mach *m, int alpha_sig);
/* Collect signals the host delivered to us (set by host handlers) into sigpending. */
void mach_signal_poll(struct mach *m);
extern volatile int mach_host_signal_flag;

/* Timing mode with the EV5 model, after mach_new() (tests; tools use mach_opts.cpu). */
int mach_timing_init(struct mach *m, bool truth);

/* Events (mach_events.c): emit one, keeping the file-mapping table up to date. */
void mach_ev_exec(struct mach *m, const char *path, uint64_t bias);
/* A mapping made by the loader or mmap(2): fd < 0 anonymous, else the host file descriptor
 * (its path is read from /proc/self/fd) or, when path is not NULL, that file. */
void mach_ev_mmap(struct mach *m, uint64_t start, uint64_t len, unsigned int prot, int fd,
		  const char *path, uint64_t off);
void mach_ev_munmap(struct mach *m, uint64_t start, uint64_t len);
/* Is some page of [start, start + len) executable (before an mprotect)? */
bool mach_ev_range_exec(const struct mach *m, uint64_t start, uint64_t len);
void mach_ev_mprotect(struct mach *m, uint64_t start, uint64_t len, unsigned int prot, bool was_x);
void mach_ev_mremap(struct mach *m, uint64_t old, uint64_t old_len, uint64_t new_va,
		    uint64_t new_len);
void mach_ev_fork(struct mach *m, int32_t parent);
void mach_ev_exit(struct mach *m);
void mach_ev_leave(struct mach *m);
void mach_files_free(struct mach_files *f);

/* A file mapping as the event table knows it (path: its host path, owned by the table). */
struct mach_file_span {
	uint64_t start, end, off;
	const char *path;
};

/* The file mapping holding va: true and *fs; else false and *next = the start of the next file
 * mapping above va (UINT64_MAX if none). */
bool mach_files_at(const struct mach *m, uint64_t va, struct mach_file_span *fs, uint64_t *next);

/* The process's own /proc files (mach_procfs.c). For a path naming /proc/self/maps, cmdline or
 * exe (or the same under /proc/<pid>/ or /proc/thread-self/), open the Alpha process's version
 * with host open flags `hostflags`: returns 1 and *fd (a host fd or -errno); 0 if the path is
 * not one of them. */
int mach_procfs_open(struct mach *m, const char *path, int hostflags, int *fd);
/* What readlink of path gives when it is the process's own exe link, else NULL. */
const char *mach_procfs_link(const struct mach *m, const char *path);

/* Threads (mach_thread.c). */
/* clone() with CLONE_VM and without CLONE_VFORK: the new thread's tid or -errno. */
int64_t mach_thread_clone(struct mach *m, uint64_t flags, uint64_t newsp, uint64_t ptid,
			  uint64_t ctid, uint64_t tls);
int64_t mach_futex(struct mach *m, const uint64_t *a);
/* exit(2): the running thread ends (the process, when it is the last). */
int64_t mach_thread_exit(struct mach *m, int code);
int64_t mach_thread_yield(struct mach *m);
/* A read/readv/wait4 that would block while another thread can run: true, the thread yields
 * and the call must be made again at its next turn. */
bool mach_thread_would_block(struct mach *m, unsigned int nr, const uint64_t *a);
/* Raise si in thread tid (0 or m->tid: the running one; si NULL: only look): 0 or -ESRCH. */
int mach_thread_signal(struct mach *m, int32_t tid, const struct mach_siginfo *si);
/* Switch to the next runnable thread (round-robin), waiting when none can run. */
void mach_sched(struct mach *m);
size_t mach_thread_count(const struct mach *m);
uint64_t mach_thread_quantum(const struct mach *m);
void mach_thread_fork_child(struct mach *m);
/* The process's command name: its first thread's (what ps(1) shows for it). */
const char *mach_thread_leader_comm(const struct mach *m);
void mach_thread_print_stats(struct mach *m, FILE *f);
void mach_threads_free(struct mach_threads *th);

/* IEEE software control word <-> FPCR (asm/fpu.h ieee_swcr_to_fpcr/ieee_fpcr_to_swcr). */
uint64_t mach_swcr_to_fpcr(uint64_t sw);
uint64_t mach_fpcr_to_swcr(uint64_t fp);

#endif /* MACH_INT_H */
