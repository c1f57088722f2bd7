/* machine/mach_ev6_pme.c - EV6 ProfileMe: fetched-instruction selection, pairs, the record queue. */
/*
 * [PM] ProfileMe, MICRO'97 §4.1: a Fetched Instruction Counter, written with a random value at
 * the start of each interval, counts down once per fetched instruction; the instruction fetched
 * when it reaches zero is profiled. §4.2: paired sampling — a major interval chooses the first
 * of a pair, a minor one (uniform in 1..W, §5.2.2) the second, fetch-distance after the first.
 *
 * In the model every fetch the model counts (m->fetched: the retiring instruction's fetches,
 * each replayed attempt, the copies an older trap aborted, and the bad path after a mispredict)
 * passes through ev6_pme_tick() in fetch order, so a sample is uniform over all of them. The
 * major interval counts from the previous first to the next (not from the interrupt): with
 * lo > W + EV6_PME_GAP the pair is complete long before the next first is chosen (the hardware
 * likewise has one pair in flight), and the mean interval is exactly (lo + hi) / 2, which is
 * what turns sample counts into estimated counts (samples x mean interval, [PM] §5.1).
 */
#include <errno.h>
#include <string.h>

#include "mach_ev6_model.h"

static void set_due(struct mach_ev6 *m)
{
	m->pme_due = m->pme_next < m->pme_next2 ? m->pme_next : m->pme_next2;
}

int mach_ev6_pme_config(struct mach_ev6 *m, const struct mach_pme_cfg *cfg)
{
	m->pme_next = m->pme_next2 = m->pme_due = UINT64_MAX;
	m->pme_have = m->pme_want = 0;
	if (!cfg)
		return 0;
	if (!cfg->lo || cfg->hi < cfg->lo || cfg->hi - cfg->lo >= VS_PERIOD_SPREAD_MAX ||
	    cfg->window > EV6_PME_W_MAX || cfg->lo <= cfg->window + EV6_PME_GAP)
		return -EINVAL;
	m->pme_cfg = *cfg;
	vs_prng_seed(&m->pme_rng, cfg->seed);
	m->pme_next = m->pme_n + vs_period_next(&m->pme_rng, cfg->lo, cfg->hi) - 1;
	set_due(m);
	return 0;
}

/* The fetch numbered pme_n - 1 was due: which selections chose it. */
unsigned int ev6_pme_select(struct mach_ev6 *m)
{
	uint64_t idx = m->pme_n - 1;
	unsigned int sel = 0;

	if (idx == m->pme_next) {
		sel |= 1;
		m->pme_first = idx;
		m->pme_have = 0;
		m->pme_want = 1;
		m->pme_next = idx + vs_period_next(&m->pme_rng, m->pme_cfg.lo, m->pme_cfg.hi);
		if (m->pme_cfg.window) {
			m->pme_next2 = idx + 1 + vs_prng_below(&m->pme_rng, m->pme_cfg.window);
			m->pme_want = 3;
		}
	} else if (idx == m->pme_next2) {
		sel |= 2;
		m->pme_dist = idx - m->pme_first;
		m->pme_next2 = UINT64_MAX;
	}
	set_due(m);
	return sel;
}

static void queue(struct mach_ev6 *m, const struct mach_pme *r)
{
	if (m->pme_qn == EV6_PME_Q) {
		m->pme_dropped++;
		return;
	}
	m->pme_q[(m->pme_qh + m->pme_qn++) % EV6_PME_Q] = *r;
}

void ev6_pme_done(struct mach_ev6 *m, unsigned int sel, const struct mach_pme *r)
{
	struct mach_pme *a = &m->pme_pend[0], *b = &m->pme_pend[1];

	if (sel & 1) {
		*a = *r;
		a->pair = m->pme_want == 3 ? 1 : 0;
		m->pme_have |= 1;
	}
	if (sel & 2) {
		*b = *r;
		b->pair = 2;
		m->pme_have |= 2;
	}
	if (!m->pme_want || m->pme_have != m->pme_want)
		return;
	if (m->pme_want == 3) {
		int64_t d = (int64_t)(b->fetch - a->fetch);

		b->pair_dist = (uint16_t)m->pme_dist;
		b->pair_lat = d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : (int32_t)d;
		queue(m, a);
		queue(m, b);
	} else {
		queue(m, a);
	}
	m->pme_have = m->pme_want = 0;
}

void ev6_pme_badpath(struct mach_ev6 *m, uint64_t at, uint64_t n, uint64_t f, uint64_t abort,
		     uint16_t path)
{
	const uint64_t base = m->pme_n, end = base + n;

	/* most of the time no selection falls in the bad path: skip it whole */
	while (m->pme_due < end) {
		uint64_t k = m->pme_due - base;
		struct mach_pme r;
		unsigned int sel;

		m->pme_n = m->pme_due + 1;
		sel = ev6_pme_select(m);
		memset(&r, 0, sizeof(r));
		r.pc = at + 4 * k;
		r.fetch = f + 1 + k / m->p.fetch_width;
		r.span = abort > r.fetch ? (uint32_t)(abort - r.fetch) : 0;
		r.path = path;
		r.status = MACH_PME_AB_MISPREDICT;
		ev6_pme_done(m, sel, &r);
	}
	m->pme_n = end;
}

bool mach_ev6_pme_take(struct mach_ev6 *m, struct mach_pme *out)
{
	if (!m->pme_qn)
		return false;
	*out = m->pme_q[m->pme_qh];
	m->pme_qh = (m->pme_qh + 1) % EV6_PME_Q;
	m->pme_qn--;
	m->pme_taken++;
	return true;
}
