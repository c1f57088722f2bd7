/* analysis/an_culprit.c - why instructions stalled: dynamic stall culprits (DCPI SOSP'97 §6.2). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "an_culprit.h"
#include "an_sched.h"
#include "isa_ev5.h"

/*
 * DCPI SOSP'97 §6.2: "To explain a dynamic stall at an instruction, we follow a 'guilty until
 * proven innocent' approach. ... we start from a list of all possible reasons for dynamic stalls
 * in general and try to rule out those that are impossible or extremely unlikely in the specific
 * case in question. Even if a candidate cannot be eliminated, sometimes we can estimate an upper
 * bound on how much it can contribute to the stall."
 *
 * The rules, one per cause:
 *   I-cache   "an instruction is extremely unlikely to stall due to an I-cache miss if it is in
 *             the same cache line as every instruction that can execute immediately before it":
 *             inside a block only the first instruction of a line can miss; a block head can
 *             miss unless the last instruction of every predecessor block is in its line. Blocks
 *             and edges executed much less often than the instruction (ignore_frac) are ignored,
 *             as the paper allows. Entries, returns from calls and unknown predecessors can miss.
 *   ITB       the same rule with the 8 KB page instead of the line.
 *   D-cache   the instruction reads (or, WAW, overwrites) a register whose most recent writer
 *             on some path back (window instructions, through predecessor blocks) is a load, or
 *             may be one (a call or the procedure entry is in between); a load can also wait for
 *             a miss address file slot when another load precedes it; barriers (TRAPB, EXCB,
 *             MB, WMB, CALL_PAL) wait for every earlier load.
 *   DTB       only loads and stores translate data addresses.
 *   branch    only the instruction executed right after a conditional branch, an indirect jump,
 *             a return (the instruction after a call) or a call (a procedure entry) pays for a
 *             misprediction; a block whose predecessors all fall through or end in BR cannot.
 *   write buf only stores (and MB/WMB, which wait for it to drain).
 *   FU busy   only multiplies (integer multiplier) and FP divides/square roots (divider), and
 *             only when another one of the same unit precedes within the window.
 *   PALcode   the instruction right after a CALL_PAL (every path into it comes from one):
 *             DCPI SOSP'97 §4.1, "samples for those events will be associated with the
 *             instruction that runs after the PALcode finishes ... For synchronous PAL calls,
 *             the samples attributed to the instruction following the call provide useful
 *             information about the time spent in the call". That CALL_PAL is the culprit and
 *             the only candidate: whatever missed or stalled, it happened in the call (no bound:
 *             no event counts PALcode time).
 *   callee    (issue 15) the instruction reads a register whose most recent writer on some path
 *             back is a call: the callee produced it and may have returned with it in flight
 *             (Square::area's last MULQ; the static schedule cannot see into the callee, so
 *             the wait looks dynamic here while the machine counts it as a producer latency).
 *             Not for RA, which the callee's RET read (so it was ready), nor SP, which the
 *             calling standard has the callee restore by an add. The walk counts the static
 *             cycles (M_k) from the call to the reader; at most callee_lat (the longest result
 *             latency of the register's file) minus those cycles per execution can be left,
 *             or, where the caller knows the callee (an_cp_proc.callee: a straight-line leaf
 *             reached by BSR, analysis/an_freq_image.c) and it writes the register, what its
 *             own schedule leaves in flight at its RET minus those cycles.
 *   replay    (issue 15, EV5) a load (any: LDQ_U to R31, the unop, and prefetches too) issued
 *             within replay_window static cycles after the most recent store, when both use
 *             the same base register, not rewritten in between, and their addresses can fall
 *             in one quadword: "a load one cycle after a store to the same address replays",
 *             21164 HRM p. 2-33. At most cost[REPLAY] cycles per execution.
 * Bounds, when the event was sampled (period[] > 0): the event's samples near the instruction
 * times its mean period estimate the events; each can cost at most cost[] cycles (the paper:
 * "assuming pessimistically that each I-cache miss incurred a cache fill all the way from
 * memory"). The 21164 delivers the interrupt six cycles after the event, so a sample lands on
 * the instruction at the head of issue then: for an I-cache or TLB miss the missing instruction
 * itself, for a D-cache miss usually the stalled consumer, for a mispredict the instruction
 * after the branch. The bounds therefore count samples over the stretch from the culprit to the
 * instruction.
 *
 * The callee and replay rules bound themselves without an event: cycles per execution times the
 * instruction's estimated executions (F, in CYCLES periods, so the product is in samples).
 *
 * Ranges: hi[c] = min(dyn, bound_c); lo[c] = max(0, dyn - sum of the other candidates' hi);
 * unexplained = dyn when no candidate is left, else what exceeds the sum of the bounds. share[]
 * splits the explained part: lo first, the rest in proportion to hi - lo.
 */

/* The longest result latency of the EV5 tables (isa/isa_ev5.h) per register file written:
 * integer UMULH 14 + the input penalty, FP DIVT 22. */
static void callee_latencies(uint32_t lat[2])
{
	lat[0] = lat[1] = 0;
	for (unsigned int op = 0; op < AXP_OP_NR; op++) {
		struct isa_ev5_op o;
		uint32_t l;
		uint8_t d;

		isa_ev5_op(op, ISA_EV5_DCACHE_LAT, &o);
		d = o.da ? o.da : o.dc;
		if (!d)
			continue;
		l = o.lat + ((o.kind & ISA_EV5_K_IMUL) ? AN_SCHED_MUL_INPUT_DELAY : 0);
		if (l > lat[d > 1])
			lat[d > 1] = l;
	}
}

void an_cp_params_default(struct an_cp_params *p)
{
	memset(p, 0, sizeof(*p));
	p->line_bytes = 32; /* 21164 I-cache block */
	p->page_bytes = 8192; /* Alpha page */
	p->ignore_frac = 0.02; /* ours: "much less frequently" */
	p->window = 64; /* ours */
	/* Worst cycles per event (ours, for the EV5: memory 80 + bus queueing). */
	p->cost[AN_CAUSE_ICACHE] = 120;
	p->cost[AN_CAUSE_ITB] = 40;
	p->cost[AN_CAUSE_DCACHE] = 200;
	p->cost[AN_CAUSE_DTB] = 40;
	p->cost[AN_CAUSE_BRANCH] = 10;
	p->cost[AN_CAUSE_WBUF] = 0; /* no event */
	p->cost[AN_CAUSE_UNIT] = 0;
	/* A load issued the cycle after a store to its quadword replays: 7 cycles (21164 HRM
	 * p. 2-33, via refs/algorithms-isa-microarch-linux.md; machine/mach_ev5.c `replay`). */
	p->cost[AN_CAUSE_REPLAY] = 7;
	/* The HRM has such a load scheduled 3 cycles after the store: closer than that is the
	 * window (the static schedule never puts a load 2 cycles after a store, DCPI §6.1.3). */
	p->replay_window = 2;
	callee_latencies(p->callee_lat);
}

const char *an_cause_name(unsigned int cause)
{
	static const char *const names[AN_CAUSE_NR] = { "icache", "itb",   "dcache", "dtb",
							"branch", "wbuf",  "unit",   "pal",
							"callee", "replay" };

	return cause < AN_CAUSE_NR ? names[cause] : "?";
}

const char *an_cause_label(unsigned int cause)
{
	static const char *const names[AN_CAUSE_NR] = {
		"I-cache miss",	     "ITB miss",	   "D-cache miss",	   "DTB miss",
		"branch mispredict", "write buffer full",  "functional unit busy", "PALcode call",
		"callee's result",   "replay after store",
	};

	return cause < AN_CAUSE_NR ? names[cause] : "?";
}

/* ------------------------------------------------------------------------------------------ */
/* Instruction properties. */

static const struct axp_op_info *info(const struct an_cp_insn *in)
{
	return axp_info(&in->d);
}

static bool is_call(const struct an_cp_insn *in)
{
	return in->d.op == AXP_OP_JSR || in->d.op == AXP_OP_BSR || in->d.op == AXP_OP_JSR_CO;
}

static bool is_pal(const struct an_cp_insn *in)
{
	return in->d.op == AXP_OP_CALL_PAL;
}

/* Control transfers whose target or direction the 21164 predicts (and can mispredict). */
static bool is_predicted(const struct an_cp_insn *in)
{
	unsigned int u = info(in)->unit;

	if (in->d.op == AXP_OP_BR || in->d.op == AXP_OP_BSR)
		return false; /* direct, unconditional: the target is in the instruction */
	return u == AXP_U_IBR || u == AXP_U_FBR || u == AXP_U_JSR;
}

static bool is_load(const struct an_cp_insn *in)
{
	/* A load to R31/F31 is a prefetch the machine does not perform (unop). */
	return (info(in)->flags & AXP_F_LD) && in->d.ra != 31;
}

static bool is_store(const struct an_cp_insn *in)
{
	return info(in)->flags & AXP_F_ST;
}

static bool is_barrier(const struct an_cp_insn *in)
{
	unsigned int op = in->d.op;

	return op == AXP_OP_TRAPB || op == AXP_OP_EXCB || op == AXP_OP_MB || op == AXP_OP_WMB ||
	       op == AXP_OP_CALL_PAL;
}

/* 1: integer multiplier, 2: FP divider, 0: neither. */
static int unit_family(const struct an_cp_insn *in)
{
	switch (info(in)->unit) {
	case AXP_U_IMULL:
	case AXP_U_IMULQ:
	case AXP_U_IMULH:
		return 1;
	case AXP_U_FDIVS:
	case AXP_U_FDIVT:
		return 2;
	default:
		return 0;
	}
}

#define NOREG 0xffu

/* Register written (0-31 integer, 32-63 FP), or NOREG. */
static unsigned int dest_reg(const struct an_cp_insn *in)
{
	uint32_t f = info(in)->flags;
	unsigned int r;

	if (f & AXP_F_DA)
		r = in->d.ra + ((f & AXP_F_FA) ? 32 : 0);
	else if (f & AXP_F_DC)
		r = in->d.rc + ((f & AXP_F_FC) ? 32 : 0);
	else
		return NOREG;
	return (r & 31) == 31 ? NOREG : r;
}

/* Registers read, into r[3]; returns how many. */
static unsigned int src_regs(const struct an_cp_insn *in, unsigned int r[3])
{
	uint32_t f = info(in)->flags;
	unsigned int n = 0, x;

	if (f & AXP_F_SA) {
		x = in->d.ra + ((f & AXP_F_FA) ? 32 : 0);
		if ((x & 31) != 31)
			r[n++] = x;
	}
	if ((f & AXP_F_SB) && !in->d.islit) {
		x = in->d.rb + ((f & AXP_F_FB) ? 32 : 0);
		if ((x & 31) != 31)
			r[n++] = x;
	}
	if (f & AXP_F_SC) {
		x = in->d.rc + ((f & AXP_F_FC) ? 32 : 0);
		if ((x & 31) != 31)
			r[n++] = x;
	}
	return n;
}

/* ------------------------------------------------------------------------------------------ */
/* The procedure's shape. */

struct cp {
	const struct an_cp_proc *pr;
	const struct an_cp_params *p;
	uint32_t *pred_off, *pred_e; /* CSR: in-edges of each block */
	uint32_t *stamp; /* per block: last search that visited it */
	uint32_t *dist; /* per block: cycles at its end when the current cycle walk came */
	uint32_t cur; /* current search */
};

static int check_proc(const struct an_cp_proc *pr)
{
	uint32_t b, e, i;

	if ((pr->ninsns && !pr->insns) || (pr->nblocks && !pr->blocks) ||
	    (pr->nedges && !pr->edges))
		return -EINVAL;
	for (b = 0; b < pr->nblocks; b++)
		if (pr->blocks[b].first > pr->ninsns ||
		    pr->blocks[b].n > pr->ninsns - pr->blocks[b].first)
			return -EINVAL;
	for (i = 0; i < pr->ninsns; i++) {
		uint32_t bl = pr->insns[i].block;

		if (bl >= pr->nblocks || i < pr->blocks[bl].first ||
		    i >= pr->blocks[bl].first + pr->blocks[bl].n)
			return -EINVAL;
		if (pr->insns[i].d.op >= AXP_OP_NR)
			return -EINVAL;
	}
	for (e = 0; e < pr->nedges; e++)
		if (pr->edges[e].from >= pr->nblocks || pr->edges[e].to >= pr->nblocks)
			return -EINVAL;
	return 0;
}

static int cp_init(struct cp *c, const struct an_cp_proc *pr, const struct an_cp_params *p)
{
	uint32_t *pos, b, e;

	memset(c, 0, sizeof(*c));
	c->pr = pr;
	c->p = p;
	c->pred_off = calloc((size_t)pr->nblocks + 1, sizeof(*c->pred_off));
	c->pred_e = malloc(((size_t)pr->nedges + 1) * sizeof(*c->pred_e));
	c->stamp = calloc((size_t)pr->nblocks + 1, sizeof(*c->stamp));
	c->dist = calloc((size_t)pr->nblocks + 1, sizeof(*c->dist));
	pos = calloc((size_t)pr->nblocks + 1, sizeof(*pos));
	if (!c->pred_off || !c->pred_e || !c->stamp || !c->dist || !pos) {
		free(pos);
		return -ENOMEM;
	}
	for (e = 0; e < pr->nedges; e++)
		c->pred_off[pr->edges[e].to + 1]++;
	for (b = 0; b < pr->nblocks; b++)
		c->pred_off[b + 1] += c->pred_off[b];
	memcpy(pos, c->pred_off, (size_t)pr->nblocks * sizeof(*pos));
	for (e = 0; e < pr->nedges; e++)
		c->pred_e[pos[pr->edges[e].to]++] = e;
	free(pos);
	return 0;
}

static void cp_exit(struct cp *c)
{
	free(c->pred_off);
	free(c->pred_e);
	free(c->stamp);
	free(c->dist);
}

/* Is edge e one the rules may ignore ("executed much less frequently")? */
static bool edge_rare(const struct cp *c, uint32_t e)
{
	const struct an_cp_edge *ed = &c->pr->edges[e];
	double fb = c->pr->blocks[ed->to].f;

	return ed->f >= 0 && fb > 0 && ed->f < c->p->ignore_frac * fb;
}

/*
 * The instructions that can execute right before instruction i: calls fn(priv, k) for each one
 * known (k an instruction index) and returns true when some predecessor is unknown (an entry,
 * a return from a call, unknown predecessors, an empty predecessor block).
 */
typedef void (*prev_fn)(void *priv, uint32_t k);

static bool for_prev(const struct cp *c, uint32_t i, prev_fn fn, void *priv)
{
	const struct an_cp_proc *pr = c->pr;
	const struct an_cp_block *bl = &pr->blocks[pr->insns[i].block];
	bool unknown = false, any = false;
	uint32_t k;

	if (i > bl->first) {
		if (is_call(&pr->insns[i - 1]) || is_pal(&pr->insns[i - 1]))
			return true; /* the callee's return (or PALcode) ran just before */
		fn(priv, i - 1);
		return false;
	}
	if (bl->flags & (AN_CP_ENTRY | AN_CP_UNKNOWN_PREDS))
		unknown = true;
	for (k = c->pred_off[pr->insns[i].block]; k < c->pred_off[pr->insns[i].block + 1]; k++) {
		uint32_t e = c->pred_e[k];
		const struct an_cp_block *pb = &pr->blocks[pr->edges[e].from];
		uint32_t last;

		if (edge_rare(c, e))
			continue;
		any = true;
		if (!pb->n) {
			unknown = true;
			continue;
		}
		last = pb->first + pb->n - 1;
		if (is_call(&pr->insns[last]) || is_pal(&pr->insns[last])) {
			/* Falling out of a call means returning from the callee. */
			unknown = true;
			continue;
		}
		fn(priv, last);
	}
	return unknown || !any;
}

struct same_ctx {
	const struct an_cp_proc *pr;
	uint64_t unit, key; /* line or page size, and the key of the stalled instruction */
	bool differ;
};

static void same_cb(void *priv, uint32_t k)
{
	struct same_ctx *s = priv;

	if (s->pr->insns[k].pc / s->unit != s->key)
		s->differ = true;
}

/* I-cache (unit = line) and ITB (unit = page) rule: can instruction i miss? */
static bool may_miss_fetch(const struct cp *c, uint32_t i, uint64_t unit)
{
	struct same_ctx s = { .pr = c->pr, .unit = unit, .key = c->pr->insns[i].pc / unit };

	if (for_prev(c, i, same_cb, &s))
		return true;
	return s.differ;
}

struct branch_ctx {
	const struct an_cp_proc *pr;
	uint32_t culprit;
};

static void branch_cb(void *priv, uint32_t k)
{
	struct branch_ctx *s = priv;

	if (is_predicted(&s->pr->insns[k]) && s->culprit == AN_NONE)
		s->culprit = k;
}

static bool may_mispredict(const struct cp *c, uint32_t i, uint32_t *culprit, bool *unknown)
{
	struct branch_ctx s = { .pr = c->pr, .culprit = AN_NONE };

	*unknown = for_prev(c, i, branch_cb, &s);
	*culprit = s.culprit;
	return *unknown || s.culprit != AN_NONE;
}

/*
 * Backward search from instruction i (exclusive) along every path, at most window instructions
 * per path, for the most recent writer of register reg (NOREG: any load; for UNIT: any
 * instruction of unit family `fam`). Returns true when the search meets what it looks for or
 * cannot rule it out (entry, call, unknown predecessors); *culprit gets the first instruction
 * found.
 */
struct search {
	unsigned int reg; /* register, or NOREG */
	int fam; /* > 0: look for this unit family instead */
	bool any_load; /* look for any load */
	bool strict; /* only a load actually found counts (not an entry, a call, a jump) */
	uint32_t culprit;
	bool hit;
};

static bool visit(const struct search *s, const struct an_cp_insn *in, bool *stop, bool *hit)
{
	if (s->fam) {
		if (unit_family(in) == s->fam) {
			*hit = *stop = true;
			return true;
		}
		return false;
	}
	if (s->any_load) {
		if (is_load(in)) {
			*hit = *stop = true;
			return true;
		}
		return false;
	}
	if ((is_call(in) || is_pal(in)) && s->reg != 30) {
		/* The callee (or the kernel) may have loaded it. */
		*stop = true;
		*hit = !s->strict;
		return false;
	}
	if (dest_reg(in) == s->reg) {
		*stop = true;
		*hit = is_load(in);
		return *hit;
	}
	return false;
}

static void walk(struct cp *c, struct search *s, uint32_t b, uint32_t from, uint32_t budget)
{
	const struct an_cp_proc *pr = c->pr;
	const struct an_cp_block *bl = &pr->blocks[b];
	uint32_t k = from, e;

	/* Instructions first .. from - 1 of block b, backwards. */
	while (k > bl->first && budget) {
		bool stop = false, hit = false;

		k--;
		budget--;
		if (visit(s, &pr->insns[k], &stop, &hit) && s->culprit == AN_NONE)
			s->culprit = k;
		if (hit)
			s->hit = true;
		if (stop)
			return;
	}
	if (!budget)
		return; /* far enough back: the producer had time to finish */
	if ((bl->flags & (AN_CP_ENTRY | AN_CP_UNKNOWN_PREDS)) && !s->fam && !s->strict) {
		/* Registers and loads may come from the caller or an unknown jump (a multiply
		 * of the caller has long finished by the time the callee multiplies again). */
		s->hit = true;
	}
	for (e = c->pred_off[b]; e < c->pred_off[b + 1]; e++) {
		uint32_t pe = c->pred_e[e], pb = pr->edges[pe].from;

		if (edge_rare(c, pe) || c->stamp[pb] == c->cur)
			continue;
		c->stamp[pb] = c->cur;
		walk(c, s, pb, pr->blocks[pb].first + pr->blocks[pb].n, budget);
		if (s->hit && s->culprit != AN_NONE)
			return;
	}
}

static bool search_back(struct cp *c, uint32_t i, struct search *s)
{
	uint32_t b = c->pr->insns[i].block;

	s->culprit = AN_NONE;
	s->hit = false;
	c->cur++;
	/* b itself is not marked: through a loop's back edge it is walked again from its end. */
	walk(c, s, b, i, c->p->window);
	return s->hit;
}

/*
 * The callee and replay rules: a backward walk from instruction i along every path (predecessor
 * blocks not rare) that counts static cycles, the M_k of the instructions passed, i's own
 * included: at instruction k the count is the issue cycles from k to i as the schedule has
 * them. A path ends at what the rule looks for (a hit: chit() keeps the best one), at what
 * rules it out, at an entry or unknown predecessors (no hit), or beyond `limit` cycles. A
 * block is walked again only when a path reaches it with fewer cycles.
 */
enum { CW_CALLEE, CW_REPLAY };

struct cwalk {
	int kind;
	unsigned int reg; /* CALLEE: the register read; REPLAY: the load's base register */
	const struct an_cp_insn *ld; /* REPLAY: the load */
	uint32_t limit; /* cycles a path may count */
	unsigned int file; /* CALLEE: the register's file (0 integer, 1 FP) */
	uint32_t best, culprit; /* REPLAY: the fewest cycles to a hit; CALLEE: the most cycles a
				 * hit can wait (0: none); and its instruction (AN_NONE: none) */
};

/* The access size in bytes of a load or store. */
static unsigned int acc_size(const struct an_cp_insn *in)
{
	uint32_t f = info(in)->flags;

	return (f & AXP_F_M8) ? 8 : (f & AXP_F_M4) ? 4 : (f & AXP_F_M2) ? 2 : 1;
}

/* The alignment its address has: its size, except LDQ_U/STQ_U (any: they clear the low bits). */
static unsigned int acc_align(const struct an_cp_insn *in)
{
	return in->d.op == AXP_OP_LDQ_U || in->d.op == AXP_OP_STQ_U ? 1 : acc_size(in);
}

/*
 * Can store st and load ld, through the same unchanged base register, touch one quadword? Their
 * addresses differ by their displacements; try every place the store's address can have in its
 * quadword (a multiple of its alignment) and see whether the load's, aligned as it must be, is
 * then in the same quadword.
 */
static bool same_quadword(const struct an_cp_insn *st, const struct an_cp_insn *ld)
{
	int64_t delta = (int64_t)ld->d.disp - (int64_t)st->d.disp;
	unsigned int sa = acc_align(st), la = acc_align(ld);

	for (int64_t a = 0; a < 8; a += sa) {
		int64_t b = a + delta;

		if (b >= 0 && b < 8 && b % la == 0)
			return true;
	}
	return false;
}

/* Visit instruction in, `d` cycles before the walk's start: true ends the path (*hit: found). */
static bool cvisit(const struct cwalk *w, const struct an_cp_insn *in, bool *hit)
{
	*hit = false;
	if (w->kind == CW_CALLEE) {
		if (is_call(in))
			return *hit = true;
		return is_pal(in) || dest_reg(in) == w->reg;
	}
	if (is_store(in)) {
		/* The most recent store decides (the 21164 compares with the last one only). */
		*hit = in->d.rb == w->ld->d.rb && same_quadword(in, w->ld);
		return true;
	}
	return is_call(in) || is_pal(in) || dest_reg(in) == w->reg;
}

/* A hit at instruction k, d cycles back: keep the fewest cycles (REPLAY) or the longest wait
 * (CALLEE: what the callee leaves in flight, known or the generic bound, minus d). */
static void chit(const struct cp *c, struct cwalk *w, uint32_t k, uint32_t d)
{
	uint32_t lat = c->p->callee_lat[w->file];

	if (w->kind == CW_REPLAY) {
		if (d < w->best) {
			w->best = d;
			w->culprit = k;
		}
		return;
	}
	/* A register the known callee does not write keeps the generic bound: the caller's own
	 * producer before the call may still be in flight after a short callee. */
	if (c->pr->callee && c->pr->callee[k].known && (c->pr->callee[k].written >> w->reg & 1) &&
	    c->pr->callee[k].wait[w->file] < lat)
		lat = c->pr->callee[k].wait[w->file];
	if (lat > d && lat - d > w->best) {
		w->best = lat - d;
		w->culprit = k;
	}
}

static void cwalk_block(struct cp *c, struct cwalk *w, uint32_t b, uint32_t from, uint32_t d)
{
	const struct an_cp_proc *pr = c->pr;
	const struct an_cp_block *bl = &pr->blocks[b];
	uint32_t k = from, e;

	while (k > bl->first) {
		bool hit;

		k--;
		if (cvisit(w, &pr->insns[k], &hit)) {
			if (hit)
				chit(c, w, k, d);
			return;
		}
		d += pr->insns[k].m;
		if (d > w->limit)
			return;
	}
	for (e = c->pred_off[b]; e < c->pred_off[b + 1]; e++) {
		uint32_t pe = c->pred_e[e], pb = pr->edges[pe].from;

		if (edge_rare(c, pe) || (c->stamp[pb] == c->cur && c->dist[pb] <= d))
			continue;
		c->stamp[pb] = c->cur;
		c->dist[pb] = d;
		cwalk_block(c, w, pb, pr->blocks[pb].first + pr->blocks[pb].n, d);
	}
}

/* Walk back from i; true when some path hits within the limit (w->best, w->culprit). */
static bool cwalk(struct cp *c, uint32_t i, struct cwalk *w)
{
	w->best = w->kind == CW_REPLAY ? UINT32_MAX : 0;
	w->culprit = AN_NONE;
	c->cur++;
	if (c->pr->insns[i].m > w->limit)
		return false;
	cwalk_block(c, w, c->pr->insns[i].block, i, c->pr->insns[i].m);
	return w->culprit != AN_NONE;
}

/*
 * Callee: the most cycles per execution a result of a callee can keep instruction i waiting
 * (0: none can), with the call into *culprit.
 */
static uint32_t callee_wait(struct cp *c, uint32_t i, uint32_t *culprit)
{
	unsigned int regs[3], n = src_regs(&c->pr->insns[i], regs);
	uint32_t most = 0;

	for (unsigned int r = 0; r < n; r++) {
		uint32_t lat = c->p->callee_lat[regs[r] >= 32];
		struct cwalk w = { .kind = CW_CALLEE, .reg = regs[r], .file = regs[r] >= 32 };

		/* RA: the callee's RET read it; SP: restored by an add (the calling standard). */
		if (regs[r] == 26 || regs[r] == 30 || !lat)
			continue;
		w.limit = lat - 1;
		if (cwalk(c, i, &w) && w.best > most) {
			most = w.best;
			*culprit = w.culprit;
		}
	}
	return most;
}

/* Replay: the store a load i issued right after, to its quadword (AN_NONE: none). */
static uint32_t replay_store(struct cp *c, uint32_t i)
{
	const struct an_cp_insn *in = &c->pr->insns[i];
	struct cwalk w = { .kind = CW_REPLAY, .reg = in->d.rb, .ld = in };

	if (!(info(in)->flags & AXP_F_LD) || !c->p->replay_window)
		return AN_NONE;
	w.limit = c->p->replay_window; /* (a base of R31 never matches dest_reg(): never written) */
	return cwalk(c, i, &w) && w.best <= w.limit ? w.culprit : AN_NONE;
}

struct pal_ctx {
	const struct an_cp_proc *pr;
	uint32_t pal; /* the first CALL_PAL seen, AN_NONE */
	bool other; /* some predecessor is not a CALL_PAL */
};

static void pal_cb(void *priv, uint32_t k)
{
	struct pal_ctx *x = priv;

	if (!is_pal(&x->pr->insns[k]))
		x->other = true;
	else if (x->pal == AN_NONE)
		x->pal = k;
}

/*
 * The CALL_PAL that every path into instruction i comes straight from (its index), or AN_NONE:
 * inside a block the instruction before; at a block head the last instruction of every
 * predecessor that is not rare (an entry or unknown predecessors: AN_NONE).
 */
static uint32_t after_pal(const struct cp *c, uint32_t i)
{
	const struct an_cp_proc *pr = c->pr;
	const struct an_cp_block *bl = &pr->blocks[pr->insns[i].block];
	struct pal_ctx x = { .pr = pr, .pal = AN_NONE };
	uint32_t k;

	if (i > bl->first)
		return is_pal(&pr->insns[i - 1]) ? i - 1 : AN_NONE;
	if (bl->flags & (AN_CP_ENTRY | AN_CP_UNKNOWN_PREDS))
		return AN_NONE;
	for (k = c->pred_off[pr->insns[i].block]; k < c->pred_off[pr->insns[i].block + 1]; k++) {
		uint32_t e = c->pred_e[k];
		const struct an_cp_block *pb = &pr->blocks[pr->edges[e].from];

		if (edge_rare(c, e))
			continue;
		if (!pb->n)
			return AN_NONE;
		pal_cb(&x, pb->first + pb->n - 1);
	}
	return x.other ? AN_NONE : x.pal;
}

static void candidates(struct cp *c, uint32_t i, uint32_t *cand, uint32_t culprit[AN_CAUSE_NR],
		       bool *unknown_pred, uint32_t *callee_cyc)
{
	const struct an_cp_insn *in = &c->pr->insns[i];
	unsigned int regs[4], n, r;
	uint32_t k;

	*cand = 0;
	*unknown_pred = false;
	*callee_cyc = 0;
	for (k = 0; k < AN_CAUSE_NR; k++)
		culprit[k] = AN_NONE;
	culprit[AN_CAUSE_PAL] = after_pal(c, i);
	if (culprit[AN_CAUSE_PAL] != AN_NONE) {
		*cand = 1u << AN_CAUSE_PAL;
		*unknown_pred = true;
		return;
	}

	if (may_miss_fetch(c, i, c->p->line_bytes))
		*cand |= 1u << AN_CAUSE_ICACHE;
	if (may_miss_fetch(c, i, c->p->page_bytes))
		*cand |= 1u << AN_CAUSE_ITB;
	if (may_mispredict(c, i, &culprit[AN_CAUSE_BRANCH], unknown_pred))
		*cand |= 1u << AN_CAUSE_BRANCH;

	/* D-cache: a load's data (or its destination, WAW: only a load seen here), a MAF slot, a
	 * barrier. */
	n = src_regs(in, regs);
	if (dest_reg(in) != NOREG)
		regs[n++] = dest_reg(in);
	for (r = 0; r < n; r++) {
		struct search s = { .reg = regs[r], .strict = r + 1 == n && dest_reg(in) != NOREG };

		if (search_back(c, i, &s)) {
			*cand |= 1u << AN_CAUSE_DCACHE;
			if (culprit[AN_CAUSE_DCACHE] == AN_NONE)
				culprit[AN_CAUSE_DCACHE] = s.culprit;
		}
	}
	if (is_load(in) || is_barrier(in)) {
		struct search s = { .reg = NOREG, .any_load = true };

		if (search_back(c, i, &s)) {
			*cand |= 1u << AN_CAUSE_DCACHE;
			if (culprit[AN_CAUSE_DCACHE] == AN_NONE)
				culprit[AN_CAUSE_DCACHE] = s.culprit;
		}
	}

	if (is_load(in) || is_store(in))
		*cand |= 1u << AN_CAUSE_DTB;
	if (is_store(in) || in->d.op == AXP_OP_MB || in->d.op == AXP_OP_WMB)
		*cand |= 1u << AN_CAUSE_WBUF;
	if (unit_family(in)) {
		struct search s = { .reg = NOREG, .fam = unit_family(in) };

		if (search_back(c, i, &s)) {
			*cand |= 1u << AN_CAUSE_UNIT;
			culprit[AN_CAUSE_UNIT] = s.culprit;
		}
	}
	*callee_cyc = callee_wait(c, i, &culprit[AN_CAUSE_CALLEE]);
	if (*callee_cyc)
		*cand |= 1u << AN_CAUSE_CALLEE;
	culprit[AN_CAUSE_REPLAY] = replay_store(c, i);
	if (culprit[AN_CAUSE_REPLAY] != AN_NONE)
		*cand |= 1u << AN_CAUSE_REPLAY;
}

int an_culprit_candidates(const struct an_cp_proc *proc, const struct an_cp_params *p, uint32_t i,
			  uint32_t *cand, uint32_t culprit[AN_CAUSE_NR])
{
	struct an_cp_params defp;
	uint32_t callee_cyc;
	bool unknown;
	struct cp c;
	int ret;

	ret = check_proc(proc);
	if (ret)
		return ret;
	if (i >= proc->ninsns)
		return -EINVAL;
	if (!p) {
		an_cp_params_default(&defp);
		p = &defp;
	}
	ret = cp_init(&c, proc, p);
	if (!ret)
		candidates(&c, i, cand, culprit, &unknown, &callee_cyc);
	cp_exit(&c);
	return ret;
}

int an_culprit_candidates_all(const struct an_cp_proc *proc, const struct an_cp_params *p,
			      uint32_t *cand)
{
	struct an_cp_params defp;
	uint32_t culprit[AN_CAUSE_NR], callee_cyc;
	bool unknown;
	struct cp c;
	int ret;

	ret = check_proc(proc);
	if (ret)
		return ret;
	if (!p) {
		an_cp_params_default(&defp);
		p = &defp;
	}
	ret = cp_init(&c, proc, p);
	if (!ret)
		for (uint32_t i = 0; i < proc->ninsns; i++)
			candidates(&c, i, &cand[i], culprit, &unknown, &callee_cyc);
	cp_exit(&c);
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Bounds and the split. */

/* Samples of event ev over instructions lo .. hi (indexes, inclusive, same block). */
static uint64_t ev_sum(const struct an_cp_proc *pr, unsigned int ev, uint32_t lo, uint32_t hi)
{
	uint64_t s = 0;

	for (uint32_t k = lo; k <= hi; k++)
		s += pr->insns[k].ev[ev];
	return s;
}

/* The bound (in CYCLES samples) cause `cause` gets from event `ev` over lo .. hi; INFINITY when
 * the event was not sampled. */
static double bound(const struct cp *c, unsigned int cause, unsigned int ev, uint32_t lo,
		    uint32_t hi)
{
	const struct an_cp_proc *pr = c->pr;

	if (pr->period[ev] <= 0 || pr->period[AN_EV_CYCLES] <= 0)
		return INFINITY;
	return (double)ev_sum(pr, ev, lo, hi) * pr->period[ev] * c->p->cost[cause] /
	       pr->period[AN_EV_CYCLES];
}

static void explain_one(struct cp *c, uint32_t i, struct an_cp_result *r)
{
	const struct an_cp_proc *pr = c->pr;
	const struct an_cp_insn *in = &pr->insns[i];
	const struct an_cp_block *bl = &pr->blocks[in->block];
	uint32_t last = bl->first + bl->n - 1, next = i < last ? i + 1 : i, k;
	double s = (double)in->ev[AN_EV_CYCLES], sum_hi = 0, explained, rest, room = 0;
	double bnd[AN_CAUSE_NR];
	uint32_t callee_cyc;
	bool unknown_pred;

	memset(r, 0, sizeof(*r));
	r->f = bl->f > 0 ? bl->f : 0;
	r->cpi = r->f > 0 ? s / r->f : 0;
	r->dyn = s - r->f * in->m;
	if (r->dyn < 0)
		r->dyn = 0;
	candidates(c, i, &r->cand, r->culprit, &unknown_pred, &callee_cyc);
	if (r->dyn <= 0)
		return;

	for (k = 0; k < AN_CAUSE_NR; k++)
		bnd[k] = INFINITY;
	bnd[AN_CAUSE_ICACHE] = bound(c, AN_CAUSE_ICACHE, AN_EV_IMISS, i, next);
	bnd[AN_CAUSE_ITB] = bound(c, AN_CAUSE_ITB, AN_EV_ITBMISS, i, next);
	bnd[AN_CAUSE_DTB] = bound(c, AN_CAUSE_DTB, AN_EV_DTBMISS, i, next);
	{
		uint32_t ld = r->culprit[AN_CAUSE_DCACHE], from = ld;
		double b;

		if (from == AN_NONE || pr->insns[from].block != in->block || from > i)
			from = bl->first;
		b = bound(c, AN_CAUSE_DCACHE, AN_EV_DMISS, from, i);
		/* The load's own count when it lies outside that stretch (another block). */
		if (isfinite(b) && ld != AN_NONE && (ld < from || ld > i))
			b += bound(c, AN_CAUSE_DCACHE, AN_EV_DMISS, ld, ld);
		bnd[AN_CAUSE_DCACHE] = b;
	}
	{
		double b = bound(c, AN_CAUSE_BRANCH, AN_EV_BRANCHMP, i, next);
		uint32_t br = r->culprit[AN_CAUSE_BRANCH];

		if (isfinite(b) && br != AN_NONE)
			b += bound(c, AN_CAUSE_BRANCH, AN_EV_BRANCHMP, br, br);
		/* The mispredicted transfer may be outside the procedure (a call, a return): its
		 * events are not here, so they cannot bound the stall. */
		if (unknown_pred)
			b = INFINITY;
		bnd[AN_CAUSE_BRANCH] = b;
	}
	/* Cycles per execution times the executions (F is per CYCLES period: samples). */
	bnd[AN_CAUSE_CALLEE] = r->f * callee_cyc;
	bnd[AN_CAUSE_REPLAY] = r->f * c->p->cost[AN_CAUSE_REPLAY];

	for (k = 0; k < AN_CAUSE_NR; k++) {
		if (!(r->cand & (1u << k)))
			continue;
		r->hi[k] = bnd[k] < r->dyn ? bnd[k] : r->dyn;
		sum_hi += r->hi[k];
	}
	for (k = 0; k < AN_CAUSE_NR; k++) {
		if (!(r->cand & (1u << k)))
			continue;
		r->lo[k] = r->dyn - (sum_hi - r->hi[k]);
		if (r->lo[k] > r->hi[k])
			r->lo[k] = r->hi[k];
		if (r->lo[k] < 0)
			r->lo[k] = 0;
	}
	r->unexplained = r->dyn - sum_hi;
	if (r->unexplained < 0)
		r->unexplained = 0;
	explained = r->dyn - r->unexplained;
	rest = explained;
	for (k = 0; k < AN_CAUSE_NR; k++) {
		r->share[k] = r->lo[k];
		rest -= r->lo[k];
		room += r->hi[k] - r->lo[k];
	}
	if (rest > 0 && room > 0)
		for (k = 0; k < AN_CAUSE_NR; k++)
			r->share[k] += rest * (r->hi[k] - r->lo[k]) / room;
}

int an_culprit_explain(const struct an_cp_proc *proc, const struct an_cp_params *p,
		       struct an_cp_result *res)
{
	struct an_cp_params defp;
	struct cp c;
	uint32_t i;
	int ret;

	ret = check_proc(proc);
	if (ret)
		return ret;
	if (!p) {
		an_cp_params_default(&defp);
		p = &defp;
	}
	ret = cp_init(&c, proc, p);
	if (!ret)
		for (i = 0; i < proc->ninsns; i++)
			explain_one(&c, i, &res[i]);
	cp_exit(&c);
	return ret;
}
