/* kmod/interp/fp_ieee.c - IEEE 754 binary32/binary64 arithmetic in integer code. */
#include "fp.h"

/*
 * Values are unpacked to (class, sign, exp, sig): a finite non-zero value is
 * sig * 2^(exp - 63) with bit 63 of sig set; a NaN keeps its fraction left-aligned so that its
 * quiet bit is bit 62 whatever the format. Results are rounded once, by round_pack(), which
 * follows IEEE 754-2008 §4.3 and §7 with the choices QEMU's softfloat makes for Alpha:
 * tininess after rounding, flush-to-zero tested before rounding and flagging nothing, the
 * default NaN 0x7ff8..., and x87-style NaN selection (reference items 3 and 7 of fp.h).
 *
 * Only 64-bit and 128-bit integer operations are used, never a 128-bit division (division is
 * Knuth's algorithm D on 32-bit digits, square root a digit-by-digit loop), so the core needs no
 * compiler support routine beyond the 64-bit division the Alpha kernel provides (__divqu).
 */

typedef unsigned __int128 u128;

enum cls { CLS_ZERO, CLS_NORMAL, CLS_INF, CLS_QNAN, CLS_SNAN };

struct unp {
	enum cls cls;
	bool sign;
	int32_t exp;
	uint64_t sig;
};

struct fmt {
	unsigned int mant; /* stored fraction bits */
	int32_t bias;
	uint32_t emax; /* all-ones biased exponent */
};

static const struct fmt F64 = { 52, 1023, 0x7ff };
static const struct fmt F32 = { 23, 127, 0xff };

#define QUIET_BIT (1ull << 62)

static unsigned int clz64(uint64_t x)
{
	unsigned int n = 0;

	if (!x)
		return 64;
	if (!(x >> 32)) {
		n += 32;
		x <<= 32;
	}
	if (!(x >> 48)) {
		n += 16;
		x <<= 16;
	}
	if (!(x >> 56)) {
		n += 8;
		x <<= 8;
	}
	if (!(x >> 60)) {
		n += 4;
		x <<= 4;
	}
	if (!(x >> 62)) {
		n += 2;
		x <<= 2;
	}
	if (!(x >> 63))
		n += 1;
	return n;
}

/* Shift right by n, ORing every bit shifted out into bit 0 (the sticky bit). */
static uint64_t shr_jam(uint64_t x, uint32_t n)
{
	if (n == 0)
		return x;
	if (n >= 64)
		return x != 0;
	return (x >> n) | ((x << (64 - n)) != 0);
}

static u128 shr_jam128(u128 x, uint32_t n)
{
	if (n == 0)
		return x;
	if (n >= 128)
		return x != 0;
	return (x >> n) | ((x << (128 - n)) != 0);
}

static unsigned int clz128(u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);

	return hi ? clz64(hi) : 64 + clz64((uint64_t)x);
}

/* A 128-bit value reduced to 64 bits with bit 63 set and a sticky bit; *exp adjusted. */
static uint64_t norm128(u128 x, int32_t *exp)
{
	unsigned int z = clz128(x);

	/* x has its top bit at 127 - z; move it to bit 127, keep the high half plus sticky. */
	x <<= z;
	*exp -= (int32_t)z;
	return (uint64_t)(x >> 64) | ((uint64_t)x != 0);
}

static struct unp unpack(const struct fmt *f, uint64_t bits, struct axp_fpst *st)
{
	struct unp u;
	uint64_t frac = bits & ((1ull << f->mant) - 1);
	uint32_t e = (uint32_t)(bits >> f->mant) & f->emax;

	u.sign = (bits >> (f->mant + (f == &F64 ? 11 : 8))) & 1;
	u.exp = 0;
	u.sig = 0;
	if (e == 0) {
		if (frac == 0) {
			u.cls = CLS_ZERO;
		} else if (st->daz) {
			st->flags |= AXP_FPF_DENORM;
			u.cls = CLS_ZERO;
		} else {
			unsigned int top = 63 - clz64(frac);

			st->flags |= AXP_FPF_DENORM;
			u.cls = CLS_NORMAL;
			u.sig = frac << (63 - top);
			u.exp = (int32_t)top + 1 - f->bias - (int32_t)f->mant;
		}
	} else if (e == f->emax) {
		if (frac == 0) {
			u.cls = CLS_INF;
		} else {
			u.sig = frac << (63 - f->mant);
			u.cls = (u.sig & QUIET_BIT) ? CLS_QNAN : CLS_SNAN;
		}
	} else {
		u.cls = CLS_NORMAL;
		u.sig = (frac | (1ull << f->mant)) << (63 - f->mant);
		u.exp = (int32_t)e - f->bias;
	}
	return u;
}

static uint64_t sign_bit(const struct fmt *f, bool sign)
{
	return (uint64_t)sign << (f->mant + (f == &F64 ? 11 : 8));
}

static uint64_t pack_inf(const struct fmt *f, bool sign)
{
	return sign_bit(f, sign) | ((uint64_t)f->emax << f->mant);
}

static uint64_t pack_nan(const struct fmt *f, const struct unp *u)
{
	return sign_bit(f, u->sign) | ((uint64_t)f->emax << f->mant) | (u->sig >> (63 - f->mant));
}

static uint64_t default_nan(const struct fmt *f, struct axp_fpst *st)
{
	st->flags |= AXP_FPF_INV;
	return ((uint64_t)f->emax << f->mant) | (1ull << (f->mant - 1));
}

/* One NaN operand: raise INV if signalling, return it quieted. */
static uint64_t return_nan(const struct fmt *f, struct unp u, struct axp_fpst *st)
{
	if (u.cls == CLS_SNAN) {
		st->flags |= AXP_FPF_INV;
		u.sig |= QUIET_BIT;
	}
	return pack_nan(f, &u);
}

/* Two operands, at least one a NaN (softfloat's x87 rule, reference item 7). */
static uint64_t pick_nan(const struct fmt *f, struct unp a, struct unp b, struct axp_fpst *st)
{
	bool a_larger, pick_b;

	if (a.cls == CLS_SNAN || b.cls == CLS_SNAN)
		st->flags |= AXP_FPF_INV;
	a_larger = a.sig > b.sig || (a.sig == b.sig && a.sign < b.sign);
	if (a.cls == CLS_SNAN)
		pick_b = b.cls == CLS_SNAN ? !a_larger : b.cls == CLS_QNAN;
	else if (a.cls == CLS_QNAN)
		pick_b = b.cls == CLS_QNAN && !a_larger;
	else
		pick_b = true;
	if (pick_b)
		a = b;
	a.sig |= QUIET_BIT;
	return pack_nan(f, &a);
}

/*
 * Round sig * 2^(exp - 63) (bit 63 of sig set, sticky in bit 0) to the format and pack it,
 * raising INE, OVF and UNF as IEEE 754 §7.4-7.6 say, tininess after rounding.
 */
static uint64_t round_pack(const struct fmt *f, bool sign, int32_t exp, uint64_t sig,
			   struct axp_fpst *st)
{
	unsigned int shift = 63 - f->mant;
	uint64_t mask = (1ull << shift) - 1, half = 1ull << (shift - 1);
	uint64_t inc, rbits, m, t;
	int32_t be = exp + f->bias;
	bool tiny;

	switch (st->rm) {
	case AXP_RM_NORMAL:
		inc = half;
		break;
	case AXP_RM_PLUS:
		inc = sign ? 0 : mask;
		break;
	case AXP_RM_MINUS:
		inc = sign ? mask : 0;
		break;
	default:
		inc = 0;
		break;
	}

	if (be > 0) {
		rbits = sig & mask;
		if (rbits)
			st->flags |= AXP_FPF_INE;
		t = sig + inc;
		if (t < sig) {
			/* Carry out: the kept bits were all ones; the result is 2^(exp+1). */
			m = 1ull << f->mant;
			be++;
		} else {
			m = t >> shift;
			if (st->rm == AXP_RM_NORMAL && rbits == half)
				m &= ~1ull;
		}
		if ((uint32_t)be >= f->emax) {
			bool to_inf = st->rm == AXP_RM_NORMAL || (st->rm == AXP_RM_PLUS && !sign) ||
				      (st->rm == AXP_RM_MINUS && sign);

			st->flags |= AXP_FPF_OVF | AXP_FPF_INE;
			if (to_inf)
				return pack_inf(f, sign);
			return sign_bit(f, sign) | (((uint64_t)f->emax - 1) << f->mant) |
			       ((1ull << f->mant) - 1);
		}
		return sign_bit(f, sign) | ((uint64_t)be << f->mant) |
		       (m & ((1ull << f->mant) - 1));
	}

	if (st->ftz) {
		st->flags |= AXP_FPF_DENORM;
		return sign_bit(f, sign);
	}
	/* Tiny after rounding unless rounding at full precision would carry to 2^emin. */
	tiny = be < 0 || sig + inc >= sig;
	sig = shr_jam(sig, (uint32_t)(1 - be));
	rbits = sig & mask;
	if (rbits)
		st->flags |= AXP_FPF_INE;
	m = (sig + inc) >> shift;
	if (st->rm == AXP_RM_NORMAL && rbits == half)
		m &= ~1ull;
	if (tiny && rbits)
		st->flags |= AXP_FPF_UNF;
	if (m && m < (1ull << f->mant))
		st->flags |= AXP_FPF_DENORM;
	/* m may have reached 1 << mant: that is the smallest normal, exponent field 1. */
	return sign_bit(f, sign) | m;
}

static uint64_t add_sub(const struct fmt *f, uint64_t abits, uint64_t bbits, bool subtract,
			struct axp_fpst *st)
{
	struct unp a = unpack(f, abits, st), b = unpack(f, bbits, st);
	bool bsign = b.sign ^ subtract;
	u128 x, y, s;
	int32_t exp;
	uint64_t sig;
	bool sign;

	if (a.cls >= CLS_QNAN || b.cls >= CLS_QNAN)
		return pick_nan(f, a, b, st);
	if (a.cls == CLS_INF || b.cls == CLS_INF) {
		if (a.cls == CLS_INF && b.cls == CLS_INF && a.sign != bsign)
			return default_nan(f, st);
		return pack_inf(f, a.cls == CLS_INF ? a.sign : bsign);
	}
	if (a.cls == CLS_ZERO && b.cls == CLS_ZERO) {
		if (a.sign == bsign)
			return sign_bit(f, a.sign);
		return sign_bit(f, st->rm == AXP_RM_MINUS);
	}
	if (b.cls == CLS_ZERO)
		return round_pack(f, a.sign, a.exp, a.sig, st);
	if (a.cls == CLS_ZERO)
		return round_pack(f, bsign, b.exp, b.sig, st);

	/* Both finite non-zero: order by magnitude, align in 128 bits (62 guard bits). */
	sign = a.sign;
	if (a.exp < b.exp || (a.exp == b.exp && a.sig < b.sig)) {
		struct unp t = a;

		a = b;
		b = t;
		sign = bsign;
		bsign = t.sign;
	}
	/* Now |a| >= |b|; `sign` is a's effective sign, `bsign` b's. */
	x = (u128)a.sig << 62;
	y = shr_jam128((u128)b.sig << 62, (uint32_t)(a.exp - b.exp));
	if (sign == bsign) {
		s = x + y;
	} else {
		s = x - y;
		if (s == 0)
			return sign_bit(f, st->rm == AXP_RM_MINUS);
	}
	/* s * 2^(a.exp - 125); norm128 puts its top bit at 63 of a 64-bit significand. */
	exp = a.exp + 2;
	sig = norm128(s, &exp);
	return round_pack(f, sign, exp, sig, st);
}

static uint64_t mul(const struct fmt *f, uint64_t abits, uint64_t bbits, struct axp_fpst *st)
{
	struct unp a = unpack(f, abits, st), b = unpack(f, bbits, st);
	bool sign = a.sign ^ b.sign;
	int32_t exp;
	uint64_t sig;

	if (a.cls >= CLS_QNAN || b.cls >= CLS_QNAN)
		return pick_nan(f, a, b, st);
	if ((a.cls == CLS_INF && b.cls == CLS_ZERO) || (a.cls == CLS_ZERO && b.cls == CLS_INF))
		return default_nan(f, st);
	if (a.cls == CLS_INF || b.cls == CLS_INF)
		return pack_inf(f, sign);
	if (a.cls == CLS_ZERO || b.cls == CLS_ZERO)
		return sign_bit(f, sign);
	/* The product is P * 2^(a.exp + b.exp - 126). */
	exp = a.exp + b.exp + 1;
	sig = norm128((u128)a.sig * b.sig, &exp);
	return round_pack(f, sign, exp, sig, st);
}

/*
 * (hi:lo) / d for hi < d, d >= 2^63: Knuth's algorithm D with 32-bit digits (TAOCP vol. 2,
 * 4.3.1), two 64-bit divisions and at most two corrections each.
 */
static uint64_t div128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem)
{
	const uint64_t b = 1ull << 32;
	uint64_t dh = d >> 32, dl = d & 0xffffffff, l1 = lo >> 32, l0 = lo & 0xffffffff;
	uint64_t q1, q0, rhat, mid;

	q1 = hi / dh;
	rhat = hi - q1 * dh;
	while (q1 >= b || q1 * dl > ((rhat << 32) | l1)) {
		q1--;
		rhat += dh;
		if (rhat >= b)
			break;
	}
	mid = (hi << 32) + l1 - q1 * d;
	q0 = mid / dh;
	rhat = mid - q0 * dh;
	while (q0 >= b || q0 * dl > ((rhat << 32) | l0)) {
		q0--;
		rhat += dh;
		if (rhat >= b)
			break;
	}
	*rem = (mid << 32) + l0 - q0 * d;
	return (q1 << 32) | q0;
}

static uint64_t divide(const struct fmt *f, uint64_t abits, uint64_t bbits, struct axp_fpst *st)
{
	struct unp a = unpack(f, abits, st), b = unpack(f, bbits, st);
	bool sign = a.sign ^ b.sign;
	uint64_t q, rem;
	int32_t exp;

	if ((a.cls == CLS_ZERO && b.cls == CLS_ZERO) || (a.cls == CLS_INF && b.cls == CLS_INF))
		return default_nan(f, st);
	if (a.cls >= CLS_QNAN || b.cls >= CLS_QNAN)
		return pick_nan(f, a, b, st);
	if (a.cls == CLS_INF)
		return pack_inf(f, sign);
	if (a.cls == CLS_ZERO || b.cls == CLS_INF)
		return sign_bit(f, sign);
	if (b.cls == CLS_ZERO) {
		st->flags |= AXP_FPF_DZE;
		return pack_inf(f, sign);
	}
	/* A 64-bit quotient with its top bit set, plus a sticky bit from the remainder. */
	if (a.sig >= b.sig) {
		q = div128(a.sig >> 1, a.sig << 63, b.sig, &rem);
		exp = a.exp - b.exp;
	} else {
		q = div128(a.sig, 0, b.sig, &rem);
		exp = a.exp - b.exp - 1;
	}
	return round_pack(f, sign, exp, q | (rem != 0), st);
}

/* floor(sqrt(x)) for 2^126 <= x < 2^128, digit by digit; *inexact when x is not a square. */
static uint64_t isqrt128(u128 x, bool *inexact)
{
	u128 rem = 0;
	uint64_t root = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		u128 trial;

		rem = (rem << 2) | ((x >> (2 * i)) & 3);
		trial = ((u128)root << 2) | 1;
		root <<= 1;
		if (rem >= trial) {
			rem -= trial;
			root |= 1;
		}
	}
	*inexact = rem != 0;
	return root;
}

static uint64_t square_root(const struct fmt *f, uint64_t abits, struct axp_fpst *st)
{
	struct unp a = unpack(f, abits, st);
	unsigned int k;
	uint64_t r;
	bool inexact;

	if (a.cls >= CLS_QNAN)
		return return_nan(f, a, st);
	if (a.cls == CLS_ZERO)
		return sign_bit(f, a.sign);
	if (a.sign)
		return default_nan(f, st);
	if (a.cls == CLS_INF)
		return pack_inf(f, false);
	/* a = (sig << k) * 2^(exp - 63 - k) with an even power of two. */
	k = (a.exp & 1) ? 64 : 63;
	r = isqrt128((u128)a.sig << k, &inexact);
	return round_pack(f, false, (a.exp - 63 - (int32_t)k) / 2 + 63, r | inexact, st);
}

static uint64_t convert(const struct fmt *to, const struct fmt *from, uint64_t bits,
			struct axp_fpst *st)
{
	struct unp a = unpack(from, bits, st);

	switch (a.cls) {
	case CLS_QNAN:
	case CLS_SNAN:
		return return_nan(to, a, st);
	case CLS_INF:
		return pack_inf(to, a.sign);
	case CLS_ZERO:
		return sign_bit(to, a.sign);
	default:
		return round_pack(to, a.sign, a.exp, a.sig, st);
	}
}

static uint64_t from_int(const struct fmt *f, int64_t v, struct axp_fpst *st)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	unsigned int z;

	if (mag == 0)
		return 0;
	z = clz64(mag);
	return round_pack(f, v < 0, 63 - (int32_t)z, mag << z, st);
}

uint64_t axp_f64_add(uint64_t a, uint64_t b, struct axp_fpst *st)
{
	return add_sub(&F64, a, b, false, st);
}

uint64_t axp_f64_sub(uint64_t a, uint64_t b, struct axp_fpst *st)
{
	return add_sub(&F64, a, b, true, st);
}

uint64_t axp_f64_mul(uint64_t a, uint64_t b, struct axp_fpst *st)
{
	return mul(&F64, a, b, st);
}

uint64_t axp_f64_div(uint64_t a, uint64_t b, struct axp_fpst *st)
{
	return divide(&F64, a, b, st);
}

uint64_t axp_f64_sqrt(uint64_t a, struct axp_fpst *st)
{
	return square_root(&F64, a, st);
}

uint32_t axp_f32_add(uint32_t a, uint32_t b, struct axp_fpst *st)
{
	return (uint32_t)add_sub(&F32, a, b, false, st);
}

uint32_t axp_f32_sub(uint32_t a, uint32_t b, struct axp_fpst *st)
{
	return (uint32_t)add_sub(&F32, a, b, true, st);
}

uint32_t axp_f32_mul(uint32_t a, uint32_t b, struct axp_fpst *st)
{
	return (uint32_t)mul(&F32, a, b, st);
}

uint32_t axp_f32_div(uint32_t a, uint32_t b, struct axp_fpst *st)
{
	return (uint32_t)divide(&F32, a, b, st);
}

uint32_t axp_f32_sqrt(uint32_t a, struct axp_fpst *st)
{
	return (uint32_t)square_root(&F32, a, st);
}

uint32_t axp_f64_to_f32(uint64_t a, struct axp_fpst *st)
{
	return (uint32_t)convert(&F32, &F64, a, st);
}

uint64_t axp_f32_to_f64(uint32_t a, struct axp_fpst *st)
{
	return convert(&F64, &F32, a, st);
}

uint64_t axp_i64_to_f64(int64_t a, struct axp_fpst *st)
{
	return from_int(&F64, a, st);
}

uint32_t axp_i64_to_f32(int64_t a, struct axp_fpst *st)
{
	return (uint32_t)from_int(&F32, a, st);
}

/* Magnitude order of two non-NaN values: class (zero < finite < inf), exponent, significand. */
static int cmp_mag(const struct unp *a, const struct unp *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->cls != CLS_NORMAL)
		return 0;
	if (a->exp != b->exp)
		return a->exp < b->exp ? -1 : 1;
	if (a->sig != b->sig)
		return a->sig < b->sig ? -1 : 1;
	return 0;
}

int axp_f64_compare(uint64_t abits, uint64_t bbits, bool quiet, struct axp_fpst *st)
{
	struct unp a = unpack(&F64, abits, st), b = unpack(&F64, bbits, st);
	int r;

	if (a.cls >= CLS_QNAN || b.cls >= CLS_QNAN) {
		if (!quiet || a.cls == CLS_SNAN || b.cls == CLS_SNAN)
			st->flags |= AXP_FPF_INV;
		return AXP_CMP_UN;
	}
	if (a.cls == CLS_ZERO && b.cls == CLS_ZERO)
		return AXP_CMP_EQ;
	if (a.sign != b.sign)
		return a.sign ? AXP_CMP_LT : AXP_CMP_GT;
	r = cmp_mag(&a, &b);
	return a.sign ? -r : r;
}

/* CVTTQ (reference item 14; the integer result is not saturated). */
uint64_t axp_cvttq(uint64_t a, struct axp_fpst *st)
{
	bool sign = a >> 63;
	uint32_t e = (uint32_t)(a >> 52) & 0x7ff;
	uint64_t frac = a & ((1ull << 52) - 1), ret = 0, round = 0;
	int32_t shift;

	if (e == 0x7ff) {
		st->flags |= AXP_FPF_INV;
		return 0;
	}
	if (e == 0) {
		if (frac == 0)
			return 0;
		st->flags |= AXP_FPF_DENORM;
		if (st->daz)
			return 0;
		round = 1; /* below one half, not zero */
	} else {
		frac |= 1ull << 52;
		shift = (int32_t)e - 1075;
		if (shift >= 0) {
			ret = shift < 64 ? frac << shift : 0;
			if (shift >= 11 && a != 0xc3e0000000000000ull)
				st->flags |= AXP_FPF_IOV | AXP_FPF_INE;
			return sign ? -ret : ret;
		}
		if (-shift < 63) {
			ret = frac >> -shift;
			round = frac << (64 + shift);
		} else {
			round = 1;
		}
	}
	if (round) {
		st->flags |= AXP_FPF_INE;
		switch (st->rm) {
		case AXP_RM_NORMAL:
			if (round > (1ull << 63) || (round == (1ull << 63) && (ret & 1)))
				ret++;
			break;
		case AXP_RM_PLUS:
			ret += !sign;
			break;
		case AXP_RM_MINUS:
			ret += sign;
			break;
		default:
			break;
		}
	}
	return sign ? -ret : ret;
}

uint64_t axp_cvtql(uint64_t a, struct axp_fpst *st)
{
	if (a != (uint64_t)(int64_t)(int32_t)a)
		st->flags |= AXP_FPF_IOV | AXP_FPF_INE;
	return ((a & 0xc0000000ull) << 32) | ((a & 0x3fffffffull) << 29);
}

uint64_t axp_cvtlq(uint64_t a)
{
	uint32_t l = (uint32_t)(((a >> 32) & 0xc0000000ull) | ((a >> 29) & 0x3fffffffull));

	return (uint64_t)(int64_t)(int32_t)l;
}

/*
 * LDS: the 8-bit exponent is widened to 11 bits: 0xff -> 0x7ff, 0 -> 0, otherwise the top bit
 * is copied to bit 62 and its complement to bits 61:59 (Handbook 2.2.6, "S_floating load").
 */
uint64_t axp_s_from_mem(uint32_t m)
{
	uint32_t e8 = (m >> 23) & 0xff;
	uint64_t e11;

	if (e8 == 0xff)
		e11 = 0x7ff;
	else if (e8 == 0)
		e11 = 0;
	else if (e8 & 0x80)
		e11 = 0x400 | (e8 & 0x7f);
	else
		e11 = 0x380 | e8;
	return ((uint64_t)(m >> 31) << 63) | (e11 << 52) | ((uint64_t)(m & 0x7fffff) << 29);
}

uint32_t axp_s_to_mem(uint64_t r)
{
	return (uint32_t)(((r >> 32) & 0xc0000000ull) | ((r >> 29) & 0x3fffffffull));
}
