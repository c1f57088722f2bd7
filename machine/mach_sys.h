/* machine/mach_sys.h - internals shared by the system-call files (mach_sys*.c, mach_signal.c). */
#ifndef MACH_SYS_H
#define MACH_SYS_H

#include "mach_int.h"

/*
 * A handler gets the six argument registers a0-a5 (r16-r21) and returns the result, or a
 * negative HOST errno (mach_syscall() translates it to Alpha's and sets a3). Handlers whose
 * result may look negative (mmap, brk, getpriority, osf_sigprocmask) return sys_force(m, val),
 * Linux's force_successful_syscall_return(). SYS_NORET: the handler set the context itself
 * (sigreturn, exit) and v0/a3 must not be touched.
 */
typedef int64_t (*mach_sys_fn)(struct mach *m, const uint64_t *a);

#define SYS_NORET INT64_MIN
#define SYS_FORCED (INT64_MIN + 1) /* result already in v0 with a3 = 0 */

/* Alpha system call numbers: MACH_NR_<name> (generated from asm/unistd_32.h). */
enum {
#define MACH_SYSNR(name, nr) MACH_NR_##name = nr,
#include "mach_sysnr.h"
#undef MACH_SYSNR
	MACH_NR_MAX = 600,
};

/* -errno of the last failed libc call, or the value. */
static inline int64_t sys_ret(int64_t r)
{
	return r < 0 ? -(int64_t)errno : r;
}

/* Set v0 = val, a3 = 0 whatever val looks like (force_successful_syscall_return()). */
static inline int64_t sys_force(struct mach *m, uint64_t val)
{
	m->ctx.r[0] = val;
	m->ctx.r[19] = 0;
	return SYS_FORCED;
}

/* Read a path argument and resolve it for the host: absolute paths that exist under the
 * sysroot are taken from there (mach_path), /proc/self/exe is the program. Confined
 * (mach_confine.c), relative to dirfd and with `how` (MACH_CF_*), the result is a
 * /proc/self/fd name held until the call returns; an escape gives -EACCES or -ENOENT. */
int sys_path(struct mach *m, int dirfd, uint64_t va, unsigned int how, char *buf, size_t len,
	     const char **out);

/* Host pointer to a guest buffer or -EFAULT. */
static inline int sys_buf(struct mach *m, uint64_t va, uint64_t len, unsigned int prot, void **out)
{
	void *p = mach_mem_ptr(m->mem, va, len, prot);

	if (!p)
		return -EFAULT;
	*out = p;
	return 0;
}

/* Handler tables of the split files: each fills its entries of the table. */
void mach_sys_fs_table(mach_sys_fn *t);
void mach_sys_signal_table(mach_sys_fn *t);
void mach_sys_proc_table(mach_sys_fn *t);

/* Open flags, Alpha <-> host (asm/fcntl.h). */
int mach_oflags_to_host(uint64_t aflags);
uint64_t mach_oflags_to_alpha(int hflags);

#endif /* MACH_SYS_H */
