/* workloads/ev6-micro/e_fmul_dep.c - EV6 micro: a dependent chain of 8 floating-point multiplies. */
#include "fp.h"

/*
 * Body: 8 x "mult f12,f10,f12" (f10 = 1.0), nop, nop, subq n, bne: 12 instructions.
 * Expected 32 cycles/iteration: fmul latency 4 (HRM Table 2-4), one chain on the FM pipe.
 */
#define FM "\tmult $f12,$f10,$f12\n"
#define FM4 FM FM FM FM
/* clang-format off */
__asm__(K_BEGIN("k_e_fmul_dep") FP_SETUP
	"\t.align 6\n"
	"1:\t" FM4 FM4
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tstt $f12,24($17)\n"
	"\tret $31,($26),1\n" K_END("k_e_fmul_dep"));
/* clang-format on */
void k_e_fmul_dep(long n, double *k);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 2000);

	k_e_fmul_dep(n, fp_k);
	return fp_report("e_fmul_dep", n);
}
