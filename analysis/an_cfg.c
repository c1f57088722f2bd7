/* analysis/an_cfg.c - control flow graph of one procedure: blocks, edges, jump tables, classes. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_callee.h"
#include "an_cfg.h"
#include "an_cyceq.h"

const char *const an_edge_kind_name[AN_EDGE_KIND_NR] = {
	[AN_EDGE_FALL] = "fall",	 [AN_EDGE_TAKEN] = "taken",
	[AN_EDGE_CALLRET] = "callret",	 [AN_EDGE_JTAB] = "jtab",
	[AN_EDGE_ENTRY] = "entry",	 [AN_EDGE_EXIT] = "exit",
	[AN_EDGE_NORETURN] = "noreturn", [AN_EDGE_LONGJMP] = "longjmp",
};

const char *const an_exit_why_name[AN_EXIT_NR] = {
	[AN_EXIT_NONE] = "",
	[AN_EXIT_RETURN] = "return",
	[AN_EXIT_TAILCALL] = "tailcall",
	[AN_EXIT_TRAP] = "trap",
	[AN_EXIT_FALLOUT] = "fallout",
	[AN_EXIT_UNKNOWN] = "unknown",
	[AN_EXIT_NORETCALL] = "noreturn-call",
};

#define R_RA 26u
#define R_PV 27u
#define R_GP 29u
#define R_SP 30u
#define NODEF (-1) /* no definition in the window */
/* find_def() returns -2 - j when the call at instruction j may have changed the register */
#define CLOBBER(j) (-2 - (int64_t)(j))
#define WINDOW 64 /* instructions searched back from a JMP */
#define JT_MAX 8192 /* entries we accept in one jump table */
#define VALS_MAX 64 /* constants one register may hold at a JMP (data flow) */
#define STEPS_MAX 4096 /* straight-line runs one JMP's data flow may visit */
#define JT_ROUNDS 4 /* rounds of jump-table resolution (the edges of one feed the next) */

/* How an instruction changes control flow. */
enum ctl {
	CTL_NONE,
	CTL_COND, /* conditional branch */
	CTL_BR, /* BR, BSR zero: unconditional direct branch */
	CTL_CALL, /* BSR, JSR, JSR_COROUTINE: returns to the next instruction */
	CTL_JMP,
	CTL_RET,
	CTL_PAL, /* CALL_PAL that returns */
	CTL_TRAP, /* never falls through: trapping CALL_PAL, not an instruction */
};

/* Linux/Alpha PALcode functions (asm/pal.h) that do not come back in user mode. */
#define PAL_BPT 0x80u
#define PAL_BUGCHK 0x81u
#define PAL_GENTRAP 0xaau

/* bpt, bugchk, gentrap: signals whose handler may or may not return */
static bool pal_may_trap(const struct axp_insn *d)
{
	uint32_t fn = (uint32_t)d->disp;

	return d->op == AXP_OP_CALL_PAL && (fn == PAL_BPT || fn == PAL_BUGCHK || fn == PAL_GENTRAP);
}

static enum ctl classify(const struct axp_insn *d)
{
	const struct axp_op_info *in = &axp_op_info[d->op];

	if (d->op == AXP_OP_INVALID || in->fmt == AXP_FMT_PCD)
		return CTL_TRAP;
	switch (in->fmt) {
	case AXP_FMT_BRA:
		if (d->op == AXP_OP_BR)
			return CTL_BR;
		if (d->op == AXP_OP_BSR)
			return d->ra == 31 ? CTL_BR : CTL_CALL;
		return CTL_COND;
	case AXP_FMT_JMP:
		if (d->op == AXP_OP_JMP)
			return CTL_JMP;
		if (d->op == AXP_OP_RET)
			return CTL_RET;
		return CTL_CALL;
	case AXP_FMT_PAL: {
		uint32_t fn = (uint32_t)d->disp;

		/* privileged functions (< 0x80) raise OPCDEC in user mode */
		return fn < 0x80 ? CTL_TRAP : CTL_PAL;
	}
	default:
		return CTL_NONE;
	}
}

static bool ends_flow(enum ctl c)
{
	return c == CTL_BR || c == CTL_JMP || c == CTL_RET || c == CTL_TRAP;
}

/* ------------------------------------------------------------------------------------------ */
/* The builder. */

struct tedge {
	uint32_t from, to;
	uint8_t kind, why;
};

struct builder {
	const struct an_procs *ps;
	const struct an_proc *p;
	struct an_cfg *cfg;
	uint8_t *ctl; /* enum ctl per instruction */
	uint8_t *lead; /* block leaders, ninsns + 1 */
	struct tedge *te;
	uint32_t nte, cap;
	/* per JMP: resolved targets (instruction indices) into one pool */
	uint32_t *tpool;
	uint32_t ntpool, tcap;
	uint32_t *jt_first, *jt_n; /* per jtab */
	uint8_t *jt_why; /* per jtab: AN_EXIT_* when it is an exit, else NONE */
	/* data flow (values_before): edges into each instruction, by target, CSR */
	uint32_t *bsrc_off, *bsrc; /* direct branches */
	uint32_t *jsrc_off, *jsrc; /* JMPs resolved in the previous round */
	uint8_t *entry; /* procedure entries (start, extra entries): values unknown */
	uint8_t *callk; /* per block: enum an_callee_kind of the call ending it */
	bool setjmp; /* a block ends with a call that returns twice */
	struct mark {
		uint32_t gen, hi; /* run [lo, hi] visited by query gen */
	} * mark;
	uint32_t gen, steps;
	bool used_flow; /* a query went through an entry of a run (the rounds matter) */
	bool no_flow; /* eval_const stays in the run (address-taken literals) */
};

/* Constants a register may hold, collected by one query (gen). */
struct vals {
	uint64_t v[VALS_MAX];
	uint32_t n, gen;
};

static bool vals_add(struct vals *vs, uint64_t x)
{
	for (uint32_t k = 0; k < vs->n; k++)
		if (vs->v[k] == x)
			return true;
	if (vs->n == VALS_MAX)
		return false;
	vs->v[vs->n++] = x;
	return true;
}

static int tedge_add(struct builder *b, uint32_t from, uint32_t to, unsigned int kind,
		     unsigned int why)
{
	if (b->nte == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 64;
		struct tedge *v = realloc(b->te, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->te = v;
		b->cap = cap;
	}
	b->te[b->nte++] = (struct tedge){ from, to, (uint8_t)kind, (uint8_t)why };
	return 0;
}

static bool writes_int(const struct axp_insn *d, unsigned int r)
{
	uint32_t f = axp_op_info[d->op].flags;

	if (r == 31)
		return false;
	if ((f & AXP_F_DA) && !(f & AXP_F_FA) && d->ra == r)
		return true;
	return (f & AXP_F_DC) && !(f & AXP_F_FC) && d->rc == r;
}

/*
 * Integer registers a called procedure may change (Alpha calling standard): all but s0-s6, fp,
 * sp, and gp: code reloads gp after a call that may change it (`ldah gp,..(ra)`), and keeps it
 * across local BSR calls, which share the caller's GP.
 */
static bool caller_saved(unsigned int r)
{
	return r <= 8 || (r >= 16 && r <= 28);
}

/*
 * Does the call d change r? The integer divide routines (__divq, __remqu... : Alpha has no
 * divide instruction) are called as `jsr t9,(t12)` with operands in t10/t11 and the result
 * in t12, and change only t9-t11, t12 and at (GCC's alpha.md divmod patterns clobber exactly
 * those): a jump-table pointer in t0-t8 lives across them.
 */
static bool call_clobbers(const struct axp_insn *d, unsigned int r)
{
	if (d->op == AXP_OP_JSR && d->ra == 23 && d->rb == R_PV)
		return (r >= 23 && r <= 25) || r == 27 || r == 28;
	return caller_saved(r);
}

/* The last definition of r in [lo, before), NODEF, or CLOBBER(j) (the call at j changed it). */
static int64_t find_def(const struct builder *b, uint32_t before, uint32_t lo, unsigned int r)
{
	for (uint32_t j = before; j-- > lo;) {
		const struct axp_insn *d = &b->cfg->insn[j];

		if (writes_int(d, r))
			return j;
		if (b->ctl[j] == CTL_CALL && call_clobbers(d, r))
			return CLOBBER(j);
	}
	return NODEF;
}

static bool eval_const(struct builder *b, unsigned int r, uint32_t before, uint32_t lo, int depth,
		       uint64_t *val);

/* Start of the straight-line code ending at instruction i (at most WINDOW instructions). */
static uint32_t window_start(const struct builder *b, uint32_t i)
{
	uint32_t lo = i;

	while (lo > 0 && i - lo < WINDOW && !ends_flow((enum ctl)b->ctl[lo - 1]))
		lo--;
	return lo;
}

static bool one_value(struct builder *b, unsigned int r, uint32_t lo, uint32_t before, int depth,
		      uint64_t *val);

/*
 * A reload `ldq r,d(sp)` at j of a constant spilled in the same run: the last `stq x,d(sp)`
 * before it, with sp unchanged in between, stored x's value.
 */
static bool spilled(struct builder *b, const struct axp_insn *ld, uint32_t j, uint32_t lo,
		    int depth, uint64_t *val)
{
	for (uint32_t k = j; k-- > lo;) {
		const struct axp_insn *d = &b->cfg->insn[k];

		if (writes_int(d, R_SP) || (b->ctl[k] != CTL_NONE && b->ctl[k] != CTL_COND))
			return false;
		if (d->op == AXP_OP_STQ && d->rb == R_SP && d->disp == ld->disp)
			return eval_const(b, d->ra, k, lo, depth + 1, val);
	}
	return false;
}

/*
 * Is instruction i an epilogue's `ldq r,d(sp)` restoring a callee-saved register for the
 * caller (the straight-line code after it ends in a RET)? Its value is dead in the procedure.
 */
static bool epilogue_restore(const struct builder *b, uint32_t i)
{
	const struct axp_insn *d = &b->cfg->insn[i];

	if (d->op != AXP_OP_LDQ || d->rb != R_SP)
		return false;
	for (uint32_t k = i + 1; k < b->cfg->ninsns; k++)
		if (b->ctl[k] != CTL_NONE)
			return b->ctl[k] == CTL_RET;
	return false;
}

/*
 * A callee-saved register (s0-s5, fp) written only within one straight-line run of the
 * procedure (once, or by a chain such as `ldah s1,hi(gp); lda s1,lo(s1)`) holds the value it
 * has at the end of that run wherever it is read after it: GCC keeps jump-table bases there
 * across calls (Lua's luaV_execute keeps its computed-goto table in s1).
 */
static bool only_def(struct builder *b, unsigned int r, int depth, uint64_t *val)
{
	uint32_t j = UINT32_MAX, lo = 0;

	if (r < 9 || r > 15)
		return false;
	for (uint32_t i = 0; i < b->cfg->ninsns; i++) {
		if (!writes_int(&b->cfg->insn[i], r) || epilogue_restore(b, i))
			continue;
		if (j == UINT32_MAX)
			lo = window_start(b, i);
		else if (window_start(b, i) != lo || i - j > WINDOW)
			return false; /* a second definition in other code */
		else
			for (uint32_t k = j; k < i; k++)
				if (b->ctl[k] != CTL_NONE)
					return false; /* a branch between them: both may not run */
		j = i;
	}
	if (j == UINT32_MAX)
		return false;
	return eval_const(b, r, j + 1, lo, depth + 1, val);
}

/* The value of integer register r just before instruction `before`, if it is a constant. */
static bool eval_const(struct builder *b, unsigned int r, uint32_t before, uint32_t lo, int depth,
		       uint64_t *val)
{
	const struct an_proc *p = b->p;
	const struct axp_insn *d;
	uint64_t x, y;
	int64_t j;

	if (r == 31) {
		*val = 0;
		return true;
	}
	if (depth > 24)
		return false;
	j = find_def(b, before, lo, r);
	if (j < NODEF)
		return false;
	if (j == NODEF) {
		if (r == R_GP && (p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED))) {
			*val = p->gp; /* GP is the same everywhere in a procedure */
			return true;
		}
		if (r == R_PV && lo == 0) {
			*val = p->start; /* the calling standard: PV holds the entry address */
			return true;
		}
		if (lo > 0 && only_def(b, r, depth, val))
			return true;
		return one_value(b, r, lo, before, depth, val);
	}
	d = &b->cfg->insn[j];
	switch (d->op) {
	case AXP_OP_LDA:
		if (!eval_const(b, d->rb, (uint32_t)j, lo, depth + 1, &x))
			return false;
		*val = x + (uint64_t)(int64_t)d->disp;
		return true;
	case AXP_OP_LDAH:
		if (!eval_const(b, d->rb, (uint32_t)j, lo, depth + 1, &x))
			return false;
		*val = x + (uint64_t)((int64_t)d->disp * 65536);
		return true;
	case AXP_OP_BR:
	case AXP_OP_BSR:
	case AXP_OP_JSR:
	case AXP_OP_JSR_CO:
		*val = an_cfg_addr(b->cfg, (uint32_t)j) + 4;
		return true;
	case AXP_OP_LDQ:
		return d->rb == R_SP && spilled(b, d, (uint32_t)j, lo, depth, val);
	case AXP_OP_BIS:
	case AXP_OP_ADDQ:
		if (!eval_const(b, d->ra, (uint32_t)j, lo, depth + 1, &x))
			return false;
		if (d->islit)
			y = d->lit;
		else if (!eval_const(b, d->rb, (uint32_t)j, lo, depth + 1, &y))
			return false;
		*val = d->op == AXP_OP_BIS ? (x | y) : x + y;
		return true;
	default:
		return false;
	}
}

static bool values_before(struct builder *b, unsigned int r, uint32_t i, int depth,
			  struct vals *vs);

/*
 * The values r brings into the straight-line run [lo, i], which does not define it: along
 * the fall-in at lo and every branch or jump-table edge into [lo, i]. A run already visited
 * by this query (a loop) adds nothing new. False when a path brings an unknown value.
 */
static bool entry_values(struct builder *b, unsigned int r, uint32_t lo, uint32_t i, int depth,
			 struct vals *vs)
{
	const struct an_cfg *cfg = b->cfg;
	struct mark *m = &b->mark[lo];
	bool fresh = m->gen != vs->gen;
	uint32_t from = fresh ? lo : m->hi + 1;

	if (!fresh && i <= m->hi)
		return true;
	if (b->no_flow || depth > 24 || ++b->steps > STEPS_MAX)
		return false;
	m->gen = vs->gen;
	m->hi = i;
	b->used_flow = true;
	if (fresh && lo > 0 && !ends_flow((enum ctl)b->ctl[lo - 1]) &&
	    !values_before(b, r, lo, depth + 1, vs))
		return false; /* the run was cut at WINDOW instructions: the code before it */
	for (uint32_t x = from; x <= i; x++) {
		if (b->entry[x])
			return false;
		for (uint32_t k = b->bsrc_off[x]; k < b->bsrc_off[x + 1]; k++) {
			uint32_t j = b->bsrc[k];

			if (writes_int(&cfg->insn[j], r)) {
				if (!vals_add(vs, an_cfg_addr(cfg, j) + 4))
					return false;
			} else if (!values_before(b, r, j, depth + 1, vs)) {
				return false;
			}
		}
		if (!b->jsrc_off)
			continue;
		for (uint32_t k = b->jsrc_off[x]; k < b->jsrc_off[x + 1]; k++) {
			uint32_t j = b->jsrc[k];

			if (cfg->insn[j].rb == r) {
				if (!vals_add(vs, an_cfg_addr(cfg, x)))
					return false;
			} else if (!values_before(b, r, j, depth + 1, vs)) {
				return false;
			}
		}
	}
	return true;
}

/* Add the values integer register r may hold just before instruction i to vs. */
static bool values_before(struct builder *b, unsigned int r, uint32_t i, int depth, struct vals *vs)
{
	uint32_t lo = window_start(b, i);
	int64_t j = find_def(b, i, lo, r);
	uint64_t v;

	if (j < NODEF)
		return false;
	if (j >= 0 || r == 31 ||
	    (r == R_GP && (b->p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED))) ||
	    (r == R_PV && lo == 0))
		return eval_const(b, r, i, lo, depth + 1, &v) && vals_add(vs, v);
	if (lo > 0 && only_def(b, r, depth, &v))
		return vals_add(vs, v);
	return entry_values(b, r, lo, i, depth, vs);
}

/* The value of r before `before`, undefined in the run from lo: one constant on every path. */
static bool one_value(struct builder *b, unsigned int r, uint32_t lo, uint32_t before, int depth,
		      uint64_t *val)
{
	struct vals vs;

	vs.n = 0;
	vs.gen = ++b->gen;
	if (!entry_values(b, r, lo, before, depth + 1, &vs) || vs.n != 1)
		return false;
	*val = vs.v[0];
	return true;
}

/* Do register r1 before at1 and r2 before at2 hold the same value (or its low 32 bits)? */
static bool same_value(struct builder *b, unsigned int r1, uint32_t at1, unsigned int r2,
		       uint32_t at2, uint32_t lo, int depth)
{
	int64_t j1 = find_def(b, at1, lo, r1), j2 = find_def(b, at2, lo, r2);
	const struct axp_insn *d;

	if (depth > 2)
		return false;
	if (r1 == r2 && j1 == j2) /* one definition, or the same call's result */
		return true;
	if (j1 < 0)
		return false;
	/* the compare may test zapnot(x, lit), and(x, lit) or sextl(x) of the index x */
	d = &b->cfg->insn[j1];
	if (d->op == AXP_OP_ZAPNOT && d->islit && d->lit == 0xf)
		return same_value(b, d->ra, (uint32_t)j1, r2, at2, lo, depth + 1);
	if (d->op == AXP_OP_ADDL && d->ra == 31 && !d->islit)
		return same_value(b, d->rb, (uint32_t)j1, r2, at2, lo, depth + 1);
	if (d->op == AXP_OP_ADDL && d->islit && d->lit == 0)
		return same_value(b, d->ra, (uint32_t)j1, r2, at2, lo, depth + 1);
	if ((d->op == AXP_OP_AND || d->op == AXP_OP_ZAPNOT) && d->islit)
		return same_value(b, d->ra, (uint32_t)j1, r2, at2, lo, depth + 1);
	return false;
}

/* Operand B (register or literal) of an operate instruction as a constant. */
static bool opb_const(struct builder *b, const struct axp_insn *d, uint32_t at, uint32_t lo,
		      uint64_t *val)
{
	if (d->islit) {
		*val = d->lit;
		return true;
	}
	return eval_const(b, d->rb, at, lo, 0, val);
}

/*
 * Number of table entries from a range check of index register `ir` (as seen just before
 * instruction `at`) by a compare and branch between lo and the JMP at `i`: *exact. Without a
 * compare, an upper limit for a scan of the table (a mask of the index, else JT_MAX).
 */
static uint64_t find_bound(struct builder *b, uint32_t i, uint32_t lo, unsigned int ir, uint32_t at,
			   bool *exact)
{
	*exact = true;
	for (uint32_t k = i; k-- > lo;) {
		const struct axp_insn *br = &b->cfg->insn[k], *c;
		int64_t jc;
		uint64_t n;

		if (br->op != AXP_OP_BEQ && br->op != AXP_OP_BNE)
			continue;
		jc = find_def(b, k, lo, br->ra);
		if (jc < 0)
			continue;
		c = &b->cfg->insn[jc];
		if (c->op != AXP_OP_CMPULE && c->op != AXP_OP_CMPULT)
			continue;
		/* cmp index,N: true when in range; beq leaves the range */
		if (br->op == AXP_OP_BEQ && opb_const(b, c, (uint32_t)jc, lo, &n) &&
		    same_value(b, c->ra, (uint32_t)jc, ir, at, lo, 0))
			return c->op == AXP_OP_CMPULE ? n + 1 : n;
		/* cmp N,index: cmpult N,i is true when out of range; cmpule N,i too (i >= N) */
		if (br->op == AXP_OP_BNE && !c->islit &&
		    eval_const(b, c->ra, (uint32_t)jc, lo, 0, &n) &&
		    same_value(b, c->rb, (uint32_t)jc, ir, at, lo, 0))
			return c->op == AXP_OP_CMPULT ? n + 1 : n;
	}
	*exact = false;
	/* no compare: a mask of the index limits the scan */
	{
		int64_t j = find_def(b, at, lo, ir);
		const struct axp_insn *d = j >= 0 ? &b->cfg->insn[j] : NULL;

		if (d && d->op == AXP_OP_AND && d->islit && ((d->lit + 1u) & d->lit) == 0)
			return (uint64_t)d->lit + 1;
		if (d &&
		    (d->op == AXP_OP_EXTBL || (d->op == AXP_OP_ZAPNOT && d->islit && d->lit == 1)))
			return 256;
	}
	return JT_MAX;
}

/*
 * Where a scanned table's targets may lie: the procedure, or for a guessed one the whole gap
 * of guessed procedures it sits in (their boundaries may be wrong; see an_proc.c).
 */
static uint64_t scan_limit(const struct builder *b)
{
	const struct an_proc *p = b->p, *q;
	const struct an_procs *ps = b->ps;
	uint64_t lim = p->sec->addr + p->sec->size;

	if (!(p->flags & AN_PROC_GUESSED))
		return p->end;
	for (q = p + 1; q >= ps->v && q < ps->v + ps->n; q++)
		if (!(q->flags & AN_PROC_GUESSED) || q->sec != p->sec)
			return q->start < lim ? q->start : lim;
	return lim;
}

static int pool_add(struct builder *b, uint32_t x)
{
	if (b->ntpool == b->tcap) {
		uint32_t cap = b->tcap ? b->tcap * 2 : 64;
		uint32_t *v = realloc(b->tpool, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->tpool = v;
		b->tcap = cap;
	}
	b->tpool[b->ntpool++] = x;
	return 0;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, x = *(const uint32_t *)pb;

	return a < x ? -1 : a > x;
}

/* One table entry: 4 bytes sign-extended, or 8 bytes (little-endian, Alpha ARM §2.2.5). */
static int read_entry(const struct builder *b, uint64_t at, unsigned int esize, uint64_t *val)
{
	uint32_t lo, hi;

	if (esize == 8 && an_relocs_value(&b->ps->rel, at, val))
		return 0; /* filled by the loader (an_reloc.h) */
	if (img_read32(b->ps->elf, at, &lo))
		return -EFAULT;
	if (esize == 4) {
		*val = (uint64_t)(int64_t)(int32_t)lo;
		return 0;
	}
	if (img_read32(b->ps->elf, at + 4, &hi))
		return -EFAULT;
	*val = (uint64_t)hi << 32 | lo;
	return 0;
}

/* Sort the targets pool[first ..] of jtab k, keep the distinct ones, and count them. */
static void finish_targets(struct builder *b, uint32_t first, uint32_t k)
{
	uint32_t m = first;

	qsort(b->tpool + first, b->ntpool - first, sizeof(uint32_t), cmp_u32);
	for (uint32_t x = first; x < b->ntpool; x++)
		if (x == first || b->tpool[x] != b->tpool[m - 1])
			b->tpool[m++] = b->tpool[x];
	b->ntpool = m;
	b->cfg->jtab[k].resolved = true;
	b->jt_n[k] = b->ntpool - first;
}

/*
 * The JMP at i through a register that holds one of a few constants on every path into it
 * (the data flow, values_before): those constants, when all are code addresses of the
 * procedure, are its targets (an_jtab.flow). 0 or -ENOMEM.
 */
static int resolve_flow(struct builder *b, uint32_t i, uint32_t k)
{
	struct an_jtab *jt = &b->cfg->jtab[k];
	const struct an_proc *p = b->p;
	uint32_t first = b->ntpool;
	struct vals vs;
	int err;

	vs.n = 0;
	vs.gen = ++b->gen;
	if (!values_before(b, b->cfg->insn[i].rb, i, 0, &vs) || !vs.n)
		return 0;
	for (uint32_t x = 0; x < vs.n; x++)
		if (vs.v[x] < p->start || vs.v[x] >= p->end || (vs.v[x] & 3))
			return 0;
	jt->tmin = UINT64_MAX;
	for (uint32_t x = 0; x < vs.n; x++) {
		jt->tmin = vs.v[x] < jt->tmin ? vs.v[x] : jt->tmin;
		jt->tmax = vs.v[x] > jt->tmax ? vs.v[x] : jt->tmax;
		err = pool_add(b, (uint32_t)((vs.v[x] - p->start) / 4));
		if (err)
			return err;
	}
	jt->n = vs.n;
	jt->flow = true;
	finish_targets(b, first, k);
	return 0;
}

/*
 * Resolve the JMP at instruction i into jtab slot k: targets into the pool, or an exit reason.
 * Returns 0 or -ENOMEM; an unresolved JMP is not an error.
 */
static int resolve_jmp(struct builder *b, uint32_t i, uint32_t k)
{
	struct an_cfg *cfg = b->cfg;
	const struct axp_insn *jd = &cfg->insn[i], *dt, *dl, *da;
	struct an_jtab *jt = &cfg->jtab[k];
	uint32_t lo, first = b->ntpool, t = jd->rb;
	uint64_t base = 0, table, n, inside = 0, limit;
	unsigned int esize;
	bool exact;
	int64_t jT, jl = -1, ja;
	int err;

	*jt = (struct an_jtab){ .jmp = an_cfg_addr(cfg, i) };
	b->jt_first[k] = first;
	b->jt_n[k] = 0;
	b->jt_why[k] = AN_EXIT_NONE;
	lo = window_start(b, i);

	jT = find_def(b, i, lo, t);
	if (t == R_RA && (jT == NODEF || (jT >= 0 && cfg->insn[jT].op == AXP_OP_LDQ))) {
		b->jt_why[k] = AN_EXIT_RETURN; /* jmp (ra): a return */
		return 0;
	}
	if (jT < 0)
		return jT == NODEF ? resolve_flow(b, i, k) : 0;
	dt = &cfg->insn[jT];
	if (dt->op == AXP_OP_LDQ && (dt->rb == R_GP || t == R_PV)) {
		/* through a GOT slot, or a procedure value in pv (calling standard) */
		b->jt_why[k] = AN_EXIT_TAILCALL;
		return 0;
	}
	/* a constant: one target (a computed goto's label), or a tail call */
	if (eval_const(b, t, i, lo, 0, &base)) {
		if (base < b->p->start || base >= b->p->end || (base & 3)) {
			if (an_procs_at(b->ps, base))
				b->jt_why[k] = AN_EXIT_TAILCALL;
			return 0;
		}
		jt->base = jt->tmin = jt->tmax = base;
		jt->n = 1;
		jt->resolved = true;
		b->jt_n[k] = 1;
		return pool_add(b, (uint32_t)((base - b->p->start) / 4));
	}
	/*
	 * The table load: `addq B,X,t` with X = `ldl X,d(A)` / `ldq X,d(A)` (entries relative to
	 * B), or t = `ldq t,d(A)` itself (8-byte absolute entries: a computed goto's
	 * `static void *tab[] = { &&l0, ... }`, as in Lua's luaV_execute); A = s4addq/s8addq i,T.
	 */
	if (dt->op == AXP_OP_LDQ) {
		jl = jT;
		base = 0;
	} else if (dt->op == AXP_OP_ADDQ && !dt->islit) {
		for (int side = 0; side < 2 && jl < 0; side++) {
			unsigned int bx = side ? dt->rb : dt->ra, xx = side ? dt->ra : dt->rb;
			int64_t j = find_def(b, (uint32_t)jT, lo, xx);

			if (j < 0 ||
			    (cfg->insn[j].op != AXP_OP_LDL && cfg->insn[j].op != AXP_OP_LDQ))
				continue;
			if (!eval_const(b, bx, (uint32_t)jT, lo, 0, &base))
				continue;
			jl = j;
		}
	}
	if (jl < 0)
		return resolve_flow(b, i, k);
	dl = &cfg->insn[jl];
	esize = dl->op == AXP_OP_LDQ ? 8 : 4;
	ja = find_def(b, (uint32_t)jl, lo, dl->rb);
	if (ja < 0)
		return 0;
	da = &cfg->insn[ja];
	if (da->op != (esize == 8 ? AXP_OP_S8ADDQ : AXP_OP_S4ADDQ) || da->islit)
		return 0;
	if (!eval_const(b, da->rb, (uint32_t)ja, lo, 0, &table))
		return 0;
	table += (uint64_t)(int64_t)dl->disp;
	jt->table = table;
	jt->base = base;
	jt->esize = (uint8_t)esize;
	n = find_bound(b, i, lo, da->ra, (uint32_t)ja, &exact);
	if (!n || n > JT_MAX)
		return 0;
	/*
	 * Read the entries. With a compare, all n of them; else scan (at most n) while each
	 * target is a code address where this procedure may extend: every real entry is one, so
	 * the scan finds them all, and at worst a few more (a superset of the edges is sound).
	 */
	limit = exact ? UINT64_MAX : scan_limit(b);
	jt->tmin = UINT64_MAX;
	for (uint64_t e = 0; e < n; e++) {
		uint64_t dest;

		if (read_entry(b, table + esize * e, esize, &dest))
			goto bad;
		dest += base;
		if (!exact && (dest < b->p->start || dest >= limit || (dest & 3)))
			break;
		jt->tmin = dest < jt->tmin ? dest : jt->tmin;
		jt->tmax = dest > jt->tmax ? dest : jt->tmax;
		jt->n = (uint32_t)(e + 1);
		if (dest < b->p->start || dest >= b->p->end || (dest & 3))
			continue;
		err = pool_add(b, (uint32_t)((dest - b->p->start) / 4));
		if (err)
			return err;
		inside++;
	}
	jt->scanned = !exact;
	if (!jt->n || inside < jt->n)
		goto bad;
	finish_targets(b, first, k); /* distinct targets, in address order */
	return 0;
bad:
	b->ntpool = first;
	return 0;
}

static uint32_t target_index(const struct an_cfg *cfg, const struct axp_insn *d, uint32_t i,
			     bool *inside);

static void flow_free(struct builder *b)
{
	free(b->bsrc_off);
	free(b->bsrc);
	free(b->jsrc_off);
	free(b->jsrc);
	free(b->entry);
	free(b->mark);
}

/* Edges into instructions, grouped by target: from[k] -> to[k], k < m, into *off / *src. */
static int by_target(uint32_t n, const uint32_t *from, const uint32_t *to, uint32_t m,
		     uint32_t **off, uint32_t **src)
{
	uint32_t *o = calloc((size_t)n + 2, sizeof(*o)), *v = malloc(((size_t)m + 1) * sizeof(*v));

	if (!o || !v) {
		free(o);
		free(v);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < m; k++)
		o[to[k] + 2]++;
	for (uint32_t x = 0; x < n; x++)
		o[x + 2] += o[x + 1];
	for (uint32_t k = 0; k < m; k++)
		v[o[to[k] + 1]++] = from[k];
	*off = o;
	*src = v;
	return 0;
}

/* The direct branches into each instruction and the procedure's entries (values_before). */
static int flow_init(struct builder *b)
{
	const struct an_cfg *cfg = b->cfg;
	uint32_t n = cfg->ninsns, m = 0, *from, *to;
	int err;

	from = malloc(((size_t)n + 1) * sizeof(*from));
	to = malloc(((size_t)n + 1) * sizeof(*to));
	b->entry = calloc((size_t)n + 1, 1);
	b->mark = calloc((size_t)n + 1, sizeof(*b->mark));
	if (!from || !to || !b->entry || !b->mark) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		bool inside;
		uint32_t t;

		if (b->ctl[i] != CTL_COND && b->ctl[i] != CTL_BR)
			continue;
		t = target_index(cfg, &cfg->insn[i], i, &inside);
		if (inside) {
			from[m] = i;
			to[m++] = t;
		}
	}
	err = by_target(n, from, to, m, &b->bsrc_off, &b->bsrc);
	b->entry[0] = 1;
	for (uint32_t k = 0; k < b->p->nxentries; k++) {
		uint64_t a = b->ps->xentries[b->p->xentry + k];

		if (a >= b->p->start && a < b->p->end && !(a & 3))
			b->entry[(a - b->p->start) / 4] = 1;
	}
out:
	free(from);
	free(to);
	return err;
}

/* The jump-table edges of this round, by target, for the next one. Returns 0 or -ENOMEM. */
static int jsrc_build(struct builder *b, const uint32_t *jidx, uint32_t *nedges)
{
	uint32_t m = 0, *from, *to;
	int err;

	from = malloc(((size_t)b->ntpool + 1) * sizeof(*from));
	to = malloc(((size_t)b->ntpool + 1) * sizeof(*to));
	if (!from || !to) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < b->cfg->njtabs; k++) {
		if (b->jt_why[k] != AN_EXIT_NONE || !b->cfg->jtab[k].resolved)
			continue;
		for (uint32_t x = 0; x < b->jt_n[k]; x++) {
			from[m] = jidx[k];
			to[m++] = b->tpool[b->jt_first[k] + x];
		}
	}
	free(b->jsrc_off);
	free(b->jsrc);
	b->jsrc_off = b->jsrc = NULL;
	err = by_target(b->cfg->ninsns, from, to, m, &b->jsrc_off, &b->jsrc);
	*nedges = m;
out:
	free(from);
	free(to);
	return err;
}

/* A digest of every JMP's outcome, to see a round change nothing. */
static uint64_t jt_digest(const struct builder *b)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t k = 0; k < b->cfg->njtabs; k++) {
		h = (h ^ (b->jt_why[k] + 8u * b->cfg->jtab[k].resolved)) * 1099511628211ull;
		for (uint32_t x = 0; x < b->jt_n[k]; x++)
			h = (h ^ b->tpool[b->jt_first[k] + x]) * 1099511628211ull;
	}
	return h;
}

static uint32_t mark_cand(uint8_t *cand, uint32_t i)
{
	if (cand[i])
		return 0;
	cand[i] = 1;
	return 1;
}

/*
 * Blocks of the procedure whose address is taken (the fallback's candidates, an_cfg.h):
 * cand[i] = 1 for each instruction i such a block starts at. Returns how many.
 */
static uint32_t address_taken(struct builder *b, uint8_t *cand)
{
	const struct an_relocs *rel = &b->ps->rel;
	const struct an_proc *p = b->p;
	struct an_cfg *cfg = b->cfg;
	uint32_t nc = 0;

	for (size_t x = an_relocs_taken_from(rel, p->start);
	     x < rel->ntaken && rel->taken[x] < p->end; x++)
		nc += mark_cand(cand, (uint32_t)((rel->taken[x] - p->start) / 4));
	for (uint32_t k = 0; k < cfg->njtabs; k++)
		if (b->jt_why[k] == AN_EXIT_NONE && cfg->jtab[k].resolved)
			for (uint32_t x = 0; x < b->jt_n[k]; x++)
				nc += mark_cand(cand, b->tpool[b->jt_first[k] + x]);
	/* literals: LDA/LDAH chains from GP or PV that give a code address of the procedure */
	b->no_flow = true;
	for (uint32_t i = 0; i < cfg->ninsns; i++) {
		const struct axp_insn *d = &cfg->insn[i];
		uint64_t v;

		if ((d->op != AXP_OP_LDA && d->op != AXP_OP_LDAH) || d->ra == 31 ||
		    !eval_const(b, d->ra, i + 1, window_start(b, i + 1), 0, &v))
			continue;
		if (v >= p->start && v < p->end && !(v & 3))
			nc += mark_cand(cand, (uint32_t)((v - p->start) / 4));
	}
	b->no_flow = false;
	return nc;
}

/* Each JMP still unresolved goes to every address-taken block, if there is one. */
static int fallback(struct builder *b)
{
	struct an_cfg *cfg = b->cfg;
	uint8_t *cand = NULL;
	uint32_t nc = 0;
	int err = 0;

	for (uint32_t k = 0; k < cfg->njtabs && !err; k++) {
		struct an_jtab *jt = &cfg->jtab[k];

		/* a table read whose targets leave the procedure: its bounds may be wrong (an_proc.c
		 * merges guessed procedures on it); that one stays unresolved */
		if (b->jt_why[k] != AN_EXIT_NONE || jt->resolved || jt->n)
			continue;
		if (!cand) {
			cand = calloc((size_t)cfg->ninsns + 1, 1);
			if (!cand)
				return -ENOMEM;
			nc = address_taken(b, cand);
		}
		if (!nc)
			break;
		b->jt_first[k] = b->ntpool;
		for (uint32_t i = 0; i < cfg->ninsns && !err; i++)
			if (cand[i])
				err = pool_add(b, i);
		if (err)
			break;
		*jt = (struct an_jtab){ .jmp = jt->jmp, .n = nc, .fallback = true };
		jt->tmin = an_cfg_addr(cfg, b->tpool[b->jt_first[k]]);
		jt->tmax = an_cfg_addr(cfg, b->tpool[b->ntpool - 1]);
		finish_targets(b, b->jt_first[k], k);
	}
	free(cand);
	return err;
}

/*
 * Resolve every JMP (b->cfg->njtabs of them): rounds while the data flow used the jump-table
 * edges of the round before and they changed; then the fallback. 0 or -ENOMEM.
 */
static int resolve_all(struct builder *b)
{
	struct an_cfg *cfg = b->cfg;
	uint32_t nj = cfg->njtabs, *jidx = malloc(((size_t)nj + 1) * sizeof(*jidx)), m = 0;
	uint64_t prev = 0;
	int err;

	if (!jidx)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->ninsns; i++)
		if (b->ctl[i] == CTL_JMP)
			jidx[m++] = i;
	err = flow_init(b);
	for (uint32_t round = 0; round < JT_ROUNDS && !err; round++) {
		uint64_t h;
		uint32_t ne;

		b->ntpool = 0;
		b->used_flow = false;
		for (uint32_t k = 0; k < nj && !err; k++) {
			b->steps = 0;
			err = resolve_jmp(b, jidx[k], k);
		}
		h = jt_digest(b);
		if (err || !b->used_flow || (round && h == prev))
			break;
		prev = h;
		err = jsrc_build(b, jidx, &ne);
		if (!err && !ne)
			break; /* no jump-table edge: the next round would find the same */
	}
	if (!err)
		err = fallback(b);
	free(jidx);
	return err;
}

static uint32_t target_index(const struct an_cfg *cfg, const struct axp_insn *d, uint32_t i,
			     bool *inside)
{
	uint64_t t = an_cfg_addr(cfg, i) + 4 + (uint64_t)((int64_t)d->disp * 4);

	*inside = t >= cfg->start && t < cfg->start + 4 * (uint64_t)cfg->ninsns;
	return *inside ? (uint32_t)((t - cfg->start) / 4) : 0;
}

/*
 * What the call at instruction i calls (an_callee.h): a BSR's target; a JSR through a GOT word
 * loaded by `ldq r,d(gp)` in the straight-line code before it, GP being the procedure's
 * (every GP reload in a procedure computes the same value). Anything else: returns.
 */
static enum an_callee_kind call_kind(const struct builder *b, uint32_t i)
{
	const struct an_cfg *cfg = b->cfg;
	const struct axp_insn *d = &cfg->insn[i];
	const struct axp_insn *ld;
	int64_t j;

	if (d->op == AXP_OP_BSR)
		return an_callee_kind_at(b->ps, an_cfg_addr(cfg, i) + 4 +
							(uint64_t)((int64_t)d->disp * 4));
	if (d->op != AXP_OP_JSR || !(b->p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED)))
		return AN_CALLEE_RETURNS;
	j = find_def(b, i, window_start(b, i), d->rb);
	if (j < 0)
		return AN_CALLEE_RETURNS;
	ld = &cfg->insn[j];
	if (ld->op != AXP_OP_LDQ || ld->rb != R_GP)
		return AN_CALLEE_RETURNS;
	return an_callee_kind_slot(b->ps, b->p->gp + (uint64_t)(int64_t)ld->disp);
}

/*
 * In a procedure that calls setjmp, a call (but setjmp's) may end in a longjmp to the block
 * after any of its setjmp calls (an_callee.h): an edge to each, after its own.
 */
static int longjmp_edges(struct builder *b, uint32_t blk, uint32_t last)
{
	const struct an_cfg *cfg = b->cfg;
	int err = 0;

	if (!b->setjmp || b->ctl[last] != CTL_CALL || b->callk[blk] == AN_CALLEE_TWICE)
		return 0;
	for (uint32_t k = 0; k + 1 < cfg->nblocks && !err; k++)
		if (b->callk[k] == AN_CALLEE_TWICE)
			err = tedge_add(b, blk, k + 1, AN_EDGE_LONGJMP, AN_EXIT_NONE);
	return err;
}

/* Out edges of the block ending with instruction `last` (block index blk). */
static int block_edges(struct builder *b, uint32_t blk, uint32_t last, uint32_t *jk)
{
	struct an_cfg *cfg = b->cfg;
	const struct axp_insn *d = &cfg->insn[last];
	bool at_end = last + 1 >= cfg->ninsns, inside;
	uint32_t next = at_end ? 0 : cfg->blk_of[last + 1], t;
	int err = 0;

	switch ((enum ctl)b->ctl[last]) {
	case CTL_NONE:
		return at_end ? tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_FALLOUT) :
				tedge_add(b, blk, next, AN_EDGE_FALL, AN_EXIT_NONE);
	case CTL_COND:
		t = target_index(cfg, d, last, &inside);
		err = inside ? tedge_add(b, blk, cfg->blk_of[t], AN_EDGE_TAKEN, AN_EXIT_NONE) :
			       tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_TAILCALL);
		if (err)
			return err;
		return at_end ? tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_FALLOUT) :
				tedge_add(b, blk, next, AN_EDGE_FALL, AN_EXIT_NONE);
	case CTL_BR:
		t = target_index(cfg, d, last, &inside);
		return inside ? tedge_add(b, blk, cfg->blk_of[t], AN_EDGE_TAKEN, AN_EXIT_NONE) :
				tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_TAILCALL);
	case CTL_CALL:
	case CTL_PAL:
		cfg->block[blk].flags |= b->ctl[last] == CTL_CALL ? AN_BLK_CALL : 0;
		if (b->callk[blk] == AN_CALLEE_EXITS)
			cfg->block[blk].flags |= AN_BLK_CALL_EXITS;
		if (b->callk[blk] == AN_CALLEE_NORETURN)
			err = tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_NORETCALL);
		else
			err = at_end ? tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT,
						 AN_EXIT_FALLOUT) :
				       tedge_add(b, blk, next, AN_EDGE_CALLRET, AN_EXIT_NONE);
		return err ? err : longjmp_edges(b, blk, last);
	case CTL_RET:
		return tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_RETURN);
	case CTL_TRAP:
		return tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_TRAP);
	case CTL_JMP: {
		uint32_t k = (*jk)++;

		cfg->block[blk].flags |= AN_BLK_JMP;
		if (b->jt_why[k] != AN_EXIT_NONE)
			return tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, b->jt_why[k]);
		if (!cfg->jtab[k].resolved) {
			cfg->block[blk].flags |= AN_BLK_UNRESOLVED;
			cfg->flags |= AN_CFG_MISSING_EDGES;
			return tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_UNKNOWN);
		}
		for (uint32_t x = 0; x < b->jt_n[k] && !err; x++) {
			uint32_t to = cfg->blk_of[b->tpool[b->jt_first[k] + x]];

			if (cfg->jtab[k].fallback)
				cfg->block[to].flags |= AN_BLK_GUESSED;
			err = tedge_add(b, blk, to, AN_EDGE_JTAB, AN_EXIT_NONE);
		}
		if (!err && cfg->jtab[k].fallback) {
			/* it may as well leave the procedure (an indirect tail call) */
			cfg->flags |= AN_CFG_FALLBACK_EDGES;
			err = tedge_add(b, blk, AN_NODE_EXIT, AN_EDGE_EXIT, AN_EXIT_TAILCALL);
		}
		return err;
	}
	}
	return 0;
}

static int set_err(struct ax_error *err, int code, const struct an_proc *p, const char *what)
{
	char name[128];

	an_proc_name(p, name, sizeof(name));
	return ax_fail(err, code, "procedure %s at 0x%" PRIx64 ": %s", name, p->start, what);
}

/* Reachability from ENTRY over the temporary edges. */
static int mark_reachable(struct builder *b)
{
	struct an_cfg *cfg = b->cfg;
	uint32_t nb = cfg->nblocks, *off, *q, qh = 0, qt = 0;
	uint8_t *seen;

	off = calloc((size_t)nb + 2, sizeof(*off));
	q = malloc(((size_t)nb + 1) * sizeof(*q));
	seen = calloc((size_t)nb + 1, 1);
	if (!off || !q || !seen) {
		free(off);
		free(q);
		free(seen);
		return -ENOMEM;
	}
	/* temporary edges are grouped by `from` in block order after the ENTRY edges */
	for (uint32_t e = 0; e < b->nte; e++) {
		if (b->te[e].from == AN_NODE_ENTRY) {
			if (!seen[b->te[e].to]) {
				seen[b->te[e].to] = 1;
				q[qt++] = b->te[e].to;
			}
		} else {
			off[b->te[e].from + 1]++;
		}
	}
	for (uint32_t i = 0; i < nb; i++)
		off[i + 1] += off[i];
	{
		uint32_t base = cfg->nentry_edges;

		while (qh < qt) {
			uint32_t x = q[qh++];

			for (uint32_t e = base + off[x]; e < base + off[x + 1]; e++) {
				uint32_t to = b->te[e].to;

				if (to < nb && !seen[to]) {
					seen[to] = 1;
					q[qt++] = to;
				}
			}
		}
	}
	for (uint32_t i = 0; i < nb; i++) {
		struct an_block *bl = &cfg->block[i];

		if (seen[i])
			continue;
		bl->flags |= AN_BLK_UNREACHABLE;
		cfg->nunreachable++;
		{
			bool pad = true;

			for (uint32_t k = 0; k < bl->n && pad; k++)
				pad = an_word_is_pad(cfg->insn[bl->first + k].word);
			if (pad)
				bl->flags |= AN_BLK_PAD;
		}
	}
	free(off);
	free(q);
	free(seen);
	return 0;
}

/* Final edge array: temporary edges plus the artificial NORETURN edges; preds. */
static int finish_edges(struct builder *b)
{
	struct an_cfg *cfg = b->cfg;
	uint32_t nb = cfg->nblocks, *src, *dst, *extra, nextra = 0, ne, x = 0, *fill;
	struct an_cyceq_graph g;
	int err;

	src = malloc(((size_t)b->nte + 1) * sizeof(*src));
	dst = malloc(((size_t)b->nte + 1) * sizeof(*dst));
	extra = malloc(((size_t)nb + 2) * sizeof(*extra));
	if (!src || !dst || !extra) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t e = 0; e < b->nte; e++) {
		src[e] = b->te[e].from == AN_NODE_ENTRY ? nb : b->te[e].from;
		dst[e] = b->te[e].to == AN_NODE_EXIT ? nb + 1 : b->te[e].to;
	}
	g = (struct an_cyceq_graph){ .nnodes = nb + 2,
				     .nedges = b->nte,
				     .src = src,
				     .dst = dst,
				     .entry = nb,
				     .exit = nb + 1 };
	err = an_cyceq_exitless(&g, extra, &nextra);
	if (err)
		goto out;
	ne = b->nte + nextra;
	cfg->edge = calloc((size_t)ne + 1, sizeof(*cfg->edge));
	cfg->pred = malloc(((size_t)ne + 1) * sizeof(*cfg->pred));
	fill = calloc((size_t)nb + 2, sizeof(*fill));
	if (!cfg->edge || !cfg->pred || !fill) {
		free(fill);
		err = -ENOMEM;
		goto out;
	}
	/* merge: ENTRY edges, then each block's edges followed by its NORETURN edge */
	cfg->nedges = 0;
	for (uint32_t e = 0; e <= b->nte; e++) {
		uint32_t from = e < b->nte ? b->te[e].from : UINT32_MAX - 2;

		while (x < nextra &&
		       (from == UINT32_MAX - 2 || (from != AN_NODE_ENTRY && from > extra[x]))) {
			cfg->edge[cfg->nedges++] =
				(struct an_edge){ extra[x], AN_NODE_EXIT, AN_EDGE_NORETURN,
						  AN_EXIT_NONE, 0 };
			x++;
		}
		if (e < b->nte)
			cfg->edge[cfg->nedges++] =
				(struct an_edge){ b->te[e].from, b->te[e].to, b->te[e].kind,
						  b->te[e].why, 0 };
	}
	/* successor ranges and predecessor lists */
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		if (ed->from != AN_NODE_ENTRY) {
			struct an_block *bl = &cfg->block[ed->from];

			if (!bl->nsucc)
				bl->succ = e;
			bl->nsucc++;
		}
		if (ed->to == AN_NODE_EXIT)
			fill[nb + 1]++;
		else
			fill[ed->to + 1]++;
	}
	/* fill[i + 1] counts the preds of block i; EXIT's preds go after every block's */
	{
		uint32_t acc = 0;

		for (uint32_t i = 0; i < nb; i++) {
			cfg->block[i].pred = acc;
			cfg->block[i].npred = 0;
			acc += fill[i + 1];
		}
		cfg->exit_preds = acc;
		cfg->nexit_preds = 0;
	}
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		if (ed->to == AN_NODE_EXIT)
			cfg->pred[cfg->exit_preds + cfg->nexit_preds++] = e;
		else
			cfg->pred[cfg->block[ed->to].pred + cfg->block[ed->to].npred++] = e;
	}
	free(fill);
	err = 0;
out:
	free(src);
	free(dst);
	free(extra);
	return err;
}

int an_cfg_build(const struct an_procs *ps, const struct an_proc *p, struct an_cfg **out,
		 struct ax_error *err)
{
	struct builder b = { .ps = ps, .p = p };
	struct an_cfg *cfg;
	uint32_t n, nj = 0, jk = 0;
	int ret = -ENOMEM;

	*out = NULL;
	if (p->start >= p->end || (p->start & 3) || (p->end & 3) ||
	    (p->end - p->start) / 4 > UINT32_MAX / 4 || p->start < p->sec->addr ||
	    p->end > p->sec->addr + p->sec->size) {
		return set_err(err, -EINVAL, p, "empty, misaligned or outside its section");
	}
	n = (uint32_t)((p->end - p->start) / 4);
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg)
		goto out_nomem;
	b.cfg = cfg;
	cfg->proc = p;
	cfg->start = p->start;
	cfg->ninsns = n;
	cfg->insn = malloc((size_t)n * sizeof(*cfg->insn));
	cfg->blk_of = malloc((size_t)n * sizeof(*cfg->blk_of));
	b.ctl = malloc(n);
	b.lead = calloc((size_t)n + 1, 1);
	if (!cfg->insn || !cfg->blk_of || !b.ctl || !b.lead)
		goto out_nomem;

	/* decode, classify, leaders from direct branches */
	b.lead[0] = 1;
	for (uint32_t i = 0; i < n; i++) {
		struct axp_insn *d = &cfg->insn[i];
		enum ctl c;

		axp_decode(an_proc_word(p, an_cfg_addr(cfg, i)), d);
		c = classify(d);
		if (c == CTL_PAL && pal_may_trap(d) &&
		    (i + 1 == n || an_word_is_pad(an_proc_word(p, an_cfg_addr(cfg, i + 1)))))
			c = CTL_TRAP;
		b.ctl[i] = (uint8_t)c;
		if (d->op == AXP_OP_INVALID || axp_op_info[d->op].fmt == AXP_FMT_PCD)
			cfg->flags |= AN_CFG_ODD_WORDS;
		if (c == CTL_NONE)
			continue;
		b.lead[i + 1] = 1;
		if (c == CTL_COND || c == CTL_BR) {
			bool inside;
			uint32_t t = target_index(cfg, d, i, &inside);

			if (inside)
				b.lead[t] = 1;
		}
		if (c == CTL_JMP)
			nj++;
	}
	for (uint32_t k = 0; k < p->nxentries; k++) {
		uint64_t a = ps->xentries[p->xentry + k];

		if (a >= p->start && a < p->end && !(a & 3))
			b.lead[(a - p->start) / 4] = 1;
	}

	/* jump tables */
	if (nj) {
		cfg->jtab = calloc(nj, sizeof(*cfg->jtab));
		b.jt_first = calloc(nj, sizeof(uint32_t));
		b.jt_n = calloc(nj, sizeof(uint32_t));
		b.jt_why = calloc(nj, 1);
		if (!cfg->jtab || !b.jt_first || !b.jt_n || !b.jt_why)
			goto out_nomem;
		cfg->njtabs = nj;
		if (resolve_all(&b))
			goto out_nomem;
		for (uint32_t k = 0; k < nj; k++)
			for (uint32_t x = 0; x < b.jt_n[k]; x++)
				b.lead[b.tpool[b.jt_first[k] + x]] = 1;
	}

	/* blocks */
	for (uint32_t i = 0; i < n; i++)
		if (b.lead[i])
			cfg->nblocks++;
	cfg->block = calloc(cfg->nblocks, sizeof(*cfg->block));
	if (!cfg->block)
		goto out_nomem;
	for (uint32_t i = 0, k = UINT32_MAX; i < n; i++) {
		if (b.lead[i]) {
			k++;
			cfg->block[k].addr = an_cfg_addr(cfg, i);
			cfg->block[k].first = i;
		}
		cfg->block[k].n++;
		cfg->blk_of[i] = k;
	}

	/* edges: ENTRY first, then block by block */
	if (tedge_add(&b, AN_NODE_ENTRY, 0, AN_EDGE_ENTRY, AN_EXIT_NONE))
		goto out_nomem;
	cfg->block[0].flags |= AN_BLK_ENTRY;
	for (uint32_t k = 0; k < p->nxentries; k++) {
		uint64_t a = ps->xentries[p->xentry + k];
		uint32_t bi;

		if (a < p->start || a >= p->end || (a & 3))
			continue;
		bi = cfg->blk_of[(a - p->start) / 4];
		if (cfg->block[bi].flags & AN_BLK_ENTRY)
			continue;
		cfg->block[bi].flags |= AN_BLK_ENTRY;
		if (tedge_add(&b, AN_NODE_ENTRY, bi, AN_EDGE_ENTRY, AN_EXIT_NONE))
			goto out_nomem;
	}
	/* calls that never return or return twice (an_callee.h) */
	b.callk = calloc((size_t)cfg->nblocks + 1, 1);
	if (!b.callk)
		goto out_nomem;
	for (uint32_t k = 0; k < cfg->nblocks; k++) {
		uint32_t last = cfg->block[k].first + cfg->block[k].n - 1;

		if (b.ctl[last] != CTL_CALL)
			continue;
		b.callk[k] = (uint8_t)call_kind(&b, last);
		b.setjmp = b.setjmp || b.callk[k] == AN_CALLEE_TWICE;
	}
	cfg->entry_edges = 0;
	cfg->nentry_edges = b.nte;
	for (uint32_t k = 0; k < cfg->nblocks; k++) {
		const struct an_block *bl = &cfg->block[k];

		if (block_edges(&b, k, bl->first + bl->n - 1, &jk))
			goto out_nomem;
	}
	if (mark_reachable(&b))
		goto out_nomem;
	if (finish_edges(&b))
		goto out_nomem;

	free(b.ctl);
	free(b.lead);
	free(b.te);
	free(b.tpool);
	free(b.jt_first);
	free(b.jt_n);
	free(b.jt_why);
	flow_free(&b);
	free(b.callk);
	*out = cfg;
	return 0;

out_nomem:
	set_err(err, -ENOMEM, p, "out of memory building the CFG");
	free(b.ctl);
	free(b.lead);
	free(b.te);
	free(b.tpool);
	free(b.jt_first);
	free(b.jt_n);
	free(b.jt_why);
	flow_free(&b);
	free(b.callk);
	an_cfg_free(cfg);
	return ret;
}

void an_cfg_free(struct an_cfg *cfg)
{
	if (!cfg)
		return;
	free(cfg->insn);
	free(cfg->blk_of);
	free(cfg->block);
	free(cfg->edge);
	free(cfg->pred);
	free(cfg->jtab);
	free(cfg);
}

uint32_t an_cfg_block_at(const struct an_cfg *cfg, uint64_t addr)
{
	if (addr < cfg->start || (addr - cfg->start) / 4 >= cfg->ninsns)
		return UINT32_MAX;
	return cfg->blk_of[(addr - cfg->start) / 4];
}

int an_cfg_classes(struct an_cfg *cfg)
{
	uint32_t nb = cfg->nblocks, ne = cfg->nedges, *src, *dst, *nc, *ec, *renum, k = 0, next = 0;
	struct an_cyceq_graph g;
	int err;

	if (cfg->flags & AN_CFG_MISSING_EDGES) {
		for (uint32_t i = 0; i < nb; i++)
			cfg->block[i].cls = i;
		for (uint32_t e = 0; e < ne; e++)
			cfg->edge[e].cls = nb + e;
		cfg->nclasses = nb + ne;
		cfg->flags |= AN_CFG_CLASSES;
		return 0;
	}
	src = malloc(((size_t)ne + 1) * sizeof(*src));
	dst = malloc(((size_t)ne + 1) * sizeof(*dst));
	nc = malloc(((size_t)nb + 2) * sizeof(*nc));
	ec = malloc(((size_t)ne + 1) * sizeof(*ec));
	renum = NULL;
	if (!src || !dst || !nc || !ec) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t e = 0; e < ne; e++) {
		src[e] = cfg->edge[e].from == AN_NODE_ENTRY ? nb : cfg->edge[e].from;
		dst[e] = cfg->edge[e].to == AN_NODE_EXIT ? nb + 1 : cfg->edge[e].to;
	}
	g = (struct an_cyceq_graph){
		.nnodes = nb + 2, .nedges = ne, .src = src, .dst = dst, .entry = nb, .exit = nb + 1
	};
	err = an_cyceq_classes(&g, nc, ec, &k);
	if (err)
		goto out;
	/* dense again over blocks and edges only (ENTRY/EXIT nodes may hold a class alone) */
	renum = malloc(((size_t)k + 1) * sizeof(*renum));
	if (!renum) {
		err = -ENOMEM;
		goto out;
	}
	memset(renum, 0xff, ((size_t)k + 1) * sizeof(*renum));
	for (uint32_t i = 0; i < nb; i++) {
		if (renum[nc[i]] == UINT32_MAX)
			renum[nc[i]] = next++;
		cfg->block[i].cls = renum[nc[i]];
	}
	for (uint32_t e = 0; e < ne; e++) {
		if (renum[ec[e]] == UINT32_MAX)
			renum[ec[e]] = next++;
		cfg->edge[e].cls = renum[ec[e]];
	}
	cfg->nclasses = next;
	cfg->flags |= AN_CFG_CLASSES;
out:
	free(src);
	free(dst);
	free(nc);
	free(ec);
	free(renum);
	return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Invariants. */

static int __attribute__((format(printf, 2, 3))) bad(struct ax_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -EBADMSG;
	memset(err, 0, sizeof(*err));
	err->code = -EBADMSG;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* Blocks tile the procedure, each with an in-range successor range of its own edges. */
static int check_blocks(const struct an_cfg *cfg, struct ax_error *err)
{
	uint32_t nb = cfg->nblocks, ne = cfg->nedges, next = 0;

	for (uint32_t b = 0; b < nb; b++) {
		const struct an_block *bl = &cfg->block[b];

		if (bl->first != next || !bl->n || bl->addr != an_cfg_addr(cfg, bl->first))
			return bad(err, "block %u does not follow block %u", b, b - 1);
		for (uint32_t i = bl->first; i < bl->first + bl->n; i++)
			if (cfg->blk_of[i] != b)
				return bad(err, "instruction %u is not mapped to block %u", i, b);
		next += bl->n;
		if (bl->nsucc && (bl->succ + bl->nsucc > ne))
			return bad(err, "block %u: successor range out of bounds", b);
		for (uint32_t e = bl->succ; e < bl->succ + bl->nsucc; e++)
			if (cfg->edge[e].from != b)
				return bad(err,
					   "block %u: edge %u in its successor range is from %u", b,
					   e, cfg->edge[e].from);
		if (!bl->nsucc)
			return bad(err, "block %u (0x%" PRIx64 ") has no successor", b, bl->addr);
	}
	if (next != cfg->ninsns)
		return bad(err, "blocks cover %u of %u instructions", next, cfg->ninsns);
	return 0;
}

/* An edge's kind, source and destination are in range and agree with each other. */
static int check_edge_ends(const struct an_cfg *cfg, uint32_t e, struct ax_error *err)
{
	const struct an_edge *ed = &cfg->edge[e];
	uint32_t nb = cfg->nblocks;

	if (ed->kind >= AN_EDGE_KIND_NR)
		return bad(err, "edge %u: bad kind", e);
	if (ed->from == AN_NODE_ENTRY) {
		if (ed->kind != AN_EDGE_ENTRY || ed->to >= nb ||
		    !(cfg->block[ed->to].flags & AN_BLK_ENTRY))
			return bad(err, "edge %u: bad ENTRY edge", e);
		return 0;
	}
	if (ed->from >= nb || ed->kind == AN_EDGE_ENTRY)
		return bad(err, "edge %u: bad source", e);
	if ((ed->to == AN_NODE_EXIT) != (ed->kind == AN_EDGE_EXIT || ed->kind == AN_EDGE_NORETURN))
		return bad(err, "edge %u: EXIT edges and kinds disagree", e);
	if (ed->to != AN_NODE_EXIT && ed->to >= nb)
		return bad(err, "edge %u: bad destination", e);
	return 0;
}

/* Fall-through and call-return edges go to the next block, after the right instruction. */
static int check_fall_edge(const struct an_cfg *cfg, uint32_t e, enum ctl c, struct ax_error *err)
{
	const struct an_edge *ed = &cfg->edge[e];

	if (ed->to != ed->from + 1)
		return bad(err, "edge %u: %s edge from block %u does not go to the next block", e,
			   an_edge_kind_name[ed->kind], ed->from);
	if ((ed->kind == AN_EDGE_CALLRET) != (c == CTL_CALL || c == CTL_PAL))
		return bad(err, "edge %u: call-return edge after a non-call", e);
	if (ed->kind == AN_EDGE_FALL && c != CTL_NONE && c != CTL_COND)
		return bad(err, "edge %u: fall-through after a transfer", e);
	return 0;
}

/* A taken edge leaves a branch for the block at its target. */
static int check_taken_edge(const struct an_cfg *cfg, uint32_t e, enum ctl c, struct ax_error *err)
{
	const struct an_edge *ed = &cfg->edge[e];
	const struct an_block *fb = &cfg->block[ed->from];
	uint32_t last = fb->first + fb->n - 1, t;
	bool inside;

	if (c != CTL_COND && c != CTL_BR)
		return bad(err, "edge %u: taken edge after a non-branch", e);
	t = target_index(cfg, &cfg->insn[last], last, &inside);
	if (!inside || cfg->block[ed->to].first != t)
		return bad(err, "edge %u: taken edge does not go to the branch target", e);
	return 0;
}

/* An exit edge's reason agrees with the instruction and the CFG's flags. */
static int check_exit_edge(const struct an_cfg *cfg, uint32_t e, enum ctl c, struct ax_error *err)
{
	const struct an_edge *ed = &cfg->edge[e];

	if (ed->why == AN_EXIT_RETURN && c != CTL_RET && c != CTL_JMP)
		return bad(err, "edge %u: return edge after a non-return", e);
	if (ed->why == AN_EXIT_UNKNOWN && !(cfg->flags & AN_CFG_MISSING_EDGES))
		return bad(err, "edge %u: unknown exit but the CFG is not missing edges", e);
	return 0;
}

/* An edge agrees with the last instruction of its source block. */
static int check_edge_kind(const struct an_cfg *cfg, uint32_t e, struct ax_error *err)
{
	const struct an_edge *ed = &cfg->edge[e];
	const struct an_block *fb = &cfg->block[ed->from];
	enum ctl c = classify(&cfg->insn[fb->first + fb->n - 1]);

	switch (ed->kind) {
	case AN_EDGE_FALL:
	case AN_EDGE_CALLRET:
		return check_fall_edge(cfg, e, c, err);
	case AN_EDGE_TAKEN:
		return check_taken_edge(cfg, e, c, err);
	case AN_EDGE_JTAB:
		if (c != CTL_JMP)
			return bad(err, "edge %u: jump-table edge after a non-JMP", e);
		return 0;
	case AN_EDGE_EXIT:
		return check_exit_edge(cfg, e, c, err);
	default:
		return 0;
	}
}

static int check_edges(const struct an_cfg *cfg, struct ax_error *err)
{
	int ret = 0;

	for (uint32_t e = 0; e < cfg->nedges && !ret; e++) {
		ret = check_edge_ends(cfg, e, err);
		if (!ret && cfg->edge[e].from != AN_NODE_ENTRY)
			ret = check_edge_kind(cfg, e, err);
	}
	return ret;
}

/* The predecessor lists of the blocks and of EXIT hold every edge exactly once. */
static int check_preds(const struct an_cfg *cfg, uint8_t *seen, struct ax_error *err)
{
	uint32_t nb = cfg->nblocks, ne = cfg->nedges;

	for (uint32_t b = 0; b < nb; b++) {
		const struct an_block *bl = &cfg->block[b];

		for (uint32_t k = bl->pred; k < bl->pred + bl->npred; k++) {
			uint32_t e = cfg->pred[k];

			if (e >= ne || cfg->edge[e].to != b || seen[e])
				return bad(err, "block %u: bad predecessor list", b);
			seen[e] = 1;
		}
	}
	for (uint32_t k = cfg->exit_preds; k < cfg->exit_preds + cfg->nexit_preds; k++) {
		uint32_t e = cfg->pred[k];

		if (e >= ne || cfg->edge[e].to != AN_NODE_EXIT || seen[e])
			return bad(err, "bad EXIT predecessor list");
		seen[e] = 1;
	}
	for (uint32_t e = 0; e < ne; e++)
		if (!seen[e])
			return bad(err, "edge %u is in no predecessor list", e);
	return 0;
}

/* fwd[b] = 1 for every block reachable from ENTRY (q: room for nblocks + 1 entries). */
static void mark_from_entry(const struct an_cfg *cfg, uint8_t *fwd, uint32_t *q)
{
	uint32_t qh = 0, qt = 0;

	for (uint32_t e = cfg->entry_edges; e < cfg->entry_edges + cfg->nentry_edges; e++)
		if (!fwd[cfg->edge[e].to]) {
			fwd[cfg->edge[e].to] = 1;
			q[qt++] = cfg->edge[e].to;
		}
	while (qh < qt) {
		const struct an_block *bl = &cfg->block[q[qh++]];

		for (uint32_t e = bl->succ; e < bl->succ + bl->nsucc; e++) {
			uint32_t to = cfg->edge[e].to;

			if (to < cfg->nblocks && !fwd[to]) {
				fwd[to] = 1;
				q[qt++] = to;
			}
		}
	}
}

/* bwd[b] = 1 for every block that reaches EXIT. */
static void mark_to_exit(const struct an_cfg *cfg, uint8_t *bwd, uint32_t *q)
{
	uint32_t qh = 0, qt = 0;

	for (uint32_t k = cfg->exit_preds; k < cfg->exit_preds + cfg->nexit_preds; k++) {
		uint32_t f = cfg->edge[cfg->pred[k]].from;

		if (!bwd[f]) {
			bwd[f] = 1;
			q[qt++] = f;
		}
	}
	while (qh < qt) {
		const struct an_block *bl = &cfg->block[q[qh++]];

		for (uint32_t k = bl->pred; k < bl->pred + bl->npred; k++) {
			uint32_t f = cfg->edge[cfg->pred[k]].from;

			if (f < cfg->nblocks && !bwd[f]) {
				bwd[f] = 1;
				q[qt++] = f;
			}
		}
	}
}

/* Unreachable flags match reachability from ENTRY; every reachable block reaches EXIT. */
static int check_reachability(const struct an_cfg *cfg, const uint8_t *fwd, const uint8_t *bwd,
			      struct ax_error *err)
{
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		bool unr = cfg->block[b].flags & AN_BLK_UNREACHABLE;

		if (unr == (bool)fwd[b])
			return bad(err, "block %u (0x%" PRIx64 "): reachability flag is wrong", b,
				   cfg->block[b].addr);
		if (fwd[b] && !bwd[b])
			return bad(err, "block %u (0x%" PRIx64 "): reachable but cannot reach EXIT",
				   b, cfg->block[b].addr);
	}
	return 0;
}

/* Every block and edge has a class below nclasses <= blocks + edges. */
static int check_class_ranges(const struct an_cfg *cfg, struct ax_error *err)
{
	uint32_t nb = cfg->nblocks, ne = cfg->nedges;

	if (cfg->nclasses > nb + ne)
		return bad(err, "%u classes for %u blocks and %u edges", cfg->nclasses, nb, ne);
	for (uint32_t b = 0; b < nb; b++)
		if (cfg->block[b].cls >= cfg->nclasses)
			return bad(err, "block %u: class out of range", b);
	for (uint32_t e = 0; e < ne; e++)
		if (cfg->edge[e].cls >= cfg->nclasses)
			return bad(err, "edge %u: class out of range", e);
	return 0;
}

/* A reachable block with a single edge in (or out) shares that edge's class. */
static int check_class_sharing(const struct an_cfg *cfg, const uint8_t *fwd, struct ax_error *err)
{
	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];

		if (!fwd[b])
			continue;
		if (bl->npred == 1 && cfg->edge[cfg->pred[bl->pred]].cls != bl->cls)
			return bad(err, "block %u: single predecessor edge in another class", b);
		if (bl->nsucc == 1 && cfg->edge[bl->succ].cls != bl->cls)
			return bad(err, "block %u: single successor edge in another class", b);
	}
	return 0;
}

static int check_classes(const struct an_cfg *cfg, const uint8_t *fwd, struct ax_error *err)
{
	int ret;

	if (!(cfg->flags & AN_CFG_CLASSES))
		return 0;
	ret = check_class_ranges(cfg, err);
	if (ret)
		return ret;
	if (!(cfg->flags & AN_CFG_MISSING_EDGES))
		return check_class_sharing(cfg, fwd, err);
	if (cfg->nclasses != cfg->nblocks + cfg->nedges)
		return bad(err, "missing edges but classes are shared");
	return 0;
}

int an_cfg_check(const struct an_cfg *cfg, struct ax_error *err)
{
	uint32_t nb = cfg->nblocks, ne = cfg->nedges, *q;
	uint8_t *fwd, *bwd, *seen_pred;
	int ret;

	if (!nb || !cfg->ninsns)
		return bad(err, "no blocks");
	fwd = calloc(nb, 1);
	bwd = calloc(nb, 1);
	seen_pred = calloc((size_t)ne + 1, 1);
	q = malloc(((size_t)nb + 1) * sizeof(*q));
	if (!fwd || !bwd || !seen_pred || !q) {
		ret = ax_fail(err, -ENOMEM, "out of memory");
		goto out_free;
	}
	ret = check_blocks(cfg, err);
	if (!ret)
		ret = check_edges(cfg, err);
	if (!ret)
		ret = check_preds(cfg, seen_pred, err);
	if (!ret) {
		mark_from_entry(cfg, fwd, q);
		mark_to_exit(cfg, bwd, q);
		ret = check_reachability(cfg, fwd, bwd, err);
	}
	if (!ret)
		ret = check_classes(cfg, fwd, err);
out_free:
	free(fwd);
	free(bwd);
	free(seen_pred);
	free(q);
	return ret;
}
