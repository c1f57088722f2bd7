/* workloads/ev6-micro/ctl_loop.c - EV6 micro: the tightest loop, one aligned quadpack per iteration. */
#include "micro.h"

/*
 * Body (one aligned 4-instruction block): addq, addq, subq, bne (taken).
 * Expected 1 cycle/iteration, 4 instructions:
 *   fetch delivers one aligned quadpack a cycle (HRM §2.1.1); the bne is taken every time and
 *   predicted so after warm-up (HRM §2.1.1.2, Figs. 2-2..2-4); the line predictor supplies the
 *   target line the next cycle, no bubble [U: assumption A1 of EXPECTED.md]. Map takes 4 a cycle,
 *   issue 3 integer ops + 1 branch (U0/U1) a cycle, 4 pipes (HRM §2.2); every dependence chain
 *   is 1 cycle (iadd, Table 2-4).
 */
/* clang-format off */
__asm__(K_BEGIN("k_ctl_loop")
	"\tclr $0\n\tclr $1\n"
	"\t.align 6\n"
	"1:\taddq $0,1,$0\n"
	"\taddq $1,3,$1\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\taddq $0,$1,$0\n"
	"\tret $31,($26),1\n" K_END("k_ctl_loop"));
/* clang-format on */
unsigned long k_ctl_loop(long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 20000);

	return micro_report("ctl_loop", n, k_ctl_loop(n));
}
