/* workloads/hotspots.c - three procedures of known shares, an inlined helper, a planted slowdown. */
/*
 * For source lines, `axprof diff` and `axprof export`: hs_mix, hs_scan and hs_sum do fixed amounts
 * of integer work (about 2 : 1 : 1 of the loop's instructions), and hs_mix calls hs_step, a
 * helper always inlined into it, so its instructions carry an inline chain in the DWARF. Built -O2
 * -g like every workload.
 *
 * Usage: hotspots [ROUNDS] [slow]   (default 200 rounds; "slow" plants a slowdown: hs_scan does
 *                                    four times its work, the others are unchanged)
 * Output: the rounds, whether slow, and a checksum that does not depend on "slow"; exit status 0.
 */
#include <inttypes.h>
#include <string.h>

#include "wl.h"

#define HS_N 4096

static uint64_t hs_data[HS_N];

/* hs_step - one mixing step; always inlined, so its lines appear inside hs_mix. */
static inline __attribute__((always_inline)) uint64_t hs_step(uint64_t x, uint64_t k)
{
	x ^= x >> 7;
	x *= k | 1;
	return x + (x >> 13);
}

static __attribute__((noipa)) uint64_t hs_mix(uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < HS_N; i++) {
		x = hs_step(x, hs_data[i]);
		hs_data[i] = x;
	}
	return x;
}

/* hs_scan - count elements above the mean of two neighbours; reps > 1 repeats the same scan. */
static __attribute__((noipa)) uint64_t hs_scan(long reps)
{
	uint64_t n = 0;

	for (long r = 0; r < reps; r++) {
		n = 0;
		for (int i = 1; i < HS_N - 1; i++)
			n += hs_data[i] > (hs_data[i - 1] >> 1) + (hs_data[i + 1] >> 1);
	}
	return n;
}

static __attribute__((noipa)) uint64_t hs_sum(void)
{
	uint64_t s = 0;

	for (int i = 0; i < HS_N; i++)
		s = wl_mix(s, hs_data[i]);
	return s;
}

int main(int argc, char **argv)
{
	long rounds = wl_arg(argc < 3 ? argc : 2, argv, 200);
	long reps = 1;
	uint64_t sum = 0;

	if (argc > 3 || (argc == 3 && strcmp(argv[2], "slow"))) {
		fprintf(stderr, "usage: hotspots [ROUNDS] [slow]\n");
		return 2;
	}
	if (argc == 3)
		reps = 4;
	for (int i = 0; i < HS_N; i++)
		hs_data[i] = (uint64_t)i * 2654435761u;
	for (long r = 0; r < rounds; r++) {
		sum = wl_mix(sum, hs_mix((uint64_t)r));
		sum = wl_mix(sum, hs_scan(reps));
		sum = wl_mix(sum, hs_sum());
	}
	printf("hotspots: rounds=%ld slow=%s sum=%" PRIu64 "\n", rounds, reps > 1 ? "yes" : "no",
	       sum);
	return 0;
}
