/* kmod/sampler/vs_policy.c - sampling policies: cycles | vprof | vreplay (value-sampling slides). */
#include "vs_core.h"

/*
 * cycles:  sample only (DCPI).
 * vprof:   on a share of user-mode samples interpret a few instructions; the slides' figures
 *          (slide 21) are 4 instructions per ~124K cycles, one sample in 2 at the default period;
 *          our default is 8 on one sample in 32, for a real kernel's overhead (vs_abi.c).
 * vreplay: interpret > 100 instructions at a time (slide 19), 128 per ~8M cycles (slide 21).
 * The numbers all come from struct vs_config. Interpretation is chosen for a kernel-mode sample
 * only with VS_CFG_KERNEL_VALUES (slide 11: "we want to value-profile the kernel"; slide 13: we
 * cannot interpret through an OS trap or with interrupts disabled, and the kernel's own state is
 * not ours to advance: the glue then interprets without side effects, and only where it proves
 * that safe, kmod/sampler/linux/vs_drv_kvals.c), never while an interpretation is already running on
 * this CPU (the guard: a sampling interrupt that arrives during vs_interpret() only samples).
 * The share is a fresh draw per eligible sample, so the choice does not lock onto loop phases.
 */

void vs_policy_init(struct vs_policy *pol, const struct vs_config *cfg)
{
	pol->mode = cfg->mode;
	pol->interp_events = cfg->interp_events;
	pol->num = cfg->interp_num;
	pol->den = cfg->interp_den ? cfg->interp_den : 1;
	pol->budget = cfg->interp_budget;
	pol->kernel = (cfg->flags & VS_CFG_KERNEL_VALUES) != 0;
}

/* vs_policy_decide() is inline in vs_core.h: every sample asks it. */
