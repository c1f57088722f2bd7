/* workloads/ev6-micro/e_imul_dep.c - EV6 micro: a dependent chain of 8 integer multiplies. */
#include "micro.h"

/*
 * Body: 8 x "mulq t0,t8,t0" (t8 = 1: the value stays), nop, nop, subq n, bne: 12 instructions.
 * Expected 56 cycles/iteration: imul latency 7 (HRM Table 2-4); every multiply issues on U1
 * (HRM Table 2-2; GCC ev6.md "Multiplies issue only to U1"), so the chain stays in one cluster.
 */
#define MUL "\tmulq $1,$22,$1\n"
#define MUL4 MUL MUL MUL MUL
/* clang-format off */
__asm__(K_BEGIN("k_e_imul_dep")
	"\tlda $1,3($31)\n\tlda $22,1($31)\n"
	"\t.align 6\n"
	"1:\t" MUL4 MUL4
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tmov $1,$0\n"
	"\tret $31,($26),1\n" K_END("k_e_imul_dep"));
/* clang-format on */
unsigned long k_e_imul_dep(long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 2000);

	return micro_report("e_imul_dep", n, k_e_imul_dep(n));
}
