/* kmod/sampler/vs_sampler.h - one CPU's sampler: sample, interpret, flush, drain. */
#ifndef VS_SAMPLER_H
#define VS_SAMPLER_H

#include "vs_core.h"

/*
 * The two entry points are split because a kernel interprets later than it samples: at the
 * return to user (task_work), where the complete user register state is reachable.
 *
 *   vs_sample()     the profiling interrupt: count (pid, pc, event) in the hash, pick the next
 *                   period, and say whether to interpret (policy) — interrupt context.
 *   vs_interpret()  run the interpreter on the user context with the observers, with
 *                   side effects: the program really advances (task context, this CPU).
 *
 * CONTEXTS AND WHAT THE GLUE MUST DO (Linux; the hosted machine is single-threaded and simply
 * calls everything in order):
 *  - Each CPU has its own struct vs_cpu; only that CPU calls vs_sample() and vs_interpret() on it.
 *  - vs_sample() runs in the sampling interrupt (or with local interrupts disabled).
 *  - vs_interpret() runs on this CPU with preemption (migration) disabled and interrupts
 *    ENABLED: a sampling interrupt may arrive in the middle. It then only samples: the guard
 *    refuses a nested interpretation, and the interrupt writes the sample pair of buffers while
 *    the interpretation writes the observer pair, so each pair keeps a single producer.
 *    The glue must not queue a second interpretation for a task that has one pending.
 *  - vs_cpu_flush() and vs_cpu_swap() run ON THIS CPU, atomically with respect to both
 *    producers: in an IPI handler or with local interrupts disabled. vs_cpu_flush() leaves the
 *    observer tables alone (-EBUSY) when it interrupted an interpretation; retry later.
 *  - vs_cpu_drain() runs anywhere (e.g. read() on another CPU) with interrupts enabled, between
 *    two vs_cpu_swap() calls; one drainer per CPU at a time (a per-CPU mutex in the glue).
 *  - A drain loop: { on CPU: err = vs_cpu_flush(); vs_cpu_swap(); } then vs_cpu_drain() until
 *    nothing remains; repeat while err == -ENOSPC or the swap had something.
 */

struct vs_platform {
	uint32_t cpu; /* CPU number, mixed into the seeds and written in stats records */
	uint64_t amask; /* AMASK bits the hardware implements (AXP_AMASK_*) */
	uint64_t implver; /* IMPLVER: 0 EV4, 1 EV5, 2 EV6 */
	uint32_t caps; /* VS_CAP_*: what the glue can deliver (0: counters only) */
};

/* What vs_sample() decided. */
struct vs_decision {
	uint32_t period; /* the next period for this event's counter (0 when the sample was bad) */
	uint32_t budget; /* instructions to interpret when `interpret` */
	bool interpret; /* queue vs_interpret() for this task at its return to user */
	bool wake; /* a buffer became ready for the reader: wake it */
};

/* Threads whose VS_REC_TASK this CPU wrote last: direct-mapped by tid (vs_task()). [U] */
#define VS_TASK_CACHE 16

struct vs_task_seen {
	uint32_t pid, tid; /* tid 0: empty */
	uint64_t
		raw[VS_COMM_LEN / 8]; /* the comm bytes as last given, NUL or not (the fast test) */
	char comm[VS_COMM_LEN]; /* as written: cut at its first NUL, NUL-padded */
};

struct vs_cpu {
	/* The interrupt path's state first (DCPI §4.2.2 packs it into one cache line). */
	struct vs_hash hash;
	struct vs_prng period_rng;
	struct vs_prng policy_rng;
	uint8_t guard; /* an interpretation is running on this CPU (accessed as volatile) */
	uint8_t obs_on; /* observers installed (some gather flag has a table) */
	uint8_t prime; /* cfg.period_prime: events whose periods are primes */
	struct vs_policy pol;
	struct vs_period period[VS_EVENT_NR];
	struct vs_buf sbuf; /* sample records: producer = vs_sample, vs_hash_flush */
	struct vs_buf obuf; /* observer records: producer = vs_interpret, vs_obs_flush */
	struct vs_obs obs;
	struct vs_stats st;
	struct vs_platform plat;
	struct vs_config cfg;
	uint32_t flush_stage; /* vs_cpu_flush(): 0 hash, 1 observer tables */
	struct vs_task_seen seen[VS_TASK_CACHE]; /* vs_task() */
};

VS_ABI_ASSERT(VS_EVENT_NR <= 8); /* struct vs_cpu.prime */

/* Bytes of caller memory for one CPU under cfg (0 if cfg is invalid). */
size_t vs_cpu_size(const struct vs_config *cfg);

/*
 * Lay one CPU's sampler over mem[0..len) (64-byte aligned, len >= vs_cpu_size(cfg)). On success
 * *out points into mem. -EINVAL for a bad cfg, misaligned or short memory (-EOPNOTSUPP for a
 * reserved mode).
 */
int vs_cpu_init(void *mem, size_t len, const struct vs_config *cfg, const struct vs_platform *plat,
		struct vs_cpu **out);

/*
 * The thread the next vs_sample() on this CPU interrupts (same context, just before it): tid
 * (the pid vs_sample() is given), its process pid and command name comm (VS_COMM_LEN readable
 * bytes, as Linux's task comm; the name ends at a NUL, what follows it is ignored, a name of
 * 16 bytes is cut to 15). Writes a
 * VS_REC_TASK into the sample buffers unless this CPU wrote the same (pid, tid, comm) last
 * for this tid (VS_TASK_CACHE slots): so the record comes before the thread's samples, which
 * wait in the hash table. 0 (nothing to write or written), -EINVAL for a zero pid or tid or an
 * empty comm, -ENOSPC when both buffers are full (the glue counts it; tried again at
 * the next sample). A buffer made ready here is reported by the vs_sample() that follows.
 */
int vs_task_slow(struct vs_cpu *cpu, uint32_t pid, uint32_t tid, const char *comm);

/*
 * vs_task()'s common case inline (issue 18: every sample asks, and the call with the comm read
 * byte-wise cost 83 instructions of EV5 code): the same thread, named with the same bytes as
 * this CPU last wrote it, read as two aligned quadwords when comm is 8-byte aligned (Linux's
 * task comm is). Everything else, with the same result, in vs_task_slow().
 */
static inline int vs_task(struct vs_cpu *cpu, uint32_t pid, uint32_t tid, const char *comm)
{
	const struct vs_task_seen *e = &cpu->seen[(tid * 0x9e3779b1u) >> 28];

	if (tid && e->tid == tid && e->pid == pid && !((uintptr_t)comm & 7)) {
		const char *c = __builtin_assume_aligned(comm, 8);
		uint64_t w0, w1;

		__builtin_memcpy(&w0, c, 8);
		__builtin_memcpy(&w1, c + 8, 8);
		if (e->raw[0] == w0 && e->raw[1] == w1)
			return 0;
	}
	return vs_task_slow(cpu, pid, tid, comm);
}

/*
 * The profiling interrupt: pid and pc interrupted, event overflowed, user_mode. Fills *dec.
 * 0, or -EINVAL when event >= VS_EVENT_NR or pc is not a multiple of 4 (counted as
 * VS_DROP_SAMPLE_BAD), or -ENOSPC when the sample was dropped for lack of buffer room (the
 * decision is still made).
 */
int vs_sample(struct vs_cpu *cpu, uint32_t pid, uint64_t pc, unsigned int event, bool user_mode,
	      struct vs_decision *dec);

/*
 * Interpret up to the configured budget of instructions of the user context ctx (pid) through
 * mem (AXP_POLICY_INTERRUPT: everything delicate is handed back), with the observers. Returns the
 * stop reason (enum axp_stop, >= 0): ctx has advanced by the instructions executed and the caller
 * resumes the program at ctx->pc. -EBUSY if an interpretation is already running on this CPU,
 * -EINVAL if the mode does not interpret.
 */
int vs_interpret(struct vs_cpu *cpu, uint32_t pid, struct axp_ctx *ctx,
		 const struct axp_mem_ops *mem, void *mem_priv);

/*
 * vs_interpret() with at most `budget` instructions (never more than the configured budget):
 * the Linux glue's shadow interpretation of kernel code (VS_CFG_KERNEL_VALUES) keeps it small.
 */
int vs_interpret_n(struct vs_cpu *cpu, uint32_t pid, struct axp_ctx *ctx,
		   const struct axp_mem_ops *mem, void *mem_priv, uint32_t budget);

/*
 * On this CPU (see above): move the hash and observer tables into the buffers. 0 when all moved,
 * -ENOSPC when the buffers filled first (drain, then call again), -EBUSY when the hash moved but
 * an interpretation was running (the observer tables wait for a later call).
 */
int vs_cpu_flush(struct vs_cpu *cpu);

/* On this CPU: prepare both buffer pairs for draining; bytes ready. */
size_t vs_cpu_swap(struct vs_cpu *cpu);

/*
 * Anywhere: copy whole records (samples first, then observer records) into out[0..len); bytes
 * copied; *remaining (may be NULL) gets what is still ready after this call.
 */
size_t vs_cpu_drain(struct vs_cpu *cpu, void *out, size_t len, size_t *remaining);

/*
 * After vs_interpret(), in its context: take the observer pair's "a buffer became ready" flag
 * (vs_sample() reports the sample pair's in its decision).
 */
bool vs_interp_take_wake(struct vs_cpu *cpu);

/*
 * The ProfileMe interrupt (PROFILEME mode; MICRO'97 §4.1): copy the glue's record (every field
 * but the header) into the sample buffers, a pair's two records in two calls, first then
 * second. 0; -EINVAL when the mode is not PROFILEME or the record fails vs_abi_check_record
 * (counted as VS_DROP_PME_BAD); -ENOSPC when both buffers are full (VS_DROP_PME_BUF).
 * *wake: a buffer became ready for the reader.
 */
int vs_profileme(struct vs_cpu *cpu, const struct vs_rec_profileme *r, bool *wake);

/*
 * On this CPU: the next period for event (< VS_EVENT_NR), uniform in its [lo, hi] or, with its
 * period_prime bit, over the primes in it (vs_prime.c). vs_sample() draws with it; glue that
 * arms counters itself (the hosted machine) draws the first periods with it too.
 */
uint32_t vs_cpu_period(struct vs_cpu *cpu, unsigned int event);

/* On this CPU: write a VS_REC_STATS record; its length, or -ENOSPC if len is too small. */
int vs_cpu_stats_record(const struct vs_cpu *cpu, void *out, size_t len);

#endif /* VS_SAMPLER_H */
