/* tools/lib/tl_stat.h - counting on a PMU's counters: event placement, multiplexing, projection. */
#ifndef TL_STAT_H
#define TL_STAT_H

#include <stdint.h>

#include "mach_pmu_ctr.h"
#include "tl_stats.h" /* tl_mean_sd */

/*
 * perfex's counting (seeds/r10000-counters-perfex-speedshop.txt §2, §3): events are placed on
 * the hardware counters, each on one that may count it (tl_stat_place). When they do not all
 * fit, the events are split into groups that each fit and the groups take turns on the counters,
 * one quantum of cycles each (the operating system's clock tick); an event's total is projected
 * from the cycles it was counted: count x enabled / running.
 *
 * Estimated error of a projection: the quanta an event was counted in are a sample of the
 * quanta of the run; with n quanta counted of N, per-quantum rates r_k (events per cycle) of
 * standard deviation s, the projection's standard error is enabled x s / sqrt(n) x
 * sqrt(1 - n / N) (the finite-population correction: 0 when it was counted all the time).
 */

/*
 * Place the events of `events` on d's counters, one each: slot[e] = the counter of event e (-1
 * for the others). 0; -EOPNOTSUPP when some event has no counter (*conflict = those events);
 * -ENOSPC when they cannot all be counted at once (*conflict = a smallest set of events that
 * need more counters than they have between them; *ctrs = those counters).
 */
int tl_stat_place(const struct mach_pmu_desc *d, uint32_t events, int slot[MACH_EV_NR],
		  uint32_t *conflict, uint32_t *ctrs);

/* Groups of events that each fit on the counters; together they count every event of
 * `events`, and free counters are given to events already placed (the least counted first). */
struct tl_mux {
	unsigned int ngroups;
	uint32_t group[MACH_EV_NR];
};
/* 0, or -EOPNOTSUPP when an event of `events` has no counter (*conflict = those events). */
int tl_stat_groups(const struct mach_pmu_desc *d, uint32_t events, struct tl_mux *mx,
		   uint32_t *conflict);

/* One event's virtual (64-bit) counter and what its projection needs. */
struct tl_evcount {
	uint64_t count; /* events counted while on a counter */
	uint64_t enabled, running; /* cycles the event was asked for / on a counter */
	uint64_t quanta, quanta_run; /* quanta enabled / on a counter */
	double sum_r, sum_r2; /* per-quantum rates (events per cycle) while on a counter */
	uint64_t exact; /* the machine's exact count (for --exact) */
};

struct tl_mux_state {
	struct tl_mux mx;
	uint32_t events;
	unsigned int cur; /* the group on the counters */
	uint64_t last[MACH_EV_NR]; /* exact counts at the start of the quantum */
	uint64_t base[MACH_EV_NR]; /* exact counts when counting started */
	struct tl_evcount ev[MACH_EV_NR];
};

/* Start counting at the machine's exact counts now[] (now[MACH_EV_CYCLES] is the time), with
 * group `first` on the counters. */
void tl_mux_start(struct tl_mux_state *s, const struct tl_mux *mx, uint32_t events,
		  unsigned int first, const uint64_t now[MACH_EV_NR]);
/* End of a quantum at now[]: the events on the counters take their deltas; the next group goes
 * on (rotate false: the same, for the last reading). */
void tl_mux_tick(struct tl_mux_state *s, const uint64_t now[MACH_EV_NR], int rotate);

/* An event's projection and the standard error estimated for it (0 when counted throughout,
 * NaN when counted in fewer than two quanta). */
double tl_mux_project(const struct tl_evcount *e, double *stderr_out);

#endif /* TL_STAT_H */
