/* workloads/ev6-micro/e_iadd_dep.c - EV6 micro: a dependent chain of 16 integer adds. */
#include "micro.h"

/*
 * Body: 16 x "addq t0,1,t0" (one chain), nop, nop, subq n, bne: 20 instructions, 5 quadpacks.
 * Expected 16 cycles/iteration: iadd latency 1 (HRM Table 2-4), one add a cycle; fetch/map
 * (5 cycles a body, 4 a cycle) and the loop counter run ahead in the 80-instruction window.
 * [U: A2: a chain of instructions that may issue in either cluster stays in one cluster; if
 * the arbiter alternated clusters, each hop would add the 1-cycle cross-cluster delay.]
 */
#define ADD "\taddq $1,1,$1\n"
#define ADD4 ADD ADD ADD ADD
/* clang-format off */
__asm__(K_BEGIN("k_e_iadd_dep")
	"\tclr $1\n"
	"\t.align 6\n"
	"1:\t" ADD4 ADD4 ADD4 ADD4
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tmov $1,$0\n"
	"\tret $31,($26),1\n" K_END("k_e_iadd_dep"));
/* clang-format on */
unsigned long k_e_iadd_dep(long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);

	return micro_report("e_iadd_dep", n, k_e_iadd_dep(n));
}
