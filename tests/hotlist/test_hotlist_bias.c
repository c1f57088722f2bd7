/* tests/hotlist/test_hotlist_bias.c - is a planted share estimated without bias, alone and merged? */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hotlist.h"

/*
 * Issue 15 item 6. A stream of n values holds one value with share p (drawn independently for
 * each position, as a load reading it in a fraction p of its executions), the rest drawn from a
 * pool of `others` values. Over TRIALS seeds, the mean of (estimated share - the stream's exact
 * share) is compared with its standard error. One list over the whole stream, and the stream
 * summarised in K parts merged in order (as the daemon merges each flush and eviction of a
 * sampler slot). The old estimate (c + round(0.418 tau) - 1, merges adding counts only) read a
 * 50% share 2.1 points low alone (z = -38) and 5.9 points low over 5 merged parts (z = -73).
 *
 * Thresholds: alone, |z| <= 3 (an unbiased estimator passes at nearly every seed set); merged,
 * the run a part missed is estimated from the part's own count, which leaves a small bias when
 * the planted value is only a few tau frequent in each part: |mean error| <= 0.8 points there
 * (measured: -0.45 at n = 250, -0.66 at n = 2500 with 1M-value pools), |z| <= 3 otherwise.
 */
#define TRIALS 1500
#define HOT 0x5eedULL

struct bias {
	double mean, se, tau;
};

static struct bias run(double p, unsigned int n, uint64_t others, unsigned int parts)
{
	double s1 = 0, s2 = 0, tsum = 0;

	for (unsigned int t = 0; t < TRIALS; t++) {
		struct hotlist h, part;
		struct hotlist_rng r, g;
		unsigned int f = 0;
		double est = 0, d;

		hotlist_rng_seed(&r, 7919ULL * t + 1);
		hotlist_rng_seed(&g, 104729ULL * t + 12345);
		assert_int_equal(hotlist_init(&h, 16), 0);
		for (unsigned int k = 0; k < parts; k++) {
			struct hotlist *dst = parts > 1 ? &part : &h;

			if (parts > 1)
				assert_int_equal(hotlist_init(&part, 16), 0);
			for (unsigned int i = 0; i < n / parts; i++) {
				uint64_t v = 1000 + hotlist_rng_below(&g, others);

				if (hotlist_rng_below(&g, 1000000) < (uint64_t)(p * 1e6)) {
					v = HOT;
					f++;
				}
				hotlist_insert(dst, v, &r);
			}
			if (parts > 1)
				hotlist_merge(&h, &part, &r);
		}
		assert_int_equal(hotlist_validate(&h, NULL), 0);
		for (unsigned int i = 0; i < h.used; i++)
			if (h.value[i] == HOT)
				est = (double)hotlist_estimate(&h, i) / (double)h.n;
		d = est - (double)f / (double)h.n;
		s1 += d;
		s2 += d * d;
		tsum += (double)h.tau;
	}
	struct bias b = { .mean = s1 / TRIALS, .tau = tsum / TRIALS };

	b.se = sqrt((s2 / TRIALS - b.mean * b.mean) / TRIALS);
	return b;
}

static void check(unsigned int parts, uint64_t others, double abs_tol)
{
	static const double share[] = { 0.50, 0.80, 0.95, 0.99 };
	static const unsigned int ns[] = { 250, 2500 };

	for (unsigned int i = 0; i < 4; i++) {
		for (unsigned int j = 0; j < 2; j++) {
			struct bias b = run(share[i], ns[j], others, parts);
			double z = b.se > 0 ? b.mean / b.se : 0;

			print_message(
				"share %.2f n %4u parts %u others %7llu: tau %6.1f  mean error "
				"%+.4f  se %.4f  z %+.1f\n",
				share[i], ns[j], parts, (unsigned long long)others, b.tau, b.mean,
				b.se, z);
			if (abs_tol > 0)
				assert_true(fabs(b.mean) <= abs_tol || fabs(z) <= 3);
			else
				assert_true(fabs(z) <= 3);
		}
	}
}

static void test_hotlist_bias_one_list_many_others(void **state)
{
	(void)state;
	check(1, 1000000, 0);
}

static void test_hotlist_bias_one_list_few_others(void **state)
{
	(void)state;
	check(1, 20, 0);
}

static void test_hotlist_bias_merged_parts_few_others(void **state)
{
	(void)state;
	check(5, 20, 0);
}

static void test_hotlist_bias_merged_parts_many_others(void **state)
{
	(void)state;
	check(5, 1000000, 0.008);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hotlist_bias_one_list_many_others),
		cmocka_unit_test(test_hotlist_bias_one_list_few_others),
		cmocka_unit_test(test_hotlist_bias_merged_parts_few_others),
		cmocka_unit_test(test_hotlist_bias_merged_parts_many_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
