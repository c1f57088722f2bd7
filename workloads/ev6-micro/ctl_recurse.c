/* workloads/ev6-micro/ctl_recurse.c - EV6 micro: recursion to depth 8 and back, returns predicted by the stack. */
#include "micro.h"

/*
 * Each iteration calls rec(8), which recurses to depth 8 saving ra on the stack:
 *   L:  lda a0,8 | bsr rec | subq n | bne n,L                       (the driver loop)
 *   R1: subq a0,1 | beq a0,RB | lda sp,-16(sp) | stq ra,0(sp)
 *   R2: bsr rec | ldq ra,0(sp) | lda sp,16(sp) | ret
 *   RB: ret | nop | nop | nop
 * Fetch cycles per iteration (one aligned block a cycle, a taken branch ends a block):
 *   driver to the bsr 1; levels a0 = 8..2 (7 of them) going down: R1 + R2 = 2 each, 14; the
 *   deepest level: R1 (beq taken) + RB = 2; the 7 returns: R2 from the ldq, 1 each, 7; back in
 *   the driver: subq, bne, 1.  Total 25 = 3 x depth + 1.
 * Instructions: 4 + 7 x 8 + (2 + 1) = 63.
 * Expected 25 cycles/iteration [U: A1]: every ret is predicted by the return-address stack
 * (HRM §2.1.1.3; its depth exceeds 8 [U]), every bsr target by the line predictor; the saved ra
 * is read back long after its store (no order trap), and ret does not wait for the ldq since
 * its target is predicted; the sp chain is 1-cycle lda's.
 */
/* clang-format off */
__asm__(K_BEGIN("k_ctl_recurse")
	"\tmov $26,$1\n"
	"\tclr $0\n"
	"\t.align 6\n"
	"1:\tlda $16,8($31)\n"
	"\tbsr $26,k_ctl_rec\n"
	"\tsubq $17,1,$17\n"
	"\tbne $17,1b\n"
	"\tmov $1,$26\n"
	"\tlda $0,1($31)\n"
	"\tret $31,($26),1\n"
	"\t.align 6\n"
	"k_ctl_rec:\n"
	"\tsubq $16,1,$16\n"
	"\tbeq $16,2f\n"
	"\tlda $30,-16($30)\n"
	"\tstq $26,0($30)\n"
	"\tbsr $26,k_ctl_rec\n"
	"\tldq $26,0($30)\n"
	"\tlda $30,16($30)\n"
	"\tret $31,($26),1\n"
	"2:\tret $31,($26),1\n"
	"\tnop\n\tnop\n\tnop\n" K_END("k_ctl_recurse"));
/* clang-format on */
unsigned long k_ctl_recurse(long unused, long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);

	return micro_report("ctl_recurse", n, k_ctl_recurse(0, n));
}
