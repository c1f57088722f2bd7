/* workloads/ev6-micro/ring.h - pointer rings for the EV6 load-latency microbenchmarks. */
#ifndef RING_H
#define RING_H

#include "micro.h"

#define RING_LINE 64 /* bytes: the 21264's cache block (HRM §2.1) */

/*
 * A ring of `lines` 64-byte lines in one aligned allocation, the first quadword of each line
 * pointing to the next line of the ring: in address order (shuffle 0) or in a fixed
 * pseudo-random order (a Fisher-Yates shuffle with xorshift64), so that a chase visits every
 * line once per lap. Exits 1 when out of memory. Returns the first line of the ring.
 */
static inline void **ring_make(size_t lines, int shuffle)
{
	size_t *order = malloc(lines * sizeof(*order));
	char *mem = aligned_alloc(8192, lines * RING_LINE);
	unsigned long x = 0x2545f4914f6cdd1dUL;

	if (!order || !mem) {
		fprintf(stderr, "ring: out of memory for %zu lines\n", lines);
		exit(1);
	}
	for (size_t i = 0; i < lines; i++)
		order[i] = i;
	for (size_t i = lines - 1; shuffle && i > 0; i--) {
		size_t j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % (i + 1));
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)
		*(void **)(mem + order[i] * RING_LINE) = mem + order[(i + 1) % lines] * RING_LINE;
	x = order[0];
	free(order);
	return (void **)(mem + x * RING_LINE);
}

#endif /* RING_H */
