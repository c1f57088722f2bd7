/* workloads/storeload.c - store-then-load loops with planted address conflicts, for replay traps. */
/*
 * On the 21264 a load that issues before an older store to the same address must be replayed (the
 * value-sampling slides, "21264 replay traps"; vreplay names the store that caused each). This
 * program plants such (store, load) pairs and, as controls, pairs that never touch the same bytes.
 * Every access in the planted loops is volatile, so the compiler emits each store and load exactly
 * once, in source order; the store and the load use different pointers (different base registers)
 * that the compiler cannot prove equal. Each pair sits in its own noipa function on source lines
 * marked "PLANT <id> store" / "PLANT <id> load"; workloads/storeload.planted lists them in
 * machine-readable form, and tests/workloads/check-planted.sh checks that file against this source
 * and the binary's line table.
 *
 *   id        kind        function        store                load                  bytes
 *   same      conflict    sl_same         stq p[i & 15]        ldq q[i & 15], q == p   same 8 bytes
 *   overlap   conflict    sl_overlap      stl upper half of    ldq w[i & 15]           4 of the 8
 *                                         w[i & 15] (via h)                            bytes overlap
 *   next      conflict    sl_next_iter    stq p[i & 7]         ldq q[(i - 1) & 7]     the word the
 *                                         (end of iteration)   (start of iteration)   previous
 *                                                                                     iteration stored
 *   disjoint  noconflict  sl_disjoint     stq a[i & 15]        ldq b[i & 15],          never: 512
 *                                                              b = a + 64 words        bytes apart
 *   before    noconflict  sl_load_first   stq p[i & 15]        ldq q[i & 15] issued    load precedes
 *                                         (after the load)     before the store        the store
 *
 * Usage: storeload [ITERATIONS]   (default 400000 per function; each iteration is about 8-10
 *                                  instructions: about 22 M in all)
 * Output: one checksum per function; exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

#define SL_NOIPA __attribute__((noipa))

static uint64_t buf_same[16], buf_overlap[16], buf_next[8], buf_disjoint[128], buf_first[16];

/* sl_same - store a word, then load the same word back through another pointer. */
SL_NOIPA uint64_t sl_same(volatile uint64_t *p, volatile uint64_t *q, long n);
SL_NOIPA uint64_t sl_same(volatile uint64_t *p, volatile uint64_t *q, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++) {
		p[i & 15] = (uint64_t)i * 3; /* PLANT same store */
		s += q[i & 15]; /* PLANT same load */
	}
	return s;
}

/* sl_overlap - store 4 bytes into the upper half of a quadword, then load the whole quadword. */
SL_NOIPA uint64_t sl_overlap(volatile uint32_t *h, volatile uint64_t *w, long n);
SL_NOIPA uint64_t sl_overlap(volatile uint32_t *h, volatile uint64_t *w, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++) {
		h[2 * (i & 15) + 1] = (uint32_t)i; /* PLANT overlap store */
		s += w[i & 15]; /* PLANT overlap load */
	}
	return s;
}

/* sl_next_iter - load the word the previous iteration stored, at the top of the next iteration. */
SL_NOIPA uint64_t sl_next_iter(volatile uint64_t *p, volatile uint64_t *q, long n);
SL_NOIPA uint64_t sl_next_iter(volatile uint64_t *p, volatile uint64_t *q, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 1; i <= n; i++) {
		uint64_t v = q[(i - 1) & 7]; /* PLANT next load */

		s = s * 3 + (v >> 7) + (uint64_t)i;
		p[i & 7] = s; /* PLANT next store */
	}
	return s;
}

/* sl_disjoint - store to one buffer, load from another 512 bytes away: never the same bytes. */
SL_NOIPA uint64_t sl_disjoint(volatile uint64_t *a, volatile uint64_t *b, long n);
SL_NOIPA uint64_t sl_disjoint(volatile uint64_t *a, volatile uint64_t *b, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++) {
		a[i & 15] = (uint64_t)i; /* PLANT disjoint store */
		s += b[i & 15]; /* PLANT disjoint load */
	}
	return s;
}

/* sl_load_first - load a word, then store to it: the load is older, so no replay is possible. */
SL_NOIPA uint64_t sl_load_first(volatile uint64_t *p, volatile uint64_t *q, long n);
SL_NOIPA uint64_t sl_load_first(volatile uint64_t *p, volatile uint64_t *q, long n)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++) {
		s += q[i & 15]; /* PLANT before load */
		p[i & 15] = s + 1; /* PLANT before store */
	}
	return s;
}

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 400000);
	uint64_t r1, r2, r3, r4, r5;
	long i;

	for (i = 0; i < 128; i++)
		buf_disjoint[i] = (uint64_t)i * 0x101;
	for (i = 0; i < 16; i++)
		buf_overlap[i] = (uint64_t)i;
	for (i = 0; i < 8; i++)
		buf_next[i] = (uint64_t)i + 1;
	r1 = sl_same(buf_same, buf_same, n);
	r2 = sl_overlap((volatile uint32_t *)buf_overlap, buf_overlap, n);
	r3 = sl_next_iter(buf_next, buf_next, n);
	r4 = sl_disjoint(buf_disjoint, buf_disjoint + 64, n);
	r5 = sl_load_first(buf_first, buf_first, n);
	printf("storeload: n=%ld same=%016" PRIx64 " overlap=%016" PRIx64 " next=%016" PRIx64 "\n",
	       n, r1, r2, r3);
	printf("storeload: disjoint=%016" PRIx64 " before=%016" PRIx64 "\n", r4, r5);
	return 0;
}
