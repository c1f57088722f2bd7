/* pdb/pdb_pmpath.c - pmpaths.prof in memory: ProfileMe path-history and pair-partner hotlists. */
#include <stdlib.h>

#include "pdb_int.h"

/*
 * The table of PDB_FT_PMPATHS (pdb.h): per instruction offset, a hotlist of the global branch
 * history each sample was fetched with, and one of the instructions it was paired with (ProfileMe,
 * MICRO'97 §5.3 "Path profiles": history bits and paired samples reconstruct the paths reaching
 * an instruction). Both are bounded Gibbons–Matias lists, as values.prof's.
 */

#define PMP_RNG_SEED 0x7064622d706d7074ull

int pdb_pmp_partner(const struct pdb_partner *pt, uint64_t *v)
{
	uint64_t d = pt->dist > PDB_PMP_DIST_MAX ? PDB_PMP_DIST_MAX : pt->dist;

	if (pt->offset > PDB_PMP_OFF_MAX || (!pt->cycles && d == 0))
		return -EINVAL;
	*v = (pt->later ? PDB_PMP_LATER : 0) | (pt->cycles ? PDB_PMP_CYCLES : 0) |
	     d << PDB_PMP_DIST_SHIFT | pt->offset;
	return 0;
}

int pdb_pmp_partner_decode(uint64_t v, struct pdb_partner *pt)
{
	pt->offset = v & PDB_PMP_OFF_MAX;
	pt->dist = (uint32_t)(v >> PDB_PMP_DIST_SHIFT) & PDB_PMP_DIST_MAX;
	pt->cycles = (v & PDB_PMP_CYCLES) != 0;
	pt->later = (v & PDB_PMP_LATER) != 0;
	return !pt->cycles && pt->dist == 0 ? -EINVAL : 0;
}

int pdb_pmpath_check(const struct pdb_pmpath *pp, const char **why)
{
	struct pdb_partner pt;
	uint32_t i;

	if (hotlist_validate(&pp->hist, why) || hotlist_validate(&pp->partners, why))
		return -EINVAL;
	if (pp->hist.n == 0) {
		*why = "no sample";
		return -EINVAL;
	}
	for (i = 0; i < pp->hist.used; i++)
		if (pp->hist.value[i] >> PDB_PMP_HIST_BITS) {
			*why = "a history value wider than 12 bits";
			return -EINVAL;
		}
	for (i = 0; i < pp->partners.used; i++)
		if (pdb_pmp_partner_decode(pp->partners.value[i], &pt)) {
			*why = "a partner at distance 0 instructions";
			return -EINVAL;
		}
	if (pp->other > pp->hist.n || pp->partners.n > pp->hist.n - pp->other) {
		*why = "more paired samples than samples";
		return -EINVAL;
	}
	return 0;
}

/* Seeded by what is merged, as pdb_proc.c's: the result does not depend on the order. */
static void merge_list(struct pdb_prof *p, uint64_t offset, unsigned int which, struct hotlist *dst,
		       const struct hotlist *src)
{
	uint64_t w[5] = { offset ^ (uint64_t)which << 56, dst->n, dst->tau, src->n, src->tau };

	hotlist_rng_seed(&p->rng, pdb_fnv64(PMP_RNG_SEED, w, sizeof(w)));
	hotlist_merge(dst, src, &p->rng);
}

int pdb_prof_add_pmpath(struct pdb_prof *p, uint64_t offset, const struct pdb_pmpath *pp)
{
	struct pdb_e_pmp *e;
	struct pdb_pmpath sum;
	const char *why;
	int err;

	if (pdb_pmpath_check(pp, &why))
		return -EINVAL;
	err = pdb_map_get(&p->t[PDB_T_PMPATHS], &offset, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1) {
		e->pp = *pp; /* exact: merging into an empty list would draw coins */
		return 0;
	}
	if (pp->hist.n > UINT64_MAX - e->pp.hist.n)
		return -EOVERFLOW;
	sum = e->pp;
	sum.other += pp->other;
	merge_list(p, offset, 0, &sum.hist, &pp->hist);
	merge_list(p, offset, 1, &sum.partners, &pp->partners);
	if (pdb_pmpath_check(&sum, &why))
		return -EOVERFLOW;
	e->pp = sum;
	return 0;
}

int pdb_prof_pmp_sample(struct pdb_prof *p, uint64_t offset, uint32_t history, bool paired,
			const struct pdb_partner *partner)
{
	struct pdb_e_pmp *e;
	uint64_t v = 0;
	int err;

	if (history >> PDB_PMP_HIST_BITS || (partner && !paired) ||
	    (partner && pdb_pmp_partner(partner, &v)))
		return -EINVAL;
	err = pdb_map_get(&p->t[PDB_T_PMPATHS], &offset, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1) {
		hotlist_init(&e->pp.hist, PDB_PMP_M);
		hotlist_init(&e->pp.partners, PDB_PMP_M);
	}
	if (e->pp.hist.n == UINT64_MAX)
		return -EOVERFLOW;
	hotlist_insert(&e->pp.hist, history, &p->rng);
	if (partner)
		hotlist_insert(&e->pp.partners, v, &p->rng);
	else if (paired)
		e->pp.other++;
	return 0;
}

static void fill_pmp(void *dst, const void *src)
{
	const struct pdb_e_pmp *e = src;
	struct pdb_pmp *a = dst;

	a->offset = e->off;
	a->pp = e->pp;
}

int pdb_prof_pmpaths(const struct pdb_prof *p, struct pdb_pmp **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_PMPATHS], sizeof(**out), pdb_cmp_off, fill_pmp,
				   (void **)out, n);
}
