/* workloads/copy.c - the DCPI copy loop: copy an array of 8-byte words, unrolled by hand by four. */
/*
 * The loop of the DCPI paper (SOSP '97, section 6, Figures 2 and 7), instruction for instruction:
 *
 *	1:	ldq	t4, 0(t1)		four loads from the source...
 *		addq	t0, 4, t0		...the word counter...
 *		ldq	t5, 8(t1)
 *		ldq	t6, 16(t1)
 *		ldq	a0, 24(t1)
 *		lda	t1, 32(t1)
 *		stq	t4, 0(t2)		...four stores to the destination...
 *		cmpult	t0, v0, t4		...counter < count
 *		stq	t5, 8(t2)
 *		stq	t6, 16(t2)
 *		stq	a0, 24(t2)
 *		lda	t2, 32(t2)
 *		bne	t4, 1b
 *
 * GCC would turn a C loop into a pointer-compare loop (cmpeq/beq) or a memcpy call, so the loop is
 * written once in inline assembly (registers chosen by the compiler); copy_words_c() is the same copy
 * in C, used once at the end to check the assembly. The arrays are 4 MB each, far larger than the
 * 21164's caches (8 KB D-cache, 96 KB S-cache), so the loads miss and the stores back up in the write
 * buffer, as in the paper.
 *
 * Usage: copy [PASSES]   (default 8; a pass copies 512 Ki words: 131072 iterations x 13 = 1.7 M
 *                         instructions in the loop; the whole default run is about 20 M)
 * Output: the word count, the pass count, a checksum of the destination, whether the C copy agrees;
 * exit status 0.
 */
#include <inttypes.h>
#include <string.h>

#include "wl.h"

#define COPY_WORDS (512 * 1024)

/* copy_words - copy @n words (a multiple of 4, at least 4) from @src to @dst: the paper's loop. */
static __attribute__((noipa)) void copy_words(uint64_t *dst, const uint64_t *src, unsigned long n)
{
	uint64_t a, b, c, d;
	unsigned long i = 0;

	asm volatile(".align 4\n"
		     "1:	ldq	%[a], 0(%[s])\n"
		     "	addq	%[i], 4, %[i]\n"
		     "	ldq	%[b], 8(%[s])\n"
		     "	ldq	%[c], 16(%[s])\n"
		     "	ldq	%[d], 24(%[s])\n"
		     "	lda	%[s], 32(%[s])\n"
		     "	stq	%[a], 0(%[t])\n"
		     "	cmpult	%[i], %[n], %[a]\n"
		     "	stq	%[b], 8(%[t])\n"
		     "	stq	%[c], 16(%[t])\n"
		     "	stq	%[d], 24(%[t])\n"
		     "	lda	%[t], 32(%[t])\n"
		     "	bne	%[a], 1b\n"
		     : [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c), [d] "=&r"(d), [s] "+r"(src),
		       [t] "+r"(dst), [i] "+r"(i)
		     : [n] "r"(n)
		     : "memory");
}

/* copy_words_c - the same copy in C, four words per iteration (the compiler's version). */
static __attribute__((noipa, optimize("no-tree-loop-distribute-patterns"))) void
copy_words_c(uint64_t *dst, const uint64_t *src, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i += 4) {
		uint64_t a = src[0], b = src[1], c = src[2], d = src[3];

		src += 4;
		dst[0] = a;
		dst[1] = b;
		dst[2] = c;
		dst[3] = d;
		dst += 4;
	}
}

int main(int argc, char **argv)
{
	long passes = wl_arg(argc, argv, 8);
	uint64_t *src = malloc(COPY_WORDS * sizeof(*src));
	uint64_t *dst = malloc(COPY_WORDS * sizeof(*dst));
	uint64_t *chk = malloc(COPY_WORDS * sizeof(*chk));
	uint64_t seed = 1, sum = WL_SUM_INIT;
	long p, i;
	int same;

	if (!src || !dst || !chk) {
		fprintf(stderr, "copy: out of memory\n");
		return 1;
	}
	for (i = 0; i < COPY_WORDS; i++)
		src[i] = wl_rand(&seed);
	for (p = 0; p < passes; p++) {
		copy_words(dst, src, COPY_WORDS);
		/* Change one source word so each pass copies different data. */
		src[(p * 7919) % COPY_WORDS] ^= dst[(p * 104729 + 1) % COPY_WORDS];
	}
	for (i = 0; i < COPY_WORDS; i += 97)
		sum = wl_mix(sum, dst[i]);
	copy_words_c(chk, dst, COPY_WORDS);
	same = memcmp(chk, dst, COPY_WORDS * sizeof(*dst)) == 0;
	printf("copy: words=%d passes=%ld checksum=%016" PRIx64 " c-copy-agrees=%s\n", COPY_WORDS,
	       passes, sum, same ? "yes" : "no");
	free(chk);
	free(dst);
	free(src);
	return same ? 0 : 1;
}
