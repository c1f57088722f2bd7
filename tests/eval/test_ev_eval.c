/* tests/eval/test_ev_eval.c - the grader of `make eval` (ev_eval): buckets, shares, bias. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ev_eval.h"

/* DCPI Figure 8's buckets: "-15%" holds ratios in [0.85, 0.90). */
static void test_an_freq_eval_buckets(void **state)
{
	(void)state;
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(100, 100)), "+0%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(104.9, 100)), "+0%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(105, 100)), "+5%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(95, 100)), "-5%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(94.99, 100)), "-10%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(87, 100)), "-15%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(55, 100)), "-45%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(54.9, 100)), "<-45%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(0, 100)), "<-45%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(144.9, 100)), "+40%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(145, 100)), ">=+45%");
	assert_string_equal(ev_eval_bucket_label(ev_eval_bucket(5, 0)), ">=+45%");
	assert_string_equal(ev_eval_bucket_label(-1), "?");
}

static void test_an_freq_eval_shares(void **state)
{
	struct ev_eval_hist h = { 0 }, g = { 0 };

	(void)state;
	ev_eval_hist_add(&h, 97, 100, 1, false);
	ev_eval_hist_add(&h, 104, 100, 1, false);
	ev_eval_hist_add(&h, 108, 100, 2, false);
	ev_eval_hist_add(&h, 200, 100, 4, true);
	assert_true(fabs(ev_eval_hist_within(&h, 5) - 2.0 / 8) < 1e-12);
	assert_true(fabs(ev_eval_hist_within(&h, 10) - 4.0 / 8) < 1e-12);
	assert_true(fabs(ev_eval_hist_beyond_low(&h, 10) - 1.0) < 1e-12);
	assert_true(fabs(ev_eval_hist_beyond_low(&h, 5) - 4.0 / 6) < 1e-12);
	ev_eval_hist_merge(&g, &h);
	ev_eval_hist_merge(&g, &h);
	assert_true(fabs(g.total - 16) < 1e-12);
	assert_true(fabs(ev_eval_hist_within(&g, 10) - 0.5) < 1e-12);
	memset(&g, 0, sizeof(g));
	assert_true(ev_eval_hist_within(&g, 5) == 0); /* empty: 0, not NaN */
}

static void test_an_freq_eval_pearson(void **state)
{
	double x[] = { 1, 2, 3, 4, 5 }, y[] = { 3, 5, 7, 9, 11 }, z[] = { 5, 4, 3, 2, 1 };
	double c[] = { 2, 2, 2, 2, 2 };

	(void)state;
	assert_true(fabs(ev_eval_pearson(x, y, 5) - 1) < 1e-12);
	assert_true(fabs(ev_eval_pearson(x, z, 5) + 1) < 1e-12);
	assert_true(ev_eval_pearson(x, c, 5) == 0);
	assert_true(ev_eval_pearson(x, y, 1) == 0);
}

/* A shared object's load bias comes back from its samples and the truth's head cycles. */
static void test_an_freq_eval_infer_bias(void **state)
{
	const uint64_t bias = 0x20000050000ull, period = 100;
	struct mach_truth t = { 0 };
	struct mach_truth_pc pcs[64];
	struct pdb_prof *prof = pdb_prof_new();
	uint64_t got = 0;
	size_t n = 0;

	(void)state;
	assert_non_null(prof);
	/* The program's code at 0x120000000 ran too, with a similar shape. */
	for (uint64_t k = 0; k < 16; k++, n++)
		pcs[n] = (struct mach_truth_pc){ .pc = 0x120000000ull + 4 * k,
						 .exec = 1000,
						 .head = 1000 * (1 + k % 3) };
	/* The library: offsets 0x8000.. at bias, heads 100x the samples. */
	for (uint64_t k = 0; k < 16; k++, n++) {
		uint64_t s = 10 + 7 * k;

		pcs[n] = (struct mach_truth_pc){ .pc = bias + 0x8000 + 4 * k,
						 .exec = 500,
						 .head = s * period };
		assert_int_equal(pdb_prof_add_sample(prof, PDB_EV_CYCLES, 0x8000 + 4 * k, s), 0);
	}
	t.pcs = pcs;
	t.npcs = n;
	assert_int_equal(ev_eval_infer_bias(prof, &t, (double)period, &got), 0);
	assert_true(got == bias);

	/* Samples nowhere near executed code: no bias fits. */
	pdb_prof_clear(prof);
	assert_int_equal(pdb_prof_add_sample(prof, PDB_EV_CYCLES, 0x7777, 5), 0);
	assert_int_equal(pdb_prof_add_sample(prof, PDB_EV_CYCLES, 0x9990, 50), 0);
	assert_int_equal(ev_eval_infer_bias(prof, &t, (double)period, &got), -ENOENT);
	pdb_prof_clear(prof);
	assert_int_equal(ev_eval_infer_bias(prof, &t, (double)period, &got), -ENODATA);
	pdb_prof_free(prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_freq_eval_buckets),
		cmocka_unit_test(test_an_freq_eval_shares),
		cmocka_unit_test(test_an_freq_eval_pearson),
		cmocka_unit_test(test_an_freq_eval_infer_bias),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
