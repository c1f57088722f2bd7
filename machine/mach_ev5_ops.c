/* machine/mach_ev5_ops.c - the EV5 (21164) model behind the machine's CPU-model ops table. */
#include <errno.h>
#include <inttypes.h>

#include "mach_ev5_model.h"

static int ev5_create(void **model, const struct mach_cpu_cfg *cfg)
{
	struct mach_ev5_cfg c = { 0 };
	struct mach_ev5 *m = NULL;
	int ret;

	if (cfg) {
		c.mem_latency = cfg->mem_latency;
		c.bcache_latency = cfg->bcache_latency;
		c.truth = cfg->truth;
	}
	ret = mach_ev5_new(&m, &c);
	if (!ret && cfg && cfg->coh)
		ev5_coh_attach(m, cfg->coh, cfg->cpu);
	*model = m;
	return ret;
}

static void ev5_free(void *model)
{
	mach_ev5_free(model);
}

static bool ev5_kernel(void *model, unsigned int nr, uint64_t pc, uint64_t cycles)
{
	return mach_ev5_kernel(model, nr, pc, cycles);
}

static bool ev5_irq_take(void *model, struct mach_irq *irq)
{
	return mach_ev5_irq_take(model, irq);
}

static void ev5_pmu_arm(void *model, enum mach_event event, uint64_t period)
{
	mach_ev5_pmu_arm(model, event, period);
}

static uint64_t ev5_cycles(const void *model)
{
	return mach_ev5_cycles(model);
}

static uint64_t ev5_count(const void *model, enum mach_event event)
{
	return mach_ev5_count(model, event);
}

static void ev5_access(void *model, uint64_t va, unsigned int size, bool store,
		       struct axp_access *acc)
{
	mach_ev5_access(model, va, size, store, acc);
}

static int ops_truth_write(void *const *models, unsigned int n, const char *path)
{
	if (n == 1)
		return mach_ev5_truth_write(models[0], path);
	for (unsigned int i = 0; i < n; i++)
		ev5_stall_sync(models[i]);
	return ev5_truth_write_cpus((struct mach_ev5 *const *)models, n, path);
}

/* The tunable parameters (struct mach_ev5_params), in the truth file's order. */
static int ev5_param(const void *model, unsigned int i, const char **name, uint64_t *value)
{
	const struct mach_ev5_params *p = &((const struct mach_ev5 *)model)->p;
	const struct {
		const char *name;
		uint32_t v;
	} tab[] = {
		{ "dcache_lat", p->dcache_lat },
		{ "scache_lat", p->scache_lat },
		{ "bcache_lat", p->bcache_lat },
		{ "mem_lat", p->mem_lat },
		{ "mem_occupancy", p->mem_occupancy },
		{ "bcache_kb", p->bcache_kb },
		{ "mispredict", p->mispredict },
		{ "itb_miss", p->itb_miss },
		{ "dtb_miss", p->dtb_miss },
		{ "wb_scache", p->wb_scache },
		{ "wb_timeout", p->wb_timeout },
		{ "pal_cycles", p->pal_cycles },
		{ "replay", p->replay },
	};

	if (i >= sizeof(tab) / sizeof(tab[0]))
		return -ENOENT;
	*name = tab[i].name;
	*value = tab[i].v;
	return 0;
}

static void ev5_print_stats(const void *model, FILE *f, uint64_t insns)
{
	uint64_t cycles = mach_ev5_cycles(model);

	fprintf(f, "axprof run: ev5: %" PRIu64 " cycles, CPI %.3f;", cycles,
		insns ? (double)cycles / (double)insns : 0.0);
	for (int e = 0; e < MACH_TRUTH_NEVENTS; e++) /* the 21164 events */
		fprintf(f, " %s %" PRIu64, mach_event_name[e],
			mach_ev5_count(model, (enum mach_event)e));
	fprintf(f, "\n");
}

const struct mach_cpu_ops mach_ev5_cpu_ops = {
	.name = "ev5",
	.create = ev5_create,
	.free = ev5_free,
	.retire = ev5_retire_op, /* mach_ev5.c: no wrapper per instruction */
	.observe = ev5_observe, /* retire and irq_take without an indirect call */
	.run = ev5_run, /* ... and ev5_observe() inlined in the run loop */
	.kernel = ev5_kernel,
	.irq_take = ev5_irq_take,
	.pmu_arm = ev5_pmu_arm,
	.cycles = ev5_cycles,
	.count = ev5_count,
	.access = ev5_access,
	.truth_write = ops_truth_write,
	.param = ev5_param,
	.print_stats = ev5_print_stats,
	/* the 21164's seven (CYCLES..BRANCHMP), PCTR1's loads and FP operates [HRM5], and the
	 * coherence events of --cpus N > 1 (mach_coh.h; [U] a model extension) */
	.events = ((1u << (MACH_EV_BRANCHMP + 1)) - 1) | 1u << MACH_EV_LOADS | 1u << MACH_EV_FPOPS |
		  1u << MACH_EV_INVAL | 1u << MACH_EV_INTERV,
};
