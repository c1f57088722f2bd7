/* workloads/ev6-micro/m_replay_ll.c - EV6 micro: a load-load order replay every iteration. */
#include "micro.h"

/*
 * Body: mulq p,one,p | ldq a,0(p) | ldq b,0(a1) | addq s,b,s | addq s,a,s | subq n | nop | bne:
 * 8 instructions. p always equals a1: both loads read the same quadword; the older one's
 * address comes out of the loop-carried 7-cycle multiply chain, the newer one's is ready at
 * once, so the newer load issues first. When the older load issues it finds a newer load to the
 * same bytes already issued: a load-load order replay trap (HRM §2.11): the newer load and
 * everything after it (the next iteration's multiply included) are aborted and refetched. The
 * stWait table is set only by store-load traps (§2.11), so this happens every iteration.
 * Expected 7 + 14 + 2 = 23 cycles/iteration [U]: the multiply (7, Table 2-4), then the Mbox order
 * trap penalty (14, Table 2-1) from the older load's issue to the refetched target's issue [U:
 * A12]; the refetch starts at the target's quadpack (ldq, addq), then the next (addq, subq, nop,
 * bne), then the loop head: the next multiply issues 2 cycles after the target. (Revised from
 * 7 + 14 = 21, which had the penalty end at the next multiply: EXPECTED.md.)
 */
/* clang-format off */
__asm__(K_BEGIN("k_m_replay_ll")
	"\tmov $17,$2\n\tlda $22,1($31)\n\tclr $5\n"
	"\t.align 6\n"
	"1:\tmulq $2,$22,$2\n"
	"\tldq $3,0($2)\n"
	"\tldq $4,0($17)\n"
	"\taddq $5,$4,$5\n"
	"\taddq $5,$3,$5\n"
	"\tsubq $16,1,$16\n"
	"\tnop\n"
	"\tbne $16,1b\n"
	"\tmov $5,$0\n"
	"\tret $31,($26),1\n" K_END("k_m_replay_ll"));
/* clang-format on */
unsigned long k_m_replay_ll(long n, const long *cell);

static long cell[8] __attribute__((aligned(64))) = { 3 };

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);

	return micro_report("m_replay_ll", n, k_m_replay_ll(n, cell));
}
