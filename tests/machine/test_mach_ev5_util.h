/* tests/machine/test_mach_ev5_util.h - EV5 test helpers: encodings, synthetic feed. */
#ifndef TEST_MACH_EV5_UTIL_H
#define TEST_MACH_EV5_UTIL_H

#include "mach_ev5_model.h"

/* Encodings (Alpha Architecture Handbook ch. 3.3). */
static inline uint32_t e_mem(unsigned int op, unsigned int ra, unsigned int rb, int disp)
{
	return (op << 26) | (ra << 21) | (rb << 16) | ((uint32_t)disp & 0xffff);
}

static inline uint32_t e_opr(unsigned int op, unsigned int fn, unsigned int ra, unsigned int rb,
			     unsigned int rc)
{
	return (op << 26) | (ra << 21) | (rb << 16) | (fn << 5) | rc;
}

static inline uint32_t e_lit(unsigned int op, unsigned int fn, unsigned int ra, unsigned int lit,
			     unsigned int rc)
{
	return (op << 26) | (ra << 21) | (lit << 13) | (1u << 12) | (fn << 5) | rc;
}

static inline uint32_t e_fpo(unsigned int op, unsigned int fn11, unsigned int fa, unsigned int fb,
			     unsigned int fc)
{
	return (op << 26) | (fa << 21) | (fb << 16) | (fn11 << 5) | fc;
}

static inline uint32_t e_bra(unsigned int op, unsigned int ra, int disp)
{
	return (op << 26) | (ra << 21) | ((uint32_t)disp & 0x1fffff);
}

static inline uint32_t e_jmp(unsigned int fn, unsigned int ra, unsigned int rb, unsigned int hint)
{
	return (0x1au << 26) | (ra << 21) | (rb << 16) | (fn << 14) | (hint & 0x3fff);
}

#define ADDQ(a, b, c) e_opr(0x10, 0x20, a, b, c)
#define ADDQI(a, l, c) e_lit(0x10, 0x20, a, l, c)
#define CMPULT(a, b, c) e_opr(0x10, 0x1d, a, b, c)
#define SLLI(a, l, c) e_lit(0x12, 0x39, a, l, c)
#define CMOVEQ(a, b, c) e_opr(0x11, 0x24, a, b, c)
#define MULL(a, b, c) e_opr(0x13, 0x00, a, b, c)
#define MULQ(a, b, c) e_opr(0x13, 0x20, a, b, c)
#define LDQ(a, d, b) e_mem(0x29, a, b, d)
#define STQ(a, d, b) e_mem(0x2d, a, b, d)
#define ADDT(a, b, c) e_fpo(0x16, 0x0a0, a, b, c)
#define MULT(a, b, c) e_fpo(0x16, 0x0a2, a, b, c)
#define DIVT(a, b, c) e_fpo(0x16, 0x0a3, a, b, c)
#define BR(d) e_bra(0x30, 31, d)
#define BSR(d) e_bra(0x34, 26, d)
#define BEQ(a, d) e_bra(0x39, a, d)
#define BNE(a, d) e_bra(0x3d, a, d)
#define RET() e_jmp(2, 31, 26, 1)
#define JMP(rb, hint) e_jmp(0, 31, rb, hint)
#define NOP() e_opr(0x11, 0x20, 31, 31, 31)

/* Retire one instruction; returns its head-of-issue cycles. */
static inline uint64_t feed(struct mach_ev5 *m, uint32_t word, uint64_t pc, uint64_t next_pc,
			    uint64_t ea)
{
	struct axp_insn d;
	struct axp_event ev;
	uint32_t f;
	uint64_t c0 = mach_ev5_cycles(m);

	axp_decode(word, &d);
	f = axp_op_info[d.op].flags;
	memset(&ev, 0, sizeof(ev));
	ev.pc = pc;
	ev.next_pc = next_pc;
	ev.word = word;
	ev.op = d.op;
	ev.dest = AXP_NO_DEST;
	ev.size = (uint8_t)axp_mem_size(f);
	ev.ea = ea;
	ev.is_load = (f & AXP_F_LD) != 0;
	ev.is_store = (f & AXP_F_ST) != 0;
	ev.taken = next_pc != pc + 4;
	mach_ev5_retire(m, &d, &ev);
	return mach_ev5_cycles(m) - c0;
}

/* Straight-line: next_pc = pc + 4. */
static inline uint64_t feed1(struct mach_ev5 *m, uint32_t word, uint64_t pc, uint64_t ea)
{
	return feed(m, word, pc, pc + 4, ea);
}

/* A model with default parameters, truth on, no memory-bus limit (simple arithmetic). */
static inline struct mach_ev5 *new_model(void)
{
	struct mach_ev5_params p;
	struct mach_ev5 *m = NULL;

	mach_ev5_params_default(&p);
	p.truth = true;
	p.mem_occupancy = 0;
	if (mach_ev5_new_params(&m, &p))
		return NULL;
	return m;
}

static inline struct mach_truth_pc truth_of(struct mach_ev5 *m, uint64_t pc)
{
	struct mach_truth_pc r;

	if (!mach_ev5_truth_get(m, pc, &r))
		memset(&r, 0, sizeof(r));
	return r;
}

#endif /* TEST_MACH_EV5_UTIL_H */
