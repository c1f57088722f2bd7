/* tests/sampler/test_vs_abi.c - configuration checks and record validation (never trusts input). */
#include "vs_test.h"

static void test_vs_abi_defaults_are_valid(void **state)
{
	struct vs_config cfg;
	unsigned int mode;

	(void)state;
	for (mode = VS_MODE_CYCLES; mode < VS_MODE_NR; mode++) {
		assert_int_equal(vs_config_default(&cfg, mode), 0);
		assert_int_equal(vs_config_check(&cfg, NULL), 0);
		assert_int_equal(cfg.period[VS_EV_CYCLES].lo, 60000);
		assert_int_equal(cfg.period[VS_EV_CYCLES].hi, 64000);
	}
	assert_int_equal(vs_config_default(&cfg, VS_MODE_NR), -EINVAL);
}

static void test_vs_abi_config_rejects_bad_fields(void **state)
{
	struct vs_config base, c;
	const char *why;

	(void)state;
	vs_config_default(&base, VS_MODE_VREPLAY);
#define BAD(stmt, err)                                            \
	do {                                                      \
		c = base;                                         \
		stmt;                                             \
		why = NULL;                                       \
		assert_int_equal(vs_config_check(&c, &why), err); \
		assert_non_null(why);                             \
	} while (0)
	BAD(c.abi_version = VS_ABI_VERSION - 1, -EINVAL);
	BAD(c.size = 128, -EINVAL);
	BAD((c.gather |= VS_GATHER_ARGS, c.proc_entries = 0), -EINVAL);
	BAD((c.gather |= VS_GATHER_CALLERS, c.proc_entries = 24), -EINVAL);
	BAD((c.gather |= VS_GATHER_CALLERS, c.hotlist_m = 1), -EINVAL);
	BAD(c.gather = 1u << VS_GATHER_NR, -EINVAL);
	BAD(c.mode = 9, -EINVAL);
	BAD(c.events = 0, -EINVAL);
	BAD(c.events = 1u << 8, -EINVAL);
	BAD(c.period[3].lo = 0, -EINVAL);
	BAD(c.period[0].lo = 64001, -EINVAL);
	BAD(c.period[0].hi = c.period[0].lo + VS_PERIOD_SPREAD_MAX, -EINVAL);
	BAD(c.hash_buckets = 48, -EINVAL);
	BAD(c.hash_buckets = 2, -EINVAL);
	BAD(c.buf_bytes = VS_BUF_MIN - 8, -EINVAL);
	BAD(c.buf_bytes = 4100, -EINVAL);
	BAD(c.gather = 1u << 8, -EINVAL);
	BAD((c.gather |= VS_GATHER_ADDRS, c.hot_entries = 24), -EINVAL);
	BAD((c.gather |= VS_GATHER_ADDRS, c.hotlist_m = 2), -EINVAL);
	BAD(c.gather = VS_GATHER_LOADLOAD, -EINVAL);
	BAD(c.interp_events = 1u << VS_EV_DMISS, -EINVAL);
	BAD(c.interp_den = 0, -EINVAL);
	BAD(c.interp_num = 200, -EINVAL);
	BAD(c.interp_budget = 0, -EINVAL);
	BAD(c.interp_budget = VS_BUDGET_MAX + 1, -EINVAL);
	BAD(c.cnf_entries = 100, -EINVAL);
	BAD(c.vc_entries = 4, -EINVAL);
	BAD((c.gather |= VS_GATHER_VALUES, c.hotlist_m = 2), -EINVAL);
	BAD((c.gather |= VS_GATHER_VALUES, c.hot_entries = 0), -EINVAL);
	BAD((c.gather |= VS_GATHER_LATENCY, c.lat_entries = 3), -EINVAL);
	BAD(c.flags = 2, -EINVAL);
#undef BAD
	/* VS_CFG_KERNEL_VALUES: only where a mode interprets. */
	c = base;
	c.flags = VS_CFG_KERNEL_VALUES;
	assert_int_equal(vs_config_check(&c, NULL), 0);
	assert_int_equal(vs_config_default(&c, VS_MODE_CYCLES), 0);
	c.flags = VS_CFG_KERNEL_VALUES;
	assert_int_equal(vs_config_check(&c, NULL), -EINVAL);
	/* Fields of what is not gathered are not looked at. */
	c = base;
	c.hot_entries = 3;
	c.hotlist_m = 0;
	c.proc_entries = 5;
	assert_int_equal(vs_config_check(&c, NULL), 0);
}

/* A stream with every record type, from the real producers. */
static void make_stream(struct recs *r)
{
	struct vs_config cfg;
	struct vs_decision dec;
	struct vs_rec_stats st;
	struct axp_insn call = { .op = AXP_OP_BSR, .ra = 26 }, ret = { .op = AXP_OP_RET, .ra = 31 };
	struct axp_ctx ctx = { .r = { [0] = 5, [16] = 7, [17] = 1 }, .f = { [0] = 3 } };
	struct axp_event ev;
	struct vs_cpu *cpu;
	void *m;
	int i;

	vs_config_default(&cfg, VS_MODE_VREPLAY);
	cfg.gather = VS_GATHER_ALL;
	cfg.hot_entries = cfg.lat_entries = 64;
	cpu = cpu_new(&cfg, 2, &m);
	for (i = 0; i < 300; i++)
		vs_sample(cpu, 1 + i % 3, 0x120000000ULL + 4 * (i % 40), i % 4, i % 5 != 0, &dec);
	vs_obs_begin(&cpu->obs, 4, &ctx);
	for (i = 0; i < 200; i++) {
		memset(&ev, 0, sizeof(ev));
		if (i % 10 == 0) { /* a call (a0 varies) or a ret */
			ctx.r[16] = (uint64_t)i;
			ev.pc = 0x120002000ULL + 4 * (i % 3);
			ev.next_pc = 0x120003000ULL;
			ev.insn = i % 20 ? &ret : &call;
			ev.dest = i % 20 ? AXP_NO_DEST : 26;
			ev.value = ev.pc + 4;
			vs_obs_insn(&cpu->obs, &ev);
			continue;
		}
		ev.pc = 0x120001000ULL + 4 * (i % 9);
		ev.dest = (uint8_t)(i % 3 ? i % 31 : 32 + i % 31);
		ev.value = (uint64_t)i * (i % 4);
		ev.size = 8;
		ev.ea = 0x140000000ULL + 8 * (i % 5);
		ev.is_load = i % 2;
		ev.is_store = !ev.is_load;
		ev.acc.latency = (uint32_t)(i * 37 % 300);
		ev.acc.level = (uint32_t)(i % 5);
		vs_obs_insn(&cpu->obs, &ev);
	}
	vs_obs_end(&cpu->obs);
	drain_cpu(cpu, r);
	assert_int_equal(vs_cpu_stats_record(cpu, &st, sizeof(st)), sizeof(st));
	recs_add(r, &st, sizeof(st));
	free(m);
}

static void test_vs_abi_real_records_pass(void **state)
{
	struct recs r = { 0 };
	const struct vs_rec_hdr *p = NULL;
	unsigned int seen[VS_REC_NR] = { 0 };

	(void)state;
	make_stream(&r);
	recs_check(&r);
	while ((p = recs_next(&r, p)))
		seen[p->type]++;
	assert_true(seen[VS_REC_SAMPLE] > 0);
	assert_true(seen[VS_REC_HOTLIST] > 0);
	assert_true(seen[VS_REC_LATENCY] > 0);
	assert_true(seen[VS_REC_CONFLICT] > 0);
	assert_true(seen[VS_REC_VCOUNT] > 0);
	assert_true(seen[VS_REC_PROC] >= 12 + 1 + 2); /* args, the caller, v0 and f0 */
	assert_true(seen[VS_REC_ADDR] >= 2 * 5); /* addresses and strides of 5 load pcs */
	assert_int_equal(seen[VS_REC_STATS], 1);
	recs_free(&r);
}

/*
 * vs_abi_check_record_hotlist() accepts what vs_abi_check_record() does, and for every record
 * carrying a hotlist (HOTLIST, PROC, ADDR: the same layout) gives exactly what hotlist_unpack()
 * reads from it, every byte of the list.
 */
static void test_vs_abi_check_record_hotlist_gives_the_list(void **state)
{
	struct recs r = { 0 };
	const struct vs_rec_hdr *p = NULL;
	unsigned int lists = 0;

	(void)state;
	make_stream(&r);
	while ((p = recs_next(&r, p))) {
		struct hotlist got, want;
		struct vs_rec_hotlist hr;
		int n;

		memset(&got, 0xa5, sizeof(got));
		n = vs_abi_check_record_hotlist(p, p->len, &got, NULL);
		assert_int_equal(n, vs_abi_check_record(p, p->len, NULL));
		assert_int_equal(n, p->len);
		if (p->type != VS_REC_HOTLIST && p->type != VS_REC_PROC && p->type != VS_REC_ADDR)
			continue;
		memcpy(&hr, p, sizeof(hr));
		memset(&want, 0, sizeof(want));
		assert_int_equal(
			hotlist_unpack(&want, (const uint8_t *)p + sizeof(hr), hr.packed_len),
			(int)hr.packed_len);
		assert_memory_equal(&got, &want, sizeof(got));
		lists++;
	}
	assert_true(lists >= 3);
	recs_free(&r);
}

/* The first record of type `type` in a fresh stream, copied into buf; its length. */
static int first_of(unsigned int type, uint8_t *buf)
{
	struct recs r = { 0 };
	const struct vs_rec_hdr *p = NULL;
	int len = -1;

	make_stream(&r);
	while ((p = recs_next(&r, p)))
		if (p->type == type) {
			memcpy(buf, p, p->len);
			len = p->len;
			break;
		}
	recs_free(&r);
	assert_true(len > 0);
	return len;
}

static void expect_bad(const uint8_t *buf, size_t len)
{
	const char *why = NULL;

	assert_int_equal(vs_abi_check_record(buf, len, &why), -EBADMSG);
	assert_non_null(why);
}

static void test_vs_abi_damaged_records_rejected(void **state)
{
	uint8_t b[VS_REC_MAX + 64] = { 0 }, o[VS_REC_MAX + 64] = { 0 };
	struct vs_rec_sample *s = (void *)b;
	struct vs_rec_hotlist *h = (void *)b;
	struct vs_rec_latency *l = (void *)b;
	struct vs_rec_conflict *c = (void *)b;
	struct vs_rec_proc *pr = (void *)b;
	struct vs_rec_addr *ad = (void *)b;
	int n;

	(void)state;
	/* headers */
	expect_bad(b, 3);
	memset(b, 0, sizeof(b));
	expect_bad(b, sizeof(b)); /* type 0, length 0 */
	n = first_of(VS_REC_SAMPLE, o);
	assert_int_equal(vs_abi_check_record(o, n, NULL), n);
	expect_bad(o, n - 1); /* runs past the end */
#define MUT(stmt)                         \
	do {                              \
		memcpy(b, o, sizeof(o));  \
		stmt;                     \
		expect_bad(b, sizeof(b)); \
	} while (0)
	MUT(s->h.len = 20);
	MUT(s->h.len = 32);
	MUT(s->h.len = 0xfff8);
	MUT(s->count = 0);
	MUT(s->event = VS_EVENT_NR);
	MUT(s->flags = VS_SF_USER | VS_SF_KERNEL);
	MUT(s->flags = 0);
	MUT(s->pc |= 2);
	MUT(s->reserved = 1);

	n = first_of(VS_REC_HOTLIST, o);
	assert_int_equal(vs_abi_check_record(o, n, NULL), n);
	MUT(h->packed_len += 12);
	MUT(h->packed_len -= 12);
	MUT(h->dest = 31);
	MUT(h->dest = 63);
	MUT(h->reserved[1] = 1);
	MUT(h->packed[0] = 'B'); /* magic */
	MUT(h->packed[30] ^= 1); /* checksum */
	MUT(h->h.len += 8);
	if (((struct vs_rec_hotlist *)o)->h.len >
	    sizeof(*h) + ((struct vs_rec_hotlist *)o)->packed_len)
		MUT(b[n - 1] = 1); /* padding */
	MUT((h->h.len = 24 + 24, h->packed_len = 20));

	n = first_of(VS_REC_LATENCY, o);
	assert_int_equal(vs_abi_check_record(o, n, NULL), n);
	MUT(l->level[1]++);
	MUT(l->hist[3]++);
	MUT((l->level[0] = 0, l->level[1] = 0, l->level[2] = 0, l->level[3] = 0, l->level[4] = 0,
	     memset(l->hist, 0, sizeof(l->hist))));
	MUT(l->latency_sum = UINT64_MAX);
	MUT((l->latency_sum = 0, l->hist[15] += 1, l->level[4] += 1));
	MUT(l->reserved = 9);

	n = first_of(VS_REC_CONFLICT, o);
	assert_int_equal(vs_abi_check_record(o, n, NULL), n);
	MUT(c->kind = 3);
	MUT(c->count = 0);
	MUT(c->dist_min = 0);
	MUT(c->prior_pc += 1);
	MUT(c->reserved = 1);

	n = first_of(VS_REC_PROC, o);
	assert_int_equal(vs_abi_check_record(o, n, NULL), n);
	MUT(pr->kind = 0);
	MUT(pr->kind = 4);
	MUT((pr->kind = VS_PROC_ARG, pr->reg = 22));
	MUT((pr->kind = VS_PROC_ARG, pr->reg = 15));
	MUT((pr->kind = VS_PROC_RET, pr->reg = 16));
	MUT((pr->kind = VS_PROC_CALLER, pr->reg = 0));
	MUT(pr->reserved[1] = 1);
	MUT(pr->pc |= 1);
	MUT(pr->packed_len += 12);
	MUT(pr->packed[30] ^= 1); /* checksum */

	n = first_of(VS_REC_ADDR, o);
	assert_int_equal(vs_abi_check_record(o, n, NULL), n);
	MUT(ad->kind = 0);
	MUT(ad->kind = 3);
	MUT(ad->reserved[2] = 1);
	MUT(ad->pc |= 2);
	MUT(ad->packed_len += 12);
	MUT(ad->packed[30] ^= 1); /* checksum */

	n = first_of(VS_REC_STATS, o);
	assert_int_equal(vs_abi_check_record(o, n, NULL), n);
	MUT(((struct vs_rec_stats *)b)->st.samples_user += 1000000);
	MUT(((struct vs_rec_stats *)b)->st.samples_event[2] += 1000000);
	MUT(((struct vs_rec_stats *)b)->h.len = 504);
	MUT(((struct vs_rec_stats *)b)->st.records[VS_REC_NR] = 1);
#undef MUT
}

/* VS_REC_STACK (the hosted machine's, version 4): a good record and each broken rule. */
static void test_vs_abi_stack_record(void **state)
{
	uint8_t b[VS_REC_MAX + 64], o[VS_REC_MAX + 64] = { 0 };
	struct vs_rec_stack *k = (void *)o, *s = (void *)b;
	size_t n = VS_REC_STACK_SIZE(3);

	(void)state;
	*k = (struct vs_rec_stack){ { VS_REC_STACK, (uint16_t)n }, 7, 2, VS_EV_DMISS, 0, 3 };
	k->pc[0] = 0x120001000;
	k->pc[1] = 0x120000f00;
	k->pc[2] = 0x120000e0c;
	assert_int_equal(vs_abi_check_record(o, n, NULL), (int)n);
	assert_int_equal(vs_abi_check_record(o, sizeof(o), NULL), (int)n);
	expect_bad(o, n - 8); /* runs past the end */
#define MUT(stmt)                         \
	do {                              \
		memcpy(b, o, sizeof(o));  \
		stmt;                     \
		expect_bad(b, sizeof(b)); \
	} while (0)
	MUT(s->depth = 0);
	MUT(s->depth = 4); /* longer than the record */
	MUT(s->depth = 2);
	MUT((s->depth = VS_STACK_MAX + 1, s->h.len = VS_REC_MAX));
	MUT(s->count = 0);
	MUT(s->event = VS_EVENT_NR);
	MUT(s->flags = 2);
	MUT(s->pc[2] |= 1);
	MUT(s->pc[0] |= 2);
#undef MUT
	/* The deepest record fills VS_REC_MAX exactly; truncation is a flag. */
	memset(b, 0, sizeof(b));
	*s = (struct vs_rec_stack){ { VS_REC_STACK, VS_REC_STACK_SIZE(VS_STACK_MAX) },
				    1,
				    1,
				    VS_EV_CYCLES,
				    VS_STK_TRUNCATED,
				    VS_STACK_MAX };
	assert_int_equal(vs_abi_check_record(b, sizeof(b), NULL), VS_REC_MAX);
}

static void test_vs_abi_task_record(void **state)
{
	struct vs_rec_task o = { { VS_REC_TASK, sizeof(o) }, 1000, 4194305, 0, "worker" }, b;

	(void)state;
	assert_int_equal(vs_abi_check_record(&o, sizeof(o), NULL), (int)sizeof(o));
	memcpy(o.comm, "fifteen-bytes-x", 16); /* the longest name */
	assert_int_equal(vs_abi_check_record(&o, sizeof(o), NULL), (int)sizeof(o));
#define MUT(stmt)                                           \
	do {                                                \
		b = o;                                      \
		stmt;                                       \
		expect_bad((const uint8_t *)&b, sizeof(b)); \
	} while (0)
	MUT(b.pid = 0);
	MUT(b.tid = 0);
	MUT(b.reserved = 1);
	MUT(memset(b.comm, 0, sizeof(b.comm))); /* empty */
	MUT(b.comm[15] = 'x'); /* no NUL */
	MUT((b.comm[2] = 0, b.comm[3] = 'y')); /* a byte after the NUL */
	MUT(b.h.len = 24);
#undef MUT
}

static void test_vs_abi_unknown_type_is_skippable(void **state)
{
	uint8_t b[64] = { 0 };

	(void)state;
	b[0] = 0x40; /* type 64 */
	b[2] = 16;
	assert_int_equal(vs_abi_check_record(b, sizeof(b), NULL), 16);
	b[2] = 12; /* but its length is still checked */
	expect_bad(b, sizeof(b));
	b[2] = 72;
	expect_bad(b, sizeof(b));
}

/*
 * Fuzz: damage a valid stream at random (bit flips, byte overwrites, truncation) and walk it as a
 * reader would. The checker must never read out of bounds (ASan) nor accept a record whose fields
 * break the documented rules (rechecked here independently for the fixed-size types).
 */
static void recheck(const uint8_t *p, int len)
{
	struct vs_rec_hdr h;

	memcpy(&h, p, sizeof(h));
	assert_int_equal(h.len, len);
	assert_true(len % 8 == 0 && len >= 8 && len <= (int)VS_REC_MAX);
	if (h.type == VS_REC_SAMPLE) {
		struct vs_rec_sample s;

		memcpy(&s, p, sizeof(s));
		assert_true(s.count && s.event < VS_EVENT_NR && !(s.pc & 3));
		assert_true(s.flags == VS_SF_USER || s.flags == VS_SF_KERNEL);
	} else if (h.type == VS_REC_CONFLICT) {
		struct vs_rec_conflict c;

		memcpy(&c, p, sizeof(c));
		assert_true(c.count && c.dist_min && (c.kind == 1 || c.kind == 2));
	} else if (h.type == VS_REC_HOTLIST) {
		struct vs_rec_hotlist r;
		struct hotlist hl;

		memcpy(&r, p, sizeof(r));
		assert_true(hotlist_unpack(&hl, p + sizeof(r), r.packed_len) == (int)r.packed_len);
		assert_true(hotlist_validate(&hl, NULL) == 0);
	}
}

static void test_vs_abi_fuzz_never_trusts_lengths(void **state)
{
	struct recs r = { 0 };
	uint64_t rs = 0x1234567;
	uint8_t *copy;
	uint32_t iter, accepted = 0, rejected = 0;

	(void)state;
	make_stream(&r);
	copy = malloc(r.len);
	assert_non_null(copy);
	for (iter = 0; iter < 6000; iter++) {
		size_t len = r.len, off = 0;
		uint32_t k, flips = 1 + (uint32_t)(trand(&rs) % 4);
		uint8_t *heap;

		memcpy(copy, r.data, r.len);
		for (k = 0; k < flips; k++) {
			size_t at = trand(&rs) % r.len;

			if (trand(&rs) % 2)
				copy[at] ^= (uint8_t)(1u << (trand(&rs) % 8));
			else
				copy[at] = (uint8_t)trand(&rs);
		}
		if (trand(&rs) % 4 == 0)
			len = trand(&rs) % r.len;
		/* An exact-size heap copy so ASan sees any read past the end. */
		heap = malloc(len ? len : 1);
		memcpy(heap, copy, len);
		while (off < len) {
			int n = vs_abi_check_record(heap + off, len - off, NULL);
			struct hotlist hh;

			/* the variant that keeps the hotlist accepts and rejects alike */
			assert_int_equal(
				vs_abi_check_record_hotlist(heap + off, len - off, &hh, NULL), n);
			if (n < 0) {
				rejected++;
				break; /* a reader stops at the first damaged record */
			}
			assert_true((size_t)n <= len - off);
			recheck(heap + off, n);
			accepted++;
			off += (size_t)n;
		}
		free(heap);
	}
	assert_true(rejected > 3000); /* most damage is caught somewhere */
	assert_true(accepted > 0);
	free(copy);
	recs_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_abi_defaults_are_valid),
		cmocka_unit_test(test_vs_abi_config_rejects_bad_fields),
		cmocka_unit_test(test_vs_abi_real_records_pass),
		cmocka_unit_test(test_vs_abi_check_record_hotlist_gives_the_list),
		cmocka_unit_test(test_vs_abi_damaged_records_rejected),
		cmocka_unit_test(test_vs_abi_stack_record),
		cmocka_unit_test(test_vs_abi_task_record),
		cmocka_unit_test(test_vs_abi_unknown_type_is_skippable),
		cmocka_unit_test(test_vs_abi_fuzz_never_trusts_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
