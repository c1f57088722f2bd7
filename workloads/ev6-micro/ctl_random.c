/* workloads/ev6-micro/ctl_random.c - EV6 micro: if-then on a random bit, mispredicted half the time. */
#include "micro.h"

/*
 * A 32 KB table of bytes, exactly half of them odd, in a fixed pseudo-random order (xorshift64,
 * Fisher-Yates), is walked cyclically; each iteration branches on the low bit of one byte.
 *   A: addq tab,i,p | ldbu b,0(p) | blbs b,B | br C
 *   B: addq y | nop | nop | nop              (falls through to C)
 *   C: addq i,1 | and i,mask | subq n | bne n,A
 * Not taken: A + C, 2 fetch cycles, 8 instructions. Taken: A (3), B, C: 3 cycles, 11
 * instructions. Over a whole table period (32768 iterations) exactly half are taken:
 * 9.5 instructions and a fetch bound of 2.5 cycles per iteration.
 * Expected 2.5 + 0.5 x 11.5 = 8.25 cycles/iteration [U]:
 *   a random bit defeats the predictors: the local history (10 bits, Fig. 2-2) and the global
 *   path history (12 bits, Fig. 2-3) see each context 8-32 times per period with a random next
 *   outcome, so about half the blbs are mispredicted [U: "about"]. The table (32 KB) stays in
 *   the 64 KB D-cache, so the branch's operand is a 3-cycle hit (Table 2-4). The blbs resolves
 *   at A's fetch + 8 (i from C's addq/and, fetched a cycle before A: addq tab,i at + 5, ldbu
 *   + 6, blbs + 8); the 7-cycle penalty (Table 2-1, from the branch's issue [U: A12]) refetches
 *   the correct path at + 12: B or the br, C, and the next A at + 14, against 3 (taken) or 2
 *   (not taken) cycles when predicted: 11.5 more per mispredict. (Revised from 2.5 + 0.5 x 7,
 *   which ignored when the branch resolves: EXPECTED.md.)
 * Run with a multiple of 32768 iterations for the exact instruction count.
 */
#define TAB_BYTES 32768

static unsigned char tab[TAB_BYTES] __attribute__((aligned(64)));

static void fill(void)
{
	unsigned long x = 0x9e3779b97f4a7c15UL;

	for (long i = 0; i < TAB_BYTES; i++)
		tab[i] = (unsigned char)i; /* half odd */
	for (long i = TAB_BYTES - 1; i > 0; i--) {
		long j;
		unsigned char t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (long)(x % (unsigned long)(i + 1));
		t = tab[i];
		tab[i] = tab[j];
		tab[j] = t;
	}
}

/* clang-format off */
__asm__(K_BEGIN("k_ctl_random")
	"\tclr $0\n\tclr $1\n\tclr $4\n"
	"\tlda $7,32767($31)\n"
	"\t.align 6\n"
	"1:\taddq $17,$1,$6\n"
	"\tldbu $5,0($6)\n"
	"\tblbs $5,2f\n"
	"\tbr $31,3f\n"
	"2:\taddq $4,1,$4\n"
	"\tnop\n"
	"\tnop\n"
	"\tnop\n"
	"3:\taddq $1,1,$1\n"
	"\tand $1,$7,$1\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\tmov $4,$0\n"
	"\tret $31,($26),1\n" K_END("k_ctl_random"));
/* clang-format on */
unsigned long k_ctl_random(long n, const unsigned char *tab);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, TAB_BYTES);

	fill();
	return micro_report("ctl_random", n, k_ctl_random(n, tab));
}
