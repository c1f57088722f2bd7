/* analysis/an_vclass.c - classify invariant instructions by why they are invariant (an_vclass.h). */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "an_vclass.h"
#include "img.h"

const char *const an_vclass_name[AN_VC_NR] = {
	[AN_VC_DATA] = "data", [AN_VC_CONST] = "constant",    [AN_VC_LITERAL] = "literal",
	[AN_VC_LINK] = "link", [AN_VC_LOOP] = "loop-control",
};

const char *const an_vsuggest_name[AN_VS_NR] = {
	[AN_VS_NONE] = "",
	[AN_VS_HOIST] = "hoist",
	[AN_VS_SPECIALISE] = "specialise",
	[AN_VS_SPECULATE] = "speculate",
};

enum { R_PV = 27, R_GP = 29, R_SP = 30, R_ZERO = 31, F_ZERO = 63, NREG = 64 };

/* What the block so far says about each register (0-31 integer, 32-63 FP). */
struct regs {
	bool cst[NREG]; /* fixed by the code: literals, r31, GP, PV at the start, their results */
	bool known[NREG]; /* and its value is known (address arithmetic only) */
	uint64_t val[NREG];
};

static unsigned int reg_a(const struct axp_insn *d, uint32_t f)
{
	return d->ra + ((f & AXP_F_FA) ? 32u : 0u);
}

static unsigned int reg_b(const struct axp_insn *d, uint32_t f)
{
	return d->rb + ((f & AXP_F_FB) ? 32u : 0u);
}

/* The register an instruction writes, or -1 (writes of r31/f31 are no writes). */
static int dest_of(const struct axp_insn *d)
{
	uint32_t f = axp_op_info[d->op].flags;
	int r = -1;

	if (f & AXP_F_DA)
		r = d->ra + ((f & AXP_F_FA) ? 32 : 0);
	else if (f & AXP_F_DC)
		r = d->rc + ((f & AXP_F_FC) ? 32 : 0);
	return (r == R_ZERO || r == F_ZERO) ? -1 : r;
}

/* Does d read register r? */
static bool reads(const struct axp_insn *d, unsigned int r)
{
	uint32_t f = axp_op_info[d->op].flags;
	unsigned int fmt = axp_op_info[d->op].fmt;

	if ((f & AXP_F_SA) && reg_a(d, f) == r)
		return true;
	if ((f & AXP_F_SB) && !(fmt == AXP_FMT_OPR && d->islit) && reg_b(d, f) == r)
		return true;
	if ((f & AXP_F_SC) && d->rc + ((f & AXP_F_FC) ? 32u : 0u) == r)
		return true;
	if ((f & AXP_F_ST) && reg_a(d, f) == r) /* a store reads its data register */
		return true;
	return false;
}

/* The section of a literal: read-only, the GOT, or relocated read-only data. */
static bool literal_section(const struct img *elf, uint64_t addr)
{
	const struct img_section *s = elf ? img_section_at(elf, addr) : NULL;

	if (!s)
		return false;
	if (!(s->flags & SHF_WRITE))
		return true;
	return s->name && (!strncmp(s->name, ".got", 4) || !strncmp(s->name, ".data.rel.ro", 12));
}

/* A load's address, when the block's code fixes it. */
static bool load_addr(const struct regs *rs, const struct axp_insn *d, uint64_t *addr)
{
	if (!rs->known[d->rb])
		return false;
	*addr = rs->val[d->rb] + (uint64_t)(int64_t)d->disp;
	return true;
}

/* Are all of d's inputs fixed by the code? (Loads: only literal ones, decided by the caller.)
 * Reads of machine state (the FPCR, the cycle counter, RC/RS) are data whatever their operands. */
static bool inputs_const(const struct regs *rs, const struct axp_insn *d)
{
	uint32_t f = axp_op_info[d->op].flags;
	unsigned int fmt = axp_op_info[d->op].fmt;

	if (fmt == AXP_FMT_MSC || fmt == AXP_FMT_PAL || d->op == AXP_OP_MF_FPCR)
		return false;
	if ((f & AXP_F_SA) && !rs->cst[reg_a(d, f)])
		return false;
	if ((f & AXP_F_SB) && !(fmt == AXP_FMT_OPR && d->islit) && !rs->cst[reg_b(d, f)])
		return false;
	if ((f & AXP_F_SC) && !rs->cst[d->rc + ((f & AXP_F_FC) ? 32u : 0u)])
		return false;
	return true;
}

/* Effect of d (at pc) on what the block knows. */
static void step(struct regs *rs, const struct img *elf, const struct axp_insn *d, uint64_t pc)
{
	uint32_t f = axp_op_info[d->op].flags;
	unsigned int fmt = axp_op_info[d->op].fmt;
	int r = dest_of(d);
	uint64_t b, addr;
	bool cst, known = false;
	uint64_t v = 0;

	if (r < 0)
		return;
	if (fmt == AXP_FMT_BRA || fmt == AXP_FMT_JMP) { /* a link: pc + 4 */
		cst = known = true;
		v = pc + 4;
	} else if (d->op == AXP_OP_LDA || d->op == AXP_OP_LDAH) {
		cst = rs->cst[d->rb];
		known = rs->known[d->rb];
		v = rs->val[d->rb] +
		    (uint64_t)((int64_t)d->disp * (d->op == AXP_OP_LDAH ? 65536 : 1));
	} else if (f & AXP_F_LD) {
		cst = !(f & AXP_F_LOCK) && load_addr(rs, d, &addr) && literal_section(elf, addr);
	} else {
		cst = inputs_const(rs, d);
		if (cst && fmt == AXP_FMT_OPR && rs->known[d->ra] &&
		    (d->islit || rs->known[d->rb])) {
			b = d->islit ? d->lit : rs->val[d->rb];
			known = true;
			if (d->op == AXP_OP_ADDQ)
				v = rs->val[d->ra] + b;
			else if (d->op == AXP_OP_SUBQ)
				v = rs->val[d->ra] - b;
			else if (d->op == AXP_OP_BIS)
				v = rs->val[d->ra] | b;
			else
				known = false;
		}
	}
	rs->cst[r] = cst;
	rs->known[r] = cst && known;
	rs->val[r] = v;
}

static bool is_compare(unsigned int op)
{
	switch (op) {
	case AXP_OP_CMPEQ:
	case AXP_OP_CMPLT:
	case AXP_OP_CMPLE:
	case AXP_OP_CMPULT:
	case AXP_OP_CMPULE:
	case AXP_OP_CMPBGE:
	case AXP_OP_CMPTEQ:
	case AXP_OP_CMPTLT:
	case AXP_OP_CMPTLE:
	case AXP_OP_CMPTUN:
		return true;
	default:
		return false;
	}
}

/* Can block `from` reach block `to` along the CFG's edges? (Iterative search, seen[] scratch.) */
static bool reaches(const struct an_cfg *cfg, uint32_t from, uint32_t to, uint8_t *seen,
		    uint32_t *stack)
{
	uint32_t sp = 0;

	memset(seen, 0, cfg->nblocks);
	stack[sp++] = from;
	seen[from] = 1;
	while (sp) {
		const struct an_block *b = &cfg->block[stack[--sp]];

		for (uint32_t e = b->succ; e < b->succ + b->nsucc; e++) {
			uint32_t t = cfg->edge[e].to;

			if (t == to)
				return true;
			if (t >= cfg->nblocks || seen[t])
				continue;
			seen[t] = 1;
			stack[sp++] = t;
		}
	}
	return from == to;
}

/* Does the conditional branch ending block bi control a loop (an_vclass.h's rule)? */
static bool loop_branch(const struct an_cfg *cfg, uint32_t bi)
{
	const struct an_block *b = &cfg->block[bi];
	uint32_t succ[2], ns = 0, back = 0;
	uint8_t *seen;
	uint32_t *stack;
	bool found = false;

	for (uint32_t e = b->succ; e < b->succ + b->nsucc && ns < 2; e++) {
		uint32_t t = cfg->edge[e].to;

		if (t >= cfg->nblocks)
			continue;
		if (cfg->block[t].addr <= b->addr)
			return true; /* the latch of a loop */
		succ[ns++] = t;
	}
	if (ns < 1)
		return false;
	seen = malloc(cfg->nblocks);
	stack = malloc(sizeof(*stack) * (cfg->nblocks + 1));
	if (seen && stack) {
		for (uint32_t k = 0; k < ns; k++)
			back += reaches(cfg, succ[k], bi, seen, stack);
		/* exactly one way leads back: the other leaves the loop (an exit with both
		 * successors inside a block's own loop is a branch inside the loop) */
		found = back == 1 && (ns == 2 || b->nsucc > ns);
	}
	free(seen);
	free(stack);
	return found;
}

/* Is the compare at index i the input of its block's final conditional branch? */
static bool feeds_branch(const struct an_cfg *cfg, const struct an_block *b, uint32_t i, int r)
{
	uint32_t last = b->first + b->n - 1;
	const struct axp_insn *br = &cfg->insn[last];

	if (axp_op_info[br->op].fmt != AXP_FMT_BRA || axp_op_info[br->op].unit == AXP_U_JSR ||
	    br->op == AXP_OP_BR || !reads(br, (unsigned int)r))
		return false;
	for (uint32_t k = i + 1; k < last; k++)
		if (dest_of(&cfg->insn[k]) == r)
			return false;
	return true;
}

/* The instruction at i and, through the rest of its block, every instruction using its result
 * or a dependant's (until overwritten). */
static uint32_t dependants(const struct an_cfg *cfg, const struct an_block *b, uint32_t i,
			   uint32_t *dep, uint32_t maxdep)
{
	bool live[NREG] = { false };
	uint32_t n = 0;
	int r = dest_of(&cfg->insn[i]);

	if (maxdep)
		dep[0] = i;
	n = 1;
	if (r < 0)
		return n;
	live[r] = true;
	for (uint32_t k = i + 1; k < b->first + b->n; k++) {
		const struct axp_insn *d = &cfg->insn[k];
		bool uses = false;
		int w = dest_of(d);

		for (unsigned int x = 0; x < NREG && !uses; x++)
			uses = live[x] && reads(d, x);
		if (uses) {
			if (n < maxdep)
				dep[n] = k;
			n++;
		}
		if (w >= 0)
			live[w] = uses;
	}
	return n;
}

/* The argument register (a0-a5, f16-f21) that d's value comes from, directly or through the
 * instructions before it in the procedure's entry block (none overwriting it first): the
 * procedure's own argument; -1 if none. */
static int argument_read(const struct an_cfg *cfg, const struct an_block *b, uint32_t i)
{
	int from[NREG]; /* the argument a register's value derives from, or -1 */

	if (b->addr != cfg->start)
		return -1;
	for (unsigned int r = 0; r < NREG; r++)
		from[r] = ((r >= 16 && r <= 21) || (r >= 48 && r <= 53)) ? (int)r : -1;
	for (uint32_t k = b->first; k <= i; k++) {
		const struct axp_insn *d = &cfg->insn[k];
		int arg = -1, w = dest_of(d);

		for (unsigned int r = 0; r < NREG && arg < 0; r++)
			if (from[r] >= 0 && reads(d, r))
				arg = from[r];
		if (k == i)
			return arg;
		if (w >= 0)
			from[w] = (axp_op_info[d->op].flags & AXP_F_LD) ? -1 : arg;
	}
	return -1;
}

int an_vclass(const struct an_cfg *cfg, const struct img *elf, uint64_t addr, struct an_vinfo *out,
	      uint32_t *dep, uint32_t maxdep)
{
	const struct an_proc *p = cfg->proc;
	const struct an_block *b;
	const struct axp_insn *d;
	struct regs rs;
	uint32_t i, bi, f;
	unsigned int fmt;
	int r, arg;

	memset(out, 0, sizeof(*out));
	if (addr < cfg->start || (addr - cfg->start) / 4 >= cfg->ninsns || (addr & 3))
		return -EINVAL;
	i = (uint32_t)((addr - cfg->start) / 4);
	bi = cfg->blk_of[i];
	b = &cfg->block[bi];
	d = &cfg->insn[i];
	f = axp_op_info[d->op].flags;
	fmt = axp_op_info[d->op].fmt;
	r = dest_of(d);

	memset(&rs, 0, sizeof(rs));
	rs.cst[R_ZERO] = rs.known[R_ZERO] = rs.cst[F_ZERO] = true;
	rs.cst[R_SP] = true; /* a frame address: fixed while the procedure runs (value unknown) */
	if (p->flags & (AN_PROC_GP | AN_PROC_GP_INHERITED)) {
		rs.cst[R_GP] = rs.known[R_GP] = true;
		rs.val[R_GP] = p->gp;
	}
	if (b->addr == p->start) { /* PV holds the procedure's address on entry */
		rs.cst[R_PV] = rs.known[R_PV] = true;
		rs.val[R_PV] = p->start;
	}
	for (uint32_t k = b->first; k < i; k++)
		step(&rs, elf, &cfg->insn[k], cfg->start + 4ull * k);

	out->ndep = dependants(cfg, b, i, dep, maxdep);
	if (fmt == AXP_FMT_BRA || fmt == AXP_FMT_JMP) {
		out->cls = AN_VC_LINK;
	} else if (r == R_GP) {
		out->cls = AN_VC_CONST; /* GP set-up after entry or a call */
	} else if (f & AXP_F_LD) {
		uint64_t a;

		out->cls = !(f & AXP_F_LOCK) && load_addr(&rs, d, &a) && literal_section(elf, a) ?
				   AN_VC_LITERAL :
				   AN_VC_DATA;
	} else if (r >= 0 && is_compare(d->op) && feeds_branch(cfg, b, i, r) &&
		   loop_branch(cfg, bi)) {
		out->cls = AN_VC_LOOP;
	} else if (d->op == AXP_OP_LDA || d->op == AXP_OP_LDAH) {
		out->cls = rs.cst[d->rb] ? AN_VC_CONST : AN_VC_DATA;
	} else {
		out->cls = inputs_const(&rs, d) ? AN_VC_CONST : AN_VC_DATA;
	}
	if (out->cls != AN_VC_DATA)
		return 0;
	arg = argument_read(cfg, b, i);
	if (f & AXP_F_LD) {
		out->suggest = AN_VS_HOIST;
	} else if (arg >= 0) {
		out->suggest = AN_VS_SPECIALISE;
		out->arg = (uint8_t)arg;
	} else {
		out->suggest = AN_VS_SPECULATE;
	}
	return 0;
}
