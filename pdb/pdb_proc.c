/* pdb/pdb_proc.c - procs.prof in memory: procedure argument, return and caller hotlists. */
#include <stdlib.h>

#include "pdb_int.h"

/*
 * The table of PDB_FT_PROCS (pdb.h): one hotlist per (offset, kind, register). CALLER hotlists
 * hold (key id + 1) << 48 | offset, the key id indexing the profile's interned keys (shared with
 * the conflicts table); files store the index in their own key table, merges re-map the ids.
 */

#define PROC_RNG_SEED 0x7064622d70726f63ull

bool pdb_proc_reg_ok(unsigned int kind, unsigned int reg)
{
	switch (kind) {
	case PDB_PROC_ARG:
		return (reg >= 16 && reg <= 21) || (reg >= 48 && reg <= 53);
	case PDB_PROC_RET:
		return reg == 0 || reg == 32;
	case PDB_PROC_CALLER:
		return reg == 26;
	default:
		return false;
	}
}

int pdb_proc_remap(struct hotlist *h, const uint32_t *map, uint32_t nmap)
{
	uint32_t i;

	for (i = 0; i < h->used; i++) {
		uint64_t id = h->value[i] >> PDB_PROC_KEY_SHIFT;

		if (id == 0 || id > nmap)
			return -EINVAL;
		h->value[i] = (uint64_t)(map[id - 1] + 1) << PDB_PROC_KEY_SHIFT |
			      (h->value[i] & PDB_PROC_OFF_MAX);
	}
	return 0;
}

static bool callers_ok(const struct pdb_prof *p, const struct hotlist *h)
{
	uint32_t i;

	for (i = 0; i < h->used; i++) {
		uint64_t id = h->value[i] >> PDB_PROC_KEY_SHIFT;

		if (id == 0 || id > p->nkeys)
			return false;
	}
	return true;
}

int pdb_prof_add_proc(struct pdb_prof *p, uint64_t offset, unsigned int kind, unsigned int reg,
		      const struct hotlist *h)
{
	struct pdb_e_proc key, *e;
	uint64_t w[5];
	int err;

	if (!pdb_proc_reg_ok(kind, reg) || hotlist_validate(h, NULL))
		return -EINVAL;
	if (kind == PDB_PROC_CALLER && !callers_ok(p, h))
		return -EINVAL;
	memset(&key, 0, sizeof(key));
	key.off = offset;
	key.kind = kind;
	key.reg = reg;
	err = pdb_map_get(&p->t[PDB_T_PROCS], &key, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1) {
		e->h = *h; /* exact: merging into an empty list would draw coins */
		return 0;
	}
	/* Seeded by what is merged, as pdb_prof.c's value hotlists: order-independent results. */
	w[0] = offset ^ (uint64_t)kind << 56 ^ (uint64_t)reg << 48;
	w[1] = e->h.n;
	w[2] = e->h.tau;
	w[3] = h->n;
	w[4] = h->tau;
	hotlist_rng_seed(&p->rng, pdb_fnv64(PROC_RNG_SEED, w, sizeof(w)));
	hotlist_merge(&e->h, h, &p->rng);
	return 0;
}

int pdb_prof_caller_value(struct pdb_prof *p, const char *key, uint64_t off, uint64_t *v)
{
	uint32_t id;
	int err;

	if (!key || (*key && !pdb_key_is_valid(key)))
		return -EINVAL;
	if (off > PDB_PROC_OFF_MAX)
		return -ERANGE;
	err = pdb_prof_intern(p, key, &id);
	if (err)
		return err;
	*v = (uint64_t)(id + 1) << PDB_PROC_KEY_SHIFT | off;
	return 0;
}

int pdb_prof_caller_decode(const struct pdb_prof *p, uint64_t v, const char **key, uint64_t *off)
{
	uint64_t id = v >> PDB_PROC_KEY_SHIFT;

	if (id == 0 || id > p->nkeys)
		return -EINVAL;
	*key = p->keys[id - 1];
	*off = v & PDB_PROC_OFF_MAX;
	return 0;
}

int pdb_cmp_proc(const void *a, const void *b)
{
	const struct pdb_e_proc *x = *(const struct pdb_e_proc *const *)a;
	const struct pdb_e_proc *y = *(const struct pdb_e_proc *const *)b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->reg < y->reg ? -1 : x->reg > y->reg;
}

static void fill_proc(void *dst, const void *src)
{
	const struct pdb_e_proc *e = src;
	struct pdb_proc *a = dst;

	a->offset = e->off;
	a->kind = e->kind;
	a->reg = e->reg;
	a->h = e->h;
}

int pdb_prof_procs(const struct pdb_prof *p, struct pdb_proc **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_PROCS], sizeof(**out), pdb_cmp_proc, fill_proc,
				   (void **)out, n);
}
