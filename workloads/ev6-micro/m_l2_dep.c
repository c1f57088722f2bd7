/* workloads/ev6-micro/m_l2_dep.c - EV6 micro: dependent loads that miss the D-cache and hit the B-cache. */
#include "ring.h"

/*
 * A ring of 8192 lines (512 KB) in random order: every load of the chase goes to a line last
 * touched 8192 loads earlier, long evicted from the 64 KB 2-way D-cache (1024 lines), and
 * still in the board cache (B-cache: 1-16 MB on 21264 systems, 2 MB on the DS-10L [U: the
 * model's size]). 64 pages of 8 KB: within the 128-entry DTB (HRM §2.1.6), no TLB misses.
 * Body: 8 x "ldq t0,0(t0)", nop, nop, subq n, bne: 12 instructions.
 * Expected 8 x 13 = 104 cycles/iteration: HRM Table 2-4 gives an integer load that misses the
 * D-cache and hits a 6-cycle B-cache 13 cycles [U: the model's B-cache latency must be that
 * 6-cycle B-cache for 13 to hold].
 */
#define LD "\tldq $1,0($1)\n"
#define LD4 LD LD LD LD
/* clang-format off */
__asm__(K_BEGIN("k_m_l2_dep")
	"\tmov $17,$1\n"
	"\t.align 6\n"
	"1:\t" LD4 LD4
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tmov $1,$0\n"
	"\tret $31,($26),1\n" K_END("k_m_l2_dep"));
/* clang-format on */
unsigned long k_m_l2_dep(long n, void **ring);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 4000);
	void **r = ring_make(8192, 1);

	/* one lap first, so that the ring is in the B-cache (not in memory) when timing starts */
	k_m_l2_dep(8192 / 8, r);
	return micro_report("m_l2_dep", n, k_m_l2_dep(n, r) != 0);
}
