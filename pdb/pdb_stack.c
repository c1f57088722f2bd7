/* pdb/pdb_stack.c - stacks.prof in memory: sampled call stacks with their sample counts. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>

#include "pdb_int.h"

/*
 * The table of PDB_FT_STACKS (pdb.h; issue 16 item 4, `record -g`). An entry's key is the whole
 * stack (event, flags, depth, PDB_STK_DEPTH_MAX frame words, zero past depth), so equal stacks
 * meet in one entry and counts add exactly. Frame words are (key id + 1) << 48 | offset, the id
 * indexing the profile's interned keys (shared with conflicts and procs); files store the index
 * in their own key table, merges re-map the ids. A new stack is kept while the table holds fewer
 * than PDB_STK_MAX stacks (depth >= 1; the depth-0 records not counted, so a table read back in
 * file order keeps every stack it had); past that its samples go to the event's depth-0 record.
 */

int pdb_prof_add_stk_ids(struct pdb_prof *p, unsigned int event, unsigned int flags,
			 const uint64_t *frame, unsigned int depth, uint64_t count)
{
	struct pdb_e_stk key, *e;
	unsigned int i;
	int err;

	if (event >= PDB_EV_MAX || flags & ~PDB_STK_TRUNCATED || depth > PDB_STK_DEPTH_MAX ||
	    (!depth && flags))
		return -EINVAL;
	for (i = 0; i < depth; i++) {
		uint64_t id = frame[i] >> PDB_STK_KEY_SHIFT;

		if (id == 0 || id > p->nkeys)
			return -EINVAL;
	}
	if (!count)
		return 0;
	memset(&key, 0, sizeof(key));
	key.event = event;
	key.flags = (uint16_t)flags;
	key.depth = (uint16_t)depth;
	memcpy(key.frame, frame, depth * sizeof(*frame));
	e = pdb_map_find(&p->t[PDB_T_STACKS], &key);
	if (!e && depth && p->nstk >= PDB_STK_MAX) {
		/* Full: the samples are counted, their stack is not kept (pdb.h). */
		memset(&key, 0, sizeof(key));
		key.event = event;
	}
	if (!e) {
		err = pdb_map_get(&p->t[PDB_T_STACKS], &key, (void **)&e);
		if (err < 0)
			return err;
		if (err == 1 && key.depth)
			p->nstk++;
	}
	e->count = pdb_add_sat(e->count, count);
	return 0;
}

int pdb_prof_add_stack(struct pdb_prof *p, unsigned int event, unsigned int flags,
		       const struct pdb_frame *f, unsigned int depth, uint64_t count)
{
	uint64_t frame[PDB_STK_DEPTH_MAX];
	unsigned int i;
	uint32_t id;
	int err;

	if (event >= PDB_EV_MAX || depth > PDB_STK_DEPTH_MAX)
		return -EINVAL;
	for (i = 0; i < depth; i++) {
		if (!f[i].key || (*f[i].key && !pdb_key_is_valid(f[i].key)))
			return -EINVAL;
		if (f[i].offset > PDB_STK_OFF_MAX)
			return -ERANGE;
	}
	if (!count)
		return 0;
	for (i = 0; i < depth; i++) {
		err = pdb_prof_intern(p, f[i].key, &id);
		if (err)
			return err;
		frame[i] = (uint64_t)(id + 1) << PDB_STK_KEY_SHIFT | f[i].offset;
	}
	return pdb_prof_add_stk_ids(p, event, flags, frame, depth, count);
}

static int cmp_frame(uint64_t a, uint64_t b, const uint32_t *rank)
{
	uint32_t ra = rank[(a >> PDB_STK_KEY_SHIFT) - 1];
	uint32_t rb = rank[(b >> PDB_STK_KEY_SHIFT) - 1];

	if (ra != rb)
		return ra < rb ? -1 : 1;
	a &= PDB_STK_OFF_MAX;
	b &= PDB_STK_OFF_MAX;
	return a < b ? -1 : a > b;
}

/* qsort_r: rank is the place of each key id in byte order. */
static int cmp_stk(const void *pa, const void *pb, void *rank)
{
	const struct pdb_e_stk *x = *(const struct pdb_e_stk *const *)pa;
	const struct pdb_e_stk *y = *(const struct pdb_e_stk *const *)pb;
	unsigned int i;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	for (i = 0; i < x->depth; i++) {
		int c = cmp_frame(x->frame[i], y->frame[i], rank);

		if (c)
			return c;
	}
	return 0;
}

struct rank_of {
	const char *key;
	uint32_t id;
};

static int cmp_rank_of(const void *a, const void *b)
{
	return strcmp(((const struct rank_of *)a)->key, ((const struct rank_of *)b)->key);
}

int pdb_prof_sorted_stk(const struct pdb_prof *p, const struct pdb_e_stk ***out, uint32_t **rankp)
{
	struct rank_of *order;
	uint32_t *rank;
	const struct pdb_e_stk **v;
	const struct pdb_map *m = &p->t[PDB_T_STACKS];
	size_t i = 0, k = 0;
	void *e;

	*out = NULL;
	*rankp = NULL;
	order = pdb_malloc((p->nkeys + 1) * sizeof(*order));
	rank = pdb_malloc((p->nkeys + 1) * sizeof(*rank));
	v = pdb_malloc((m->n + 1) * sizeof(*v));
	if (!order || !rank || !v) {
		free(order);
		free(rank);
		free(v);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < p->nkeys; j++) {
		order[j].key = p->keys[j];
		order[j].id = j;
	}
	qsort(order, p->nkeys, sizeof(*order), cmp_rank_of);
	for (uint32_t j = 0; j < p->nkeys; j++)
		rank[order[j].id] = j;
	free(order);
	while ((e = pdb_map_next(m, &i)))
		v[k++] = e;
	qsort_r(v, k, sizeof(*v), cmp_stk, rank);
	*out = v;
	*rankp = rank;
	return 0;
}

int pdb_prof_stacks(const struct pdb_prof *p, struct pdb_stack **out, size_t *n)
{
	const struct pdb_e_stk **v;
	struct pdb_stack *a;
	uint32_t *rank;
	size_t i, cnt = p->t[PDB_T_STACKS].n;
	int err;

	*out = NULL;
	*n = 0;
	if (!cnt)
		return 0;
	err = pdb_prof_sorted_stk(p, &v, &rank);
	free(rank);
	if (err)
		return err;
	a = pdb_calloc(cnt, sizeof(*a));
	if (!a) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < cnt; i++) {
		const struct pdb_e_stk *e = v[i];

		a[i].event = e->event;
		a[i].flags = e->flags;
		a[i].depth = e->depth;
		a[i].count = e->count;
		for (unsigned int j = 0; j < e->depth; j++) {
			a[i].frame[j].key = p->keys[(e->frame[j] >> PDB_STK_KEY_SHIFT) - 1];
			a[i].frame[j].offset = e->frame[j] & PDB_STK_OFF_MAX;
		}
	}
	free(v);
	*out = a;
	*n = cnt;
	return 0;
}
