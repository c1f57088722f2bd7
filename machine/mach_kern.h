/* machine/mach_kern.h - the hosted machine's kernel time: system-call costs and [kernel] pcs. */
#ifndef MACH_KERN_H
#define MACH_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The hosted machine has no kernel: it emulates each system call in one step. DCPI profiles all
 * address spaces (SOSP'97 §4.3: kernel samples go to the kernel image), so the time a real
 * kernel would spend in a call must show as kernel time, not as a stall of the user
 * instruction after the CALL_PAL. In timing mode the machine therefore books, after every
 * emulated callsys, the cycles of a per-call cost model (mach_sys_cost.c; the parameters are
 * [U] and listed in machine/EV5-MODEL.md) to the running CPU model's kernel op: the CYCLES
 * counter keeps counting during them, and the samples that fall in them report the call's
 * pseudo-pc in kernel mode (VS_SF_KERNEL).
 *
 * Pseudo-pcs: system call NR is the "procedure" sys_NAME at
 *   MACH_KERN_BASE + NR * MACH_KERN_STRIDE, size MACH_KERN_STRIDE,
 * inside [MACH_KERN_BASE, MACH_KERN_END), an address no user mapping can have (the Alpha
 * kernel's KSEG half). mach_kern_kallsyms() writes that table as /proc/kallsyms text, so the
 * daemon maps those samples to a symbol-only kernel image, `[kernel]`, as it does for a real
 * kernel's (daemon/dmn_kern.c).
 */

#define MACH_KERN_BASE 0xfffffc0000010000ull
#define MACH_KERN_STRIDE 16u
#define MACH_KERN_NR 600u /* system call numbers 0..599 (Alpha's unistd) */
#define MACH_KERN_END (MACH_KERN_BASE + (uint64_t)MACH_KERN_NR * MACH_KERN_STRIDE)
#define MACH_KERN_IMAGE "[kernel]" /* the image name the daemon gives them */

static inline uint64_t mach_kern_pc(unsigned int nr)
{
	return MACH_KERN_BASE + (uint64_t)nr * MACH_KERN_STRIDE;
}

static inline bool mach_kern_is_pc(uint64_t pc)
{
	return pc >= MACH_KERN_BASE && pc < MACH_KERN_END;
}

/* The model's parameters (cycles; machine/EV5-MODEL.md "System calls"). */
struct mach_kern_params {
	uint32_t base; /* every call: callsys PALcode entry, entSys, dispatch, rti */
	uint32_t copy_base; /* read/write-like calls: file lookup, VFS */
	uint32_t copy_bytes; /* ... and one cycle per this many bytes moved */
	uint32_t vm_base; /* mmap/munmap/mprotect/mremap/brk: VMA work */
	uint32_t vm_page; /* ... and this per 8 KB page of the range */
	uint32_t path; /* calls that look up a file name */
	uint32_t proc; /* fork, vfork, clone, execve */
};

extern const struct mach_kern_params mach_kern_default;

/* The cycles system call nr with arguments a[0..5] and result ret (a value or -errno) costs. */
uint64_t mach_kern_cycles(const struct mach_kern_params *p, unsigned int nr, const uint64_t *a,
			  int64_t ret);

/* The procedure name of call nr ("sys_write"; "sys_NR" for numbers without a name). */
void mach_kern_name(unsigned int nr, char *buf, size_t len);

/* Write the pseudo-pcs as /proc/kallsyms text ("ADDR T sys_NAME"): 0 or -EIO. */
int mach_kern_kallsyms(FILE *f);

#endif /* MACH_KERN_H */
