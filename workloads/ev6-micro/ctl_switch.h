/* workloads/ev6-micro/ctl_switch.h - the switch kernel ctl_switch1 and ctl_switch4 share. */
#ifndef CTL_SWITCH_H
#define CTL_SWITCH_H

#include "micro.h"

/*
 * A switch through a 4-entry jump table of absolute addresses; case = i & mask (mask 0: always
 * case 0; mask 3: the four cases in rotation). Blocks, each an aligned quadpack:
 *   A: and i,mask,c | s8addq c,tab,p | ldq t,0(p) | jmp (t)
 *   case k: addq acc_k,1 | nop | nop | br C
 *   C: addq i,1 | subq n | nop | bne n,A
 * Every iteration: A, one case block, C: 3 fetch cycles, 12 instructions.
 */
/* clang-format off */
__asm__(K_BEGIN("k_ctl_switch")
	"\tclr $0\n\tclr $1\n\tclr $3\n\tclr $4\n\tclr $5\n\tclr $8\n"
	"\t.align 6\n"
	"1:\tand $1,$18,$2\n"
	"\ts8addq $2,$17,$6\n"
	"\tldq $6,0($6)\n"
	"\tjmp $31,($6),0\n"
	"\t.globl k_ctl_case0\nk_ctl_case0:\n"
	"\taddq $3,1,$3\n\tnop\n\tnop\n\tbr $31,3f\n"
	"\t.globl k_ctl_case1\nk_ctl_case1:\n"
	"\taddq $4,1,$4\n\tnop\n\tnop\n\tbr $31,3f\n"
	"\t.globl k_ctl_case2\nk_ctl_case2:\n"
	"\taddq $5,1,$5\n\tnop\n\tnop\n\tbr $31,3f\n"
	"\t.globl k_ctl_case3\nk_ctl_case3:\n"
	"\taddq $8,1,$8\n\tnop\n\tnop\n\tbr $31,3f\n"
	"3:\taddq $1,1,$1\n"
	"\tsubq $16,1,$16\n"
	"\tnop\n"
	"\tbne $16,1b\n"
	"\taddq $3,$4,$0\n\taddq $0,$5,$0\n\taddq $0,$8,$0\n"
	"\tret $31,($26),1\n" K_END("k_ctl_switch"));
/* clang-format on */
unsigned long k_ctl_switch(long n, const void *const *tab, long mask);
extern const char k_ctl_case0[], k_ctl_case1[], k_ctl_case2[], k_ctl_case3[];

static int ctl_switch_main(const char *name, int argc, char **argv, long mask)
{
	const void *tab[4] = { k_ctl_case0, k_ctl_case1, k_ctl_case2, k_ctl_case3 };
	long n = micro_iters(argc, argv, 20000);

	return micro_report(name, n, k_ctl_switch(n, tab, mask));
}

#endif /* CTL_SWITCH_H */
