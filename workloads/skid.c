/* workloads/skid.c - a load that misses, then 255 nops: where do event samples land? (ProfileMe Fig. 2) */
#include <stdio.h>
#include <stdlib.h>

#include "wl.h"

/*
 * ProfileMe (MICRO'97) §2, Figure 2: on a loop of one load followed by hundreds of nops, the PCs
 * an event-counter interrupt delivers for the load's D-cache events are smeared over the
 * instructions after it (the 21164's six-cycle delivery, the 21264's out-of-order retire), while
 * ProfileMe attributes them to the load. The load here walks an 8 MB array 64 bytes at a time
 * (one new D-cache block per iteration: a miss every time); the nops cannot stall, so any sample
 * on them is skid. The load's address is the global label skid_load (eval/run-skid.sh finds it
 * with nm). Argument: iterations (default 20000); prints the sum of the loaded words.
 */
#define NOPS16                                                     \
	"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n" \
	"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n"
#define NOPS64 NOPS16 NOPS16 NOPS16 NOPS16

/* clang-format off */
__asm__(".text\n\t.align 6\n\t.globl k_skid\n\t.ent k_skid\nk_skid:\n"
	"\t.frame $30,0,$26,0\n\t.prologue 0\n\t.set noreorder\n\t.set noat\n"
	"\tclr $0\n"
	"1:\n\t.globl skid_load\nskid_load:\n"
	"\tldq $1,0($17)\n"
	"\tlda $17,64($17)\n"
	"\taddq $0,$1,$0\n"
	NOPS64 NOPS64 NOPS64 NOPS16 NOPS16 NOPS16
	"\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tret $31,($26),1\n"
	"\t.set at\n\t.set reorder\n\t.end k_skid\n");
/* clang-format on */
unsigned long k_skid(long n, const unsigned long *a);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	size_t words = 8u << 20 >> 3; /* 8 MB */
	unsigned long *a;

	if (n < 1 || (size_t)n * 8 > words) {
		fprintf(stderr, "usage: skid [ITERATIONS]  (1..%zu)\n", words / 8);
		return 2;
	}
	a = malloc(words * sizeof(*a));
	if (!a)
		return 1;
	for (size_t i = 0; i < words; i++)
		a[i] = (i >> 3) & 7;
	printf("skid: %ld iterations, sum %lu\n", n, k_skid(n, a));
	free(a);
	return 0;
}
