/* tests/sampler/test_vs_buf.c - the overflow buffer pair: swap protocol, whole-record drains. */
#include "vs_test.h"

#define SZ 1024

struct pair {
	struct vs_buf b;
	struct vs_stats st;
	uint8_t m0[SZ], m1[SZ];
};

static void pair_init(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	assert_int_equal(vs_buf_init(&p->b, p->m0, p->m1, SZ, &p->st, 0), 0);
}

/* Append a vcount record (24 bytes) whose pc carries a sequence number. */
static bool put(struct pair *p, uint64_t seq)
{
	struct vs_rec_vcount *r = vs_buf_reserve(&p->b, VS_REC_VCOUNT, sizeof(*r));

	if (!r)
		return false;
	r->pid = 1;
	r->pc = seq * 4;
	r->count = 1;
	r->reserved = 0;
	return true;
}

/* Append an unknown-type record of len bytes (a later version's type), tagged with seq. */
static bool put_len(struct pair *p, uint32_t len, uint32_t seq)
{
	uint8_t *r = vs_buf_reserve(&p->b, 100, len);

	if (!r)
		return false;
	memset(r + 4, 0, len - 4);
	memcpy(r + 4, &seq, 4);
	return true;
}

static void test_vs_buf_init_rejects_bad_sizes(void **state)
{
	struct pair p;

	(void)state;
	assert_int_equal(vs_buf_init(&p.b, p.m0, p.m1, VS_BUF_MIN - 8, &p.st, 0), -EINVAL);
	assert_int_equal(vs_buf_init(&p.b, p.m0, p.m1, SZ - 4, &p.st, 0), -EINVAL);
	assert_int_equal(vs_buf_init(&p.b, NULL, p.m1, SZ, &p.st, 0), -EINVAL);
}

static void test_vs_buf_swap_protocol(void **state)
{
	struct pair p;
	uint8_t out[SZ];
	size_t rem, n;
	const uint32_t per = SZ / 24; /* 42 records per buffer */
	uint32_t i, seq = 0;

	(void)state;
	pair_init(&p);
	assert_int_equal(vs_buf_swap(&p.b), 0); /* nothing to drain yet */
	assert_int_equal(vs_drain(&p.b, out, sizeof(out), &rem), 0);
	assert_int_equal(rem, 0);
	for (i = 0; i < per; i++)
		assert_true(put(&p, seq++));
	assert_int_equal(p.b.active, 0);
	assert_false(p.b.wake);
	/* The next record does not fit: the producer hands buffer 0 over and moves to 1. */
	assert_true(put(&p, seq++));
	assert_int_equal(p.b.active, 1);
	assert_int_equal(p.b.state[0], VS_BUF_READY);
	assert_true(p.b.wake);
	assert_int_equal(p.st.buf_swaps[0], 1);
	for (i = 1; i < per; i++)
		assert_true(put(&p, seq++));
	/* Both full, the consumer has not drained: refused, nothing changes. */
	assert_false(put(&p, 999));
	assert_int_equal(p.b.fill[1], per * 24);
	/* Consumer: takes buffer 0 (the producer's swap), drains it whole. */
	assert_int_equal(vs_buf_swap(&p.b), per * 24);
	assert_int_equal(p.b.draining, 0);
	n = vs_drain(&p.b, out, sizeof(out), &rem);
	assert_int_equal(n, per * 24);
	assert_int_equal(rem, 0);
	assert_int_equal(((struct vs_rec_vcount *)out)->pc, 0);
	assert_int_equal(((struct vs_rec_vcount *)(out + n - 24))->pc, (per - 1) * 4);
	/* Buffer 0 is not EMPTY until the next swap: the producer still cannot use it. */
	assert_false(put(&p, 999));
	/* Swap: retire 0, hand over 1, the producer starts on 0 again. */
	assert_int_equal(vs_buf_swap(&p.b), per * 24);
	assert_int_equal(p.b.draining, 1);
	assert_int_equal(p.b.active, 0);
	assert_int_equal(p.b.fill[0], 0);
	assert_true(put(&p, seq));
	n = vs_drain(&p.b, out, sizeof(out), &rem);
	assert_int_equal(n, per * 24);
	assert_int_equal(((struct vs_rec_vcount *)out)->pc, per * 4);
	assert_int_equal(vs_buf_swap(&p.b), 24); /* the one record in buffer 0 */
	n = vs_drain(&p.b, out, sizeof(out), &rem);
	assert_int_equal(n, 24);
	assert_int_equal(((struct vs_rec_vcount *)out)->pc, seq * 4);
	assert_int_equal(vs_buf_swap(&p.b), 0);
	assert_int_equal(p.st.records[VS_REC_VCOUNT], 2 * per + 1);
}

/* Records of mixed lengths, drained through chunks of every size: whole records only, in order. */
static void test_vs_buf_drain_never_splits(void **state)
{
	struct pair p;
	uint8_t out[SZ];
	uint32_t seq = 0, expect = 0, chunk;
	uint64_t rs = 12345;

	(void)state;
	for (chunk = 1; chunk <= 600; chunk += 7) {
		size_t rem, n;
		int stalls = 0;

		pair_init(&p);
		seq = expect = 0;
		for (;;) {
			uint32_t len = 8 * (1 + (uint32_t)(trand(&rs) % 55)); /* 8 .. 440 */

			if (!put_len(&p, len, seq))
				break;
			seq++;
		}
		while (vs_buf_swap(&p.b)) {
			do {
				size_t off = 0;

				n = vs_drain(&p.b, out, chunk, &rem);
				assert_true(n <= chunk);
				/* Walk what came out: whole records, consecutive sequence numbers. */
				while (off < n) {
					uint16_t rl;
					uint32_t s;

					memcpy(&rl, out + off + 2, 2);
					memcpy(&s, out + off + 4, 4);
					assert_true(rl >= 8 && off + rl <= n);
					assert_int_equal(s, expect);
					expect++;
					off += rl;
				}
				assert_int_equal(off, n);
				if (!n && rem)
					stalls++; /* chunk smaller than the next record */
			} while (n);
			if (rem)
				break;
		}
		if (chunk >= VS_REC_MAX) {
			assert_int_equal(expect, seq);
		} else if (expect < seq) {
			assert_true(stalls > 0);
		}
	}
}

/* A drain that stops part-way resumes at the next whole record. */
static void test_vs_buf_partial_drain_resumes(void **state)
{
	struct pair p;
	uint8_t out[SZ];
	size_t rem, n, total = 0;
	uint32_t i;

	(void)state;
	pair_init(&p);
	for (i = 0; i < 10; i++)
		assert_true(put(&p, i));
	assert_int_equal(vs_buf_swap(&p.b), 240);
	n = vs_drain(&p.b, out, 50, &rem); /* two records */
	assert_int_equal(n, 48);
	assert_int_equal(rem, 192);
	total += n;
	n = vs_drain(&p.b, out, 23, &rem); /* smaller than a record */
	assert_int_equal(n, 0);
	assert_int_equal(rem, 192);
	/* Not fully drained: the swap keeps the same buffer and reports what remains. */
	assert_int_equal(vs_buf_swap(&p.b), 192);
	n = vs_drain(&p.b, out, sizeof(out), &rem);
	assert_int_equal(((struct vs_rec_vcount *)out)->pc, 2 * 4);
	total += n;
	assert_int_equal(total, 240);
	assert_int_equal(rem, 0);
}

/* Producer and consumer interleaved at random: every record comes out once, in order. */
static void test_vs_buf_interleaved_no_loss_no_dup(void **state)
{
	struct pair p;
	uint8_t out[SZ];
	uint64_t rs = 777, seq = 0, expect = 0, refused = 0;
	uint32_t step;

	(void)state;
	pair_init(&p);
	for (step = 0; step < 200000; step++) {
		uint64_t x = trand(&rs) % 100;

		if (x < 90) {
			if (put(&p, seq))
				seq++;
			else
				refused++;
		} else if (x < 95) {
			vs_buf_swap(&p.b);
		} else {
			size_t rem, n = vs_drain(&p.b, out, 24 * (1 + x % 7), &rem), off;

			for (off = 0; off < n; off += 24)
				assert_int_equal(((struct vs_rec_vcount *)(out + off))->pc,
						 4 * expect++);
		}
	}
	while (vs_buf_swap(&p.b)) {
		size_t rem, n = vs_drain(&p.b, out, sizeof(out), &rem), off;

		for (off = 0; off < n; off += 24)
			assert_int_equal(((struct vs_rec_vcount *)(out + off))->pc, 4 * expect++);
	}
	assert_int_equal(expect, seq);
	assert_true(refused > 0); /* the test did exercise the full case */
	assert_int_equal(p.st.records[VS_REC_VCOUNT], seq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_buf_init_rejects_bad_sizes),
		cmocka_unit_test(test_vs_buf_swap_protocol),
		cmocka_unit_test(test_vs_buf_drain_never_splits),
		cmocka_unit_test(test_vs_buf_partial_drain_resumes),
		cmocka_unit_test(test_vs_buf_interleaved_no_loss_no_dup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
