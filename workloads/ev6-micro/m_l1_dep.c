/* workloads/ev6-micro/m_l1_dep.c - EV6 micro: dependent loads that hit the D-cache (pointer chase). */
#include "ring.h"

/*
 * A ring of 8 lines (512 bytes, always in the D-cache after the first lap); body: 8 x
 * "ldq t0,0(t0)", nop, nop, subq n, bne: 12 instructions.
 * Expected 24 cycles/iteration: integer load-use latency on a D-cache hit is 3 (HRM Table 2-4),
 * 8 dependent loads; the loop counter runs ahead.
 */
#define LD "\tldq $1,0($1)\n"
#define LD4 LD LD LD LD
/* clang-format off */
__asm__(K_BEGIN("k_m_l1_dep")
	"\tmov $17,$1\n"
	"\t.align 6\n"
	"1:\t" LD4 LD4
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tmov $1,$0\n"
	"\tret $31,($26),1\n" K_END("k_m_l1_dep"));
/* clang-format on */
unsigned long k_m_l1_dep(long n, void **ring);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);
	void **r = ring_make(8, 1);

	return micro_report("m_l1_dep", n, k_m_l1_dep(n, r) != 0);
}
