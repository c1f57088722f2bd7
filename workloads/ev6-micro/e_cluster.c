/* workloads/ev6-micro/e_cluster.c - EV6 micro: a chain that crosses between the two integer clusters. */
#include "micro.h"

/*
 * Body: 4 x ("mulq t0,t8,t0"; "maxub8 t0,zero,t0"), nop, nop, subq n, bne: 12 instructions.
 * The multiply issues only on U1 (cluster 1) and the MVI maxub8 only on U0 (cluster 0)
 * (GCC ev6.md: "Multiplies issue only to U1", "Motion video insns also issue only to U0";
 * HRM Table 2-2 [U]), so every link of the chain crosses clusters.
 * Expected 48 cycles/iteration: per pair 7 (imul, Table 2-4) + 3 (MVI, GCC ev6.md; the HRM's
 * Table 2-4 [U]) + 2 x 1 cross-cluster delay (HRM §2.2 / Fig. 2-1: each cluster has its own
 * register file copy, written one cycle late by the other; GCC ev6.md says the same) = 12;
 * 4 pairs = 48 (40 without the crossing delay).
 */
#define PAIR "\tmulq $1,$22,$1\n\tmaxub8 $1,$31,$1\n"
/* clang-format off */
__asm__(K_BEGIN("k_e_cluster")
	"\tlda $1,5($31)\n\tlda $22,1($31)\n"
	"\t.align 6\n"
	"1:\t" PAIR PAIR PAIR PAIR
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tmov $1,$0\n"
	"\tret $31,($26),1\n" K_END("k_e_cluster"));
/* clang-format on */
unsigned long k_e_cluster(long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 2000);

	return micro_report("e_cluster", n, k_e_cluster(n));
}
