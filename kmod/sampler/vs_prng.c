/* kmod/sampler/vs_prng.c - period randomisation: Park-Miller in Carta's division-free form. */
#include "vs_core.h"

/*
 * DCPI §4.1.1 writes a pseudo-random period into the counter at the end of each interrupt, uniform
 * in 60K..64K for CYCLES, drawn with Carta's implementation [Car90] of the Park-Miller "minimal
 * standard" generator x' = 16807 x mod (2^31 - 1). Carta's observation: with M = 2^31 - 1 and
 * p = 16807 x < 2^46, p = hi * 2^31 + lo, so p mod M = hi + lo (less M once if that reaches M).
 * With 64-bit arithmetic the split is a shift and a mask; no division anywhere.
 */

void vs_prng_seed(struct vs_prng *p, uint64_t seed)
{
	uint32_t x = (uint32_t)((seed ^ (seed >> 31) ^ (seed >> 62)) & VS_PRNG_M);

	p->x = (x == 0 || x == VS_PRNG_M) ? 1 : x; /* 0 and M are fixed points */
}

/* vs_prng_next, vs_prng_below and vs_period_next are inline in vs_core.h. */
