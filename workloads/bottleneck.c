/* workloads/bottleneck.c - ProfileMe's Figure 7: three loops, latency vs wasted issue slots. */
/*
 * [PM] ProfileMe, MICRO'97 §6, Figure 7: on an out-of-order machine an instruction's total
 * latency (fetch to retire-ready, over all its executions) does not rank bottlenecks, because
 * the concurrency around it differs from loop to loop; the issue slots wasted while it was in
 * progress do. Three loops, each in its own noipa function:
 *
 *   bn_busy   the over-ranked one: a load per iteration that misses the D-cache and hits the
 *             B-cache (a 1 MB table walked by 64-byte lines), beside independent integer work
 *             that keeps the issue slots busy while it waits. Run many times, its load has the
 *             largest total latency of the program but wastes few slots.
 *   bn_chase  the planted bottleneck: a pointer chase through 4 MB of shuffled 64-byte nodes
 *             (each load misses to memory and the next one needs its result): nothing else to
 *             issue while it waits, so nearly every slot of its in-progress time is wasted.
 *   bn_mul    a multiply chain (7-cycle latency on the 21264) with a little independent work:
 *             in between.
 *
 * Usage: bottleneck [SCALE]   (default 1: about 13 M instructions; the loops' iterations
 *                             scale with it)
 * Output: one checksum line; exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

#define BN_TABLE (1u << 17) /* words: 1 MB, in the 2 MB B-cache, not in the 64 KB D-cache */
#define BN_NODES 65536u /* 64-byte nodes: 4 MB, beyond the B-cache */

struct bn_node {
	struct bn_node *next;
	uint64_t value;
	uint64_t pad[6];
};

static __attribute__((noipa)) uint64_t bn_busy(const uint64_t *t, long n)
{
	uint64_t a = 0, b = 1, c = 2, d = 3, e = 0;

	for (long i = 0; i < n; i++) {
		uint64_t x = t[((uint64_t)i * 8) & (BN_TABLE - 1)]; /* a D-cache miss each */
		uint64_t k = (uint64_t)i;

		a += k ^ 0x5555;
		b += (k << 3) ^ 0x1234;
		c += (k >> 1) + 77;
		d += (k | 9) ^ (k << 5);
		e += x;
	}
	return a ^ b ^ c ^ d ^ e;
}

static __attribute__((noipa)) uint64_t bn_chase(const struct bn_node *p, long n)
{
	uint64_t sum = 0;

	while (n-- > 0) {
		sum += p->value;
		p = p->next; /* the planted bottleneck: a dependent miss to memory */
	}
	return sum;
}

static __attribute__((noipa)) uint64_t bn_mul(long n)
{
	uint64_t x = 1, y = 0;

	for (long i = 0; i < n; i++) {
		x = x * 0x9e3779b97f4a7c15ull + 1; /* a 7-cycle chain */
		y += (uint64_t)i ^ 0x77;
	}
	return x ^ y;
}

int main(int argc, char **argv)
{
	long scale = wl_arg(argc, argv, 1);
	uint64_t *t = malloc(BN_TABLE * sizeof(*t));
	struct bn_node *nodes = malloc(BN_NODES * sizeof(*nodes));
	uint32_t *order = malloc(BN_NODES * sizeof(*order));
	uint64_t seed = 7, sum = 0;
	uint32_t i;

	if (!t || !nodes || !order) {
		fprintf(stderr, "bottleneck: out of memory\n");
		return 1;
	}
	for (i = 0; i < BN_TABLE; i += 8)
		t[i] = i;
	for (i = 0; i < BN_NODES; i++) {
		order[i] = i;
		nodes[i].value = i;
	}
	for (i = BN_NODES - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(wl_rand(&seed) % (i + 1)), s = order[i];

		order[i] = order[j];
		order[j] = s;
	}
	for (i = 0; i < BN_NODES; i++)
		nodes[order[i]].next = &nodes[order[(i + 1) % BN_NODES]];
	sum = wl_mix(sum, bn_busy(t, 700000 * scale));
	sum = wl_mix(sum, bn_chase(&nodes[order[0]], 40000 * scale));
	sum = wl_mix(sum, bn_mul(80000 * scale));
	printf("bottleneck: scale=%ld sum=%016" PRIx64 "\n", scale, sum);
	free(order);
	free(nodes);
	free(t);
	return 0;
}
