/* tests/kernel/kt_halt.c - kt_halt.ko: idle CPUs halt (WTINT) in the SMP kernel test (issue 17). */

/*
 * Not part of axprof: a helper of tests/kernel/kernel-test.sh for its SMP boots. The test kernel
 * has no CONFIG_ALPHA_WTINT, so an idle CPU spins in the generic poll loop: under QEMU each idle
 * vCPU then spins a host core (multi-threaded TCG), and under -icount, where QEMU 7.2 runs the
 * vCPUs in turn up to each timer deadline, an idle CPU 0 never gives its turn to CPU 1 (see
 * kernel-test.sh, "SMP under -icount").
 *
 * One kthread per online CPU, at SCHED_IDLE and bound to its CPU, halts the CPU with the WTINT
 * PAL call ("wait for interrupt", as the idle loop of a kernel built with ALPHA_WTINT does)
 * whenever it is the only task runnable there; any interrupt (timer, IPI, device) ends the
 * wait. The threads run until power-off (unloading stops them; the test never unloads this
 * module).
 */
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>
#include <uapi/linux/sched/types.h>
#include <asm/pal.h>

static DEFINE_PER_CPU(struct task_struct *, kt_halter);
static DEFINE_PER_CPU(unsigned long, kt_halts);

static int kt_halt_fn(void *unused)
{
	struct sched_attr attr = { .size = sizeof(attr), .sched_policy = SCHED_IDLE };

	if (sched_setattr_nocheck(current, &attr))
		pr_warn("kt_halt: cpu%d: SCHED_IDLE refused\n", raw_smp_processor_id());
	while (!kthread_should_stop()) {
		/* With interrupts off, so that a wakeup between the test and the wait is not
		 * lost: a pending interrupt ends WTINT at once, and is taken after it. */
		local_irq_disable();
		if (single_task_running() && !need_resched()) {
			wtint(0);
			this_cpu_inc(kt_halts);
		}
		local_irq_enable();
		cond_resched();
	}
	return 0;
}

static void kt_halt_stop(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
	{
		if (!per_cpu(kt_halter, cpu))
			continue;
		kthread_stop(per_cpu(kt_halter, cpu));
		per_cpu(kt_halter, cpu) = NULL;
		pr_info("kt_halt: cpu%d halted %lu times\n", cpu, per_cpu(kt_halts, cpu));
	}
}

static int __init kt_halt_init(void)
{
	struct task_struct *t;
	int cpu;

	for_each_online_cpu(cpu)
	{
		t = kthread_create_on_cpu(kt_halt_fn, NULL, cpu, "kt_halt/%u");
		if (IS_ERR(t)) {
			kt_halt_stop();
			return PTR_ERR(t);
		}
		per_cpu(kt_halter, cpu) = t;
		wake_up_process(t);
	}
	return 0;
}

static void __exit kt_halt_exit(void)
{
	kt_halt_stop();
}

module_init(kt_halt_init);
module_exit(kt_halt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("axprof kernel test: idle CPUs halt under QEMU -icount");
