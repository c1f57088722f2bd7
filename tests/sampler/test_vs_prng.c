/* tests/sampler/test_vs_prng.c - Park-Miller generator and period randomisation (DCPI §4.1.1). */
#include "vs_test.h"

/* Park & Miller (CACM 1988): from x0 = 1, x10000 = 1043618065. */
static void test_vs_prng_minimal_standard_check_value(void **state)
{
	struct vs_prng p = { 1 };
	uint32_t x = 0;
	int i;

	(void)state;
	for (i = 0; i < 10000; i++)
		x = vs_prng_next(&p);
	assert_int_equal(x, 1043618065u);
}

static void test_vs_prng_seed_avoids_fixed_points(void **state)
{
	struct vs_prng p;
	uint64_t seeds[] = { 0, 0x7fffffff, 0xffffffffffffffffULL, 1ULL << 62, 42 };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		vs_prng_seed(&p, seeds[i]);
		assert_true(p.x >= 1 && p.x <= 0x7ffffffe);
		assert_true(vs_prng_next(&p) != p.x - 1 || p.x != 0);
		assert_true(p.x >= 1 && p.x <= 0x7ffffffe);
	}
}

/* Chi-square of n draws of vs_period_next(lo, hi) against uniform on [elo, ehi], in `nb` bins. */
static double chi2(uint64_t seed, uint32_t lo, uint32_t hi, uint32_t elo, uint32_t ehi,
		   unsigned int nb, uint32_t n, uint32_t *outside)
{
	struct vs_prng p;
	uint64_t span = (uint64_t)ehi - elo + 1;
	double *obs = calloc(nb, sizeof(double)), stat = 0;
	uint32_t i;
	unsigned int b;

	assert_non_null(obs);
	vs_prng_seed(&p, seed);
	*outside = 0;
	for (i = 0; i < n; i++) {
		uint32_t v = vs_period_next(&p, lo, hi);

		if (v < elo || v > ehi) {
			(*outside)++;
			continue;
		}
		obs[(uint64_t)(v - elo) * nb / span]++;
	}
	for (b = 0; b < nb; b++) {
		/* values v with floor((v - elo) * nb / span) == b */
		uint64_t first = (b * span + nb - 1) / nb, last = ((b + 1) * span + nb - 1) / nb;
		double e = (double)n * (double)(last - first) / (double)span;

		stat += (obs[b] - e) * (obs[b] - e) / e;
	}
	free(obs);
	return stat + *outside * 1e6; /* a value outside the range is a failure by itself */
}

/*
 * Uniformity of the default CYCLES range, 60000..64000: one bin per value (4001 bins, 4000 degrees
 * of freedom), 4M draws (~1000 per value). Threshold 4000 + 6 sd (sd = sqrt(8000) ~ 89): 4540.
 * An off-by-one range leaves one bin empty (+1000) or puts draws outside, so the same statistic
 * against the neighbouring ranges must fail; a coarse 50-bin test checks large-scale shape.
 */
#define T_DEF 4540.0

static void test_vs_period_uniform_default_range(void **state)
{
	uint32_t out;

	(void)state;
	assert_true(chi2(1, 60000, 64000, 60000, 64000, 4001, 4000000, &out) < T_DEF);
	assert_int_equal(out, 0);
	assert_true(chi2(2, 60000, 64000, 60000, 64000, 50, 2000000, &out) < 100);
	/* The power check: a generator off by one at either end is caught. */
	assert_true(chi2(1, 60000, 63999, 60000, 64000, 4001, 4000000, &out) > T_DEF);
	assert_true(chi2(1, 60001, 64000, 60000, 64000, 4001, 4000000, &out) > T_DEF);
	assert_true(chi2(1, 60000, 64001, 60000, 64000, 4001, 4000000, &out) > T_DEF);
	assert_true(chi2(1, 59999, 64000, 60000, 64000, 4001, 4000000, &out) > T_DEF);
}

/* A short range, every value its own bin: both end points are produced, nothing outside. */
static void test_vs_period_small_range_exact(void **state)
{
	uint32_t out;

	(void)state;
	/* 8 values, 7 degrees of freedom: P(chi2 > 40) < 1e-5. */
	assert_true(chi2(3, 10, 17, 10, 17, 8, 400000, &out) < 40);
	assert_int_equal(out, 0);
	assert_true(chi2(3, 10, 16, 10, 17, 8, 400000, &out) > 40); /* hi one short */
	assert_true(chi2(3, 11, 17, 10, 17, 8, 400000, &out) > 40); /* lo one long */
	/* lo == hi is a constant period */
	assert_true(chi2(4, 5, 5, 5, 5, 1, 1000, &out) < 1e-9);
	assert_int_equal(out, 0);
}

static void test_vs_period_extremes(void **state)
{
	struct vs_prng p;
	uint32_t i, v, min = UINT32_MAX, max = 0;

	(void)state;
	vs_prng_seed(&p, 99);
	for (i = 0; i < 100000; i++) {
		v = vs_period_next(&p, UINT32_MAX - 3, UINT32_MAX);
		min = v < min ? v : min;
		max = v > max ? v : max;
	}
	assert_int_equal(min, UINT32_MAX - 3);
	assert_int_equal(max, UINT32_MAX);
	for (i = 0; i < 1000; i++)
		assert_true(vs_prng_below(&p, 1) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_prng_minimal_standard_check_value),
		cmocka_unit_test(test_vs_prng_seed_avoids_fixed_points),
		cmocka_unit_test(test_vs_period_uniform_default_range),
		cmocka_unit_test(test_vs_period_small_range_exact),
		cmocka_unit_test(test_vs_period_extremes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
