/* kmod/interp/fp_ops.c - Alpha FP operate instructions: qualifiers, FPCR, traps, hand-back. */
#include "fp.h"

/*
 * Semantics follow qemu-alpha (QEMU 7.2 linux-user); the numbered items are the reference
 * behaviour list at the top of fp.h. Translation-time structure after QEMU's
 * target/alpha/translate.c: gen_ieee_input (operand checks), gen_qual_roundmode /
 * gen_qual_flushzero (qualifiers), gen_fp_exc_raise (FPCR update and trap decision).
 */

#define T_EXP(v) ((uint32_t)((v) >> 52) & 0x7ff)
#define T_FRAC(v) ((v) & ((1ull << 52) - 1))

/* How an operation treats its operands and exceptions. */
enum kind {
	K_ARITH, /* IEEE arithmetic on T or S: operands checked without /S, result FP */
	K_CMP, /* compares: infinities pass the operand check */
	K_CVTTQ, /* operand checked, integer result */
	K_INTCVT, /* CVTQS/CVTQT: no operand check, exceptions only with /I (item 13) */
	K_CVTQL, /* exceptions per fn11, no operand check */
};

static uint64_t freg(const struct axp_ctx *ctx, unsigned int r)
{
	return r == 31 ? 0 : ctx->f[r];
}

static bool t_special(uint64_t v)
{
	return T_EXP(v) == 0x7ff || (T_EXP(v) == 0 && T_FRAC(v) != 0);
}

static bool s_special(uint64_t v)
{
	uint32_t m = axp_s_to_mem(v), e = (m >> 23) & 0xff;

	return e == 0xff || (e == 0 && (m & 0x7fffff) != 0);
}

static uint8_t rounding(uint16_t fn11, uint64_t fpcr)
{
	switch (fn11 & AXP_FN11_RM_MASK) {
	case AXP_FN11_RM_C:
		return AXP_RM_CHOPPED;
	case AXP_FN11_RM_M:
		return AXP_RM_MINUS;
	case AXP_FN11_RM_N:
		return AXP_RM_NORMAL;
	default:
		return (uint8_t)((fpcr & AXP_FPCR_DYN_MASK) >> AXP_FPCR_DYN_SHIFT);
	}
}

/* Item 4: 0 when the operand passes the check made without /S, else the trap's FPCR bits. */
static int check_operand(uint64_t v, bool is_cmp, uint64_t *fpcr_set)
{
	uint32_t e = T_EXP(v);

	if (e == 0 && T_FRAC(v) != 0) {
		*fpcr_set = 0;
		return -1;
	}
	if (e == 0x7ff && (!is_cmp || T_FRAC(v) != 0)) {
		*fpcr_set = AXP_FPCR_INV;
		return -1;
	}
	return 0;
}

/* Trap enables used under /S (item 11): the FPCR disable bits; IOV has none and never traps. */
static uint32_t enabled(uint64_t fpcr)
{
	uint32_t en = 0;

	if (!(fpcr & AXP_FPCR_INVD))
		en |= AXP_FPF_INV;
	if (!(fpcr & AXP_FPCR_DZED))
		en |= AXP_FPF_DZE;
	if (!(fpcr & AXP_FPCR_OVFD))
		en |= AXP_FPF_OVF;
	if (!(fpcr & AXP_FPCR_UNFD))
		en |= AXP_FPF_UNF;
	if (!(fpcr & AXP_FPCR_INED))
		en |= AXP_FPF_INE;
	return en;
}

/* Items 9-12: fold the raised flags into FPCR and decide the trap. AXP_FPF_x << 1 = EXC_M_x. */
static void raise_flags(uint16_t fn11, uint32_t flags, struct axp_fp_out *out)
{
	uint32_t ignore = 0, exc;

	if (!(fn11 & AXP_FN11_U))
		ignore |= AXP_FPF_UNF | AXP_FPF_IOV;
	if (!(fn11 & AXP_FN11_I))
		ignore |= AXP_FPF_INE;
	flags &= AXP_FPF_STATUS;
	exc = flags & ~ignore;
	if (!(fn11 & AXP_FN11_S)) {
		out->fpcr |= (uint64_t)flags << AXP_FPF_FPCR_SHIFT;
		if (exc) {
			out->trap = true;
			out->exc_sum = (uint64_t)exc << 1;
		}
		return;
	}
	out->fpcr |= (uint64_t)exc << AXP_FPF_FPCR_SHIFT;
	exc &= enabled(out->fpcr);
	if (exc) {
		out->trap = true;
		out->exc_sum = AXP_EXC_M_SWC | ((uint64_t)exc << 1);
	}
}

static bool fcmov_cond(unsigned int op, uint64_t a)
{
	int64_t s = (int64_t)a;

	/* Fa as a signed integer, -0 behaving as +0 (item 18; QEMU gen_fold_mzero). */
	switch (op) {
	case AXP_OP_FCMOVEQ:
		return (a << 1) == 0;
	case AXP_OP_FCMOVNE:
		return (a << 1) != 0;
	case AXP_OP_FCMOVLT:
		return (a << 1) != 0 && s < 0;
	case AXP_OP_FCMOVGE:
		return (a << 1) == 0 || s >= 0;
	case AXP_OP_FCMOVLE:
		return s <= 0;
	default: /* FCMOVGT */
		return s > 0;
	}
}

bool axp_fp_is_handled(unsigned int op)
{
	switch (op) {
	case AXP_OP_ADDS:
	case AXP_OP_SUBS:
	case AXP_OP_MULS:
	case AXP_OP_DIVS:
	case AXP_OP_ADDT:
	case AXP_OP_SUBT:
	case AXP_OP_MULT:
	case AXP_OP_DIVT:
	case AXP_OP_CMPTUN:
	case AXP_OP_CMPTEQ:
	case AXP_OP_CMPTLT:
	case AXP_OP_CMPTLE:
	case AXP_OP_CVTTS:
	case AXP_OP_CVTST:
	case AXP_OP_CVTTQ:
	case AXP_OP_CVTQS:
	case AXP_OP_CVTQT:
	case AXP_OP_SQRTS:
	case AXP_OP_SQRTT:
	case AXP_OP_ITOFS:
	case AXP_OP_ITOFT:
	case AXP_OP_CVTLQ:
	case AXP_OP_CPYS:
	case AXP_OP_CPYSN:
	case AXP_OP_CPYSE:
	case AXP_OP_MT_FPCR:
	case AXP_OP_MF_FPCR:
	case AXP_OP_FCMOVEQ:
	case AXP_OP_FCMOVNE:
	case AXP_OP_FCMOVLT:
	case AXP_OP_FCMOVGE:
	case AXP_OP_FCMOVLE:
	case AXP_OP_FCMOVGT:
	case AXP_OP_CVTQL:
	case AXP_OP_CVTQLV:
	case AXP_OP_CVTQLSV:
		return true;
	default:
		return false;
	}
}

/* The S-format arithmetic operations on binary32 images. */
static uint64_t s_arith(unsigned int op, uint64_t a, uint64_t b, struct axp_fpst *st)
{
	uint32_t x = axp_s_to_mem(a), y = axp_s_to_mem(b), r;

	switch (op) {
	case AXP_OP_ADDS:
		r = axp_f32_add(x, y, st);
		break;
	case AXP_OP_SUBS:
		r = axp_f32_sub(x, y, st);
		break;
	case AXP_OP_MULS:
		r = axp_f32_mul(x, y, st);
		break;
	case AXP_OP_DIVS:
		r = axp_f32_div(x, y, st);
		break;
	case AXP_OP_SQRTS:
		r = axp_f32_sqrt(y, st);
		break;
	case AXP_OP_CVTTS:
		r = axp_f64_to_f32(b, st);
		break;
	default: /* CVTQS */
		r = axp_i64_to_f32((int64_t)b, st);
		break;
	}
	return axp_s_from_mem(r);
}

static uint64_t t_arith(unsigned int op, uint64_t a, uint64_t b, struct axp_fpst *st)
{
	switch (op) {
	case AXP_OP_ADDT:
		return axp_f64_add(a, b, st);
	case AXP_OP_SUBT:
		return axp_f64_sub(a, b, st);
	case AXP_OP_MULT:
		return axp_f64_mul(a, b, st);
	case AXP_OP_DIVT:
		return axp_f64_div(a, b, st);
	case AXP_OP_SQRTT:
		return axp_f64_sqrt(b, st);
	case AXP_OP_CVTST:
		return axp_f32_to_f64(axp_s_to_mem(b), st);
	default: /* CVTQT */
		return axp_i64_to_f64((int64_t)b, st);
	}
}

static uint64_t compare(unsigned int op, uint64_t a, uint64_t b, struct axp_fpst *st)
{
	int r;

	switch (op) {
	case AXP_OP_CMPTUN:
		r = axp_f64_compare(a, b, true, st);
		return r == AXP_CMP_UN ? AXP_FP_TRUE : 0;
	case AXP_OP_CMPTEQ:
		r = axp_f64_compare(a, b, true, st);
		return r == AXP_CMP_EQ ? AXP_FP_TRUE : 0;
	case AXP_OP_CMPTLT:
		r = axp_f64_compare(a, b, false, st);
		return r == AXP_CMP_LT ? AXP_FP_TRUE : 0;
	default: /* CMPTLE */
		r = axp_f64_compare(a, b, false, st);
		return r == AXP_CMP_LT || r == AXP_CMP_EQ ? AXP_FP_TRUE : 0;
	}
}

/* Operations with no exceptions: moves, sign copies, FPCR access, CVTLQ. */
static void eval_move(const struct axp_ctx *ctx, const struct axp_insn *d, uint64_t a, uint64_t b,
		      struct axp_fp_out *out)
{
	const uint64_t sign = 1ull << 63, se = 0xfff0000000000000ull;

	switch (d->op) {
	case AXP_OP_ITOFS:
		out->value = axp_s_from_mem((uint32_t)(d->ra == 31 ? 0 : ctx->r[d->ra]));
		break;
	case AXP_OP_ITOFT:
		out->value = d->ra == 31 ? 0 : ctx->r[d->ra];
		break;
	case AXP_OP_CVTLQ:
		out->value = axp_cvtlq(b);
		break;
	case AXP_OP_CPYS:
		out->value = (a & sign) | (b & ~sign);
		break;
	case AXP_OP_CPYSN:
		out->value = (~a & sign) | (b & ~sign);
		break;
	case AXP_OP_CPYSE:
		out->value = (a & se) | (b & ~se);
		break;
	case AXP_OP_MT_FPCR:
		/* Item 1: the high half is kept as written. */
		out->fpcr = a & AXP_FPCR_IMPL;
		out->dest = AXP_NO_DEST;
		break;
	case AXP_OP_MF_FPCR:
		out->value = ctx->fpcr & AXP_FPCR_IMPL;
		out->dest = d->ra == 31 ? AXP_NO_DEST : d->ra;
		break;
	default: /* FCMOVxx */
		out->value = fcmov_cond(d->op, a) ? b : freg(ctx, d->rc);
		break;
	}
}

int axp_fp_eval(const struct axp_ctx *ctx, const struct axp_insn *d, struct axp_fp_out *out)
{
	uint16_t fn11 = d->fn11;
	uint64_t a = freg(ctx, d->ra), b = freg(ctx, d->rb);
	struct axp_fpst st;
	bool uses_a = false, s_in = false, s_out = false, fp_out = true;
	enum kind kind;

	if (!axp_fp_is_handled(d->op))
		return -EINVAL;
	out->value = 0;
	out->fpcr = ctx->fpcr;
	out->exc_sum = 0;
	out->dest = d->rc == 31 ? AXP_NO_DEST : d->rc;
	out->trap = false;
	out->special = false;

	switch (d->op) {
	case AXP_OP_ADDS:
	case AXP_OP_SUBS:
	case AXP_OP_MULS:
	case AXP_OP_DIVS:
		s_in = s_out = uses_a = true;
		kind = K_ARITH;
		break;
	case AXP_OP_ADDT:
	case AXP_OP_SUBT:
	case AXP_OP_MULT:
	case AXP_OP_DIVT:
		uses_a = true;
		kind = K_ARITH;
		break;
	case AXP_OP_SQRTS:
		s_in = s_out = true;
		kind = K_ARITH;
		break;
	case AXP_OP_SQRTT:
		kind = K_ARITH;
		break;
	case AXP_OP_CMPTUN:
	case AXP_OP_CMPTEQ:
	case AXP_OP_CMPTLT:
	case AXP_OP_CMPTLE:
		uses_a = true;
		fp_out = false;
		kind = K_CMP;
		break;
	case AXP_OP_CVTTS:
		s_out = true;
		kind = K_ARITH;
		break;
	case AXP_OP_CVTST:
		s_in = true;
		kind = K_ARITH;
		break;
	case AXP_OP_CVTTQ:
		fp_out = false;
		kind = K_CVTTQ;
		break;
	case AXP_OP_CVTQS:
	case AXP_OP_CVTQT:
		kind = K_INTCVT;
		break;
	case AXP_OP_CVTQL:
	case AXP_OP_CVTQLV:
	case AXP_OP_CVTQLSV:
		kind = K_CVTQL;
		break;
	default:
		eval_move(ctx, d, a, b, out);
		return 0;
	}

	/* Item 4: without /S, check Fa then Fb before computing anything. */
	if (!(fn11 & AXP_FN11_S) && kind != K_INTCVT && kind != K_CVTQL) {
		uint64_t set;

		if ((uses_a && d->ra != 31 && check_operand(a, kind == K_CMP, &set)) ||
		    (d->rb != 31 && check_operand(b, kind == K_CMP, &set))) {
			out->fpcr |= set;
			out->dest = AXP_NO_DEST;
			out->trap = true;
			out->exc_sum = AXP_EXC_M_INV;
			out->special = true;
			return 0;
		}
	}

	st.rm = rounding(fn11, ctx->fpcr);
	st.daz = (ctx->fpcr & AXP_FPCR_DNZ) != 0;
	/* Item 3: flush unless /U, and with /U when FPCR has UNFD and UNDZ. */
	st.ftz = !(fn11 & AXP_FN11_U) ||
		 ((ctx->fpcr & AXP_FPCR_UNFD) && (ctx->fpcr & AXP_FPCR_UNDZ));
	st.flags = 0;

	switch (kind) {
	case K_CMP:
		out->value = compare(d->op, a, b, &st);
		break;
	case K_CVTTQ:
		out->value = axp_cvttq(b, &st);
		break;
	case K_CVTQL:
		out->value = axp_cvtql(b, &st);
		break;
	default:
		out->value = (d->op == AXP_OP_CVTQS || s_out) ? s_arith(d->op, a, b, &st) :
								t_arith(d->op, a, b, &st);
		break;
	}

	if (kind != K_INTCVT || (fn11 & AXP_FN11_I))
		raise_flags(fn11, st.flags, out);

	/* Hand-back classification: special operands or results, or non-INE conditions. */
	if (kind != K_INTCVT && kind != K_CVTQL) {
		if ((uses_a && (t_special(a) || (s_in && s_special(a)))) || t_special(b) ||
		    (s_in && s_special(b)))
			out->special = true;
	}
	if (fp_out && (t_special(out->value) || (s_out && s_special(out->value))))
		out->special = true;
	if (st.flags & ~AXP_FPF_INE)
		out->special = true;
	if (out->trap)
		out->special = true;
	return 0;
}

int axp_fp_exec(struct axp_ctx *ctx, const struct axp_insn *d, unsigned int handback,
		struct axp_stop_info *info)
{
	struct axp_fp_out out;
	int err = axp_fp_eval(ctx, d, &out);

	if (err)
		return err;
	if ((handback & AXP_HB_FP_SPECIAL) && (out.special || out.trap))
		goto hand_back;
	if (out.trap) {
		info->reason = AXP_STOP_ARITH;
		info->exc_sum = out.exc_sum;
		info->word = d->word;
		return -EAGAIN;
	}
	if ((handback & AXP_HB_FPCR) && out.fpcr != ctx->fpcr)
		goto hand_back;
	if (out.dest != AXP_NO_DEST)
		ctx->f[out.dest] = out.value;
	ctx->fpcr = out.fpcr;
	return 0;

hand_back:
	info->reason = AXP_STOP_FP_HANDBACK;
	info->word = d->word;
	return -EAGAIN;
}
