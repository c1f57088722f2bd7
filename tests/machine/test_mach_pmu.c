/* tests/machine/test_mach_pmu.c - EV5 PMU: overflow, delivery, PC, sampling consistency. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "test_mach_ev5_util.h"

#define CODE 0x120000000ull
#define DATA 0x140000000ull
#define CHAIN 64 /* dependent adds, one a cycle */

/* One pass over a chain of dependent adds and a branch back: every instruction has head 1. */
static void chain_pass(struct mach_ev5 *m)
{
	for (unsigned int i = 0; i < CHAIN; i++)
		feed1(m, ADDQ(3, 3, 3), CODE + 4 * i, 0);
	feed(m, BR(0), CODE + 4 * CHAIN, CODE, 0);
}

static void test_pmu_cycles_delivered_six_cycles_late(void **state)
{
	struct mach_ev5 *m = new_model();
	struct mach_irq irq;
	uint64_t c0, pc = 0;

	(void)state;
	assert_non_null(m);
	chain_pass(m);
	chain_pass(m);
	c0 = mach_ev5_cycles(m);
	mach_ev5_pmu_arm(m, MACH_EV_CYCLES, 10);
	for (unsigned int i = 0; i < 16; i++) {
		pc = CODE + 4 * i;
		assert_int_equal(feed1(m, ADDQ(3, 3, 3), pc, 0), 1);
		if (i < 15)
			assert_false(mach_ev5_irq_take(m, &irq)); /* not due before cycle c0 + 16 */
	}
	assert_true(mach_ev5_irq_take(m, &irq));
	assert_int_equal(irq.event, MACH_EV_CYCLES);
	assert_int_equal(irq.cycle, c0 + 10 + 6);
	assert_int_equal(irq.pc, pc); /* the instruction at the head of issue in that cycle */
	assert_false(mach_ev5_irq_take(m, &irq));

	/* re-armed right away: counts from the overflow (c0 + 10), not from the delivery */
	mach_ev5_pmu_arm(m, MACH_EV_CYCLES, 10);
	for (unsigned int i = 16; i < 26; i++) {
		feed1(m, ADDQ(3, 3, 3), CODE + 4 * i, 0);
		if (mach_ev5_irq_take(m, &irq))
			break;
	}
	assert_int_equal(irq.cycle, c0 + 20 + 6);
	assert_int_equal(irq.pc, CODE + 4 * 25);
	mach_ev5_free(m);
}

static void test_pmu_pc_is_stalled_instruction(void **state)
{
	struct mach_ev5 *m = new_model();
	struct mach_irq irq;
	uint64_t c0;

	(void)state;
	assert_non_null(m);
	chain_pass(m);
	feed1(m, LDQ(31, 0, 1), CODE, DATA + 0x100); /* warm the page */
	feed(m, BR(0), CODE + 4, CODE, 0);
	c0 = mach_ev5_cycles(m);
	mach_ev5_pmu_arm(m, MACH_EV_CYCLES, 20);
	feed1(m, LDQ(3, 0, 1), CODE, DATA); /* misses to memory */
	assert_false(mach_ev5_irq_take(m, &irq));
	assert_int_equal(feed1(m, ADDQ(3, 3, 3), CODE + 4, 0), 80); /* waits for it */
	assert_true(mach_ev5_irq_take(m, &irq));
	assert_int_equal(irq.cycle, c0 + 26);
	assert_int_equal(irq.pc, CODE + 4); /* the consumer sat at the head of issue */
	mach_ev5_free(m);
}

static void test_pmu_disarmed_is_silent(void **state)
{
	struct mach_ev5 *m = new_model();
	struct mach_irq irq;

	(void)state;
	assert_non_null(m);
	mach_ev5_pmu_arm(m, MACH_EV_CYCLES, 5);
	mach_ev5_pmu_arm(m, MACH_EV_CYCLES, 0);
	mach_ev5_pmu_arm(m, MACH_EV_NR, 5); /* ignored */
	for (int i = 0; i < 20; i++) {
		chain_pass(m);
		assert_false(mach_ev5_irq_take(m, &irq));
	}
	assert_int_equal(mach_ev5_count(m, MACH_EV_RETIRED), 20 * (CHAIN + 1));
	assert_int_equal(mach_ev5_count(m, MACH_EV_CYCLES), mach_ev5_cycles(m));
	assert_int_equal(mach_ev5_count(m, MACH_EV_NR), 0);
	mach_ev5_free(m);
}

static void test_pmu_imiss_sample_on_missing_instruction(void **state)
{
	struct mach_ev5 *m = new_model();
	struct mach_irq irq;
	unsigned int n = 0;

	(void)state;
	assert_non_null(m);
	mach_ev5_pmu_arm(m, MACH_EV_IMISS, 1);
	/* jump between far-apart blocks: every target misses; the miss outlasts the 6 cycles */
	for (unsigned int i = 0; i < 10; i++) {
		uint64_t pc = CODE + 0x1000 * (i + 1);

		feed(m, BR(0), CODE + 0x1000 * i + 4, pc, 0);
		feed1(m, NOP(), pc, 0);
		while (mach_ev5_irq_take(m, &irq)) {
			assert_int_equal(irq.event, MACH_EV_IMISS);
			if (i)
				assert_int_equal(irq.pc, pc);
			n++;
			mach_ev5_pmu_arm(m, MACH_EV_IMISS, 1);
		}
	}
	assert_int_equal(n, mach_ev5_count(m, MACH_EV_IMISS));
	assert_true(n >= 10);
	mach_ev5_free(m);
}

static void test_pmu_counts_match_truth(void **state)
{
	struct mach_ev5 *m = new_model();
	uint64_t sum[MACH_TEV_NR] = { 0 };

	(void)state;
	assert_non_null(m);
	for (int it = 0; it < 300; it++) {
		uint64_t a = DATA + 8192 * (uint64_t)(it % 97) + 64 * (uint64_t)(it % 11);

		feed1(m, LDQ(3, 0, 1), CODE, a);
		feed(m, BEQ(3, 2), CODE + 4, (it % 5 == 0) ? CODE + 16 : CODE + 8, 0);
		feed(m, BR(0), CODE + 16, CODE + 0x2000 * (uint64_t)(it % 13) + 0x100, 0);
		feed(m, BR(0), CODE + 0x2000 * (uint64_t)(it % 13) + 0x100, CODE, 0);
	}
	for (uint64_t pc = CODE; pc < CODE + 0x2000 * 13 + 0x200; pc += 4) {
		struct mach_truth_pc t;

		if (!mach_ev5_truth_get(m, pc, &t))
			continue;
		for (unsigned int e = 0; e < MACH_TEV_NR; e++)
			sum[e] += t.ev[e];
	}
	assert_int_equal(sum[MACH_TEV_IMISS], mach_ev5_count(m, MACH_EV_IMISS));
	assert_int_equal(sum[MACH_TEV_DMISS], mach_ev5_count(m, MACH_EV_DMISS));
	assert_int_equal(sum[MACH_TEV_DTBMISS], mach_ev5_count(m, MACH_EV_DTBMISS));
	assert_int_equal(sum[MACH_TEV_ITBMISS], mach_ev5_count(m, MACH_EV_ITBMISS));
	assert_int_equal(sum[MACH_TEV_BRANCHMP], mach_ev5_count(m, MACH_EV_BRANCHMP));
	assert_true(mach_ev5_count(m, MACH_EV_DMISS) > 0);
	assert_true(mach_ev5_count(m, MACH_EV_BRANCHMP) > 0);
	mach_ev5_free(m);
}

/* xorshift64*: a fixed sequence of sampling periods. */
static uint64_t rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

#define LOOP_N 24

/*
 * The consistency requirement: with CYCLES sampling every P cycles (randomised around P, as the
 * sampler does), the samples per PC equal head-of-issue cycles / P within sampling error.
 */
static void test_pmu_cycles_samples_proportional_to_head(void **state)
{
	struct mach_ev5_params p;
	struct mach_ev5 *m = NULL;
	uint32_t w[LOOP_N];
	uint64_t samples[LOOP_N] = { 0 }, seed = 0x1234567, nsamp = 0;
	const uint64_t period = 600;
	struct mach_irq irq;
	double chi = 0;
	unsigned int dof = 0;

	(void)state;
	mach_ev5_params_default(&p);
	p.truth = true;
	assert_int_equal(mach_ev5_new_params(&m, &p), 0);
	for (unsigned int i = 0; i < LOOP_N; i++) {
		switch (i % 8) {
		case 0:
			w[i] = LDQ(3, 0, 1);
			break;
		case 1:
			w[i] = ADDQ(3, 4, 5); /* waits for the load */
			break;
		case 2:
			w[i] = MULQ(5, 6, 7);
			break;
		case 3:
			w[i] = ADDQ(7, 1, 8);
			break;
		case 4:
			w[i] = STQ(8, 8, 1);
			break;
		case 5:
			w[i] = SLLI(8, 2, 9);
			break;
		case 6:
			w[i] = SLLI(9, 1, 10);
			break;
		default:
			w[i] = ADDT(1, 2, 3);
			break;
		}
	}
	mach_ev5_pmu_arm(m, MACH_EV_CYCLES, period);
	for (uint64_t it = 0; it < 40000; it++) {
		uint64_t a = DATA + ((it * 2654435761u) % (1u << 22)) * 8;

		for (unsigned int i = 0; i < LOOP_N; i++) {
			uint64_t pc = CODE + 4 * i;

			feed(m, w[i], pc, i == LOOP_N - 1 ? CODE : pc + 4, a + 8 * (i / 8));
			while (mach_ev5_irq_take(m, &irq)) {
				assert_true(irq.pc >= CODE && irq.pc < CODE + 4 * LOOP_N);
				samples[(irq.pc - CODE) / 4]++;
				nsamp++;
				mach_ev5_pmu_arm(m, MACH_EV_CYCLES,
						 period - period / 8 +
							 rng(&seed) % (period / 4 + 1));
			}
		}
	}
	assert_true(nsamp > 1000);
	assert_true(fabs((double)nsamp - (double)mach_ev5_cycles(m) / period) <
		    0.01 * (double)nsamp + 2);
	for (unsigned int i = 0; i < LOOP_N; i++) {
		struct mach_truth_pc t = truth_of(m, CODE + 4 * i);
		double expect = (double)t.head / period;

		if (expect < 20) {
			assert_true(samples[i] <= expect + 10);
			continue;
		}
		chi += ((double)samples[i] - expect) * ((double)samples[i] - expect) / expect;
		dof++;
		/* each within 5 standard deviations of a Poisson count */
		assert_true(fabs((double)samples[i] - expect) < 5 * sqrt(expect) + 1);
	}
	assert_true(dof >= 3);
	assert_true(chi < 3.0 * dof + 20);
	mach_ev5_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmu_cycles_delivered_six_cycles_late),
		cmocka_unit_test(test_pmu_pc_is_stalled_instruction),
		cmocka_unit_test(test_pmu_disarmed_is_silent),
		cmocka_unit_test(test_pmu_imiss_sample_on_missing_instruction),
		cmocka_unit_test(test_pmu_counts_match_truth),
		cmocka_unit_test(test_pmu_cycles_samples_proportional_to_head),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
