/* machine/mach_sampler.c - the sampler core on the hosted machine's PMU: sample, interpret, drain. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mach_int.h"
#include "mach_atruth.h"
#include "mach_kern.h"
#include "mach_ptruth.h"
#include "mach_sampler.h"
#include "mach_stack.h"
#include "mach_vhist.h"
#include "vs_sampler.h"

struct mach_sampler {
	struct mach *m;
	struct mach_sampler_opts o;
	/* One vs_cpu per virtual CPU of the machine (mach_opts.cpus), each with its own hash
	 * table and buffers as DCPI's per-CPU data structures (SOSP'97 §4.2); cpu is the one of
	 * the CPU running now (m->cpu_id), set at each interrupt. */
	void *mems[MACH_MAX_CPUS];
	size_t mem_len;
	struct vs_cpu *cpus[MACH_MAX_CPUS];
	unsigned int ncpu;
	struct vs_cpu *cpu;
	struct vs_stats sum; /* mach_sampler_vs_stats() over several CPUs */
	uint32_t pid; /* the pid written in the records (changes in a forked child) */
	int32_t host_pid; /* m->pid when pid was chosen: a change means a fork */

	/* The machine's own memory operations (before any wrapping) and ours. */
	const struct axp_mem_ops *base;
	void *base_priv;
	struct axp_mem_ops iops; /* the interpreter's: latency from the cache model */
	struct axp_mem_ops tops; /* the run loop's, when value truth is on */
	struct mach_hooks saved_hooks;

	uint8_t *dbuf; /* drain buffer */
	size_t dcap;
	struct mach_sampler_stats st;
	uint32_t ticks;

	/* Value truth: one histogram pointer per instruction of [truth_lo, truth_hi). */
	struct mach_vhist **vt; /* exact value histogram per pc (ground truth) */
	size_t vt_n;
	uint64_t vt_prev_pc; /* the last instruction fetched that writes a register */
	uint8_t vt_prev_dest; /* its destination: 0-30 integer, 32-62 FP */
	bool vt_prev;
	struct mach_ptruth *pt; /* procedure truth (MACH_TRUTH_PROCS), or NULL */
	struct mach_atruth *at; /* load address truth (MACH_TRUTH_ADDRS), or NULL */
	uint64_t at_pc; /* the pc last fetched: the instruction whose load comes next */
	struct mach_stacks *stk; /* opts.stacks: shadow call stacks, or NULL */
	uint8_t *kbuf; /* VS_REC_STACK records not yet handed to the sink */
	size_t klen, kcap;
};

/* ---- events ---- */

static const int ev_map[VS_EVENT_NR] = {
	[VS_EV_CYCLES] = MACH_EV_CYCLES,  [VS_EV_IMISS] = MACH_EV_IMISS,
	[VS_EV_DMISS] = MACH_EV_DMISS,	  [VS_EV_BRANCHMP] = MACH_EV_BRANCHMP,
	[VS_EV_REPLAYS] = MACH_EV_REPLAY, [VS_EV_INSNS] = MACH_EV_RETIRED,
	[VS_EV_USER6] = MACH_EV_INVAL,	  [VS_EV_USER7] = MACH_EV_INTERV,
};

int mach_sampler_event(unsigned int vs_event)
{
	return vs_event < VS_EVENT_NR ? ev_map[vs_event] : -EOPNOTSUPP;
}

static int vs_event_of(enum mach_event e)
{
	for (unsigned int i = 0; i < VS_EVENT_NR; i++)
		if (ev_map[i] == (int)e)
			return (int)i;
	return -EOPNOTSUPP;
}

/* ---- value truth ---- */

/* The register an instruction writes (0-30, 32-62), or AXP_NO_DEST. */
static unsigned int insn_dest(const struct axp_insn *d)
{
	uint32_t f = axp_info(d)->flags;
	unsigned int r;

	if (f & AXP_F_DA)
		r = d->ra + ((f & AXP_F_FA) ? 32 : 0);
	else if (f & AXP_F_DC)
		r = d->rc + ((f & AXP_F_FC) ? 32 : 0);
	else
		return AXP_NO_DEST;
	return (r & 31) == 31 ? AXP_NO_DEST : r;
}

static void vt_add(struct mach_sampler *s, uint64_t pc, uint64_t v)
{
	size_t i = (size_t)((pc - s->o.truth_lo) >> 2);

	if (!s->vt[i]) {
		s->vt[i] = calloc(1, sizeof(*s->vt[i]));
		if (!s->vt[i])
			return;
	}
	mach_vhist_add(s->vt[i], v);
}

/*
 * Called on every instruction fetch (native and interpreted): the instruction fetched before
 * this one has executed, so its destination register now holds its result. A fetch of the same
 * pc again means it was handed back or faulted, not executed: nothing is counted then.
 */
static void vt_fetch(struct mach_sampler *s, uint64_t va)
{
	const struct axp_ctx *c = &s->m->ctx;
	const struct axp_insn *d;
	unsigned int dest;
	int err;

	if (s->vt_prev && va != s->vt_prev_pc) {
		unsigned int r = s->vt_prev_dest;

		vt_add(s, s->vt_prev_pc, r < 32 ? c->r[r] : c->f[r - 32]);
	}
	s->vt_prev = false;
	if (va < s->o.truth_lo || va >= s->o.truth_hi || (va & 3))
		return;
	d = mach_mem_fetch_insn(s->m->mem, va, &err);
	if (!d)
		return;
	dest = insn_dest(d);
	if (dest == AXP_NO_DEST)
		return;
	s->vt_prev = true;
	s->vt_prev_pc = va;
	s->vt_prev_dest = (uint8_t)dest;
}

/* ---- memory operations ---- */

static int i_fetch(void *priv, uint64_t va, uint32_t *word)
{
	struct mach_sampler *s = priv;

	if (s->vt)
		vt_fetch(s, va);
	s->at_pc = va;
	if (s->pt || s->stk) {
		int err;
		const struct axp_insn *d =
			(va & 3) ? NULL : mach_mem_fetch_insn(s->m->mem, va, &err);

		if (s->pt)
			mach_ptruth_fetch(s->pt, &s->m->ctx, va, d);
		if (s->stk)
			mach_stacks_fetch(s->stk, s->m->tid, va, d);
	}
	return s->base->fetch(s->base_priv, va, word);
}

/* Interpreted loads and stores probe and update the cache model like real accesses. */
static void model_access(struct mach_sampler *s, uint64_t va, unsigned int size, bool store,
			 struct axp_access *acc)
{
	if (s->m->cpu->access)
		s->m->cpu->access(s->m->model, va, size, store, acc);
}

static int i_load(void *priv, uint64_t va, unsigned int size, uint64_t *val, struct axp_access *acc)
{
	struct mach_sampler *s = priv;
	int ret = s->base->load(s->base_priv, va, size, val, acc);

	if (!ret && s->at)
		mach_atruth_load(s->at, s->at_pc, va);
	if (!ret && acc)
		model_access(s, va, size, false, acc);
	return ret;
}

static int i_store(void *priv, uint64_t va, unsigned int size, uint64_t val, struct axp_access *acc)
{
	struct mach_sampler *s = priv;
	int ret = s->base->store(s->base_priv, va, size, val, acc);

	if (!ret && acc)
		model_access(s, va, size, true, acc);
	return ret;
}

static uint64_t i_rpcc(void *priv)
{
	struct mach_sampler *s = priv;

	return s->base->rpcc ? s->base->rpcc(s->base_priv) : s->m->cpu->cycles(s->m->model);
}

/* The run loop's operations when value truth is on: the machine's, plus vt_fetch. */
static int t_load(void *priv, uint64_t va, unsigned int size, uint64_t *val, struct axp_access *acc)
{
	struct mach_sampler *s = priv;
	int ret = s->base->load(s->base_priv, va, size, val, acc);

	if (!ret && s->at)
		mach_atruth_load(s->at, s->at_pc, va);
	return ret;
}

static int t_store(void *priv, uint64_t va, unsigned int size, uint64_t val, struct axp_access *acc)
{
	struct mach_sampler *s = priv;

	return s->base->store(s->base_priv, va, size, val, acc);
}

/* ---- draining ---- */

static uint64_t count_records(const uint8_t *p, size_t len)
{
	uint64_t n = 0;
	size_t off = 0;

	while (off + sizeof(struct vs_rec_hdr) <= len) {
		uint16_t rl;

		memcpy(&rl, p + off + 2, 2);
		if (rl < 8)
			break;
		off += rl;
		n++;
	}
	return n;
}

/* Swap and drain whatever one CPU has ready to the sink (DCPI §4.3's daemon copy, in process). */
static int drain_cpu(struct mach_sampler *s, struct vs_cpu *cpu)
{
	int err = 0;

	while (vs_cpu_swap(cpu) > 0) {
		size_t got, rem;

		do {
			got = vs_cpu_drain(cpu, s->dbuf, s->dcap, &rem);
			if (!got)
				break;
			s->st.drains++;
			s->st.drained_bytes += got;
			s->st.drained_records += count_records(s->dbuf, got);
			int e = s->o.sink(s->o.sink_priv, s->dbuf, got);

			if (e) {
				s->st.sink_errors++;
				if (!err)
					err = e;
			}
		} while (rem);
	}
	return err;
}

/* Hand the stack records gathered so far to the sink. */
static int drain_stacks(struct mach_sampler *s)
{
	int e;

	if (!s->klen)
		return 0;
	s->st.drains++;
	s->st.drained_bytes += s->klen;
	s->st.drained_records += count_records(s->kbuf, s->klen);
	e = s->o.sink(s->o.sink_priv, s->kbuf, s->klen);
	s->klen = 0;
	if (e)
		s->st.sink_errors++;
	return e;
}

static int drain_ready(struct mach_sampler *s)
{
	int e = drain_cpu(s, s->cpu), k = drain_stacks(s);

	return e ? e : k;
}

/* The stack of the sample just taken (event ev at pc; the thread resumes at next_pc), as a
 * VS_REC_STACK record. */
static void take_stack(struct mach_sampler *s, uint64_t pc, uint64_t next_pc, unsigned int ev)
{
	if (s->kcap - s->klen < VS_REC_MAX)
		drain_stacks(s);
	s->klen +=
		mach_stacks_record(s->stk, s->m->tid, pc, next_pc, s->pid, ev, s->kbuf + s->klen);
}

int mach_sampler_flush(struct mach_sampler *s)
{
	int err = 0, ferr, e;

	/* The drain loop of vs_sampler.h for each CPU: flush, swap, drain, until the tables are
	 * empty. */
	for (unsigned int c = 0; c < s->ncpu; c++) {
		do {
			ferr = vs_cpu_flush(s->cpus[c]);
			e = drain_cpu(s, s->cpus[c]);
			if (e && !err)
				err = e;
		} while (ferr == -ENOSPC);
	}
	e = drain_stacks(s);
	return err ? err : e;
}

/* ---- the PMU interrupt ---- */

static int cpu_setup(struct mach_sampler *s)
{
	struct vs_platform plat = {
		.amask = s->m->cfg.amask,
		.implver = s->m->cfg.implver,
		.caps = s->m->cpu->pme_config ? VS_CAP_PROFILEME : 0,
	};
	struct mach_pme_cfg pc;
	int ret;

	for (unsigned int c = 0; c < s->ncpu; c++) {
		struct vs_config cfg = s->o.cfg;

		/* A forked child draws other periods and shares than its parent; each CPU other
		 * than the first its own. */
		if (s->st.forks)
			cfg.seed ^= (uint64_t)s->pid * 0x9e3779b97f4a7c15ULL;
		cfg.seed ^= (uint64_t)c * 0xbf58476d1ce4e5b9ULL;
		plat.cpu = c;
		memset(s->mems[c], 0, s->mem_len);
		ret = vs_cpu_init(s->mems[c], s->mem_len, &cfg, &plat, &s->cpus[c]);
		if (ret)
			return ret;
		if (cfg.mode != VS_MODE_PROFILEME)
			continue;
		pc = (struct mach_pme_cfg){ .lo = cfg.pme_period.lo,
					    .hi = cfg.pme_period.hi,
					    .window = cfg.pme_window,
					    .seed = cfg.seed ^ 0x243f6a8885a308d3ULL };
		ret = s->m->cpu->pme_config(s->m->models[c], &pc);
		if (ret)
			return ret;
	}
	s->cpu = s->cpus[s->m->cpu_id < s->ncpu ? s->m->cpu_id : 0];
	return 0;
}

/* The model's ProfileMe records (machine/mach_cpu.h) as the ABI's (vs_abi.h): same values. */
_Static_assert((int)MACH_PME_NR == (int)VS_PME_NR && MACH_PME_E_ALL == VS_PME_E_ALL &&
		       (int)MACH_PME_L_NR == VS_PME_L_NR &&
		       (int)MACH_PME_AB_TRAP == (int)VS_PME_AB_TRAP &&
		       MACH_PME_E_LSO == VS_PME_E_LSO && MACH_PME_E_BCMISS == VS_PME_E_BCMISS,
	       "ProfileMe status, events and latencies match the ABI");

static void pme_deliver(struct mach_sampler *s)
{
	struct mach_pme p;

	while (s->m->cpu->pme_take(s->m->model, &p)) {
		struct vs_rec_profileme r;
		bool wake = false;

		memset(&r, 0, sizeof(r));
		r.pid = s->pid;
		r.pc = p.pc;
		r.ea = p.ea;
		r.target = p.target;
		memcpy(r.lat, p.lat, sizeof(r.lat));
		r.span = p.span;
		r.retire_delay = p.retire_delay;
		r.pair_lat = p.pair == 2 ? p.pair_lat : 0;
		r.path = p.path & 0xfff;
		r.events = p.events;
		r.status = p.status;
		r.pair = p.pair;
		r.pair_dist = p.pair == 2 ? p.pair_dist : 0;
		r.flags = VS_SF_USER;
		s->st.irqs++;
		if (vs_profileme(s->cpu, &r, &wake) == -EINVAL)
			s->st.pme_bad++;
		if (wake)
			drain_ready(s);
	}
}

static void arm_all(struct mach_sampler *s)
{
	for (unsigned int c = 0; c < s->ncpu; c++)
		for (unsigned int e = 0; e < VS_EVENT_NR; e++) {
			if (!(s->o.cfg.events & (1u << e)))
				continue;
			s->m->cpu->pmu_arm(s->m->models[c], (enum mach_event)ev_map[e],
					   vs_cpu_period(s->cpus[c], e));
		}
}

/* The program forked and this is the child: what the sampler holds is the parent's. */
static void forked(struct mach_sampler *s)
{
	uint64_t forks = s->st.forks + 1;

	s->pid = (uint32_t)s->m->pid;
	s->host_pid = s->m->pid;
	memset(&s->st, 0, sizeof(s->st));
	s->st.forks = forks;
	s->klen = 0; /* the parent's stack records */
	if (s->stk)
		mach_stacks_keep_only(s->stk, s->m->tid);
	cpu_setup(s);
	if (s->o.on_fork)
		s->o.on_fork(s->o.fork_priv, s->pid);
}

static void on_irq(void *priv, struct axp_ctx *ctx, const struct mach_irq *irq)
{
	struct mach_sampler *s = priv;
	struct vs_decision dec;
	int ev = vs_event_of(irq->event);
	uint32_t tid;
	bool user;

	if (s->m->pid != s->host_pid)
		forked(s);
	s->cpu = s->cpus[s->m->cpu_id];
	if (irq->profileme) {
		pme_deliver(s);
		goto tick;
	}
	if (ev < 0) {
		s->m->cpu->pmu_arm(s->m->model, irq->event, 0);
		return;
	}
	s->st.irqs++;
	tid = s->m->tid == s->m->pid ? s->pid : (uint32_t)s->m->tid;
	if (vs_task(s->cpu, s->pid, tid, s->m->comm))
		s->st.tasks_unwritten++;
	/* a pc in the kernel's time (mach_kern.h) is a kernel-mode sample: counted, never
	 * interpreted (the context is the user's, stopped at its CALL_PAL) */
	user = !mach_kern_is_pc(irq->pc);
	vs_sample(s->cpu, tid, irq->pc, (unsigned int)ev, user, &dec);
	if (s->stk && !(irq->pc & 3)) /* kernel: the pseudo-pc over the caller's stack */
		take_stack(s, irq->pc, ctx->pc, (unsigned int)ev);
	s->m->cpu->pmu_arm(s->m->model, irq->event,
			   dec.period ? dec.period : s->o.cfg.period[ev].lo);
	if (dec.wake)
		drain_ready(s);
	if (dec.interpret && user) {
		uint64_t before = s->cpu->st.interp_insns;
		int r = vs_interpret(s->cpu, s->pid, ctx, &s->iops, s);

		if (r < 0) {
			s->st.interp_refused++;
		} else {
			s->st.interps++;
			if (r < AXP_STOP_NR)
				s->st.stops[r]++;
			s->st.interp_insns += s->cpu->st.interp_insns - before;
		}
		if (vs_interp_take_wake(s->cpu))
			drain_ready(s);
	}
tick:
	if (s->o.tick && ++s->ticks >= s->o.tick_every) {
		s->ticks = 0;
		s->o.tick(s->o.tick_priv);
	}
}

/* ---- life cycle ---- */

int mach_sampler_new(struct mach_sampler **out, struct mach *m,
		     const struct mach_sampler_opts *opts)
{
	struct mach_sampler *s;
	size_t need;
	int ret;

	*out = NULL;
	if (!m || !m->model || !opts || !opts->sink)
		return -EINVAL;
	ret = vs_config_check(&opts->cfg, NULL);
	if (ret)
		return ret;
	for (unsigned int e = 0; e < VS_EVENT_NR; e++)
		if ((opts->cfg.events & (1u << e)) &&
		    (ev_map[e] < 0 || !(mach_cpu_events(m->cpu) & (1u << ev_map[e]))))
			return -EOPNOTSUPP; /* REPLAYS: only a model that counts them (EV6) */
	if ((opts->cfg.events & (1u << VS_EV_USER6 | 1u << VS_EV_USER7)) && !m->coh)
		return -EOPNOTSUPP; /* coherence events: only with --cpus 2 or more */
	if (opts->cfg.mode == VS_MODE_PROFILEME && (!m->cpu->pme_config || !m->cpu->pme_take))
		return -EOPNOTSUPP; /* ProfileMe: only a model that has it (EV6) */
	if (opts->truth_hi < opts->truth_lo || opts->truth_hi - opts->truth_lo > (1ull << 32))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->m = m;
	s->o = *opts;
	if (!s->o.tick_every)
		s->o.tick_every = 256;
	s->pid = opts->pid ? opts->pid : (uint32_t)m->pid;
	s->host_pid = m->pid;
	need = vs_cpu_size(&opts->cfg);
	s->mem_len = (need + 63) & ~(size_t)63;
	s->ncpu = m->ncpus ? m->ncpus : 1;
	for (unsigned int c = 0; c < s->ncpu; c++) {
		s->mems[c] = aligned_alloc(64, s->mem_len);
		if (!s->mems[c]) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	s->dcap = opts->cfg.buf_bytes + VS_REC_MAX;
	s->dbuf = malloc(s->dcap);
	if (!s->dbuf) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = cpu_setup(s);
	if (ret)
		goto out_free;
	if (!s->o.truth)
		s->o.truth = MACH_TRUTH_VALUES;
	if (opts->truth_hi > opts->truth_lo && (s->o.truth & MACH_TRUTH_PROCS)) {
		ret = mach_ptruth_new(&s->pt, opts->truth_lo, opts->truth_hi);
		if (ret)
			goto out_free;
	}
	if (opts->truth_hi > opts->truth_lo && (s->o.truth & MACH_TRUTH_ADDRS)) {
		ret = mach_atruth_new(&s->at, opts->truth_lo, opts->truth_hi);
		if (ret)
			goto out_free;
	}
	if (opts->stacks) {
		s->kcap = 64 * 1024;
		s->kbuf = malloc(s->kcap);
		ret = s->kbuf ? mach_stacks_new(&s->stk) : -ENOMEM;
		if (ret)
			goto out_free;
	}
	if (opts->truth_hi > opts->truth_lo && (s->o.truth & MACH_TRUTH_VALUES)) {
		s->vt_n = (size_t)((opts->truth_hi - opts->truth_lo + 3) >> 2);
		s->vt = calloc(s->vt_n, sizeof(*s->vt));
		if (!s->vt) {
			ret = -ENOMEM;
			goto out_free;
		}
	}

	s->base = m->cfg.mem;
	s->base_priv = m->cfg.mem_priv;
	/* Only these four: an operation the machine adds later (a decoded-instruction fetch)
	 * stays NULL, so every fetch passes through i_fetch. */
	s->iops = (struct axp_mem_ops){
		.fetch = i_fetch,
		.load = i_load,
		.store = i_store,
		.rpcc = i_rpcc,
	};
	if (s->vt || s->pt || s->at || s->stk) {
		s->tops = (struct axp_mem_ops){
			.fetch = i_fetch,
			.load = t_load,
			.store = t_store,
			.rpcc = i_rpcc,
		};
		m->cfg.mem = &s->tops;
		m->cfg.mem_priv = s;
	}
	s->saved_hooks = m->hooks;
	m->hooks.pmu_irq = on_irq;
	m->hooks.priv = s;
	arm_all(s);
	*out = s;
	return 0;

out_free:
	mach_atruth_free(s->at);
	mach_stacks_free(s->stk);
	free(s->kbuf);
	mach_ptruth_free(s->pt);
	free(s->vt);
	free(s->dbuf);
	for (unsigned int c = 0; c < MACH_MAX_CPUS; c++)
		free(s->mems[c]);
	free(s);
	return ret;
}

void mach_sampler_free(struct mach_sampler *s)
{
	if (!s)
		return;
	if (s->m->hooks.priv == s)
		s->m->hooks = s->saved_hooks;
	if (s->o.cfg.mode == VS_MODE_PROFILEME)
		s->m->cpu->pme_config(s->m->model, NULL);
	if (s->m->cfg.mem_priv == s) {
		s->m->cfg.mem = s->base;
		s->m->cfg.mem_priv = s->base_priv;
	}
	for (size_t i = 0; i < s->vt_n; i++)
		free(s->vt[i]);
	free(s->vt);
	mach_ptruth_free(s->pt);
	mach_atruth_free(s->at);
	mach_stacks_free(s->stk);
	free(s->kbuf);
	free(s->dbuf);
	for (unsigned int c = 0; c < MACH_MAX_CPUS; c++)
		free(s->mems[c]);
	free(s);
}

const struct vs_stats *mach_sampler_vs_stats(const struct mach_sampler *s)
{
	struct vs_stats *sum = (struct vs_stats *)&s->sum; /* a cache, not the state */

	if (s->ncpu == 1)
		return &s->cpus[0]->st;
	memset(sum, 0, sizeof(*sum));
	for (unsigned int c = 0; c < s->ncpu; c++) {
		const uint64_t *src = (const uint64_t *)&s->cpus[c]->st;
		uint64_t *dst = (uint64_t *)sum;

		for (size_t k = 0; k < sizeof(*sum) / sizeof(uint64_t); k++)
			dst[k] += src[k];
	}
	return sum;
}

void mach_sampler_get_stats(const struct mach_sampler *s, struct mach_sampler_stats *st)
{
	*st = s->st;
	if (s->stk) {
		struct mach_stacks_stats k;

		mach_stacks_get_stats(s->stk, &k);
		st->stacks = k.snapshots;
		st->stacks_truncated = k.truncated;
		st->calls = k.calls;
		st->rets = k.rets;
		st->rets_unmatched = k.rets_unmatched;
		st->stack_max_depth = k.max_depth;
	}
}

int mach_sampler_stats_record(const struct mach_sampler *s, void *buf, size_t len)
{
	size_t off = 0;

	for (unsigned int c = 0; c < s->ncpu; c++) {
		int n = vs_cpu_stats_record(s->cpus[c], (uint8_t *)buf + off, len - off);

		if (n < 0)
			return n;
		off += (size_t)n;
	}
	return (int)off;
}

/* ---- truth output ---- */

int mach_sampler_truth_write(const struct mach_sampler *s, const char *path)
{
	struct mach_vhist_item items[MACH_VHIST_VALUES];
	FILE *f;
	int ret = 0;

	if (!s->vt)
		return -ENODATA;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# axprof value truth 1\n");
	for (size_t i = 0; i < s->vt_n; i++) {
		const struct mach_vhist *h = s->vt[i];
		unsigned int k;

		if (!h)
			continue;
		k = mach_vhist_sorted(h, items);
		fprintf(f, "pc 0x%" PRIx64 " n %" PRIu64 " distinct %u other %" PRIu64 "\n",
			s->o.truth_lo + 4 * (uint64_t)i, h->n, h->used, h->other);
		for (unsigned int j = 0; j < k; j++)
			fprintf(f, " 0x%" PRIx64 " %" PRIu64 "\n", items[j].val, items[j].cnt);
	}
	if (fflush(f) || ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

int mach_sampler_proc_truth_write(const struct mach_sampler *s, const char *path)
{
	return s->pt ? mach_ptruth_write(s->pt, path) : -ENODATA;
}

int mach_sampler_addr_truth_write(const struct mach_sampler *s, const char *path)
{
	return s->at ? mach_atruth_write(s->at, path) : -ENODATA;
}

int mach_sampler_truth_get(const struct mach_sampler *s, uint64_t pc, uint64_t value,
			   uint64_t *count, uint64_t *n)
{
	const struct mach_vhist *h;

	*count = 0;
	*n = 0;
	if (!s->vt)
		return -ENODATA;
	if (pc < s->o.truth_lo || pc >= s->o.truth_hi || (pc & 3))
		return -ENOENT;
	h = s->vt[(pc - s->o.truth_lo) >> 2];
	if (!h)
		return 0;
	*n = h->n;
	*count = mach_vhist_count(h, value);
	return 0;
}
