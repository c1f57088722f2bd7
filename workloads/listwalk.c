/* workloads/listwalk.c - pointer-chasing walk of a linked list whose nodes are shuffled in memory. */
/*
 * 65536 nodes of 64 bytes (4 MB, one node per 21164 S-cache/B-cache block of 64 bytes), linked in a
 * random permutation order, so each `p = p->next` load depends on the previous one and almost always
 * misses in the caches and the TLB: the classic latency-bound loop (ldq next; ldq value; add; bne).
 *
 * Usage: listwalk [LAPS]   (default 40; a lap visits 65536 nodes at about 5 instructions each:
 *                          about 13 M for the walk plus about 7 M to build the list)
 * Output: node count, laps, the sum of node values and the id of the node where the walk ends
 * (where it began); exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

#define LW_NODES 65536

struct lw_node {
	struct lw_node *next;
	uint64_t value;
	uint64_t id;
	uint64_t pad[5]; /* to 64 bytes: one node per cache block */
};

/*
 * lw_walk - follow @p for @laps complete laps of the circular list, summing the values; *@end is
 * where the walk stopped.
 */
static __attribute__((noipa)) uint64_t lw_walk(const struct lw_node *p, long laps,
					       const struct lw_node **end)
{
	uint64_t sum = 0;
	long n = laps * LW_NODES;

	while (n-- > 0) {
		sum += p->value;
		p = p->next;
	}
	*end = p;
	return sum;
}

int main(int argc, char **argv)
{
	long laps = wl_arg(argc, argv, 40);
	struct lw_node *nodes = malloc(LW_NODES * sizeof(*nodes));
	uint32_t *order = malloc(LW_NODES * sizeof(*order));
	const struct lw_node *end;
	uint64_t seed = 99, sum;
	long i;

	if (!nodes || !order) {
		fprintf(stderr, "listwalk: out of memory\n");
		return 1;
	}
	for (i = 0; i < LW_NODES; i++) {
		order[i] = (uint32_t)i;
		nodes[i].value = (uint64_t)i * 3 + 1;
		nodes[i].id = (uint64_t)i;
	}
	for (i = LW_NODES - 1; i > 0; i--) {
		long j = (long)(wl_rand(&seed) % (uint64_t)(i + 1));
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < LW_NODES; i++)
		nodes[order[i]].next = &nodes[order[(i + 1) % LW_NODES]];
	sum = lw_walk(&nodes[order[1]], laps, &end);
	printf("listwalk: nodes=%d laps=%ld sum=%" PRIu64 " end_id=%" PRIu64 "\n", LW_NODES, laps,
	       sum, end->id);
	free(order);
	free(nodes);
	return 0;
}
