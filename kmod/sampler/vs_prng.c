/* kmod/sampler/vs_prng.c - period randomisation: Park-Miller in Carta's division-free form. */
#include "vs_core.h"

/*
 * DCPI §4.1.1 writes a pseudo-random period into the counter at the end of each interrupt, uniform
 * in 60K..64K for CYCLES, drawn with Carta's implementation [Car90] of the Park-Miller "minimal
 * standard" generator x' = 16807 x mod (2^31 - 1). Carta's observation: with M = 2^31 - 1 and
 * p = 16807 x < 2^46, p = hi * 2^31 + lo, so p mod M = hi + lo (less M once if that reaches M).
 * With 64-bit arithmetic the split is a shift and a mask; no division anywhere.
 */
#define PM_M 0x7fffffffu
#define PM_A 16807u

void vs_prng_seed(struct vs_prng *p, uint64_t seed)
{
	uint32_t x = (uint32_t)((seed ^ (seed >> 31) ^ (seed >> 62)) & PM_M);

	p->x = (x == 0 || x == PM_M) ? 1 : x; /* 0 and M are fixed points */
}

uint32_t vs_prng_next(struct vs_prng *p)
{
	uint64_t prod = (uint64_t)p->x * PM_A;
	uint32_t x = (uint32_t)(prod & PM_M) + (uint32_t)(prod >> 31);

	if (x >= PM_M)
		x -= PM_M;
	p->x = x;
	return x;
}

uint32_t vs_prng_below(struct vs_prng *p, uint32_t n)
{
	/* x < 2^31: (x * n) >> 31 < n, each outcome hit by floor or ceil of 2^31 / n values. */
	return (uint32_t)(((uint64_t)vs_prng_next(p) * n) >> 31);
}

uint32_t vs_period_next(struct vs_prng *p, uint32_t lo, uint32_t hi)
{
	uint64_t range = (uint64_t)hi - lo + 1;

	/* The spread is capped (VS_PERIOD_SPREAD_MAX) far below 2^31: one draw covers it. */
	return lo + (uint32_t)(((uint64_t)vs_prng_next(p) * range) >> 31);
}
