/* kmod/sampler/linux/axprof_ioctl.h - /dev/axprof ioctl commands, for the driver and its users. */
#ifndef AXPROF_IOCTL_H
#define AXPROF_IOCTL_H

#include <linux/ioctl.h>

#include "vs_abi.h"

/*
 * The device: /dev/axprof (misc device, mode 0600; 0660 with the module parameter group=GID).
 * open() needs CAP_SYS_ADMIN or membership of that group. read() returns whole records of the
 * vs_abi.h stream drained from every CPU (a buffer smaller than VS_REC_MAX: -EINVAL); it blocks
 * while sampling runs and nothing is ready (O_NONBLOCK: -EAGAIN) and returns 0 once sampling is
 * stopped and everything is drained (a bad buffer: -EFAULT, and the records that read took are
 * lost). poll() reports POLLIN when a buffer filled, after a FLUSH and once stopped. The command
 * numbers are built with the including side's <linux/ioctl.h>, so an Alpha program and the
 * Alpha kernel agree (vs_abi.h, IOCTLS).
 *
 *   VS_IOC_INFO        struct vs_info out
 *   VS_IOC_SET_CONFIG  struct vs_config in: checked by vs_config_check(); only while stopped
 *                      (-EBUSY); replaces the sampler (records not yet read are discarded)
 *   VS_IOC_GET_CONFIG  struct vs_config out (-ENODATA before the first SET_CONFIG)
 *   VS_IOC_START       arm the sampling source on every online CPU (-ENODATA: not configured,
 *                      -EBUSY: running, -EOPNOTSUPP: an event the source cannot count)
 *   VS_IOC_STOP        disarm, then wait until every queued interpretation has run: after it
 *                      returns nothing more is recorded
 *   VS_IOC_FLUSH       move every CPU's hash table and observer tables into its buffers; the
 *                      reads that follow return everything (a flush the buffers cannot take at
 *                      once continues inside read())
 *   AXPROF_IOC_STATS   one VS_REC_STATS record per configured CPU into req.buf[0..req.len);
 *                      returns the bytes written (-ENOSPC: req.len too small)
 *   AXPROF_IOC_GLUE    struct axprof_glue out: the driver's own counters (below)
 *   AXPROF_IOC_SET_DRV struct axprof_drv in: driver options (below); only while stopped (-EBUSY),
 *                      unknown flags or nonzero reserved fields: -EINVAL
 *   AXPROF_IOC_GET_DRV struct axprof_drv out
 * Anything else: -ENOTTY. Bad pointers: -EFAULT. Nonzero reserved fields: -EINVAL.
 */

#define VS_IOC_INFO _IOR(VS_IOC_MAGIC, VS_IOC_NR_INFO, struct vs_info)
#define VS_IOC_SET_CONFIG _IOW(VS_IOC_MAGIC, VS_IOC_NR_SET_CONFIG, struct vs_config)
#define VS_IOC_GET_CONFIG _IOR(VS_IOC_MAGIC, VS_IOC_NR_GET_CONFIG, struct vs_config)
#define VS_IOC_START _IO(VS_IOC_MAGIC, VS_IOC_NR_START)
#define VS_IOC_STOP _IO(VS_IOC_MAGIC, VS_IOC_NR_STOP)
#define VS_IOC_FLUSH _IO(VS_IOC_MAGIC, VS_IOC_NR_FLUSH)

/* Driver extensions, numbered after the core's (proposed for vs_abi.h). */
#define AXPROF_IOC_NR_STATS VS_IOC_NR_STATS
#define AXPROF_IOC_NR_GLUE VS_IOC_NR_GLUE
#define AXPROF_IOC_NR_SET_DRV 32 /* driver-only commands from 32: clear of the core's numbers */
#define AXPROF_IOC_NR_GET_DRV 33

/* AXPROF_IOC_STATS argument, 16 bytes. */
struct axprof_stats_req {
	uint64_t buf; /* user address of the output */
	uint32_t len; /* bytes at buf */
	uint32_t reserved; /* 0 */
};

/* The driver's counters, cumulative since the module was loaded (AXPROF_IOC_GLUE). */
enum axprof_glue_counter {
	AXPROF_G_TICKS, /* sampling interrupts that reached vs_sample() */
	AXPROF_G_NO_REGS, /* timer interrupts without interrupted registers (not sampled) */
	AXPROF_G_CLAMPED, /* hrtimer periods raised to min_period_ns */
	AXPROF_G_QUEUED, /* interpretations queued (task_work_add) */
	AXPROF_G_DUP, /* not queued: the task already had one queued */
	AXPROF_G_NO_SLOT, /* not queued: the CPU's pool of queued works was full */
	AXPROF_G_NOT_USER, /* not queued: kernel thread, exiting task or no mm */
	AXPROF_G_ADD_FAILED, /* task_work_add() refused (task exiting) */
	AXPROF_G_RAN, /* queued works that ran */
	AXPROF_G_SKIP_EXIT, /* ... in the task's exit path: not interpreted */
	AXPROF_G_SKIP_PC, /* ... the task no longer resumed at the sampled pc: not interpreted */
	AXPROF_G_SKIP_STOPPED, /* ... sampling was stopped meanwhile: not interpreted */
	AXPROF_G_INTERP, /* vs_interpret() runs */
	AXPROF_G_INTERP_REFUSED, /* vs_interpret() refused (-EBUSY, -EINVAL) */
	AXPROF_G_MIGRATED, /* works that ran on another CPU than the sample */
	AXPROF_G_REGS_WRITTEN, /* user registers written back (changed values only, PC included) */
	AXPROF_G_SW_WRITTEN, /* ... of which s0-s6 (r9-r15, in the switch_stack) */
	AXPROF_G_FP_WRITTEN, /* ... of which FP registers and the FPCR (switch_stack fp[]) */
	AXPROF_G_SOURCE, /* source of the last START: 1 hrtimer, 2 performance counters */
	AXPROF_G_FLOOR_TICKS, /* sampling interrupts taken in floor mode (nothing else done) */
	AXPROF_G_TICK_CYCLES, /* cycle counter (RPCC) ticks inside the interrupt callbacks */
	AXPROF_G_WORK_CYCLES, /* ... inside the interpretation callbacks (task works that ran) */
	AXPROF_G_TASK_UNWRITTEN, /* VS_REC_TASK records vs_task() had no buffer room for */
	/* Kernel values (VS_CFG_KERNEL_VALUES; vs_drv_kvals.c, whose header is the safety
	 * argument): kernel-mode samples the policy chose, each refused or run once. */
	AXPROF_G_K_CHOSEN, /* kernel samples chosen for a shadow interpretation */
	AXPROF_G_K_NOT_TASK, /* refused: interrupted NMI, hard-irq or softirq context */
	AXPROF_G_K_IRQS_OFF, /* refused: interrupts were disabled (PS IPL not 0) */
	AXPROF_G_K_PREEMPT, /* refused: preemption or bottom halves were disabled */
	AXPROF_G_K_BAD_PC, /* refused: the pc is not a kernel address */
	AXPROF_G_K_BUSY, /* refused by the core (an interpretation was running) */
	AXPROF_G_K_RAN, /* shadow interpretations run; each ends with one stop below */
	AXPROF_G_K_STOP_BUDGET, /* ... the budget was used up */
	AXPROF_G_K_STOP_UNKNOWN, /* ... before reading s0-s6, sp (untrusted) or an FP register */
	AXPROF_G_K_STOP_PAL, /* ... before a CALL_PAL or a PALcode-reserved (HW_*) opcode */
	AXPROF_G_K_STOP_ADDR, /* ... before an access outside ordinary kernel memory */
	AXPROF_G_K_STOP_FAULT, /* ... a load or fetch faulted (copy_from_kernel_nofault) */
	AXPROF_G_K_STOP_SBUF, /* ... the private store buffer was full */
	AXPROF_G_K_STOP_OTHER, /* ... LL/SC, unaligned, arithmetic trap, RPCC, other handback */
	AXPROF_G_K_CYCLES, /* cycle counter ticks inside the shadow interpretations */
	AXPROF_G_NR,
};

/* 24 until issue 21's kernel values (AXPROF_IOC_GLUE's number encodes the size). */
#define AXPROF_GLUE_SLOTS 40

struct axprof_glue {
	uint64_t c[AXPROF_GLUE_SLOTS]; /* indexed by enum axprof_glue_counter; the rest 0 */
};

/*
 * Driver options (AXPROF_IOC_SET_DRV), kept across SET_CONFIG, 16 bytes.
 *   AXPROF_DRV_FLOOR  the floor: START arms the same sampling interrupts (the configured source,
 *                     at the configured mean period, unrandomised) and each one does nothing but
 *                     count itself (AXPROF_G_FLOOR_TICKS) and re-arm: no sample, no record, no
 *                     interpretation. Run time in this mode against stopped is the kernel's own
 *                     cost of the interrupts; the other modes' excess over it is axprof's.
 * Under QEMU -icount the cycle counter advances once per guest instruction, so
 * AXPROF_G_TICK_CYCLES / interrupts is the instructions the callback executes per interrupt.
 */
struct axprof_drv {
	uint32_t flags; /* AXPROF_DRV_* */
	uint32_t reserved[3]; /* 0 */
};

#define AXPROF_DRV_FLOOR 1u
#define AXPROF_DRV_FLAGS AXPROF_DRV_FLOOR /* every defined flag */

#define AXPROF_SRC_HRTIMER 1
#define AXPROF_SRC_PMU 2

#define AXPROF_IOC_STATS _IOW(VS_IOC_MAGIC, AXPROF_IOC_NR_STATS, struct axprof_stats_req)
#define AXPROF_IOC_GLUE _IOR(VS_IOC_MAGIC, AXPROF_IOC_NR_GLUE, struct axprof_glue)
#define AXPROF_IOC_SET_DRV _IOW(VS_IOC_MAGIC, AXPROF_IOC_NR_SET_DRV, struct axprof_drv)
#define AXPROF_IOC_GET_DRV _IOR(VS_IOC_MAGIC, AXPROF_IOC_NR_GET_DRV, struct axprof_drv)

_Static_assert(sizeof(struct axprof_stats_req) == 16, "axprof_stats_req layout");
_Static_assert(sizeof(struct axprof_glue) == 8 * AXPROF_GLUE_SLOTS, "axprof_glue layout");
_Static_assert(sizeof(struct axprof_drv) == 16, "axprof_drv layout");
_Static_assert(AXPROF_G_NR <= AXPROF_GLUE_SLOTS, "glue counters fit");

#endif /* AXPROF_IOCTL_H */
