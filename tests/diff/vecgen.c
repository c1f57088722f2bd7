/* tests/diff/vecgen.c - deterministic generator of differential-test vectors (format: diffvec.h). */
/*
 * vecgen [--seed S] [-n N] [--first K] [--op NAME] [--kind op|pair|random|badfn]
 *
 * Writes N struct dv_vec records to stdout, numbered K .. K+N-1. Vector i depends only on (S, i),
 * so `vecgen --seed S --first i -n 1` regenerates vector i of any run. Without --op/--kind the
 * vectors cycle through a schedule of 20:
 *
 *   16 single operations, round robin over every op in ops.def except CALL_PAL and the
 *      PAL-reserved opcodes (IEEE ops weighted x3, square roots and CVTQL x2). The n-th vector
 *      of an IEEE op uses qualifier combination n % 32 and, for /D, FPCR rounding mode
 *      n / 32 % 4, so a 20,000-vector run covers every combination.
 *    2 sequences of 2-4 instructions: LDx_L + STx_C (same/other address, size, base), LDx_L + X +
 *      STx_C (X stores the same or another value, elsewhere, a byte, moves the reservation,
 *      or is a second STx_C), RS/RC pairs, MT_FPCR + an IEEE op with /D, an IEEE op + MF_FPCR,
 *      a store + a nearby load, and 2-4 arbitrary ops (control transfers only first).
 *    1 bad encoding: a defined opcode with an undefined function, or a defined op with a field
 *      that must be 31 (or a literal form that does not exist).
 *    1 random word (CALL_PAL and the PAL-reserved opcodes excluded).
 *
 * Operands come from edge-value pools: integers (0, +-1, INT64_MIN/MAX, 32-bit boundaries, byte
 * and word lane patterns, shift counts with garbage above), T and S floating values (+-0, +-inf,
 * qNaN/sNaN with payloads, denormals, min/max normal, S limits, values at or next to rounding
 * boundaries, integers and half-integers for CVTTQ, S values with low bits set), FPCR values
 * (every dynamic mode, trap disables, status bits, DNZ/UNDZ/DNOD, reserved bits), literals.
 * Registers alias (Ra == Rb == Rc) now and then; R31/F31 appear as sources and destinations.
 * Memory operands aim at every alignment in the data window, across its end into the read-only
 * page, into that page, the code page, the guards and unmapped space. Vectors that could loop
 * forever or touch the runner's own memory are regenerated (unsafe()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diffgen.h"

#define SCHED_LEN 20
#define SCHED_OPS 16

struct gen {
	struct dg_rng g;
	struct dv_vec *v;
	long occ; /* the how-many-th vector of its op in the schedule (-1: not scheduled) */
};

static uint16_t op_list[4 * AXP_OP_NR];
static unsigned int n_list;
static uint16_t op_first[AXP_OP_NR], op_weight[AXP_OP_NR]; /* each op's run in op_list */

/* ------------------------------------------------------------------------------------------ */
/* Value pools. */

static const uint64_t int_edge[] = {
	0,
	1,
	2,
	3,
	~0ull,
	~1ull,
	0x8000000000000000ull,
	0x7fffffffffffffffull,
	0x8000000000000001ull,
	0x7ffffffffffffffeull,
	0x7fffffffull,
	0x80000000ull,
	0xffffffffull,
	0x100000000ull,
	0xffffffff80000000ull,
	0xffffffff7fffffffull,
	0x7fffffff80000000ull,
	0x80000001ull,
	0x7ffffffeull,
	0xfffffffeull,
	0x0123456789abcdefull,
	0xfedcba9876543210ull,
	0x8080808080808080ull,
	0x7f7f7f7f7f7f7f7full,
	0x00ff00ff00ff00ffull,
	0xff00ff00ff00ff00ull,
	0x0101010101010101ull,
	0xffff0000ffff0000ull,
	0x0000ffff0000ffffull,
	0x8000800080008000ull,
	0x7fff7fff7fff7fffull,
	0xb504f333ull,
	0xb504f334ull,
	0xb504f333f9de6484ull,
	0x100000001ull,
	0xffffffffffffull,
	0x00000000ffff8000ull,
	0xffffffffffff8000ull,
	0x0000000000007fffull,
	0xffffffffffffff80ull,
	0x000000000000007full,
};

static uint64_t int_val(struct dg_rng *g)
{
	static const uint8_t bytes[] = { 0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff };
	static const uint16_t lanes[] = { 0x0000, 0x0001, 0x7fff, 0x8000, 0xffff, 0x00ff, 0xff00 };
	uint64_t x = 0;
	int i;

	switch (dg_below(g, 12)) {
	case 0:
	case 1:
	case 2:
		return int_edge[dg_below(g, sizeof(int_edge) / sizeof(int_edge[0]))];
	case 3:
		return dg_below(g, 72);
	case 4: /* a shift count with garbage above it */
		return (dg_next(g) & ~63ull) | dg_below(g, 64);
	case 5:
		for (i = 0; i < 8; i++)
			x |= (uint64_t)(dg_chance(g, 70) ? bytes[dg_below(g, 6)] :
							   (uint8_t)dg_next(g))
			     << (8 * i);
		return x;
	case 6:
		for (i = 0; i < 4; i++)
			x |= (uint64_t)(dg_chance(g, 75) ? lanes[dg_below(g, 7)] :
							   (uint16_t)dg_next(g))
			     << (16 * i);
		return x;
	case 7:
		x = 1ull << dg_below(g, 64);
		switch (dg_below(g, 4)) {
		case 0:
			return x;
		case 1:
			return ~x;
		case 2:
			return x - 1;
		default:
			return -x;
		}
	case 8:
		x = dg_next(g);
		return dg_chance(g, 50) ? (uint64_t)(int64_t)(int32_t)x : (uint32_t)x;
	case 9:
		return int_edge[dg_below(g, sizeof(int_edge) / sizeof(int_edge[0]))] +
		       (uint64_t)(int64_t)((int)dg_below(g, 9) - 4);
	default:
		return dg_next(g);
	}
}

static uint8_t lit_val(struct dg_rng *g)
{
	static const uint8_t edge[] = { 0,  1,	2,  3,	4,  7,	 8,   15, 16,
					31, 32, 33, 63, 64, 127, 128, 255 };

	if (dg_chance(g, 50))
		return edge[dg_below(g, sizeof(edge))];
	return (uint8_t)dg_next(g);
}

static const uint64_t t_edge[] = {
	0x0000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
	0x4000000000000000ull, 0x3fe0000000000000ull, 0x3ff8000000000000ull, 0x4004000000000000ull,
	0x400c000000000000ull, 0xc004000000000000ull, 0xbfe0000000000000ull, 0x7ff0000000000000ull,
	0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff8000000000123ull,
	0x7ff4000000000000ull, 0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7fffffffffffffffull,
	0x0000000000000001ull, 0x000fffffffffffffull, 0x8000000000000001ull, 0x800fffffffffffffull,
	0x0008000000000000ull, 0x0010000000000000ull, 0x8010000000000000ull, 0x0010000000000001ull,
	0x7fefffffffffffffull, 0xffefffffffffffffull, 0x4330000000000000ull, 0x4340000000000000ull,
	0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43f0000000000000ull, 0x43dfffffffffffffull,
	0xc3dfffffffffffffull, 0xc3e0000000000001ull, 0x43e0000000000001ull, 0x47efffffe0000000ull,
	0x47efffffefffffffull, 0x47effffff0000000ull, 0x47f0000000000000ull, 0x3810000000000000ull,
	0x380fffffffffffffull, 0x36a0000000000000ull, 0x3690000000000000ull, 0x36a8000000000000ull,
	0x3800000000000000ull, 0x3ff0000000000001ull, 0x3fefffffffffffffull, 0x3ff0000010000000ull,
	0x3ff0000008000000ull, 0x3ff0000018000000ull, 0x41dfffffffc00000ull, 0xc1e0000000000000ull,
	0x41e0000000000000ull, 0x3cb0000000000000ull, 0x3ca0000000000000ull, 0x0000000000000800ull,
};

static uint64_t t_val(struct dg_rng *g)
{
	uint64_t sign = dg_chance(g, 50) ? 1ull << 63 : 0;
	uint64_t exp, frac = dg_next(g) & 0xfffffffffffffull;
	unsigned int k;

	switch (dg_below(g, 9)) {
	case 0:
	case 1:
	case 2:
		return t_edge[dg_below(g, sizeof(t_edge) / sizeof(t_edge[0]))];
	case 3:
		return dg_next(g);
	case 4: /* ordinary magnitudes */
		exp = 1023 - 64 + dg_below(g, 128);
		return sign | exp << 52 | frac;
	case 5: /* fractions near a rounding boundary (of T, or of S at bit 29) */
		exp = 1023 - 70 + dg_below(g, 140);
		k = dg_chance(g, 50) ? 28 + dg_below(g, 3) : dg_below(g, 3);
		frac &= ~((2ull << k) - 1);
		switch (dg_below(g, 4)) {
		case 0:
			frac |= 1ull << k; /* exactly half (relative to bit k+1) */
			break;
		case 1:
			frac |= (1ull << k) - 1; /* just below half */
			break;
		case 2:
			frac |= (1ull << k) + 1; /* just above half */
			break;
		default:
			frac |= (2ull << k) - 1;
			break;
		}
		return sign | exp << 52 | (frac & 0xfffffffffffffull);
	case 6: { /* exponent extremes */
		static const uint64_t e[] = { 0,     1,	    2,	   0x7fd, 0x7fe, 0x7ff,
					      0x36a, 0x380, 0x381, 0x47e, 0x47f };

		exp = e[dg_below(g, sizeof(e) / sizeof(e[0]))];
		if (dg_chance(g, 30))
			frac >>= dg_below(g, 52);
		return sign | exp << 52 | frac;
	}
	case 7: { /* integers and half-integers, for CVTTQ */
		double d;
		uint64_t bits;
		int64_t i = (int64_t)int_val(g);

		if (dg_chance(g, 50))
			i >>= dg_below(g, 60);
		d = (double)i;
		if (dg_chance(g, 40))
			d += dg_chance(g, 50) ? 0.5 : -0.5;
		memcpy(&bits, &d, 8);
		return bits;
	}
	default: /* powers of two and their neighbours */
		exp = dg_below(g, 0x800);
		switch (dg_below(g, 3)) {
		case 0:
			return sign | exp << 52;
		case 1:
			return sign | exp << 52 | 1;
		default:
			return (sign | exp << 52) - 1;
		}
	}
}

/* Register form of an S_floating memory word (the LDS mapping, Handbook 4.7.5.2). */
static uint64_t s_to_reg(uint32_t f)
{
	uint64_t sign = f >> 31, exp8 = (f >> 23) & 0xff, frac = f & 0x7fffff, exp;

	if (exp8 == 0xff)
		exp = 0x7ff;
	else if (exp8 == 0)
		exp = 0;
	else
		exp = exp8 + 1023 - 127;
	return sign << 63 | exp << 52 | frac << 29;
}

static const uint32_t s_edge[] = {
	0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
	0xffc00000, 0x7fa00000, 0x7f800001, 0x00000001, 0x007fffff, 0x80000001, 0x00800000,
	0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800001, 0x4b000000, 0x4b800000, 0x5f000000,
	0xdf000000, 0x4f000000, 0x3fc00000, 0x40200000, 0x3f7fffff, 0x00400000, 0x0c000000,
};

static uint32_t s_mem_val(struct dg_rng *g)
{
	switch (dg_below(g, 4)) {
	case 0:
	case 1:
		return s_edge[dg_below(g, sizeof(s_edge) / sizeof(s_edge[0]))];
	case 2:
		return (uint32_t)dg_next(g);
	default:
		return (uint32_t)(dg_next(g) & 0x807fffff) | (127 - 30 + dg_below(g, 60)) << 23;
	}
}

static uint64_t s_val(struct dg_rng *g)
{
	uint64_t x;

	switch (dg_below(g, 8)) {
	case 0:
	case 1:
	case 2:
	case 3:
	case 4:
		return s_to_reg(s_mem_val(g));
	case 5: /* a T value within S range, with fraction bits below S precision */
		x = dg_next(g) & 0x800fffffffffffffull;
		return x | (uint64_t)(1023 - 126 + dg_below(g, 254)) << 52;
	case 6: /* S value with its low 29 bits set (non-canonical register contents) */
		return s_to_reg(s_mem_val(g)) | (dg_next(g) & 0x1fffffff);
	default:
		return t_val(g);
	}
}

static uint64_t fp_any(struct dg_rng *g)
{
	switch (dg_below(g, 3)) {
	case 0:
		return t_val(g);
	case 1:
		return s_val(g);
	default:
		return int_val(g);
	}
}

/* FPCR: dynamic rounding mode, trap disables, status bits, DNZ/UNDZ; low 32 bits zero (QEMU
 * keeps FPCR[63:32] only). */
static uint64_t fpcr_val(struct dg_rng *g)
{
	static const unsigned int dis[] = { 62, 61, 51, 50, 49 };
	static const unsigned int st[] = { 57, 56, 55, 54, 53, 52 };
	uint64_t x = (uint64_t)dg_below(g, 4) << 58;
	unsigned int i;

	if (dg_chance(g, 35)) {
		for (i = 0; i < 5; i++)
			x |= 1ull << dis[i];
	} else if (dg_chance(g, 60)) {
		for (i = 0; i < 5; i++)
			if (dg_chance(g, 50))
				x |= 1ull << dis[i];
	}
	if (dg_chance(g, 20))
		x |= 1ull << 60; /* UNDZ */
	if (dg_chance(g, 20))
		x |= 1ull << 48; /* DNZ */
	if (dg_chance(g, 10))
		x |= 1ull << 47; /* DNOD */
	if (dg_chance(g, 25))
		for (i = 0; i < 6; i++)
			if (dg_chance(g, 40))
				x |= 1ull << st[i];
	if (dg_chance(g, 10))
		x |= 1ull << 63; /* SUM */
	if (dg_chance(g, 5))
		x |= dg_next(g) & 0x00007fff00000000ull; /* reserved bits */
	return x;
}

/* ------------------------------------------------------------------------------------------ */
/* Operands. */

static unsigned int pick_reg(struct dg_rng *g)
{
	return dg_chance(g, 8) ? 31 : dg_below(g, 31);
}

/* Three register fields with aliasing now and then. */
static void pick_regs(struct dg_rng *g, unsigned int *a, unsigned int *b, unsigned int *c)
{
	*a = pick_reg(g);
	*b = pick_reg(g);
	*c = pick_reg(g);
	switch (dg_below(g, 12)) {
	case 0:
		*b = *c = *a;
		break;
	case 1:
		*b = *a;
		break;
	case 2:
		*c = *a;
		break;
	case 3:
		*c = *b;
		break;
	default:
		break;
	}
}

static void set_r(struct dv_vec *v, unsigned int r, uint64_t x)
{
	if (r < 31)
		v->r[r] = x;
}

static void set_f(struct dv_vec *v, unsigned int r, uint64_t x)
{
	if (r < 31)
		v->f[r] = x;
}

static uint32_t enc_mem(unsigned int opc, unsigned int ra, unsigned int rb, int32_t disp)
{
	return opc << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xffff);
}

static uint32_t enc_opr(unsigned int opc, unsigned int ra, unsigned int rb, bool islit,
			unsigned int lit, unsigned int fn7, unsigned int rc)
{
	if (islit)
		return opc << 26 | ra << 21 | lit << 13 | 1u << 12 | fn7 << 5 | rc;
	return opc << 26 | ra << 21 | rb << 16 | fn7 << 5 | rc;
}

static uint32_t enc_fpo(unsigned int opc, unsigned int fa, unsigned int fb, unsigned int fn11,
			unsigned int fc)
{
	return opc << 26 | fa << 21 | fb << 16 | (fn11 & 0x7ff) << 5 | fc;
}

/* An effective address for a memory access of `size` bytes: mostly in the data window at every
 * alignment, sometimes straddling into the read-only page, in it, in the code page, or in no
 * mapping at all. */
static uint64_t pick_ea(struct dg_rng *g, unsigned int size)
{
	unsigned int p = dg_below(g, 100), off;

	if (size == 0)
		size = 1;
	if (p < 62) {
		off = dg_below(g, DV_WIN_SIZE - size + 1);
		if (dg_chance(g, 55))
			off &= ~(size - 1);
		return DV_WIN + off;
	}
	if (p < 68)
		return DV_WIN + DV_WIN_SIZE - 1 - dg_below(g, size > 1 ? size - 1 : 1);
	if (p < 77)
		return DV_RO_BASE + (dg_below(g, 512) & (dg_chance(g, 60) ? ~(size - 1) : ~0u));
	if (p < 81)
		return DV_CODE_BASE +
		       (dg_chance(g, 50) ? DV_SLOT - DV_CODE_BASE : dg_below(g, DV_PAGE));
	if (p < 88)
		return DV_RO_BASE + DV_PAGE + dg_below(g, 256);
	if (p < 92)
		return DV_DATA_BASE - 1 - dg_below(g, 64);
	if (p < 96)
		return dg_below(g, 8192);
	return dg_next(g);
}

static int32_t pick_disp16(struct dg_rng *g)
{
	switch (dg_below(g, 10)) {
	case 0:
	case 1:
	case 2:
		return 0;
	case 3:
	case 4:
	case 5:
	case 6:
		return (int32_t)dg_below(g, 129) - 64;
	default:
		return (int16_t)dg_next(g);
	}
}

/* Aim a memory instruction (ra, rb, disp) at a chosen address and seed the data there. */
static uint32_t gen_mem(struct gen *G, unsigned int op, unsigned int ra, unsigned int rb)
{
	struct dg_rng *g = &G->g;
	struct dv_vec *v = G->v;
	const struct axp_op_info *in = &axp_op_info[op];
	unsigned int size = axp_mem_size(in->flags);
	int32_t disp = pick_disp16(g);
	uint64_t ea = pick_ea(g, size);

	if (op == AXP_OP_LDA || op == AXP_OP_LDAH) {
		set_r(v, rb, int_val(g));
		return enc_mem(in->opcode, ra, rb, (int16_t)dg_next(g));
	}
	if (rb == 31)
		ea = (uint64_t)(int64_t)disp;
	else
		set_r(v, rb, ea - (uint64_t)(int64_t)disp);
	if ((in->flags & AXP_F_LD) && ea >= DV_WIN && ea - DV_WIN <= DV_WIN_SIZE - size &&
	    dg_chance(g, 60)) {
		uint8_t *m = v->mem + (ea - DV_WIN);
		uint64_t x;

		if (op == AXP_OP_LDS || op == AXP_OP_LDF) {
			uint32_t w = s_mem_val(g);

			memcpy(m, &w, 4);
		} else {
			x = (op == AXP_OP_LDT || op == AXP_OP_LDG) ? t_val(g) : int_val(g);
			memcpy(m, &x, size);
		}
	}
	if (in->flags & AXP_F_ST) {
		if (in->flags & AXP_F_FA)
			set_f(v, ra, op == AXP_OP_STS ? s_val(g) : fp_any(g));
		else if (ra != rb)
			set_r(v, ra, int_val(g));
	}
	return enc_mem(in->opcode, ra, rb, disp);
}

/* A code address for a control transfer: a landing pad, never one of the vector's slots. */
static uint64_t pick_pad(struct dg_rng *g)
{
	uint64_t a;

	do
		a = DV_CODE_BASE + 4ull * dg_below(g, DV_PAGE / 4);
	while (a >= DV_SLOT && a < DV_SLOT + 4 * DV_MAX_INSN);
	return a;
}

/* A branch-condition operand: zero, +-0.0, odd/even, negative, NaN... */
static uint64_t cond_val(struct dg_rng *g, bool fp)
{
	static const uint64_t fv[] = { 0,
				       0x8000000000000000ull,
				       0x3ff0000000000000ull,
				       0xbff0000000000000ull,
				       0x7ff8000000000000ull,
				       0xfff8000000000000ull,
				       0x0000000000000001ull,
				       0x8000000000000001ull };

	if (dg_chance(g, 50))
		return fp ? fv[dg_below(g, 8)] : (uint64_t)(int64_t)((int)dg_below(g, 5) - 2);
	return fp ? fp_any(g) : int_val(g);
}

static unsigned int fp_quals(struct dg_rng *g)
{
	return dg_below(g, 32) << 6;
}

/* Source value for an FP operand of operation op. */
static uint64_t fp_src(struct dg_rng *g, unsigned int op)
{
	switch (op) {
	case AXP_OP_ADDS:
	case AXP_OP_SUBS:
	case AXP_OP_MULS:
	case AXP_OP_DIVS:
	case AXP_OP_SQRTS:
	case AXP_OP_CVTST:
		return dg_chance(g, 80) ? s_val(g) : fp_any(g);
	case AXP_OP_CVTQS:
	case AXP_OP_CVTQT:
	case AXP_OP_CVTQL:
	case AXP_OP_CVTQLV:
	case AXP_OP_CVTQLSV:
	case AXP_OP_CVTLQ:
		return dg_chance(g, 75) ? int_val(g) : fp_any(g);
	case AXP_OP_MT_FPCR:
		return dg_chance(g, 70) ? fpcr_val(g) | (dg_chance(g, 30) ? dg_next(g) >> 32 : 0) :
					  fp_any(g);
	default:
		if (axp_op_info[op].opcode == 0x16 || op == AXP_OP_SQRTT)
			return dg_chance(g, 80) ? t_val(g) : fp_any(g);
		return fp_any(g);
	}
}

/* For binary IEEE ops, make b close to a so that rounding is exercised. */
static void near_operands(struct dg_rng *g, unsigned int op, uint64_t *a, uint64_t *b)
{
	uint64_t e = (*a >> 52) & 0x7ff;
	unsigned int sh = dg_below(g, 30);

	if (e == 0 || e == 0x7ff)
		return;
	switch (op) {
	case AXP_OP_ADDT:
	case AXP_OP_SUBT:
	case AXP_OP_ADDS:
	case AXP_OP_SUBS:
		sh = dg_chance(g, 50) ? 50 + dg_below(g, 8) : 21 + dg_below(g, 8);
		if (e > sh)
			*b = (dg_next(g) & 0x800fffffffffffffull) | (e - sh) << 52;
		break;
	case AXP_OP_MULT:
	case AXP_OP_MULS:
		*b = 0x3ff0000000000000ull | (dg_next(g) >> (12 + sh));
		break;
	default: /* DIVx: exact quotient or one ulp off */
		*b = dg_chance(g, 50) ? *a : *a + (dg_chance(g, 50) ? 1 : (1ull << 29));
		break;
	}
}

static bool is_unary_ra31(unsigned int op)
{
	switch (op) {
	case AXP_OP_AMASK:
	case AXP_OP_IMPLVER:
	case AXP_OP_SEXTB:
	case AXP_OP_SEXTW:
	case AXP_OP_CTPOP:
	case AXP_OP_CTLZ:
	case AXP_OP_CTTZ:
	case AXP_OP_UNPKBW:
	case AXP_OP_UNPKBL:
	case AXP_OP_PKWB:
	case AXP_OP_PKLB:
		return true;
	default:
		return false;
	}
}

static bool no_literal(unsigned int op)
{
	switch (op) {
	case AXP_OP_CTPOP:
	case AXP_OP_CTLZ:
	case AXP_OP_CTTZ:
	case AXP_OP_PERR:
	case AXP_OP_UNPKBW:
	case AXP_OP_UNPKBL:
	case AXP_OP_PKWB:
	case AXP_OP_PKLB:
		return true;
	default:
		return false;
	}
}

/* FP operate ops whose Fa must be 31 (unary): the ops.def entries without SA among 0x14-0x17. */
static bool fp_unary(unsigned int op)
{
	const struct axp_op_info *in = &axp_op_info[op];

	return in->fmt == AXP_FMT_FPO && !(in->flags & AXP_F_SA) && op != AXP_OP_MF_FPCR;
}

/* One instruction of operation `op` at address pc, with its operands seeded in G->v. */
static uint32_t gen_op(struct gen *G, unsigned int op, uint64_t pc)
{
	struct dg_rng *g = &G->g;
	struct dv_vec *v = G->v;
	const struct axp_op_info *in = &axp_op_info[op];
	unsigned int ra, rb, rc, fn11;
	bool islit;
	uint64_t a, b;

	pick_regs(g, &ra, &rb, &rc);
	switch (in->fmt) {
	case AXP_FMT_MEM:
		return gen_mem(G, op, ra, rb);
	case AXP_FMT_BRA: {
		uint64_t target = pick_pad(g);
		int64_t disp = ((int64_t)target - (int64_t)(pc + 4)) / 4;

		if (dg_chance(g, 8))
			disp = (int64_t)(dg_next(g) & 0x1fffff) - 0x100000;
		if (in->flags & AXP_F_FA)
			set_f(v, ra, cond_val(g, true));
		else if (in->flags & AXP_F_SA)
			set_r(v, ra, cond_val(g, false));
		return (uint32_t)in->opcode << 26 | ra << 21 | ((uint32_t)disp & 0x1fffff);
	}
	case AXP_FMT_JMP: {
		uint64_t target = pick_pad(g) | dg_below(g, 4);

		if (dg_chance(g, 8))
			target = int_val(g);
		if (dg_chance(g, 15))
			ra = rb;
		set_r(v, rb, target);
		return 0x1au << 26 | ra << 21 | rb << 16 | in->func << 14 | (dg_below(g, 0x4000));
	}
	case AXP_FMT_MSC:
		set_r(v, rb, dg_chance(g, 50) ? pick_ea(g, 8) : int_val(g));
		return 0x18u << 26 | ra << 21 | rb << 16 | in->func;
	case AXP_FMT_OPR:
		islit = no_literal(op) ? dg_chance(g, 4) : dg_chance(g, 50);
		if (is_unary_ra31(op) && !dg_chance(g, 5))
			ra = 31;
		set_r(v, ra, int_val(g));
		if (!islit && rb != ra)
			set_r(v, rb, int_val(g));
		if (rc != ra && rc != rb)
			set_r(v, rc, int_val(g));
		if (islit)
			return enc_opr(in->opcode, ra, 0, true, lit_val(g), in->func, rc);
		if (dg_chance(g, 3)) /* SBZ bits [15:13] set: ignored */
			return enc_opr(in->opcode, ra, rb, false, 0, in->func, rc) |
			       (1 + dg_below(g, 7)) << 13;
		return enc_opr(in->opcode, ra, rb, false, 0, in->func, rc);
	case AXP_FMT_FTI:
		if (!dg_chance(g, 5))
			rb = 31;
		set_f(v, ra, fp_any(g));
		return enc_opr(in->opcode, ra, rb, false, 0, in->func, rc);
	case AXP_FMT_ITF:
		if (!dg_chance(g, 5))
			rb = 31;
		set_r(v, ra, int_val(g));
		return enc_fpo(in->opcode, ra, rb, in->func | fp_quals(g), rc);
	case AXP_FMT_FPO:
		break;
	default:
		return 0;
	}

	/* FP operate. */
	if (in->opcode == 0x17) {
		fn11 = in->func;
		if (op == AXP_OP_MT_FPCR || op == AXP_OP_MF_FPCR) {
			if (dg_chance(g, 50))
				rb = rc = ra;
		}
	} else if (op == AXP_OP_CVTST) {
		fn11 = dg_chance(g, 50) ? 0x2ac : 0x6ac;
	} else {
		unsigned int q;

		/* Scheduled vectors walk through all 32 qualifier combinations, and through the four
		 * FPCR rounding modes for the /D ones; others pick at random. */
		if (G->occ >= 0)
			q = (unsigned int)(G->occ % 32) << 6;
		else
			q = fp_quals(g);
		while (op == AXP_OP_CVTTS && (q == 0x280 || q == 0x680))
			q = fp_quals(g);
		fn11 = in->func | q;
		if (G->occ >= 0 && (q & AXP_FN11_RM_MASK) == AXP_FN11_RM_D)
			v->fpcr = (v->fpcr & ~(3ull << 58)) | (uint64_t)(G->occ / 32 % 4) << 58;
	}
	if (fp_unary(op) && !dg_chance(g, 5))
		ra = 31;
	a = fp_src(g, op);
	b = fp_src(g, op);
	if (dg_chance(g, 25))
		near_operands(g, op, &a, &b);
	set_f(v, ra, a);
	if (rb != ra)
		set_f(v, rb, b);
	if (rc != ra && rc != rb)
		set_f(v, rc, fp_any(g));
	return enc_fpo(in->opcode, ra, rb, fn11, rc);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector kinds. */

static unsigned int random_op(struct dg_rng *g, bool no_control)
{
	unsigned int op;

	for (;;) {
		op = op_list[dg_below(g, n_list)];
		if (!no_control)
			return op;
		if (axp_op_info[op].fmt != AXP_FMT_BRA && axp_op_info[op].fmt != AXP_FMT_JMP)
			return op;
	}
}

/*
 * LDx_L, something, STx_C (same address): QEMU's reservation is an address plus the loaded value
 * (cmpxchg), so a store of the same value keeps it, a different value or a second LDx_L elsewhere
 * breaks it, a store elsewhere does not matter, and a second STx_C always fails.
 */
static void gen_ll_x_sc(struct gen *G)
{
	struct dg_rng *g = &G->g;
	struct dv_vec *v = G->v;
	bool q = dg_chance(g, 50);
	unsigned int size = q ? 8 : 4,
		     off = dg_below(g, DV_WIN_SIZE / 8 - 1) * 8 + (q ? 0 : 4 * dg_below(g, 2));
	uint64_t ea = DV_WIN + off, cur = 0;
	unsigned int rb = dg_below(g, 31), ra, rc, rx, ry, other;
	int32_t d = pick_disp16(g);

	do
		ra = dg_below(g, 31);
	while (ra == rb);
	do
		rx = dg_below(g, 31);
	while (rx == rb || rx == ra);
	do
		ry = dg_below(g, 31);
	while (ry == rb || ry == ra || ry == rx);
	rc = dg_chance(g, 10) ? 31 : dg_below(g, 31);
	if (rc == rb)
		rc = ry;
	memcpy(&cur, v->mem + off, size);
	if (!q)
		cur = (uint64_t)(int64_t)(int32_t)cur;
	other = (off + 8 + 8 * dg_below(g, 8)) % (DV_WIN_SIZE - 8);
	set_r(v, rb, ea - (uint64_t)(int64_t)d);
	v->ninsn = 3;
	v->insn[0] = enc_mem(q ? 0x2b : 0x2a, ra, rb, d);
	v->insn[2] = enc_mem(q ? 0x2f : 0x2e, rc, rb, d);
	switch (dg_below(g, 8)) {
	case 0: /* store the same value back */
		set_r(v, rx, cur);
		v->insn[1] = enc_mem(q ? 0x2d : 0x2c, rx, rb, d);
		break;
	case 1: /* store a different value */
		set_r(v, rx, cur ^ (1ull << dg_below(g, size * 8)));
		v->insn[1] = enc_mem(q ? 0x2d : 0x2c, rx, rb, d);
		break;
	case 2: /* store a byte inside the locked block, same or different value */
		set_r(v, rx, dg_chance(g, 50) ? v->mem[off + 1] : (uint8_t)~v->mem[off + 1]);
		v->insn[1] = enc_mem(0x0e, rx, rb, d + 1);
		break;
	case 3: /* store elsewhere */
		set_r(v, ry, DV_WIN + other);
		set_r(v, rx, int_val(g));
		v->insn[1] = enc_mem(0x2d, rx, ry, 0);
		break;
	case 4: /* a second LDx_L at another address moves the reservation */
		set_r(v, ry, DV_WIN + other);
		v->insn[1] = enc_mem(q ? 0x2b : 0x2a, rx, ry, 0);
		break;
	case 5: /* a second STx_C: the first succeeds, the second fails */
		set_r(v, rx, int_val(g));
		v->insn[1] = enc_mem(q ? 0x2f : 0x2e, rx, rb, d);
		break;
	default: { /* something unrelated (not RPCC: its value differs between the two sides) */
		unsigned int op;

		do
			op = random_op(g, true);
		while (op == AXP_OP_RPCC);
		v->insn[1] = gen_op(G, op, DV_SLOT + 4);
		set_r(v, rb, ea - (uint64_t)(int64_t)d);
		break;
	}
	}
	if (rc != 31 && rc != rx && rc != ry)
		set_r(v, rc, int_val(g));
	v->op = q ? AXP_OP_LDQ_L : AXP_OP_LDL_L;
}

static void gen_pair(struct gen *G)
{
	struct dg_rng *g = &G->g;
	struct dv_vec *v = G->v;
	unsigned int kind = dg_below(g, 14);
	unsigned int op0, op1, ra, rb, rb2, rc;

	v->ninsn = 2;
	switch (kind) {
	case 0:
	case 1:
	case 2:
	case 3: { /* LDx_L then STx_C: same or different address, size, base register */
		bool q0 = dg_chance(g, 50), q1 = dg_chance(g, 80) ? q0 : !q0;
		uint64_t ea =
			DV_WIN + (dg_below(g, DV_WIN_SIZE - 8) & (dg_chance(g, 85) ? ~7u : ~0u));
		int32_t d0 = pick_disp16(g), d1 = d0;

		op0 = q0 ? AXP_OP_LDQ_L : AXP_OP_LDL_L;
		op1 = q1 ? AXP_OP_STQ_C : AXP_OP_STL_C;
		ra = dg_chance(g, 6) ? 31 : dg_below(g, 31);
		rb = dg_below(g, 31);
		rc = dg_chance(g, 6) ? 31 : dg_below(g, 31);
		if (ra == rb && !dg_chance(g, 10))
			ra = (rb + 1) % 31;
		rb2 = dg_chance(g, 70) ? rb : dg_below(g, 31);
		if (rb2 == ra)
			rb2 = rb;
		set_r(v, rb, ea - (uint64_t)(int64_t)d0);
		if (dg_chance(g, 15))
			d1 = d0 + (int32_t)(4 * dg_below(g, 5)) - 8;
		if (rb2 != rb)
			set_r(v, rb2, ea - (uint64_t)(int64_t)d1);
		if (rc != rb2 && rc != ra)
			set_r(v, rc, int_val(g));
		if (dg_chance(g, 50)) { /* sign bit of the longword set: LL sign-extends */
			v->mem[ea - DV_WIN + 3] |= 0x80;
		}
		v->insn[0] = enc_mem(axp_op_info[op0].opcode, ra, rb, d0);
		v->insn[1] = enc_mem(axp_op_info[op1].opcode, rc, rb2, d1);
		v->op = op0;
		return;
	}
	case 4: { /* RS/RC */
		unsigned int x = dg_below(g, 4);

		op0 = (x & 1) ? AXP_OP_RS : AXP_OP_RC;
		op1 = (x & 2) ? AXP_OP_RS : AXP_OP_RC;
		v->insn[0] = 0x18u << 26 | pick_reg(g) << 21 | axp_op_info[op0].func;
		v->insn[1] = 0x18u << 26 | pick_reg(g) << 21 | axp_op_info[op1].func;
		v->op = op0;
		return;
	}
	case 5:
	case 6: { /* MT_FPCR, then an IEEE op with dynamic rounding (or MF_FPCR) */
		ra = dg_below(g, 31);
		set_f(v, ra, fpcr_val(g) | (dg_chance(g, 20) ? dg_next(g) >> 32 : 0));
		v->insn[0] = enc_fpo(0x17, ra, ra, axp_op_info[AXP_OP_MT_FPCR].func, ra);
		do
			op1 = random_op(g, true);
		while (axp_op_info[op1].opcode != 0x16 && op1 != AXP_OP_MF_FPCR);
		v->insn[1] = gen_op(G, op1, DV_SLOT + 4);
		if (op1 != AXP_OP_CVTST && op1 != AXP_OP_MF_FPCR)
			v->insn[1] |= AXP_FN11_RM_D << 5;
		/* the second op may have reseeded ra; keep the FPCR source */
		if (((v->insn[1] >> 21) & 31) == ra || ((v->insn[1] >> 16) & 31) == ra)
			set_f(v, ra, fpcr_val(g));
		v->op = AXP_OP_MT_FPCR;
		return;
	}
	case 7: /* an IEEE op, then MF_FPCR */
		do
			op0 = random_op(g, true);
		while (axp_op_info[op0].opcode != 0x16);
		v->insn[0] = gen_op(G, op0, DV_SLOT);
		v->insn[1] =
			enc_fpo(0x17, dg_below(g, 31), 31, axp_op_info[AXP_OP_MF_FPCR].func, 31);
		v->op = op0;
		return;
	case 8:
	case 9: { /* a store, then a load nearby */
		static const uint16_t st[] = { AXP_OP_STB,   AXP_OP_STW, AXP_OP_STL, AXP_OP_STQ,
					       AXP_OP_STQ_U, AXP_OP_STS, AXP_OP_STT };
		static const uint16_t ld[] = {
			AXP_OP_LDBU,  AXP_OP_LDWU, AXP_OP_LDL, AXP_OP_LDQ,
			AXP_OP_LDQ_U, AXP_OP_LDS,  AXP_OP_LDT, AXP_OP_LDL_L
		};
		uint64_t ea = DV_WIN + 8 + dg_below(g, DV_WIN_SIZE - 24);
		int32_t d0 = pick_disp16(g), d1 = d0 + (int32_t)dg_below(g, 9) - 4;

		op0 = st[dg_below(g, 7)];
		op1 = ld[dg_below(g, 8)];
		rb = dg_below(g, 31);
		ra = dg_below(g, 31);
		rc = dg_below(g, 31);
		if (ra == rb)
			ra = (rb + 1) % 31;
		if (rc == rb && dg_chance(g, 80))
			rc = (rb + 2) % 31;
		set_r(v, rb, ea - (uint64_t)(int64_t)d0);
		if (axp_op_info[op0].flags & AXP_F_FA)
			set_f(v, ra, op0 == AXP_OP_STS ? s_val(g) : fp_any(g));
		else
			set_r(v, ra, int_val(g));
		v->insn[0] = enc_mem(axp_op_info[op0].opcode, ra, rb, d0);
		v->insn[1] = enc_mem(axp_op_info[op1].opcode, rc, rb, d1);
		v->op = op0;
		return;
	}
	case 10:
	case 11:
		gen_ll_x_sc(G);
		return;
	default: { /* two to four arbitrary operations; control transfers only in the first */
		unsigned int i;

		v->ninsn = 2 + dg_below(g, DV_MAX_INSN - 1);
		for (i = 0; i < v->ninsn; i++) {
			do
				op0 = random_op(g, i > 0);
			while (op0 == AXP_OP_RPCC && i + 1 < v->ninsn);
			v->insn[i] = gen_op(G, op0, DV_SLOT + 4 * i);
			if (i == 0)
				v->op = op0;
		}
		return;
	}
	}
}

/* A valid opcode with a function code ops.def does not define, or a defined operation with a
 * field that must be 31 (or a literal form that does not exist). */
static uint32_t gen_badfn(struct gen *G)
{
	static const uint8_t opcs[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x10, 0x11,
					0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x1c };
	struct dg_rng *g = &G->g;
	unsigned int opc, i, ra, rb, rc;
	uint32_t w;

	pick_regs(g, &ra, &rb, &rc);
	for (i = 0; i < 31; i++)
		if (dg_chance(g, 30))
			G->v->f[i] = fp_any(g);
	if (dg_chance(g, 40)) {
		/* A defined op, broken in a fixed field. */
		unsigned int op;
		struct axp_insn d;

		do
			op = op_list[dg_below(g, n_list)];
		while (!is_unary_ra31(op) && !no_literal(op) && !fp_unary(op) &&
		       axp_op_info[op].fmt != AXP_FMT_ITF && axp_op_info[op].fmt != AXP_FMT_FTI);
		w = gen_op(G, op, DV_SLOT);
		axp_decode(w, &d);
		switch (dg_below(g, 3)) {
		case 0:
			w = (w & ~(31u << 21)) | dg_below(g, 31) << 21;
			break;
		case 1:
			w = (w & ~(31u << 16)) | dg_below(g, 31) << 16;
			break;
		default:
			if (axp_op_info[op].fmt == AXP_FMT_OPR ||
			    axp_op_info[op].fmt == AXP_FMT_FTI)
				w = (w & ~(0xffu << 13)) | 1u << 12 | (uint32_t)lit_val(g) << 13;
			else
				w = (w & ~(31u << 21)) | dg_below(g, 31) << 21;
			break;
		}
		G->v->op = op;
		return w;
	}
	opc = opcs[dg_below(g, sizeof(opcs))];
	w = opc << 26 | ra << 21 | rb << 16 | rc;
	switch (opc) {
	case 0x18:
		w = opc << 26 | ra << 21 | rb << 16 | (uint32_t)(dg_next(g) & 0xffff);
		break;
	case 0x10:
	case 0x11:
	case 0x12:
	case 0x13:
	case 0x1c:
		w |= dg_below(g, 128) << 5 | (dg_chance(g, 50) ? 1u << 12 | lit_val(g) << 13 : 0);
		break;
	default:
		w |= (uint32_t)dg_below(g, 0x800) << 5;
		break;
	}
	G->v->op = AXP_OP_INVALID;
	return w;
}

static uint32_t gen_random_word(struct gen *G)
{
	struct dg_rng *g = &G->g;
	unsigned int i, opc;
	uint32_t w;

	/* Some registers point into the data window so that random memory words can hit it. */
	for (i = 0; i < 31; i++)
		if (dg_chance(g, 30))
			G->v->r[i] = pick_ea(g, 8) - (uint64_t)(int64_t)pick_disp16(g);
	do {
		w = (uint32_t)dg_next(g);
		opc = w >> 26;
	} while (opc == 0x00 || opc == 0x19 || opc == 0x1b || (opc >= 0x1d && opc <= 0x1f));
	/* Memory-format words: usually aim the base register at the test pages. */
	if (((opc >= 0x08 && opc <= 0x0f) || opc >= 0x20) && opc < 0x30 && dg_chance(g, 70)) {
		unsigned int rb = (w >> 16) & 31;

		set_r(G->v, rb, pick_ea(g, 8) - (uint64_t)(int64_t)(int16_t)(w & 0xffff));
	}
	G->v->op = AXP_OP_INVALID;
	return w;
}

/* ------------------------------------------------------------------------------------------ */

/*
 * True when the vector could hang or hurt the runner under qemu: a control transfer from slot i
 * whose target is slot j <= i (an endless loop), a jump after the first slot (its base register
 * may have changed by then), a jump into the runner's own memory, or a memory access there
 * (checked with the entry registers; dv_is_host_addr()).
 */
static bool unsafe(const struct dv_vec *v)
{
	unsigned int i;

	for (i = 0; i < v->ninsn; i++) {
		uint64_t pc = DV_SLOT + 4 * i, target;
		uint32_t w = v->insn[i];
		unsigned int opc = w >> 26, rb = (w >> 16) & 31;
		uint64_t base = rb == 31 ? 0 : v->r[rb];

		if ((opc >= 0x08 && opc <= 0x0f) || (opc >= 0x20 && opc <= 0x2f)) {
			uint64_t ea = base + (uint64_t)(int64_t)(int16_t)(w & 0xffff);

			if (dv_is_host_addr(ea) || dv_is_host_addr(ea + 8) ||
			    dv_is_host_addr(ea & ~7ull))
				return true;
			continue;
		}
		if (opc >= 0x30) {
			int32_t disp = (int32_t)(w << 11) >> 11;

			target = pc + 4 + 4 * (int64_t)disp;
		} else if (opc == 0x1a) {
			if (i > 0)
				return true;
			target = base & ~3ull;
			if (dv_is_host_addr(target))
				return true;
		} else {
			continue;
		}
		if (target >= DV_SLOT && target <= pc)
			return true;
	}
	return false;
}

enum kind_sel { SEL_SCHEDULE, SEL_OP, SEL_PAIR, SEL_RANDOM, SEL_BADFN };

static void gen_vector(struct dv_vec *v, uint64_t seed, uint64_t idx, enum kind_sel sel,
		       int only_op)
{
	struct gen G;
	unsigned int slot = idx % SCHED_LEN, i, tries = 0;
	enum dv_tag tag;

	G.v = v;
	G.occ = -1;
	dg_rng_init(&G.g, seed, idx);
	switch (sel) {
	case SEL_OP:
		tag = DV_TAG_OP;
		break;
	case SEL_PAIR:
		tag = DV_TAG_PAIR;
		break;
	case SEL_RANDOM:
		tag = DV_TAG_RANDOM;
		break;
	case SEL_BADFN:
		tag = DV_TAG_BADFN;
		break;
	default:
		tag = slot < SCHED_OPS	    ? DV_TAG_OP :
		      slot < SCHED_OPS + 2  ? DV_TAG_PAIR :
		      slot == SCHED_OPS + 2 ? DV_TAG_BADFN :
					      DV_TAG_RANDOM;
		break;
	}
	do {
		struct dg_rng *g = &G.g;

		memset(v, 0, sizeof(*v));
		v->magic = DV_VEC_MAGIC;
		v->seq = idx;
		v->ninsn = 1;
		v->tag = tag;
		for (i = 0; i < 31; i++) {
			v->r[i] = int_val(g);
			v->f[i] = fp_any(g);
		}
		v->fpcr = fpcr_val(g);
		for (i = 0; i < DV_WIN_SIZE; i += 8) {
			uint64_t x = dg_chance(g, 50) ? dg_next(g) : int_val(g);

			memcpy(v->mem + i, &x, 8);
		}
		switch (tag) {
		case DV_TAG_OP: {
			unsigned int op;

			uint64_t pos = idx / SCHED_LEN * SCHED_OPS + slot;

			G.occ = -1;
			if (only_op >= 0) {
				op = (unsigned int)only_op;
				G.occ = (long)idx;
			} else if (sel == SEL_OP) {
				op = op_list[dg_below(g, n_list)];
			} else {
				op = op_list[pos % n_list];
				G.occ = (long)(pos / n_list * op_weight[op] + pos % n_list -
					       op_first[op]);
			}
			v->op = op;
			v->insn[0] = gen_op(&G, op, DV_SLOT);
			break;
		}
		case DV_TAG_PAIR:
			gen_pair(&G);
			break;
		case DV_TAG_BADFN:
			v->insn[0] = gen_badfn(&G);
			break;
		default:
			v->insn[0] = gen_random_word(&G);
			break;
		}
		for (i = v->ninsn; i < DV_MAX_INSN; i++)
			v->insn[i] = DV_PAD;
		v->r[31] = 0;
		v->f[31] = 0;
	} while (unsafe(v) && ++tries < 1000);
	if (unsafe(v)) {
		v->ninsn = 1;
		v->insn[0] = 0x47ff041f; /* nop */
		for (i = 1; i < DV_MAX_INSN; i++)
			v->insn[i] = DV_PAD;
	}
}

static void build_op_list(void)
{
	unsigned int op, w, i;

	for (op = 0; op < AXP_OP_INVALID; op++) {
		if (!dg_op_is_tested(op))
			continue;
		w = 1;
		if (axp_op_info[op].opcode == 0x16)
			w = 3;
		else if (op == AXP_OP_SQRTS || op == AXP_OP_SQRTT || op == AXP_OP_CVTQL ||
			 op == AXP_OP_CVTQLV || op == AXP_OP_CVTQLSV)
			w = 2;
		op_first[op] = (uint16_t)n_list;
		op_weight[op] = (uint16_t)w;
		for (i = 0; i < w; i++)
			op_list[n_list++] = (uint16_t)op;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vecgen [--seed S] [-n N] [--first K] [--op NAME] "
		   "[--kind op|pair|random|badfn]\n"
		   "Writes N differential-test vectors (tests/diff/diffvec.h) to stdout; vector i\n"
		   "depends only on (S, i), so --first i -n 1 replays one vector.\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' }, { "first", required_argument, NULL, 'f' },
		{ "op", required_argument, NULL, 'o' },	  { "kind", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },	  { NULL, 0, NULL, 0 },
	};
	uint64_t seed = 1, first = 0, n = 1000, i;
	enum kind_sel sel = SEL_SCHEDULE;
	int only_op = -1, c;
	static struct dv_vec buf[256];
	size_t nb = 0;

	while ((c = getopt_long(argc, argv, "n:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			first = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			for (i = 0; i < AXP_OP_INVALID; i++)
				if (!strcmp(axp_op_info[i].name, optarg))
					only_op = (int)i;
			if (only_op < 0 || !dg_op_is_tested((unsigned int)only_op)) {
				fprintf(stderr, "vecgen: unknown or untested op '%s'\n", optarg);
				return 2;
			}
			sel = SEL_OP;
			break;
		case 'k':
			if (!strcmp(optarg, "op"))
				sel = SEL_OP;
			else if (!strcmp(optarg, "pair"))
				sel = SEL_PAIR;
			else if (!strcmp(optarg, "random"))
				sel = SEL_RANDOM;
			else if (!strcmp(optarg, "badfn"))
				sel = SEL_BADFN;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	build_op_list();
	for (i = first; i < first + n; i++) {
		gen_vector(&buf[nb++], seed, i, sel, only_op);
		if (nb == sizeof(buf) / sizeof(buf[0]) || i + 1 == first + n) {
			if (fwrite(buf, sizeof(buf[0]), nb, stdout) != nb) {
				fprintf(stderr, "vecgen: write failed: %s\n", strerror(errno));
				return 1;
			}
			nb = 0;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "vecgen: write failed: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
