/* daemon/dmn_pme.c - ProfileMe records into per-instruction aggregates, pairs into overlap. */
/*
 * [PM] ProfileMe, MICRO'97. Each VS_REC_PROFILEME adds one sample to its instruction's
 * aggregates (pdb.h PDB_FT_PROFILEME). The two records of a pair come one after the other, first
 * then second (vs_abi.h); the daemon holds the first until the second arrives and then adds both
 * with their pair terms (§5.2.3): for each instruction I of the pair, "useful overlap" when the
 * other issued while I was in progress (from I's fetch to I's retire-ready, or to its abort) and
 * the other retired; and I's in-progress latency. The intra-pair fetch latency puts the two on
 * one time line: the second was fetched pair_lat cycles after the first.
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

static void add(struct dmn *d, const struct vs_rec_profileme *r, bool paired, bool use)
{
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
}

void dmn_do_profileme(struct dmn *d, const struct vs_rec_profileme *r)
{
	if (r->pair == 2 && d->pme_have_first) {
		const struct vs_rec_profileme *a = &d->pme_first;

		add(d, a, true, useful(a, r, r->pair_lat));
		add(d, r, true, useful(r, a, -(int64_t)r->pair_lat));
		d->pme_have_first = false;
		return;
	}
	if (d->pme_have_first) { /* its second never came: a single sample */
		d->pme_have_first = false;
		add(d, &d->pme_first, false, false);
	}
	if (r->pair == 1) {
		d->pme_first = *r;
		d->pme_have_first = true;
		return;
	}
	add(d, r, false, false);
}
