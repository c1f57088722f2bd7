/* isa/isa_dis.c - Alpha instruction text in objdump's spelling, on top of axp_decode(). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "isa_dis.h"
#include "axp.h"

/*
 * What this file adds to the decoder (kmod/interp/decode.c) is the disassembler's view, found
 * by experiment against GNU objdump 2.40 (alpha-linux-gnu-objdump -d on every opcode and
 * function, and on random words; tests/isa/dis-sweep.sh) and consistent with the operand
 * rules of binutils' opcodes/alpha-opc.c:
 *
 *  - objdump prints the first matching form of its table, so the pseudo-ops of Alpha
 *    Architecture Handbook appendix A.4 win where their operand constraints hold (mov, clr,
 *    nop, negq, sextl, not, fmov, fabs, fneg, fclr, fnop, unop, br, jmp, ret, ...), and two
 *    aliases win over the architectural names: BIC prints as "andnot", BIS as "or", and
 *    JSR_COROUTINE as "jcr".
 *  - Operands that objdump requires to be R31/F31 (its ZA/ZB/ZC), or equal to another field,
 *    make any other encoding a ".long".
 *  - Floating-point qualifiers are accepted only in the combinations objdump lists, which are
 *    fewer than the executor accepts (QEMU decodes fn11[5:0] and checks qualifiers at run
 *    time): see fp_suffix().
 *  - The default machine has no PALcode-specific forms (hw_ld, hw_mfpr, hw_rei, ...): opcodes
 *    0x19, 0x1b, 0x1d-0x1f always print as palNN with the 26-bit function.
 */

/* osf_regnames of binutils: the Linux/OSF software names of the integer registers. */
static const char *const ireg[32] = {
	"v0", "t0", "t1",  "t2",  "t3", "t4",  "t5", "t6", "t7", "s0",	 "s1",
	"s2", "s3", "s4",  "s5",  "fp", "a0",  "a1", "a2", "a3", "a4",	 "a5",
	"t8", "t9", "t10", "t11", "ra", "t12", "at", "gp", "sp", "zero",
};

static const char *const freg[32] = {
	"$f0",	"$f1",	"$f2",	"$f3",	"$f4",	"$f5",	"$f6",	"$f7",	"$f8",	"$f9",	"$f10",
	"$f11", "$f12", "$f13", "$f14", "$f15", "$f16", "$f17", "$f18", "$f19", "$f20", "$f21",
	"$f22", "$f23", "$f24", "$f25", "$f26", "$f27", "$f28", "$f29", "$f30", "$f31",
};

#define ZERO 31

/* CALL_PAL functions objdump names (the OSF/Linux PALcode calls of Handbook part III). */
static const struct {
	uint32_t func;
	const char *name;
} pal_names[] = {
	{ 0x0000, "halt" },   { 0x0002, "draina" },  { 0x0080, "bpt" },
	{ 0x0081, "bugchk" }, { 0x0083, "callsys" }, { 0x0086, "imb" },
	{ 0x009e, "rduniq" }, { 0x009f, "wruniq" },  { 0x00aa, "gentrap" },
};

/* How objdump qualifies an FP operate instruction (fn11[10:6]: trap mode and rounding). */
enum qual {
	Q_EXACT, /* no qualifiers: fn11 must be the op's function exactly */
	Q_VAX, /* {-, u, s, su} x {c, -} */
	Q_VAX_V, /* {-, v, s, sv} x {c, -} (CVTGQ) */
	Q_VAX_C, /* /c or nothing (CVTQF, CVTQG) */
	Q_CMPG, /* nothing or /s */
	Q_IEEE, /* {-, u, su, sui} x {c, m, -, d} */
	Q_IEEE_V, /* {-, v, sv, svi} x {c, m, -, d} (CVTTQ) */
	Q_IEEE_SUI, /* {-, sui} x {c, m, -, d} (CVTQS, CVTQT) */
	Q_CMPT, /* nothing or /su */
	Q_CVTST, /* 0x2ac nothing, 0x6ac /s */
};

static const uint8_t fp_qual[AXP_OP_NR] = {
	[AXP_OP_SQRTF] = Q_VAX,	     [AXP_OP_SQRTG] = Q_VAX,	  [AXP_OP_SQRTS] = Q_IEEE,
	[AXP_OP_SQRTT] = Q_IEEE,     [AXP_OP_ADDF] = Q_VAX,	  [AXP_OP_SUBF] = Q_VAX,
	[AXP_OP_MULF] = Q_VAX,	     [AXP_OP_DIVF] = Q_VAX,	  [AXP_OP_CVTDG] = Q_VAX,
	[AXP_OP_ADDG] = Q_VAX,	     [AXP_OP_SUBG] = Q_VAX,	  [AXP_OP_MULG] = Q_VAX,
	[AXP_OP_DIVG] = Q_VAX,	     [AXP_OP_CMPGEQ] = Q_CMPG,	  [AXP_OP_CMPGLT] = Q_CMPG,
	[AXP_OP_CMPGLE] = Q_CMPG,    [AXP_OP_CVTGF] = Q_VAX,	  [AXP_OP_CVTGD] = Q_VAX,
	[AXP_OP_CVTGQ] = Q_VAX_V,    [AXP_OP_CVTQF] = Q_VAX_C,	  [AXP_OP_CVTQG] = Q_VAX_C,
	[AXP_OP_ADDS] = Q_IEEE,	     [AXP_OP_SUBS] = Q_IEEE,	  [AXP_OP_MULS] = Q_IEEE,
	[AXP_OP_DIVS] = Q_IEEE,	     [AXP_OP_ADDT] = Q_IEEE,	  [AXP_OP_SUBT] = Q_IEEE,
	[AXP_OP_MULT] = Q_IEEE,	     [AXP_OP_DIVT] = Q_IEEE,	  [AXP_OP_CMPTUN] = Q_CMPT,
	[AXP_OP_CMPTEQ] = Q_CMPT,    [AXP_OP_CMPTLT] = Q_CMPT,	  [AXP_OP_CMPTLE] = Q_CMPT,
	[AXP_OP_CVTTS] = Q_IEEE,     [AXP_OP_CVTST] = Q_CVTST,	  [AXP_OP_CVTTQ] = Q_IEEE_V,
	[AXP_OP_CVTQS] = Q_IEEE_SUI, [AXP_OP_CVTQT] = Q_IEEE_SUI,
};

/* Output buffer: appends never overrun; `full` records that something was cut. */
struct out {
	char *buf;
	size_t size;
	size_t len;
	bool full;
};

static void put(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->len + n >= o->size) {
		n = o->size - 1 - o->len;
		o->full = true;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void __attribute__((format(printf, 2, 3))) putf(struct out *o, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(o, tmp);
}

/* A code address operand: the caller's printer, or objdump's form for a file without symbols. */
static void put_addr(struct out *o, const struct isa_dis_opts *opts, uint64_t addr)
{
	char tmp[ISA_DIS_ADDR_MAX];

	if (opts && opts->addr) {
		tmp[0] = '\0';
		opts->addr(opts->priv, addr, tmp, sizeof(tmp));
		tmp[sizeof(tmp) - 1] = '\0';
		put(o, tmp);
	} else {
		putf(o, "0x%" PRIx64, addr);
	}
}

/* objdump prints unsigned operands (literals, PAL functions, RET hints) with "%#x". */
static void put_uhex(struct out *o, uint32_t v)
{
	putf(o, "%#x", v);
}

/*
 * FP qualifier suffix ("/suic", "/c", "" ...) for fn11 under rule q; false when objdump has no
 * form for that combination. Trap bits are fn11[10:8] (S, I, U/V), rounding fn11[7:6]
 * (Handbook 4.7.9; binutils lists the same combinations).
 */
static bool fp_suffix(unsigned int q, unsigned int fn11, char *sfx, size_t size)
{
	static const char *const ieee_rnd[4] = { "c", "m", "", "d" };
	unsigned int trap = fn11 & 0x700, rnd = (fn11 >> 6) & 3;
	const char *t, *r;

	switch (q) {
	case Q_VAX:
	case Q_VAX_V:
		if (rnd != 0 && rnd != 2)
			return false;
		switch (trap) {
		case 0x000:
			t = "";
			break;
		case 0x100:
			t = q == Q_VAX ? "u" : "v";
			break;
		case 0x400:
			t = "s";
			break;
		case 0x500:
			t = q == Q_VAX ? "su" : "sv";
			break;
		default:
			return false;
		}
		r = rnd == 0 ? "c" : "";
		break;
	case Q_VAX_C:
		if (trap != 0 || (rnd != 0 && rnd != 2))
			return false;
		t = "";
		r = rnd == 0 ? "c" : "";
		break;
	case Q_CMPG:
		if ((trap != 0 && trap != 0x400) || rnd != 2)
			return false;
		t = trap ? "s" : "";
		r = "";
		break;
	case Q_IEEE:
	case Q_IEEE_V:
	case Q_IEEE_SUI:
		switch (trap) {
		case 0x000:
			t = "";
			break;
		case 0x100:
			t = q == Q_IEEE ? "u" : "v";
			break;
		case 0x500:
			t = q == Q_IEEE ? "su" : "sv";
			break;
		case 0x700:
			t = q == Q_IEEE_V ? "svi" : "sui";
			break;
		default:
			return false;
		}
		if (q == Q_IEEE_SUI && trap != 0 && trap != 0x700)
			return false;
		r = ieee_rnd[rnd];
		break;
	case Q_CMPT:
		if ((trap != 0 && trap != 0x500) || rnd != 2)
			return false;
		t = trap ? "su" : "";
		r = "";
		break;
	case Q_CVTST:
		if (fn11 != 0x2ac && fn11 != 0x6ac)
			return false;
		t = fn11 == 0x6ac ? "s" : "";
		r = "";
		break;
	default:
		return false;
	}
	if (*t || *r)
		snprintf(sfx, size, "/%s%s", t, r);
	else
		sfx[0] = '\0';
	return true;
}

/* PAL-format: named calls, else call_pal with the 26-bit function. */
static bool fmt_pal(const struct axp_insn *d, struct out *o)
{
	uint32_t fn = (uint32_t)d->disp;

	for (size_t i = 0; i < sizeof(pal_names) / sizeof(pal_names[0]); i++) {
		if (pal_names[i].func == fn) {
			put(o, pal_names[i].name);
			return true;
		}
	}
	put(o, "call_pal\t");
	put_uhex(o, fn);
	return true;
}

/* Memory format: "ra,disp(rb)"; LDA/LDAH drop "(zero)"; LDQ_U to R31 is UNOP. */
static bool fmt_mem(const struct axp_insn *d, const struct axp_op_info *in, struct out *o)
{
	if (d->op == AXP_OP_LDQ_U && d->ra == ZERO) {
		put(o, "unop\t");
		return true;
	}
	put(o, in->name);
	put(o, "\t");
	put(o, (in->flags & AXP_F_FA) ? freg[d->ra] : ireg[d->ra]);
	putf(o, ",%d", (int)d->disp);
	if ((d->op == AXP_OP_LDA || d->op == AXP_OP_LDAH) && d->rb == ZERO)
		return true;
	putf(o, "(%s)", ireg[d->rb]);
	return true;
}

/* "rb,rc" or "lit,rc" (unary forms: Ra must be R31). */
static void put_opr_unary(const struct axp_insn *d, struct out *o)
{
	if (d->islit)
		put_uhex(o, d->lit);
	else
		put(o, ireg[d->rb]);
	put(o, ",");
	put(o, ireg[d->rc]);
}

static bool is_unary_neg(unsigned int op)
{
	return op == AXP_OP_SUBL || op == AXP_OP_SUBQ || op == AXP_OP_SUBLV || op == AXP_OP_SUBQV;
}

/* Operate format (0x10-0x13, 0x1c integer forms). */
static bool fmt_opr(const struct axp_insn *d, const struct axp_op_info *in, struct out *o)
{
	const char *name = in->name;

	switch (d->op) {
	case AXP_OP_IMPLVER:
		/* Only the canonical encoding: Ra = R31, literal 1 (binutils' implver form). */
		if ((d->word & 0xffffffe0u) != 0x47e03d80u)
			return false;
		put(o, "implver\t");
		put(o, ireg[d->rc]);
		return true;
	case AXP_OP_BIS:
		if (!d->islit && d->ra == ZERO && d->rb == ZERO && d->rc == ZERO) {
			put(o, "nop\t");
			return true;
		}
		if (!d->islit && d->ra == ZERO && d->rb == ZERO) {
			put(o, "clr\t");
			put(o, ireg[d->rc]);
			return true;
		}
		if (d->ra == ZERO) {
			put(o, "mov\t");
			put_opr_unary(d, o);
			return true;
		}
		if (!d->islit && d->ra == d->rb) {
			put(o, "mov\t");
			put(o, ireg[d->ra]);
			put(o, ",");
			put(o, ireg[d->rc]);
			return true;
		}
		name = "or";
		break;
	case AXP_OP_BIC:
		name = "andnot";
		break;
	default:
		break;
	}

	if (!(in->flags & AXP_F_SA)) {
		/*
		 * Unary operations (AMASK, SEXTx, CTxx, PK/UNPK): objdump wants Ra = R31, and of
		 * the 0x1c ones none has a literal form (binutils lists SEXTB/SEXTW register-only).
		 */
		if (d->ra != ZERO || (d->islit && in->opcode == 0x1c))
			return false;
		put(o, name);
		put(o, "\t");
		put_opr_unary(d, o);
		return true;
	}
	if (d->ra == ZERO) {
		const char *pseudo = NULL;

		if (d->op == AXP_OP_ADDL)
			pseudo = "sextl";
		else if (d->op == AXP_OP_ORNOT)
			pseudo = "not";
		else if (is_unary_neg(d->op))
			pseudo = d->op == AXP_OP_SUBL  ? "negl" :
				 d->op == AXP_OP_SUBQ  ? "negq" :
				 d->op == AXP_OP_SUBLV ? "negl/v" :
							 "negq/v";
		if (pseudo) {
			put(o, pseudo);
			put(o, "\t");
			put_opr_unary(d, o);
			return true;
		}
	}
	put(o, name);
	put(o, "\t");
	put(o, ireg[d->ra]);
	put(o, ",");
	if (d->islit)
		put_uhex(o, d->lit);
	else
		put(o, ireg[d->rb]);
	put(o, ",");
	put(o, ireg[d->rc]);
	return true;
}

/* FP operate (0x14-0x17) and the ITOFx/FTOIx register moves. */
static bool fmt_fp(const struct axp_insn *d, const struct axp_op_info *in, struct out *o)
{
	unsigned int op = d->op;
	char sfx[8] = "";

	switch (op) {
	case AXP_OP_ITOFS:
	case AXP_OP_ITOFF:
	case AXP_OP_ITOFT:
		if (d->fn11 != in->func || d->rb != ZERO)
			return false;
		put(o, in->name);
		put(o, "\t");
		put(o, ireg[d->ra]);
		put(o, ",");
		put(o, freg[d->rc]);
		return true;
	case AXP_OP_FTOIT:
	case AXP_OP_FTOIS:
		/* FP-format encoding: fn11 = function exactly, so no literal bit and SBZ clear. */
		if (d->fn11 != in->func || d->rb != ZERO)
			return false;
		put(o, in->name);
		put(o, "\t");
		put(o, freg[d->ra]);
		put(o, ",");
		put(o, ireg[d->rc]);
		return true;
	case AXP_OP_MT_FPCR:
	case AXP_OP_MF_FPCR:
		/* objdump's form names one register and wants it in all three fields. */
		if (d->ra != d->rb || d->ra != d->rc)
			return false;
		put(o, in->name);
		put(o, "\t");
		put(o, freg[d->ra]);
		return true;
	case AXP_OP_CPYS:
		if (d->ra == ZERO && d->rb == ZERO && d->rc == ZERO) {
			put(o, "fnop\t");
			return true;
		}
		if (d->ra == ZERO && d->rb == ZERO) {
			put(o, "fclr\t");
			put(o, freg[d->rc]);
			return true;
		}
		if (d->ra == ZERO) {
			put(o, "fabs\t");
			put(o, freg[d->rb]);
			put(o, ",");
			put(o, freg[d->rc]);
			return true;
		}
		if (d->ra == d->rb) {
			put(o, "fmov\t");
			put(o, freg[d->ra]);
			put(o, ",");
			put(o, freg[d->rc]);
			return true;
		}
		break;
	case AXP_OP_CPYSN:
		if (d->ra == d->rb) {
			put(o, "fneg\t");
			put(o, freg[d->ra]);
			put(o, ",");
			put(o, freg[d->rc]);
			return true;
		}
		break;
	default:
		break;
	}

	if (in->opcode == 0x17) {
		/* The decoder matched the whole fn11: no qualifiers beyond the name. */
	} else if (!fp_suffix(fp_qual[op], d->fn11, sfx, sizeof(sfx))) {
		return false;
	}

	if (!(in->flags & AXP_F_SA)) {
		if (d->ra != ZERO)
			return false;
		put(o, in->name);
		put(o, sfx);
		put(o, "\t");
		put(o, freg[d->rb]);
		put(o, ",");
		put(o, freg[d->rc]);
		return true;
	}
	if (d->ra == ZERO &&
	    (op == AXP_OP_SUBF || op == AXP_OP_SUBG || op == AXP_OP_SUBS || op == AXP_OP_SUBT)) {
		unsigned int q = d->fn11 & 0x7c0;
		bool vax = op == AXP_OP_SUBF || op == AXP_OP_SUBG;

		/* negf, negg (none, /s) and negs, negt (none, /su, /sui): binutils' pseudo forms. */
		if (vax ? (q == 0x080 || q == 0x480) : (q == 0x080 || q == 0x580 || q == 0x780)) {
			putf(o, "neg%c%s\t", in->name[3], sfx);
			put(o, freg[d->rb]);
			put(o, ",");
			put(o, freg[d->rc]);
			return true;
		}
	}
	put(o, in->name);
	put(o, sfx);
	put(o, "\t");
	put(o, freg[d->ra]);
	put(o, ",");
	put(o, freg[d->rb]);
	put(o, ",");
	put(o, freg[d->rc]);
	return true;
}

/* 0x18: barriers, prefetch hints, cycle counter. */
static bool fmt_misc(const struct axp_insn *d, const struct axp_op_info *in, struct out *o)
{
	switch (d->op) {
	case AXP_OP_FETCH:
	case AXP_OP_FETCH_M:
	case AXP_OP_ECB:
	case AXP_OP_WH64:
	case AXP_OP_WH64EN:
		if (d->ra != ZERO)
			return false;
		put(o, in->name);
		putf(o, "\t(%s)", ireg[d->rb]);
		return true;
	case AXP_OP_RPCC:
		put(o, "rpcc\t");
		put(o, ireg[d->ra]);
		if (d->rb != ZERO) {
			put(o, ",");
			put(o, ireg[d->rb]);
		}
		return true;
	case AXP_OP_RC:
	case AXP_OP_RS:
		put(o, in->name);
		put(o, "\t");
		put(o, ireg[d->ra]);
		return true;
	default:
		put(o, in->name);
		return true;
	}
}

static uint64_t hint_target(uint32_t word, uint64_t pc)
{
	int32_t h = (int32_t)((word & 0x3fff) << 18) >> 18;

	return pc + 4 + (uint64_t)(int64_t)h * 4;
}

static uint64_t branch_target(uint32_t word, uint64_t pc)
{
	int32_t disp = (int32_t)((word & 0x1fffff) << 11) >> 11;

	return pc + 4 + (uint64_t)(int64_t)disp * 4;
}

/* 0x1a: JMP/JSR print the hint as a code address; RET/JCR print it as a number. */
static bool fmt_jump(const struct axp_insn *d, uint64_t pc, const struct isa_dis_opts *opts,
		     struct out *o)
{
	uint32_t hint = d->word & 0x3fff;

	switch (d->op) {
	case AXP_OP_JMP:
	case AXP_OP_JSR:
		if (d->op == AXP_OP_JMP && d->ra == ZERO && hint == 0) {
			putf(o, "jmp\t(%s)", ireg[d->rb]);
			return true;
		}
		putf(o, "%s\t%s,(%s),", d->op == AXP_OP_JMP ? "jmp" : "jsr", ireg[d->ra],
		     ireg[d->rb]);
		put_addr(o, opts, hint_target(d->word, pc));
		return true;
	case AXP_OP_RET:
		if (d->word == 0x6bfa8001u) { /* ret zero,(ra),1 */
			put(o, "ret");
			return true;
		}
		putf(o, "ret\t%s,(%s),", ireg[d->ra], ireg[d->rb]);
		put_uhex(o, hint);
		return true;
	case AXP_OP_JSR_CO:
		putf(o, "jcr\t%s,(%s),", ireg[d->ra], ireg[d->rb]);
		put_uhex(o, hint);
		return true;
	default:
		return false;
	}
}

static bool fmt_branch(const struct axp_insn *d, const struct axp_op_info *in, uint64_t pc,
		       const struct isa_dis_opts *opts, struct out *o)
{
	put(o, in->name);
	put(o, "\t");
	if (d->op != AXP_OP_BR || d->ra != ZERO) {
		put(o, (in->flags & AXP_F_FA) ? freg[d->ra] : ireg[d->ra]);
		put(o, ",");
	}
	put_addr(o, opts, branch_target(d->word, pc));
	return true;
}

static bool format_insn(const struct axp_insn *d, uint64_t pc, const struct isa_dis_opts *opts,
			struct out *o)
{
	const struct axp_op_info *in;

	if (d->op == AXP_OP_INVALID)
		return false;
	in = axp_info(d);
	switch (in->fmt) {
	case AXP_FMT_PAL:
		return fmt_pal(d, o);
	case AXP_FMT_MEM:
		return fmt_mem(d, in, o);
	case AXP_FMT_MSC:
		return fmt_misc(d, in, o);
	case AXP_FMT_JMP:
		return fmt_jump(d, pc, opts, o);
	case AXP_FMT_BRA:
		return fmt_branch(d, in, pc, opts, o);
	case AXP_FMT_OPR:
		return fmt_opr(d, in, o);
	case AXP_FMT_FPO:
	case AXP_FMT_ITF:
	case AXP_FMT_FTI:
		return fmt_fp(d, in, o);
	case AXP_FMT_PCD:
		put(o, in->name);
		put(o, "\t");
		put_uhex(o, (uint32_t)d->disp);
		return true;
	default:
		return false;
	}
}

int isa_dis_format(uint32_t word, uint64_t pc, const struct isa_dis_opts *opts, char *buf,
		   size_t size)
{
	struct axp_insn d;
	struct out o = { .buf = buf, .size = size };

	if (!buf || !size)
		return -EINVAL;
	buf[0] = '\0';
	axp_decode(word, &d);
	if (!format_insn(&d, pc, opts, &o)) {
		o.len = 0;
		o.full = false;
		buf[0] = '\0';
		putf(&o, ".long %#08x", word);
	}
	return o.full ? -ENOSPC : (int)o.len;
}

bool isa_dis_is_insn(uint32_t word)
{
	char buf[ISA_DIS_TEXT_MAX];

	isa_dis_format(word, 0, NULL, buf, sizeof(buf));
	return strncmp(buf, ".long", 5) != 0;
}

bool isa_dis_code_target(uint32_t word, uint64_t pc, uint64_t *target)
{
	struct axp_insn d;

	if (!isa_dis_is_insn(word))
		return false;
	axp_decode(word, &d);
	switch (axp_info(&d)->fmt) {
	case AXP_FMT_BRA:
		*target = branch_target(word, pc);
		return true;
	case AXP_FMT_JMP:
		if (d.op == AXP_OP_JSR ||
		    (d.op == AXP_OP_JMP && !(d.ra == ZERO && !(word & 0x3fff)))) {
			*target = hint_target(word, pc);
			return true;
		}
		return false;
	default:
		return false;
	}
}

const char *isa_dis_ireg_name(unsigned int r)
{
	return ireg[r & 31];
}
