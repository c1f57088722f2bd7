/* machine/mach.h - the hosted Alpha machine as the layers above see it: options, events, result. */
#ifndef MACH_H
#define MACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ax_err.h"
#include "mach_cpu.h"

/*
 * A `struct mach` runs one Linux/Alpha process (and, after a fork, the host process that holds
 * the child runs the child's). It is opaque: the tools create it with options, learn what
 * happens to the process through events, and read a result when it ends.
 *
 *   mach_new()         empty machine (address space reserved, nothing mapped, the CPU model of
 *                      opts.cpu created)
 *   mach_set_events()  where the process events go (see EVENTS)
 *   mach_load()        map PROG (and its PT_INTERP) and build the initial stack
 *   mach_run()         run until the program exits or dies; mach_get_result() then says how
 *
 * EVENTS. What the kernel driver tells the daemon (daemon/dmn_lib.h image-map events), as they
 * happen; `pid` is the machine's (the host process's) pid:
 *   exec    the process image was replaced: the program at host path `path`, load bias `bias`
 *           (mach_load; the loader then reports the program's and its interpreter's segments
 *           as mmap events, as binfmt_elf maps them)
 *   mmap    [start, start + len) was mapped with MACH_MAP_PROT_* `prot`, from the file at host
 *           path `path` at offset `off` (path NULL: anonymous memory). A mapping replaces what
 *           was there. From the loader and mmap(2); mprotect(2) reports the file-backed pieces
 *           of a range that becomes executable as mmap events again, and mremap(2) a moved file
 *           mapping.
 *   munmap  [start, start + len) is no longer mapped (munmap(2), mremap(2)'s old range), or
 *           no longer executable (mprotect(2) without PROT_EXEC)
 *   fork    the process forked and this machine is now the child `child` of `parent` (emitted
 *           in the child, before it runs; the parent's machine carries on without an event)
 *   exit    the process ended (mach_run, before it returns): exit status, or the signal
 *   leave   the process is about to execve another program (this image and the machine go;
 *           the next image is the new program's, in the same process and pid): store what
 *           you hold now. If the execve then fails the program carries on.
 * Any callback may be NULL. Events are emitted between instructions, never during one.
 */

#define MACH_MAP_PROT_R 0x1u
#define MACH_MAP_PROT_W 0x2u
#define MACH_MAP_PROT_X 0x4u

struct mach_map_event {
	uint64_t start, len; /* page aligned */
	uint64_t off; /* file offset of start */
	unsigned int prot; /* MACH_MAP_PROT_* */
	const char *path; /* host path of the file; NULL: anonymous */
};

struct mach_events {
	void (*exec)(void *priv, int32_t pid, const char *path, uint64_t bias);
	void (*mmap)(void *priv, int32_t pid, const struct mach_map_event *map);
	void (*munmap)(void *priv, int32_t pid, uint64_t start, uint64_t len);
	void (*fork)(void *priv, int32_t parent, int32_t child);
	void (*exit)(void *priv, int32_t pid, int exit_code, int exit_signal);
	void (*leave)(void *priv, int32_t pid);
	void *priv;
};

struct mach_opts {
	const char *sysroot; /* NULL: /usr/alpha-linux-gnu; "" for none */
	/* NULL: the program has the user's rights on the whole file system (as under qemu-user).
	 * A directory: every file name the program uses is resolved inside it ("/" is the
	 * directory; ".." and symbolic links cannot leave it), absolute names that exist in the
	 * sysroot are read from there, and execve runs only Alpha programs (mach_confine.c). */
	const char *confine;
	const char *cpu; /* NULL or "none" (functional), or a CPU model's name ("ev5") */
	bool truth; /* the CPU model records ground truth (mach_truth_write) */
	const char *prog; /* the program's name in messages (NULL: "program") */
	uint64_t max_insns; /* 0: unlimited */
	/* Instructions each guest thread runs before the next one's turn (round-robin,
	 * deterministic); 0: the default (mach_thread.c). */
	uint64_t quantum;
	/* Virtual CPUs (0 or 1: one): threads are bound to CPU (creation order mod N) and
	 * interleaved by the same deterministic round-robin; with a CPU model each CPU has its own
	 * instance (its own caches, predictors and PMU), kept coherent by a snooping MESI protocol
	 * (machine/mach_coh.h). At most MACH_MAX_CPUS. */
	unsigned int cpus;
	/* Coherence costs in cycles (--cpus N > 1; 0: mach_coh.h's [U] defaults): a cache-to-cache
	 * fill (intervention) and a store's wait for its invalidations. */
	uint32_t coh_c2c, coh_inval;
	bool trace_syscalls; /* print each system call to stderr (like qemu -strace) */
	/* The pid table of the run this process belongs to, inherited over the execve of an
	 * Alpha program (`axprof run --pid-table FD`, mach_vpid.c); 0: a new run, whose first
	 * process is pid 1000. */
	int pid_table_fd;
	/* The axprof command line (after argv[0]) the execve of an Alpha program re-executes,
	 * NULL-terminated; the machine adds [--sysroot S] [--confine D] [--trace-syscalls]
	 * --pid-table FD --argv0 A -- PROG ARGS. NULL: { "run" }. Held, not copied. */
	char *const *exec_cmd;
	/* Host signals the embedder handles itself (bit h - 1 for host signal h): the program's
	 * sigaction() never changes their host disposition, so they never reach the program from
	 * outside (axprof record keeps SIGINT, SIGTERM and SIGHUP to stop with mach_interrupt()). */
	uint64_t host_signals_kept;
};

/* How a run ended and what it did (mach_get_result). */
struct mach_result {
	bool exited; /* the process ended (not stopped at max_insns) */
	bool stopped_at_max; /* --max-insns reached */
	bool interrupted; /* mach_interrupt() stopped it */
	int exit_code; /* exit()/exit_group() status, when !exit_signal */
	int exit_signal; /* Alpha signal that killed it (0: none) */
	int status; /* as a shell sees it: exit_code, 128 + signal, 0 at max_insns */
	int32_t pid; /* the machine's pid now (a forked child's in the child) */
	char comm[16]; /* its command name now (Linux's comm: NUL-padded, up to 15 bytes) */
	uint64_t insns; /* instructions executed (CALL_PALs included) */
	uint64_t syscalls;
	uint64_t signals; /* signals delivered */
	bool timed; /* a CPU model ran: the fields below are valid */
	uint64_t cycles; /* the busiest CPU's (mach_opts.cpus) */
	uint64_t events[MACH_EV_NR]; /* PMU event counts, all CPUs added up */
};

#define MACH_MAX_CPUS 8

struct mach;

/*
 * A new machine. -EINVAL for an unknown opts->cpu (no model of that name), -ENOMEM, or the
 * CPU model's error. opts may be NULL (functional, default sysroot).
 */
int mach_new(struct mach **out, const struct mach_opts *opts);
void mach_free(struct mach *m);
/* The events go to ev (copied; NULL: none). Set before mach_load() to see the exec. */
void mach_set_events(struct mach *m, const struct mach_events *ev);

/*
 * Map `path` (and its interpreter) into m and build the initial stack from argv/envp as
 * Linux/Alpha's binfmt_elf does; on failure, a message naming the file is in `err` and the
 * return value is -ENOENT, -ENOEXEC (not ELF / not Alpha / bad headers), -ELIBBAD, -ENOMEM.
 */
struct mach_load_info {
	uint64_t entry; /* first instruction (the interpreter's entry for dynamic programs) */
	uint64_t prog_entry; /* AT_ENTRY */
	uint64_t load_bias; /* of the program (ET_DYN) */
	uint64_t interp_base; /* AT_BASE (0 for static programs) */
	uint64_t phdr, phnum; /* AT_PHDR, AT_PHNUM */
	uint64_t sp; /* initial stack pointer (argc) */
	uint64_t brk; /* initial break */
	uint64_t execfn, random, platform; /* AT_EXECFN, AT_RANDOM, AT_PLATFORM */
};
int mach_load(struct mach *m, const char *path, char *const argv[], char *const envp[],
	      struct mach_load_info *info, struct ax_error *err);

/* Run until exit; returns the process exit status as a shell would see it (mach_run.c). */
int mach_run(struct mach *m);
void mach_get_result(const struct mach *m, struct mach_result *r);
/*
 * Stop mach_run() at its next check (within a few million instructions; a blocking system
 * call returns at once):
 * the program is stopped where it is, not given a signal, and mach_run() returns 0 with
 * result.interrupted set and no exit event. Async-signal-safe: meant for a host signal
 * handler of the embedder (mach_opts.host_signals_kept).
 */
void mach_interrupt(struct mach *m);
/* Instructions executed so far (progress displays; cheap). */
uint64_t mach_insns(const struct mach *m);
/* Print instructions, time, MIPS, system calls, signals, then the CPU model's statistics. */
void mach_print_stats(struct mach *m, FILE *f, double seconds, double cpu_seconds);
/*
 * The built-in PMU handler's CYCLES samples (timed runs): the max PCs with most samples (at most
 * MACH_TOP_PCS), most first, into out; how many; *total (may be NULL) all samples of the run.
 */
#define MACH_TOP_PCS 10
struct mach_pc_count {
	uint64_t pc;
	uint64_t samples;
};
size_t mach_top_pcs(const struct mach *m, struct mach_pc_count *out, size_t max, uint64_t *total);
/*
 * Names a guest PC for mach_print_stats' top PCs ("sym+0xoff" as the tools print symbols, into
 * buf): true when named. The machine keeps no symbol tables; the embedder that does (axprof run,
 * from the machine's exec/mmap events) sets it. NULL: PCs are printed alone.
 */
typedef bool (*mach_pc_namer_fn)(void *priv, uint64_t pc, char *buf, size_t size);
void mach_set_pc_namer(struct mach *m, mach_pc_namer_fn fn, void *priv);
/* Write the CPU model's ground-truth file (opts.truth): 0, -EINVAL (no truth recorded or no
 * model), -EOPNOTSUPP (the model has none), -errno. */
int mach_truth_write(struct mach *m, const char *path);
/* Write the built-in PMU handler's CYCLES samples per PC as text ("0xPC COUNT" lines). */
int mach_samples_write(struct mach *m, const char *path);
/* After mach_run(): if a signal killed the program, die by the same host signal (no core
 * dump), as qemu-alpha does; returns only if there is no such host signal. */
void mach_die(struct mach *m);

#endif /* MACH_H */
