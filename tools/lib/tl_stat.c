/* tools/lib/tl_stat.c - counting on a PMU's counters: event placement, multiplexing, projection. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tl_stat.h"

/* Bipartite matching by augmenting paths: can event e take a counter (slot[] updated)? */
static int augment(const struct mach_pmu_desc *d, unsigned int e, int slot[MACH_EV_NR],
		   int owner[MACH_PMU_CTR_MAX], unsigned int *seen)
{
	for (unsigned int c = 0; c < d->ncounters; c++) {
		if (!(d->counter[c].events & (1u << e)) || (*seen & (1u << c)))
			continue;
		*seen |= 1u << c;
		if (owner[c] < 0 || augment(d, (unsigned int)owner[c], slot, owner, seen)) {
			owner[c] = (int)e;
			slot[e] = (int)c;
			return 1;
		}
	}
	return 0;
}

static int match(const struct mach_pmu_desc *d, uint32_t events, int slot[MACH_EV_NR])
{
	int owner[MACH_PMU_CTR_MAX];

	for (unsigned int c = 0; c < MACH_PMU_CTR_MAX; c++)
		owner[c] = -1;
	for (unsigned int e = 0; e < MACH_EV_NR; e++)
		slot[e] = -1;
	for (unsigned int e = 0; e < MACH_EV_NR; e++) {
		unsigned int seen = 0;

		if ((events & (1u << e)) && !augment(d, e, slot, owner, &seen))
			return 0;
	}
	return 1;
}

static uint32_t counters_of(const struct mach_pmu_desc *d, uint32_t events)
{
	uint32_t m = 0;

	for (unsigned int c = 0; c < d->ncounters; c++)
		if (d->counter[c].events & events)
			m |= 1u << c;
	return m;
}

static uint32_t uncountable(const struct mach_pmu_desc *d, uint32_t events)
{
	uint32_t all = 0;

	for (unsigned int c = 0; c < d->ncounters; c++)
		all |= d->counter[c].events;
	return events & ~all;
}

int tl_stat_place(const struct mach_pmu_desc *d, uint32_t events, int slot[MACH_EV_NR],
		  uint32_t *conflict, uint32_t *ctrs)
{
	uint32_t bad = uncountable(d, events), best = 0;

	*conflict = 0;
	*ctrs = 0;
	if (bad) {
		*conflict = bad;
		return -EOPNOTSUPP;
	}
	if (match(d, events, slot))
		return 0;
	/* Hall's condition fails for some subset: name a smallest one */
	for (uint32_t sub = events; sub; sub = (sub - 1) & events) {
		if (__builtin_popcount(counters_of(d, sub)) >= __builtin_popcount(sub))
			continue;
		if (!best || __builtin_popcount(sub) < __builtin_popcount(best))
			best = sub;
	}
	*conflict = best;
	*ctrs = counters_of(d, best);
	return -ENOSPC;
}

int tl_stat_groups(const struct mach_pmu_desc *d, uint32_t events, struct tl_mux *mx,
		   uint32_t *conflict)
{
	uint32_t left = events, bad = uncountable(d, events);
	unsigned int placed[MACH_EV_NR] = { 0 };
	int slot[MACH_EV_NR];

	memset(mx, 0, sizeof(*mx));
	*conflict = bad;
	if (bad)
		return -EOPNOTSUPP;
	/* each group: the remaining events that fit, fewest counters first */
	while (left && mx->ngroups < MACH_EV_NR) {
		uint32_t g = 0;

		for (unsigned int want = 1; want <= d->ncounters; want++)
			for (unsigned int e = 0; e < MACH_EV_NR; e++)
				if ((left & (1u << e)) &&
				    (unsigned int)__builtin_popcount(counters_of(d, 1u << e)) ==
					    want &&
				    match(d, g | 1u << e, slot))
					g |= 1u << e;
		left &= ~g;
		mx->group[mx->ngroups++] = g;
		for (unsigned int e = 0; e < MACH_EV_NR; e++)
			placed[e] += !!(g & (1u << e));
	}
	/* free counters: add the events placed in fewest groups that still fit */
	for (unsigned int i = 0; i < mx->ngroups; i++) {
		for (;;) {
			int best = -1;

			for (unsigned int e = 0; e < MACH_EV_NR; e++) {
				if (!(events & (1u << e)) || (mx->group[i] & (1u << e)) ||
				    !match(d, mx->group[i] | 1u << e, slot))
					continue;
				if (best < 0 || placed[e] < placed[best])
					best = (int)e;
			}
			if (best < 0)
				break;
			mx->group[i] |= 1u << best;
			placed[best]++;
		}
	}
	return 0;
}

void tl_mux_start(struct tl_mux_state *s, const struct tl_mux *mx, uint32_t events,
		  unsigned int first, const uint64_t now[MACH_EV_NR])
{
	memset(s, 0, sizeof(*s));
	s->mx = *mx;
	s->events = events;
	s->cur = mx->ngroups ? first % mx->ngroups : 0;
	memcpy(s->last, now, sizeof(s->last));
	memcpy(s->base, now, sizeof(s->base));
}

void tl_mux_tick(struct tl_mux_state *s, const uint64_t now[MACH_EV_NR], int rotate)
{
	uint64_t dt = now[MACH_EV_CYCLES] - s->last[MACH_EV_CYCLES];
	uint32_t on = s->mx.ngroups ? s->mx.group[s->cur] : 0;

	if (dt) {
		for (unsigned int e = 0; e < MACH_EV_NR; e++) {
			struct tl_evcount *c = &s->ev[e];
			uint64_t delta = now[e] - s->last[e];
			double r = (double)delta / (double)dt;

			if (!(s->events & (1u << e)))
				continue;
			c->enabled += dt;
			c->quanta++;
			if (!(on & (1u << e)))
				continue;
			c->count += delta;
			c->running += dt;
			c->quanta_run++;
			c->sum_r += r;
			c->sum_r2 += r * r;
		}
	}
	for (unsigned int e = 0; e < MACH_EV_NR; e++)
		s->ev[e].exact = now[e] - s->base[e];
	if (!dt) /* no time passed (--cpus: a CPU behind the busiest one ticked): the events so
		  * far go to the next quantum, on the same group */
		return;
	memcpy(s->last, now, sizeof(s->last));
	if (rotate && s->mx.ngroups)
		s->cur = (s->cur + 1) % s->mx.ngroups;
}

double tl_mux_project(const struct tl_evcount *e, double *se)
{
	double n = (double)e->quanta_run, big_n = (double)e->quanta, mean, var, f;

	*se = 0;
	if (!e->running)
		return 0;
	if (e->running >= e->enabled)
		return (double)e->count;
	if (n < 2) {
		*se = NAN; /* one quantum says nothing of the others */
	} else {
		mean = e->sum_r / n;
		var = (e->sum_r2 - n * mean * mean) / (n - 1);
		f = big_n > 0 ? n / big_n : 1;
		if (var > 0 && f < 1)
			*se = (double)e->enabled * sqrt(var / n) * sqrt(1 - f);
	}
	return (double)e->count * (double)e->enabled / (double)e->running;
}
