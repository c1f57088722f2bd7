/* machine/mach_coh.h - snooping MESI coherence between the hosted machine's virtual CPUs. */
#ifndef MACH_COH_H
#define MACH_COH_H

#include <stdbool.h>
#include <stdint.h>

#include "mach_trec.h"

/*
 * With --cpus N > 1 every virtual CPU has its own timing model and caches (mach_cpu.h); this
 * file keeps them coherent with the MESI (Illinois) write-invalidate snooping protocol, the one
 * the seed's Challenge systems run (seeds/r10000-counters-perfex-speedshop.txt: interventions
 * and invalidations, the R10000's events 12/13). Why MESI and not the 21264 systems' MOESI-like
 * protocol with a dirty-shared state: machine/EV5-MODEL.md, "Multiprocessor coherence".
 *
 * The coherence granule is a 64-byte block (MACH_COH_SHIFT: the 21164's S-/B-cache block and the
 * 21264's cache block). The CPU models call in, in the machine's execution order (the global
 * memory order: the machine runs one CPU's quantum at a time, mach_thread.c):
 *
 *   mach_coh_load()   a load missed the model's first-level data cache. If the CPU holds the
 *                     block (M, E, S) nothing happens. Else every other CPU is snooped: one
 *                     holding it Modified supplies it cache-to-cache (an intervention: it keeps
 *                     a Shared copy, memory is updated) and the requester gets S; others with
 *                     copies go to S; with none the requester gets E. Any stale copy of the
 *                     requester's own (a write buffer refilled it after an invalidation) is
 *                     dropped first, so the model goes below its caches.
 *   mach_coh_store()  a store. M: nothing; E: silently to M. Else a read-exclusive (or upgrade)
 *                     goes on the bus: every other CPU's copy is invalidated (an invalidation
 *                     each, counted only if the snooped cache really held the block: a clean
 *                     block evicted silently is not there to hit), a Modified one supplies the
 *                     data first (an intervention); the requester gets M.
 *
 * Snooping asks each CPU model, through the callbacks it attaches, whether its caches hold the
 * block (holds) and tells it to drop the block from every level (inval). Both return what the
 * requester must pay: `lat` extra cycles (MACH_COH_C2C_LAT for an intervention, replacing the
 * memory latency of a load; MACH_COH_INVAL_LAT for a store that invalidated copies), both [U]
 * parameters (mach_opts.coh_c2c / coh_inval).
 *
 * Events are counted at the instruction that caused them, on the requesting CPU (the model adds
 * them to its PMU: MACH_EV_INVAL, MACH_EV_INTERV): a system-wide count equals the R10000's
 * "external invalidate/intervention request hits" summed over the CPUs that received them, and
 * each is attributed to the store or load that made the request, which is what a profile of
 * false sharing needs. The truth (section MACH_TRUTH_SEC_COHERENCE, mach_truth.h) holds them per
 * instruction over all CPUs.
 *
 * With one CPU there is no mach_coh at all: the models test one pointer (NULL) and nothing else
 * changes.
 */

#define MACH_COH_SHIFT 6 /* 64-byte coherence blocks */
#define MACH_COH_C2C_LAT 50 /* [U] cycles a cache-to-cache (intervention) fill takes */
#define MACH_COH_INVAL_LAT 20 /* [U] cycles a store waits for its invalidations */

struct mach_coh;

/* What a CPU model gives the protocol: does it hold block `blk` (address >> MACH_COH_SHIFT)
 * anywhere; drop it everywhere. */
struct mach_coh_cpu {
	void *model;
	bool (*holds)(void *model, uint64_t blk);
	void (*inval)(void *model, uint64_t blk);
};

/* The result of one access. */
struct mach_coh_res {
	uint32_t inval; /* copies invalidated in other CPUs' caches */
	bool interv; /* a Modified copy elsewhere supplied the block */
	uint32_t lat; /* extra cycles (load: the fill's latency when interv, else 0) */
};

/* 0, -EINVAL (ncpus outside 2..MACH_MAX_CPUS), -ENOMEM. c2c/inval 0: the defaults above. */
int mach_coh_new(struct mach_coh **out, unsigned int ncpus, uint32_t c2c, uint32_t inval,
		 bool truth);
void mach_coh_free(struct mach_coh *c);
void mach_coh_attach(struct mach_coh *c, unsigned int cpu, const struct mach_coh_cpu *ops);
/* The protocol's actions for a load that missed / a store, by CPU `cpu` at `pc`. */
void mach_coh_load(struct mach_coh *c, unsigned int cpu, uint64_t ea, uint64_t pc,
		   struct mach_coh_res *r);
void mach_coh_store(struct mach_coh *c, unsigned int cpu, uint64_t ea, uint64_t pc,
		    struct mach_coh_res *r);
/* Totals over all CPUs: invalidations, interventions, stores that found the block shared. */
void mach_coh_totals(const struct mach_coh *c, uint64_t *inval, uint64_t *interv,
		     uint64_t *shstores);
uint32_t mach_coh_param(const struct mach_coh *c, bool c2c);
/* The truth section (MACH_TRUTH_SEC_COHERENCE) encoded into *x (data owned by c, valid until
 * the next call or mach_coh_free): 0, -EINVAL (no truth kept), -ENOMEM. */
int mach_coh_truth_xsec(struct mach_coh *c, struct mach_truth_xsec *x);

#endif /* MACH_COH_H */
