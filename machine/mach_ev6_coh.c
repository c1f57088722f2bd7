/* machine/mach_ev6_coh.c - the EV6 model's side of multiprocessor coherence (mach_coh.h). */
#include "mach_coh.h"
#include "mach_ev6_model.h"

/*
 * The 21264's caches as the snooping protocol sees them (machine/EV6-MODEL.md, "Multiprocessor
 * coherence"): the 64-byte coherence block is the D-cache and B-cache block [HRM 2.1.5]. A snoop
 * hits when either holds it; an invalidation removes it from both. A store acquires its block
 * when it issues; its invalidations keep its store-queue entry that many cycles longer
 * (mach_coh.h's invalidation cost), which a full queue turns into replay traps. A load whose
 * D-cache miss another CPU's Modified copy supplies takes the cache-to-cache latency instead of
 * the B-cache's or memory's.
 */

static bool ev6_holds(void *model, uint64_t blk)
{
	const struct mach_ev6 *m = model;
	const uint64_t *dc = m->dc_tag[blk & (EV6_DC_SETS - 1)];

	return dc[0] == blk + 1 || dc[1] == blk + 1 || m->bc_tag[blk & m->bc_mask] == blk + 1;
}

static void ev6_inval(void *model, uint64_t blk)
{
	struct mach_ev6 *m = model;
	uint64_t *dc = m->dc_tag[blk & (EV6_DC_SETS - 1)];

	for (unsigned int w = 0; w < 2; w++)
		if (dc[w] == blk + 1)
			dc[w] = 0;
	if (m->bc_tag[blk & m->bc_mask] == blk + 1)
		m->bc_tag[blk & m->bc_mask] = 0;
}

void ev6_coh_attach(struct mach_ev6 *m, struct mach_coh *coh, unsigned int cpu)
{
	const struct mach_coh_cpu ops = { m, ev6_holds, ev6_inval };

	m->coh = coh;
	m->coh_cpu = cpu;
	mach_coh_attach(coh, cpu, &ops);
}

static void count(struct mach_ev6 *m, const struct mach_coh_res *r)
{
	for (uint32_t i = 0; i < r->inval; i++)
		ev6_pmu_event(m, MACH_EV_INVAL);
	if (r->interv)
		ev6_pmu_event(m, MACH_EV_INTERV);
}

uint32_t ev6_coh_load(struct mach_ev6 *m, const struct axp_event *ev)
{
	struct mach_coh_res r;

	mach_coh_load(m->coh, m->coh_cpu, ev->ea, ev->pc, &r);
	count(m, &r);
	return r.interv ? r.lat : 0;
}

uint32_t ev6_coh_store(struct mach_ev6 *m, const struct axp_event *ev)
{
	struct mach_coh_res r;

	mach_coh_store(m->coh, m->coh_cpu, ev->ea, ev->pc, &r);
	count(m, &r);
	return r.lat;
}
