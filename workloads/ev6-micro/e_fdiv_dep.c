/* workloads/ev6-micro/e_fdiv_dep.c - EV6 micro: a dependent chain of 4 double-precision divides. */
#include "fp.h"

/*
 * Body: 4 x "divt f12,f10,f12" (f10 = 1.0), nop, nop, subq n, bne: 8 instructions.
 * Expected 60 cycles/iteration: a double divide takes 15 cycles (Desikan et al. ISCA 2001
 * Table 2; GCC ev6.md; HRM Table 2-4 [U: the page was not read for divides]), not data-dependent
 * on the 21264 [U].
 */
#define DV "\tdivt $f12,$f10,$f12\n"
/* clang-format off */
__asm__(K_BEGIN("k_e_fdiv_dep") FP_SETUP
	"\t.align 6\n"
	"1:\t" DV DV DV DV
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tstt $f12,24($17)\n"
	"\tret $31,($26),1\n" K_END("k_e_fdiv_dep"));
/* clang-format on */
void k_e_fdiv_dep(long n, double *k);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 2000);

	k_e_fdiv_dep(n, fp_k);
	return fp_report("e_fdiv_dep", n);
}
