/* machine/mach_ev6_ops.c - the EV6 (21264) model behind the machine's CPU-model ops table. */
#include <errno.h>
#include <inttypes.h>

#include "mach_ev6_model.h"

static int ev6_create(void **model, const struct mach_cpu_cfg *cfg)
{
	struct mach_ev6_params p;
	struct mach_ev6 *m = NULL;
	int ret;

	mach_ev6_params_default(&p);
	if (cfg) {
		if (cfg->mem_latency)
			p.mem_lat = cfg->mem_latency;
		if (cfg->bcache_latency)
			p.bcache_lat = cfg->bcache_latency;
		p.truth = cfg->truth;
		p.kernel_time = cfg->kernel_time;
	}
	ret = mach_ev6_new_params(&m, &p);
	if (!ret && cfg && cfg->coh)
		ev6_coh_attach(m, cfg->coh, cfg->cpu);
	*model = m;
	return ret;
}

static void ev6_free(void *model)
{
	mach_ev6_free(model);
}

static bool ev6_retire(void *model, const struct axp_insn *d, const struct axp_event *ev)
{
	struct mach_ev6 *m = model;

	mach_ev6_retire(m, d, ev);
	return m->nready != 0 || m->pme_qn != 0;
}

static bool ev6_kernel(void *model, unsigned int nr, uint64_t pc, uint64_t cycles)
{
	return mach_ev6_kernel(model, nr, pc, cycles);
}

static int ev6_pme_config(void *model, const struct mach_pme_cfg *cfg)
{
	return mach_ev6_pme_config(model, cfg);
}

static bool ev6_pme_take(void *model, struct mach_pme *out)
{
	return mach_ev6_pme_take(model, out);
}

/* Counter interrupts first; then a complete ProfileMe record raises its own [PM §4.1]. */
static bool ev6_irq_take(void *model, struct mach_irq *irq)
{
	struct mach_ev6 *m = model;

	irq->profileme = false;
	if (mach_ev6_irq_take(m, irq))
		return true;
	if (!m->pme_qn)
		return false;
	irq->profileme = true;
	irq->event = MACH_EV_RETIRED;
	irq->pc = m->pme_q[m->pme_qh].pc;
	irq->cycle = m->r_t;
	return true;
}

static void ev6_pmu_arm(void *model, enum mach_event event, uint64_t period)
{
	mach_ev6_pmu_arm(model, event, period);
}

static uint64_t ev6_cycles(const void *model)
{
	return mach_ev6_cycles(model);
}

static uint64_t ev6_count(const void *model, enum mach_event event)
{
	return mach_ev6_count(model, event);
}

static void ev6_access(void *model, uint64_t va, unsigned int size, bool store,
		       struct axp_access *acc)
{
	mach_ev6_access(model, va, size, store, acc);
}

static int ev6_truth_write(void *const *models, unsigned int n, const char *path)
{
	return mach_ev6_truth_write_cpus((struct mach_ev6 *const *)models, n, path);
}

/* The parameters (struct mach_ev6_params), in its order. */
static int ev6_param(const void *model, unsigned int i, const char **name, uint64_t *value)
{
	const struct mach_ev6_params *p = &((const struct mach_ev6 *)model)->p;
	const struct {
		const char *name;
		uint32_t v;
	} tab[] = {
		{ "fetch_width", p->fetch_width },
		{ "map_width", p->map_width },
		{ "retire_width", p->retire_width },
		{ "window", p->window },
		{ "iq", p->iq },
		{ "fq", p->fq },
		{ "int_rename", p->int_rename },
		{ "fp_rename", p->fp_rename },
		{ "lq", p->lq },
		{ "sq", p->sq },
		{ "maf", p->maf },
		{ "dcache_lat", p->dcache_lat },
		{ "fdcache_lat", p->fdcache_lat },
		{ "bcache_lat", p->bcache_lat },
		{ "mem_lat", p->mem_lat },
		{ "mem_occupancy", p->mem_occupancy },
		{ "bcache_kb", p->bcache_kb },
		{ "mispredict", p->mispredict },
		{ "jsr_mispredict", p->jsr_mispredict },
		{ "order_trap", p->order_trap },
		{ "mbox_replay", p->mbox_replay },
		{ "dtb_miss", p->dtb_miss },
		{ "itb_miss", p->itb_miss },
		{ "stwait_clear", p->stwait_clear },
		{ "ras_n", p->ras_n },
		{ "pal_cycles", p->pal_cycles },
		{ "irq_delay", p->irq_delay },
		{ "fetch_queue", p->fetch_queue },
	};

	if (i >= sizeof(tab) / sizeof(tab[0]))
		return -ENOENT;
	*name = tab[i].name;
	*value = tab[i].v;
	return 0;
}

/* "axprof run: ev6: N cycles, CPI x; EVENT n ...", then the replay traps and aborts by kind. */
static void ev6_print_stats(const void *model, FILE *f, uint64_t insns)
{
	const struct mach_ev6 *m = model;
	uint64_t cycles = mach_ev6_cycles(m);

	fprintf(f, "axprof run: ev6: %" PRIu64 " cycles, CPI %.3f;", cycles,
		insns ? (double)cycles / (double)insns : 0.0);
	for (int e = 0; e <= MACH_EV_REPLAY; e++) /* the 21264's events */
		fprintf(f, " %s %" PRIu64, mach_event_name[e],
			mach_ev6_count(m, (enum mach_event)e));
	fprintf(f, "\n");
	fprintf(f,
		"axprof run: ev6: replay traps: store-load %" PRIu64 ", load-load %" PRIu64
		", other Mbox %" PRIu64 "; fetched %" PRIu64 ", aborted %" PRIu64
		" (bad path %" PRIu64 ")\n",
		m->replays[EV6_RP_STLD], m->replays[EV6_RP_LDLD], m->replays[EV6_RP_MBOX],
		m->fetched, m->aborted, m->badpath);
}

const struct mach_cpu_ops mach_ev6_cpu_ops = {
	.name = "ev6",
	.create = ev6_create,
	.free = ev6_free,
	.retire = ev6_retire,
	.kernel = ev6_kernel,
	.irq_take = ev6_irq_take,
	.pmu_arm = ev6_pmu_arm,
	.cycles = ev6_cycles,
	.count = ev6_count,
	.access = ev6_access,
	.truth_write = ev6_truth_write,
	.param = ev6_param,
	.print_stats = ev6_print_stats,
	.pme_config = ev6_pme_config,
	.pme_take = ev6_pme_take,
	/* every event but LOADS and FPOPS, which the 21264 cannot count (exact counts only) */
	.events = ((1u << MACH_EV_NR) - 1) & ~(1u << MACH_EV_LOADS | 1u << MACH_EV_FPOPS),
};
