/* workloads/ev6-micro/m_replay_sl.c - EV6 micro: a store-load order replay loop (stWait learns it). */
#include "micro.h"

/*
 * Body: mulq p,one,p | stq i,0(p) | ldq v,0(a1) | addq s,v,s | addq i,1,i | subq n | nop | bne:
 * 8 instructions. p always equals a1: the store and the load touch the same quadword, but the
 * store's address comes out of a 7-cycle multiply chain (loop-carried) while the load's is
 * ready at once. Without a prediction the load issues first; when the store issues it finds a
 * newer load to its bytes already issued: a store-load order replay trap (HRM §2.11) on that
 * load (the planted conflict: vreplay names this store for this load).
 * The trap sets the load's stWait bit; from then on it waits for all older stores (§2.11).
 * Expected 7.0 cycles/iteration [U: stWait as in A5]: the loop-carried mulq chain (7, Table
 * 2-4, U1 only, one cluster); the store and the waiting load hang off it without feeding it.
 * One more trap (14 cycles, Table 2-1) each time the stWait bits are cleared (every 16384
 * cycles [U]): + 14 x 7 / 16384 = 0.006. A model without stWait would trap every iteration:
 * about 7 + 14 = 21.
 */
/* clang-format off */
__asm__(K_BEGIN("k_m_replay_sl")
	"\tmov $17,$2\n\tlda $22,1($31)\n\tclr $3\n\tclr $5\n"
	"\t.align 6\n"
	"1:\tmulq $2,$22,$2\n"
	"\tstq $3,0($2)\n"
	"\tldq $4,0($17)\n"
	"\taddq $5,$4,$5\n"
	"\taddq $3,1,$3\n"
	"\tsubq $16,1,$16\n"
	"\tnop\n"
	"\tbne $16,1b\n"
	"\tmov $5,$0\n"
	"\tret $31,($26),1\n" K_END("k_m_replay_sl"));
/* clang-format on */
unsigned long k_m_replay_sl(long n, long *cell);

static long cell[8] __attribute__((aligned(64)));

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);

	return micro_report("m_replay_sl", n, k_m_replay_sl(n, cell));
}
