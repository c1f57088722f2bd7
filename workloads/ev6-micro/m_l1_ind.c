/* workloads/ev6-micro/m_l1_ind.c - EV6 micro: independent loads that hit the D-cache, two a cycle. */
#include "micro.h"

/*
 * Body: 10 x "ldq tK,8K(a1)" from one 80-byte block (D-cache resident), subq n, bne:
 * 12 instructions, 3 quadpacks.
 * Expected 5 cycles/iteration: loads issue only on L0 and L1 (HRM Table 2-2) and the dual-ported
 * D-cache takes two a cycle (HRM §2.1, Fig. 2-1): 10 / 2 = 5; nothing depends on the loads;
 * fetch needs 3 cycles.
 */
/* clang-format off */
__asm__(K_BEGIN("k_m_l1_ind")
	"\t.align 6\n"
	"1:\tldq $1,0($17)\n\tldq $2,8($17)\n\tldq $3,16($17)\n\tldq $4,24($17)\n"
	"\tldq $5,32($17)\n\tldq $6,40($17)\n\tldq $7,48($17)\n\tldq $8,56($17)\n"
	"\tldq $22,64($17)\n\tldq $23,72($17)\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\taddq $1,$23,$0\n"
	"\tret $31,($26),1\n" K_END("k_m_l1_ind"));
/* clang-format on */
unsigned long k_m_l1_ind(long n, const long *block);

static long block[10] __attribute__((aligned(128))) = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 10000);

	return micro_report("m_l1_ind", n, k_m_l1_ind(n, block));
}
