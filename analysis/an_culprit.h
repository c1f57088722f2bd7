/* analysis/an_culprit.h - why instructions stalled: dynamic stall culprits (DCPI SOSP'97 §6.2). */
#ifndef AN_CULPRIT_H
#define AN_CULPRIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axp.h"
#include "an_freq.h"

/*
 * DCPI SOSP'97 §6.2, "Identifying culprits". Static stalls come from the block's schedule (the
 * scheduler names their reason and the instruction that causes them). The samples an instruction
 * has beyond F * M_i are dynamic stalls, explained "guilty until proven innocent": every cause
 * below is a candidate until a rule of its own rules it out; when an event was sampled (IMISS,
 * DMISS, ...) the event count also bounds how many stall cycles the cause can explain. A stall
 * no candidate explains is "unexplained".
 *
 * The input is one procedure: its instructions (decoded), its basic blocks with their estimated
 * frequency, its edges with theirs, the samples of every event per instruction and the mean
 * sampling period of each event (0: that event was not sampled). All sample quantities of the
 * output are in CYCLES samples (cycles / mean CYCLES period), like S_i.
 */

enum an_cause {
	AN_CAUSE_ICACHE, /* I-cache miss (and the 21164's I-stream refill) */
	AN_CAUSE_ITB, /* instruction TLB miss */
	AN_CAUSE_DCACHE, /* D-cache miss: waiting for a load's data (or a miss address file slot) */
	AN_CAUSE_DTB, /* data TLB miss */
	AN_CAUSE_BRANCH, /* branch or jump mispredicted just before */
	AN_CAUSE_WBUF, /* write buffer full (stores, MB) */
	AN_CAUSE_UNIT, /* integer multiplier or FP divider busy */
	AN_CAUSE_PAL, /* a CALL_PAL just before: the time in PALcode (and the kernel) it called */
	AN_CAUSE_CALLEE, /* a result the called procedure left in flight (its last multiply...) */
	AN_CAUSE_REPLAY, /* a load replayed: issued right after a store to its quadword (21164) */
	AN_CAUSE_NR,
};

/* Sampled events a bound can come from (tools/lib/tl_prof.h maps them to database events). */
enum an_event {
	AN_EV_CYCLES,
	AN_EV_IMISS,
	AN_EV_DMISS,
	AN_EV_DTBMISS,
	AN_EV_ITBMISS,
	AN_EV_BRANCHMP,
	AN_EV_NR,
};

struct an_cp_insn {
	uint64_t pc;
	struct axp_insn d; /* axp_decode() of the word */
	uint32_t block; /* index into blocks */
	uint32_t m; /* M_i: static head-of-issue cycles */
	uint64_t ev[AN_EV_NR]; /* samples of each event at this pc (ev[AN_EV_CYCLES] = S_i) */
};

#define AN_CP_ENTRY (1u << 0) /* may be entered from outside the procedure (an entry) */
#define AN_CP_UNKNOWN_PREDS (1u << 1) /* has predecessors the CFG does not know (indirect) */

struct an_cp_block {
	uint32_t first, n; /* insns[first .. first + n) */
	double f; /* estimated frequency (executions per CYCLES period) */
	uint32_t flags; /* AN_CP_* */
};

struct an_cp_edge {
	uint32_t from, to; /* block indexes */
	double f; /* estimated frequency; < 0 when unknown */
};

/* Costs for the event bounds (§6.2: "assuming pessimistically that each I-cache miss incurred a
 * cache fill all the way from memory"); an_cp_params_default() documents them. */
struct an_cp_params {
	uint32_t line_bytes; /* I-cache line (32 on the 21164) */
	uint32_t page_bytes; /* TLB page (8 KB) */
	double ignore_frac; /* predecessors executed less than this x the block are ignored */
	uint32_t window; /* instructions a backward search for a producer looks at */
	double cost[AN_CAUSE_NR]; /* cycles one event can cost at most (bounds) */
	uint32_t callee_lat[2]; /* longest result latency a callee can leave in flight, in
				 * integer [0] and FP [1] registers */
	uint32_t replay_window; /* a load this many static cycles or fewer after a store replays */
};

void an_cp_params_default(struct an_cp_params *p);

struct an_cp_proc {
	const struct an_cp_insn *insns;
	uint32_t ninsns;
	const struct an_cp_block *blocks;
	uint32_t nblocks;
	const struct an_cp_edge *edges;
	uint32_t nedges;
	double period[AN_EV_NR]; /* mean sampling period of each event; 0: not sampled */
	const struct an_cp_callee *callee; /* per instruction, optional (NULL: no callee known) */
};

/* What a call's callee is known to leave in flight (AN_CAUSE_CALLEE). */
struct an_cp_callee {
	bool known; /* false: the generic bound (an_cp_params.callee_lat) */
	uint64_t written; /* bit r: the callee writes register r (0-31 integer, 32-63 FP) */
	uint8_t wait[2]; /* the most cycles one of those results, integer [0] and FP [1], can
			  * still be in flight when the callee's RET issues */
};

/* What the analysis says about one instruction. */
struct an_cp_result {
	double f; /* its block's frequency */
	double cpi; /* S_i / F cycles per execution (0 when F is 0) */
	double dyn; /* dynamic stall samples: max(0, S_i - F * M_i) */
	uint32_t cand; /* bit c: cause c could not be ruled out */
	double lo[AN_CAUSE_NR]; /* samples cause c explains at least (others bounded) */
	double hi[AN_CAUSE_NR]; /* samples cause c can explain at most (its bound, or dyn) */
	double share[AN_CAUSE_NR]; /* one split of dyn - unexplained among the candidates */
	double unexplained; /* samples no candidate explains */
	uint32_t culprit
		[AN_CAUSE_NR]; /* the instruction blamed (load, branch, multiply...) or AN_NONE */
};

/*
 * Explain the dynamic stalls of every instruction of proc into res[0 .. ninsns). p may be NULL.
 * Returns 0, -EINVAL for an inconsistent procedure (indexes out of range), -ENOMEM.
 */
int an_culprit_explain(const struct an_cp_proc *proc, const struct an_cp_params *p,
		       struct an_cp_result *res);

/* Which causes the rules leave for instruction i (no bounds, no samples needed). */
int an_culprit_candidates(const struct an_cp_proc *proc, const struct an_cp_params *p, uint32_t i,
			  uint32_t *cand, uint32_t culprit[AN_CAUSE_NR]);

/* The same for every instruction: cand[0 .. ninsns). */
int an_culprit_candidates_all(const struct an_cp_proc *proc, const struct an_cp_params *p,
			      uint32_t *cand);

const char *an_cause_name(unsigned int cause); /* "icache", "itb", "dcache", ... */
const char *an_cause_label(unsigned int cause); /* "I-cache miss", ... */

#endif /* AN_CULPRIT_H */
