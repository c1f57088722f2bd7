/* workloads/ev6-micro/e_issue4.c - EV6 micro: 20 independent integer operations, the 4-wide limit. */
#include "micro.h"

/*
 * Body: 18 addq spread over 6 registers (3 each, so no chain is longer than 3 cycles), subq n,
 * bne: 20 integer instructions, 5 quadpacks.
 * Expected 5 cycles/iteration: fetch and map take 4 instructions a cycle (HRM §2.1.1, §2.1.2)
 * and the integer queue issues at most 4 a cycle to U0, U1, L0, L1 (HRM §2.2; adds may use any
 * pipe, the branch an upper one): 20 / 4 = 5. Every chain (3 adds, 1 cycle each, Table 2-4)
 * fits inside that.
 */
#define A6                                                 \
	"\taddq $1,1,$1\n\taddq $2,1,$2\n\taddq $3,1,$3\n" \
	"\taddq $4,1,$4\n\taddq $5,1,$5\n\taddq $6,1,$6\n"
/* clang-format off */
__asm__(K_BEGIN("k_e_issue4")
	"\tclr $1\n\tclr $2\n\tclr $3\n\tclr $4\n\tclr $5\n\tclr $6\n"
	"\t.align 6\n"
	"1:\t" A6 A6 A6
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\taddq $1,$6,$0\n"
	"\tret $31,($26),1\n" K_END("k_e_issue4"));
/* clang-format on */
unsigned long k_e_issue4(long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 10000);

	return micro_report("e_issue4", n, k_e_issue4(n));
}
