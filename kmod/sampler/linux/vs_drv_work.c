/* kmod/sampler/linux/vs_drv_work.c - interpretation at the return to user: task_work, context. */
#include <linux/bitops.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <asm/pal.h>
#include <asm/ptrace.h>

#include "axp_user.h"
#include "vs_drv.h"

/*
 * Why at the return to user. The sampling interrupt sees only part of the user context: entInt's
 * SAVE_ALL stores r0-r8, r19-r28 (and PALcode ps, pc, gp, r16-r18) as struct pt_regs, while
 * s0-s6 (r9-r15) stay live in registers, preserved only by C callee-save, and the FP registers
 * are never touched (arch/alpha/kernel/entry.S, struct pt_regs in asm/ptrace.h). The interrupt therefore queues
 * a task_work (TWA_RESUME, which sets TIF_NOTIFY_RESUME) on the interrupted task. Before that
 * task runs another user instruction, ret_to_user sees the flag and takes work_pending:
 * $work_notifysig does DO_SWITCH_STACK and calls do_work_pending(), whose
 * resume_user_mode_work() (or get_signal(), which runs task works first) calls us.
 *
 * Where the user state is then (Linux 6.1, arch/alpha/kernel/entry.S and signal.c):
 *  - r0-r8, r16-r28, gp (r29), pc: struct pt_regs at task_pt_regs(current), restored by
 *    RESTORE_ALL and PALcode's rti;
 *  - r9-r15: struct switch_stack just below pt_regs ((struct switch_stack *)regs - 1), written
 *    by do_switch_stack and reloaded by undo_switch_stack (setup_sigcontext reads them there);
 *  - f0-f30 and the FPCR: ALSO in that switch_stack, fp[0..30] and fp[31] = FPCR. In 6.1
 *    do_switch_stack stores every FP register and mf_fpcr, and undo_switch_stack reloads them
 *    all (mt_fpcr) right before the return: the switch_stack copy is the one the program gets
 *    back. Writing the live FP registers (alpha_write_fp_reg, wrfpcr) here would be undone, so
 *    we read and write sw->fp[] exactly as setup_sigcontext/restore_sigcontext do. (The lazy-FPU
 *    rework of 6.3 moved FP state to thread_info; this file follows 6.1.)
 *  - r30 (usp): PALcode's user stack pointer, rdusp()/wrusp();
 *  - the unique value: PALcode's, rduniq/wruniq for the current task.
 * The interpreter stops at every CALL_PAL, so it never changes the unique value; it is still
 * written back if it differs, like every other register.
 *
 * When else task works run, and why those are safe: get_signal() runs them first (still inside
 * do_work_pending(), same frame); exit_task_work() runs them in do_exit() (PF_EXITING: we only
 * release the slot). A work is queued only from an interrupt of USER mode and always runs before
 * that task returns to user, so no other kernel path (e.g. io_uring's explicit task_work_run()
 * inside a system call) can meet one of ours; the callback still checks that the task resumes in
 * user mode at the pc that was sampled, and skips otherwise.
 *
 * Faults. The interpretation runs with preemption disabled (per-CPU sampler, RCU-sched reader)
 * and page faults disabled: an access to a page that is not resident, or a store to a
 * copy-on-write page, fails with -EFAULT instead of sleeping, so the interpreter stops before
 * that instruction and the program takes the fault itself when it resumes (DESIGN.md, "a
 * failing instruction is not executed"). get_user/put_user check access_ok(): kernel
 * addresses fail the same way.
 *
 * Unload. task_work_cancel() is not exported to modules in 6.1, so a queued work cannot be
 * withdrawn. Instead every queued work counts in vs_drv_inflight, STOP and module exit first
 * disarm the sources (nothing new is queued) and then wait for the count to reach 0: each
 * queued work runs before its task next returns to user (or in its exit), so the wait is
 * bounded by scheduling. The callback's last touches of module memory (slot release, count
 * decrement, wake-up) run with preemption disabled, and the waiter calls synchronize_rcu()
 * after seeing 0: a grace period ends only after every CPU has left such a region. The few
 * instructions of the callback's epilogue after preempt_enable() cannot lose the CPU either:
 * Alpha selects ARCH_NO_PREEMPT, so preempt_enable() never schedules and an interrupt returns to
 * the same code; the CPU passes no quiescent state before it is back in task_work_run().
 *
 * Cost (issue 18; RPCC around each part in a throwaway build, QEMU -icount: guest instructions).
 * At the slides' rate (4 instructions on one sample in 2) an interpretation cost 5,928 inside
 * work_fn: ctx_capture 532, vs_interpret 4,387 (906 for a run that stopped at once: entry,
 * observers' begin/end; ~870 per instruction: fetch, decode, execute, the values, latency and
 * vcount observers), ctx_write_back 657, counters 22, wake-up test 59, the checks, RCU and
 * release ~270; the queueing in the interrupt ~450, and the return path outside the callbacks
 * (work_pending, the switch stack with the FP registers, task_work_run) ~500 by the overhead
 * table. That was +5.8 points of run time over cycles mode, over two thirds of it inside
 * vs_interpret: halving the glue would not reach 5%, so vs_abi.c interprets less often (8
 * instructions on one sample in 32). Then an interpretation costs ~11,700 (capture 516, vs_interpret 9,638,
 * write-back 566): each instruction costs more (~1,200) because the observer tables meet more
 * first-seen pcs (a claimed slot, an evicted record) when interpretations are rarer, but the
 * glue's fixed part is then ~0.05 points. Stop 29 cut the observers' cost per instruction with
 * the records bit-identical (vs_observe.c: direct observer calls, one-word key compares, a value
 * filter before the hotlist scan, no clearing of a claimed list's arrays, word stores in
 * hotlist_pack, no free-way search in a full table): the kernel test's interpretation of 8 fell
 * from 14,058 to 9,219 instructions in the callback (vreplay's from 80,807 to 66,586).
 */

/* rduniq/wruniq for the current task (CALL_PAL 0x9e/0x9f, asm/pal.h's own macro). */
__CALL_PAL_R0(rduniq, unsigned long);
__CALL_PAL_W1(wruniq, unsigned long);

atomic_t vs_drv_inflight = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(inflight_wq);

/*
 * Where the user integer registers live, as runs of consecutive slots (the layouts of struct
 * pt_regs and struct switch_stack in Linux 6.1's arch/alpha/include/uapi/asm/ptrace.h): r0-r8,
 * r19-r28 and r16-r18 in pt_regs, r9-r15 in the switch_stack, gp apart. Copying runs instead of
 * one register at a time through a table cut the capture from 663 to 513 instructions and the
 * write-back from 844 to 583 (issue 18; RPCC around each under QEMU -icount, vprof).
 */
#define RUN_ASSERT(s, a, b, n)                                                      \
	static_assert(offsetof(struct s, b) - offsetof(struct s, a) == 8 * ((n)-1), \
		      #s " " #a "-" #b " consecutive")
RUN_ASSERT(pt_regs, r0, r8, 9);
RUN_ASSERT(pt_regs, r19, r28, 10);
RUN_ASSERT(pt_regs, r16, r18, 3);
RUN_ASSERT(switch_stack, r9, r15, 7);

static void ctx_capture(struct axp_ctx *ctx, struct pt_regs *regs, struct switch_stack *sw)
{
	memcpy(&ctx->r[0], &regs->r0, 9 * 8);
	memcpy(&ctx->r[9], &sw->r9, 7 * 8);
	memcpy(&ctx->r[16], &regs->r16, 3 * 8);
	memcpy(&ctx->r[19], &regs->r19, 10 * 8);
	ctx->r[29] = regs->gp;
	ctx->r[30] = rdusp();
	ctx->r[31] = 0;
	memcpy(ctx->f, sw->fp, 31 * 8);
	ctx->f[31] = 0;
	ctx->fpcr = sw->fp[31];
	ctx->pc = regs->pc;
	ctx->unique = rduniq();
	ctx->lock_addr = AXP_NO_LOCK;
	ctx->lock_value = 0;
	ctx->intr_flag = 0;
}

/* Store the n values of src that differ from dst's; how many did. */
static unsigned int put_run(unsigned long *dst, const u64 *src, unsigned int n)
{
	unsigned int i, c = 0;

	for (i = 0; i < n; i++) {
		if (dst[i] != src[i]) {
			dst[i] = src[i];
			c++;
		}
	}
	return c;
}

/* Write every register whose value changed back where the return to user reloads it. The
 * captured usp and unique are compared with what the context holds now (no second PAL call). */
static void ctx_write_back(const struct axp_ctx *ctx, struct pt_regs *regs, struct switch_stack *sw,
			   u64 usp, u64 unique)
{
	unsigned int n, nsw, nfp;

	n = put_run(&regs->r0, &ctx->r[0], 9);
	nsw = put_run(&sw->r9, &ctx->r[9], 7);
	n += nsw + put_run(&regs->r16, &ctx->r[16], 3);
	n += put_run(&regs->r19, &ctx->r[19], 10);
	n += put_run(&regs->gp, &ctx->r[29], 1);
	if (ctx->r[30] != usp) {
		wrusp(ctx->r[30]);
		n++;
	}
	nfp = put_run(sw->fp, ctx->f, 31);
	nfp += put_run(&sw->fp[31], &ctx->fpcr, 1);
	n += put_run(&regs->pc, &ctx->pc, 1);
	if (ctx->unique != unique) {
		wruniq(ctx->unique);
		n++;
	}
	/* The executor never writes r31/f31 (axp.h); a change would be a core bug. */
	WARN_ON_ONCE(ctx->r[31] || ctx->f[31]);
	atomic64_add(n + nfp, &vs_drv_glue[AXPROF_G_REGS_WRITTEN]);
	atomic64_add(nsw, &vs_drv_glue[AXPROF_G_SW_WRITTEN]);
	atomic64_add(nfp, &vs_drv_glue[AXPROF_G_FP_WRITTEN]);
}

/* The interpretation proper: current, at its return to user, preemption disabled. */
static void interpret(struct vs_cpu *vs, struct pt_regs *regs)
{
	struct switch_stack *sw = (struct switch_stack *)regs - 1;
	struct axp_ctx ctx;
	u64 usp, unique;
	int r;

	ctx_capture(&ctx, regs, sw);
	usp = ctx.r[30];
	unique = ctx.unique;
	pagefault_disable();
	r = vs_interpret(vs, task_tgid_nr(current), &ctx, &axp_user_mem_ops, NULL);
	pagefault_enable();
	if (r < 0) {
		vs_drv_count(AXPROF_G_INTERP_REFUSED);
		return;
	}
	vs_drv_count(AXPROF_G_INTERP);
	ctx_write_back(&ctx, regs, sw, usp, unique);
	if (vs_interp_take_wake(vs))
		vs_drv_wake_reader();
}

/* Give the slot back; the last touches of module memory (see the top of this file). */
static void release(struct vs_drv_work *w)
{
	struct vs_drv_cpu *owner = per_cpu_ptr(&vs_drv_cpu, w->cpu);

	preempt_disable();
	WRITE_ONCE(w->task, NULL);
	clear_bit_unlock(w->slot, &owner->busy);
	if (atomic_dec_and_test(&vs_drv_inflight))
		wake_up(&inflight_wq);
	preempt_enable();
}

static void work_fn(struct callback_head *cb)
{
	struct vs_drv_work *w = container_of(cb, struct vs_drv_work, cb);
	struct pt_regs *regs = task_pt_regs(current);
	u32 t0 = vs_drv_cycles();
	struct vs_drv_state *st;
	unsigned int cpu;

	vs_drv_count(AXPROF_G_RAN);
	if (current->flags & PF_EXITING) {
		vs_drv_count(AXPROF_G_SKIP_EXIT);
		goto out;
	}
	if (!user_mode(regs) || regs->pc != w->pc) {
		vs_drv_count(AXPROF_G_SKIP_PC);
		goto out;
	}
	preempt_disable();
	cpu = smp_processor_id();
	if (cpu != w->cpu)
		vs_drv_count(AXPROF_G_MIGRATED);
	st = rcu_dereference_sched(vs_drv_state);
	if (READ_ONCE(vs_drv_running) && st && cpu < st->nr && st->cpu[cpu].vs)
		interpret(st->cpu[cpu].vs, regs);
	else
		vs_drv_count(AXPROF_G_SKIP_STOPPED);
	preempt_enable();
out:
	vs_drv_count_since(AXPROF_G_WORK_CYCLES, t0);
	release(w);
}

void vs_drv_work_queue(struct vs_drv_cpu *dc, unsigned int cpu, struct pt_regs *regs)
{
	struct task_struct *t = current;
	struct vs_drv_work *w;
	unsigned int i;

	if (!t->mm || (t->flags & (PF_KTHREAD | PF_EXITING | PF_IO_WORKER))) {
		vs_drv_count(AXPROF_G_NOT_USER);
		return;
	}
	/*
	 * One queued interpretation per task (vs_sampler.h). A task with one queued is on its way
	 * back to user and not in user mode, so only this same interrupt could have queued it:
	 * this CPU's pool is the only place to look.
	 */
	for (i = 0; i < VS_DRV_WORKS; i++) {
		if (test_bit(i, &dc->busy) && READ_ONCE(dc->work[i].task) == t) {
			vs_drv_count(AXPROF_G_DUP);
			return;
		}
	}
	for (i = 0; i < VS_DRV_WORKS; i++)
		if (!test_and_set_bit_lock(i, &dc->busy))
			break;
	if (i == VS_DRV_WORKS) {
		vs_drv_count(AXPROF_G_NO_SLOT);
		return;
	}
	w = &dc->work[i];
	w->pc = regs->pc;
	WRITE_ONCE(w->task, t);
	init_task_work(&w->cb, work_fn);
	atomic_inc(&vs_drv_inflight);
	if (task_work_add(t, &w->cb, TWA_RESUME)) {
		vs_drv_count(AXPROF_G_ADD_FAILED);
		WRITE_ONCE(w->task, NULL);
		clear_bit_unlock(i, &dc->busy);
		/* No wake-up needed: waiters start only after the sources are disarmed. */
		atomic_dec(&vs_drv_inflight);
		return;
	}
	vs_drv_count(AXPROF_G_QUEUED);
}

void vs_drv_work_wait(void)
{
	while (!wait_event_timeout(inflight_wq, atomic_read(&vs_drv_inflight) == 0, 10 * HZ))
		pr_warn("axprof: still waiting for %d queued interpretations to run\n",
			atomic_read(&vs_drv_inflight));
	synchronize_rcu();
}

void vs_drv_work_init(void)
{
	unsigned int cpu, i;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct vs_drv_cpu *dc = per_cpu_ptr(&vs_drv_cpu, cpu);

		if (!cpu_possible(cpu))
			continue;
		for (i = 0; i < VS_DRV_WORKS; i++) {
			dc->work[i].cpu = cpu;
			dc->work[i].slot = i;
		}
	}
}
