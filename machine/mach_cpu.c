/* machine/mach_cpu.c - the registry of CPU models the hosted machine can time programs with. */
#include <errno.h>
#include <string.h>

#include "mach_cpu.h"

#define MACH_CPU_MAX 8

const char *const mach_event_name[MACH_EV_NR] = {
	[MACH_EV_CYCLES] = "CYCLES",	 [MACH_EV_RETIRED] = "RETIRED",
	[MACH_EV_IMISS] = "IMISS",	 [MACH_EV_DMISS] = "DMISS",
	[MACH_EV_DTBMISS] = "DTBMISS",	 [MACH_EV_ITBMISS] = "ITBMISS",
	[MACH_EV_BRANCHMP] = "BRANCHMP", [MACH_EV_BCMISS] = "BCMISS",
	[MACH_EV_REPLAY] = "REPLAY",	 [MACH_EV_LOADS] = "LOADS",
	[MACH_EV_FPOPS] = "FPOPS",	 [MACH_EV_INVAL] = "INVAL",
	[MACH_EV_INTERV] = "INTERV",
};

/* Models registered at run time; the built-in ones are found first. */
static const struct mach_cpu_ops *registered[MACH_CPU_MAX];
static unsigned int nregistered;

static const struct mach_cpu_ops *const builtin[] = { &mach_ev5_cpu_ops, &mach_ev6_cpu_ops };

const struct mach_cpu_ops *mach_cpu_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!strcmp(builtin[i]->name, name))
			return builtin[i];
	for (unsigned int i = 0; i < nregistered; i++)
		if (!strcmp(registered[i]->name, name))
			return registered[i];
	return NULL;
}

static bool ops_complete(const struct mach_cpu_ops *o)
{
	return o->name && o->name[0] && strcmp(o->name, "none") && o->create && o->free &&
	       o->retire && o->irq_take && o->pmu_arm && o->cycles && o->count;
}

int mach_cpu_register(const struct mach_cpu_ops *ops)
{
	if (!ops || !ops_complete(ops))
		return -EINVAL;
	if (mach_cpu_find(ops->name))
		return -EEXIST;
	if (nregistered == MACH_CPU_MAX)
		return -ENOSPC;
	registered[nregistered++] = ops;
	return 0;
}

uint32_t mach_cpu_events(const struct mach_cpu_ops *ops)
{
	return ops->events ? ops->events : (1u << (MACH_EV_BRANCHMP + 1)) - 1;
}
