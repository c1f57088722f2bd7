/* daemon/dmn_pme.c - ProfileMe records into per-instruction aggregates, pairs into overlap. */
/*
 * [PM] ProfileMe, MICRO'97. Each VS_REC_PROFILEME adds one sample to its instruction's
 * aggregates (pdb.h PDB_FT_PROFILEME). The two records of a pair come one after the other, first
 * then second (vs_abi.h); the daemon holds the first until the second arrives and then adds both
 * with their pair terms (§5.2.3): for each instruction I of the pair, "useful overlap" when the
 * other issued while I was in progress (from I's fetch to I's retire-ready, or to its abort) and
 * the other retired; and I's in-progress latency. The intra-pair fetch latency puts the two on
 * one time line: the second was fetched pair_lat cycles after the first.
 *
 * Path profiles (§5.3): each sample's global branch history goes into its instruction's history
 * hotlist, and each paired sample's partner (offset, fetch distance) into its partner hotlist
 * when the partner lies in the same image, else counts apart (pdb.h PDB_FT_PMPATHS).
 */
#include <string.h>

#include "dmn_int.h"

/* Cycles from fetch to retire ready (retired) or to the abort (aborted; 0: unknown). */
static uint64_t inprog(const struct vs_rec_profileme *r)
{
	if (r->status != VS_PME_RETIRED)
		return r->span;
	return (uint64_t)r->lat[0] + r->lat[1] + r->lat[2] + r->lat[3];
}

/* Cycles from fetch to issue (retired only). */
static uint64_t to_issue(const struct vs_rec_profileme *r)
{
	return (uint64_t)r->lat[0] + r->lat[1] + r->lat[2];
}

/* Did `other`, fetched `dt` cycles after `self` (may be negative), issue while self was in
 * progress, and retire? */
static bool useful(const struct vs_rec_profileme *self, const struct vs_rec_profileme *other,
		   int64_t dt)
{
	int64_t t;

	if (other->status != VS_PME_RETIRED)
		return false;
	t = dt + (int64_t)to_issue(other);
	return t >= 0 && t <= (int64_t)inprog(self);
}

/* The pair partner `other` of r (in image im) as pmpaths stores it; false: another image. */
static bool partner_of(struct dmn *d, const struct dmn_image *im, const struct vs_rec_profileme *r,
		       const struct vs_rec_profileme *other, struct pdb_partner *pt)
{
	const struct vs_rec_profileme *second = r->pair == 2 ? r : other;

	if (dmn_lookup(d, other->pid, other->pc, &pt->offset) != im || pt->offset > PDB_PMP_OFF_MAX)
		return false;
	pt->later = r->pair == 1;
	/* in fetched instructions: every second of a pair has its distance (vs_abi.c refuses one
	 * without), so pmpaths' distances in cycles (PDB_PMP_CYCLES) are never needed here */
	pt->cycles = false;
	pt->dist = second->pair_dist;
	return true;
}

static void add(struct dmn *d, const struct vs_rec_profileme *r,
		const struct vs_rec_profileme *other, bool use)
{
	bool paired = other != NULL;
	struct pdb_partner pt;
	struct pdb_profileme p;
	struct dmn_image *im;
	uint64_t off;

	im = dmn_lookup(d, r->pid, r->pc, &off);
	if (!im) {
		d->st.obs_unknown++;
		return;
	}
	memset(&p, 0, sizeof(p));
	p.status[r->status] = 1;
	for (unsigned int i = 0; i < PDB_PME_EVENTS; i++)
		p.events[i] = (r->events >> i) & 1;
	if (r->status == VS_PME_RETIRED) {
		for (unsigned int i = 0; i < PDB_PME_LATS; i++)
			p.lat_sum[i] = r->lat[i];
		p.retire_delay_sum = r->retire_delay;
		p.hist[vs_lat_bucket((uint32_t)inprog(r))] = 1;
	}
	if (paired) {
		p.pair_samples = 1;
		p.useful = use;
		p.inprog_sum = inprog(r);
		p.wsum = d->pme_window ? d->pme_window : 1;
	}
	if (d->pme_period.lo) {
		/* one pair every S fetched instructions is two uniform samples: each stands for
		 * S / 2 of them when the run had pairs */
		p.samples_p = 1;
		p.events2 = (uint64_t)d->pme_period.lo + d->pme_period.hi;
		if (d->pme_window)
			p.events2 = (p.events2 + 1) / 2;
	}
	if (pdb_prof_add_profileme(im->prof, off, &p))
		d->st.merge_errors++;
	if (pdb_prof_pmp_sample(im->prof, off, r->path & ((1u << PDB_PMP_HIST_BITS) - 1), paired,
				paired && partner_of(d, im, r, other, &pt) ? &pt : NULL))
		d->st.merge_errors++;
}

void dmn_do_profileme(struct dmn *d, const struct vs_rec_profileme *r)
{
	if (r->pair == 2 && d->pme_have_first) {
		const struct vs_rec_profileme *a = &d->pme_first;

		add(d, a, r, useful(a, r, r->pair_lat));
		add(d, r, a, useful(r, a, -(int64_t)r->pair_lat));
		d->pme_have_first = false;
		return;
	}
	if (d->pme_have_first) { /* its second never came: a single sample */
		d->pme_have_first = false;
		add(d, &d->pme_first, NULL, false);
	}
	if (r->pair == 1) {
		d->pme_first = *r;
		d->pme_have_first = true;
		return;
	}
	add(d, r, NULL, false);
}
