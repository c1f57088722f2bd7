/* analysis/an_paths.h - path segments reaching an instruction, from branch history and pairs. */
#ifndef AN_PATHS_H
#define AN_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "an_proc.h"

/*
 * [PM] ProfileMe, MICRO'97 §5.3: "By capturing the contents of [the global branch history]
 * register at instruction fetch time as part of the profile record, we can analyze the CFG by
 * looking backward from a sampled instruction to find the paths leading up to it that are
 * consistent with the recorded branch history information."
 *
 * The graph: nodes are basic blocks (of one procedure, or of many for interprocedural paths);
 * each node lists its in-edges. History bit i is the direction of the (i+1)-th most recent
 * conditional branch before the sampled instruction was fetched (1 = taken; bit 0 the most
 * recent; the EV6's global path history, HRM §2.1.1.5, shifts in conditional branches only).
 *
 * A path segment with L history bits is the sequence of blocks executed since the (L+1)-th most
 * recent conditional branch, up to the sampled instruction: walking backwards from the sampled
 * instruction, every in-edge from a block that ends in a conditional branch consumes one bit
 * (the edge is AN_PE_TAKEN or not: that is the branch's direction); the walk stops when the next
 * step would consume bit L, or at a node where a path may begin (AN_PN_START: the procedure's
 * entry or a call's return point, intraprocedurally; an entry or return point whose callers or
 * callee are unknown, interprocedurally). Unconditional branches, jumps (jump tables included),
 * calls and returns consume no bit: they are not in the history, so they are matched only by
 * the CFG (every in-edge of that kind is a candidate). A path that begins at a START node with
 * fewer than L branches is complete (the paper's intraprocedural rule).
 *
 * Interprocedural edges: AN_PE_CALL (a call block into the callee's entry) and AN_PE_RET (a
 * return block of the callee into the call's return point). Walking backwards over a RET edge
 * pushes the return point; a CALL edge is then only taken from the matching call block (the
 * one whose return point is on top), so a path never leaves a callee through another caller
 * than the one it returned to.
 *
 * Weights: each in-edge carries an execution frequency (edge count, or an estimate), a START
 * node the frequency of paths beginning there. A path's probability is the product, over its
 * steps, of the step's frequency over the node's total in-frequency (a first-order Markov
 * estimate, [PM] §5.3's "execution frequencies at each control-flow merge point").
 */

#define AN_PN_COND (1u << 0) /* ends in a conditional branch */
#define AN_PN_START (1u << 1) /* a path may begin here */
#define AN_PN_CALL (1u << 2) /* ends in a call; node `retpt` is its return point */

struct an_pnode {
	uint64_t addr; /* first instruction */
	uint32_t n; /* instructions */
	uint32_t flags; /* AN_PN_* */
	uint32_t pred, npred; /* in-edges: an_pgraph.pe[pred .. pred + npred) */
	uint32_t retpt; /* AN_PN_CALL: the node control returns to (UINT32_MAX: none) */
	double start_w; /* AN_PN_START: frequency of paths beginning here */
};

enum an_pe_kind {
	AN_PE_FLOW, /* fall-through, unconditional branch, jump (no history bit unless the source
		     * ends in a conditional branch) */
	AN_PE_CALL, /* a call block -> the callee's entry */
	AN_PE_RET, /* a return block -> a call's return point */
};

#define AN_PE_TAKEN (1u << 0) /* the source's conditional branch was taken on this edge */

struct an_pedge {
	uint32_t from; /* source node */
	uint8_t kind; /* enum an_pe_kind */
	uint8_t flags; /* AN_PE_* */
	double w; /* frequency */
};

struct an_pgraph {
	struct an_pnode *node;
	uint32_t nnodes;
	struct an_pedge *pe;
	uint32_t npe;
};

struct an_paths_query {
	uint32_t node; /* the sampled instruction's block */
	uint32_t off; /* its index in that block (instructions before it in the block) */
	unsigned int bits; /* history bits used, 0 .. 16 */
	uint32_t history; /* bit i: direction of the (i+1)-th most recent conditional branch */
	bool use_history; /* false: any direction (execution counts only) */
	uint64_t partner; /* a paired sample's pc fetched `dist` instructions earlier, or 0 */
	uint32_t dist; /* fetch distance (>= the retired distance: bad-path fetches count too) */
	uint32_t max_paths; /* stop enumerating past this many (0: 4096) */
	uint32_t max_blocks; /* blocks per path (0: 256); longer paths end there, truncated */
	uint32_t max_steps; /* blocks the walk may visit in all (0: 2^20); past it: overflow */
};

struct an_path {
	uint32_t first, nblk; /* blocks an_paths.blk[first .. first + nblk), the sample's first */
	uint32_t nbranches; /* conditional branches on it (history bits it consumed) */
	bool begun; /* it began at a START node */
	bool truncated; /* max_blocks reached */
	double p; /* probability estimate */
};

struct an_paths {
	struct an_path *v; /* sorted by p, most likely first */
	uint32_t n;
	uint32_t *blk;
	size_t nblk, cap_blk;
	uint32_t cap;
	bool overflow; /* more than max_paths were consistent, or the walk took more than
			* max_steps: v holds what was found */
	uint32_t rejected_partner; /* candidates dropped by the paired sample */
};

/*
 * Every path segment reaching q->node (at q->off) consistent with the history (if
 * q->use_history) and with the paired sample (if q->partner: a path covering at least `dist`
 * instructions before the sample must hold the partner's pc within them). Returns 0 and *out
 * (free with an_paths_free; its v[] sorted by p), -EINVAL for a node out of range or bits > 16,
 * -ENOMEM.
 */
int an_paths_find(const struct an_pgraph *g, const struct an_paths_query *q, struct an_paths *out);
void an_paths_free(struct an_paths *ps);

/*
 * The execution-counts reconstruction ([PM] §5.3 "Execution counts"): from q->node, always
 * step to the most frequent in-edge (or begin, if the START weight is larger) until q->bits
 * conditional branches are on the path; the history is ignored. Returns 0 and one path in *out,
 * -EINVAL, -ENOMEM.
 */
int an_paths_greedy(const struct an_pgraph *g, const struct an_paths_query *q,
		    struct an_paths *out);

/* Does path pa of a equal path pb of b (the same blocks and the same end)? */
bool an_path_equal(const struct an_paths *a, uint32_t pa, const struct an_paths *b, uint32_t pb);

/*
 * Build the graph of procedures ps->v[lo .. hi) (one for intraprocedural paths, all for
 * interprocedural ones). Intraprocedural: a procedure's entries and the return points of its
 * calls are START nodes (a callee's branches are in the history, but not in this graph: the
 * path begins after the call). `inter` adds CALL and RET edges for direct calls (BSR, BR/BSR
 * to an entry of another procedure of the graph; JSR is not followed) and makes entries and
 * return points START nodes only where no caller or callee is known. w(priv, from, to) gives
 * the frequency of control going from the instruction at `from` to `to` (conditional branches:
 * to == from + 4 is the fall-through); w(priv, 0, addr) the execution count of addr. A START
 * node's weight is its count less its in-edges' weights (at least 0). Returns 0 and *out (free
 * with an_pgraph_free), -ENOMEM, or the CFG's error with err set.
 */
struct ax_error;
int an_pgraph_build(const struct an_procs *ps, size_t lo, size_t hi, bool inter,
		    double (*w)(void *priv, uint64_t from, uint64_t to), void *priv,
		    struct an_pgraph **out, struct ax_error *err);
void an_pgraph_free(struct an_pgraph *g);
/* The node holding addr, or UINT32_MAX. */
uint32_t an_pgraph_node_at(const struct an_pgraph *g, uint64_t addr);

#endif /* AN_PATHS_H */
