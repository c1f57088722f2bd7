/* machine/mach_sys_cost.c - the cycles an emulated system call would spend in the kernel. */
#include <errno.h>
#include <inttypes.h>
#include <sys/types.h>

#include "mach_kern.h"
#include "mach_sys.h"

/*
 * DCPI SOSP'97 §4.3 attributes kernel samples to the kernel; the hosted machine has no kernel
 * code to time, so each call costs what this model says (mach_kern.h). No manual gives such
 * figures for Alpha Linux; every number is ours [U] and a parameter (machine/EV5-MODEL.md,
 * "System calls"): a call's cost is `base`, plus by class
 *   COPY  copy_base + bytes moved / copy_bytes (the result of a read/write-like call)
 *   VM    vm_base + vm_page per 8 KB page of the range (a1; mremap: its new length a2)
 *   PATH  path (file-name lookup)
 *   PROC  proc (fork, vfork, clone, execve: page tables, loading)
 * Page faults and cache effects of the kernel are not modelled.
 */

const struct mach_kern_params mach_kern_default = {
	.base = 300, /* [U] ~0.6 us at 500 MHz: PALcode entry, entSys, dispatch, rti */
	.copy_base = 200, /* [U] fd lookup and VFS */
	.copy_bytes = 4, /* [U] copy_to/from_user: a quadword load and store per 2 cycles */
	.vm_base = 800, /* [U] VMA lookup, split and merge */
	.vm_page = 40, /* [U] page-table entries per 8 KB page */
	.path = 1500, /* [U] name lookup through the dentry cache */
	.proc = 20000, /* [U] copying or building an address space */
};

_Static_assert(MACH_KERN_NR == MACH_NR_MAX, "a pseudo-pc for every system call number");

enum kclass { KC_BASIC, KC_COPY, KC_VM, KC_PATH, KC_PROC };

static enum kclass class_of(unsigned int nr)
{
	switch (nr) {
	case MACH_NR_read:
	case MACH_NR_write:
	case MACH_NR_readv:
	case MACH_NR_writev:
	case MACH_NR_pread64:
	case MACH_NR_pwrite64:
	case MACH_NR_sendfile:
	case MACH_NR_getdents:
	case MACH_NR_getdents64:
		return KC_COPY;
	case MACH_NR_mmap:
	case MACH_NR_munmap:
	case MACH_NR_mprotect:
	case MACH_NR_mremap:
	case MACH_NR_brk:
		return KC_VM;
	case MACH_NR_open:
	case MACH_NR_openat:
	case MACH_NR_stat:
	case MACH_NR_lstat:
	case MACH_NR_stat64:
	case MACH_NR_fstatat64:
	case MACH_NR_statx:
	case MACH_NR_access:
	case MACH_NR_faccessat:
	case MACH_NR_unlink:
	case MACH_NR_unlinkat:
	case MACH_NR_mkdir:
	case MACH_NR_mkdirat:
	case MACH_NR_rmdir:
	case MACH_NR_rename:
	case MACH_NR_renameat:
	case MACH_NR_renameat2:
	case MACH_NR_readlink:
	case MACH_NR_readlinkat:
	case MACH_NR_chdir:
	case MACH_NR_statfs:
		return KC_PATH;
	case MACH_NR_fork:
	case MACH_NR_vfork:
	case MACH_NR_clone:
	case MACH_NR_execve:
		return KC_PROC;
	default:
		return KC_BASIC;
	}
}

uint64_t mach_kern_cycles(const struct mach_kern_params *p, unsigned int nr, const uint64_t *a,
			  int64_t ret)
{
	uint64_t c = p->base, len;

	switch (class_of(nr)) {
	case KC_COPY:
		c += p->copy_base;
		if (ret > 0 && p->copy_bytes)
			c += (uint64_t)ret / p->copy_bytes;
		break;
	case KC_VM:
		len = nr == MACH_NR_mremap ? a[2] : nr == MACH_NR_brk ? 0 : a[1];
		if (len > (1ull << 40)) /* a failing call with a wild length */
			len = 0;
		c += p->vm_base + ((len + 8191) >> 13) * p->vm_page;
		break;
	case KC_PATH:
		c += p->path;
		break;
	case KC_PROC:
		c += p->proc;
		break;
	case KC_BASIC:
		break;
	}
	return c;
}

void mach_kern_name(unsigned int nr, char *buf, size_t len)
{
	const char *n = mach_sysname(nr);

	if (n)
		snprintf(buf, len, "sys_%s", n);
	else
		snprintf(buf, len, "sys_%u", nr);
}

int mach_kern_kallsyms(FILE *f)
{
	char name[64];

	for (unsigned int nr = 0; nr < MACH_KERN_NR; nr++) {
		mach_kern_name(nr, name, sizeof(name));
		fprintf(f, "%016" PRIx64 " T %s\n", mach_kern_pc(nr), name);
	}
	fprintf(f, "%016" PRIx64 " T _etext\n", (uint64_t)MACH_KERN_END);
	return ferror(f) ? -EIO : 0;
}
