/* analysis/an_sched.h - static EV5 (21164) schedule of basic blocks: issue cycles, Mi, culprits. */
#ifndef AN_SCHED_H
#define AN_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "axp.h"
#include "an_cfg.h"

/*
 * DCPI SOSP'97 §6.1: "Mi is obtained by scheduling each basic block using a model of the
 * processor on which it was run. Mi may be 0. In practice, Mi is 0 for all but the first of a
 * group of multi-issued instructions. An issue point is an instruction with Mi > 0." and §6.2:
 * "we schedule instructions in each basic block using an accurate model of the processor issue
 * logic and assuming no dynamic stalls. Detailed record-keeping provides how long each
 * instruction stalls due to static constraints, why it stalls, and which previously issued
 * instructions may cause it to stall."
 *
 * In-order issue means an instruction waits only at the head of the issue stage, from the cycle
 * its predecessor issued, so Mi = cycle(i) - cycle(i-1). A block starts fresh ("When a block
 * has multiple predecessors, there is no one static code schedule for computing Mi. In this
 * case, we currently ignore all preceding blocks"): every register ready, every unit idle, and
 * Mi = 1 for its first instruction. an_sched_cfg() does that for blocks entered from ENTRY,
 * from several blocks, or after a call; a block with a single predecessor instead continues
 * that block's schedule: registers, units and the issue cycle carry over, so its first
 * instruction may issue with the predecessor's last (a fall-through inside one INT16 fetch
 * block: Mi = 0) or wait for its results; after a taken branch or a jump it issues a cycle
 * later at the earliest (a new fetch).
 *
 * The EV5 facts (pipes E0/E1/FA/FM, latencies, the multiplier and divider occupancy, the
 * ICMP/ILOG -> IBR/CMOV 0-cycle bypass, the multiply input penalty, INT16 fetch blocks, loads
 * and stores not issuing together, no load two cycles after a store, barriers) are the hosted
 * machine's EV5 model's (machine/EV5-MODEL.md; both take the per-op facts from isa/isa_ev5.h),
 * so the static schedule here is the machine's static schedule: its truth files' STATIC
 * cycles are these Mi.
 *
 * One difference, on purpose: a busy multiplier or divider inside the block (a second multiply
 * too soon) is a static stall here (reason UNIT, culprit the earlier multiply); the machine's
 * truth counts it as a dynamic UNIT stall.
 */

enum an_stall {
	AN_STALL_NONE, /* issues at its earliest cycle (same cycle, or the next fetch block) */
	AN_STALL_DEP, /* waits for an operand: culprit = the producer, lat = its latency */
	AN_STALL_SLOT, /* the cycle's pipes are taken (slotting, pipe conflict, load with store) */
	AN_STALL_LDST, /* a load may not issue two cycles after a store (culprit: the store) */
	AN_STALL_UNIT, /* multiplier/divider busy, or E0 reserved by a finishing multiply */
	AN_STALL_BARRIER, /* TRAPB, EXCB, MB, CALL_PAL wait for every earlier result */
	AN_STALL_NR,
};

extern const char *const an_stall_name[AN_STALL_NR];

/* One instruction's schedule. */
struct an_sched_insn {
	uint32_t cycle; /* issue cycle, 0 = the block's first instruction */
	uint16_t m; /* Mi: cycles at the head of the issue stage without dynamic stalls */
	uint16_t stall; /* cycles of static stall beyond its issue group's start */
	uint8_t reason; /* enum an_stall of the stall (NONE when stall == 0) */
	uint8_t pipe; /* enum isa_ev5_pipe of its op (isa/isa_ev5.h) */
	uint16_t lat; /* AN_STALL_DEP: the producer's latency (issue to ready) */
	int32_t culprit; /* the cause's instruction index in the block, -1 (none, or earlier) */
	uint64_t culprit_pc; /* the cause's address (in this or a preceding block); UINT64_MAX */
	uint32_t ready; /* cycle its result is ready (issue + latency, a multiply's input delay
			 * included); its issue cycle when it writes no register */
};

/* A multiply's result comes up to this many cycles later when a source was produced just
 * before it ([ev5.md]; an_sched.c, and machine/mach_ev5.c models the same). */
#define AN_SCHED_MUL_INPUT_DELAY 2

static inline bool an_sched_is_issue_point(const struct an_sched_insn *s)
{
	return s->m > 0;
}

struct an_sched_model;

/* The EV5 model: the per-op facts of isa/isa_ev5.h (the machine's model uses the same). 0 or
 * -ENOMEM. */
int an_sched_model_new(struct an_sched_model **out);
void an_sched_model_free(struct an_sched_model *m);

/* The name of an enum isa_ev5_pipe value ("E0", "E1", "E01", "FA", "FM", "FAM"). */
const char *an_sched_pipe_name(unsigned int pipe);

/*
 * Schedule n instructions of one basic block from a fresh state, the first at address addr (its
 * alignment decides the INT16 fetch blocks). out has n entries. Returns 0 or -EINVAL (n == 0,
 * addr not a multiple of 4).
 */
int an_sched_block(const struct an_sched_model *m, const struct axp_insn *insn, uint64_t addr,
		   uint32_t n, struct an_sched_insn *out);

/*
 * Whether an_sched_cfg() continues block b's schedule from a predecessor: true, with *pred, when
 * b has exactly one predecessor that can run right before it (not ENTRY, not b itself, not a
 * call or CALL_PAL returning to it; predecessors marked unreachable do not count).
 */
bool an_sched_continues(const struct an_cfg *cfg, uint32_t b, uint32_t *pred);

/*
 * Schedule every block of cfg into out[cfg->ninsns] (culprit indices relative to each block's
 * start; culprit_pc may name an instruction of the predecessor). Returns 0 or -ENOMEM.
 */
int an_sched_cfg(const struct an_sched_model *m, const struct an_cfg *cfg,
		 struct an_sched_insn *out);

/*
 * The same, where via[b] (an edge index, or UINT32_MAX for the rule above) names the in-edge of
 * block b whose source's schedule b continues even when b has other predecessors: latencies in
 * flight across the block boundary (a loop-carried FP chain, a divide in the previous block)
 * become static stalls of b, with their culprit_pc in that block, instead of unexplained
 * dynamic ones (issue 15 item 3; DCPI SOSP'97 §6.1 names the error the fresh schedule makes).
 * The caller names the edge that carries nearly all of b's executions (an_freq_image.c does, from
 * a first estimate of the frequencies). An edge that is not a FALL/TAKEN/JTAB edge into b from
 * a block is ignored. A cycle of such choices (a loop) is scheduled to its steady state: every
 * block of the cycle continues from the state the cycle's previous block leaves. via may be
 * NULL (an_sched_cfg). Returns 0 or -ENOMEM.
 */
int an_sched_cfg_via(const struct an_sched_model *m, const struct an_cfg *cfg, const uint32_t *via,
		     struct an_sched_insn *out);

#endif /* AN_SCHED_H */
