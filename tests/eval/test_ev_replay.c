/* tests/eval/test_ev_replay.c - vreplay's grading against replay traps: recall and precision. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ev_replay.h"

enum { STLD = 0, LDLD = 1, MBOX = 2 }; /* the truth's kinds (mach_truth.h section 6) */

/* Sorted by (pc, cause, kind) as the truth file is. */
static const struct mach_truth_replay fix_tr[] = {
	{ .pc = 0x100, .cause = 0x0f0, .kind = STLD, .count = 60 }, /* named (twice) */
	{ .pc = 0x100, .cause = 0x0f8, .kind = STLD, .count = 20 }, /* another store: not named */
	{ .pc = 0x200, .cause = 0x1f0, .kind = LDLD, .count = 20 }, /* named */
	{ .pc = 0x300, .cause = 0x2f0, .kind = MBOX, .count = 1000 }, /* partial forward, named */
	{ .pc = 0x400, .cause = 0, .kind = MBOX, .count = 50 }, /* resource trap: no cause */
	{ .pc = 0x700, .cause = 0x6f0, .kind = STLD, .count = 0 }, /* a record of no trap */
};

static void fixture(struct ev_rp_named *nm, size_t *nn)
{
	/* In no order; (0x100, 0x0f0) twice: one pair of 8 conflicts. */
	static const struct ev_rp_named v[] = {
		{ .load = 0x500, .prior = 0x4f0, .count = 6, .kind = 1 }, /* never trapped */
		{ .load = 0x100, .prior = 0x0f0, .count = 5, .kind = 1 },
		{ .load = 0x300, .prior = 0x2f0, .count = 10, .kind = 1 },
		{ .load = 0x600, .prior = 0, .count = 4, .kind = 1 }, /* prior unresolved */
		{ .load = 0x200, .prior = 0x1f0, .count = 3, .kind = 2 },
		{ .load = 0x100, .prior = 0x0f0, .count = 3, .kind = 1 },
		{ .load = 0x700, .prior = 0x6f0, .count = 2, .kind = 1 }, /* its record counts 0 */
	};

	memcpy(nm, v, sizeof(v));
	*nn = sizeof(v) / sizeof(v[0]);
}

static void test_ev_replay_grade(void **state)
{
	struct ev_rp_named nm[8];
	struct ev_rp_acc a = { 0 };
	size_t nn;

	(void)state;
	fixture(nm, &nn);
	assert_int_equal(ev_rp_grade(fix_tr, 6, nm, nn, &a), 0);
	/* Recall over the order traps only: 60 + 20 named of 60 + 20 + 20. */
	assert_true(a.traps == 100 && a.traps_named == 80);
	assert_true(ev_rp_recall(&a) == 0.8);
	assert_true(a.traps_kind[STLD] == 80 && a.named_kind[STLD] == 60);
	assert_true(a.traps_kind[LDLD] == 20 && a.named_kind[LDLD] == 20);
	/* Mbox apart: 1050, of which 1000 with a named cause. */
	assert_true(a.mbox == 1050 && a.mbox_named == 1000);
	/* Precision by count: 8 + 3 + 10 trapped of 8 + 3 + 10 + 6 + 4 + 2. */
	assert_true(a.conflicts == 33 && a.conflicts_trapped == 21);
	assert_true(ev_rp_precision(&a) == 21.0 / 33);
	/* Per pair: (0x100,0xf0), (0x200,0x1f0), (0x300,0x2f0) of 6 pairs. */
	assert_true(a.pairs == 6 && a.pairs_trapped == 3);
	assert_true(ev_rp_pair_precision(&a) == 0.5);
	/* The array is left sorted for ev_rp_named. */
	assert_true(ev_rp_named(nm, nn, 0x100, 0x0f0));
	assert_false(ev_rp_named(nm, nn, 0x100, 0x0f8));
	assert_false(ev_rp_named(nm, nn, 0x600, 0)); /* unresolved never matches */
}

static void test_ev_replay_merge_and_empty(void **state)
{
	struct ev_rp_named nm[8];
	struct ev_rp_acc a = { 0 }, b = { 0 }, z = { 0 };
	size_t nn;

	(void)state;
	/* Nothing to grade: no figure rather than 0% or 100%. */
	assert_int_equal(ev_rp_grade(NULL, 0, NULL, 0, &z), 0);
	assert_true(ev_rp_recall(&z) == -1 && ev_rp_precision(&z) == -1 &&
		    ev_rp_pair_precision(&z) == -1);
	/* Named conflicts and no trap at all: precision 0, recall undefined. */
	fixture(nm, &nn);
	assert_int_equal(ev_rp_grade(NULL, 0, nm, nn, &z), 0);
	assert_true(ev_rp_precision(&z) == 0 && ev_rp_recall(&z) == -1);
	/* Two runs add up (weighted, not averaged). */
	fixture(nm, &nn);
	assert_int_equal(ev_rp_grade(fix_tr, 6, nm, nn, &a), 0);
	assert_int_equal(ev_rp_grade(fix_tr, 3, nm, 2, &b), 0);
	ev_rp_acc_merge(&a, &b);
	assert_true(a.traps == 200);
	assert_true(a.conflicts == 33 + b.conflicts);
	assert_true(a.mbox == 1050);
}

static void test_ev_replay_unsorted(void **state)
{
	struct mach_truth_replay tr[2] = { fix_tr[2], fix_tr[0] };
	struct mach_truth_replay dup[2] = { fix_tr[0], fix_tr[0] };
	struct ev_rp_acc a = { 0 };

	(void)state;
	assert_int_equal(ev_rp_grade(tr, 2, NULL, 0, &a), -EINVAL);
	assert_int_equal(ev_rp_grade(dup, 2, NULL, 0, &a), -EINVAL);
	assert_true(a.traps == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ev_replay_grade),
		cmocka_unit_test(test_ev_replay_merge_and_empty),
		cmocka_unit_test(test_ev_replay_unsorted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
