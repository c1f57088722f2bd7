/* analysis/an_sched.c - static EV5 (21164) schedule of basic blocks: issue cycles, Mi, culprits. */
#include <errno.h>
#include <stdlib.h>

#include "an_sched.h"
#include "isa_ev5.h"

const char *const an_stall_name[AN_STALL_NR] = {
	[AN_STALL_NONE] = "none", [AN_STALL_DEP] = "dep",   [AN_STALL_SLOT] = "slot",
	[AN_STALL_LDST] = "ldst", [AN_STALL_UNIT] = "unit", [AN_STALL_BARRIER] = "barrier",
};

struct an_sched_model {
	struct isa_ev5_op ops[AXP_OP_NR]; /* the EV5 facts, as the machine's model has them */
};

int an_sched_model_new(struct an_sched_model **out)
{
	struct an_sched_model *m;

	*out = NULL;
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (unsigned int op = 0; op < AXP_OP_NR; op++)
		isa_ev5_op(op, ISA_EV5_DCACHE_LAT, &m->ops[op]);
	*out = m;
	return 0;
}

void an_sched_model_free(struct an_sched_model *m)
{
	free(m);
}

const char *an_sched_pipe_name(unsigned int pipe)
{
	return isa_ev5_pipe_name(pipe);
}

/*
 * Issue resources of one cycle (machine/EV5-MODEL.md, "per cycle": E0, E1, FA, FM take one
 * instruction each, an E0/E1 or FA/FM instruction takes whichever pipe the others leave, and a
 * store does not issue with a load). Counting per class is the same as assigning pipes with the
 * slotter's look-ahead. In the cycle a multiply reserves E0 (two cycles before it completes),
 * E0 is not available.
 */
struct cyc {
	uint8_t e0, e1, i01, fa, fm, f01, loads, stores;
	uint64_t h_e0, h_e1, h_int, h_fa, h_fm, h_fp,
		h_mem; /* pc of the instruction holding each */
};

#define NOPC UINT64_MAX /* no instruction */
#define VIA_SWEEPS 3 /* [U] passes over a cycle of chosen predecessors (an_sched_cfg_via) */
#define FITS (UINT64_MAX - 1) /* conflict(): the op fits */
#define MULRES (UINT64_MAX - 2) /* conflict(): E0 is reserved by a finishing multiply */

/*
 * The holder of the resource an op of `o` lacks in cycle c (its pc), MULRES, or FITS. In the
 * cycle a multiply reserves E0 the cycle has one integer pipe, E1.
 */
static uint64_t conflict(const struct cyc *c, const struct isa_ev5_op *o, bool e0_reserved)
{
	unsigned int ints = c->e0 + c->e1 + c->i01, fps = c->fa + c->fm + c->f01;
	unsigned int int_lim = e0_reserved ? 1 : 2;
	uint64_t over_int = (e0_reserved && ints < 2) ? MULRES : c->h_int;

	switch (o->pipe) {
	case ISA_EV5_P_E0:
		if (e0_reserved)
			return MULRES;
		if (c->e0)
			return c->h_e0;
		if (ints >= int_lim)
			return over_int;
		break;
	case ISA_EV5_P_E1:
		if (c->e1)
			return c->h_e1;
		if (ints >= int_lim)
			return over_int;
		break;
	case ISA_EV5_P_E01:
		if (ints >= int_lim)
			return over_int;
		break;
	case ISA_EV5_P_FA:
		if (c->fa)
			return c->h_fa;
		if (fps >= 2)
			return c->h_fp;
		break;
	case ISA_EV5_P_FM:
		if (c->fm)
			return c->h_fm;
		if (fps >= 2)
			return c->h_fp;
		break;
	case ISA_EV5_P_FAM:
		if (fps >= 2)
			return c->h_fp;
		break;
	default:
		break;
	}
	if ((o->kind & ISA_EV5_K_LOAD) && c->stores)
		return c->h_mem;
	if ((o->kind & ISA_EV5_K_STORE) && (c->loads || c->stores))
		return c->h_mem;
	return FITS;
}

static void take(struct cyc *c, const struct isa_ev5_op *o, uint64_t i)
{
	switch (o->pipe) {
	case ISA_EV5_P_E0:
		c->e0++;
		c->h_e0 = c->h_int = i;
		break;
	case ISA_EV5_P_E1:
		c->e1++;
		c->h_e1 = c->h_int = i;
		break;
	case ISA_EV5_P_E01:
		c->i01++;
		c->h_int = i;
		break;
	case ISA_EV5_P_FA:
		c->fa++;
		c->h_fa = c->h_fp = i;
		break;
	case ISA_EV5_P_FM:
		c->fm++;
		c->h_fm = c->h_fp = i;
		break;
	case ISA_EV5_P_FAM:
		c->f01++;
		c->h_fp = i;
		break;
	default:
		break;
	}
	if (o->kind & ISA_EV5_K_LOAD) {
		c->loads++;
		c->h_mem = i;
	}
	if (o->kind & ISA_EV5_K_STORE) {
		c->stores++;
		c->h_mem = i;
	}
}

/* Static register state: 0-31 integer, 32-63 FP, 65 the sink (R31/F31, no destination). */
#define NREG 66
#define SINK 65

struct sreg {
	uint32_t st; /* cycle the value can be used */
	uint32_t b0; /* for a same-cycle IBR/CMOV test operand (ICMP/ILOG bypass) */
	uint32_t pcyc; /* cycle its producer issued */
	uint64_t prod; /* pc of the producer, NOPC: ready since before the schedule started */
};

static unsigned int dest_reg(const struct isa_ev5_op *o, const struct axp_insn *d)
{
	unsigned int r;

	if (o->da)
		r = d->ra + o->da - 1u;
	else if (o->dc)
		r = d->rc + o->dc - 1u;
	else
		return SINK;
	return (r & 31) == 31 ? SINK : r;
}

/*
 * The issue state after an instruction: what a following instruction, in this block or in a
 * block that only this one leads to, has to respect. Cycles count from the start of a schedule.
 */
struct st {
	struct sreg reg[NREG];
	uint64_t pc; /* last instruction scheduled, NOPC before the first */
	uint32_t cur; /* its issue cycle */
	struct cyc use; /* resources used in `cur` */
	uint32_t max_rdy; /* latest result of any earlier instruction... */
	uint32_t max_cyc; /* ...the cycle its producer issued... */
	uint64_t max_prod; /* ...and the producer */
	uint32_t last_store_t;
	uint64_t last_store;
	uint32_t mul_free, fdiv_free, e0_block; /* e0_block UINT32_MAX: none */
	uint64_t last_mul, last_fdiv;
};

static void cyc_reset(struct cyc *c)
{
	memset(c, 0, sizeof(*c));
	c->h_e0 = c->h_e1 = c->h_int = c->h_fa = c->h_fm = c->h_fp = c->h_mem = NOPC;
}

static void st_init(struct st *x)
{
	memset(x, 0, sizeof(*x));
	for (unsigned int r = 0; r < NREG; r++)
		x->reg[r].prod = NOPC;
	cyc_reset(&x->use);
	x->pc = x->max_prod = x->last_store = x->last_mul = x->last_fdiv = NOPC;
	x->last_store_t = UINT32_MAX - 8;
	x->e0_block = UINT32_MAX;
}

/* How a block's schedule begins. */
enum start {
	START_FRESH, /* nothing known before it: cycle 0, M = 1 */
	START_FALL, /* after its only predecessor, falling through (same fetch block: same cycle) */
	START_REDIRECT, /* after its only predecessor's taken branch or jump: the next cycle */
};

/* Raise *t to `at` with a reason. */
static inline void need(uint32_t *t, uint32_t at, struct an_sched_insn *s, unsigned int reason,
			uint64_t culprit, uint32_t lat)
{
	if (at > *t) {
		*t = at;
		s->reason = (uint8_t)reason;
		s->culprit_pc = culprit;
		s->lat = (uint16_t)(lat > UINT16_MAX ? UINT16_MAX : lat);
	}
}

static void source(const struct st *x, unsigned int r, bool b0, uint32_t *t,
		   struct an_sched_insn *s)
{
	const struct sreg *g = &x->reg[r];
	uint32_t at = b0 ? g->b0 : g->st;

	if (g->prod != NOPC && at > *t)
		need(t, at, s, AN_STALL_DEP, g->prod, at - g->pcyc);
}

/* Schedule n instructions from addr on, continuing from state x. */
static void run(const struct an_sched_model *m, struct st *x, const struct axp_insn *insn,
		uint64_t addr, uint32_t n, struct an_sched_insn *out, enum start how)
{
	uint32_t first = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct axp_insn *d = &insn[i];
		const struct isa_ev5_op *o = &m->ops[d->op < AXP_OP_NR ? d->op : AXP_OP_INVALID];
		struct an_sched_insn *s = &out[i];
		uint64_t pc = addr + 4 * (uint64_t)i;
		const bool have_prev = x->pc != NOPC;
		const uint32_t prev = x->cur;
		uint32_t base, t, rst;
		unsigned int dst;

		memset(s, 0, sizeof(*s));
		s->culprit_pc = NOPC;
		s->pipe = o->pipe;
		/* in order; a new INT16 fetch block or a redirected fetch starts a new cycle [HRM] */
		if (!have_prev)
			base = 0;
		else if (i == 0 && how == START_REDIRECT)
			base = prev + 1;
		else
			base = ((pc >> 4) != (x->pc >> 4)) ? prev + 1 : prev;
		t = base;

		/* operands */
		if (o->sa) {
			unsigned int r = d->ra + o->sa - 1u;
			bool byp = (o->kind & ISA_EV5_K_BYPC) && x->reg[r].b0 < x->reg[r].st;

			source(x, r, byp, &t, s);
		}
		if (o->sb && !d->islit)
			source(x, d->rb + o->sb - 1u, false, &t, s);
		if (o->sc)
			source(x, d->rc + o->sc - 1u, false, &t, s);
		if ((o->kind & ISA_EV5_K_BARRIER) && x->max_prod != NOPC)
			need(&t, x->max_rdy, s, AN_STALL_BARRIER, x->max_prod,
			     x->max_rdy - x->max_cyc);
		if ((o->kind & ISA_EV5_K_IMUL) && x->last_mul != NOPC)
			need(&t, x->mul_free, s, AN_STALL_UNIT, x->last_mul, 0);
		if ((o->kind & ISA_EV5_K_FDIV) && x->last_fdiv != NOPC)
			need(&t, x->fdiv_free, s, AN_STALL_UNIT, x->last_fdiv, 0);

		/* slotting: the cycle's pipes, E0 reserved by a multiply, no load 2 after a store */
		for (;;) {
			struct cyc empty;
			uint64_t h;

			cyc_reset(&empty);
			h = conflict(have_prev && t == prev ? &x->use : &empty, o,
				     t == x->e0_block);
			if (h == MULRES) {
				s->reason = AN_STALL_UNIT;
				s->culprit_pc = x->last_mul;
			} else if (h != FITS) {
				s->reason = AN_STALL_SLOT;
				s->culprit_pc = h;
			} else if ((o->kind & ISA_EV5_K_LOAD) && x->last_store != NOPC &&
				   t == x->last_store_t + 2) {
				s->reason = AN_STALL_LDST;
				s->culprit_pc = x->last_store;
			} else {
				break;
			}
			s->lat = 0;
			t++;
		}

		/* issue at t */
		if (!have_prev || t != prev) {
			x->cur = t;
			cyc_reset(&x->use);
		}
		take(&x->use, o, pc);
		if (i == 0)
			first = t;
		s->cycle = t - first;
		s->m = (uint16_t)(have_prev ? t - prev : t + 1);
		s->stall = (uint16_t)(t - base);
		if (!s->stall) {
			s->reason = AN_STALL_NONE;
			s->culprit_pc = NOPC;
			s->lat = 0;
		}
		s->culprit = (s->culprit_pc != NOPC && s->culprit_pc >= addr &&
			      s->culprit_pc < addr + 4 * (uint64_t)n) ?
				     (int32_t)((s->culprit_pc - addr) / 4) :
				     -1;

		/* results */
		rst = t + o->lat;
		if (o->kind & ISA_EV5_K_IMUL) {
			uint32_t add = 0;

			/* a source produced just before a multiply delays its result [ev5.md] */
			if (o->sa && x->reg[d->ra].prod != NOPC &&
			    x->reg[d->ra].st + AN_SCHED_MUL_INPUT_DELAY > t)
				add = x->reg[d->ra].st + AN_SCHED_MUL_INPUT_DELAY - t;
			if (o->sb && !d->islit && x->reg[d->rb].prod != NOPC &&
			    x->reg[d->rb].st + AN_SCHED_MUL_INPUT_DELAY > t &&
			    x->reg[d->rb].st + AN_SCHED_MUL_INPUT_DELAY - t > add)
				add = x->reg[d->rb].st + AN_SCHED_MUL_INPUT_DELAY - t;
			rst += add;
			x->mul_free = t + o->repeat + add;
			x->e0_block = rst - 2;
			x->last_mul = pc;
		} else if (o->kind & ISA_EV5_K_FDIV) {
			x->fdiv_free = t + o->repeat;
			x->last_fdiv = pc;
		} else if (o->kind & ISA_EV5_K_STORE) {
			x->last_store_t = t;
			x->last_store = pc;
		}
		dst = dest_reg(o, d);
		s->ready = dst != SINK ? rst : t;
		if (dst != SINK) {
			x->reg[dst].st = rst;
			x->reg[dst].b0 = (o->kind & ISA_EV5_K_BYPP) ? t : rst;
			x->reg[dst].prod = pc;
			x->reg[dst].pcyc = t;
		}
		if (rst > x->max_rdy || x->max_prod == NOPC) {
			x->max_rdy = rst;
			x->max_cyc = t;
			x->max_prod = pc;
		}
		x->pc = pc;
	}
}

int an_sched_block(const struct an_sched_model *m, const struct axp_insn *insn, uint64_t addr,
		   uint32_t n, struct an_sched_insn *out)
{
	struct st x;

	if (!n || (addr & 3))
		return -EINVAL;
	st_init(&x);
	run(m, &x, insn, addr, n, out, START_FRESH);
	return 0;
}

/*
 * The only predecessor block of b that can run before it, and how control comes from it, or
 * UINT32_MAX. Calls and CALL_PAL run other code in between, so they do not count; neither do
 * unreachable blocks (padding falling into b).
 */
static uint32_t only_pred(const struct an_cfg *cfg, uint32_t b, enum start *how)
{
	const struct an_block *bl = &cfg->block[b];
	uint32_t found = UINT32_MAX;

	for (uint32_t k = bl->pred; k < bl->pred + bl->npred; k++) {
		const struct an_edge *e = &cfg->edge[cfg->pred[k]];

		if (e->from == AN_NODE_ENTRY)
			return UINT32_MAX;
		if (cfg->block[e->from].flags & AN_BLK_UNREACHABLE)
			continue;
		if (found != UINT32_MAX || e->from == b || e->kind == AN_EDGE_CALLRET)
			return UINT32_MAX;
		found = e->from;
		*how = e->kind == AN_EDGE_FALL ? START_FALL : START_REDIRECT;
	}
	return found;
}

bool an_sched_continues(const struct an_cfg *cfg, uint32_t b, uint32_t *pred)
{
	enum start how;

	if (b >= cfg->nblocks)
		return false;
	*pred = only_pred(cfg, b, &how);
	return *pred != UINT32_MAX;
}

/* How control comes to block b along edge e (FRESH when b cannot continue from e's source). */
static uint32_t via_pred(const struct an_cfg *cfg, uint32_t b, uint32_t e, enum start *how)
{
	const struct an_edge *ed;

	if (e >= cfg->nedges)
		return UINT32_MAX;
	ed = &cfg->edge[e];
	if (ed->to != b || ed->from >= cfg->nblocks ||
	    (ed->kind != AN_EDGE_FALL && ed->kind != AN_EDGE_TAKEN && ed->kind != AN_EDGE_JTAB))
		return UINT32_MAX;
	*how = ed->kind == AN_EDGE_FALL ? START_FALL : START_REDIRECT;
	return ed->from;
}

int an_sched_cfg(const struct an_sched_model *m, const struct an_cfg *cfg,
		 struct an_sched_insn *out)
{
	return an_sched_cfg_via(m, cfg, NULL, out);
}

int an_sched_cfg_via(const struct an_sched_model *m, const struct an_cfg *cfg, const uint32_t *via,
		     struct an_sched_insn *out)
{
	uint32_t nb = cfg->nblocks, *parent, *stack, *slot, nslots = 0;
	uint8_t *how, *done;
	struct st *states = NULL, x;
	bool cyclic = false;
	int err = -ENOMEM;

	parent = malloc((size_t)nb * sizeof(*parent));
	slot = malloc((size_t)nb * sizeof(*slot));
	stack = malloc((size_t)nb * sizeof(*stack));
	how = malloc(nb ? nb : 1);
	done = calloc(nb ? nb : 1, 1);
	if (!parent || !slot || !stack || !how || !done)
		goto out;
	/*
	 * DCPI SOSP'97 §6.1: "When a block has multiple predecessors, there is no one static code
	 * schedule for computing Mi. In this case, we currently ignore all preceding blocks." A
	 * block with one predecessor continues that block's schedule; its end state is kept for it.
	 */
	for (uint32_t b = 0; b < nb; b++) {
		enum start h = START_FRESH;

		parent[b] = UINT32_MAX;
		if (via && via[b] != UINT32_MAX)
			parent[b] = via_pred(cfg, b, via[b], &h);
		if (parent[b] == UINT32_MAX) {
			h = START_FRESH;
			parent[b] = only_pred(cfg, b, &h);
		}
		how[b] = (uint8_t)h;
		slot[b] = UINT32_MAX;
	}
	for (uint32_t b = 0; b < nb; b++)
		if (parent[b] != UINT32_MAX && slot[parent[b]] == UINT32_MAX)
			slot[parent[b]] = nslots++;
	if (nslots) {
		states = malloc((size_t)nslots * sizeof(*states));
		if (!states)
			goto out;
	}
	for (uint32_t b0 = 0; b0 < nb; b0++) {
		uint32_t sp = 0, b = b0;

		/* walk up to a scheduled block or a root (a cycle of single predecessors ends too) */
		while (!done[b]) {
			done[b] = 2;
			stack[sp++] = b;
			if (parent[b] != UINT32_MAX && done[parent[b]] == 2)
				cyclic = true;
			if (parent[b] == UINT32_MAX || done[parent[b]] == 2)
				break;
			b = parent[b];
		}
		while (sp) {
			const struct an_block *bl;
			uint32_t p;

			b = stack[--sp];
			bl = &cfg->block[b];
			p = parent[b];
			if (p != UINT32_MAX && done[p] == 1) {
				x = states[slot[p]];
				run(m, &x, cfg->insn + bl->first, bl->addr, bl->n, out + bl->first,
				    (enum start)how[b]);
			} else {
				st_init(&x);
				run(m, &x, cfg->insn + bl->first, bl->addr, bl->n, out + bl->first,
				    START_FRESH);
			}
			if (slot[b] != UINT32_MAX)
				states[slot[b]] = x;
			done[b] = 1;
		}
	}
	/*
	 * A cycle of chosen predecessors (a loop whose head continues from its back edge, see
	 * an_sched_cfg_via) was scheduled from a fresh state at one of its blocks: schedule it
	 * again from the state its last block leaves, until it is the steady state of the loop
	 * (VIA_SWEEPS passes settle the carried latencies of our loops; each pass is cheap).
	 */
	for (int sweep = 0; via && cyclic && sweep < VIA_SWEEPS; sweep++)
		for (uint32_t b = 0; b < nb; b++) {
			const struct an_block *bl = &cfg->block[b];

			if (parent[b] == UINT32_MAX)
				continue;
			x = states[slot[parent[b]]];
			run(m, &x, cfg->insn + bl->first, bl->addr, bl->n, out + bl->first,
			    (enum start)how[b]);
			if (slot[b] != UINT32_MAX)
				states[slot[b]] = x;
		}
	err = 0;
out:
	free(parent);
	free(slot);
	free(stack);
	free(how);
	free(done);
	free(states);
	return err;
}
