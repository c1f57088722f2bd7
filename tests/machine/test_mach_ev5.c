/* tests/machine/test_mach_ev5.c - EV5 model: issue rules, latencies, caches, prediction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_mach_ev5_util.h"

#define CODE 0x120000000ull /* code base: 32-byte aligned */
#define DATA 0x140000000ull /* data base */

/* A branch at `from` that goes to `to` (starts a new fetch). */
static void jump(struct mach_ev5 *m, uint64_t from, uint64_t to)
{
	feed(m, BR(0), from, to, 0);
}

/*
 * Run the block `w[0..n)` at `pc` twice (the first pass warms the I-cache, ITB, D-cache lines at
 * `ea`), each pass entered by a jump from `pc - 4`; return the second pass's head cycles in h[].
 */
static void run_warm(struct mach_ev5 *m, uint64_t pc, const uint32_t *w, unsigned int n,
		     const uint64_t *ea, uint64_t *h)
{
	for (int pass = 0; pass < 2; pass++) {
		jump(m, pc - 64, pc);
		for (unsigned int i = 0; i < n; i++)
			h[i] = feed1(m, w[i], pc + 4 * i, ea ? ea[i] : 0);
		jump(m, pc + 4 * n, pc - 64);
	}
}

static void test_ev5_quad_issue(void **state)
{
	struct mach_ev5 *m = new_model();
	const uint32_t w[4] = { ADDQ(1, 2, 3), MULT(1, 2, 3), ADDQ(4, 5, 6), ADDT(4, 5, 6) };
	uint64_t h[4];

	(void)state;
	assert_non_null(m);
	run_warm(m, CODE, w, 4, NULL, h);
	assert_int_equal(h[0], 1); /* a new fetch block starts a new cycle */
	assert_int_equal(h[1], 0); /* FM */
	assert_int_equal(h[2], 0); /* the other integer pipe */
	assert_int_equal(h[3], 0); /* FA: four in one cycle */
	mach_ev5_free(m);
}

static void test_ev5_dual_issue_limits(void **state)
{
	struct mach_ev5 *m = new_model();
	const uint32_t three_int[4] = { ADDQ(1, 2, 3), ADDQ(4, 5, 6), ADDQ(7, 8, 9),
					ADDT(1, 2, 3) };
	const uint32_t two_shifts[2] = { SLLI(1, 3, 2), SLLI(4, 3, 5) };
	const uint32_t shift_add[2] = { SLLI(1, 3, 2), ADDQ(4, 5, 6) };
	const uint32_t add_shift[2] = { ADDQ(4, 5, 6), SLLI(1, 3, 2) };
	const uint32_t ld_st[2] = { LDQ(3, 0, 1), STQ(4, 8, 1) };
	const uint32_t ld_ld[2] = { LDQ(3, 0, 1), LDQ(4, 8, 1) };
	const uint64_t ea[2] = { DATA, DATA + 8 };
	uint64_t h[4];

	(void)state;
	assert_non_null(m);
	run_warm(m, CODE, three_int, 4, NULL, h);
	assert_int_equal(h[1], 0);
	assert_int_equal(h[2], 1); /* only two integer pipes */
	assert_int_equal(h[3], 0); /* the FP op joins the third */
	run_warm(m, CODE + 0x100, two_shifts, 2, NULL, h);
	assert_int_equal(h[1], 1); /* shifts are E0 only */
	run_warm(m, CODE + 0x200, shift_add, 2, NULL, h);
	assert_int_equal(h[1], 0);
	run_warm(m, CODE + 0x300, add_shift, 2, NULL, h);
	assert_int_equal(h[1], 0); /* the add slots to E1 */
	run_warm(m, CODE + 0x400, ld_st, 2, ea, h);
	assert_int_equal(h[1], 1); /* stores do not issue with loads */
	run_warm(m, CODE + 0x500, ld_ld, 2, ea, h);
	assert_int_equal(h[1], 0); /* two loads do */
	mach_ev5_free(m);
}

static void test_ev5_dependency_latency(void **state)
{
	struct mach_ev5 *m = new_model();
	const struct {
		uint32_t w[2];
		uint64_t lat;
	} v[] = {
		{ { ADDQ(1, 2, 3), ADDQ(3, 4, 5) }, 1 },
		{ { CMOVEQ(1, 2, 3), ADDQ(3, 4, 5) }, 2 },
		{ { LDQ(3, 0, 1), ADDQ(3, 4, 5) }, 2 },
		{ { MULL(1, 2, 3), ADDQ(3, 4, 5) }, 8 },
		{ { MULQ(1, 2, 3), ADDQ(3, 4, 5) }, 12 },
		{ { ADDT(1, 2, 3), ADDT(3, 4, 5) }, 4 },
		{ { MULT(1, 2, 3), ADDT(3, 4, 5) }, 4 },
		{ { DIVT(1, 2, 3), ADDT(3, 4, 5) }, 22 },
		{ { CMPULT(1, 2, 3), BNE(3, 4) }, 0 }, /* ICMP -> IBR bypass, same cycle */
		{ { CMPULT(1, 2, 3), ADDQ(3, 4, 5) }, 1 },
	};
	const uint64_t ea[2] = { DATA, 0 };
	uint64_t h[2];

	(void)state;
	assert_non_null(m);
	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		run_warm(m, CODE + 0x100 * i, v[i].w, 2, ea, h);
		assert_int_equal(h[1], v[i].lat);
	}
	mach_ev5_free(m);
}

static void test_ev5_multiplier_busy(void **state)
{
	struct mach_ev5 *m = new_model();
	const uint32_t mulq2[2] = { MULQ(1, 2, 3), MULQ(4, 5, 6) };
	const uint32_t mull2[2] = { MULL(1, 2, 3), MULL(4, 5, 6) };
	const uint32_t divt2[2] = { DIVT(1, 2, 3), DIVT(4, 5, 6) };
	struct mach_truth_pc before, after;
	uint64_t h[2];

	(void)state;
	assert_non_null(m);
	run_warm(m, CODE, mulq2, 2, NULL, h);
	assert_int_equal(h[1], 8); /* the multiplier takes a MULQ every 8 cycles */
	before = truth_of(m, CODE + 4);
	run_warm(m, CODE, mulq2, 2, NULL, h);
	after = truth_of(m, CODE + 4);
	/* second pass of run_warm: one E0 conflict (static) + 7 busy, per execution */
	assert_int_equal(after.stall[MACH_STALL_UNIT] - before.stall[MACH_STALL_UNIT], 2 * 7);
	assert_int_equal(after.stall[MACH_STALL_STATIC] - before.stall[MACH_STALL_STATIC], 2 * 1);
	run_warm(m, CODE + 0x100, mull2, 2, NULL, h);
	assert_int_equal(h[1], 4); /* ... a MULL every 4 */
	run_warm(m, CODE + 0x200, divt2, 2, NULL, h);
	assert_int_equal(h[1], 22); /* the divider is not pipelined */
	mach_ev5_free(m);
}

static void test_ev5_data_cache_latencies(void **state)
{
	struct mach_ev5 *m = new_model();
	const uint32_t w[2] = { LDQ(3, 0, 1), ADDQ(3, 4, 5) };
	uint64_t x = DATA + 0x40000, h;
	struct mach_truth_pc t0, t1;

	(void)state;
	assert_non_null(m);
	/* warm the code and the page with another line */
	jump(m, CODE - 64, CODE);
	feed1(m, w[0], CODE, x + 0x1000);
	feed1(m, w[1], CODE + 4, 0);

	/* cold: memory */
	jump(m, CODE + 8, CODE);
	feed1(m, w[0], CODE, x);
	t0 = truth_of(m, CODE + 4);
	h = feed1(m, w[1], CODE + 4, 0);
	t1 = truth_of(m, CODE + 4);
	assert_int_equal(h, 80);
	assert_int_equal(t1.stall[MACH_STALL_STATIC] - t0.stall[MACH_STALL_STATIC], 2);
	assert_int_equal(t1.stall[MACH_STALL_DMISS] - t0.stall[MACH_STALL_DMISS], 78);
	assert_int_equal(truth_of(m, CODE).ev[MACH_TEV_DMISS], 2);

	/* D-cache hit */
	jump(m, CODE + 8, CODE);
	feed1(m, w[0], CODE, x);
	assert_int_equal(feed1(m, w[1], CODE + 4, 0), 2);

	/* the other 32 bytes of the 64-byte S-cache block: S-cache */
	jump(m, CODE + 8, CODE);
	feed1(m, w[0], CODE, x + 32);
	assert_int_equal(feed1(m, w[1], CODE + 4, 0), 8);

	/* push x out of its 3-way S-cache set (32 KB apart): then the B-cache has it */
	for (int k = 1; k <= 3; k++) {
		jump(m, CODE + 8, CODE);
		feed1(m, w[0], CODE, x + (uint64_t)k * 32768);
		feed1(m, w[1], CODE + 4, 0);
	}
	jump(m, CODE + 8, CODE);
	feed1(m, w[0], CODE, x);
	assert_int_equal(feed1(m, w[1], CODE + 4, 0), 20);
	assert_int_equal(mach_ev5_count(m, MACH_EV_DMISS), 7);
	mach_ev5_free(m);
}

static void test_ev5_icache_miss(void **state)
{
	struct mach_ev5 *m = new_model();
	uint64_t far = CODE + 0x1000, h;
	struct mach_truth_pc t;

	(void)state;
	assert_non_null(m);
	jump(m, CODE, far); /* the branch's own block misses too */
	h = feed1(m, NOP(), far, 0);
	t = truth_of(m, far);
	assert_int_equal(h, 1 + 80); /* refill from memory */
	assert_int_equal(t.stall[MACH_STALL_IMISS], 80);
	assert_int_equal(t.ev[MACH_TEV_IMISS], 1);
	for (unsigned int i = 1; i < 8; i++)
		feed1(m, NOP(), far + 4 * i, 0);
	/* the next sequential block comes from the I-stream buffer: nearly free */
	h = feed1(m, NOP(), far + 32, 0);
	assert_true(h <= 3);
	assert_int_equal(mach_ev5_count(m, MACH_EV_IMISS), 3);
	/* back again: a hit */
	jump(m, far + 36, far);
	assert_int_equal(feed1(m, NOP(), far, 0), 1);
	assert_int_equal(mach_ev5_count(m, MACH_EV_IMISS), 3);
	mach_ev5_free(m);
}

static void test_ev5_write_buffer_full(void **state)
{
	struct mach_ev5 *m = new_model();
	uint64_t h[8];
	struct mach_truth_pc t0, t;

	(void)state;
	assert_non_null(m);
	/* warm the code and page, then drain the buffer with MB */
	for (int i = 0; i < 8; i++)
		feed1(m, STQ(1, 0, 2), CODE + 4 * i, DATA + 0x100000 + 64 * (uint64_t)i);
	feed1(m, e_mem(0x18, 0, 0, 0x4000), CODE + 32, 0); /* mb */
	jump(m, CODE + 36, CODE);
	t0 = truth_of(m, CODE + 24);
	/* eight stores to eight cold blocks: the buffer holds six */
	for (int i = 0; i < 8; i++)
		h[i] = feed1(m, STQ(1, 0, 2), CODE + 4 * i, DATA + 0x100400 + 64 * (uint64_t)i);
	for (int i = 1; i < 6; i++)
		assert_int_equal(h[i], 1); /* E0 only: one a cycle */
	/* entry 1 is written (write-allocate from memory) 80 cycles after it closed */
	assert_int_equal(h[6], 1 + 75);
	/* entry 2 drained only after entry 1 */
	assert_int_equal(h[7], 1 + 79);
	t = truth_of(m, CODE + 24);
	assert_int_equal(t.stall[MACH_STALL_WBFULL] - t0.stall[MACH_STALL_WBFULL], 75);
	assert_true(mach_ev5_stall_total(m, MACH_STALL_WBFULL) >= 75 + 79);
	mach_ev5_free(m);
}

static void test_ev5_mispredict_penalty(void **state)
{
	struct mach_ev5 *m = new_model();
	uint64_t h;
	struct mach_truth_pc t;

	(void)state;
	assert_non_null(m);
	jump(m, CODE - 64, CODE);
	/* beq r31 forward: always taken, statically predicted not taken */
	feed(m, BEQ(31, 1), CODE, CODE + 8, 0);
	h = feed1(m, NOP(), CODE + 8, 0);
	t = truth_of(m, CODE + 8);
	assert_int_equal(h, 1 + 5);
	assert_int_equal(t.stall[MACH_STALL_BRANCHMP], 5);
	assert_int_equal(truth_of(m, CODE).ev[MACH_TEV_BRANCHMP], 1);
	assert_int_equal(mach_ev5_count(m, MACH_EV_BRANCHMP), 1);
	/* the 2-bit counter now says taken */
	jump(m, CODE + 12, CODE);
	feed(m, BEQ(31, 1), CODE, CODE + 8, 0);
	assert_int_equal(feed1(m, NOP(), CODE + 8, 0), 1);
	assert_int_equal(mach_ev5_count(m, MACH_EV_BRANCHMP), 1);
	mach_ev5_free(m);
}

static void test_ev5_return_stack_and_hint(void **state)
{
	struct mach_ev5 *m = new_model();
	uint64_t f = CODE + 0x400;

	(void)state;
	assert_non_null(m);
	jump(m, CODE - 64, CODE);
	feed(m, BSR(0), CODE, f, 0);
	feed(m, RET(), f, CODE + 4, 0); /* predicted by the return stack */
	feed1(m, NOP(), CODE + 4, 0);
	assert_int_equal(mach_ev5_count(m, MACH_EV_BRANCHMP), 0);
	/* a jump whose hint names the target is predicted; a wrong hint is not */
	feed(m, JMP(27, (uint32_t)(f >> 2) & 0x3fff), CODE + 8, f, 0);
	assert_int_equal(mach_ev5_count(m, MACH_EV_BRANCHMP), 0);
	feed(m, JMP(27, 0), f, CODE + 0x800, 0);
	assert_int_equal(mach_ev5_count(m, MACH_EV_BRANCHMP), 1);
	mach_ev5_free(m);
}

static void test_ev5_load_two_after_store(void **state)
{
	struct mach_ev5 *m = new_model();
	/* loads into r31: no destination, so no wait for the previous pass's load (WAW) */
	const uint32_t w[5] = { STQ(1, 0, 2), NOP(), NOP(), NOP(), LDQ(31, 64, 2) };
	const uint64_t ea[5] = { DATA, 0, 0, 0, DATA + 64 };
	uint64_t h[5];

	(void)state;
	assert_non_null(m);
	run_warm(m, CODE, w, 5, ea, h);
	assert_int_equal(h[2], 1); /* the third integer op waits a cycle */
	/* the load's block could start at store+2; DCPI §6.1.3: not allowed */
	assert_int_equal(h[4], 2);
	mach_ev5_free(m);
}

static void test_ev5_store_load_replay(void **state)
{
	struct mach_ev5 *m = new_model();
	const uint32_t w[2] = { STQ(1, 0, 2), LDQ(31, 0, 2) };
	const uint64_t ea[2] = { DATA, DATA };
	uint64_t h[2];

	(void)state;
	assert_non_null(m);
	run_warm(m, CODE, w, 2, ea, h);
	assert_int_equal(h[1], 1 + 7); /* next cycle, same quadword: replay trap */
	mach_ev5_free(m);
}

static void test_ev5_dtb_miss(void **state)
{
	struct mach_ev5 *m = new_model();
	const uint32_t w[2] = { LDQ(31, 0, 1), NOP() };
	uint64_t h0;
	struct mach_truth_pc t;

	(void)state;
	assert_non_null(m);
	jump(m, CODE - 64, CODE);
	feed1(m, w[0], CODE, DATA);
	jump(m, CODE + 4, CODE);
	h0 = feed1(m, w[0], CODE, DATA + 8 * 8192); /* a new page */
	t = truth_of(m, CODE);
	assert_int_equal(h0, 1 + 25);
	assert_int_equal(t.ev[MACH_TEV_DTBMISS], 2);
	assert_int_equal(mach_ev5_count(m, MACH_EV_DTBMISS), 2);
	mach_ev5_free(m);
}

static void test_ev5_stall_causes_sum_to_head(void **state)
{
	struct mach_ev5 *m = new_model();
	uint64_t total = 0;

	(void)state;
	assert_non_null(m);
	/* a mix of everything: the per-cause totals add up to the cycles */
	for (int it = 0; it < 200; it++) {
		uint64_t a = DATA + 4096 * (uint64_t)(it % 37);

		feed1(m, LDQ(3, 0, 1), CODE, a);
		feed1(m, MULQ(3, 4, 5), CODE + 4, 0);
		feed1(m, STQ(5, 8, 1), CODE + 8, a + 8);
		feed1(m, DIVT(1, 2, 3), CODE + 12, 0);
		feed(m, BEQ(5, 4), CODE + 16, (it % 3) ? CODE + 36 : CODE + 20, 0);
		if (!(it % 3))
			for (int k = 0; k < 4; k++)
				feed1(m, NOP(), CODE + 20 + 4 * k, 0);
		feed(m, BR(0), CODE + 36, CODE, 0);
	}
	for (unsigned int c = 0; c < MACH_STALL_NR; c++)
		total += mach_ev5_stall_total(m, c);
	assert_int_equal(total, mach_ev5_cycles(m));
	assert_int_equal(mach_ev5_count(m, MACH_EV_RETIRED), m->insns);
	mach_ev5_free(m);
}

static void test_ev5_new_rejects_bad_params(void **state)
{
	struct mach_ev5_params p;
	struct mach_ev5 *m = (struct mach_ev5 *)1;
	struct mach_ev5_cfg cfg = { .mem_latency = 100, .bcache_latency = 10, .truth = false };

	(void)state;
	mach_ev5_params_default(&p);
	p.bcache_kb = 3000;
	assert_int_equal(mach_ev5_new_params(&m, &p), -EINVAL);
	assert_null(m);
	assert_int_equal(mach_ev5_new(&m, &cfg), 0);
	assert_int_equal(m->p.mem_lat, 100);
	assert_int_equal(m->p.bcache_lat, 10);
	assert_int_equal(mach_ev5_truth_write(m, "/nonexistent/x"), -EINVAL);
	mach_ev5_free(m);
	assert_int_equal(mach_ev5_new(&m, NULL), 0);
	assert_int_equal(m->p.mem_lat, 80);
	mach_ev5_free(m);
}

static void test_ev5_access_probe(void **state)
{
	struct mach_ev5 *m = new_model();
	struct axp_access acc;

	(void)state;
	assert_non_null(m);
	mach_ev5_access(m, DATA, 8, false, &acc);
	assert_int_equal(acc.level, AXP_LVL_MEMORY);
	assert_int_equal(acc.latency, 80);
	mach_ev5_access(m, DATA + 8, 8, false, &acc); /* merges with the fill in flight */
	assert_int_equal(acc.level, AXP_LVL_DCACHE);
	assert_int_equal(acc.latency, 80);
	mach_ev5_access(m, DATA + 32, 8, false, &acc);
	assert_int_equal(acc.level, AXP_LVL_SCACHE);
	assert_int_equal(acc.latency, 8);
	mach_ev5_access(m, DATA + 0x10000, 8, true, &acc);
	assert_int_equal(acc.level, AXP_LVL_MEMORY);
	mach_ev5_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ev5_quad_issue),
		cmocka_unit_test(test_ev5_dual_issue_limits),
		cmocka_unit_test(test_ev5_dependency_latency),
		cmocka_unit_test(test_ev5_multiplier_busy),
		cmocka_unit_test(test_ev5_data_cache_latencies),
		cmocka_unit_test(test_ev5_icache_miss),
		cmocka_unit_test(test_ev5_write_buffer_full),
		cmocka_unit_test(test_ev5_mispredict_penalty),
		cmocka_unit_test(test_ev5_return_stack_and_hint),
		cmocka_unit_test(test_ev5_load_two_after_store),
		cmocka_unit_test(test_ev5_store_load_replay),
		cmocka_unit_test(test_ev5_dtb_miss),
		cmocka_unit_test(test_ev5_stall_causes_sum_to_head),
		cmocka_unit_test(test_ev5_new_rejects_bad_params),
		cmocka_unit_test(test_ev5_access_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
