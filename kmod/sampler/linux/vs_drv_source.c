/* kmod/sampler/linux/vs_drv_source.c - sampling interrupts: per-CPU hrtimers or EV67 counters. */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/hwrpb.h>
#include <asm/irq_regs.h>

#include "vs_drv.h"

/*
 * Two sources, chosen at VS_IOC_START (module parameter `source`):
 *
 *  - hrtimer: one HRTIMER_MODE_REL_PINNED_HARD timer per online CPU, re-armed from its own
 *    callback with the period vs_sample() drew (DCPI §4.1.1 randomisation), converted from
 *    cycles to nanoseconds at a nominal clock: `clock_mhz`, or the HWRPB's cycle_freq (QEMU's
 *    PALcode (qemu-palcode's HWRPB) reports its RPCC rate, 250 MHz). Under
 *    QEMU the clock-event device is the one-shot "qemu" alarm with nanosecond resolution, so a
 *    48,000-cycle mean period at 250 MHz gives ~5,200 interrupts/s. It counts only VS_EV_CYCLES.
 *    get_irq_regs() is the interrupted context (do_entInt's set_irq_regs for the clock).
 *    Periods below `min_period_ns` are raised to it (AXPROF_G_CLAMPED): a configuration valid
 *    for counters (lo = 1) must not become an interrupt storm.
 *  - pmu: EV67 performance-counter overflow through perf_event kernel counters (Linux's
 *    arch/alpha/kernel/perf_event.c drives PCTR0/1; perf_irq gets the interrupted pt_regs).
 *    VS_EV_CYCLES -> cycles, VS_EV_INSNS -> instructions, VS_EV_DMISS -> cache misses (EV67:
 *    B-cache misses), VS_EV_REPLAYS -> raw event 4 (EV67 Mbox replay traps); others are not
 *    available. The next period is set by writing the event's hw.sample_period in the overflow
 *    handler; the Alpha driver has already programmed the following period by then, so each
 *    drawn period takes effect one overflow later (still uniform in [lo, hi]; the Alpha driver
 *    also caps it at the counter's 20-bit maximum).
 *
 * In floor mode (AXPROF_DRV_FLOOR) both take the same interrupts and do nothing but re-arm with
 * the period they started with (the configured mean). Both add the cycles they spend to
 * AXPROF_G_TICK_CYCLES (two RPCCs and an add: included in the floor too).
 *
 * `source=auto` (the default) uses the hrtimer when the HWRPB serial number says QEMU (the test
 * arch/alpha/kernel/setup.c makes for alpha_using_qemu): QEMU's Alpha has no counter interrupts
 * although its PALcode reports an EV67 and perf registers; otherwise it tries the counters and
 * falls back to the hrtimer when they cannot be created.
 */

static char *source = "auto";
module_param(source, charp, 0644);
MODULE_PARM_DESC(source, "sampling source at START: auto, hrtimer or pmu");

static unsigned int clock_mhz;
module_param(clock_mhz, uint, 0644);
MODULE_PARM_DESC(clock_mhz, "nominal clock for hrtimer periods, MHz (0: HWRPB cycle_freq)");

static unsigned int min_period_ns = 20000;
module_param(min_period_ns, uint, 0644);
MODULE_PARM_DESC(min_period_ns, "shortest hrtimer period, ns (default 20000)");

static unsigned int ps_per_cycle; /* picoseconds per nominal cycle, fixed at START */
static unsigned int cur_min_ns;
static int cur_source;

static u64 cycles_to_ns(u32 cycles)
{
	u64 ns = (u64)cycles * ps_per_cycle / 1000;

	if (ns < cur_min_ns) {
		vs_drv_count(AXPROF_G_CLAMPED);
		ns = cur_min_ns;
	}
	return ns;
}

/* Both sources: one sampling interrupt on this CPU, interrupted context regs. Inline in each
 * callback: the call saved and restored eight registers on every interrupt (issue 18). */
static __always_inline void sample(struct vs_drv_cpu *dc, struct pt_regs *regs, unsigned int event,
				   u32 *period, unsigned int own)
{
	struct vs_drv_state *st = rcu_dereference_sched(vs_drv_state);
	unsigned int cpu = smp_processor_id();
	struct task_struct *t = current;
	struct vs_decision dec;
	u32 tid = 0;

	*period = 0;
	if (!st || cpu >= st->nr || !st->cpu[cpu].vs)
		return;
	vs_drv_count(AXPROF_G_TICKS);
	/*
	 * ABI 5: the sample is the thread's (task->pid), named with its process (tgid) and comm
	 * by a VS_REC_TASK when this CPU has not named it yet. comm is read without task_lock,
	 * as perf's sample path does: a rename racing with the interrupt can give a mix of the
	 * two names, which the next sample corrects. The idle task and kernel threads are 0.
	 */
	if (!(t->flags & PF_KTHREAD) && t->pid) {
		tid = task_pid_nr(t);
		if (vs_task(st->cpu[cpu].vs, task_tgid_nr(t), tid, t->comm))
			vs_drv_count(AXPROF_G_TASK_UNWRITTEN);
	}
	/* Bit 0 of a pc is PALcode's mode flag, bit 1 is never set: record the instruction. */
	vs_sample(st->cpu[cpu].vs, tid, instruction_pointer(regs) & ~3UL, event, user_mode(regs),
		  &dec);
	*period = dec.period;
	if (dec.wake)
		vs_drv_wake_reader();
	if (dec.interpret && user_mode(regs))
		vs_drv_work_queue(dc, cpu, regs);
	else if (dec.interpret) /* VS_CFG_KERNEL_VALUES */
		vs_drv_kvals(st->cpu[cpu].vs, tid ? task_tgid_nr(t) : 0, regs, own); /* process */
}

/* ---- hrtimer ---- */

static enum hrtimer_restart tick(struct hrtimer *t)
{
	struct vs_drv_cpu *dc = container_of(t, struct vs_drv_cpu, timer);
	u32 t0 = vs_drv_cycles(), period = 0;
	struct pt_regs *regs;

	if (!READ_ONCE(vs_drv_running))
		return HRTIMER_NORESTART;
	if (READ_ONCE(vs_drv_flags) & AXPROF_DRV_FLOOR) {
		vs_drv_count(AXPROF_G_FLOOR_TICKS); /* the floor: nothing else (axprof_ioctl.h) */
	} else {
		regs = get_irq_regs();
		if (regs)
			sample(dc, regs, VS_EV_CYCLES, &period, HARDIRQ_OFFSET); /* handle_irq() */
		else
			vs_drv_count(AXPROF_G_NO_REGS);
	}
	if (period)
		dc->timer_ns = cycles_to_ns(period);
	/* The next expiry counts from this one, as a counter counts on from its overflow: no clock
	 * read (hrtimer_forward_now() read it: ~100 of the floor's ~140 instructions in the
	 * callback). A callback run more than a period late runs again at once in the same
	 * interrupt, as a counter that overflowed twice. */
	hrtimer_add_expires_ns(t, dc->timer_ns);
	vs_drv_count_since(AXPROF_G_TICK_CYCLES, t0);
	return HRTIMER_RESTART;
}

static void timer_start_here(void *arg)
{
	const struct vs_period *p = arg;
	struct vs_drv_cpu *dc = this_cpu_ptr(&vs_drv_cpu);

	dc->timer_ns = cycles_to_ns(p->lo + (p->hi - p->lo) / 2);
	hrtimer_start(&dc->timer, ns_to_ktime(dc->timer_ns), HRTIMER_MODE_REL_PINNED_HARD);
}

static int timer_start(const struct vs_config *cfg)
{
	unsigned int mhz = clock_mhz;

	if (cfg->events != 1u << VS_EV_CYCLES)
		return -EOPNOTSUPP;
	if (!mhz)
		mhz = hwrpb->cycle_freq / 1000000;
	if (!mhz)
		mhz = 250;
	ps_per_cycle = 1000000 / mhz;
	if (!ps_per_cycle)
		ps_per_cycle = 1;
	cur_min_ns = min_period_ns;
	on_each_cpu(timer_start_here, (void *)&cfg->period[VS_EV_CYCLES], 1);
	pr_info("axprof: sampling with per-CPU hrtimers, %u MHz nominal clock, periods %u-%u cycles\n",
		mhz, cfg->period[VS_EV_CYCLES].lo, cfg->period[VS_EV_CYCLES].hi);
	return 0;
}

/* ---- performance counters ---- */

static void pmi(struct perf_event *ev, struct perf_sample_data *data, struct pt_regs *regs)
{
	unsigned int event = (unsigned long)ev->overflow_handler_context;
	u32 t0 = vs_drv_cycles(), period = 0;

	if (!READ_ONCE(vs_drv_running))
		return;
	if (READ_ONCE(vs_drv_flags) & AXPROF_DRV_FLOOR)
		vs_drv_count(AXPROF_G_FLOOR_TICKS);
	else
		sample(this_cpu_ptr(&vs_drv_cpu), regs, event, &period, 0); /* no irq_enter() */
	if (period)
		ev->hw.sample_period = period;
	vs_drv_count_since(AXPROF_G_TICK_CYCLES, t0);
}

static int pmu_attr(unsigned int e, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	switch (e) {
	case VS_EV_CYCLES:
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
		return 0;
	case VS_EV_INSNS:
		attr->config = PERF_COUNT_HW_INSTRUCTIONS;
		return 0;
	case VS_EV_DMISS:
		attr->config = PERF_COUNT_HW_CACHE_MISSES;
		return 0;
	case VS_EV_REPLAYS:
		attr->type = PERF_TYPE_RAW;
		attr->config = 4; /* EV67_MBOXREPLAY in arch/alpha/kernel/perf_event.c */
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static void pmu_stop(void)
{
	unsigned int cpu, e;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct vs_drv_cpu *dc = per_cpu_ptr(&vs_drv_cpu, cpu);

		if (!cpu_possible(cpu))
			continue;
		for (e = 0; e < VS_EVENT_NR; e++) {
			if (!dc->pev[e])
				continue;
			perf_event_disable(dc->pev[e]);
			perf_event_release_kernel(dc->pev[e]);
			dc->pev[e] = NULL;
		}
	}
}

static int pmu_start(const struct vs_config *cfg)
{
	struct perf_event_attr attr;
	unsigned int cpu, e;
	int err;

	for (e = 0; e < VS_EVENT_NR; e++) {
		if ((cfg->events & (1u << e)) && pmu_attr(e, &attr))
			return -EOPNOTSUPP;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct vs_drv_cpu *dc = per_cpu_ptr(&vs_drv_cpu, cpu);

		if (!cpu_online(cpu))
			continue;
		for (e = 0; e < VS_EVENT_NR; e++) {
			struct perf_event *ev;

			if (!(cfg->events & (1u << e)))
				continue;
			pmu_attr(e, &attr);
			attr.sample_period = vs_period_first(cfg, e);
			attr.pinned = 1;
			ev = perf_event_create_kernel_counter(&attr, cpu, NULL, pmi,
							      (void *)(unsigned long)e);
			if (IS_ERR(ev)) {
				err = PTR_ERR(ev);
				pmu_stop();
				return err;
			}
			dc->pev[e] = ev;
		}
	}
	pr_info("axprof: sampling with performance-counter overflow (events 0x%x)\n", cfg->events);
	return 0;
}

/* ---- selection ---- */

static bool on_qemu(void)
{
	return strnstr((const char *)hwrpb->ssn, "QEMU", sizeof(hwrpb->ssn)) != NULL;
}

int vs_drv_source_start(const struct vs_config *cfg, int want, int *src)
{
	int err;

	if (!want) {
		if (sysfs_streq(source, "hrtimer"))
			want = AXPROF_SRC_HRTIMER;
		else if (sysfs_streq(source, "pmu"))
			want = AXPROF_SRC_PMU;
		else if (!sysfs_streq(source, "auto"))
			return -EINVAL;
	}
	if (!want && on_qemu())
		want = AXPROF_SRC_HRTIMER;
	if (want != AXPROF_SRC_HRTIMER) {
		err = pmu_start(cfg);
		if (!err || want == AXPROF_SRC_PMU) {
			cur_source = err ? 0 : AXPROF_SRC_PMU;
			*src = cur_source;
			return err;
		}
		pr_info("axprof: performance counters unavailable (%d): using hrtimers\n", err);
	}
	err = timer_start(cfg);
	cur_source = err ? 0 : AXPROF_SRC_HRTIMER;
	*src = cur_source;
	return err;
}

void vs_drv_source_stop(void)
{
	unsigned int cpu;

	/* vs_drv_running is already false: callbacks return without re-arming. */
	if (cur_source == AXPROF_SRC_HRTIMER) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (cpu_possible(cpu))
				hrtimer_cancel(&per_cpu_ptr(&vs_drv_cpu, cpu)->timer);
	} else if (cur_source == AXPROF_SRC_PMU) {
		pmu_stop();
	}
	cur_source = 0;
}

void vs_drv_source_init(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct vs_drv_cpu *dc = per_cpu_ptr(&vs_drv_cpu, cpu);

		if (!cpu_possible(cpu))
			continue;
		hrtimer_init(&dc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		dc->timer.function = tick;
	}
	pr_info("axprof: HWRPB cycle_freq %lu Hz%s\n", hwrpb->cycle_freq,
		on_qemu() ? ", running on QEMU (no counter interrupts: hrtimer source)" : "");
}
