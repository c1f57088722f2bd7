/* tests/tools/test_tl_stats.c - the statistics of `axprof diff` (tl_stats) against known values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tl_stats.h"

#define near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* I_x(a, b) for integer a, b is a binomial tail; I_x(a, 1) = x^a. */
static void test_ibeta(void **state)
{
	(void)state;
	/* I_0.5(2, 3) = sum_{j=2..4} C(4, j) / 16 = 11/16 */
	near(tl_ibeta(0.5, 2, 3), 11.0 / 16, 1e-12);
	near(tl_ibeta(0.3, 2.5, 1), pow(0.3, 2.5), 1e-12);
	/* symmetry: I_x(a, b) = 1 - I_{1-x}(b, a), on both sides of the switch point */
	near(tl_ibeta(0.9, 3, 7), 1 - tl_ibeta(0.1, 7, 3), 1e-12);
	assert_true(tl_ibeta(0, 2, 2) == 0 && tl_ibeta(1, 2, 2) == 1);
}

/* Student's t: the tabulated two-sided 5% points give p = 0.05. */
static void test_t_p(void **state)
{
	(void)state;
	near(tl_t_p(12.7062047, 1), 0.05, 1e-6);
	near(tl_t_p(2.228138852, 10), 0.05, 1e-6);
	near(tl_t_p(2.306004135, 8), 0.05, 1e-6);
	near(tl_t_p(-2.306004135, 8), 0.05, 1e-6);
	near(tl_t_p(0, 5), 1, 1e-12);
	/* large df: the normal's 1.959964 */
	near(tl_t_p(1.959964, 1e7), 0.05, 1e-5);
}

static void test_mean_sd_welch(void **state)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double m, sd;

	(void)state;
	tl_mean_sd(x, 8, &m, &sd);
	near(m, 5, 1e-12);
	near(sd, sqrt(32.0 / 7), 1e-12);
	tl_mean_sd(x, 1, &m, &sd);
	assert_true(m == 2 && sd == 0);
	/* sd 2, n 5 on both sides: se sqrt(1.6), Welch df exactly 8; a difference of t_{8,0.975}
	 * standard errors has p = 0.05 */
	near(tl_welch_p(10, 2, 5, 10 + 2.306004135 * sqrt(1.6), 2, 5), 0.05, 1e-6);
	near(tl_welch_p(10, 2, 5, 10, 2, 5), 1, 1e-12);
	assert_true(tl_welch_p(1, 0, 3, 2, 0, 3) == 0);
	assert_true(tl_welch_p(1, 0, 3, 1, 0, 3) == 1);
}

static void test_prop_p(void **state)
{
	(void)state;
	near(tl_prop_p(50, 100, 50, 100), 1, 1e-12);
	/* pooled 0.4, se sqrt(0.24 * 0.02), z = 2.886751: p = erfc(z / sqrt 2) */
	near(tl_prop_p(30, 100, 50, 100), 0.0038924171, 1e-9);
	near(tl_prop_p(30, 100, 50, 100), tl_prop_p(50, 100, 30, 100), 1e-15);
	assert_true(tl_prop_p(0, 0, 5, 10) == 1);
	assert_true(tl_prop_p(0, 10, 0, 10) == 1);
}

/* Rows: shares normalised by each run's total, the test chosen by the runs, Bonferroni. */
static void test_diff_compute(void **state)
{
	const uint64_t ca[] = { 30 }, ta[] = { 100 }, cb[] = { 100 }, tb[] = { 200 };
	const uint64_t *c[2] = { ca, cb }, *t[2] = { ta, tb };
	const size_t n1[2] = { 1, 1 };
	struct tl_diff_row r;

	(void)state;
	/* 30 of 100 against 100 of 200: 30% -> 50%, p = 9.8e-4 by the z-test */
	tl_diff_compute(c, t, n1, 1, 0.01, &r);
	near(r.mean[0], 0.3, 1e-12);
	near(r.mean[1], 0.5, 1e-12);
	near(r.delta, 0.2, 1e-12);
	assert_false(r.welch);
	near(r.p, tl_prop_p(30, 100, 100, 200), 1e-15);
	assert_true(r.significant);
	/* the same p among 100 rows: 0.01 / 100 is below it */
	tl_diff_compute(c, t, n1, 100, 0.01, &r);
	assert_false(r.significant);

	/* repeated runs: Welch on the runs' shares; equal sides are not different */
	const uint64_t ra[] = { 20, 22, 21 }, rt[] = { 100, 100, 100 }, rb[] = { 42, 44, 40 },
		       rbt[] = { 200, 200, 200 };
	const uint64_t *c2[2] = { ra, rb }, *t2[2] = { rt, rbt };
	const size_t n3[2] = { 3, 3 };

	tl_diff_compute(c2, t2, n3, 5, 0.01, &r);
	assert_true(r.welch);
	near(r.mean[0], 0.21, 1e-12);
	near(r.mean[1], 0.21, 1e-12);
	near(r.sd[0], 0.01, 1e-12);
	near(r.sd[1], 0.01, 1e-12);
	assert_false(r.significant);
	near(r.p, 1, 1e-9);

	/* runs that agree exactly on a few samples (sd 0) are not exact: the binomial floor */
	const uint64_t fa[] = { 12, 12 }, fb[] = { 14, 14 }, ft[] = { 579, 579 };
	const uint64_t *c4[2] = { fa, fb }, *t4[2] = { ft, ft };
	const size_t n2[2] = { 2, 2 };

	tl_diff_compute(c4, t4, n2, 1, 0.01, &r);
	assert_true(r.welch && r.sd[0] == 0 && r.sd[1] == 0);
	assert_true(r.p > 0.3);
	assert_false(r.significant);

	/* a run with no samples has share 0, not a division by zero */
	const uint64_t z[] = { 0 }, zt[] = { 0 };
	const uint64_t *c3[2] = { z, ca }, *t3[2] = { zt, ta };

	tl_diff_compute(c3, t3, n1, 1, 0.01, &r);
	assert_true(r.mean[0] == 0 && isfinite(r.p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibeta),	      cmocka_unit_test(test_t_p),
		cmocka_unit_test(test_mean_sd_welch), cmocka_unit_test(test_prop_p),
		cmocka_unit_test(test_diff_compute),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
