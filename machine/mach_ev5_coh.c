/* machine/mach_ev5_coh.c - the EV5 model's side of multiprocessor coherence (mach_coh.h). */
#include "mach_coh.h"
#include "mach_ev5_model.h"

/*
 * The 21164's caches as the snooping protocol sees them (machine/EV5-MODEL.md, "Multiprocessor
 * coherence"): a 64-byte coherence block is the S-cache and B-cache block and two D-cache
 * blocks. A snoop hits when any of the three levels holds the block; an invalidation removes it
 * from all three (the 21164's S-cache is inclusive of the D-cache and invalidates it through its
 * back map; the model simply clears the D-cache tags too). A store acquires its block when it
 * issues into the write buffer; the invalidations it sends delay that buffer entry's write by
 * the protocol's invalidation cost, which a full write buffer turns into a WBFULL stall. A load
 * that misses the D-cache and is supplied by another CPU's Modified copy takes the
 * cache-to-cache latency instead of the S-/B-cache or memory latency.
 */

#define EV5_BC_DIRTY (1ull << 63)

static bool ev5_holds(void *model, uint64_t blk)
{
	const struct mach_ev5 *m = model;
	const uint64_t *sc = m->sc_tag[blk & (EV5_SC_SETS - 1)];
	uint64_t d0 = blk << 1, d1 = d0 | 1;

	if (m->dc_tag[d0 & (EV5_L1_LINES - 1)] == d0 || m->dc_tag[d1 & (EV5_L1_LINES - 1)] == d1)
		return true;
	for (unsigned int w = 0; w < EV5_SC_WAYS; w++)
		if (sc[w] == blk + 1)
			return true;
	return (m->bc_tag[blk & m->bc_mask] & ~EV5_BC_DIRTY) == blk + 1;
}

static void ev5_inval(void *model, uint64_t blk)
{
	struct mach_ev5 *m = model;
	uint64_t *sc = m->sc_tag[blk & (EV5_SC_SETS - 1)], *bc = &m->bc_tag[blk & m->bc_mask];
	uint64_t d0 = blk << 1, d1 = d0 | 1;

	if (m->dc_tag[d0 & (EV5_L1_LINES - 1)] == d0)
		m->dc_tag[d0 & (EV5_L1_LINES - 1)] = UINT64_MAX;
	if (m->dc_tag[d1 & (EV5_L1_LINES - 1)] == d1)
		m->dc_tag[d1 & (EV5_L1_LINES - 1)] = UINT64_MAX;
	for (unsigned int w = 0; w < EV5_SC_WAYS; w++) {
		if (sc[w] == blk + 1) {
			sc[w] = 0;
			m->sc_dirty[blk & (EV5_SC_SETS - 1)][w] = 0;
		}
	}
	if ((*bc & ~EV5_BC_DIRTY) == blk + 1)
		*bc = 0;
}

void ev5_coh_attach(struct mach_ev5 *m, struct mach_coh *coh, unsigned int cpu)
{
	const struct mach_coh_cpu ops = { m, ev5_holds, ev5_inval };

	m->coh = coh;
	m->coh_cpu = cpu;
	mach_coh_attach(coh, cpu, &ops);
}

static void count(struct mach_ev5 *m, const struct mach_coh_res *r, uint64_t t)
{
	for (uint32_t i = 0; i < r->inval; i++)
		ev5_pmu_event(m, MACH_EV_INVAL, t);
	if (r->interv)
		ev5_pmu_event(m, MACH_EV_INTERV, t);
}

uint32_t ev5_coh_load(struct mach_ev5 *m, uint64_t ea, uint64_t pc, uint64_t t)
{
	struct mach_coh_res r;

	mach_coh_load(m->coh, m->coh_cpu, ea, pc, &r);
	count(m, &r, t);
	return r.interv ? r.lat : 0;
}

uint32_t ev5_coh_store(struct mach_ev5 *m, uint64_t ea, uint64_t pc, uint64_t t)
{
	struct mach_coh_res r;

	mach_coh_store(m->coh, m->coh_cpu, ea, pc, &r);
	count(m, &r, t);
	return r.lat;
}
