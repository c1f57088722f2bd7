/* workloads/callargs.c - procedures with planted arguments, returns and callers (vprof --args). */
/*
 * The value-sampling slides' "a function is always evaluated at zero" (slide 2) and "PC of calling
 * procedure" (slide 12), planted with exactly known shares to grade `vprof --args` and
 * `vprof --callers` (tests/tools/check-planted-args.sh). Every procedure is noipa (never inlined,
 * cloned or specialised for its constant argument), and every call uses its result afterwards
 * (never a tail call: a tail call is a branch, not a call). Shares are of the dynamic calls:
 *
 *   procedure    what                          value                   share
 *   ca_zero      a0 at entry                   0x0                     1.00
 *   ca_zero      v0 at its ret                 0xb (11)                1.00
 *   ca_ninety    a0 at entry                   0x7                     0.90  (else 0xd)
 *   ca_ninety    v0 at its ret                 0xe (2 x a0)            0.90
 *   ca_callee    caller (the calling insn)     the bsr in ca_site_a    0.70  (else ca_site_b)
 *
 * The 90/10 and 70/30 choices come from wl_rand with a fixed seed, drawn per call: the shares hold
 * to within 0.5 points over a run, and no window of a few calls sees a fixed pattern.
 *
 * Usage: callargs [CALLS]   (default 200000 rounds of the four calls: about 18.8 M instructions)
 * Output: the counts of each choice and a checksum; exit 0.
 */
#include <inttypes.h>

#include "wl.h"

#define CA_NOIPA __attribute__((noipa))

/* ca_zero - always called with x = 0: returns x * x + 11. */
CA_NOIPA uint64_t ca_zero(uint64_t x, uint64_t y);
CA_NOIPA uint64_t ca_zero(uint64_t x, uint64_t y)
{
	return x * x + 11 + (y & 0);
}

/* ca_ninety - called with 7 nine times in ten, else 13: returns 2 x. */
CA_NOIPA uint64_t ca_ninety(uint64_t x);
CA_NOIPA uint64_t ca_ninety(uint64_t x)
{
	return 2 * x;
}

/* ca_callee - called from ca_site_a 70% of the time, from ca_site_b 30%. */
CA_NOIPA uint64_t ca_callee(uint64_t x);
CA_NOIPA uint64_t ca_callee(uint64_t x)
{
	return x ^ 0x55;
}

CA_NOIPA uint64_t ca_site_a(uint64_t x);
CA_NOIPA uint64_t ca_site_a(uint64_t x)
{
	return ca_callee(x) + 1;
}

CA_NOIPA uint64_t ca_site_b(uint64_t x);
CA_NOIPA uint64_t ca_site_b(uint64_t x)
{
	return ca_callee(x) + 2;
}

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 200000), i, nine = 0, site_a = 0;
	uint64_t rng = 12345, sum = 0;

	for (i = 0; i < n; i++) {
		uint64_t r = wl_rand(&rng);
		int is_nine = r % 10 != 0, is_a = (r >> 8) % 10 < 7;

		sum = wl_mix(sum, ca_zero(0, r));
		sum = wl_mix(sum, ca_ninety(is_nine ? 7 : 13));
		sum = wl_mix(sum, is_a ? ca_site_a(r) : ca_site_b(r));
		nine += is_nine;
		site_a += is_a;
	}
	printf("calls %ld\nninety 7: %ld (%.4f)\nsite_a: %ld (%.4f)\nchecksum %016" PRIx64 "\n", n,
	       nine, (double)nine / n, site_a, (double)site_a / n, sum);
	return 0;
}
