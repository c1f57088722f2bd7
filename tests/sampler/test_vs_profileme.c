/* tests/sampler/test_vs_profileme.c - PROFILEME mode: config, platform, records in and out. */
#include "vs_test.h"

/* A record as the EV6 glue would fill it (header left to vs_profileme). */
static struct vs_rec_profileme good(uint64_t pc, uint8_t status)
{
	struct vs_rec_profileme r;

	memset(&r, 0, sizeof(r));
	r.pid = 42;
	r.pc = pc;
	r.ea = 0x140000008ull;
	r.status = status;
	r.flags = VS_SF_USER;
	r.path = 0xabc;
	if (status == VS_PME_RETIRED) {
		r.lat[0] = 2;
		r.lat[1] = 1;
		r.lat[2] = 0;
		r.lat[3] = 13;
		r.lat[4] = 4;
		r.span = 20;
		r.retire_delay = 3;
		r.events = VS_PME_E_DMISS | VS_PME_E_BCMISS;
	} else {
		r.span = 9;
		r.events = status == VS_PME_AB_STLD ? VS_PME_E_LSO : 0;
	}
	return r;
}

static struct vs_cpu *pme_cpu(const struct vs_config *cfg, uint32_t caps, void **mem, int *err)
{
	struct vs_platform plat = { .cpu = 0, .implver = 2, .caps = caps };
	size_t size = vs_cpu_size(cfg);
	struct vs_cpu *cpu = NULL;

	assert_true(size > 0);
	*mem = aligned_alloc(64, (size + 63) & ~(size_t)63);
	assert_non_null(*mem);
	*err = vs_cpu_init(*mem, size, cfg, &plat, &cpu);
	return cpu;
}

static void test_pme_config(void **state)
{
	struct vs_config base, c;
	const char *why;

	(void)state;
	assert_int_equal(vs_config_default(&base, VS_MODE_PROFILEME), 0);
	assert_int_equal(vs_config_check(&base, NULL), 0);
	assert_int_equal(base.events, 0); /* ProfileMe alone */
	assert_int_equal(base.pme_period.lo, 60000);
	assert_int_equal(base.pme_period.hi, 64000);
	assert_int_equal(base.pme_window, 50);
#define BAD(stmt)                                                     \
	do {                                                          \
		c = base;                                             \
		stmt;                                                 \
		why = NULL;                                           \
		assert_int_equal(vs_config_check(&c, &why), -EINVAL); \
		assert_non_null(why);                                 \
	} while (0)
	BAD(c.pme_window = VS_PME_W_MAX + 1);
	BAD(c.pme_period.lo = 50 + VS_PME_GAP);
	BAD(c.pme_period.lo = 64001);
	BAD(c.pme_period.hi = c.pme_period.lo + VS_PERIOD_SPREAD_MAX);
	BAD(c.gather = 1u << VS_GATHER_NR); /* was: reserved (proc_entries since ABI 3) */
	BAD(c.events = 1u << 9);
#undef BAD
	c = base;
	c.pme_window = 0; /* no pairs */
	c.pme_period.lo = c.pme_period.hi = VS_PME_GAP + 1;
	assert_int_equal(vs_config_check(&c, NULL), 0);
	/* other modes do not look at the ProfileMe fields */
	vs_config_default(&c, VS_MODE_CYCLES);
	c.pme_period.lo = 0;
	c.pme_window = 5000;
	assert_int_equal(vs_config_check(&c, NULL), 0);
	c.events = 0;
	assert_int_equal(vs_config_check(&c, NULL), -EINVAL);
}

/* A platform that cannot deliver ProfileMe records refuses the mode (the Linux glue today). */
static void test_pme_needs_the_platform(void **state)
{
	struct vs_config c;
	void *mem;
	int err;

	(void)state;
	vs_config_default(&c, VS_MODE_PROFILEME);
	pme_cpu(&c, 0, &mem, &err);
	assert_int_equal(err, -EOPNOTSUPP);
	free(mem);
	pme_cpu(&c, VS_CAP_PROFILEME, &mem, &err);
	assert_int_equal(err, 0);
	free(mem);
}

/* Records go through the sample buffers unchanged, in order, each one valid. */
static void test_pme_records_round_trip(void **state)
{
	struct vs_config c;
	struct recs out = { 0 };
	struct vs_rec_profileme in[3], b;
	const struct vs_rec_hdr *h;
	struct vs_cpu *cpu;
	unsigned int i = 0;
	bool wake;
	void *mem;
	int err;

	(void)state;
	vs_config_default(&c, VS_MODE_PROFILEME);
	cpu = pme_cpu(&c, VS_CAP_PROFILEME, &mem, &err);
	assert_int_equal(err, 0);
	in[0] = good(0x120000010ull, VS_PME_RETIRED);
	in[0].pair = 1;
	in[1] = good(0x120000040ull, VS_PME_AB_MISPREDICT);
	in[1].pair = 2;
	in[1].pair_dist = 17;
	in[1].pair_lat = -3;
	in[2] = good(0x120000044ull, VS_PME_AB_STLD);
	for (i = 0; i < 3; i++)
		assert_int_equal(vs_profileme(cpu, &in[i], &wake), 0);
	/* refused: a bad record, counted, nothing written */
	b = good(0x120000046ull, VS_PME_RETIRED);
	assert_int_equal(vs_profileme(cpu, &b, &wake), -EINVAL);
	b = good(0x120000048ull, VS_PME_NR);
	assert_int_equal(vs_profileme(cpu, &b, &wake), -EINVAL);
	assert_int_equal(cpu->st.drops[VS_DROP_PME_BAD], 2);
	assert_int_equal(cpu->st.records[VS_REC_PROFILEME], 3);
	drain_cpu(cpu, &out);
	assert_int_equal(recs_check(&out), 3);
	i = 0;
	for (h = NULL; (h = recs_next(&out, h)); i++) {
		assert_int_equal(h->type, VS_REC_PROFILEME);
		assert_int_equal(h->len, sizeof(struct vs_rec_profileme));
		memcpy(&b, h, sizeof(b));
		assert_memory_equal((uint8_t *)&b + 4, (uint8_t *)&in[i] + 4, sizeof(b) - 4);
	}
	recs_free(&out);
	free(mem);
	/* another mode's sampler takes none */
	vs_config_default(&c, VS_MODE_CYCLES);
	cpu = pme_cpu(&c, VS_CAP_PROFILEME, &mem, &err);
	assert_int_equal(err, 0);
	assert_int_equal(vs_profileme(cpu, &in[0], &wake), -EINVAL);
	free(mem);
}

/* Both buffers full: the record is dropped and counted, the reader is woken. */
static void test_pme_buffers_full(void **state)
{
	struct vs_config c;
	struct vs_rec_profileme r = good(0x120000010ull, VS_PME_RETIRED);
	struct vs_cpu *cpu;
	unsigned int n, woken = 0;
	bool wake;
	void *mem;
	int err = 0;

	(void)state;
	vs_config_default(&c, VS_MODE_PROFILEME);
	c.buf_bytes = VS_BUF_MIN;
	cpu = pme_cpu(&c, VS_CAP_PROFILEME, &mem, &err);
	assert_int_equal(err, 0);
	for (n = 0; n < 100; n++) {
		err = vs_profileme(cpu, &r, &wake);
		woken += wake;
		if (err)
			break;
	}
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(n, 2 * (VS_BUF_MIN / sizeof(r)));
	assert_int_equal(woken, 1);
	assert_int_equal(cpu->st.drops[VS_DROP_PME_BUF], 1);
	free(mem);
}

/* The record check: each documented rule. */
static void test_pme_record_check(void **state)
{
	struct vs_rec_profileme r, b;
	const char *why;

	(void)state;
	r = good(0x120000010ull, VS_PME_RETIRED);
	r.h.type = VS_REC_PROFILEME;
	r.h.len = sizeof(r);
	assert_int_equal(vs_abi_check_record(&r, sizeof(r), NULL), (int)sizeof(r));
#define BAD(stmt)                                                                     \
	do {                                                                          \
		b = r;                                                                \
		stmt;                                                                 \
		why = NULL;                                                           \
		assert_int_equal(vs_abi_check_record(&b, sizeof(b), &why), -EBADMSG); \
		assert_non_null(why);                                                 \
	} while (0)
	BAD(b.h.len = 72);
	BAD(b.pc |= 2);
	BAD(b.status = VS_PME_NR);
	BAD(b.events |= 0x100);
	BAD(b.events = VS_PME_E_BCMISS);
	BAD(b.path = 0x1000);
	BAD(b.flags = VS_SF_USER | VS_SF_KERNEL);
	BAD(b.reserved[6] = 1);
	BAD(b.pair = 3);
	BAD(b.pair_dist = 4); /* not the second of a pair */
	BAD(b.pair_lat = 4);
	BAD((b.pair = 2, b.pair_dist = 0));
	BAD((b.pair = 2, b.pair_dist = VS_PME_W_MAX + 1));
	BAD(b.span = 19); /* retired: the latencies sum to the span */
	BAD((b.status = VS_PME_AB_TRAP)); /* aborted with latencies */
#undef BAD
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pme_config),
		cmocka_unit_test(test_pme_needs_the_platform),
		cmocka_unit_test(test_pme_records_round_trip),
		cmocka_unit_test(test_pme_buffers_full),
		cmocka_unit_test(test_pme_record_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
