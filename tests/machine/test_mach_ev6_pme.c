/* tests/machine/test_mach_ev6_pme.c - EV6 ProfileMe: selection over fetched, pairs, records. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "test_mach_ev6_util.h"

#define CODE 0x120000000ull /* code base: 64-byte aligned */
#define DATA 0x140000000ull /* data base */
#define BR_PC (CODE + 44) /* the coin-flip branch of the loop */
#define BR_TGT (CODE + 64)

struct recs {
	struct mach_pme *r;
	size_t n, cap;
};

static void drain(struct mach_ev6 *m, struct recs *rs)
{
	struct mach_pme r;

	while (mach_ev6_pme_take(m, &r)) {
		if (rs->n == rs->cap) {
			rs->cap = rs->cap ? 2 * rs->cap : 1024;
			rs->r = realloc(rs->r, rs->cap * sizeof(*rs->r));
			assert_non_null(rs->r);
		}
		rs->r[rs->n++] = r;
	}
}

static void put(struct mach_ev6 *m, struct recs *rs, uint32_t w, uint64_t pc, uint64_t next,
		uint64_t ea)
{
	feed6(m, w, pc, next, ea);
	drain(m, rs);
}

/*
 * One iteration of a loop with a bit of everything: a load walking 1 MB (D-cache misses), a
 * store-load conflict (replays until stWait learns), a multiply, a branch that flips a coin
 * (mispredicts about half the time: bad-path fetches) and the jump back.
 */
static void iter(struct mach_ev6 *m, struct recs *rs, uint64_t i, uint64_t *lcg)
{
	bool taken;

	*lcg = *lcg * 6364136223846793005ull + 1442695040888963407ull;
	taken = (*lcg >> 40) & 1;
	put(m, rs, LDQ(5, 0, 6), CODE, CODE + 4, DATA + (i * 64) % (1u << 20));
	put(m, rs, MULQ(1, 2, 3), CODE + 4, CODE + 8, 0);
	put(m, rs, STQ(3, 0, 4), CODE + 8, CODE + 12, DATA + (2u << 20));
	put(m, rs, ADDQ(1, 2, 7), CODE + 12, CODE + 16, 0);
	put(m, rs, LDQ(8, 0, 9), CODE + 16, CODE + 20, DATA + (2u << 20));
	for (unsigned int k = 20; k < 44; k += 4)
		put(m, rs, ADDQ(7, 8, 10 + k / 4), CODE + k, CODE + k + 4, 0);
	put(m, rs, BNE(1, 4), BR_PC, taken ? BR_TGT : BR_PC + 4, 0);
	if (!taken)
		for (unsigned int k = 48; k < 64; k += 4)
			put(m, rs, ADDQ(1, 2, 20), CODE + k, CODE + k + 4, 0);
	put(m, rs, BR(-17), BR_TGT, CODE, 0);
}

static struct mach_ev6 *run(struct recs *rs, uint32_t lo, uint32_t hi, uint32_t w, uint64_t iters)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct mach_pme_cfg c = { .lo = lo, .hi = hi, .window = w, .seed = 7 };
	uint64_t lcg = 1;

	assert_non_null(m);
	assert_int_equal(mach_ev6_pme_config(m, &c), 0);
	for (uint64_t i = 0; i < iters; i++)
		iter(m, rs, i, &lcg);
	return m;
}

/* [PM §4.1]: a sample is uniform over every fetched instruction, the bad path included: the
 * share of each kind of fetch among the samples matches its share among the fetches, and the
 * retire count per PC estimated as samples x mean interval matches the truth. */
static void test_pme_uniform_over_fetched(void **state)
{
	struct recs rs = { 0 };
	struct mach_ev6 *m = run(&rs, 300, 700, 0, 30000);
	uint64_t st[MACH_PME_NR] = { 0 }, retired_at[16] = { 0 }, fetched = m->fetched;
	double mean = 500.0, n = (double)rs.n, p, sd;

	(void)state;
	assert_int_equal(m->pme_n, fetched); /* every fetch went through the counter */
	assert_int_equal(m->pme_dropped, 0);
	/* the count of samples: fetched / mean interval, to the spread of the intervals */
	assert_true(fabs(n - (double)fetched / mean) < 0.02 * (double)fetched / mean + 3);
	for (size_t i = 0; i < rs.n; i++) {
		const struct mach_pme *r = &rs.r[i];

		assert_true(r->status < MACH_PME_NR);
		assert_int_equal(r->pair, 0);
		st[r->status]++;
		if (r->status == MACH_PME_AB_MISPREDICT) {
			/* the bad path starts at the direction not taken */
			assert_true((r->pc >= BR_PC + 4 && r->pc < BR_PC + 4 + 4 * 80) ||
				    (r->pc >= BR_TGT && r->pc < BR_TGT + 4 * 80));
			assert_int_equal(r->events, 0);
		}
		if (r->status == MACH_PME_RETIRED) {
			uint32_t sum = 0;

			for (int l = 0; l < MACH_PME_L_NR; l++)
				sum += r->lat[l];
			assert_int_equal(sum, r->span);
			assert_true(r->lat[MACH_PME_L_FETCH_MAP] >= 2);
			assert_true(r->lat[MACH_PME_L_MAP_DATA] >= 1);
			assert_true(r->lat[MACH_PME_L_READY_RETIRE] >= 1);
			if (r->pc >= CODE && r->pc < CODE + 64)
				retired_at[(r->pc - CODE) / 4]++;
		}
	}
	/* the bad-path share: binomial, 4 standard deviations */
	assert_true(m->badpath > fetched / 20);
	p = (double)m->badpath / (double)fetched;
	sd = sqrt(n * p * (1 - p));
	assert_true(fabs((double)st[MACH_PME_AB_MISPREDICT] - n * p) < 4 * sd);
	p = (double)(fetched - m->aborted) / (double)fetched;
	sd = sqrt(n * p * (1 - p));
	assert_true(fabs((double)st[MACH_PME_RETIRED] - n * p) < 4 * sd);
	assert_true(st[MACH_PME_AB_STLD] + st[MACH_PME_AB_TRAP] > 0 ||
		    m->replays[EV6_RP_STLD] < 50);
	/* estimated executions of each loop instruction: within 4 sd of the truth */
	for (unsigned int k = 0; k < 16; k++) {
		struct ev6_trec t = trec6(m, CODE + 4 * k);
		double want = (double)t.c[EV6_TC_RETIRE], got = (double)retired_at[k] * mean;

		if (!want)
			continue;
		p = want / (double)fetched;
		sd = sqrt(n * p * (1 - p)) * mean;
		assert_true(fabs(got - want) < 4 * sd + mean);
	}
	free(rs.r);
	mach_ev6_free(m);
}

/* lo = hi = N: the N-th fetch is sampled, and its record is that instruction's trip. */
static void test_pme_record_fields(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct mach_pme_cfg c = { .lo = 400, .hi = 400, .window = 0, .seed = 1 };
	struct recs rs = { 0 };
	struct ev6_stages ld;
	uint64_t n0;

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev6_pme_config(m, &c), 0);
	for (unsigned int i = 0; i < 399; i++)
		put(m, &rs, ADDQ(1, 2, 3), CODE + 4 * (i % 16), CODE + 4 * (i % 16) + 4, 0);
	assert_int_equal(rs.n, 0);
	n0 = m->pme_n;
	feed6(m, LDQ(5, 0, 6), CODE + 64, CODE + 68, DATA + 128); /* cold: D-cache, DTB miss */
	ld = m->last;
	drain(m, &rs);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.r[0].pc, CODE + 64);
	assert_int_equal(rs.r[0].status, MACH_PME_RETIRED);
	assert_int_equal(rs.r[0].ea, DATA + 128);
	assert_int_equal(rs.r[0].fetch, ld.fetch);
	assert_int_equal(rs.r[0].lat[MACH_PME_L_FETCH_MAP], ld.map - ld.fetch);
	assert_int_equal(rs.r[0].lat[MACH_PME_L_MAP_DATA] + rs.r[0].lat[MACH_PME_L_DATA_ISSUE],
			 ld.issue - ld.map);
	assert_int_equal(rs.r[0].lat[MACH_PME_L_ISSUE_READY], ld.ready - ld.issue);
	assert_int_equal(rs.r[0].lat[MACH_PME_L_READY_RETIRE], ld.retire - ld.ready);
	assert_true(rs.r[0].events & MACH_PME_E_DMISS);
	assert_true(rs.r[0].events & MACH_PME_E_DTBMISS);
	assert_false(rs.r[0].events & (MACH_PME_E_TAKEN | MACH_PME_E_MISPREDICT));
	assert_true(rs.r[0].retire_delay > 0); /* the miss made it the oldest for a while */
	/* the next is 400 fetches later (the DTB miss aborted and refetched some younger ones):
	 * a taken conditional branch, with its target */
	put(m, &rs, BEQ(31, 3), CODE + 256, CODE + 272, 0); /* taken: history ...1 */
	for (unsigned int i = 0; m->pme_n < n0 + 400; i++)
		put(m, &rs, ADDQ(1, 2, 3), CODE + 4 * (i % 16), CODE + 4 * (i % 16) + 4, 0);
	put(m, &rs, BEQ(31, 3), CODE + 128, CODE + 144, 0);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.r[1].pc, CODE + 128);
	assert_int_equal(rs.r[1].target, CODE + 144);
	assert_true(rs.r[1].events & MACH_PME_E_TAKEN);
	assert_int_equal(rs.r[1].path & 3, 1); /* history at fetch: the branches before it */
	assert_int_equal(rs.r[0].path, 0);
	free(rs.r);
	mach_ev6_free(m);
}

/* [PM §5.2.2]: the second of a pair at a fetch distance uniform in 1..W, after the first, with
 * the intra-pair fetch latency; pairs come out first then second. */
static void test_pme_pair_distance_uniform(void **state)
{
	enum { W = 50 };
	struct recs rs = { 0 };
	struct mach_ev6 *m = run(&rs, 320, 480, W, 60000);
	uint64_t bin[W + 1] = { 0 }, pairs = 0;
	double sum = 0, expect;

	(void)state;
	assert_int_equal(rs.n % 2, 0);
	for (size_t i = 0; i + 1 < rs.n; i += 2) {
		const struct mach_pme *a = &rs.r[i], *b = &rs.r[i + 1];

		assert_int_equal(a->pair, 1);
		assert_int_equal(b->pair, 2);
		assert_true(b->pair_dist >= 1 && b->pair_dist <= W);
		assert_int_equal(b->pair_lat, (int64_t)(b->fetch - a->fetch));
		assert_true(b->pair_lat >= 0 || a->status == MACH_PME_AB_TRAP ||
			    b->status ==
				    MACH_PME_AB_TRAP); /* an aborted copy's fetch is approximate */
		bin[b->pair_dist]++;
		sum += b->pair_dist;
		pairs++;
	}
	assert_true(pairs > 2000);
	expect = (double)pairs / W;
	for (int d = 1; d <= W; d++) /* binomial, 5 standard deviations */
		assert_true(fabs((double)bin[d] - expect) < 5 * sqrt(expect));
	assert_true(fabs(sum / (double)pairs - (W + 1) / 2.0) < 0.5);
	free(rs.r);
	mach_ev6_free(m);
}

/* A path record with more transfers than it holds, or a history wider than 12 bits, is damage
 * the reader names (the file's checksum recomputed so that the record checks are reached). */
static void reject_bad_path_records(const char *file)
{
	FILE *f = fopen(file, "rb");
	uint8_t *buf;
	long len;
	uint32_t nsec, rec = 0;
	struct mach_truth *t = NULL;
	struct ax_error err;
	uLong c;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	nsec = buf[20] | buf[21] << 8; /* header: section count (mach_truth.h) */
	for (uint32_t i = 0; i < nsec; i++) {
		const uint8_t *e = buf + MACH_TRUTH_HDR_SIZE + i * MACH_TRUTH_SECENT_SIZE;

		if (e[0] == MACH_TRUTH_SEC_PATHS)
			rec = e[8] | e[9] << 8 | e[10] << 16 | (uint32_t)e[11] << 24;
	}
	assert_true(rec > 0);
	for (int which = 0; which < 2; which++) {
		uint8_t save[2] = { buf[rec + 16], buf[rec + 20] };

		if (which)
			buf[rec + 17] |= 0x10; /* history bit 12 */
		else
			buf[rec + 20] = MACH_TRUTH_PATH_DECS + 1;
		memset(buf + 32, 0, 4);
		c = crc32(crc32(0L, Z_NULL, 0), buf, (uInt)len);
		for (int b = 0; b < 4; b++)
			buf[32 + b] = (uint8_t)(c >> (8 * b));
		assert_int_equal(mach_truth_parse(buf, (size_t)len, "T", &t, &err), -EBADMSG);
		assert_int_equal(err.offset, rec + (which ? 16 : 20));
		buf[rec + 16] = save[0];
		buf[rec + 17] &= 0x0f;
		buf[rec + 20] = save[1];
	}
	free(buf);
}

/*
 * The truth of [PM] §5.3's paths (MACH_TRUTH_SEC_PATHS): one record per retired second of a
 * pair, through the file and back; its transfers are the ones retired before it, newest first
 * (in this loop: the BNE when the sample follows it, else the jump back), its history bit 0 is
 * the newest BNE's direction, and its partner is the first of the pair when that retired.
 */
static void test_pme_path_truth(void **state)
{
	struct recs rs = { 0 };
	struct mach_ev6 *m = run(&rs, 400, 480, 50, 20000);
	struct mach_truth *t = NULL;
	struct ax_error err;
	char file[64];
	size_t k = 0, seconds = 0;

	(void)state;
	snprintf(file, sizeof(file), "/tmp/test_mach_ev6_pme.%d", (int)getpid());
	assert_int_equal(mach_ev6_truth_write(m, file), 0);
	assert_int_equal(mach_truth_read(file, &t, &err), 0);
	reject_bad_path_records(file);
	unlink(file);
	for (size_t i = 0; i < rs.n; i++)
		seconds += rs.r[i].pair == 2 && rs.r[i].status == MACH_PME_RETIRED;
	assert_true(seconds > 500);
	assert_int_equal(t->npaths, seconds);
	for (size_t i = 1; i < rs.n; i++) {
		const struct mach_pme *a = &rs.r[i - 1], *b = &rs.r[i];
		const struct mach_truth_path *r;
		unsigned int j = 0;

		if (b->pair != 2 || b->status != MACH_PME_RETIRED)
			continue;
		r = &t->paths[k++];
		assert_int_equal(r->pc, b->pc);
		assert_int_equal(r->history, b->path);
		assert_int_equal(r->dist, b->pair_dist);
		assert_int_equal(r->partner, a->status == MACH_PME_RETIRED ? a->pc : 0);
		if (k < 10)
			continue; /* the ring fills up */
		assert_int_equal(r->ndec, MACH_TRUTH_PATH_DECS);
		assert_int_equal(r->from[0], b->pc > BR_PC && b->pc <= BR_TGT ? BR_PC : BR_TGT);
		while (j < r->ndec && r->from[j] != BR_PC)
			j++;
		assert_true(j < r->ndec);
		assert_int_equal(r->history & 1, r->to[j] == BR_TGT);
	}
	mach_truth_free(t);
	free(rs.r);
	mach_ev6_free(m);
}

/* Replay traps: the aborted attempt is a sample of its own, flagged LSO, at the load. */
static void test_pme_replay_aborts(void **state)
{
	struct recs rs = { 0 };
	struct mach_ev6 *m = run(&rs, 300, 400, 0, 40000);
	uint64_t lso = 0;

	(void)state;
	assert_true(m->replays[EV6_RP_STLD] > 0);
	for (size_t i = 0; i < rs.n; i++) {
		if (rs.r[i].status != MACH_PME_AB_STLD && rs.r[i].status != MACH_PME_AB_LDLD)
			continue;
		assert_true(rs.r[i].events & MACH_PME_E_LSO);
		assert_true(rs.r[i].pc == CODE + 16 || rs.r[i].pc == CODE); /* the loads */
		lso++;
	}
	/* expected STLD samples: replays / mean interval; at least a few */
	if (m->replays[EV6_RP_STLD] > 350 * 20)
		assert_true(lso > 0);
	free(rs.r);
	mach_ev6_free(m);
}

/* The limits: an interval, a spread under VS_PERIOD_SPREAD_MAX, W <= EV6_PME_W_MAX and lo
 * above W + EV6_PME_GAP (one pair in flight); NULL stops sampling. */
static void test_pme_config_limits(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct mach_pme_cfg c = { .lo = 1000, .hi = 2000, .window = 50 };
	struct recs rs = { 0 };

	(void)state;
	assert_non_null(m);
	assert_int_equal(mach_ev6_pme_config(m, &c), 0);
	c.lo = 0;
	assert_int_equal(mach_ev6_pme_config(m, &c), -EINVAL);
	c.lo = 3000;
	assert_int_equal(mach_ev6_pme_config(m, &c), -EINVAL); /* hi < lo */
	c.lo = 50 + EV6_PME_GAP;
	c.hi = 5000;
	assert_int_equal(mach_ev6_pme_config(m, &c), -EINVAL);
	c.lo = 51 + EV6_PME_GAP;
	assert_int_equal(mach_ev6_pme_config(m, &c), 0);
	c.window = EV6_PME_W_MAX + 1;
	c.lo = c.hi = 100000;
	assert_int_equal(mach_ev6_pme_config(m, &c), -EINVAL);
	assert_int_equal(mach_ev6_pme_config(m, NULL), 0);
	for (unsigned int i = 0; i < 5000; i++)
		put(m, &rs, ADDQ(1, 2, 3), CODE + 4 * (i % 16), CODE + 4 * (i % 16) + 4, 0);
	assert_int_equal(rs.n, 0); /* off */
	mach_ev6_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pme_uniform_over_fetched),
		cmocka_unit_test(test_pme_record_fields),
		cmocka_unit_test(test_pme_pair_distance_uniform),
		cmocka_unit_test(test_pme_path_truth),
		cmocka_unit_test(test_pme_replay_aborts),
		cmocka_unit_test(test_pme_config_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
