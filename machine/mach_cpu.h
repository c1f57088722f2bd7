/* machine/mach_cpu.h - the CPU-model interface of the hosted machine: one ops table per model. */
#ifndef MACH_CPU_H
#define MACH_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "axp.h"

/*
 * The run loop (mach_run.c) times a program through a CPU model it knows only by this table.
 * The machine executes every instruction itself (functional, in program order) and, in timing
 * mode, hands each completed one to the model:
 *
 *   retire()       account one completed instruction (the executor's event and decoded form);
 *                  true when a PMU interrupt may be due (the run loop then asks irq_take())
 *   observe()      optional: retire() and irq_take() in one per-instruction observer call
 *   kernel()       the kernel time of one emulated system call (optional; mach_kern.h)
 *   irq_take()     is a PMU interrupt due now? (*irq filled, cleared)
 *   pmu_arm()      arm counter `event` to overflow after `period` more events (0: disarm)
 *   cycles()       cycles so far (also what RPCC reads)
 *   count()        PMU event counts so far
 *   access()       latency of a load/store made on the sampler's behalf (may be NULL: level
 *                  and cycles left 0)
 *   truth_write()  write the ground-truth file (machine/mach_truth.h) of the n CPUs' models:
 *                  per-PC sections and summary counts added up over them; NULL: -EOPNOTSUPP
 *   param()        the i-th model parameter (name, value); -ENOENT past the last (NULL: none)
 *   print_stats()  one or more "axprof run: NAME: ..." lines for `axprof run --stats`
 *
 * A model is registered once by name (mach_cpu_register) and chosen by mach_opts.cpu; "none"
 * (functional mode) has no model at all. The EV5 (21164, in order: mach_ev5_cpu_ops,
 * machine/mach_ev5.h) and EV6 (21264, out of order: mach_ev6_cpu_ops, machine/EV6-MODEL.md)
 * models are built in; another model plugs in without touching the run loop.
 */

/*
 * PMU events: the 21164's (HRM ch. 5 names) first, then the 21264's aggregate-mode selections it
 * lacks (21264 HRM 6.10, Table 6-11: PCTR1 B-cache misses and Mbox replay traps). A model counts
 * the events it has and leaves the others 0 (the EV5 model never counts BCMISS or REPLAY).
 */
enum mach_event {
	MACH_EV_CYCLES,
	MACH_EV_RETIRED,
	MACH_EV_IMISS,
	MACH_EV_DMISS,
	MACH_EV_DTBMISS,
	MACH_EV_ITBMISS,
	MACH_EV_BRANCHMP,
	MACH_EV_BCMISS, /* 21264: accesses that missed the B-cache (served by memory) */
	MACH_EV_REPLAY, /* 21264: Mbox replay traps (order traps and other Mbox replays) */
	MACH_EV_LOADS, /* load instructions issued (21164 PCTR1 issue-class event [HRM5]) */
	MACH_EV_FPOPS, /* FP operate instructions issued (21164 PCTR1 issue-class event [HRM5]) */
	/* Coherence (--cpus N > 1, machine/mach_coh.h), counted at the instruction that caused
	 * them: the R10000's events 12/13 (seeds/r10000-counters-perfex-speedshop.txt) */
	MACH_EV_INVAL, /* copies of a stored-to block invalidated in other CPUs' caches */
	MACH_EV_INTERV, /* misses another CPU's Modified copy supplied (interventions) */
	MACH_EV_NR,
};

/*
 * An FP operate instruction: the FP operate format's opcodes 0x14 (ITOF, SQRT), 0x15 (VAX),
 * 0x16 (IEEE) and 0x17 (CPYS, CVTLQ, FPCR moves, FCMOV) [Alpha Architecture Handbook 3.3.4,
 * 4.10]. Loads are the axp_event's is_load (LDx, LDx_U, LDx_L, FP loads, prefetches).
 */
static inline bool mach_is_fp_operate(uint32_t word)
{
	return (word >> 26) >= 0x14 && (word >> 26) <= 0x17;
}

/* The names of the PMU events ("CYCLES", "RETIRED", ...). */
extern const char *const mach_event_name[MACH_EV_NR];

struct mach_irq { /* one PMU interrupt */
	enum mach_event event;
	uint64_t pc; /* the pc the interrupt reports (EV5: head of the issue stage; EV6: the
		      * oldest instruction not yet retired) */
	uint64_t cycle;
	bool profileme; /* a ProfileMe record is complete: the handler reads it (and any more)
			 * with pme_take(); pc is the record's, event means nothing */
};

/*
 * ProfileMe [PM = MICRO'97 §4; HRM 6.10 ProfileMe mode]: the model picks one *fetched*
 * instruction (bad path included) every randomised interval of fetched instructions, follows it
 * to retire or abort and hands software one record. Which fields the EV67 really returns (PMPC,
 * I_STAT, PCTR_CTL, PCTR0/1) and which are the paper's design: machine/EV6-MODEL.md, ProfileMe.
 */
enum mach_pme_status { /* retired, or why it aborted */
		       MACH_PME_RETIRED,
		       MACH_PME_AB_MISPREDICT, /* fetched on the bad path of a mispredicted branch or jump */
		       MACH_PME_AB_STLD, /* replay trap: store-load order [HRM 2.11] */
		       MACH_PME_AB_LDLD, /* replay trap: load-load order */
		       MACH_PME_AB_MBOX, /* replay trap: other Mbox (LQ/SQ/MAF full, partial forward) */
		       MACH_PME_AB_TRAP, /* younger than an older instruction's trap (replay, DTB miss): refetched */
		       MACH_PME_NR,
};

/* Events of the sampled instruction (struct mach_pme.events). */
#define MACH_PME_E_IMISS 0x001u /* I-cache miss: new fill stream (I_STAT ICM) */
#define MACH_PME_E_ITBMISS 0x002u
#define MACH_PME_E_DMISS 0x004u /* D-cache miss (served by the B-cache or memory) */
#define MACH_PME_E_BCMISS 0x008u /* ... and the B-cache missed too (served by memory) */
#define MACH_PME_E_DTBMISS 0x010u
#define MACH_PME_E_TAKEN 0x020u /* conditional branch taken (PCTR_CTL TAK) */
#define MACH_PME_E_MISPREDICT 0x040u /* branch or jump mispredicted (I_STAT MIS) */
#define MACH_PME_E_LSO 0x080u /* it took a load-store order replay trap (I_STAT LSO) */
#define MACH_PME_E_ALL 0x0ffu

/* The latency registers [PM Table 1], cycles between the stages. */
enum mach_pme_lat {
	MACH_PME_L_FETCH_MAP,
	MACH_PME_L_MAP_DATA, /* map -> operands ready */
	MACH_PME_L_DATA_ISSUE, /* operands ready -> issue */
	MACH_PME_L_ISSUE_READY, /* issue -> ready to retire */
	MACH_PME_L_READY_RETIRE, /* ready to retire -> retire */
	MACH_PME_L_NR,
};

struct mach_pme { /* one sampled instruction */
	uint64_t pc; /* PMPC; bad path: the pc the front end fetched */
	uint64_t ea; /* loads and stores: effective address */
	uint64_t target; /* branches and jumps: where control went (retired only) */
	uint64_t fetch; /* fetch cycle */
	uint32_t lat[MACH_PME_L_NR]; /* retired: all; aborted: 0 (see span) */
	uint32_t span; /* cycles from fetch to retire, or to the abort (0: unknown) */
	uint32_t retire_delay; /* inum retire delay: cycles it was the oldest not retired */
	uint16_t path; /* global branch history at fetch, 12 bits (profiled path register) */
	uint16_t events; /* MACH_PME_E_* */
	uint8_t status; /* enum mach_pme_status */
	uint8_t pair; /* 0: single; 1: first of a pair; 2: second of a pair */
	uint16_t pair_dist; /* second of a pair: fetch distance from the first (1..W) */
	int32_t pair_lat; /* second of a pair: its fetch cycle minus the first's */
};

struct mach_pme_cfg {
	uint32_t lo, hi; /* fetched instructions between samples (pairs), uniform in lo..hi */
	uint32_t window; /* W: the second of a pair at a distance uniform in 1..W; 0: no pairs */
	uint64_t seed;
};

/*
 * What the timing run loop's per-instruction observer (axp_observer.insn, priv pointing here)
 * works on: retire the instruction into `model`; when that says an interrupt may be due and
 * none is held, irq_take() it into `irq` and set have_irq and stop (axp_observer.stop).
 */
struct mach_cpu_obs {
	void *model;
	volatile bool stop;
	bool have_irq;
	struct mach_irq irq;
};

struct mach_coh;

struct mach_cpu_cfg { /* zero = the model's defaults */
	uint32_t mem_latency, bcache_latency; /* cycles (models with caches) */
	bool truth; /* record ground truth */
	/* --cpus N > 1: the coherence protocol (mach_coh.h) the model attaches to as CPU `cpu`
	 * (NULL: one CPU, no coherence) */
	struct mach_coh *coh;
	unsigned int cpu;
	bool kernel_time; /* the machine calls kernel() after every callsys it runs: the
			   * CALL_PAL callsys itself costs no PAL stall */
};

struct mach_cpu_ops {
	const char *name; /* what --cpu names ("ev5") */
	int (*create)(void **model, const struct mach_cpu_cfg *cfg); /* 0 or -Exxx */
	void (*free)(void *model);
	bool (*retire)(void *model, const struct axp_insn *d, const struct axp_event *ev);
	/*
	 * Optional: the model's own observer doing what struct mach_cpu_obs says with retire() and
	 * irq_take() inline, no indirect call per instruction (NULL: the run loop's, which calls
	 * them through this table). priv is a struct mach_cpu_obs.
	 */
	void (*observe)(void *priv, const struct axp_event *ev);
	/*
	 * Optional: axp_run() with observe() inlined in the run loop (exec_loop.h: the same run,
	 * no call per instruction); cfg->obs is the loop's observer (priv a struct mach_cpu_obs,
	 * stop its flag). NULL: axp_run().
	 */
	enum axp_stop (*run)(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
			     struct axp_stop_info *info);
	/*
	 * Optional (NULL: system calls take no time): the emulated system call nr, made by the
	 * CALL_PAL just retired, kept the kernel busy for `cycles` (mach_kern.h); CYCLES counts
	 * on and interrupts due in that time report pc (its pseudo-pc, in kernel mode). True
	 * when an interrupt may be due, as retire().
	 */
	bool (*kernel)(void *model, unsigned int nr, uint64_t pc, uint64_t cycles);
	bool (*irq_take)(void *model, struct mach_irq *irq);
	void (*pmu_arm)(void *model, enum mach_event event, uint64_t period);
	uint64_t (*cycles)(const void *model);
	uint64_t (*count)(const void *model, enum mach_event event);
	void (*access)(void *model, uint64_t va, unsigned int size, bool store,
		       struct axp_access *acc);
	int (*truth_write)(void *const *models, unsigned int n, const char *path);
	int (*param)(const void *model, unsigned int i, const char **name, uint64_t *value);
	void (*print_stats)(const void *model, FILE *f, uint64_t insns);
	/*
	 * ProfileMe (optional, NULL: the model has none). pme_config() starts sampling (cfg NULL:
	 * stops) and returns 0 or -EINVAL (its limits: the model's); a complete record (a pair:
	 * both, first then second) makes retire() return true; pme_take() hands the oldest one.
	 */
	int (*pme_config)(void *model, const struct mach_pme_cfg *cfg);
	bool (*pme_take)(void *model, struct mach_pme *out);
	/* The PMU events the model counts, bit e for enum mach_event e (0: the 21164's seven,
	 * CYCLES..BRANCHMP); the sampler refuses to arm the others. */
	uint32_t events;
};

/* The events `ops` counts (its events mask, or the 21164's seven when it is 0). */
uint32_t mach_cpu_events(const struct mach_cpu_ops *ops);

/*
 * Register a model (the table must outlive the machine). 0, -EINVAL (no name or a required
 * op missing: create, free, retire, irq_take, pmu_arm, cycles, count), -EEXIST (the name is
 * taken), -ENOSPC (too many models).
 */
int mach_cpu_register(const struct mach_cpu_ops *ops);
/* The model named `name` (the built-in EV5 included), or NULL. */
const struct mach_cpu_ops *mach_cpu_find(const char *name);

/* The built-in EV5 (21164) model (mach_ev5_ops.c). */
extern const struct mach_cpu_ops mach_ev5_cpu_ops;
/* The built-in EV6 (21264) model (mach_ev6_ops.c). */
extern const struct mach_cpu_ops mach_ev6_cpu_ops;

#endif /* MACH_CPU_H */
