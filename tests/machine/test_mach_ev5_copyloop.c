/* tests/machine/test_mach_ev5_copyloop.c - DCPI Figure 7 copy loop vs the paper. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "mach_ev5_bench.h"

/* DCPI SOSP'97 Figure 7's M_i, with 009810 at 2 as the paper says it should be (§6.1.3). */
static const double static_mi[13] = { 2, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1 };

static void test_ev5_copyloop_matches_paper_shape(void **state)
{
	struct mach_ev5_params p;
	struct mach_ev5_copyloop c;
	const uint64_t bytes = 4u << 20; /* both arrays larger than the 2 MB B-cache */
	double sum = 0;

	(void)state;
	mach_ev5_params_default(&p);
	assert_int_equal(mach_ev5_bench_copyloop(&p, bytes, &c), 0);
	mach_ev5_bench_copyloop_print(stdout, &c, bytes);
	for (unsigned int k = 0; k < 13; k++) {
		/* the static schedule is the paper's */
		assert_true(c.stall[k][MACH_STALL_STATIC] > static_mi[k] - 0.01);
		assert_true(c.stall[k][MACH_STALL_STATIC] < static_mi[k] + 0.01);
		sum += c.head[k];
	}
	/* head-of-issue cycles account for every cycle */
	assert_true(sum > c.cycles_per_iter - 0.5 && sum < c.cycles_per_iter + 0.5);
	/* memory bound: the first store waits for its load's miss and for the write buffer */
	assert_true(c.stall[6][MACH_STALL_DMISS] > 10);
	assert_true(c.stall[6][MACH_STALL_WBFULL] > 10);
	/* the paper measured 135.7 cycles per iteration on a 21164 */
	assert_true(c.cycles_per_iter > 60 && c.cycles_per_iter < 250);
}

static void test_ev5_copyloop_in_bcache_is_faster(void **state)
{
	struct mach_ev5_params p;
	struct mach_ev5_copyloop big, small;

	(void)state;
	mach_ev5_params_default(&p);
	assert_int_equal(mach_ev5_bench_copyloop(&p, 4u << 20, &big), 0);
	assert_int_equal(mach_ev5_bench_copyloop(&p, 512u << 10, &small), 0);
	printf("copy loop cycles/iteration: 2 x 4 MB %.1f, 2 x 512 KB (B-cache) %.1f\n",
	       big.cycles_per_iter, small.cycles_per_iter);
	assert_true(small.cycles_per_iter < big.cycles_per_iter / 2);
	assert_true(small.stall[6][MACH_STALL_DMISS] > 5); /* still misses the S-cache */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ev5_copyloop_matches_paper_shape),
		cmocka_unit_test(test_ev5_copyloop_in_bcache_is_faster),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
