/* workloads/ev6-micro/m_stfwd.c - EV6 micro: a chain through memory, store-to-load forwarding. */
#include "micro.h"

/*
 * Body: 4 x ("ldq t0,0(a1)"; "addq t0,1,t0"; "stq t0,0(a1)"), nop, nop, subq n, bne:
 * 16 instructions. Each load reads what the store just before it wrote: the value travels
 * through the store queue (forwarding, HRM §2.1.6 / §2.11).
 * The loads' address is ready at once, so at first each load issues before the older store
 * and takes a store-load order replay trap (HRM §2.11); the trap sets the load's stWait bit,
 * and from then on the load waits until every older store has issued.
 * Expected 4 x 5 = 20 cycles/iteration [U: A5]: per link, the forwarded load 3 (the D-cache hit
 * latency, Table 2-4 [U: forwarding as fast as a hit]), the add 1, and the load issues the
 * cycle after the store it waits for [U]: 3 + 1 + 1 = 5. The stWait bits are cleared every
 * 16384 cycles [U: parameter], after which each of the 4 loads traps once more (14 cycles,
 * Table 2-1): 4 x 14 / 16384 x 20 = 0.07 cycles/iteration, so 20.1.
 */
#define LINK "\tldq $1,0($17)\n\taddq $1,1,$1\n\tstq $1,0($17)\n"
/* clang-format off */
__asm__(K_BEGIN("k_m_stfwd")
	"\t.align 6\n"
	"1:\t" LINK LINK LINK LINK
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tldq $0,0($17)\n"
	"\tret $31,($26),1\n" K_END("k_m_stfwd"));
/* clang-format on */
unsigned long k_m_stfwd(long n, long *cell);

static long cell[8] __attribute__((aligned(64)));

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);

	return micro_report("m_stfwd", n, k_m_stfwd(n, cell));
}
