/* machine/mach_pmu_tick.c - a counting tick from a CYCLES overflow, for multiplexed counting. */
#include <errno.h>
#include <sys/types.h>

#include "mach_int.h"
#include "mach_pmu_ctr.h"

/* Each CYCLES overflow: the tool's tick, then the next one `cycles` later. */
static void tick_irq(void *priv, struct axp_ctx *ctx, const struct mach_irq *irq)
{
	struct mach_tick *t = priv;

	(void)ctx;
	if (irq->event != MACH_EV_CYCLES)
		return;
	t->fn(t->priv);
	t->m->cpu->pmu_arm(t->m->model, MACH_EV_CYCLES, t->cycles);
}

int mach_set_tick(struct mach *m, struct mach_tick *t, uint64_t cycles, mach_tick_fn fn, void *priv)
{
	if (!m->model || !cycles || !fn)
		return -EINVAL;
	t->m = m;
	t->cycles = cycles;
	t->fn = fn;
	t->priv = priv;
	m->hooks.pmu_irq = tick_irq;
	m->hooks.priv = t;
	for (unsigned int c = 0; c < m->ncpus; c++) /* every virtual CPU ticks (--cpus) */
		m->cpu->pmu_arm(m->models[c], MACH_EV_CYCLES, cycles);
	return 0;
}
