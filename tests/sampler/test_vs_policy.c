/* tests/sampler/test_vs_policy.c - when to interpret: modes, kernel mode, guard, shares. */
#include <math.h>

#include "vs_test.h"

static struct vs_policy pol_of(unsigned int mode)
{
	struct vs_config cfg;
	struct vs_policy pol;

	assert_int_equal(vs_config_default(&cfg, mode), 0);
	vs_policy_init(&pol, &cfg);
	return pol;
}

static uint32_t count(const struct vs_policy *pol, uint64_t seed, uint32_t n, bool guard,
		      unsigned int event, bool user, enum vs_verdict want)
{
	struct vs_prng rng;
	uint32_t i, k = 0;

	vs_prng_seed(&rng, seed);
	for (i = 0; i < n; i++)
		k += vs_policy_decide(pol, &rng, guard, event, user) == want;
	return k;
}

static void test_vs_policy_defaults(void **state)
{
	struct vs_policy vp = pol_of(VS_MODE_VPROF), vr = pol_of(VS_MODE_VREPLAY);

	(void)state;
	/* vprof: 8 instructions per ~2M cycles at a 62K period, not the slides' 4 per ~124K
	 * (issue 18: a real kernel's overhead; vs_abi.c) */
	assert_int_equal(vp.budget, 8);
	assert_int_equal(vp.num, 1);
	assert_int_equal(vp.den, 32);
	assert_int_equal(vr.budget, 128);
	assert_int_equal(vr.den, 129); /* 128 per ~8M cycles: 8M / 62K ~ 129 samples */
	assert_int_equal(vr.num, 1);
}

static void test_vs_policy_cycles_never_interprets(void **state)
{
	struct vs_policy p = pol_of(VS_MODE_CYCLES);

	(void)state;
	assert_int_equal(count(&p, 1, 10000, false, VS_EV_CYCLES, true, VS_NO_MODE), 10000);
}

static void test_vs_policy_kernel_mode_never_interprets(void **state)
{
	struct vs_policy p = pol_of(VS_MODE_VPROF);

	(void)state;
	p.num = p.den = 1; /* even with a share of 1 */
	assert_int_equal(count(&p, 1, 10000, false, VS_EV_CYCLES, false, VS_NO_KERNEL), 10000);
	assert_int_equal(count(&p, 1, 10000, true, VS_EV_CYCLES, false, VS_NO_KERNEL), 10000);
}

/* VS_CFG_KERNEL_VALUES: kernel samples are eligible at the same share, still never under the
 * guard, still only for the interp_events. */
static void test_vs_policy_kernel_values_opt_in(void **state)
{
	struct vs_config cfg;
	struct vs_policy p;

	(void)state;
	assert_int_equal(vs_config_default(&cfg, VS_MODE_VPROF), 0);
	cfg.flags = VS_CFG_KERNEL_VALUES;
	vs_policy_init(&p, &cfg);
	assert_true(p.kernel);
	assert_int_equal(count(&p, 1, 1000, true, VS_EV_CYCLES, false, VS_NO_GUARD), 1000);
	assert_int_equal(count(&p, 1, 1000, false, VS_EV_IMISS, false, VS_NO_EVENT), 1000);
	p.num = p.den = 1;
	assert_int_equal(count(&p, 1, 1000, false, VS_EV_CYCLES, false, VS_INTERPRET), 1000);
	p.num = 0;
	assert_int_equal(count(&p, 1, 1000, false, VS_EV_CYCLES, false, VS_NO_SHARE), 1000);
}

static void test_vs_policy_guard_prevents_reentry(void **state)
{
	struct vs_policy p = pol_of(VS_MODE_VREPLAY);

	(void)state;
	p.num = p.den = 1;
	assert_int_equal(count(&p, 1, 1000, true, VS_EV_CYCLES, true, VS_NO_GUARD), 1000);
	assert_int_equal(count(&p, 1, 1000, false, VS_EV_CYCLES, true, VS_INTERPRET), 1000);
}

static void test_vs_policy_only_interp_events(void **state)
{
	struct vs_policy p = pol_of(VS_MODE_VPROF);

	(void)state;
	p.num = p.den = 1;
	assert_int_equal(count(&p, 1, 1000, false, VS_EV_IMISS, true, VS_NO_EVENT), 1000);
	p.interp_events |= 1u << VS_EV_IMISS;
	assert_int_equal(count(&p, 1, 1000, false, VS_EV_IMISS, true, VS_INTERPRET), 1000);
	assert_int_equal(count(&p, 1, 10, false, 40, true, VS_NO_EVENT), 10);
}

/* The share of eligible samples interpreted is num / den, within 6 standard deviations. */
static void check_share(uint32_t num, uint32_t den)
{
	struct vs_policy p = pol_of(VS_MODE_VPROF);
	const uint32_t n = 400000;
	double q = (double)num / den, mean = n * q, sd = sqrt(n * q * (1 - q));
	uint32_t k;

	p.num = num;
	p.den = den;
	k = count(&p, 0xabcdef + den, n, false, VS_EV_CYCLES, true, VS_INTERPRET);
	assert_true(k >= mean - 6 * sd - 0.5 && k <= mean + 6 * sd + 0.5);
	/* the rest lost the draw */
	assert_int_equal(count(&p, 0xabcdef + den, n, false, VS_EV_CYCLES, true, VS_NO_SHARE),
			 n - k);
}

static void test_vs_policy_share_matches_config(void **state)
{
	(void)state;
	check_share(1, 2);
	check_share(1, 129);
	check_share(3, 7);
	check_share(0, 5);
	check_share(5, 5);
	check_share(999, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_policy_defaults),
		cmocka_unit_test(test_vs_policy_cycles_never_interprets),
		cmocka_unit_test(test_vs_policy_kernel_mode_never_interprets),
		cmocka_unit_test(test_vs_policy_kernel_values_opt_in),
		cmocka_unit_test(test_vs_policy_guard_prevents_reentry),
		cmocka_unit_test(test_vs_policy_only_interp_events),
		cmocka_unit_test(test_vs_policy_share_matches_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
