/* workloads/ev6-micro/e_imul_ind.c - EV6 micro: 8 independent integer multiplies, one pipe. */
#include "micro.h"

/*
 * Body: 8 x "mulq tK,t8,tK" for 8 different registers, nop, nop, subq n, bne: 12 instructions.
 * Expected 8 cycles/iteration: all multiplies issue on U1 only (HRM Table 2-2; GCC ev6.md),
 * which accepts one a cycle (pipelined: GCC ev6.md reserves U1 for one cycle [U: the HRM's
 * repeat rate]); each register's own chain is one 7-cycle multiply per iteration (Table 2-4),
 * shorter than 8, and 12 instructions fetch in 3 cycles.
 */
/* clang-format off */
__asm__(K_BEGIN("k_e_imul_ind")
	"\tlda $1,1($31)\n\tlda $2,2($31)\n\tlda $3,3($31)\n\tlda $4,4($31)\n"
	"\tlda $5,5($31)\n\tlda $6,6($31)\n\tlda $7,7($31)\n\tlda $8,8($31)\n"
	"\tlda $22,1($31)\n"
	"\t.align 6\n"
	"1:\tmulq $1,$22,$1\n\tmulq $2,$22,$2\n\tmulq $3,$22,$3\n\tmulq $4,$22,$4\n"
	"\tmulq $5,$22,$5\n\tmulq $6,$22,$6\n\tmulq $7,$22,$7\n\tmulq $8,$22,$8\n"
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\taddq $1,$8,$0\n"
	"\tret $31,($26),1\n" K_END("k_e_imul_ind"));
/* clang-format on */
unsigned long k_e_imul_ind(long n);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);

	return micro_report("e_imul_ind", n, k_e_imul_ind(n));
}
