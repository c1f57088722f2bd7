/* tests/diff/diffgen.h - helpers shared by vecgen and diffcheck: PRNG, op list, instruction text. */
#ifndef DIFFGEN_H
#define DIFFGEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "axp.h"
#include "diffvec.h"

/* xoshiro256** seeded through splitmix64: one independent stream per (seed, vector number). */
struct dg_rng {
	uint64_t s[4];
};

static inline uint64_t dg_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void dg_rng_init(struct dg_rng *g, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed * 0x2545f4914f6cdd1dull ^ stream * 0x9e3779b97f4a7c15ull ^
		     0xa0761d6478bd642full;
	int i;

	for (i = 0; i < 4; i++)
		g->s[i] = dg_splitmix(&x);
}

static inline uint64_t dg_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t dg_next(struct dg_rng *g)
{
	uint64_t *s = g->s;
	uint64_t r = dg_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = dg_rotl(s[3], 45);
	return r;
}

/* Uniform in [0, n). */
static inline uint32_t dg_below(struct dg_rng *g, uint32_t n)
{
	return (uint32_t)(((dg_next(g) >> 32) * (uint64_t)n) >> 32);
}

/* True with probability pct percent. */
static inline bool dg_chance(struct dg_rng *g, unsigned int pct)
{
	return dg_below(g, 100) < pct;
}

/* The operations the differential test sends to qemu: all but CALL_PAL and the PAL-reserved
 * opcodes (which a user program never executes). */
static inline bool dg_op_is_tested(unsigned int op)
{
	if (op >= AXP_OP_INVALID)
		return false;
	return op != AXP_OP_CALL_PAL && axp_op_info[op].fmt != AXP_FMT_PCD;
}

/* Qualifier suffix of an FP operate word, binutils spelling ("" when none). */
static inline void dg_quals(const struct axp_insn *d, char *buf, size_t size)
{
	const struct axp_op_info *in = axp_info(d);
	unsigned int q = d->fn11;
	char s[8];
	size_t n = 0;
	bool int_result = d->op == AXP_OP_CVTTQ || d->op == AXP_OP_CVTQL ||
			  d->op == AXP_OP_CVTQLV || d->op == AXP_OP_CVTQLSV;

	buf[0] = 0;
	if (in->fmt != AXP_FMT_FPO && in->fmt != AXP_FMT_ITF)
		return;
	if (in->opcode == 0x17)
		return;
	if (q & AXP_FN11_S)
		s[n++] = 's';
	if (q & AXP_FN11_U)
		s[n++] = int_result ? 'v' : 'u';
	if (q & AXP_FN11_I)
		s[n++] = 'i';
	switch (q & AXP_FN11_RM_MASK) {
	case AXP_FN11_RM_C:
		s[n++] = 'c';
		break;
	case AXP_FN11_RM_M:
		s[n++] = 'm';
		break;
	case AXP_FN11_RM_D:
		s[n++] = 'd';
		break;
	default:
		break;
	}
	s[n] = 0;
	if (n)
		snprintf(buf, size, "/%s", s);
}

/* A readable text for a word at pc: mnemonic, qualifiers, operands in encoding order. */
static inline void dg_format(uint32_t word, uint64_t pc, char *buf, size_t size)
{
	struct axp_insn d;
	const struct axp_op_info *in;
	char q[16];
	char ra[8], rb[8], rc[8];

	axp_decode(word, &d);
	in = axp_info(&d);
	if (d.op == AXP_OP_INVALID) {
		snprintf(buf, size, ".long 0x%08x (opcode 0x%02x fn11 0x%03x)", word, word >> 26,
			 d.fn11);
		return;
	}
	dg_quals(&d, q, sizeof(q));
	snprintf(ra, sizeof(ra), "%s%u", (in->flags & AXP_F_FA) ? "$f" : "r", d.ra);
	snprintf(rb, sizeof(rb), "%s%u", (in->flags & AXP_F_FB) ? "$f" : "r", d.rb);
	snprintf(rc, sizeof(rc), "%s%u", (in->flags & AXP_F_FC) ? "$f" : "r", d.rc);
	switch (in->fmt) {
	case AXP_FMT_MEM:
		snprintf(buf, size, "%s %s,%d(%s)", in->name, ra, (int)d.disp, rb);
		break;
	case AXP_FMT_BRA:
		snprintf(buf, size, "%s %s,0x%llx", in->name, ra,
			 (unsigned long long)(pc + 4 + 4 * (int64_t)d.disp));
		break;
	case AXP_FMT_JMP:
		snprintf(buf, size, "%s %s,(%s),0x%x", in->name, ra, rb, (unsigned int)d.disp);
		break;
	case AXP_FMT_MSC:
		snprintf(buf, size, "%s %s,%s", in->name, ra, rb);
		break;
	case AXP_FMT_OPR:
	case AXP_FMT_FTI:
		if (d.islit)
			snprintf(buf, size, "%s %s,%u,%s", in->name, ra, d.lit, rc);
		else
			snprintf(buf, size, "%s %s,%s,%s", in->name, ra, rb, rc);
		break;
	case AXP_FMT_ITF:
		snprintf(buf, size, "%s%s r%u,%s,%s", in->name, q, d.ra, rb, rc);
		break;
	default:
		snprintf(buf, size, "%s%s %s,%s,%s", in->name, q, ra, rb, rc);
		break;
	}
}

#endif /* DIFFGEN_H */
