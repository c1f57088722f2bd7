/* workloads/ev6-micro/e_fadd_dep.c - EV6 micro: a dependent chain of 8 floating-point adds. */
#include "fp.h"

/*
 * Body: 8 x "addt f12,f11,f12" (f11 = 0.0), nop, nop, subq n, bne: 12 instructions.
 * Expected 32 cycles/iteration: fadd latency 4 (HRM Table 2-4; the 6-cycle case is only for a
 * consumer that is an FP store or FTOI), one chain on the FA pipe.
 */
#define FA "\taddt $f12,$f11,$f12\n"
#define FA4 FA FA FA FA
/* clang-format off */
__asm__(K_BEGIN("k_e_fadd_dep") FP_SETUP
	"\t.align 6\n"
	"1:\t" FA4 FA4
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tstt $f12,24($17)\n"
	"\tret $31,($26),1\n" K_END("k_e_fadd_dep"));
/* clang-format on */
void k_e_fadd_dep(long n, double *k);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 2000);

	k_e_fadd_dep(n, fp_k);
	return fp_report("e_fadd_dep", n);
}
