/* tests/tools/test_tl_stat.c - counter placement, multiplexing groups and projection (tl_stat). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tl_stat.h"

#define EV(e) (1u << (e))

/* Is there any assignment of `events` to distinct counters (brute force over counter choices)? */
static int fits(const struct mach_pmu_desc *d, uint32_t events, uint32_t used)
{
	unsigned int e;

	if (!events)
		return 1;
	e = (unsigned int)__builtin_ctz(events);
	for (unsigned int c = 0; c < d->ncounters; c++)
		if ((d->counter[c].events & EV(e)) && !(used & EV(c)) &&
		    fits(d, events & ~EV(e), used | EV(c)))
			return 1;
	return 0;
}

static uint32_t all_countable(const struct mach_pmu_desc *d)
{
	uint32_t m = 0;

	for (unsigned int c = 0; c < d->ncounters; c++)
		m |= d->counter[c].events;
	return m;
}

/* Every subset of the events: placed exactly when some assignment exists; a placement puts each
 * event on a counter that may count it, one event a counter; a conflict is a set of the events
 * given that has fewer counters than events. */
static void check_place_all(const char *cpu)
{
	const struct mach_pmu_desc *d = mach_pmu_desc(cpu);
	uint32_t all = all_countable(d);

	assert_non_null(d);
	for (uint32_t set = 1; set < EV(MACH_EV_NR); set++) {
		int slot[MACH_EV_NR];
		uint32_t conflict, ctrs;
		int ret = tl_stat_place(d, set, slot, &conflict, &ctrs);

		if (set & ~all) {
			assert_int_equal(ret, -EOPNOTSUPP);
			assert_int_equal(conflict, set & ~all);
			continue;
		}
		if (fits(d, set, 0)) {
			uint32_t used = 0;

			assert_int_equal(ret, 0);
			for (unsigned int e = 0; e < MACH_EV_NR; e++) {
				if (!(set & EV(e))) {
					assert_int_equal(slot[e], -1);
					continue;
				}
				assert_true(slot[e] >= 0 && slot[e] < (int)d->ncounters);
				assert_true(d->counter[slot[e]].events & EV(e));
				assert_false(used & EV(slot[e]));
				used |= EV(slot[e]);
			}
		} else {
			assert_int_equal(ret, -ENOSPC);
			assert_true(conflict && !(conflict & ~set));
			assert_true(__builtin_popcount(ctrs) < __builtin_popcount(conflict));
			assert_false(fits(d, conflict, 0));
		}
	}
}

static void test_place_ev5(void **state)
{
	const struct mach_pmu_desc *d = mach_pmu_desc("ev5");
	int slot[MACH_EV_NR];
	uint32_t conflict, ctrs;

	(void)state;
	assert_int_equal(d->ncounters, 3); /* the 21164 has three counters, not two */
	/* CYCLES and RETIRED: RETIRED only on PCTR0, so CYCLES goes to PCTR2 */
	assert_int_equal(
		tl_stat_place(d, EV(MACH_EV_CYCLES) | EV(MACH_EV_RETIRED), slot, &conflict, &ctrs),
		0);
	assert_int_equal(slot[MACH_EV_RETIRED], 0);
	assert_int_equal(slot[MACH_EV_CYCLES], 2);
	/* two PCTR2 events: the conflict names both and PCTR2 */
	assert_int_equal(tl_stat_place(d,
				       EV(MACH_EV_IMISS) | EV(MACH_EV_DMISS) | EV(MACH_EV_RETIRED),
				       slot, &conflict, &ctrs),
			 -ENOSPC);
	assert_int_equal(conflict, EV(MACH_EV_IMISS) | EV(MACH_EV_DMISS));
	assert_int_equal(ctrs, EV(2));
	assert_int_equal(tl_stat_place(d, EV(MACH_EV_REPLAY), slot, &conflict, &ctrs), -EOPNOTSUPP);
	check_place_all("ev5");
}

static void test_place_ev6(void **state)
{
	(void)state;
	assert_int_equal(mach_pmu_desc("ev6")->ncounters, 2);
	assert_null(mach_pmu_desc("ev7"));
	check_place_all("ev6");
}

/* -a groups: each fits, every event is in one, and there are as many as the counter most
 * in demand needs (the events only it may count). */
static void check_groups(const char *cpu, unsigned int want)
{
	const struct mach_pmu_desc *d = mach_pmu_desc(cpu);
	uint32_t all = all_countable(d), seen = 0, conflict;
	struct tl_mux mx;

	assert_int_equal(tl_stat_groups(d, all, &mx, &conflict), 0);
	assert_int_equal(mx.ngroups, want);
	for (unsigned int g = 0; g < mx.ngroups; g++) {
		assert_true(fits(d, mx.group[g], 0));
		assert_false(mx.group[g] & ~all);
		seen |= mx.group[g];
	}
	assert_int_equal(seen, all);
	assert_int_equal(tl_stat_groups(d, EV(MACH_EV_NR) - 1, &mx, &conflict),
			 all == EV(MACH_EV_NR) - 1 ? 0 : -EOPNOTSUPP);
}

static void test_groups(void **state)
{
	(void)state;
	check_groups("ev5", 5); /* IMISS DMISS DTBMISS ITBMISS BRANCHMP: PCTR2 only */
	check_groups("ev6", 7); /* the 7 PCTR1-only events */
}

/* Two groups alternate on 100-cycle quanta: A in group 0, B in group 1. */
static void test_projection(void **state)
{
	const uint64_t a[] = { 10, 20, 30, 40 }, b[] = { 5, 5, 5, 5 };
	enum { A = MACH_EV_DMISS, B = MACH_EV_IMISS };
	struct tl_mux mx = { .ngroups = 2, .group = { EV(A), EV(B) } };
	struct tl_mux_state s;
	uint64_t now[MACH_EV_NR] = { 0 };
	double se, p;

	(void)state;
	now[MACH_EV_CYCLES] = 1000;
	tl_mux_start(&s, &mx, EV(A) | EV(B), 0, now);
	for (unsigned int q = 0; q < 4; q++) {
		now[MACH_EV_CYCLES] += 100;
		now[A] += a[q];
		now[B] += b[q];
		tl_mux_tick(&s, now, 1);
	}
	/* A counted in quanta 0 and 2: 40 events in 200 of 400 cycles */
	assert_int_equal(s.ev[A].count, 40);
	assert_int_equal(s.ev[A].running, 200);
	assert_int_equal(s.ev[A].enabled, 400);
	assert_int_equal(s.ev[A].exact, 100);
	p = tl_mux_project(&s.ev[A], &se);
	assert_float_equal(p, 80.0, 1e-9);
	/* rates 0.1 and 0.3: s^2 = 0.02; 400 x sqrt(0.02 / 2) x sqrt(1 - 2/4) */
	assert_float_equal(se, 400.0 * 0.1 * sqrt(0.5), 1e-9);
	/* B constant: projection exact, error 0 */
	p = tl_mux_project(&s.ev[B], &se);
	assert_float_equal(p, 20.0, 1e-9);
	assert_float_equal(se, 0.0, 1e-12);
	/* the last reading does not rotate; a group alone is counted all the time */
	mx.ngroups = 1;
	mx.group[0] = EV(A);
	tl_mux_start(&s, &mx, EV(A), 0, now);
	now[MACH_EV_CYCLES] += 50;
	now[A] += 7;
	tl_mux_tick(&s, now, 0);
	p = tl_mux_project(&s.ev[A], &se);
	assert_float_equal(p, 7.0, 1e-9);
	assert_float_equal(se, 0.0, 1e-12);
}

static void test_projection_one_quantum(void **state)
{
	struct tl_evcount e = { .count = 10,
				.enabled = 300,
				.running = 100,
				.quanta = 3,
				.quanta_run = 1,
				.sum_r = 0.1,
				.sum_r2 = 0.01 };
	double se, p;

	(void)state;
	p = tl_mux_project(&e, &se);
	assert_float_equal(p, 30.0, 1e-9);
	assert_true(isnan(se)); /* unknown, not zero */
	e.running = 0;
	assert_float_equal(tl_mux_project(&e, &se), 0.0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place_ev5),
		cmocka_unit_test(test_place_ev6),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_projection),
		cmocka_unit_test(test_projection_one_quantum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
