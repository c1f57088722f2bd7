/* machine/mach_sampler.h - the sampler core on the hosted machine's PMU: sample, interpret, drain. */
#ifndef MACH_SAMPLER_H
#define MACH_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "mach.h"
#include "mach_vhist.h"
#include "vs_abi.h"

/*
 * The hosted machine's "driver" (DCPI SOSP'97 §4.2; value-sampling slides 10-13): one struct
 * vs_cpu (kmod/sampler) per virtual CPU (mach_opts.cpus), plugged into that CPU's model's PMU
 * (mach_cpu.h ops) through struct mach_hooks; the interrupt of CPU c goes to vs_cpu c.
 *
 * Per PMU interrupt (mach_run.c calls the hook after the instruction that retired):
 *   vs_task(cpu, pid, tid, comm)      the thread's VS_REC_TASK when this CPU has not written it
 *   vs_sample(cpu, tid, irq->pc, event, user = true, &decision)   (ABI 5: keyed by the thread;
 *       its first thread's tid is the pid)
 *   cpu->pmu_arm(model, event, decision.period)        the next randomised period
 *   decision.interpret: vs_interpret() on the interrupted context (the machine's own struct
 *       axp_ctx) with memory operations over the machine's address space whose loads and stores
 *       also go through the cache model (the model's access op: latency and level for the latency
 *       observer). AXP_POLICY_INTERRUPT hands CALL_PAL, faults, LL/SC and the FP special cases
 *       back: the interpretation stops before them and the machine's run loop (which owns system
 *       calls and signals) executes them. The interpreted instructions really advance the
 *       program; they are not retired into the EV5 model (as on a real kernel, where the
 *       interpreter's time is the kernel's), so they are counted apart (interp_insns).
 *   a buffer became ready (decision.wake, vs_interp_take_wake): swap and drain it to the sink.
 *
 * The drain channel is in-process: the sink (the daemon library, daemon/dmn_lib.h) receives whole
 * records of the vs_abi.h stream, exactly what read() on /dev/axprof returns.
 *
 * Ground truth for value profiles (--value-truth): when truth_hi > truth_lo, every instruction
 * at a pc in [truth_lo, truth_hi) that writes a register, executed natively or interpreted, adds
 * the value written to an exact per-pc histogram (the first MACH_VT_VALUES distinct values of a
 * pc are counted exactly; later new values are counted together as "other"). It works by
 * wrapping the machine's fetch operation, so it costs a little on every instruction; off by
 * default.
 */

#define MACH_VT_VALUES MACH_VHIST_VALUES /* distinct values counted exactly per pc */

/* Where drained records go: whole records, len > 0. Return 0, or -Exxx (counted, not fatal). */
typedef int (*mach_sampler_sink_fn)(void *priv, const void *recs, size_t len);
/* Called every `tick_every` interrupts (progress display, timer flushes). */
typedef void (*mach_sampler_tick_fn)(void *priv);
/* Called when the program has forked and this copy of the sampler is the child's: the state it
 * inherited belongs to the parent (already discarded here); the sink owner drops its own. */
typedef void (*mach_sampler_fork_fn)(void *priv, uint32_t new_pid);

struct mach_sampler_opts {
	struct vs_config cfg; /* checked with vs_config_check(); events the EV5 PMU counts */
	/* The pid written in the records (0: the machine's, i.e. the host pid). The sampler's
	 * hash and observer tables hash the pid, so a fixed one makes recordings reproducible.
	 * A forked child of the program uses its host pid. */
	uint32_t pid;
	mach_sampler_sink_fn sink; /* required */
	void *sink_priv;
	mach_sampler_tick_fn tick; /* may be NULL */
	void *tick_priv;
	uint32_t tick_every; /* interrupts between ticks (0: 256) */
	mach_sampler_fork_fn on_fork; /* may be NULL */
	void *fork_priv;
	uint64_t truth_lo, truth_hi; /* value ground truth for pcs in [lo, hi); 0, 0: none */
	/* What truth [truth_lo, truth_hi) gathers: MACH_TRUTH_VALUES (value histograms, above),
	 * MACH_TRUTH_PROCS (procedure arguments, returns, callers: mach_ptruth.h); 0 means
	 * MACH_TRUTH_VALUES. */
	unsigned int truth;
	/* `record -g`: keep an exact shadow call stack per guest thread (mach_stack.h) and write
	 * a VS_REC_STACK record with each sample (wraps the fetch operation as truth does). */
	bool stacks;
};
#define MACH_TRUTH_VALUES (1u << 0)
#define MACH_TRUTH_PROCS (1u << 1)
#define MACH_TRUTH_ADDRS (1u << 2) /* load addresses and strides: mach_atruth.h */

struct mach_sampler_stats {
	uint64_t irqs; /* PMU interrupts handled */
	uint64_t interps; /* interpretations run */
	uint64_t interp_insns; /* instructions the interpretations executed (the program's) */
	uint64_t interp_refused; /* vs_interpret() refused (-EBUSY / -EINVAL) */
	uint64_t stops[AXP_STOP_NR]; /* interpretations by stop reason */
	uint64_t drains; /* drains that moved something to the sink */
	uint64_t drained_bytes;
	uint64_t drained_records;
	uint64_t sink_errors; /* sink calls that returned an error */
	uint64_t forks; /* times a forked child discarded the parent's state */
	uint64_t pme_bad; /* ProfileMe records the sampler refused (a glue bug: never expected) */
	uint64_t tasks_unwritten; /* VS_REC_TASK records vs_task() could not write (buffers full) */
	/* opts.stacks: VS_REC_STACK records written, of which truncated; calls and rets
	 * executed, rets to no return address on the stack; the deepest stack */
	uint64_t stacks, stacks_truncated, calls, rets, rets_unmatched, stack_max_depth;
};

struct mach_sampler;

/*
 * Plug a sampler into m (which must have a CPU model: mach_opts.cpu) and arm the PMU for
 * every event of cfg. -EINVAL for a bad configuration or no timing model, -EOPNOTSUPP for an
 * event the EV5 PMU does not count (VS_EV_REPLAYS, VS_EV_USER6/7) or VS_MODE_PROFILEME on a
 * model without ProfileMe (EV5), -ENOMEM. PROFILEME: each complete record the model raises
 * goes into the sample buffers as a VS_REC_PROFILEME (a pair: two, first then second).
 */
int mach_sampler_new(struct mach_sampler **out, struct mach *m,
		     const struct mach_sampler_opts *opts);
/* Unplug (the hooks go back to the machine's built-in handler) and free. */
void mach_sampler_free(struct mach_sampler *s);

/*
 * Move the hash table and observer tables into the buffers and drain everything to the sink
 * (DCPI's complete flush). Call between instructions (not from the sink). 0 or the first sink
 * error.
 */
int mach_sampler_flush(struct mach_sampler *s);

/* The sampler's cumulative counters (the body of a VS_REC_STATS record; all CPUs added up)
 * and the glue's own. */
const struct vs_stats *mach_sampler_vs_stats(const struct mach_sampler *s);
void mach_sampler_get_stats(const struct mach_sampler *s, struct mach_sampler_stats *st);
/* One VS_REC_STATS record per virtual CPU into buf (length returned, or -ENOSPC). */
int mach_sampler_stats_record(const struct mach_sampler *s, void *buf, size_t len);

/*
 * Write the value ground truth (text, one block per pc in increasing order):
 *   # axprof value truth 1
 *   pc 0x120000ec4 n 480000 distinct 2 other 0
 *    0x3c8 456000
 *    0x1000 24000
 * n = executions that wrote a register; the values of a block are sorted by count (descending,
 * ties by value); "other" counts executions whose value came after MACH_VT_VALUES distinct ones.
 * -ENODATA when truth was not requested; -errno from the file system.
 */
int mach_sampler_truth_write(const struct mach_sampler *s, const char *path);

/* Write the procedure truth (mach_ptruth_write's format); -ENODATA when not requested. */
int mach_sampler_proc_truth_write(const struct mach_sampler *s, const char *path);

/* Write the load address truth (mach_atruth_write's format); -ENODATA when not requested,
 * -ENOMEM when it is incomplete. */
int mach_sampler_addr_truth_write(const struct mach_sampler *s, const char *path);

/* Exact count of `value` at `pc` in the truth histograms, and the pc's total n (tests). */
int mach_sampler_truth_get(const struct mach_sampler *s, uint64_t pc, uint64_t value,
			   uint64_t *count, uint64_t *n);

/* The PMU event of a sampler event (-EOPNOTSUPP when there is none; REPLAYS is counted only by
 * models whose mach_cpu_events() has MACH_EV_REPLAY, the EV6 one). */
int mach_sampler_event(unsigned int vs_event);

#endif /* MACH_SAMPLER_H */
