/* workloads/ev6-micro/m_mem_dep.c - EV6 micro: dependent loads that miss both caches (memory latency). */
#include "ring.h"

/*
 * A 32 MB ring in address order (524288 lines), initialised front to back, chased from the
 * front: every load is to a line not touched since 32 MB of other lines were written, gone
 * from the D-cache and from any B-cache up to 16 MB (HRM §2.1: 1-16 MB). The 21264 has no
 * data prefetcher (software prefetch only), so a sequential chase gains nothing.
 * Body: 8 x "ldq t0,0(t0)", nop, nop, subq n, bne: 12 instructions.
 * Expected 8 x (80 + 13/128) = 641 cycles/iteration [U]: the memory latency is a property of
 * the system, not of the HRM: 80 cycles is our assumption [U: the model's memory latency
 * parameter; edit expected.tsv to the value EV6-MODEL.md documents]; one DTB miss (13 cycles, HRM Table 2-1)
 * every 128 loads (8 KB page / 64-byte line).
 */
#define LD "\tldq $1,0($1)\n"
#define LD4 LD LD LD LD
/* clang-format off */
__asm__(K_BEGIN("k_m_mem_dep")
	"\tmov $17,$1\n"
	"\t.align 6\n"
	"1:\t" LD4 LD4
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tmov $1,$0\n"
	"\tret $31,($26),1\n" K_END("k_m_mem_dep"));
/* clang-format on */
unsigned long k_m_mem_dep(long n, void **ring);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 2000);
	void **r;

	if (n > 32768) { /* 8 loads an iteration must not wrap around the ring */
		fprintf(stderr, "m_mem_dep: at most 32768 iterations\n");
		return 2;
	}
	r = ring_make(524288, 0);
	return micro_report("m_mem_dep", n, k_m_mem_dep(n, r) != 0);
}
