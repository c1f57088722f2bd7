/* machine/mach_pmu_ctr.h - which PMU counter may count which event, event costs, counting ticks. */
#ifndef MACH_PMU_CTR_H
#define MACH_PMU_CTR_H

#include <stdint.h>

#include "mach.h"

/*
 * The counting side of a CPU model's PMU, as `axprof stat` (perfex) needs it: the hardware
 * counters and the events each may be set to count (bit e of `events` for enum mach_event e),
 * the counter width, and the cost of each event in cycles (typical and maximum), the figures
 * perfex -y multiplies the counts by. Each entry of mach_pmu_ctr.c cites its source; [U] marks
 * our assumption.
 */
#define MACH_PMU_CTR_MAX 4

struct mach_pmu_counter {
	const char *name; /* "PCTR0" */
	uint32_t events; /* the events this counter may count */
	unsigned int bits; /* its width (the 64-bit virtual counter is kept in software) */
};

struct mach_pmu_cost {
	double typical, max; /* cycles per event; 0: no cost (CYCLES, RETIRED) */
	const char *source; /* where the figures come from */
};

struct mach_pmu_desc {
	const char *cpu; /* "ev5" */
	const char *chip; /* "21164" */
	unsigned int ncounters;
	struct mach_pmu_counter counter[MACH_PMU_CTR_MAX];
	struct mach_pmu_cost cost[MACH_EV_NR];
};

/* The PMU of CPU model `cpu` ("ev5", "ev6"), or NULL when there is no such description. */
const struct mach_pmu_desc *mach_pmu_desc(const char *cpu);

/*
 * Call fn(priv) every `cycles` cycles of the CPU model (from a CYCLES counter overflow, as an
 * operating system's clock tick would), between instructions: the counting tools read the
 * counts there (mach_get_result) to multiplex events on the counters. Replaces the built-in
 * CYCLES sample handler; not to be combined with a sampler (mach_sampler.h). The hook goes with
 * the machine into a forked child. 0, or -EINVAL (no CPU model, cycles 0).
 */
typedef void (*mach_tick_fn)(void *priv);
struct mach_tick { /* the caller's; it must outlive the run */
	struct mach *m;
	uint64_t cycles;
	mach_tick_fn fn;
	void *priv;
};
int mach_set_tick(struct mach *m, struct mach_tick *t, uint64_t cycles, mach_tick_fn fn,
		  void *priv);

#endif /* MACH_PMU_CTR_H */
