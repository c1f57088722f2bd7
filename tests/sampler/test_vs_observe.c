/* tests/sampler/test_vs_observe.c - observers fed hand-built struct axp_event values. */
#include "vs_test.h"

struct fix {
	struct vs_obs o;
	struct vs_buf b;
	struct vs_stats st;
	void *tab[VS_TAB_NR];
	void *log;
	uint8_t *m0, *m1;
	struct recs r;
};

static struct fix *fix_new(uint32_t gather, uint32_t entries, uint32_t bufsize)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct vs_config cfg;
	unsigned int t;

	assert_non_null(f);
	vs_config_default(&cfg, VS_MODE_VREPLAY);
	cfg.gather = gather;
	cfg.hot_entries = cfg.lat_entries = cfg.cnf_entries = cfg.vc_entries = entries;
	cfg.proc_entries = entries;
	cfg.interp_budget = 128;
	assert_int_equal(vs_config_check(&cfg, NULL), 0);
	for (t = 0; t < VS_TAB_NR; t++) {
		size_t n = vs_obs_tab_size(&cfg, t);

		f->tab[t] = n ? malloc(n) : NULL;
	}
	f->log = vs_obs_log_size(&cfg) ? malloc(vs_obs_log_size(&cfg)) : NULL;
	f->m0 = malloc(bufsize);
	f->m1 = malloc(bufsize);
	assert_int_equal(vs_buf_init(&f->b, f->m0, f->m1, bufsize, &f->st, 1), 0);
	assert_int_equal(vs_obs_init(&f->o, &cfg, f->tab, f->log, &f->b, &f->st, 7), 0);
	return f;
}

static void fix_free(struct fix *f)
{
	unsigned int t;

	for (t = 0; t < VS_TAB_NR; t++)
		free(f->tab[t]);
	free(f->log);
	free(f->m0);
	free(f->m1);
	recs_free(&f->r);
	free(f);
}

/* Flush the tables and drain everything into f->r; returns the number of records. */
static size_t fix_drain(struct fix *f)
{
	int err;

	do {
		err = vs_obs_flush(&f->o);
		drain_buf(&f->b, &f->r, 4096);
	} while (err == -ENOSPC);
	assert_int_equal(err, 0);
	return recs_check(&f->r);
}

static struct axp_event ev_alu(uint64_t pc, uint8_t dest, uint64_t value)
{
	struct axp_event ev = { .pc = pc, .next_pc = pc + 4, .dest = dest, .value = value };

	return ev;
}

static struct axp_event ev_load(uint64_t pc, uint64_t ea, uint8_t size, uint32_t lat,
				uint32_t level)
{
	struct axp_event ev = { .pc = pc, .next_pc = pc + 4, .dest = 1, .size = size, .ea = ea };

	ev.is_load = true;
	ev.acc.latency = lat;
	ev.acc.level = level;
	return ev;
}

static struct axp_event ev_store(uint64_t pc, uint64_t ea, uint8_t size)
{
	struct axp_event ev = { .pc = pc, .next_pc = pc + 4, .dest = AXP_NO_DEST, .size = size };

	ev.ea = ea;
	ev.is_store = true;
	return ev;
}

static void feed(struct fix *f, const struct axp_event *ev)
{
	vs_obs_insn(&f->o, ev);
}

static const struct vs_rec_hdr *find(const struct recs *r, unsigned int type, uint64_t pc,
				     uint64_t pc2)
{
	const struct vs_rec_hdr *p = NULL;

	while ((p = recs_next(r, p))) {
		if (p->type != type)
			continue;
		if (type == VS_REC_CONFLICT) {
			const struct vs_rec_conflict *c = (const void *)p;

			if (c->pc == pc && c->prior_pc == pc2)
				return p;
		} else if (((const struct vs_rec_vcount *)p)->pc == pc) {
			return p;
		}
	}
	return NULL;
}

static size_t count_type(const struct recs *r, unsigned int type)
{
	const struct vs_rec_hdr *p = NULL;
	size_t n = 0;

	while ((p = recs_next(r, p)))
		n += p->type == type;
	return n;
}

static void test_vs_observe_values_into_hotlist(void **state)
{
	struct fix *f = fix_new(VS_GATHER_VALUES, 64, 8192);
	const struct vs_rec_hotlist *h;
	struct hotlist hl;
	struct hotlist_item top[2];
	struct axp_event ev;
	int i;

	(void)state;
	vs_obs_begin(&f->o, 42, NULL);
	for (i = 0; i < 1000; i++) {
		ev = ev_alu(0x120000010, 3, i % 10 ? 0x3c8 : (uint64_t)i);
		feed(f, &ev);
		ev = ev_alu(0x120000014, 32 + 5, 0x4000000000000000ULL); /* FP register 5 */
		feed(f, &ev);
		ev = ev_alu(0x120000018, AXP_NO_DEST, 77); /* writes nothing: no hotlist */
		feed(f, &ev);
	}
	vs_obs_end(&f->o);
	assert_int_equal(vs_obs_used(&f->o, VS_TAB_HOT), 2);
	assert_int_equal(fix_drain(f), 2);
	h = (const void *)find(&f->r, VS_REC_HOTLIST, 0x120000010, 0);
	assert_non_null(h);
	assert_int_equal(h->pid, 42);
	assert_int_equal(h->dest, 3);
	assert_true(hotlist_unpack(&hl, h->packed, h->packed_len) > 0);
	assert_int_equal(hl.n, 1000);
	assert_int_equal(hotlist_top(&hl, top, 1), 1);
	assert_int_equal(top[0].value, 0x3c8);
	assert_true(top[0].share_ppm > 850000); /* 90% */
	h = (const void *)find(&f->r, VS_REC_HOTLIST, 0x120000014, 0);
	assert_non_null(h);
	assert_int_equal(h->dest, 37);
	assert_null(find(&f->r, VS_REC_HOTLIST, 0x120000018, 0));
	fix_free(f);
}

static void test_vs_observe_load_latency_levels(void **state)
{
	struct fix *f = fix_new(VS_GATHER_LATENCY, 64, 8192);
	const struct vs_rec_latency *l;
	struct axp_event ev;
	int i;

	(void)state;
	vs_obs_begin(&f->o, 1, NULL);
	for (i = 0; i < 3; i++) {
		ev = ev_load(0x1000, 0x8000, 8, 2, AXP_LVL_DCACHE);
		feed(f, &ev);
	}
	ev = ev_load(0x1000, 0x8000, 8, 100, AXP_LVL_MEMORY);
	feed(f, &ev);
	ev = ev_load(0x1000, 0x8000, 8, 9, AXP_LVL_BCACHE);
	feed(f, &ev);
	ev = ev_load(0x1000, 0x8000, 8, 0, 99); /* a level out of range counts as unknown */
	feed(f, &ev);
	ev = ev_store(0x1004, 0x8000, 8); /* stores are not loads */
	feed(f, &ev);
	vs_obs_end(&f->o);
	assert_int_equal(fix_drain(f), 1);
	l = (const void *)find(&f->r, VS_REC_LATENCY, 0x1000, 0);
	assert_non_null(l);
	assert_int_equal(l->level[AXP_LVL_DCACHE], 3);
	assert_int_equal(l->level[AXP_LVL_MEMORY], 1);
	assert_int_equal(l->level[AXP_LVL_BCACHE], 1);
	assert_int_equal(l->level[AXP_LVL_UNKNOWN], 1);
	assert_int_equal(l->level[AXP_LVL_SCACHE], 0);
	assert_int_equal(l->latency_sum, 3 * 2 + 100 + 9);
	assert_int_equal(l->hist[0], 1); /* 0 cycles */
	assert_int_equal(l->hist[2], 3); /* 2..3 */
	assert_int_equal(l->hist[4], 1); /* 8..15 */
	assert_int_equal(l->hist[7], 1); /* 64..127 */
	fix_free(f);
}

static void test_vs_observe_lat_bucket_edges(void **state)
{
	(void)state;
	assert_int_equal(vs_lat_bucket(0), 0);
	assert_int_equal(vs_lat_bucket(1), 1);
	assert_int_equal(vs_lat_bucket(2), 2);
	assert_int_equal(vs_lat_bucket(3), 2);
	assert_int_equal(vs_lat_bucket(4), 3);
	assert_int_equal(vs_lat_bucket((1u << 14) - 1), 14);
	assert_int_equal(vs_lat_bucket(1u << 14), 15);
	assert_int_equal(vs_lat_bucket(UINT32_MAX), 15);
}

/* Store to A (8 bytes), then a load of A+4 (4 bytes): overlapping, recorded. */
static void test_vs_observe_conflict_overlap_recorded(void **state)
{
	struct fix *f = fix_new(VS_GATHER_CONFLICTS, 64, 8192);
	const struct vs_rec_conflict *c;
	struct axp_event ev;

	(void)state;
	vs_obs_begin(&f->o, 9, NULL);
	ev = ev_store(0x2000, 0x10000, 8);
	feed(f, &ev);
	ev = ev_alu(0x2004, 1, 5);
	feed(f, &ev);
	ev = ev_load(0x2008, 0x10004, 4, 2, AXP_LVL_DCACHE);
	feed(f, &ev);
	vs_obs_end(&f->o);
	assert_int_equal(fix_drain(f), 1);
	c = (const void *)find(&f->r, VS_REC_CONFLICT, 0x2008, 0x2000);
	assert_non_null(c);
	assert_int_equal(c->kind, VS_CNF_STORE_LOAD);
	assert_int_equal(c->count, 1);
	assert_int_equal(c->dist_min, 2);
	assert_int_equal(c->pid, 9);
	fix_free(f);
}

/* Disjoint bytes (store A..A+3, load A+4..A+7; store B, load B-8 size 8) are not conflicts. */
static void test_vs_observe_conflict_disjoint_not_recorded(void **state)
{
	struct fix *f = fix_new(VS_GATHER_CONFLICTS | VS_GATHER_LOADLOAD, 64, 8192);
	struct axp_event ev;

	(void)state;
	vs_obs_begin(&f->o, 9, NULL);
	ev = ev_store(0x2000, 0x10000, 4);
	feed(f, &ev);
	ev = ev_load(0x2004, 0x10004, 4, 2, AXP_LVL_DCACHE);
	feed(f, &ev);
	ev = ev_store(0x2008, 0x20000, 1);
	feed(f, &ev);
	ev = ev_load(0x200c, 0x1fff8, 8, 2, AXP_LVL_DCACHE);
	feed(f, &ev);
	ev = ev_load(0x2010, 0x20001, 2, 2, AXP_LVL_DCACHE);
	feed(f, &ev);
	vs_obs_end(&f->o);
	assert_int_equal(vs_obs_used(&f->o, VS_TAB_CNF), 0);
	assert_int_equal(fix_drain(f), 0);
	fix_free(f);
}

/* The nearest earlier overlapping store is the one named; a load-load pair only when no store
 * lies between the two loads (the store feeds the later load). */
static void test_vs_observe_conflict_nearest_and_loadload(void **state)
{
	struct fix *f = fix_new(VS_GATHER_CONFLICTS | VS_GATHER_LOADLOAD, 64, 8192);
	const struct vs_rec_conflict *c;
	struct axp_event ev;
	int run;

	(void)state;
	for (run = 0; run < 3; run++) {
		vs_obs_begin(&f->o, 1, NULL);
		ev = ev_load(0x3000, 0x5000, 8, 2, AXP_LVL_DCACHE); /* first load: nothing before */
		feed(f, &ev);
		ev = ev_store(0x3004, 0x5000, 8);
		feed(f, &ev);
		ev = ev_store(0x3008, 0x5002, 2);
		feed(f, &ev);
		ev = ev_load(0x300c, 0x5003, 1, 2, AXP_LVL_DCACHE);
		feed(f, &ev);
		vs_obs_end(&f->o);
	}
	/* Runs are independent: the log starts empty each time (no cross-run pairs). */
	assert_int_equal(fix_drain(f), 1);
	c = (const void *)find(&f->r, VS_REC_CONFLICT, 0x300c, 0x3008);
	assert_non_null(c);
	assert_int_equal(c->kind, VS_CNF_STORE_LOAD);
	assert_int_equal(c->count, 3);
	assert_int_equal(c->dist_min, 1);
	assert_null(find(&f->r, VS_REC_CONFLICT, 0x300c, 0x3004));
	assert_null(find(&f->r, VS_REC_CONFLICT, 0x300c, 0x3000));
	fix_free(f);
}

/* An event for instruction word w at pc (decoded into *d); ea/size for loads and stores. */
static struct axp_event ev_word(struct axp_insn *d, uint64_t pc, uint32_t w, uint64_t ea,
				uint32_t lat)
{
	struct axp_event ev = { .pc = pc, .next_pc = pc + 4, .word = w, .dest = AXP_NO_DEST };
	const struct axp_op_info *info;

	axp_decode(w, d);
	info = axp_info(d);
	ev.op = d->op;
	ev.insn = d;
	if (info->flags & AXP_F_DA)
		ev.dest = d->ra;
	else if (info->flags & AXP_F_DC)
		ev.dest = d->rc;
	if (info->flags & (AXP_F_LD | AXP_F_ST)) {
		ev.is_load = info->flags & AXP_F_LD;
		ev.is_store = info->flags & AXP_F_ST;
		ev.ea = ea;
		ev.size = 8;
		ev.acc.latency = lat;
	}
	return ev;
}

/*
 * workloads/ev6-micro/m_replay_ll's loop: mulq t1,t8,t1 | ldq t2,0(t1) | ldq t3,0(a1) | addq.
 * Both loads read one quadword. The newer ldq t3 could issue 7 cycles before the older ldq t2
 * (whose address waits for the multiply): a load-load pair. The next iteration's ldq t2 against
 * this iteration's ldq t3 could not (its address is later still), nor ldq t3 against the previous
 * ldq t3 (ready at the same time; the older goes first): neither is named.
 */
static void test_vs_observe_loadload_needs_newer_first(void **state)
{
	struct fix *f = fix_new(VS_GATHER_CONFLICTS | VS_GATHER_LOADLOAD, 64, 8192);
	const struct vs_rec_conflict *c;
	struct axp_insn d;
	struct axp_event ev;

	(void)state;
	vs_obs_begin(&f->o, 1, NULL);
	for (int it = 0; it < 3; it++) {
		ev = ev_word(&d, 0x840, 0x4c560402, 0, 0); /* mulq t1,t8,t1 */
		feed(f, &ev);
		ev = ev_word(&d, 0x844, 0xa4620000, 0x9000, 3); /* ldq t2,0(t1) */
		feed(f, &ev);
		ev = ev_word(&d, 0x848, 0xa4910000, 0x9000, 3); /* ldq t3,0(a1) */
		feed(f, &ev);
		ev = ev_word(&d, 0x84c, 0x40a40405, 0, 0); /* addq t4,t3,t4 */
		feed(f, &ev);
	}
	vs_obs_end(&f->o);
	assert_int_equal(fix_drain(f), 1);
	c = (const void *)find(&f->r, VS_REC_CONFLICT, 0x848, 0x844);
	assert_non_null(c);
	assert_int_equal(c->kind, VS_CNF_LOAD_LOAD);
	assert_int_equal(c->count, 3);
	assert_int_equal(c->dist_min, 1);
	assert_null(find(&f->r, VS_REC_CONFLICT, 0x844, 0x848));
	assert_null(find(&f->r, VS_REC_CONFLICT, 0x848, 0x848));
	fix_free(f);
}

/* A slow load (its measured latency) delays a dependent load's address: a newer load fetched two
 * cycles later then still issues first. With a one-cycle latency it does not. */
static void test_vs_observe_loadload_measured_latency(void **state)
{
	struct fix *f = fix_new(VS_GATHER_CONFLICTS | VS_GATHER_LOADLOAD, 64, 8192);
	const struct vs_rec_conflict *c;
	struct axp_insn d;
	struct axp_event ev;

	(void)state;
	for (uint32_t lat = 1; lat <= 80; lat += 79) {
		vs_obs_begin(&f->o, 1, NULL);
		ev = ev_word(&d, 0x900, 0xa4520000, 0x7000, lat); /* ldq t1,0(a2): t1 = 0x9000 */
		feed(f, &ev);
		ev = ev_word(&d, 0x904, 0xa4620000, 0x9000, 3); /* ldq t2,0(t1) */
		feed(f, &ev);
		for (unsigned int i = 0; i < 6; i++) {
			ev = ev_word(&d, 0x908 + 4 * i, 0x47ff041f, 0, 0); /* nop */
			feed(f, &ev);
		}
		ev = ev_word(&d, 0x920, 0xa4910000, 0x9000,
			     3); /* ldq t3,0(a1): fetched at cycle 2 */
		feed(f, &ev);
		vs_obs_end(&f->o);
	}
	assert_int_equal(fix_drain(f), 1);
	c = (const void *)find(&f->r, VS_REC_CONFLICT, 0x920, 0x904);
	assert_non_null(c);
	assert_int_equal(c->count, 1); /* the 80-cycle run only */
	assert_int_equal(c->dist_min, 7);
	fix_free(f);
}

static void test_vs_observe_loadload_off_by_default(void **state)
{
	struct fix *f = fix_new(VS_GATHER_CONFLICTS, 64, 8192);
	struct axp_event ev;

	(void)state;
	vs_obs_begin(&f->o, 1, NULL);
	ev = ev_load(0x3000, 0x5000, 8, 2, AXP_LVL_DCACHE);
	feed(f, &ev);
	ev = ev_load(0x3004, 0x5000, 8, 2, AXP_LVL_DCACHE);
	feed(f, &ev);
	vs_obs_end(&f->o);
	assert_int_equal(fix_drain(f), 0);
	fix_free(f);
}

/* vcount through a table far too small: evictions go out as records, the sums stay exact. */
static void test_vs_observe_vcount_exact_through_evictions(void **state)
{
	struct fix *f = fix_new(VS_GATHER_VCOUNT, 8, 8192);
	uint32_t want[40] = { 0 }, got[40] = { 0 };
	const struct vs_rec_hdr *p = NULL;
	uint64_t rs = 5;
	int i;

	(void)state;
	vs_obs_begin(&f->o, 3, NULL);
	for (i = 0; i < 20000; i++) {
		uint32_t k = (uint32_t)(trand(&rs) % 40);
		struct axp_event ev = ev_alu(0x4000 + 4 * k, AXP_NO_DEST, 0);

		want[k]++;
		feed(f, &ev);
		if (f->b.wake) {
			f->b.wake = 0;
			drain_buf(&f->b, &f->r, 4096);
		}
	}
	vs_obs_end(&f->o);
	fix_drain(f);
	while ((p = recs_next(&f->r, p))) {
		const struct vs_rec_vcount *v = (const void *)p;

		assert_int_equal(p->type, VS_REC_VCOUNT);
		got[(v->pc - 0x4000) / 4] += v->count;
	}
	for (i = 0; i < 40; i++)
		assert_int_equal(got[i], want[i]);
	assert_int_equal(f->st.drops[VS_DROP_VCOUNT_BUF], 0);
	assert_true(count_type(&f->r, VS_REC_VCOUNT) > 100);
	fix_free(f);
}

/*
 * A flush frees every way: after a full table (the miss path then skips the search for a free
 * way) is flushed, a new pc claims a free way and evicts nothing (a dead slot sent out again
 * would be a stale record).
 */
static void test_vs_observe_flush_frees_the_ways(void **state)
{
	struct fix *f = fix_new(VS_GATHER_VCOUNT, 8, 8192);
	struct axp_event ev;
	size_t n;
	int i, round;

	(void)state;
	for (round = 0; round < 2; round++) {
		vs_obs_begin(&f->o, 3, NULL);
		for (i = 0; i < 64; i++) {
			ev = ev_alu(0x4000 + 4 * (uint64_t)i, AXP_NO_DEST, 0);
			feed(f, &ev);
		}
		vs_obs_end(&f->o);
		assert_int_equal(vs_obs_used(&f->o, VS_TAB_VC), 8);
		n = count_type(&f->r, VS_REC_VCOUNT);
		fix_drain(f);
		assert_int_equal(count_type(&f->r, VS_REC_VCOUNT), n + 64); /* each pc once */
		assert_int_equal(vs_obs_used(&f->o, VS_TAB_VC), 0);
		vs_obs_begin(&f->o, 3, NULL);
		ev = ev_alu(0x9000, AXP_NO_DEST, 0);
		feed(f, &ev);
		vs_obs_end(&f->o);
		assert_int_equal(vs_obs_used(&f->o, VS_TAB_VC), 1);
		fix_drain(f);
		assert_int_equal(count_type(&f->r, VS_REC_VCOUNT), n + 65); /* no eviction */
		assert_non_null(find(&f->r, VS_REC_VCOUNT, 0x9000, 0));
	}
	assert_int_equal(f->st.drops[VS_DROP_VCOUNT_BUF], 0);
	fix_free(f);
}

/* With no drains the buffers fill: what is missing is what the drop counter says. */
static void test_vs_observe_drops_are_counted(void **state)
{
	struct fix *f = fix_new(VS_GATHER_VCOUNT | VS_GATHER_VALUES, 8, VS_BUF_MIN);
	const struct vs_rec_hdr *p = NULL;
	uint64_t got = 0, values = 0;
	int i;

	(void)state;
	vs_obs_begin(&f->o, 3, NULL);
	for (i = 0; i < 5000; i++) {
		struct axp_event ev = ev_alu(0x4000 + 4 * (i % 97), 2, (uint64_t)i);

		feed(f, &ev);
	}
	vs_obs_end(&f->o);
	assert_true(f->st.drops[VS_DROP_VCOUNT_BUF] > 0);
	assert_true(f->st.drops[VS_DROP_VALUE_BUF] > 0);
	fix_drain(f);
	while ((p = recs_next(&f->r, p))) {
		if (p->type == VS_REC_VCOUNT) {
			got += ((const struct vs_rec_vcount *)p)->count;
		} else {
			const struct vs_rec_hotlist *h = (const void *)p;
			struct hotlist hl;

			assert_int_equal(p->type, VS_REC_HOTLIST);
			assert_true(hotlist_unpack(&hl, h->packed, h->packed_len) > 0);
			values += hl.n;
		}
	}
	assert_int_equal(got + f->st.drops[VS_DROP_VCOUNT_BUF], 5000);
	assert_int_equal(values + f->st.drops[VS_DROP_VALUE_BUF], 5000);
	fix_free(f);
}

/* The VS_REC_PROC record (pc, kind, reg) in f->r, unpacked into *hl; NULL when there is none. */
static const struct vs_rec_proc *find_proc(struct fix *f, uint64_t pc, unsigned int kind,
					   unsigned int reg, struct hotlist *hl)
{
	const struct vs_rec_hdr *p = NULL;

	while ((p = recs_next(&f->r, p))) {
		const struct vs_rec_proc *r = (const void *)p;

		if (p->type != VS_REC_PROC || r->pc != pc || r->kind != kind || r->reg != reg)
			continue;
		assert_true(hotlist_unpack(hl, r->packed, r->packed_len) > 0);
		return r;
	}
	return NULL;
}

static struct axp_event ev_call(const struct axp_insn *d, uint64_t pc, uint64_t target)
{
	struct axp_event ev = { .pc = pc, .next_pc = target, .dest = d->ra, .value = pc + 4 };

	ev.insn = d;
	ev.taken = true;
	return ev;
}

#define ENTRY_P 0x120004000ULL
#define ENTRY_Q 0x120005000ULL
#define CALL_A 0x120001000ULL
#define CALL_B 0x120002000ULL
#define RET_P 0x120004040ULL

/*
 * A planted run: p(7, i) always 7 in a0, a1 90/10; q called from A 70%, B 30%; p returns i % 2.
 * give_ctx false: the observers get no context (the registers are set all the same).
 */
static void plant(struct fix *f, struct axp_ctx *ctx, bool give_ctx)
{
	static const struct axp_insn bsr = { .op = AXP_OP_BSR, .ra = 26 };
	static const struct axp_insn jsr = { .op = AXP_OP_JSR, .ra = 26, .rb = 27 };
	static const struct axp_insn ret = { .op = AXP_OP_RET, .ra = 31, .rb = 26 };
	static const struct axp_insn jmp = { .op = AXP_OP_JSR, .ra = 31, .rb = 27 };
	struct axp_event ev;
	int i;

	vs_obs_begin(&f->o, 5, give_ctx ? ctx : NULL);
	for (i = 0; i < 1000; i++) {
		ctx->r[16] = 7;
		ctx->r[17] = i % 10 ? 100 : (uint64_t)i;
		ctx->f[16] = 0x3ff0000000000000ULL; /* 1.0 */
		ev = ev_call(&bsr, CALL_A + 8, ENTRY_P);
		feed(f, &ev);
		ctx->r[0] = (uint64_t)(i % 2);
		ev = ev_call(&ret, RET_P, CALL_A + 12);
		feed(f, &ev);
		ev = ev_call(&jsr, i % 10 < 7 ? CALL_A : CALL_B, ENTRY_Q);
		feed(f, &ev);
		ev = ev_call(&jmp, CALL_B + 64, ENTRY_Q + 64); /* a jump, not a call */
		feed(f, &ev);
	}
	vs_obs_end(&f->o);
}

static void test_vs_observe_proc_args_callers_returns(void **state)
{
	struct fix *f = fix_new(VS_GATHER_ARGS | VS_GATHER_CALLERS, 64, 16384);
	struct axp_ctx ctx = { 0 };
	struct hotlist_item top[2];
	struct hotlist hl;

	(void)state;
	plant(f, &ctx, true);
	fix_drain(f);
	/* a0 of p: invariant 7. */
	assert_non_null(find_proc(f, ENTRY_P, VS_PROC_ARG, 16, &hl));
	assert_int_equal(hl.n, 1000);
	assert_int_equal(hotlist_top(&hl, top, 1), 1);
	assert_int_equal(top[0].value, 7);
	assert_true(top[0].share_ppm >= 980000);
	/* a1 of p: 100 in 90% (within 2 points). */
	assert_non_null(find_proc(f, ENTRY_P, VS_PROC_ARG, 17, &hl));
	assert_int_equal(hotlist_top(&hl, top, 1), 1);
	assert_int_equal(top[0].value, 100);
	assert_in_range(top[0].share_ppm, 880000, 920000);
	/* f16 of p, keyed as register 48. */
	assert_non_null(find_proc(f, ENTRY_P, VS_PROC_ARG, 48, &hl));
	assert_int_equal(hotlist_top(&hl, top, 1), 1);
	assert_int_equal(top[0].value, 0x3ff0000000000000ULL);
	/* p's return value at its ret: 0 and 1, half each. */
	assert_non_null(find_proc(f, RET_P, VS_PROC_RET, 0, &hl));
	assert_int_equal(hl.n, 1000);
	assert_int_equal(hotlist_top(&hl, top, 2), 2);
	assert_in_range(top[0].share_ppm, 480000, 520000);
	assert_non_null(find_proc(f, RET_P, VS_PROC_RET, 32, &hl));
	/* q's callers: A 70%, B 30% (within 3 points); p's only caller. */
	assert_non_null(find_proc(f, ENTRY_Q, VS_PROC_CALLER, 26, &hl));
	assert_int_equal(hl.n, 1000);
	assert_int_equal(hotlist_top(&hl, top, 2), 2);
	assert_int_equal(top[0].value, CALL_A);
	assert_in_range(top[0].share_ppm, 670000, 730000);
	assert_int_equal(top[1].value, CALL_B);
	assert_in_range(top[1].share_ppm, 270000, 330000);
	assert_non_null(find_proc(f, ENTRY_P, VS_PROC_CALLER, 26, &hl));
	assert_int_equal(hotlist_top(&hl, top, 2), 1);
	assert_int_equal(top[0].value, CALL_A + 8);
	/* The jump (jsr with ra = r31) is no call: nothing keyed by its target. */
	assert_null(find_proc(f, ENTRY_Q + 64, VS_PROC_CALLER, 26, &hl));
	assert_null(find_proc(f, ENTRY_Q + 64, VS_PROC_ARG, 16, &hl));
	fix_free(f);
}

static void test_vs_observe_proc_selected_separately(void **state)
{
	struct fix *f = fix_new(VS_GATHER_CALLERS, 64, 16384);
	struct axp_ctx ctx = { 0 };
	struct hotlist hl;

	(void)state;
	plant(f, &ctx, true);
	fix_drain(f);
	assert_non_null(find_proc(f, ENTRY_Q, VS_PROC_CALLER, 26, &hl));
	assert_null(find_proc(f, ENTRY_P, VS_PROC_ARG, 16, &hl));
	assert_null(find_proc(f, RET_P, VS_PROC_RET, 0, &hl));
	fix_free(f);

	f = fix_new(VS_GATHER_ARGS, 64, 16384);
	plant(f, &ctx, true);
	fix_drain(f);
	assert_non_null(find_proc(f, ENTRY_P, VS_PROC_ARG, 21, &hl));
	assert_null(find_proc(f, ENTRY_Q, VS_PROC_CALLER, 26, &hl));
	fix_free(f);

	/* Without a context (a caller that cannot give one) callers still work, args do not. */
	f = fix_new(VS_GATHER_ARGS | VS_GATHER_CALLERS, 64, 16384);
	plant(f, &ctx, false);
	fix_drain(f);
	assert_non_null(find_proc(f, ENTRY_Q, VS_PROC_CALLER, 26, &hl));
	assert_null(find_proc(f, ENTRY_P, VS_PROC_ARG, 16, &hl));
	fix_free(f);
}

/* The registration table: exactly the selected observers run; none selected, none run. */
static void test_vs_observe_only_selected_run(void **state)
{
	struct fix *f = fix_new(VS_GATHER_VALUES, 64, 8192);
	struct axp_ctx ctx = { 0 };

	(void)state;
	assert_int_equal(__builtin_popcount(f->o.sel), 1);
	assert_int_equal(f->o.tab[VS_TAB_PROC].nslots, 0);
	plant(f, &ctx, true);
	assert_int_equal(vs_obs_used(&f->o, VS_TAB_PROC), 0);
	fix_drain(f);
	for (const struct vs_rec_hdr *p = NULL; (p = recs_next(&f->r, p));)
		assert_int_equal(p->type, VS_REC_HOTLIST); /* the calls' ra values only */
	fix_free(f);

	f = fix_new(VS_GATHER_ALL, 64, 8192);
	assert_int_equal(__builtin_popcount(f->o.sel),
			 6); /* vcount, values, latency, conflicts, proc, addrs */
	fix_free(f);
	f = fix_new(0, 64, 8192);
	assert_int_equal(__builtin_popcount(f->o.sel), 0);
	fix_free(f);
}

/* The VS_REC_ADDR record (pc, kind) in f->r, unpacked into *hl; NULL when there is none. */
static const struct vs_rec_addr *find_addr(struct fix *f, uint64_t pc, unsigned int kind,
					   struct hotlist *hl)
{
	const struct vs_rec_hdr *p = NULL;

	while ((p = recs_next(&f->r, p))) {
		const struct vs_rec_addr *r = (const void *)p;

		if (p->type != VS_REC_ADDR || r->pc != pc || r->kind != kind)
			continue;
		assert_true(hotlist_unpack(hl, r->packed, r->packed_len) > 0);
		return r;
	}
	return NULL;
}

#define LD_INV 0x120003000ULL
#define LD_STR 0x120003008ULL
#define LD_NEG 0x120003010ULL

/*
 * 50 runs of 20 loop iterations: LD_INV always reads 0x2000, LD_STR walks 24-byte structs from a
 * base that differs per run, LD_NEG walks downwards by 8; a store and an ALU instruction between
 * (not loads: no address). Exact counts: every load has 1000 addresses and 950 strides (the
 * first execution of each run has none).
 */
static void test_vs_observe_addrs_and_strides(void **state)
{
	struct fix *f = fix_new(VS_GATHER_ADDRS, 64, 16384);
	struct hotlist_item top[2];
	struct hotlist hl;
	struct axp_event ev;
	int run, i;

	(void)state;
	for (run = 0; run < 50; run++) {
		vs_obs_begin(&f->o, 5, NULL);
		for (i = 0; i < 20; i++) {
			ev = ev_load(LD_INV, 0x2000, 8, 2, AXP_LVL_DCACHE);
			feed(f, &ev);
			ev = ev_load(LD_STR, 0x100000 + (uint64_t)run * 4096 + (uint64_t)i * 24, 8,
				     2, AXP_LVL_DCACHE);
			feed(f, &ev);
			ev = ev_load(LD_NEG, 0x300000 - (uint64_t)i * 8, 4, 2, AXP_LVL_DCACHE);
			feed(f, &ev);
			ev = ev_store(LD_NEG + 4, 0x2000, 8);
			feed(f, &ev);
			ev = ev_alu(LD_NEG + 8, 3, 9);
			feed(f, &ev);
		}
		vs_obs_end(&f->o);
	}
	fix_drain(f);
	assert_non_null(find_addr(f, LD_INV, VS_ADDR_EA, &hl));
	assert_int_equal(hl.n, 1000);
	assert_int_equal(hotlist_top(&hl, top, 2), 1);
	assert_int_equal(top[0].value, 0x2000);
	assert_non_null(find_addr(f, LD_INV, VS_ADDR_STRIDE, &hl));
	assert_int_equal(hl.n, 950);
	assert_int_equal(hotlist_top(&hl, top, 1), 1);
	assert_int_equal(top[0].value, 0);
	assert_non_null(find_addr(f, LD_STR, VS_ADDR_STRIDE, &hl));
	assert_int_equal(hl.n, 950);
	assert_int_equal(hotlist_top(&hl, top, 2), 1);
	assert_int_equal(top[0].value, 24);
	assert_non_null(find_addr(f, LD_STR, VS_ADDR_EA, &hl));
	assert_int_equal(hl.n, 1000);
	assert_true(hotlist_top(&hl, top, 1) == 1 && top[0].share_ppm < 100000); /* spread */
	assert_non_null(find_addr(f, LD_NEG, VS_ADDR_STRIDE, &hl));
	assert_int_equal(hotlist_top(&hl, top, 2), 1);
	assert_int_equal(top[0].value, (uint64_t)-8); /* two's complement */
	/* The store and the ALU instruction have no address records. */
	assert_null(find_addr(f, LD_NEG + 4, VS_ADDR_EA, &hl));
	assert_null(find_addr(f, LD_NEG + 8, VS_ADDR_EA, &hl));
	assert_int_equal(count_type(&f->r, VS_REC_ADDR), 6);
	fix_free(f);
}

/*
 * Strides never cross runs (a new run forgets the last addresses) and two loads sharing a way of
 * the per-run memory (pcs 64 bytes apart: VS_ADDR_PREV = 16 words) give no false stride: their
 * executions alternate, so neither ever finds its own last address and no stride is recorded.
 */
static void test_vs_observe_addrs_stride_bounds(void **state)
{
	struct fix *f = fix_new(VS_GATHER_ADDRS, 64, 16384);
	struct hotlist hl;
	struct axp_event ev;
	int run, i;

	(void)state;
	for (run = 0; run < 30; run++) {
		vs_obs_begin(&f->o, 5, NULL);
		ev = ev_load(LD_INV, 0x5000 + (uint64_t)run * 8, 8, 2, AXP_LVL_DCACHE);
		feed(f, &ev); /* once per run: never a stride */
		for (i = 0; i < 10; i++) {
			ev = ev_load(LD_STR, 0x8000 + (uint64_t)i * 16, 8, 2, AXP_LVL_DCACHE);
			feed(f, &ev);
			ev = ev_load(LD_STR + 4 * VS_ADDR_PREV, 0x9000, 8, 2, AXP_LVL_DCACHE);
			feed(f, &ev);
		}
		vs_obs_end(&f->o);
	}
	fix_drain(f);
	assert_non_null(find_addr(f, LD_INV, VS_ADDR_EA, &hl));
	assert_int_equal(hl.n, 30);
	assert_null(find_addr(f, LD_INV, VS_ADDR_STRIDE, &hl));
	assert_null(find_addr(f, LD_STR, VS_ADDR_STRIDE, &hl));
	assert_null(find_addr(f, LD_STR + 4 * VS_ADDR_PREV, VS_ADDR_STRIDE, &hl));
	assert_non_null(find_addr(f, LD_STR + 4 * VS_ADDR_PREV, VS_ADDR_EA, &hl));
	assert_int_equal(hl.n, 300);
	fix_free(f);
}

/* Off unless selected: the values observer alone writes no address record and has no table. */
static void test_vs_observe_addrs_off_by_default(void **state)
{
	struct fix *f = fix_new(VS_GATHER_VALUES, 64, 8192);
	struct vs_config cfg;
	struct axp_event ev;

	(void)state;
	assert_int_equal(f->o.tab[VS_TAB_ADDR].nslots, 0);
	vs_obs_begin(&f->o, 5, NULL);
	ev = ev_load(LD_INV, 0x2000, 8, 2, AXP_LVL_DCACHE);
	feed(f, &ev);
	feed(f, &ev);
	vs_obs_end(&f->o);
	fix_drain(f);
	assert_int_equal(count_type(&f->r, VS_REC_ADDR), 0);
	assert_int_equal(count_type(&f->r, VS_REC_HOTLIST), 1);
	fix_free(f);
	for (unsigned int m = 0; m < VS_MODE_NR; m++) {
		assert_int_equal(vs_config_default(&cfg, m), 0);
		assert_false(cfg.gather & VS_GATHER_ADDRS);
		assert_int_equal(vs_obs_tab_size(&cfg, VS_TAB_ADDR), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_observe_values_into_hotlist),
		cmocka_unit_test(test_vs_observe_load_latency_levels),
		cmocka_unit_test(test_vs_observe_lat_bucket_edges),
		cmocka_unit_test(test_vs_observe_conflict_overlap_recorded),
		cmocka_unit_test(test_vs_observe_conflict_disjoint_not_recorded),
		cmocka_unit_test(test_vs_observe_conflict_nearest_and_loadload),
		cmocka_unit_test(test_vs_observe_loadload_needs_newer_first),
		cmocka_unit_test(test_vs_observe_loadload_measured_latency),
		cmocka_unit_test(test_vs_observe_loadload_off_by_default),
		cmocka_unit_test(test_vs_observe_vcount_exact_through_evictions),
		cmocka_unit_test(test_vs_observe_flush_frees_the_ways),
		cmocka_unit_test(test_vs_observe_drops_are_counted),
		cmocka_unit_test(test_vs_observe_proc_args_callers_returns),
		cmocka_unit_test(test_vs_observe_proc_selected_separately),
		cmocka_unit_test(test_vs_observe_only_selected_run),
		cmocka_unit_test(test_vs_observe_addrs_and_strides),
		cmocka_unit_test(test_vs_observe_addrs_stride_bounds),
		cmocka_unit_test(test_vs_observe_addrs_off_by_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
