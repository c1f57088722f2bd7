/* pdb/pdb_addr.c - addrs.prof in memory: per-load effective-address and stride hotlists. */
#include <stdlib.h>

#include "pdb_int.h"

/*
 * The table of PDB_FT_ADDRS (pdb.h): one hotlist per (load offset, kind), kind PDB_ADDR_EA (the
 * addresses the load read) or PDB_ADDR_STRIDE (address minus the same load's previous one in an
 * interpretation). The values are raw: virtual addresses and 64-bit differences, not offsets.
 */

#define ADDR_RNG_SEED 0x7064622d61646472ull

bool pdb_addr_kind_ok(unsigned int kind)
{
	return kind == PDB_ADDR_EA || kind == PDB_ADDR_STRIDE;
}

int pdb_prof_add_addr(struct pdb_prof *p, uint64_t offset, unsigned int kind,
		      const struct hotlist *h)
{
	struct pdb_e_addr key, *e;
	uint64_t w[5];
	int err;

	if (!pdb_addr_kind_ok(kind) || hotlist_validate(h, NULL))
		return -EINVAL;
	memset(&key, 0, sizeof(key));
	key.off = offset;
	key.kind = kind;
	err = pdb_map_get(&p->t[PDB_T_ADDRS], &key, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1) {
		e->h = *h; /* exact: merging into an empty list would draw coins */
		return 0;
	}
	/* Seeded by what is merged, as the value and procedure hotlists: order-independent. */
	w[0] = offset ^ (uint64_t)kind << 56;
	w[1] = e->h.n;
	w[2] = e->h.tau;
	w[3] = h->n;
	w[4] = h->tau;
	hotlist_rng_seed(&p->rng, pdb_fnv64(ADDR_RNG_SEED, w, sizeof(w)));
	hotlist_merge(&e->h, h, &p->rng);
	return 0;
}

int pdb_cmp_addr(const void *a, const void *b)
{
	const struct pdb_e_addr *x = *(const struct pdb_e_addr *const *)a;
	const struct pdb_e_addr *y = *(const struct pdb_e_addr *const *)b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static void fill_addr(void *dst, const void *src)
{
	const struct pdb_e_addr *e = src;
	struct pdb_addr *a = dst;

	a->offset = e->off;
	a->kind = e->kind;
	a->h = e->h;
}

int pdb_prof_addrs(const struct pdb_prof *p, struct pdb_addr **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_ADDRS], sizeof(**out), pdb_cmp_addr, fill_addr,
				   (void **)out, n);
}
