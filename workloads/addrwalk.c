/* workloads/addrwalk.c - loads with planted address patterns (vprof --addresses, prefetching). */
/*
 * Issue 20 item 2: one hot loop (aw_loop) with three loads whose addresses are known exactly, to
 * grade `vprof --addresses` against the machine's truth (tests/tools/check-planted-addrs.sh):
 *
 *   load                 address                                      prefetch candidate
 *   aw_scale (volatile)  invariant: &aw_scale                         yes: address invariant
 *   aw_recs[i].val       strided: 24-byte structs walked in order,    yes: stride +24
 *                        wrapping every AW_RECS (one stride in 1024
 *                        is -24 x 1023)
 *   aw_big[r]            random: r from wl_rand, AW_BIG words         no
 *
 * aw_loop is noipa and the invariant load volatile, so the compiler neither hoists it nor folds
 * the loop away.
 *
 * Usage: addrwalk [ITERATIONS]   (default 200000)
 * Output: the iterations and a checksum; exit 0.
 */
#include <inttypes.h>

#include "wl.h"

#define AW_RECS 1024
#define AW_BIG 65536 /* words: 512 KB, beyond the caches */

struct aw_rec {
	uint64_t key, val, pad; /* 24 bytes */
};

volatile uint64_t aw_scale = 3;
struct aw_rec aw_recs[AW_RECS];
uint64_t aw_big[AW_BIG];

__attribute__((noipa)) uint64_t aw_loop(long n, uint64_t *rng);
__attribute__((noipa)) uint64_t aw_loop(long n, uint64_t *rng)
{
	uint64_t sum = 0, r = *rng;
	long i, k = 0;

	for (i = 0; i < n; i++) {
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		sum += aw_scale * aw_recs[k].val + aw_big[(r >> 17) & (AW_BIG - 1)];
		if (++k == AW_RECS)
			k = 0;
	}
	*rng = r;
	return sum;
}

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 200000), i;
	uint64_t rng = 12345, sum;

	for (i = 0; i < AW_RECS; i++)
		aw_recs[i].val = (uint64_t)i;
	for (i = 0; i < AW_BIG; i++)
		aw_big[i] = (uint64_t)i * 7;
	sum = aw_loop(n, &rng);
	printf("iterations %ld\nchecksum %016" PRIx64 "\n", n, sum);
	return 0;
}
