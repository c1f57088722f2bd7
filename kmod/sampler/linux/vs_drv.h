/* kmod/sampler/linux/vs_drv.h - axprof.ko internals shared by the driver's files. */
#ifndef VS_DRV_H
#define VS_DRV_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <asm/ptrace.h>
#include <asm/timex.h>

#include "vs_sampler.h"
#include "axprof_ioctl.h"

/*
 * axprof.ko: the sampler core (kmod/sampler, hotlist/) behind /dev/axprof.
 *
 *   vs_drv_main.c    module, parameters, device: open/read/poll/ioctl, configuration, drains
 *   vs_drv_source.c  sampling interrupts: per-CPU hrtimers (QEMU, no PMU) or EV67 counter
 *                    overflow through perf_event kernel counters; both call vs_drv_sample()
 *   vs_drv_work.c    interpretation at the return to user: task_work, user context capture
 *                    from pt_regs + switch_stack, write-back
 *   vs_drv_kvals.c   kernel values: a shadow interpretation of kernel code in the sampling
 *                    interrupt, only where provably safe (its header is the argument)
 *
 * Lifetimes. struct vs_drv_state (the configured per-CPU samplers) is published with RCU and
 * read with preemption disabled (interrupts, and the interpretation which runs with preemption
 * off), so replacing it is rcu_assign_pointer() + synchronize_rcu() + free, always while stopped.
 * Every queued work holds vs_drv_inflight; STOP and module exit wait for it to reach 0, and the
 * work's final decrement runs with preemption disabled so that synchronize_rcu() afterwards
 * guarantees no CPU still executes the module's callback (Alpha selects ARCH_NO_PREEMPT: kernel
 * code never loses the CPU involuntarily; see vs_drv_work.c).
 */

#define VS_DRV_WORKS 16 /* interpretations one CPU may have queued at once (<= BITS_PER_LONG) */

/* One queued interpretation. It stays in its CPU's pool until its callback has finished. */
struct vs_drv_work {
	struct callback_head cb;
	struct task_struct *task; /* identity only (never dereferenced): the dup check */
	unsigned long pc; /* the user pc the task was interrupted at */
	unsigned int cpu; /* the pool it belongs to, and the CPU that sampled */
	unsigned int slot;
};

/* Per CPU, for the module's lifetime. */
struct vs_drv_cpu {
	struct hrtimer timer;
	u64 timer_ns; /* the hrtimer's current period */
	struct perf_event *pev[VS_EVENT_NR];
	unsigned long busy; /* bit i set: work[i] is queued (atomic bitops) */
	struct vs_drv_work work[VS_DRV_WORKS];
};

/* One configured CPU. */
struct vs_drv_slot {
	struct vs_cpu *vs; /* NULL: the CPU was offline at configuration */
	void *mem; /* vmalloc'd, vs_cpu_size() bytes */
	bool flush_pending; /* a FLUSH is not complete on this CPU (under vs_drv_lock) */
};

struct vs_drv_state {
	struct vs_config cfg;
	unsigned int nr; /* nr_cpu_ids */
	unsigned int ncpus; /* slots with a sampler */
	struct vs_drv_slot cpu[];
};

DECLARE_PER_CPU(struct vs_drv_cpu, vs_drv_cpu);
extern struct vs_drv_state __rcu *vs_drv_state;
extern bool vs_drv_running; /* READ_ONCE/WRITE_ONCE: sampling is on */
extern u32 vs_drv_flags; /* AXPROF_DRV_*: changed only while stopped (AXPROF_IOC_SET_DRV) */
extern atomic_t vs_drv_inflight; /* queued works not yet finished */
extern atomic64_t vs_drv_glue[AXPROF_G_NR];

static inline void vs_drv_count(enum axprof_glue_counter c)
{
	atomic64_inc(&vs_drv_glue[c]);
}

/* The cycle counter's low 32 bits (RPCC; under QEMU -icount: guest instructions). */
static inline u32 vs_drv_cycles(void)
{
	return (u32)get_cycles();
}

/* Add the cycles since t0 (a vs_drv_cycles() value) to counter c. */
static inline void vs_drv_count_since(enum axprof_glue_counter c, u32 t0)
{
	atomic64_add((u32)(vs_drv_cycles() - t0), &vs_drv_glue[c]);
}

/* vs_drv_main.c: tell readers that records are ready (any context). */
void vs_drv_wake_reader(void);

/* vs_drv_source.c */
void vs_drv_source_init(void);
/* Arm the source (AXPROF_SRC_*, or 0 to choose) on every online CPU; the chosen one in *src. */
int vs_drv_source_start(const struct vs_config *cfg, int want, int *src);
/* Disarm: when this returns no sampling interrupt runs any more. */
void vs_drv_source_stop(void);

/* vs_drv_work.c */
void vs_drv_work_init(void);
/* From the sampling interrupt on this CPU: queue an interpretation for current (user mode). */
void vs_drv_work_queue(struct vs_drv_cpu *dc, unsigned int cpu, struct pt_regs *regs);
/* Sleep until every queued work has finished, then until no CPU can be inside one. */
void vs_drv_work_wait(void);

/* vs_drv_kvals.c: from the sampling interrupt of a kernel-mode sample the policy chose; own is
 * what the interrupt itself adds to preempt_count() (hrtimer: HARDIRQ_OFFSET, perf_irq: 0). */
void vs_drv_kvals(struct vs_cpu *vs, u32 pid, struct pt_regs *regs, unsigned int own);

#endif /* VS_DRV_H */
