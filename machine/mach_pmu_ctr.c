/* machine/mach_pmu_ctr.c - the EV5 and EV6 counters' event constraints and event costs. */
/*
 * Sources: [HRM5] Alpha 21164 Hardware Reference Manual, the PMCTR register (three counters;
 * PCTR0 counts cycles or issues, PCTR1 issue-class events, PCTR2 the miss and mispredict events
 * and cycles); [wrperfmon] Linux arch/alpha/include/asm/wrperfmon.h (EV5: PCTR0 and PCTR1 16
 * bits, PCTR2 14 bits; EV6: two 20-bit counters); [op5] Linux arch/alpha/oprofile/op_model_ev5.c
 * (CYCLES may be selected on counters 0 and 2); [HRM6] Alpha 21264 HRM 6.10, Table 6-11 and Linux
 * arch/alpha/kernel/perf_event.c (aggregate mode: instructions only on PCTR0, B-cache misses and
 * Mbox replays only on PCTR1, cycles on both); refs/algorithms-isa-microarch-linux.md ("EV6
 * PCTR1 events: 7 = replay traps, 2 = branch mispredicts, and others"). Costs: EV5-MODEL.md and
 * EV6-MODEL.md, the models' own latencies (so the cost table explains the model's cycles).
 *
 * The issue text said "two counters on both CPUs": the 21164 has three [HRM5, wrperfmon].
 * Of PCTR1's issue-class selections (integer and FP operations, loads, stores) the EV5 model
 * counts loads and FP operates (for perfex's loads per FP operation); the 21264's aggregate mode
 * has neither, so `axprof stat` derives that ratio there from the model's exact counts only. [U] marks placements we could not check against the
 * manual: the 21164's miss events on PCTR2, and on the 21264 the D-cache, I-cache, TB miss
 * events the model counts (the chip's aggregate mode has no D-/I-cache miss selection: we put
 * them on PCTR1, a model extension).
 */
#include <string.h>

#include "mach_coh.h"
#include "mach_pmu_ctr.h"

#define EV(e) (1u << (e))
/* The coherence events (--cpus N > 1, mach_coh.h) on every counter: [U] a model extension; the
 * R10000 counts interventions and invalidations on both of its counters (the seed's table,
 * events 12/13), and so both fit at once beside any other event. */
#define COH (EV(MACH_EV_INVAL) | EV(MACH_EV_INTERV))

static const struct mach_pmu_desc pmu_ev5 = {
	.cpu = "ev5",
	.chip = "21164",
	.ncounters = 3,
	.counter = {
		/* [HRM5] PCSEL0: cycles or issues; [wrperfmon] 16 bits */
		{ "PCTR0", EV(MACH_EV_CYCLES) | EV(MACH_EV_RETIRED), 16 },
		/* [HRM5] PCSEL1: issue-class events; the model counts loads and FP operates
		 * issued (the selection codes are not modelled) */
		{ "PCTR1", EV(MACH_EV_LOADS) | EV(MACH_EV_FPOPS) | COH, 16 },
		/* [op5] cycles; [HRM5][U] the miss and mispredict events; [wrperfmon] 14 bits */
		{ "PCTR2",
		  EV(MACH_EV_CYCLES) | EV(MACH_EV_IMISS) | EV(MACH_EV_DMISS) |
			  EV(MACH_EV_DTBMISS) | EV(MACH_EV_ITBMISS) | EV(MACH_EV_BRANCHMP) | COH,
		  14 },
	},
	.cost = {
		[MACH_EV_IMISS] = { 8, 80, "S-cache hit 8, memory 80 (EV5-MODEL.md)" },
		[MACH_EV_DMISS] = { 8, 80, "S-cache hit 8, memory 80 (EV5-MODEL.md)" },
		[MACH_EV_DTBMISS] = { 25, 25, "PALcode refill 25 [U] (EV5-MODEL.md)" },
		[MACH_EV_ITBMISS] = { 20, 20, "PALcode refill 20 [U] (EV5-MODEL.md)" },
		[MACH_EV_BRANCHMP] = { 5, 5, "mispredict 5 (EV5-MODEL.md)" },
		[MACH_EV_INVAL] = { MACH_COH_INVAL_LAT, MACH_COH_INVAL_LAT,
				    "invalidation 20 [U] (mach_coh.h; hidden by the write buffer "
				    "unless it fills)" },
		[MACH_EV_INTERV] = { MACH_COH_C2C_LAT, MACH_COH_C2C_LAT,
				     "cache-to-cache fill 50 [U] (mach_coh.h)" },
	},
};

static const struct mach_pmu_desc pmu_ev6 = {
	.cpu = "ev6",
	.chip = "21264",
	.ncounters = 2,
	.counter = {
		/* [HRM6] PCTR0: retired instructions or cycles, 20 bits */
		{ "PCTR0", EV(MACH_EV_CYCLES) | EV(MACH_EV_RETIRED) | COH, 20 },
		/* [HRM6] cycles, B-cache misses, Mbox replays; [refs] mispredicts, "others": the
		 * TB misses; [U] I-cache and D-cache misses (a model extension) */
		{ "PCTR1",
		  EV(MACH_EV_CYCLES) | EV(MACH_EV_BCMISS) | EV(MACH_EV_REPLAY) |
			  EV(MACH_EV_BRANCHMP) | EV(MACH_EV_DTBMISS) | EV(MACH_EV_ITBMISS) |
			  EV(MACH_EV_IMISS) | EV(MACH_EV_DMISS) | COH,
		  20 },
	},
	.cost = {
		[MACH_EV_IMISS] = { 13, 80, "B-cache 13, memory 80 (EV6-MODEL.md)" },
		[MACH_EV_DMISS] = { 13, 80, "B-cache load-use 13, memory 80 (EV6-MODEL.md)" },
		[MACH_EV_BCMISS] = { 67, 67, "memory 80 beyond the B-cache's 13 (EV6-MODEL.md)" },
		[MACH_EV_DTBMISS] = { 33, 33, "13 + PALcode fill 20 [U] (EV6-MODEL.md)" },
		[MACH_EV_ITBMISS] = { 27, 27, "7 + PALcode fill 20 [U] (EV6-MODEL.md)" },
		[MACH_EV_BRANCHMP] = { 7, 8, "mispredict 7, JMP/JSR/RET 8 (EV6-MODEL.md)" },
		[MACH_EV_REPLAY] = { 14, 14, "Mbox order trap 14 (EV6-MODEL.md, refs)" },
		[MACH_EV_INVAL] = { MACH_COH_INVAL_LAT, MACH_COH_INVAL_LAT,
				    "invalidation 20 [U] (mach_coh.h; hidden by the store queue "
				    "unless it fills)" },
		[MACH_EV_INTERV] = { MACH_COH_C2C_LAT, MACH_COH_C2C_LAT,
				     "cache-to-cache fill 50 [U] (mach_coh.h)" },
	},
};

const struct mach_pmu_desc *mach_pmu_desc(const char *cpu)
{
	if (!cpu)
		return NULL;
	if (!strcmp(cpu, pmu_ev5.cpu))
		return &pmu_ev5;
	if (!strcmp(cpu, pmu_ev6.cpu))
		return &pmu_ev6;
	return NULL;
}
