/* tests/sampler/test_vs_sampler.c - one CPU's sampler end to end, with the real executor. */
#include "vs_test.h"

#include "axp_asm.h"

#define CODE 0x120000000ull
#define DATA 0x140000000ull
#define MEMSZ 4096

struct tmem {
	uint8_t code[MEMSZ];
	uint8_t data[MEMSZ];
	struct vs_cpu *cpu; /* for the "interrupt during interpretation" test */
	int nested; /* 1: simulate an interrupt on the next load */
	int nested_sample_ret, nested_interp_ret;
	struct vs_decision nested_dec;
};

static uint8_t *tmem_at(struct tmem *m, uint64_t va, unsigned size)
{
	if (va >= CODE && va + size <= CODE + MEMSZ)
		return m->code + (va - CODE);
	if (va >= DATA && va + size <= DATA + MEMSZ)
		return m->data + (va - DATA);
	return NULL;
}

static int t_fetch(void *priv, uint64_t va, uint32_t *w)
{
	uint8_t *p = tmem_at(priv, va, 4);

	if (!p)
		return -EFAULT;
	memcpy(w, p, 4);
	return 0;
}

static const struct axp_mem_ops ops;

static int t_load(void *priv, uint64_t va, unsigned size, uint64_t *v, struct axp_access *acc)
{
	struct tmem *m = priv;
	uint8_t *p = tmem_at(m, va, size);

	if (!p)
		return -EFAULT;
	*v = 0;
	memcpy(v, p, size);
	/* The low data is "in the D-cache", the rest "in memory". */
	acc->latency = va < DATA + 16 ? 2 : 80;
	acc->level = va < DATA + 16 ? AXP_LVL_DCACHE : AXP_LVL_MEMORY;
	if (m->nested == 1) {
		struct axp_ctx other = { .pc = CODE };

		m->nested = 2;
		/* A sampling interrupt arriving in the middle of the interpretation. */
		m->nested_sample_ret =
			vs_sample(m->cpu, 5, CODE + 8, VS_EV_CYCLES, true, &m->nested_dec);
		m->nested_interp_ret = vs_interpret(m->cpu, 5, &other, &ops, m);
	}
	return 0;
}

static int t_store(void *priv, uint64_t va, unsigned size, uint64_t v, struct axp_access *acc)
{
	uint8_t *p = tmem_at(priv, va, size);

	(void)acc;
	if (!p)
		return -EFAULT;
	memcpy(p, &v, size);
	return 0;
}

static const struct axp_mem_ops ops = { .fetch = t_fetch, .load = t_load, .store = t_store };

/*
 *  0x00  stq  r2, 0(r8)
 *  0x04  ldl  r3, 4(r8)      overlaps the store: a store-load conflict
 *  0x08  addq r3, 1, r3
 *  0x0c  ldq  r4, 16(r8)     disjoint from everything stored
 *  0x10  stq  r3, 24(r8)
 *  0x14  subq r5, 1, r5
 *  0x18  bne  r5, 0x00
 *  0x1c  call_pal 0          (word 0)
 */
static void load_program(struct tmem *m, struct axp_ctx *ctx, uint64_t iters)
{
	const uint32_t prog[] = {
		asm_mem(0x2d, 2, 8, 0),	       asm_mem(0x28, 3, 8, 4),
		asm_opri(0x10, 3, 1, 0x20, 3), asm_mem(0x29, 4, 8, 16),
		asm_mem(0x2d, 3, 8, 24),       asm_opri(0x10, 5, 1, 0x29, 5),
		asm_bra(0x3d, 5, -7),	       0,
	};

	memset(m, 0, sizeof(*m));
	memcpy(m->code, prog, sizeof(prog));
	memset(ctx, 0, sizeof(*ctx));
	ctx->pc = CODE;
	ctx->lock_addr = AXP_NO_LOCK;
	ctx->r[2] = 0x1111111122222222ULL;
	ctx->r[5] = iters;
	ctx->r[8] = DATA;
}

static struct vs_cpu *vreplay_cpu(uint32_t budget, uint32_t gather, void **memp)
{
	struct vs_config cfg;

	vs_config_default(&cfg, VS_MODE_VREPLAY);
	cfg.interp_budget = budget;
	cfg.gather = gather;
	cfg.hot_entries = cfg.lat_entries = cfg.cnf_entries = cfg.vc_entries = 64;
	cfg.interp_num = cfg.interp_den = 1;
	return cpu_new(&cfg, 1, memp);
}

static const void *find_rec(const struct recs *r, unsigned int type, uint64_t pc, uint64_t pc2)
{
	const struct vs_rec_hdr *p = NULL;

	while ((p = recs_next(r, p))) {
		const struct vs_rec_conflict *c = (const void *)p;

		if (p->type != type || c->pc != pc)
			continue;
		if (type != VS_REC_CONFLICT || c->prior_pc == pc2)
			return p;
	}
	return NULL;
}

static void test_vs_sampler_init_checks_memory(void **state)
{
	struct vs_config cfg;
	struct vs_platform plat = { 0 };
	struct vs_cpu *cpu = NULL;
	size_t size;
	uint8_t *m;

	(void)state;
	vs_config_default(&cfg, VS_MODE_VPROF);
	size = vs_cpu_size(&cfg);
	assert_true(size > sizeof(struct vs_cpu));
	m = aligned_alloc(64, size + 64);
	assert_int_equal(vs_cpu_init(m, size - 1, &cfg, &plat, &cpu), -EINVAL);
	assert_int_equal(vs_cpu_init(m + 8, size, &cfg, &plat, &cpu), -EINVAL);
	assert_null(cpu);
	assert_int_equal(vs_cpu_init(m, size, &cfg, &plat, &cpu), 0);
	assert_ptr_equal(cpu, m);
	cfg.hash_buckets = 1000;
	assert_int_equal(vs_cpu_size(&cfg), 0);
	assert_int_equal(vs_cpu_init(m, size, &cfg, &plat, &cpu), -EINVAL);
	free(m);
	/* Cycles mode needs no observer memory at all. */
	vs_config_default(&cfg, VS_MODE_CYCLES);
	assert_true(vs_cpu_size(&cfg) < size);
}

/* vs_sample: counts, periods in range, and the decision follows the policy. */
static void test_vs_sampler_sample_decisions(void **state)
{
	struct vs_config cfg;
	struct vs_decision dec;
	struct vs_cpu *cpu;
	void *m;
	uint32_t i, yes = 0;

	(void)state;
	vs_config_default(&cfg, VS_MODE_VPROF);
	cfg.events |= 1u << VS_EV_IMISS;
	cfg.period[VS_EV_IMISS].lo = 100;
	cfg.period[VS_EV_IMISS].hi = 107;
	cpu = cpu_new(&cfg, 0, &m);
	for (i = 0; i < 20000; i++) {
		assert_int_equal(vs_sample(cpu, 10, CODE + 4 * (i % 50), VS_EV_CYCLES, true, &dec),
				 0);
		assert_true(dec.period >= 60000 && dec.period <= 64000);
		if (dec.interpret) {
			yes++;
			assert_int_equal(dec.budget, VS_VPROF_BUDGET);
		}
		assert_int_equal(vs_sample(cpu, 10, CODE, VS_EV_CYCLES, false, &dec), 0);
		assert_false(dec.interpret); /* kernel mode */
		assert_int_equal(vs_sample(cpu, 10, CODE, VS_EV_IMISS, true, &dec), 0);
		assert_false(dec.interpret); /* not an interp event */
		assert_true(dec.period >= 100 && dec.period <= 107);
	}
	/* one in 32 (vprof's default share), within 6 sd (sd = 24.6) */
	assert_int_equal(VS_VPROF_SHARE_DEN, 32);
	assert_true(yes > 625 - 150 && yes < 625 + 150);
	assert_int_equal(cpu->st.interp_decided, yes);
	assert_int_equal(vs_sample(cpu, 10, CODE + 2, VS_EV_CYCLES, true, &dec), -EINVAL);
	assert_int_equal(vs_sample(cpu, 10, CODE, VS_EVENT_NR, true, &dec), -EINVAL);
	assert_int_equal(cpu->st.drops[VS_DROP_SAMPLE_BAD], 2);
	assert_int_equal(cpu->st.samples, 60002);
	assert_int_equal(cpu->st.samples_kernel, 20000);
	assert_int_equal(cpu->st.samples_event[VS_EV_IMISS], 20000);
	free(m);
}

/* The interpretation advances the program and the observers see exactly what ran. */
static void test_vs_sampler_interpret_with_observers(void **state)
{
	static struct tmem tm;
	struct axp_ctx ctx;
	struct recs r = { 0 };
	const struct vs_rec_conflict *c;
	const struct vs_rec_vcount *v;
	const struct vs_rec_latency *l;
	const struct vs_rec_hotlist *h;
	struct hotlist hl;
	struct hotlist_item top[1];
	struct vs_cpu *cpu;
	uint64_t x;
	void *m;
	int ret;

	(void)state;
	cpu = vreplay_cpu(10, VS_GATHER_ALL, &m);
	load_program(&tm, &ctx, 5);
	ret = vs_interpret(cpu, 77, &ctx, &ops, &tm);
	assert_int_equal(ret, AXP_STOP_BUDGET);
	/* 7 instructions of the loop, then 3 of the next iteration: side effects are real. */
	assert_int_equal(ctx.pc, CODE + 0x0c);
	assert_int_equal(ctx.r[5], 4);
	assert_int_equal(ctx.r[3], 0x11111112); /* ldl, then addq of the second iteration */
	memcpy(&x, tm.data + 24, 8);
	assert_int_equal(x, 0x11111112);
	assert_int_equal(cpu->st.interp_started, 1);
	assert_int_equal(cpu->st.interp_insns, 10);
	assert_int_equal(cpu->st.stops[AXP_STOP_BUDGET], 1);
	assert_false(cpu->guard);

	drain_cpu(cpu, &r);
	recs_check(&r);
	c = find_rec(&r, VS_REC_CONFLICT, CODE + 4, CODE + 0);
	assert_non_null(c);
	assert_int_equal(c->kind, VS_CNF_STORE_LOAD);
	assert_int_equal(c->count, 2);
	assert_int_equal(c->dist_min, 1);
	assert_int_equal(c->pid, 77);
	/* ldl after the previous iteration's ldl: the store between feeds it, no load-load pair */
	assert_null(find_rec(&r, VS_REC_CONFLICT, CODE + 4, CODE + 4));
	assert_null(find_rec(&r, VS_REC_CONFLICT, CODE + 0x0c, CODE + 0x10));
	v = find_rec(&r, VS_REC_VCOUNT, CODE + 0, 0);
	assert_non_null(v);
	assert_int_equal(v->count, 2);
	v = find_rec(&r, VS_REC_VCOUNT, CODE + 0x18, 0);
	assert_non_null(v);
	assert_int_equal(v->count, 1);
	assert_null(find_rec(&r, VS_REC_VCOUNT, CODE + 0x1c, 0));
	l = find_rec(&r, VS_REC_LATENCY, CODE + 0x0c, 0);
	assert_non_null(l);
	assert_int_equal(l->level[AXP_LVL_MEMORY], 1);
	assert_int_equal(l->latency_sum, 80);
	l = find_rec(&r, VS_REC_LATENCY, CODE + 4, 0);
	assert_non_null(l);
	assert_int_equal(l->level[AXP_LVL_DCACHE], 2);
	h = find_rec(&r, VS_REC_HOTLIST, CODE + 8, 0); /* addq r3: 0x11111112 twice */
	assert_non_null(h);
	assert_int_equal(h->dest, 3);
	assert_true(hotlist_unpack(&hl, h->packed, h->packed_len) > 0);
	assert_int_equal(hl.n, 2);
	assert_int_equal(hotlist_top(&hl, top, 1), 1);
	assert_int_equal(top[0].value, 0x11111112);
	assert_null(find_rec(&r, VS_REC_HOTLIST, CODE + 0, 0)); /* stores write no register */
	recs_free(&r);
	free(m);
}

/* A run that meets CALL_PAL stops there, the reason counted, the program at the CALL_PAL. */
static void test_vs_sampler_stop_reason_counted(void **state)
{
	static struct tmem tm;
	struct axp_ctx ctx;
	struct vs_cpu *cpu;
	void *m;

	(void)state;
	cpu = vreplay_cpu(128, VS_GATHER_VCOUNT, &m);
	load_program(&tm, &ctx, 5);
	assert_int_equal(vs_interpret(cpu, 1, &ctx, &ops, &tm), AXP_STOP_CALL_PAL);
	assert_int_equal(ctx.pc, CODE + 0x1c);
	assert_int_equal(cpu->st.interp_insns, 35);
	assert_int_equal(cpu->st.stops[AXP_STOP_CALL_PAL], 1);
	/* The next run starts at the CALL_PAL and stops at once. */
	assert_int_equal(vs_interpret(cpu, 1, &ctx, &ops, &tm), AXP_STOP_CALL_PAL);
	assert_int_equal(cpu->st.interp_insns, 35);
	assert_int_equal(cpu->st.stops[AXP_STOP_CALL_PAL], 2);
	/* No observers at all is fine too (gather 0). */
	free(m);
	cpu = vreplay_cpu(8, 0, &m);
	load_program(&tm, &ctx, 5);
	assert_int_equal(vs_interpret(cpu, 1, &ctx, &ops, &tm), AXP_STOP_BUDGET);
	assert_int_equal(ctx.pc, CODE + 4);
	free(m);
}

/* An interrupt during an interpretation samples but does not interpret; no re-entry. */
static void test_vs_sampler_guard_prevents_reentry(void **state)
{
	static struct tmem tm;
	struct axp_ctx ctx;
	struct recs r = { 0 };
	const struct vs_rec_hdr *p = NULL;
	struct vs_cpu *cpu;
	void *m;
	int samples = 0;

	(void)state;
	cpu = vreplay_cpu(10, VS_GATHER_ALL, &m);
	load_program(&tm, &ctx, 5);
	tm.cpu = cpu;
	tm.nested = 1;
	assert_int_equal(vs_interpret(cpu, 77, &ctx, &ops, &tm), AXP_STOP_BUDGET);
	assert_int_equal(tm.nested, 2);
	assert_int_equal(tm.nested_sample_ret, 0);
	assert_false(tm.nested_dec.interpret); /* share 1/1, user mode: only the guard said no */
	assert_int_equal(tm.nested_interp_ret, -EBUSY);
	assert_int_equal(cpu->st.interp_guarded, 1);
	assert_int_equal(cpu->st.interp_busy, 1);
	assert_int_equal(cpu->st.interp_started, 1);
	assert_int_equal(ctx.pc, CODE + 0x0c);
	/* After the run the guard is down: the same sample now interprets. */
	assert_int_equal(vs_sample(cpu, 5, CODE + 8, VS_EV_CYCLES, true, &tm.nested_dec), 0);
	assert_true(tm.nested_dec.interpret);
	assert_int_equal(tm.nested_dec.budget, 10);
	drain_cpu(cpu, &r);
	recs_check(&r);
	while ((p = recs_next(&r, p)))
		if (p->type == VS_REC_SAMPLE)
			samples += ((const struct vs_rec_sample *)p)->count;
	assert_int_equal(samples, 2);
	recs_free(&r);
	free(m);
}

static void test_vs_sampler_cycles_mode_does_not_interpret(void **state)
{
	static struct tmem tm;
	struct vs_config cfg;
	struct axp_ctx ctx;
	struct vs_cpu *cpu;
	void *m;

	(void)state;
	vs_config_default(&cfg, VS_MODE_CYCLES);
	cpu = cpu_new(&cfg, 0, &m);
	load_program(&tm, &ctx, 5);
	assert_int_equal(vs_interpret(cpu, 1, &ctx, &ops, &tm), -EINVAL);
	assert_int_equal(ctx.pc, CODE);
	free(m);
}

/* The stats record is valid, carries the CPU number, and agrees with the counters. */
static void test_vs_sampler_stats_record(void **state)
{
	static struct tmem tm;
	struct vs_rec_stats rec;
	struct vs_decision dec;
	struct axp_ctx ctx;
	struct vs_cpu *cpu;
	void *m;
	int i;

	(void)state;
	cpu = vreplay_cpu(10, VS_GATHER_ALL, &m);
	load_program(&tm, &ctx, 5);
	for (i = 0; i < 100; i++)
		vs_sample(cpu, 3, CODE + 4 * (i % 7), VS_EV_CYCLES, i % 3, &dec);
	vs_interpret(cpu, 3, &ctx, &ops, &tm);
	assert_int_equal(vs_cpu_stats_record(cpu, &rec, sizeof(rec) - 1), -ENOSPC);
	assert_int_equal(vs_cpu_stats_record(cpu, &rec, sizeof(rec)), sizeof(rec));
	assert_int_equal(vs_abi_check_record(&rec, sizeof(rec), NULL), sizeof(rec));
	assert_int_equal(rec.cpu, 1);
	assert_int_equal(rec.st.samples, 100);
	assert_int_equal(rec.st.interp_insns, 10);
	assert_int_equal(rec.st.stops[AXP_STOP_BUDGET], 1);
	free(m);
}

/* vs_task with a name of n bytes in the VS_COMM_LEN bytes it reads (zero after them). */
static int task(struct vs_cpu *cpu, uint32_t pid, uint32_t tid, const char *s, size_t n)
{
	char b[VS_COMM_LEN] = { 0 };

	memcpy(b, s, n < sizeof(b) ? n : sizeof(b));
	return vs_task(cpu, pid, tid, b);
}

/* VS_REC_TASK (ABI 5): written once per (pid, tid, comm) per CPU, before the thread's samples,
 * and again when the command changes; bad arguments refused. */
static void test_vs_sampler_task_records(void **state)
{
	const struct vs_rec_hdr *p = NULL;
	struct vs_config cfg;
	struct vs_decision dec;
	struct recs r = { 0 };
	struct vs_cpu *cpu;
	unsigned int ntask = 0, nsample = 0, first_sample_at = 0, k = 0;
	char long_name[20] = "a-very-long-command";
	void *m;

	(void)state;
	vs_config_default(&cfg, VS_MODE_CYCLES);
	cpu = cpu_new(&cfg, 0, &m);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(task(cpu, 1000, 1000 + (i & 1), "prog", sizeof("prog")), 0);
		vs_sample(cpu, 1000 + (i & 1), CODE + 4 * (i % 5), VS_EV_CYCLES, true, &dec);
	}
	assert_int_equal(task(cpu, 1000, 1001, "worker", sizeof("worker")),
			 0); /* prctl(PR_SET_NAME) */
	assert_int_equal(task(cpu, 1000, 1001, "worker\0junk", sizeof("worker\0junk")),
			 0); /* after the NUL: ignored */
	assert_int_equal(task(cpu, 1002, 1002, long_name, sizeof(long_name)),
			 0); /* cut to 15 bytes */
	assert_int_equal(task(cpu, 0, 1003, "x", 2), -EINVAL);
	assert_int_equal(task(cpu, 1003, 0, "x", 2), -EINVAL);
	assert_int_equal(task(cpu, 1003, 1003, "", 1), -EINVAL);
	vs_cpu_flush(cpu);
	drain_cpu(cpu, &r);
	recs_check(&r);
	while ((p = recs_next(&r, p))) {
		k++;
		if (p->type == VS_REC_SAMPLE) {
			nsample++;
			if (!first_sample_at)
				first_sample_at = k;
			continue;
		}
		if (p->type != VS_REC_TASK)
			continue;
		const struct vs_rec_task *t = (const void *)p;
		static const struct {
			uint32_t pid, tid;
			const char *comm;
		} want[] = { { 1000, 1000, "prog" },
			     { 1000, 1001, "prog" },
			     { 1000, 1001, "worker" },
			     { 1002, 1002, "a-very-long-com" } };

		assert_true(ntask < 4);
		assert_int_equal(t->pid, want[ntask].pid);
		assert_int_equal(t->tid, want[ntask].tid);
		assert_string_equal(t->comm, want[ntask].comm);
		ntask++;
	}
	assert_int_equal(ntask, 4);
	assert_int_equal(nsample, 10); /* 5 pcs x 2 threads */
	assert_true(first_sample_at > 2); /* both threads named before any sample */
	assert_int_equal(cpu->st.records[VS_REC_TASK], 4);
	recs_free(&r);
	free(m);
}

/* Issue 18: vs_task()'s inline test reads an 8-byte-aligned comm as two quadwords; any other
 * alignment goes the byte-wise way. Either way a name is written once and a rename again. */
static void test_vs_sampler_task_alignment(void **state)
{
	uint64_t store[4] = { 0 }; /* names at offset 0 (aligned) and 1, 5 (not) */
	char *base = (char *)store;
	const struct vs_rec_hdr *p = NULL;
	struct vs_config cfg;
	struct recs r = { 0 };
	struct vs_cpu *cpu;
	unsigned int ntask = 0;
	void *m;
	static const char *const want[] = { "prog", "prog2", "prog" };

	(void)state;
	vs_config_default(&cfg, VS_MODE_CYCLES);
	cpu = cpu_new(&cfg, 0, &m);
	for (unsigned int off = 0; off < 6; off++) {
		memset(store, 0, sizeof(store));
		memcpy(base + off, "prog", 5);
		assert_int_equal(vs_task(cpu, 7, 7, base + off), 0); /* first: written */
	}
	memset(store, 0, sizeof(store));
	memcpy(base, "prog2", 6); /* renamed, aligned */
	assert_int_equal(vs_task(cpu, 7, 7, base), 0);
	memset(store, 0, sizeof(store));
	memcpy(base + 5, "prog2", 6); /* the same name, unaligned: nothing new */
	assert_int_equal(vs_task(cpu, 7, 7, base + 5), 0);
	memset(store, 0, sizeof(store));
	memcpy(base + 3, "prog", 5); /* renamed back, unaligned */
	assert_int_equal(vs_task(cpu, 7, 7, base + 3), 0);
	memset(store, 0, sizeof(store));
	memcpy(base, "prog", 5); /* the same, aligned: nothing new */
	assert_int_equal(vs_task(cpu, 7, 7, base), 0);
	vs_cpu_flush(cpu);
	drain_cpu(cpu, &r);
	recs_check(&r);
	while ((p = recs_next(&r, p))) {
		const struct vs_rec_task *t = (const void *)p;

		if (p->type != VS_REC_TASK)
			continue;
		assert_true(ntask < 3);
		assert_string_equal(t->comm, want[ntask]);
		ntask++;
	}
	assert_int_equal(ntask, 3);
	recs_free(&r);
	free(m);
}

/* Issue 18: vs_sample() counts a hit inline and leaves saturation to vs_hash_sample(): with
 * count_max 4, ten samples of one key give records of 4, 4 and (flushed) 2. */
static void test_vs_sampler_hit_and_saturation(void **state)
{
	const struct vs_rec_hdr *p = NULL;
	struct vs_config cfg;
	struct vs_decision dec;
	struct recs r = { 0 };
	struct vs_cpu *cpu;
	uint32_t counts[4] = { 0 };
	unsigned int n = 0;
	void *m;

	(void)state;
	vs_config_default(&cfg, VS_MODE_CYCLES);
	cpu = cpu_new(&cfg, 0, &m);
	cpu->hash.count_max = 4;
	for (int i = 0; i < 10; i++)
		assert_int_equal(vs_sample(cpu, 9, CODE + 16, VS_EV_CYCLES, false, &dec), 0);
	assert_int_equal(cpu->st.hash_misses,
			 3); /* the 1st, 5th, 9th: a saturated entry is freed */
	assert_int_equal(cpu->st.hash_hits, 7);
	assert_int_equal(cpu->st.hash_saturations, 2);
	vs_cpu_flush(cpu);
	drain_cpu(cpu, &r);
	recs_check(&r);
	while ((p = recs_next(&r, p))) {
		const struct vs_rec_sample *s = (const void *)p;

		if (p->type != VS_REC_SAMPLE)
			continue;
		assert_true(n < 4);
		assert_int_equal(s->pid, 9);
		assert_int_equal(s->pc, CODE + 16);
		assert_int_equal(s->flags, VS_SF_KERNEL);
		counts[n++] = s->count;
	}
	assert_int_equal(n, 3);
	assert_int_equal(counts[0], 4);
	assert_int_equal(counts[1], 4);
	assert_int_equal(counts[2], 2);
	recs_free(&r);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_sampler_init_checks_memory),
		cmocka_unit_test(test_vs_sampler_sample_decisions),
		cmocka_unit_test(test_vs_sampler_interpret_with_observers),
		cmocka_unit_test(test_vs_sampler_stop_reason_counted),
		cmocka_unit_test(test_vs_sampler_guard_prevents_reentry),
		cmocka_unit_test(test_vs_sampler_cycles_mode_does_not_interpret),
		cmocka_unit_test(test_vs_sampler_stats_record),
		cmocka_unit_test(test_vs_sampler_task_records),
		cmocka_unit_test(test_vs_sampler_task_alignment),
		cmocka_unit_test(test_vs_sampler_hit_and_saturation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
