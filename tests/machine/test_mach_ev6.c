/* tests/machine/test_mach_ev6.c - EV6 model: latencies, clusters, issue and queue limits, predictor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_mach_ev6_util.h"

#define CODE 0x120000000ull /* code base: 64-byte aligned */
#define DATA 0x140000000ull /* data base */

/* Take the DTB miss of the data page now (a block the tests do not use). */
static void warm_dtb(struct mach_ev6 *m)
{
	feed6s(m, LDQ(31, 0, 30), CODE - 64, DATA + 8000);
}

/* HRM Table 2-4 latencies; HRM 2.3: a result reaches the other cluster a cycle later. */
static void test_ev6_latencies_and_cluster_crossing(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages a, b;

	(void)state;
	assert_non_null(m);
	a = feed6s(m, MULQ(1, 2, 3), CODE, 0); /* imul: U1 only, 7 */
	b = feed6s(m, ADDQ(3, 4, 5), CODE + 4, 0);
	assert_int_equal(a.cluster, 1);
	assert_int_equal(b.issue - a.issue, 7);
	a = feed6s(m, MULQ(1, 2, 6), CODE + 8, 0);
	b = feed6s(m, CTPOP(6, 7), CODE + 12, 0); /* imisc: U0 only, the other cluster */
	assert_int_equal(b.cluster, 0);
	assert_int_equal(b.issue - a.issue, 8);
	a = feed6s(m, ADDT(1, 2, 3), CODE + 16, 0); /* fadd 4 */
	b = feed6s(m, ADDT(3, 2, 4), CODE + 20, 0);
	assert_int_equal(b.issue - a.issue, 4);
	a = feed6s(m, LDQ(8, 0, 9), CODE + 24, DATA); /* a miss fills the block */
	assert_true(a.ready - a.issue >= 13);
	a = feed6s(m, LDQ(10, 8, 8), CODE + 28, DATA + 8); /* after the fill: a hit, ild 3 */
	b = feed6s(m, ADDQ(10, 1, 11), CODE + 32, 0);
	assert_int_equal(a.ready - a.issue, 3);
	assert_int_equal(b.issue - a.issue, 3);
	mach_ev6_free(m);
}

/* HRM Table 2-2: imul only on U1 (one a cycle); loads on L0/L1 (two a cycle); four integer pipes. */
static void test_ev6_pipe_classes_limit_issue(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages s[4];

	(void)state;
	assert_non_null(m);
	for (int i = 0; i < 4; i++)
		s[i] = feed6s(m, ADDQ(1, 2, 20 + i), CODE + 4 * i, 0);
	for (int i = 1; i < 4; i++)
		assert_int_equal(s[i].issue, s[0].issue); /* four integer pipes, one quadpack */
	assert_int_equal(s[0].issue, s[0].fetch + 3); /* fetch, slot, map, issue */
	for (int i = 0; i < 4; i++)
		s[i] = feed6s(m, MULQ(1, 2, 10 + i), CODE + 16 + 4 * i, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(s[i].issue, s[0].issue + i);
	warm_dtb(m);
	for (int i = 0; i < 4; i++)
		s[i] = feed6s(m, LDQ(10 + i, 0, 20), CODE + 32 + 4 * i, DATA + 256 * i);
	assert_int_equal(s[1].issue, s[0].issue);
	assert_int_equal(s[2].issue, s[0].issue + 1);
	assert_int_equal(s[3].issue, s[0].issue + 1);
	mach_ev6_free(m);
}

static void iq30(struct mach_ev6_params *p)
{
	p->iq = 30;
}

/* The 20-entry integer queue [HRM Fig. 2-1]: the 21st waiting instruction cannot map until one
 * issues; with 30 entries it can. */
static void test_ev6_integer_queue_limit(void **state)
{
	for (int big = 0; big < 2; big++) {
		struct mach_ev6 *m = new_ev6(big ? iq30 : NULL);
		struct ev6_stages s[24], ld;

		(void)state;
		assert_non_null(m);
		for (int pass = 0; pass < 2; pass++) { /* the first warms the I-cache, ITB, DTB */
			ld = feed6s(m, LDQ(1, 0, 2), CODE, DATA + 4096 * pass); /* misses */
			for (int i = 0; i < 24; i++)
				s[i] = feed6s(m, ADDQ(1, 2, 3 + (i % 20)), CODE + 4 + 4 * i, 0);
		}
		assert_true(s[0].issue >= ld.ready);
		assert_true(s[19].map < s[0].issue);
		if (big)
			assert_true(s[20].map < s[0].issue);
		else
			assert_true(s[20].map > s[0].issue);
		mach_ev6_free(m);
	}
}

static uint64_t mispredicts(const struct mach_ev6 *m)
{
	return mach_ev6_count(m, MACH_EV_BRANCHMP);
}

/* The tournament predictor [HRM 2.1.1]: an alternating branch is learnt (local history), a random
 * one is not; a mispredict costs 7 cycles to the next instruction and fetches a bad path. */
static void test_ev6_predictor(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	const uint64_t br = CODE + 0x100;
	struct ev6_stages b, n;
	struct ev6_trec r;
	uint64_t mp0, x = 1;

	(void)state;
	assert_non_null(m);
	b = feed6(m, BNE(1, 4), br, br + 20, 0); /* cold: predicted not taken */
	n = feed6s(m, ADDQ(1, 2, 3), br + 20, 0);
	assert_int_equal(mispredicts(m), 1);
	assert_true(n.issue >= b.issue + 7);
	r = trec6(m, br);
	assert_int_equal(r.c[EV6_TC_MISPREDICT], 1);
	assert_true(r.c[EV6_TC_BADPATH] > 0);
	for (int i = 0; i < 400; i++) {
		bool t = i & 1;

		if (i == 200)
			mp0 = mispredicts(m);
		feed6(m, BNE(1, 4), br + 64, t ? br + 84 : br + 68, 0);
	}
	assert_int_equal(mispredicts(m), mp0); /* learnt */
	mp0 = mispredicts(m);
	for (int i = 0; i < 400; i++) {
		bool t;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		t = (x >> 60) & 1;
		feed6(m, BNE(1, 4), br + 128, t ? br + 148 : br + 132, 0);
	}
	assert_true(mispredicts(m) - mp0 > 100); /* a coin cannot be learnt */
	mach_ev6_free(m);
}

/* Calls and returns: the return-address stack predicts nested returns; a jump to a new target
 * costs the JSR mispredict penalty (8, Table 2-1). */
static void test_ev6_return_stack_and_jump(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages j, n;

	(void)state;
	assert_non_null(m);
	feed6(m, BSR(0), CODE, CODE + 0x100, 0);
	feed6(m, BSR(0), CODE + 0x100, CODE + 0x200, 0);
	feed6(m, BSR(0), CODE + 0x200, CODE + 0x300, 0);
	feed6(m, RET(), CODE + 0x300, CODE + 0x204, 0);
	feed6(m, RET(), CODE + 0x204, CODE + 0x104, 0);
	feed6(m, RET(), CODE + 0x104, CODE + 4, 0);
	assert_int_equal(mispredicts(m), 0);
	j = feed6(m, JMP(1, 0), CODE + 8, CODE + 0x400, 0);
	n = feed6s(m, ADDQ(1, 2, 3), CODE + 0x400, 0);
	assert_int_equal(mispredicts(m), 1);
	assert_true(n.issue >= j.issue + 8);
	feed6(m, JMP(1, 0), CODE + 8, CODE + 0x400, 0); /* the same target again */
	assert_int_equal(mispredicts(m), 1);
	mach_ev6_free(m);
}

/* In-order retire; the 80-instruction window [HRM 6.10.3.3.2]: 100 instructions (no register
 * written) behind a memory miss cannot all map before it retires; and with registers written,
 * the 41 free physical registers [U] bind first. */
static void test_ev6_window_rename_and_in_order_retire(void **state)
{
	for (int regs = 0; regs < 2; regs++) {
		struct mach_ev6 *m = new_ev6(NULL);
		struct ev6_stages ld, s[100];
		int lim = regs ? 40 : 79; /* the load itself is one of them */

		(void)state;
		assert_non_null(m);
		for (int pass = 0; pass < 2; pass++) { /* the first warms the I-cache, ITB, DTB */
			ld = feed6s(m, LDQ(1, 0, 2), CODE, DATA + 4096 * pass);
			for (int i = 0; i < 100; i++)
				s[i] = feed6s(m, regs ? ADDQ(2, 3, 4 + (i % 8)) : NOP(),
					      CODE + 4 + 4 * i, 0);
		}
		assert_true(s[0].retire >= ld.retire);
		for (int i = 1; i < 100; i++)
			assert_true(s[i].retire >= s[i - 1].retire);
		assert_true(s[lim - 1].map < ld.retire);
		assert_true(s[lim].map > ld.retire);
		mach_ev6_free(m);
	}
}

static void fq64(struct mach_ev6_params *p)
{
	p->fetch_queue = 64;
}

/* Front-end back-pressure [HRM 2.2]: in a loop bound by memory, an instruction is fetched only
 * when the one `fetch_queue` older has mapped, so fetch stays a bounded distance ahead of map
 * (without it fetch ran ~1400 cycles ahead on copy); a larger queue lets it run further. */
static void test_ev6_fetch_back_pressure(void **state)
{
	uint64_t worst[2] = { 0, 0 };

	(void)state;
	for (int q = 0; q < 2; q++) {
		struct mach_ev6 *m = new_ev6(q ? fq64 : NULL);
		struct ev6_stages s[24];
		uint64_t hist[8] = { 0 }, n = 0;

		assert_non_null(m);
		for (int it = 0; it < 60; it++) {
			for (int i = 0; i < 24; i++) {
				/* one load to a new block (memory), then dependent-free filler */
				s[i] = i ? feed6s(m, NOP(), CODE + 4 * i, 0) :
					   feed6s(m, LDQ(1, 0, 2), CODE, DATA + 64 * (uint64_t)it);
				if (!q && n >= 8)
					assert_true(s[i].fetch >= hist[n % 8]);
				hist[n++ % 8] = s[i].map;
				if (it >= 10 && s[i].map - s[i].fetch > worst[q])
					worst[q] = s[i].map - s[i].fetch;
			}
		}
		mach_ev6_free(m);
	}
	/* bounded by one memory access (80 cycles + bus), not growing with the run */
	assert_true(worst[0] < 200);
	assert_true(worst[1] > worst[0]);
}

static void test_ev6_new_rejects_bad_params(void **state)
{
	struct mach_ev6_params p;
	struct mach_ev6 *m = NULL;

	(void)state;
	mach_ev6_params_default(&p);
	p.bcache_kb = 3000;
	assert_int_equal(mach_ev6_new_params(&m, &p), -EINVAL);
	mach_ev6_params_default(&p);
	p.iq = 0;
	assert_int_equal(mach_ev6_new_params(&m, &p), -EINVAL);
	mach_ev6_params_default(&p);
	p.window = EV6_RING;
	assert_int_equal(mach_ev6_new_params(&m, &p), -EINVAL);
	mach_ev6_params_default(&p);
	p.fetch_queue = 0;
	assert_int_equal(mach_ev6_new_params(&m, &p), -EINVAL);
	assert_null(m);
	assert_non_null(mach_cpu_find("ev6"));
	assert_true(mach_cpu_events(mach_cpu_find("ev6")) & (1u << MACH_EV_REPLAY));
	assert_false(mach_cpu_events(mach_cpu_find("ev5")) & (1u << MACH_EV_REPLAY));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ev6_latencies_and_cluster_crossing),
		cmocka_unit_test(test_ev6_pipe_classes_limit_issue),
		cmocka_unit_test(test_ev6_integer_queue_limit),
		cmocka_unit_test(test_ev6_predictor),
		cmocka_unit_test(test_ev6_return_stack_and_jump),
		cmocka_unit_test(test_ev6_window_rename_and_in_order_retire),
		cmocka_unit_test(test_ev6_fetch_back_pressure),
		cmocka_unit_test(test_ev6_new_rejects_bad_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
