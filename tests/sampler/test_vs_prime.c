/* tests/sampler/test_vs_prime.c - prime-valued periods: primality, the uniform prime draw. */
#include <math.h>

#include "vs_test.h"

/* A sieve of Eratosthenes below n (the reference the Miller-Rabin test is checked against). */
static uint8_t *sieve(uint32_t n)
{
	uint8_t *c = calloc(n, 1); /* c[i]: i is composite (or 0, 1) */

	assert_non_null(c);
	c[0] = c[1] = 1;
	for (uint32_t i = 2; (uint64_t)i * i < n; i++)
		if (!c[i])
			for (uint32_t j = i * i; j < n; j += i)
				c[j] = 1;
	return c;
}

/* Trial division up to sqrt(n) (slow, obviously right). */
static bool is_prime_slow(uint32_t n)
{
	if (n < 2)
		return false;
	for (uint64_t d = 2; d * d <= n; d++)
		if (n % d == 0)
			return false;
	return true;
}

static void test_vs_is_prime_matches_sieve(void **state)
{
	const uint32_t n = 1u << 21;
	uint8_t *c = sieve(n);

	(void)state;
	for (uint32_t i = 0; i < n; i++)
		if (vs_is_prime(i) != !c[i])
			fail_msg("vs_is_prime(%u) is %d", i, vs_is_prime(i));
	free(c);
}

static void test_vs_is_prime_large(void **state)
{
	/* Strong pseudoprimes to base 2 (2047, 3277, 4033), to bases 2, 3, 5, 7 (3215031751),
	 * Carmichael numbers, squares of primes and the largest 32-bit prime. */
	static const uint32_t composite[] = {
		2047,	     3277,	  4033,	       561,
		1105,	     3215031751u, 4294967295u, 65521u * 65521u,
		4294967293u, 25326001,	  2152302898u, 1373653
	};
	static const uint32_t prime[] = {
		4294967291u, 4294967279u, 2147483647u, 65521, 65537, 60013
	};
	uint64_t s = 12345;

	(void)state;
	for (unsigned int i = 0; i < sizeof(composite) / sizeof(composite[0]); i++)
		if (vs_is_prime(composite[i]))
			fail_msg("%u is composite", composite[i]);
	for (unsigned int i = 0; i < sizeof(prime) / sizeof(prime[0]); i++)
		if (!vs_is_prime(prime[i]))
			fail_msg("%u is prime", prime[i]);
	/* Odd numbers near 2^32 against trial division. */
	for (unsigned int i = 0; i < 3000; i++) {
		uint32_t v = (uint32_t)trand(&s) | 0x80000001u;

		if (vs_is_prime(v) != is_prime_slow(v))
			fail_msg("vs_is_prime(%u) is %d", v, vs_is_prime(v));
	}
}

static void test_vs_prime_at_or_after_wraps(void **state)
{
	(void)state;
	assert_int_equal(vs_prime_at_or_after(14, 10, 17), 17);
	assert_int_equal(vs_prime_at_or_after(17, 10, 17), 17);
	assert_int_equal(vs_prime_at_or_after(14, 10, 16), 11); /* wraps from 16 to 10 */
	assert_int_equal(vs_prime_at_or_after(24, 24, 28), 0); /* no prime in 24..28 */
	assert_int_equal(vs_prime_at_or_after(9, 10, 17), 0); /* from outside the range */
	assert_int_equal(vs_prime_at_or_after(1, 1, 1), 0);
	assert_int_equal(vs_prime_at_or_after(4294967292u, 4294967280u, 4294967295u),
			 4294967279u + 12); /* 4294967291, no overflow past 2^32 - 1 */
}

/*
 * Chi-square of n draws against uniform over the primes in [lo, hi]; a draw that is not such a
 * prime fails by itself. step_biased: the naive "draw uniformly, step to the next prime", which
 * favours primes after long gaps (the test's power check).
 */
static double chi2_primes(uint64_t seed, uint32_t lo, uint32_t hi, uint32_t n, bool step_biased,
			  unsigned int *nprimes)
{
	uint32_t span = hi - lo + 1, *obs = calloc(span, sizeof(uint32_t));
	unsigned int np = 0;
	struct vs_prng p;
	double stat = 0, e;

	assert_non_null(obs);
	vs_prng_seed(&p, seed);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = step_biased ?
				     vs_prime_at_or_after(vs_period_next(&p, lo, hi), lo, hi) :
				     vs_prime_next(&p, lo, hi);

		if (v < lo || v > hi || !is_prime_slow(v))
			fail_msg("draw %u is not a prime in [%u, %u]", v, lo, hi);
		obs[v - lo]++;
	}
	for (uint32_t v = lo; v <= hi; v++)
		np += is_prime_slow(v);
	e = (double)n / np;
	for (uint32_t v = lo; v <= hi; v++)
		if (is_prime_slow(v))
			stat += (obs[v - lo] - e) * (obs[v - lo] - e) / e;
	free(obs);
	*nprimes = np;
	return stat;
}

/* Threshold: df + 6 standard deviations (sqrt(2 df)): a false alarm below 1e-8. */
static double limit(unsigned int nprimes)
{
	double df = nprimes - 1;

	return df + 6 * sqrt(2 * df);
}

static void test_vs_prime_next_uniform_over_primes(void **state)
{
	unsigned int np;
	double x;

	(void)state;
	/* 60000..64000 holds 356 primes; ~1000 draws each. */
	x = chi2_primes(7, 60000, 64000, 400000, false, &np);
	assert_int_equal(np, 356);
	assert_true(x < limit(np));
	/* The naive draw is caught by the same statistic. */
	x = chi2_primes(7, 60000, 64000, 400000, true, &np);
	assert_true(x > limit(np));
	/* A small range: 11, 13, 17 one third each. */
	x = chi2_primes(8, 10, 17, 30000, false, &np);
	assert_int_equal(np, 3);
	assert_true(x < limit(np));
	/* One prime: always it. */
	x = chi2_primes(9, 24, 29, 1000, false, &np);
	assert_int_equal(np, 1);
	assert_true(x < 1e-9);
}

static void test_vs_config_period_prime_checked(void **state)
{
	struct vs_config c;
	const char *why = NULL;

	(void)state;
	vs_config_default(&c, VS_MODE_CYCLES);
	c.period_prime = 1u << VS_EV_CYCLES;
	assert_int_equal(vs_config_check(&c, &why), 0);
	c.period[VS_EV_CYCLES] = (struct vs_period){ 24, 28 };
	assert_int_equal(vs_config_check(&c, &why), -EINVAL);
	assert_non_null(strstr(why, "no prime"));
	c.period[VS_EV_CYCLES] = (struct vs_period){ 24, 29 };
	assert_int_equal(vs_config_check(&c, &why), 0);
	c.period_prime = 1u << VS_EVENT_NR;
	assert_int_equal(vs_config_check(&c, &why), -EINVAL);
	c.period_prime = 0;
	c.flags = 1u << 1; /* an unknown VS_CFG_* bit */
	assert_int_equal(vs_config_check(&c, &why), -EINVAL);
	/* The first period a counter is armed with: the middle, or the first prime from it. */
	c.flags = 0;
	c.period[VS_EV_DMISS] = (struct vs_period){ 1000, 1100 };
	assert_int_equal(vs_period_first(&c, VS_EV_DMISS), 1050);
	c.period_prime = 1u << VS_EV_DMISS;
	assert_int_equal(vs_period_first(&c, VS_EV_DMISS), 1051);
	c.period[VS_EV_DMISS] = (struct vs_period){ 1090, 1100 };
	assert_int_equal(vs_period_first(&c, VS_EV_DMISS), 1097); /* from 1095 */
}

/* vs_sample() draws the next period from the primes of the event's range, only with its bit. */
static void test_vs_sample_prime_periods(void **state)
{
	struct vs_config c;
	struct vs_decision d;
	struct vs_cpu *cpu;
	unsigned int composite = 0;
	void *m;

	(void)state;
	vs_config_default(&c, VS_MODE_CYCLES);
	c.events = (1u << VS_EV_CYCLES) | (1u << VS_EV_DMISS);
	c.period[VS_EV_CYCLES] = (struct vs_period){ 1000, 1100 };
	c.period[VS_EV_DMISS] = (struct vs_period){ 1000, 1100 };
	c.period_prime = 1u << VS_EV_CYCLES;
	cpu = cpu_new(&c, 0, &m);
	for (unsigned int i = 0; i < 2000; i++) {
		vs_sample(cpu, 1, 0x1000, VS_EV_CYCLES, true, &d);
		assert_true(d.period >= 1000 && d.period <= 1100 && is_prime_slow(d.period));
		assert_int_equal(vs_cpu_period(cpu, VS_EV_CYCLES) % 2, 1);
		vs_sample(cpu, 1, 0x1000, VS_EV_DMISS, true, &d);
		assert_true(d.period >= 1000 && d.period <= 1100);
		composite += !is_prime_slow(d.period);
	}
	assert_true(composite > 1000); /* ~85% of 1000..1100 is composite */
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_is_prime_matches_sieve),
		cmocka_unit_test(test_vs_is_prime_large),
		cmocka_unit_test(test_vs_prime_at_or_after_wraps),
		cmocka_unit_test(test_vs_prime_next_uniform_over_primes),
		cmocka_unit_test(test_vs_config_period_prime_checked),
		cmocka_unit_test(test_vs_sample_prime_periods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
