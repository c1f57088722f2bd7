/* tests/sampler/test_vs_obs_index.c - the indexed access log finds what a whole-log scan finds. */
#include "vs_test.h"
#include "axp_asm.h"

/*
 * The conflict observer walks only the accesses of a load's quadword bucket (vs_observe.c
 * see_access). Random runs of loads and stores (sizes 1-8, unaligned ones spanning two
 * quadwords in half the runs, addresses 512 bytes apart sharing a bucket without overlapping)
 * go through vs_obs_insn, and the conflict records it emits, summed per (pc, prior pc, kind),
 * must equal what the rule of vs_observe.c gives by scanning the whole log newest first,
 * computed here independently with the same dataflow estimate (vs_order_insn on a second
 * struct vs_obs).
 */

#define NPC 24 /* distinct instruction addresses: few enough pairs for the table */
#define RUNS 300
#define BUDGET 128
#define MAXPAIRS (NPC * NPC * 2)

struct pair {
	uint64_t pc, pc2;
	uint8_t kind;
	uint64_t count;
	uint32_t dist_min;
};

struct tally {
	struct pair p[MAXPAIRS];
	unsigned int n;
};

static void tally_add(struct tally *t, uint64_t pc, uint64_t pc2, uint8_t kind, uint64_t count,
		      uint32_t dist)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (t->p[i].pc == pc && t->p[i].pc2 == pc2 && t->p[i].kind == kind) {
			t->p[i].count += count;
			if (dist < t->p[i].dist_min)
				t->p[i].dist_min = dist;
			return;
		}
	}
	assert_true(t->n < MAXPAIRS);
	t->p[t->n++] = (struct pair){ pc, pc2, kind, count, dist };
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct acc {
	uint64_t ea, pc;
	uint32_t seq, t;
	uint8_t size, is_store;
};

/* The rule, by a whole-log scan: the nearest overlapping store, the nearest load before it. */
static void expect(struct tally *t, const struct acc *log, unsigned int n, const struct acc *ld,
		   bool want_ld)
{
	const struct acc *st = NULL, *prev = NULL;
	unsigned int i;

	for (i = n; i-- > 0;) {
		const struct acc *a = &log[i];

		if (!(a->ea < ld->ea + ld->size && ld->ea < a->ea + a->size))
			continue;
		if (a->is_store) {
			st = a;
			break;
		}
		if (want_ld && !prev && ld->t < a->t)
			prev = a;
	}
	if (st)
		tally_add(t, ld->pc, st->pc, VS_CNF_STORE_LOAD, 1, ld->seq - st->seq);
	if (prev)
		tally_add(t, ld->pc, prev->pc, VS_CNF_LOAD_LOAD, 1, ld->seq - prev->seq);
}

/* One random instruction: a mulq (slow base register), an addq, a load or a store. */
static struct axp_event random_event(uint64_t *s, struct axp_insn *d, bool unaligned)
{
	static const uint8_t sizes[] = { 1, 2, 4, 8 };
	unsigned int kind = rnd(s) % 8, ra = 1 + rnd(s) % 6, rb = 1 + rnd(s) % 6;
	uint64_t pc = 0x120000000ULL + 4 * (rnd(s) % NPC);
	struct axp_event ev = { .pc = pc, .next_pc = pc + 4, .dest = AXP_NO_DEST };
	const struct axp_op_info *info;
	uint32_t w;

	if (kind == 0)
		w = asm_opr(0x13, ra, rb, 0x20, rb); /* mulq ra, rb, rb */
	else if (kind == 1)
		w = asm_opr(0x10, ra, rb, 0x20, rb); /* addq ra, rb, rb */
	else if (kind < 5)
		w = asm_mem(0x29, ra, rb, 0); /* ldq ra, 0(rb) */
	else
		w = asm_mem(0x2d, ra, rb, 0); /* stq ra, 0(rb) */
	axp_decode(w, d);
	info = axp_info(d);
	ev.word = w;
	ev.op = d->op;
	ev.insn = d;
	if (info->flags & AXP_F_DA)
		ev.dest = d->ra;
	else if (info->flags & AXP_F_DC)
		ev.dest = d->rc;
	if (info->flags & (AXP_F_LD | AXP_F_ST)) {
		ev.is_load = info->flags & AXP_F_LD;
		ev.is_store = info->flags & AXP_F_ST;
		ev.size = sizes[rnd(s) % 4];
		/* 8 quadwords, each also 512 bytes on (same bucket, no overlap) */
		ev.ea = 0x200000000ULL + 8 * (rnd(s) % 8) + 512 * (rnd(s) % 2);
		if (unaligned && rnd(s) % 16 == 0)
			ev.ea += 1 + rnd(s) % 7; /* may span two quadwords */
		else
			ev.ea += (rnd(s) % (8 / ev.size)) * ev.size;
		ev.acc.latency = rnd(s) % 3 ? 0 : 2 + rnd(s) % 20;
	}
	return ev;
}

static void check_gather(uint32_t gather, uint64_t seed)
{
	struct vs_config cfg;
	struct vs_obs o, ref;
	struct vs_buf b;
	struct vs_stats st = { 0 };
	void *tab[VS_TAB_NR] = { 0 };
	struct axp_insn dec[BUDGET];
	struct acc log[BUDGET];
	struct recs r = { 0 };
	struct tally *want = calloc(1, sizeof(*want)), *got = calloc(1, sizeof(*got));
	const struct vs_rec_hdr *p = NULL;
	uint8_t *m0 = malloc(1 << 16), *m1 = malloc(1 << 16);
	bool want_ld = gather & VS_GATHER_LOADLOAD;
	unsigned int run, i, nll = 0;
	void *logmem;
	int err;

	assert_non_null(want);
	assert_non_null(got);
	vs_config_default(&cfg, VS_MODE_VREPLAY);
	cfg.gather = gather;
	cfg.cnf_entries = 4096;
	cfg.interp_budget = BUDGET;
	assert_int_equal(vs_config_check(&cfg, NULL), 0);
	tab[VS_TAB_CNF] = malloc(vs_obs_tab_size(&cfg, VS_TAB_CNF));
	logmem = malloc(vs_obs_log_size(&cfg));
	assert_int_equal(vs_buf_init(&b, m0, m1, 1 << 16, &st, 1), 0);
	assert_int_equal(vs_obs_init(&o, &cfg, tab, logmem, &b, &st, 11), 0);
	memset(&ref, 0, sizeof(ref));

	for (run = 0; run < RUNS; run++) {
		bool unaligned = run & 1;
		unsigned int n = 0;

		vs_obs_begin(&o, 42, NULL);
		vs_order_begin(&ref);
		for (i = 0; i < BUDGET; i++) {
			struct axp_event ev = random_event(&seed, &dec[i], unaligned);
			struct acc a = { .ea = ev.ea, .pc = ev.pc, .seq = i };

			ref.seq = i;
			a.t = want_ld ? vs_order_insn(&ref, &ev) : 0;
			a.size = ev.size;
			a.is_store = ev.is_store;
			if (ev.is_load)
				expect(want, log, n, &a, want_ld);
			if (ev.is_load || ev.is_store)
				log[n++] = a;
			vs_obs_insn(&o, &ev);
		}
		vs_obs_end(&o);
		drain_buf(&b, &r, 4096);
	}
	do {
		err = vs_obs_flush(&o);
		drain_buf(&b, &r, 4096);
	} while (err == -ENOSPC);
	assert_int_equal(err, 0);
	recs_check(&r);
	assert_int_equal(st.drops[VS_DROP_CONFLICT_BUF], 0);

	while ((p = recs_next(&r, p))) {
		const struct vs_rec_conflict *c = (const void *)p;

		if (p->type != VS_REC_CONFLICT)
			continue;
		assert_int_equal(c->pid, 42);
		tally_add(got, c->pc, c->prior_pc, c->kind, c->count, c->dist_min);
	}
	assert_true(want->n > 50); /* the stream does make conflicts */
	assert_int_equal(got->n, want->n);
	for (i = 0; i < want->n; i++) {
		const struct pair *w = &want->p[i];
		unsigned int j;

		nll += w->kind == VS_CNF_LOAD_LOAD;
		for (j = 0; j < got->n; j++)
			if (got->p[j].pc == w->pc && got->p[j].pc2 == w->pc2 &&
			    got->p[j].kind == w->kind)
				break;
		if (j == got->n)
			fail_msg("pair %#llx <- %#llx kind %u not recorded",
				 (unsigned long long)w->pc, (unsigned long long)w->pc2, w->kind);
		assert_int_equal(got->p[j].count, w->count);
		assert_int_equal(got->p[j].dist_min, w->dist_min);
	}
	if (want_ld)
		assert_true(nll > 10); /* load-load pairs were exercised too */
	recs_free(&r);
	free(tab[VS_TAB_CNF]);
	free(logmem);
	free(m0);
	free(m1);
	free(want);
	free(got);
}

static void test_vs_obs_index_matches_whole_log(void **state)
{
	(void)state;
	check_gather(VS_GATHER_CONFLICTS, 0x9e3779b97f4a7c15ULL);
}

static void test_vs_obs_index_matches_whole_log_loadload(void **state)
{
	(void)state;
	check_gather(VS_GATHER_CONFLICTS | VS_GATHER_LOADLOAD, 0x2545f4914f6cdd1dULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_obs_index_matches_whole_log),
		cmocka_unit_test(test_vs_obs_index_matches_whole_log_loadload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
