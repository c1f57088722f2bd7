/* kmod/sampler/vs_sampler.c - one CPU's sampler: state over caller memory, sample, interpret. */
#include "vs_sampler.h"

_Static_assert(AXP_STOP_NR <= VS_STOP_SLOTS, "stop reasons fit the stats record");

/* The guard is shared with this CPU's interrupt handler: one access each, never cached. */
static inline bool guard_get(const struct vs_cpu *cpu)
{
	return *(const volatile uint8_t *)&cpu->guard;
}

static inline void guard_set(struct vs_cpu *cpu, uint8_t v)
{
	vs_barrier();
	*(volatile uint8_t *)&cpu->guard = v;
	vs_barrier();
}

static inline size_t round64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

static bool mode_interprets(const struct vs_config *cfg)
{
	return cfg->mode == VS_MODE_VPROF || cfg->mode == VS_MODE_VREPLAY;
}

static bool obs_wanted(const struct vs_config *cfg)
{
	unsigned int t;

	for (t = 0; t < VS_TAB_NR; t++)
		if (vs_obs_tab_size(cfg, t))
			return true;
	return false;
}

/* Memory layout, in order: struct vs_cpu, hash buckets, sample buffers, then when observing:
 * observer buffers, the observer tables, the access log. Every piece starts on 64 bytes. */
size_t vs_cpu_size(const struct vs_config *cfg)
{
	size_t n;
	unsigned int t;

	if (vs_config_check(cfg, NULL))
		return 0;
	n = round64(sizeof(struct vs_cpu)) + vs_hash_mem_size(cfg->hash_buckets) +
	    2 * round64(cfg->buf_bytes);
	if (!obs_wanted(cfg))
		return n;
	n += 2 * round64(cfg->buf_bytes);
	for (t = 0; t < VS_TAB_NR; t++)
		n += round64(vs_obs_tab_size(cfg, t));
	return n + round64(vs_obs_log_size(cfg));
}

/* splitmix64's finaliser: independent-looking seeds for each CPU and each generator. */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int vs_cpu_init(void *mem, size_t len, const struct vs_config *cfg, const struct vs_platform *plat,
		struct vs_cpu **out)
{
	uint64_t seed = cfg->seed + (plat->cpu + 1ULL) * 0x9e3779b97f4a7c15ULL;
	uint8_t *p = mem, *b0, *b1;
	void *tabs[VS_TAB_NR] = { NULL };
	struct vs_cpu *cpu;
	unsigned int t;
	size_t need;
	int err;

	err = vs_config_check(cfg, NULL);
	if (err)
		return err;
	if (cfg->mode == VS_MODE_PROFILEME && !(plat->caps & VS_CAP_PROFILEME))
		return -EOPNOTSUPP; /* the glue cannot deliver ProfileMe records */
	need = vs_cpu_size(cfg);
	if (!mem || ((uintptr_t)mem & 63) || len < need)
		return -EINVAL;
	cpu = mem;
	memset(cpu, 0, sizeof(*cpu));
	cpu->cfg = *cfg;
	cpu->plat = *plat;
	memcpy(cpu->period, cfg->period, sizeof(cpu->period));
	cpu->prime = (uint8_t)cfg->period_prime;
	vs_prng_seed(&cpu->period_rng, mix(seed));
	vs_prng_seed(&cpu->policy_rng, mix(seed ^ 0x5851f42d4c957f2dULL));
	vs_policy_init(&cpu->pol, cfg);
	p += round64(sizeof(*cpu));

	err = vs_hash_init(&cpu->hash, p, cfg->hash_buckets, &cpu->sbuf, &cpu->st);
	if (err)
		return err;
	p += vs_hash_mem_size(cfg->hash_buckets);
	b0 = p;
	b1 = p + round64(cfg->buf_bytes);
	p = b1 + round64(cfg->buf_bytes);
	err = vs_buf_init(&cpu->sbuf, b0, b1, cfg->buf_bytes, &cpu->st, 0);
	if (err)
		return err;
	if (!obs_wanted(cfg))
		goto done;
	b0 = p;
	b1 = p + round64(cfg->buf_bytes);
	p = b1 + round64(cfg->buf_bytes);
	err = vs_buf_init(&cpu->obuf, b0, b1, cfg->buf_bytes, &cpu->st, 1);
	if (err)
		return err;
	for (t = 0; t < VS_TAB_NR; t++) {
		size_t n = vs_obs_tab_size(cfg, t);

		tabs[t] = n ? p : NULL;
		p += round64(n);
	}
	err = vs_obs_init(&cpu->obs, cfg, tabs, vs_obs_log_size(cfg) ? p : NULL, &cpu->obuf,
			  &cpu->st, mix(seed ^ 0x2545f4914f6cdd1dULL));
	if (err)
		return err;
	cpu->obs_on = 1;
done:
	*out = cpu;
	return 0;
}

/* vs_cpu_period(), inline in vs_sample(): the uniform draw is a few instructions. */
static inline uint32_t period_draw(struct vs_cpu *cpu, unsigned int event)
{
	const struct vs_period *p = &cpu->period[event];

	if (cpu->prime & (1u << event))
		return vs_prime_next(&cpu->period_rng, p->lo, p->hi);
	return vs_period_next(&cpu->period_rng, p->lo, p->hi);
}

int vs_sample(struct vs_cpu *cpu, uint32_t pid, uint64_t pc, unsigned int event, bool user_mode,
	      struct vs_decision *dec)
{
	struct vs_stats *st = &cpu->st;
	enum vs_verdict v;
	int ret;

	dec->interpret = false;
	dec->budget = 0;
	dec->wake = false;
	st->samples++;
	if (event >= VS_EVENT_NR || (pc & 3)) {
		st->drops[VS_DROP_SAMPLE_BAD]++;
		dec->period = 0;
		return -EINVAL;
	}
	if (user_mode)
		st->samples_user++;
	else
		st->samples_kernel++;
	st->samples_event[event]++;
	/* The common case inline (vs_core.h); the rest, rarer, in vs_hash.c. */
	ret = vs_hash_hit(&cpu->hash, pid, pc, event, user_mode) ?
		      VS_HASH_HIT :
		      vs_hash_sample(&cpu->hash, pid, pc, event, user_mode);
	dec->period = period_draw(cpu, event);
	v = vs_policy_decide(&cpu->pol, &cpu->policy_rng, guard_get(cpu), event, user_mode);
	if (v == VS_NO_GUARD) {
		st->interp_guarded++;
	} else if (v == VS_INTERPRET) {
		st->interp_decided++;
		dec->interpret = true;
		dec->budget = cpu->pol.budget;
	}
	if (cpu->sbuf.wake) {
		cpu->sbuf.wake = 0;
		dec->wake = true;
	}
	return ret < 0 ? ret : 0;
}

static bool same_comm(const char *a, const char *b)
{
	for (unsigned int i = 0; i < VS_COMM_LEN; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Issue 17 item 5 (DCPI §4.2 records pids; threads and commands are ours): VS_REC_TASK. */
int vs_task_slow(struct vs_cpu *cpu, uint32_t pid, uint32_t tid, const char *comm)
{
	struct vs_task_seen *e = &cpu->seen[(tid * 0x9e3779b1u) >> 28];
	char name[VS_COMM_LEN];
	struct vs_rec_task *r;
	uint64_t raw[VS_COMM_LEN / 8];
	unsigned int n = 0;

	VS_ABI_ASSERT(VS_TASK_CACHE == 16); /* the shift above and in vs_task() */
	VS_ABI_ASSERT(VS_COMM_LEN == 16); /* raw[] */
	/*
	 * vs_task() (inline, vs_sampler.h) has answered the common case for an aligned comm; this
	 * repeats it for any alignment. Byte loops run only for a new or renamed thread: they cost
	 * hundreds of instructions on an Alpha without BWX (the kernel test measured 366 -> 816
	 * cycles per interrupt when every sample ran them).
	 */
	__builtin_memcpy(raw, comm, sizeof(raw));
	if (tid && e->tid == tid && e->pid == pid && e->raw[0] == raw[0] && e->raw[1] == raw[1])
		return 0;
	while (n < VS_COMM_LEN - 1 && comm[n]) {
		name[n] = comm[n];
		n++;
	}
	if (!pid || !tid || !n)
		return -EINVAL;
	for (unsigned int i = n; i < VS_COMM_LEN; i++)
		name[i] = 0;
	if (e->tid == tid && e->pid == pid && same_comm(e->comm, name)) {
		e->raw[0] = raw[0]; /* other bytes after the NUL: the same name */
		e->raw[1] = raw[1];
		return 0;
	}
	r = vs_buf_reserve(&cpu->sbuf, VS_REC_TASK, sizeof(*r));
	if (!r)
		return -ENOSPC;
	r->pid = pid;
	r->tid = tid;
	r->reserved = 0;
	memcpy(r->comm, name, VS_COMM_LEN);
	e->pid = pid;
	e->tid = tid;
	e->raw[0] = raw[0];
	e->raw[1] = raw[1];
	memcpy(e->comm, name, VS_COMM_LEN);
	return 0;
}

uint32_t vs_cpu_period(struct vs_cpu *cpu, unsigned int event)
{
	return period_draw(cpu, event);
}

int vs_profileme(struct vs_cpu *cpu, const struct vs_rec_profileme *r, bool *wake)
{
	struct vs_rec_profileme tmp = *r, *out;

	*wake = false;
	tmp.h.type = VS_REC_PROFILEME;
	tmp.h.len = sizeof(tmp);
	if (cpu->cfg.mode != VS_MODE_PROFILEME ||
	    vs_abi_check_record(&tmp, sizeof(tmp), NULL) < 0) {
		cpu->st.drops[VS_DROP_PME_BAD]++;
		return -EINVAL;
	}
	out = vs_buf_reserve(&cpu->sbuf, VS_REC_PROFILEME, sizeof(*out));
	if (!out) {
		cpu->st.drops[VS_DROP_PME_BUF]++;
		return -ENOSPC;
	}
	memcpy((uint8_t *)out + sizeof(out->h), (const uint8_t *)&tmp + sizeof(tmp.h),
	       sizeof(tmp) - sizeof(tmp.h));
	if (cpu->sbuf.wake) {
		cpu->sbuf.wake = 0;
		*wake = true;
	}
	return 0;
}

/* The observer callback (a local function: its address needs no GOT entry in a PIC build). */
static void observe(void *priv, const struct axp_event *ev)
{
	vs_obs_insn(priv, ev);
}

int vs_interpret(struct vs_cpu *cpu, uint32_t pid, struct axp_ctx *ctx,
		 const struct axp_mem_ops *mem, void *mem_priv)
{
	return vs_interpret_n(cpu, pid, ctx, mem, mem_priv, cpu->pol.budget);
}

int vs_interpret_n(struct vs_cpu *cpu, uint32_t pid, struct axp_ctx *ctx,
		   const struct axp_mem_ops *mem, void *mem_priv, uint32_t budget)
{
	struct axp_observer ob = { .insn = observe, .priv = &cpu->obs };
	struct axp_run_cfg rc = {
		.mem = mem,
		.mem_priv = mem_priv,
		.obs = cpu->obs_on ? &ob : NULL,
		.handback = AXP_POLICY_INTERRUPT,
		.amask = cpu->plat.amask,
		.implver = cpu->plat.implver,
	};
	struct axp_stop_info info;
	enum axp_stop r;

	if (!mode_interprets(&cpu->cfg))
		return -EINVAL;
	if (guard_get(cpu)) {
		cpu->st.interp_busy++;
		return -EBUSY;
	}
	guard_set(cpu, 1);
	if (cpu->obs_on)
		vs_obs_begin(&cpu->obs, pid, ctx);
	if (budget > cpu->pol.budget)
		budget = cpu->pol.budget;
	r = axp_run(ctx, &rc, budget, &info);
	if (cpu->obs_on)
		vs_obs_end(&cpu->obs);
	cpu->st.interp_started++;
	cpu->st.interp_insns += info.executed;
	cpu->st.stops[(unsigned int)r < VS_STOP_SLOTS ? r : VS_STOP_SLOTS - 1]++;
	guard_set(cpu, 0);
	return (int)r;
}

bool vs_interp_take_wake(struct vs_cpu *cpu)
{
	bool w = cpu->obs_on && cpu->obuf.wake;

	if (w)
		cpu->obuf.wake = 0;
	return w;
}

int vs_cpu_flush(struct vs_cpu *cpu)
{
	int err;

	if (cpu->flush_stage == 0) {
		err = vs_hash_flush(&cpu->hash);
		if (err)
			return err;
		cpu->flush_stage = 1;
	}
	if (cpu->obs_on) {
		if (guard_get(cpu))
			return -EBUSY;
		err = vs_obs_flush(&cpu->obs);
		if (err)
			return err;
	}
	cpu->flush_stage = 0;
	return 0;
}

size_t vs_cpu_swap(struct vs_cpu *cpu)
{
	size_t n = vs_buf_swap(&cpu->sbuf);

	/* The observer pair's producer may be the interrupted code: leave it to a later swap. */
	if (cpu->obs_on && !guard_get(cpu))
		n += vs_buf_swap(&cpu->obuf);
	return n;
}

size_t vs_cpu_drain(struct vs_cpu *cpu, void *out, size_t len, size_t *remaining)
{
	size_t r1 = 0, r2 = 0, n;

	n = vs_drain(&cpu->sbuf, out, len, &r1);
	if (cpu->obs_on)
		n += vs_drain(&cpu->obuf, (uint8_t *)out + n, len - n, &r2);
	if (remaining)
		*remaining = r1 + r2;
	return n;
}

int vs_cpu_stats_record(const struct vs_cpu *cpu, void *out, size_t len)
{
	struct vs_rec_hdr h = { VS_REC_STATS, sizeof(struct vs_rec_stats) };
	uint8_t *p = out;

	/* Piece by piece: no 448-byte record on a kernel stack. */
	if (len < sizeof(struct vs_rec_stats))
		return -ENOSPC;
	memcpy(p, &h, sizeof(h));
	memcpy(p + __builtin_offsetof(struct vs_rec_stats, cpu), &cpu->plat.cpu, 4);
	memcpy(p + __builtin_offsetof(struct vs_rec_stats, st), &cpu->st, sizeof(cpu->st));
	return (int)sizeof(struct vs_rec_stats);
}
