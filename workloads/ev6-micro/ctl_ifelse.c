/* workloads/ev6-micro/ctl_ifelse.c - EV6 micro: if-then-else on an alternating (predictable) condition. */
#include "micro.h"

/*
 * Blocks, each an aligned quadpack:
 *   A: blbs i,B | addq x | nop | br C        (i even: blbs not taken, then-arm, br to C)
 *   B: addq y | nop | nop | nop              (i odd: else-arm, falls through to C)
 *   C: addq i,1 | subq n | nop | bne n,A
 * Even i: A (4 instructions, the br ends the block) then C: 2 fetch cycles, 8 instructions.
 * Odd i: A up to the taken blbs (1 instruction; the rest of the block is discarded), B, C:
 * 3 fetch cycles, 9 instructions.
 * Expected 2.5 cycles/iteration, 8.5 instructions (even iteration counts):
 *   the blbs alternates T, N; its 10-bit local history (HRM Fig. 2-2) and the global path history
 *   both see a period-2 pattern, so after warm-up nothing is mispredicted; fetch is one block a
 *   cycle with no bubble after a predicted taken branch [U: A1]; 4 instructions a block never
 *   exceed map/issue width (HRM §2.2), and the only loop-carried chains are 1-cycle adds.
 */
/* clang-format off */
__asm__(K_BEGIN("k_ctl_ifelse")
	"\tclr $0\n\tclr $1\n\tclr $3\n\tclr $4\n"
	"\t.align 6\n"
	"1:\tblbs $1,2f\n"
	"\taddq $3,1,$3\n"
	"\tnop\n"
	"\tbr $31,3f\n"
	"2:\taddq $4,1,$4\n"
	"\tnop\n"
	"\tnop\n"
	"\tnop\n"
	"3:\taddq $1,1,$1\n"
	"\tsubq $16,1,$16\n"
	"\tnop\n"
	"\tbne $16,1b\n"
	"\tsll $4,32,$4\n"
	"\taddq $3,$4,$0\n"
	"\tret $31,($26),1\n" K_END("k_ctl_ifelse"));
/* clang-format on */
unsigned long k_ctl_ifelse(long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 20000);

	return micro_report("ctl_ifelse", n, k_ctl_ifelse(n));
}
