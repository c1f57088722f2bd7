/* workloads/tree.c - a binary search tree built with malloc and walked by recursion. */
/*
 * Each round inserts N random keys into an unbalanced binary search tree (one malloc per node,
 * recursive insert), then walks it recursively (sum of keys, height, leaf count), looks up as
 * many keys again, and frees it recursively: recursion, many small procedures with few samples
 * per block, calls into malloc/free, and pointer loads that miss.
 *
 * Usage: tree [ROUNDS]   (default 4; a round has 6000 nodes)
 * Output: rounds, nodes, and checksums of the walks; exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

#define TR_NODES 6000

struct tr_node {
	struct tr_node *left, *right;
	uint64_t key;
	uint64_t count;
};

static __attribute__((noipa)) struct tr_node *tr_insert(struct tr_node *t, uint64_t key)
{
	if (!t) {
		t = malloc(sizeof(*t));
		if (!t) {
			fprintf(stderr, "tree: out of memory\n");
			exit(1);
		}
		t->left = t->right = NULL;
		t->key = key;
		t->count = 1;
		return t;
	}
	if (key < t->key)
		t->left = tr_insert(t->left, key);
	else if (key > t->key)
		t->right = tr_insert(t->right, key);
	else
		t->count++;
	return t;
}

static __attribute__((noipa)) uint64_t tr_sum(const struct tr_node *t)
{
	if (!t)
		return 0;
	return t->key * t->count + tr_sum(t->left) + tr_sum(t->right);
}

static __attribute__((noipa)) long tr_height(const struct tr_node *t)
{
	long l, r;

	if (!t)
		return 0;
	l = tr_height(t->left);
	r = tr_height(t->right);
	return 1 + (l > r ? l : r);
}

static __attribute__((noipa)) long tr_leaves(const struct tr_node *t)
{
	if (!t)
		return 0;
	if (!t->left && !t->right)
		return 1;
	return tr_leaves(t->left) + tr_leaves(t->right);
}

static __attribute__((noipa)) const struct tr_node *tr_find(const struct tr_node *t, uint64_t key)
{
	while (t && t->key != key)
		t = key < t->key ? t->left : t->right;
	return t;
}

static __attribute__((noipa)) void tr_free(struct tr_node *t)
{
	if (!t)
		return;
	tr_free(t->left);
	tr_free(t->right);
	free(t);
}

int main(int argc, char **argv)
{
	long rounds = wl_arg(argc, argv, 4);
	uint64_t seed = 4242, sum = WL_SUM_INIT;
	long found = 0;

	for (long r = 0; r < rounds; r++) {
		struct tr_node *root = NULL;
		uint64_t s2 = seed;

		for (long i = 0; i < TR_NODES; i++)
			root = tr_insert(root, wl_rand(&seed) % 100000);
		sum = wl_mix(sum, tr_sum(root));
		sum = wl_mix(sum, (uint64_t)tr_height(root));
		sum = wl_mix(sum, (uint64_t)tr_leaves(root));
		for (long i = 0; i < TR_NODES; i++)
			found += tr_find(root, wl_rand(&s2) % 100000) != NULL;
		tr_free(root);
	}
	printf("tree: rounds=%ld nodes=%d found=%ld sum=%016" PRIx64 "\n", rounds, TR_NODES, found,
	       sum);
	return 0;
}
