/* kmod/sampler/vs_prime.c - prime-valued sampling periods (SpeedShop), drawn without tables. */
#include "vs_core.h"

/*
 * Seed r10000-counters-perfex-speedshop.txt: SpeedShop profiles on the overflow of any counter
 * with prime-valued overflow intervals, so that the sampling period cannot share a factor with a
 * loop's period and sample one phase of it only. A period is drawn uniformly from the PRIMES in
 * [lo, hi] by rejection: draw uniformly from [lo, hi] (vs_period_next) until the draw is prime.
 * Each accepted draw is then equally likely to be any prime of the range. The expected number of
 * draws is (hi - lo + 1) / (primes in range), about ln(hi) (11 at 64K); the loop is bounded by
 * VS_PRIME_TRIES, after which the next prime at or after the last draw (wrapping to the range's
 * first) is taken: that fallback happens with probability (1 - density)^VS_PRIME_TRIES
 * (below 10^-40 at 60K..64K) and keeps the draw a prime of the range. Primality is a
 * deterministic Miller-Rabin test for 32-bit integers (bases 2, 7 and 61 decide every n below
 * 4,759,123,141: Jaeschke 1993), after trial division by the primes below 64. No table, no
 * allocation, no floating point: usable in the profiling interrupt.
 */

static const uint8_t small_primes[] = { 2,  3,	5,  7,	11, 13, 17, 19, 23,
					29, 31, 37, 41, 43, 47, 53, 59, 61 };

static uint32_t mulmod(uint32_t a, uint32_t b, uint32_t n)
{
	return (uint32_t)(((uint64_t)a * b) % n);
}

static uint32_t powmod(uint32_t a, uint32_t e, uint32_t n)
{
	uint32_t r = 1;

	a %= n;
	while (e) {
		if (e & 1)
			r = mulmod(r, a, n);
		a = mulmod(a, a, n);
		e >>= 1;
	}
	return r;
}

/* n odd, n > 61: is n a strong probable prime to base a? */
static bool sprp(uint32_t n, uint32_t a)
{
	uint32_t d = n - 1, x;
	unsigned int s = 0;

	while (!(d & 1)) {
		d >>= 1;
		s++;
	}
	x = powmod(a, d, n);
	if (x == 1 || x == n - 1)
		return true;
	while (--s) {
		x = mulmod(x, x, n);
		if (x == n - 1)
			return true;
	}
	return false;
}

bool vs_is_prime(uint32_t n)
{
	for (unsigned int i = 0; i < sizeof(small_primes); i++) {
		if (n == small_primes[i])
			return true;
		if (n % small_primes[i] == 0)
			return false;
	}
	if (n < 64)
		return n > 1;
	return sprp(n, 2) && sprp(n, 7) && sprp(n, 61);
}

uint32_t vs_prime_at_or_after(uint32_t from, uint32_t lo, uint32_t hi)
{
	uint32_t n = from;

	if (from < lo || from > hi)
		return 0;
	do {
		if (vs_is_prime(n))
			return n;
		n = n == hi ? lo : n + 1;
	} while (n != from);
	return 0;
}

uint32_t vs_period_first(const struct vs_config *cfg, unsigned int e)
{
	const struct vs_period *p = &cfg->period[e];
	uint32_t mid = p->lo + (p->hi - p->lo) / 2;

	if (cfg->period_prime & (1u << e))
		return vs_prime_at_or_after(mid, p->lo, p->hi);
	return mid;
}

uint32_t vs_prime_next(struct vs_prng *p, uint32_t lo, uint32_t hi)
{
	uint32_t n = lo;

	for (unsigned int i = 0; i < VS_PRIME_TRIES; i++) {
		n = vs_period_next(p, lo, hi);
		if (vs_is_prime(n))
			return n;
	}
	return vs_prime_at_or_after(n, lo, hi);
}
