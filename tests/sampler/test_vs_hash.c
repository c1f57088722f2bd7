/* tests/sampler/test_vs_hash.c - the sample hash: hits, mod-4 eviction, saturation, exact sums. */
#include "vs_test.h"

#define NB 4 /* buckets in the small tables */

struct small {
	struct vs_hash h;
	struct vs_buf b;
	struct vs_stats st;
	void *mem;
	uint8_t b0[65536], b1[65536];
};

static struct small *small_new(uint32_t nbuckets, uint32_t bufsize)
{
	struct small *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->mem = aligned_alloc(64, vs_hash_mem_size(nbuckets));
	assert_non_null(s->mem);
	assert_int_equal(vs_buf_init(&s->b, s->b0, s->b1, bufsize, &s->st, 0), 0);
	assert_int_equal(vs_hash_init(&s->h, s->mem, nbuckets, &s->b, &s->st), 0);
	return s;
}

static void small_free(struct small *s)
{
	free(s->mem);
	free(s);
}

/* Which bucket does (pid, pc, event 0, user) land in? Found by inserting into a scratch table. */
static int bucket_of(uint32_t pid, uint64_t pc)
{
	struct small *s = small_new(NB, 4096);
	int i, j, found = -1;

	vs_hash_sample(&s->h, pid, pc, 0, true);
	for (i = 0; i < NB; i++)
		for (j = 0; j < VS_HASH_WAYS; j++)
			if (s->h.bucket[i].e[j].word)
				found = i;
	small_free(s);
	return found;
}

/* n pcs (from 0x1000 up) that share bucket `want`. */
static void colliding(int want, uint64_t *pcs, int n)
{
	uint64_t pc = 0x1000;
	int k = 0;

	while (k < n) {
		if (bucket_of(7, pc) == want)
			pcs[k++] = pc;
		pc += 4;
	}
}

static const struct vs_rec_sample *nth_sample(const struct recs *r, int n)
{
	const struct vs_rec_hdr *p = NULL;

	while ((p = recs_next(r, p)))
		if (p->type == VS_REC_SAMPLE && n-- == 0)
			return (const struct vs_rec_sample *)p;
	return NULL;
}

static void test_vs_hash_entry_is_16_bytes_bucket_64(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct vs_hash_entry), 16);
	assert_int_equal(sizeof(struct vs_hash_bucket), 64);
	assert_int_equal(_Alignof(struct vs_hash_bucket), 64);
}

static void test_vs_hash_hit_increments(void **state)
{
	struct small *s = small_new(NB, 4096);
	struct recs r = { 0 };
	const struct vs_rec_sample *rec;
	int i;

	(void)state;
	assert_int_equal(vs_hash_sample(&s->h, 7, 0x1000, 2, true), VS_HASH_NEW);
	for (i = 0; i < 9; i++)
		assert_int_equal(vs_hash_sample(&s->h, 7, 0x1000, 2, true), VS_HASH_HIT);
	/* Same pc, different pid / event / mode: distinct keys. */
	assert_int_equal(vs_hash_sample(&s->h, 8, 0x1000, 2, true), VS_HASH_NEW);
	assert_int_equal(vs_hash_sample(&s->h, 7, 0x1000, 3, true), VS_HASH_NEW);
	assert_int_equal(vs_hash_sample(&s->h, 7, 0x1000, 2, false), VS_HASH_NEW);
	assert_int_equal(s->st.hash_hits, 9);
	assert_int_equal(s->st.hash_misses, 4);
	assert_int_equal(vs_hash_used(&s->h), 4);
	assert_int_equal(vs_hash_flush(&s->h), 0);
	assert_int_equal(vs_hash_used(&s->h), 0);
	drain_buf(&s->b, &r, 4096);
	assert_int_equal(recs_check(&r), 4);
	for (i = 0; i < 4; i++) {
		rec = nth_sample(&r, i);
		if (rec->pid == 7 && rec->event == 2 && rec->flags == VS_SF_USER) {
			assert_int_equal(rec->count, 10);
			assert_int_equal(rec->pc, 0x1000);
		} else {
			assert_int_equal(rec->count, 1);
		}
		if (rec->flags == VS_SF_KERNEL)
			assert_int_equal(rec->event, 2);
	}
	recs_free(&r);
	small_free(s);
}

static void test_vs_hash_evicts_mod4_in_order(void **state)
{
	struct small *s = small_new(NB, 4096);
	struct recs r = { 0 };
	uint64_t pcs[9];
	int i;

	(void)state;
	colliding(1, pcs, 9);
	for (i = 0; i < 4; i++)
		assert_int_equal(vs_hash_sample(&s->h, 7, pcs[i], 0, true), VS_HASH_NEW);
	/* Ways 0..3 hold pcs 0..3; the counter picks way 0, 1, 2, 3, 0, ... on each eviction. */
	for (i = 4; i < 9; i++)
		assert_int_equal(vs_hash_sample(&s->h, 7, pcs[i], 0, true), VS_HASH_EVICT);
	assert_int_equal(s->st.hash_evictions, 5);
	assert_int_equal(vs_buf_swap(&s->b), 5 * sizeof(struct vs_rec_sample));
	drain_buf(&s->b, &r, 4096);
	assert_int_equal(recs_check(&r), 5);
	assert_int_equal(nth_sample(&r, 0)->pc, pcs[0]);
	assert_int_equal(nth_sample(&r, 1)->pc, pcs[1]);
	assert_int_equal(nth_sample(&r, 2)->pc, pcs[2]);
	assert_int_equal(nth_sample(&r, 3)->pc, pcs[3]);
	assert_int_equal(nth_sample(&r, 4)->pc, pcs[4]); /* way 0 again: pcs[4] replaced pcs[0] */
	assert_int_equal(s->h.bucket[1].e[0].pc, pcs[8]);
	assert_int_equal(s->h.bucket[1].e[1].pc, pcs[5]);
	recs_free(&r);
	small_free(s);
}

static void test_vs_hash_counter_is_per_table(void **state)
{
	struct small *s = small_new(NB, 4096);
	uint64_t a[5], b[5];
	int i;

	(void)state;
	colliding(0, a, 5);
	colliding(2, b, 5);
	for (i = 0; i < 4; i++) {
		vs_hash_sample(&s->h, 7, a[i], 0, true);
		vs_hash_sample(&s->h, 7, b[i], 0, true);
	}
	assert_int_equal(vs_hash_sample(&s->h, 7, a[4], 0, true), VS_HASH_EVICT); /* way 0 */
	assert_int_equal(vs_hash_sample(&s->h, 7, b[4], 0, true), VS_HASH_EVICT); /* way 1 */
	assert_int_equal(s->h.bucket[0].e[0].pc, a[4]);
	assert_int_equal(s->h.bucket[2].e[1].pc, b[4]);
	assert_int_equal(s->h.bucket[2].e[0].pc, b[0]);
	small_free(s);
}

static void test_vs_hash_saturating_count_is_evicted(void **state)
{
	struct small *s = small_new(NB, 4096);
	struct recs r = { 0 };
	int i, ret;

	(void)state;
	s->h.count_max = 10;
	for (i = 0; i < 25; i++) {
		ret = vs_hash_sample(&s->h, 3, 0x2000, 1, false);
		assert_int_equal(ret, i == 9 || i == 19		   ? VS_HASH_SATURATED :
				      i == 0 || i == 10 || i == 20 ? VS_HASH_NEW :
								     VS_HASH_HIT);
	}
	assert_int_equal(s->st.hash_saturations, 2);
	assert_int_equal(vs_hash_flush(&s->h), 0);
	drain_buf(&s->b, &r, 4096);
	assert_int_equal(recs_check(&r), 3);
	assert_int_equal(nth_sample(&r, 0)->count, 10);
	assert_int_equal(nth_sample(&r, 1)->count, 10);
	assert_int_equal(nth_sample(&r, 2)->count, 5);
	assert_int_equal(nth_sample(&r, 2)->flags, VS_SF_KERNEL);
	recs_free(&r);
	small_free(s);
}

/* At the real maximum (2^24 - 1) the count never wraps into the event bits. */
static void test_vs_hash_full_count_never_wraps(void **state)
{
	struct small *s = small_new(NB, 4096);
	struct recs r = { 0 };
	uint32_t i, n = VS_HASH_COUNT_MASK + 5;

	(void)state;
	for (i = 0; i < n; i++)
		vs_hash_sample(&s->h, 1, 0x4000, 5, true);
	assert_int_equal(s->st.hash_saturations, 1);
	assert_int_equal(vs_hash_flush(&s->h), 0);
	drain_buf(&s->b, &r, 4096);
	assert_int_equal(recs_check(&r), 2);
	assert_int_equal(nth_sample(&r, 0)->count, VS_HASH_COUNT_MASK);
	assert_int_equal(nth_sample(&r, 0)->event, 5);
	assert_int_equal(nth_sample(&r, 1)->count, 5);
	recs_free(&r);
	small_free(s);
}

/* With no room anywhere the new sample is dropped; the table keeps its aggregated entries. */
static void test_vs_hash_full_buffers_drop_the_new_sample(void **state)
{
	struct small *s = small_new(NB, VS_BUF_MIN);
	uint64_t pcs[200];
	uint32_t before;
	int i, ok = 0, dropped = 0;

	(void)state;
	colliding(3, pcs, 200);
	for (i = 0; i < 200; i++) {
		int ret = vs_hash_sample(&s->h, 7, pcs[i], 0, true);

		if (ret == -ENOSPC)
			dropped++;
		else
			ok++;
	}
	/* 4 entries stay, two buffers of VS_BUF_MIN / 24 records each were written. */
	assert_int_equal(ok, 4 + 2 * (VS_BUF_MIN / sizeof(struct vs_rec_sample)));
	assert_int_equal(dropped, s->st.drops[VS_DROP_SAMPLE_BUF]);
	before = vs_hash_used(&s->h);
	assert_int_equal(before, 4);
	/* A hit still counts without any room. */
	assert_int_equal(vs_hash_sample(&s->h, 7, s->h.bucket[3].e[2].pc, 0, true), VS_HASH_HIT);
	assert_int_equal(vs_hash_flush(&s->h), -ENOSPC);
	assert_int_equal(vs_hash_used(&s->h), 4);
	small_free(s);
}

/*
 * Aggregation is exact: a random stream through a small table with frequent drains gives back,
 * per key, exactly the number of samples taken; with no drains, what is missing is exactly what
 * the drop counter says.
 */
#define KPID 5
#define KPC 700
#define KEV 3
#define KEYS (KPID * KPC * KEV * 2)

static uint32_t key_index(uint32_t pid, uint64_t pc, unsigned int ev, bool user)
{
	return (((pid - 1) * KPC + (uint32_t)((pc - 0x120000000ULL) / 4)) * KEV + ev) * 2 + user;
}

static void stream(bool drain_often, uint32_t n, uint32_t buf_bytes)
{
	struct vs_config cfg;
	struct vs_decision dec;
	struct recs r = { 0 };
	uint32_t *want = calloc(KEYS, 4), *got = calloc(KEYS, 4);
	uint64_t rs = 0x9e3779b97f4a7c15ULL, total = 0, lost;
	const struct vs_rec_hdr *p = NULL;
	struct vs_cpu *cpu;
	void *mem;
	uint32_t i;

	assert_non_null(want);
	assert_non_null(got);
	vs_config_default(&cfg, VS_MODE_CYCLES);
	cfg.hash_buckets = 16;
	cfg.buf_bytes = buf_bytes;
	cpu = cpu_new(&cfg, 0, &mem);
	for (i = 0; i < n; i++) {
		uint64_t x = trand(&rs);
		uint32_t pid = 1 + (uint32_t)(x % KPID);
		/* skewed pcs: a hot few and a long tail */
		uint32_t slot =
			(x >> 8) % 4 ? (uint32_t)((x >> 16) % 8) : (uint32_t)((x >> 16) % KPC);
		uint64_t pc = 0x120000000ULL + 4 * slot;
		unsigned int ev = (unsigned int)((x >> 40) % KEV);
		bool user = (x >> 50) & 1;

		want[key_index(pid, pc, ev, user)]++;
		vs_sample(cpu, pid, pc, ev, user, &dec);
		assert_true(dec.period >= 60000 && dec.period <= 64000);
		if (drain_often && (dec.wake || i % 1000 == 0))
			drain_cpu(cpu, &r);
	}
	drain_cpu(cpu, &r);
	recs_check(&r);
	while ((p = recs_next(&r, p))) {
		const struct vs_rec_sample *s = (const void *)p;

		assert_int_equal(p->type, VS_REC_SAMPLE);
		got[key_index(s->pid, s->pc, s->event, s->flags == VS_SF_USER)] += s->count;
		total += s->count;
	}
	lost = cpu->st.drops[VS_DROP_SAMPLE_BUF];
	assert_int_equal(total + lost, n);
	for (i = 0; i < KEYS; i++)
		assert_true(got[i] <= want[i]);
	if (drain_often) {
		assert_int_equal(lost, 0);
		for (i = 0; i < KEYS; i++)
			assert_int_equal(got[i], want[i]);
		assert_true(cpu->st.hash_evictions > 1000); /* the table really was too small */
	} else {
		assert_true(lost > 0);
	}
	assert_int_equal(cpu->st.samples, n);
	assert_int_equal(cpu->st.samples_user + cpu->st.samples_kernel, n);
	recs_free(&r);
	free(want);
	free(got);
	free(mem);
}

static void test_vs_hash_aggregation_is_exact(void **state)
{
	(void)state;
	stream(true, 200000, 4096);
}

static void test_vs_hash_losses_equal_drop_counter(void **state)
{
	(void)state;
	stream(false, 200000, VS_BUF_MIN);
}

static void test_vs_hash_flush_resumes(void **state)
{
	struct small *s = small_new(64, VS_BUF_MIN);
	struct recs r = { 0 };
	uint64_t total = 0;
	const struct vs_rec_hdr *p = NULL;
	uint32_t i;
	int err, rounds = 0;

	(void)state;
	for (i = 0; i < 256; i++) /* fills most of the 256 entries */
		vs_hash_sample(&s->h, 1, 0x8000 + 4 * (i % 200), 0, true);
	assert_true(vs_hash_used(&s->h) > 100);
	do {
		err = vs_hash_flush(&s->h);
		assert_true(err == 0 || err == -ENOSPC);
		drain_buf(&s->b, &r, 1000);
		rounds++;
	} while (err);
	assert_true(rounds > 1); /* 2 x 1 KB buffers cannot take it at once */
	assert_int_equal(vs_hash_used(&s->h), 0);
	while ((p = recs_next(&r, p)))
		total += ((const struct vs_rec_sample *)p)->count;
	assert_int_equal(total, 256 - s->st.drops[VS_DROP_SAMPLE_BUF]);
	recs_free(&r);
	small_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_hash_entry_is_16_bytes_bucket_64),
		cmocka_unit_test(test_vs_hash_hit_increments),
		cmocka_unit_test(test_vs_hash_evicts_mod4_in_order),
		cmocka_unit_test(test_vs_hash_counter_is_per_table),
		cmocka_unit_test(test_vs_hash_saturating_count_is_evicted),
		cmocka_unit_test(test_vs_hash_full_count_never_wraps),
		cmocka_unit_test(test_vs_hash_full_buffers_drop_the_new_sample),
		cmocka_unit_test(test_vs_hash_aggregation_is_exact),
		cmocka_unit_test(test_vs_hash_losses_equal_drop_counter),
		cmocka_unit_test(test_vs_hash_flush_resumes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
