/* tests/analysis/test_an_culprit.c - DCPI stall culprits (an_culprit): each rule on small procedures. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "an_culprit.h"

/* Registers (Alpha software names). */
enum {
	V0 = 0,
	T0 = 1,
	T1 = 2,
	T2 = 3,
	T3 = 4,
	A0 = 16,
	A1 = 17,
	T12 = 27,
	RA = 26,
	SP = 30,
	ZERO = 31
};

static uint32_t mem(unsigned int opc, unsigned int ra, unsigned int rb, int disp)
{
	return opc << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xffff);
}

static uint32_t opr(unsigned int opc, unsigned int fn, unsigned int ra, unsigned int rb,
		    unsigned int rc)
{
	return opc << 26 | ra << 21 | rb << 16 | fn << 5 | rc;
}

static uint32_t oprl(unsigned int opc, unsigned int fn, unsigned int ra, unsigned int lit,
		     unsigned int rc)
{
	return opc << 26 | ra << 21 | lit << 13 | 1u << 12 | fn << 5 | rc;
}

static uint32_t bra(unsigned int opc, unsigned int ra, int disp)
{
	return opc << 26 | ra << 21 | ((uint32_t)disp & 0x1fffff);
}

#define LDQ(ra, rb, d) mem(0x29, ra, rb, d)
#define STQ(ra, rb, d) mem(0x2d, ra, rb, d)
#define LDA(ra, rb, d) mem(0x08, ra, rb, d)
#define ADDQ(ra, rb, rc) opr(0x10, 0x20, ra, rb, rc)
#define ADDQI(ra, l, rc) oprl(0x10, 0x20, ra, l, rc)
#define MULQ(ra, rb, rc) opr(0x13, 0x20, ra, rb, rc)
#define LDQ_U(ra, rb, d) mem(0x0b, ra, rb, d)
#define STL(ra, rb, d) mem(0x2c, ra, rb, d)
#define LDL(ra, rb, d) mem(0x28, ra, rb, d)
#define STB(ra, rb, d) mem(0x0e, ra, rb, d)
#define LDBU(ra, rb, d) mem(0x0a, ra, rb, d)
#define LDT(ra, rb, d) mem(0x23, ra, rb, d)
#define ADDT(ra, rb, rc) opr(0x16, 0x0a0, ra, rb, rc)
#define BSR(d) bra(0x34, RA, d)
#define UNOP LDQ_U(ZERO, SP, 0) /* what gcc emits: ldq_u r31,0(sp) */
#define TRAPB 0x63ff0000u
#define BNE(ra, d) bra(0x3d, ra, d)
#define BR(d) bra(0x30, ZERO, d)
#define JSR_T12 0x6b5b4000u
#define NOP 0x47ff041fu
#define CALLSYS 0x00000083u /* CALL_PAL callsys */

#define MAXI 256
#define MAXB 32
#define MAXE 64

struct proc {
	struct an_cp_insn in[MAXI];
	struct an_cp_callee callee[MAXI];
	bool with_callee; /* view() passes callee[] */
	struct an_cp_block bl[MAXB];
	struct an_cp_edge ed[MAXE];
	uint32_t ni, nb, ne;
	uint64_t pc; /* next address */
	double period[AN_EV_NR];
};

static void init(struct proc *p, uint64_t pc)
{
	memset(p, 0, sizeof(*p));
	p->pc = pc;
	p->period[AN_EV_CYCLES] = 1000;
}

static uint32_t block(struct proc *p, double f, uint32_t flags)
{
	assert_true(p->nb < MAXB);
	p->bl[p->nb] = (struct an_cp_block){ .first = p->ni, .f = f, .flags = flags };
	return p->nb++;
}

/* Append an instruction with M_i = m and s CYCLES samples to the last block. */
static uint32_t insn(struct proc *p, uint32_t word, uint32_t m, uint64_t s)
{
	struct an_cp_insn *in = &p->in[p->ni];

	assert_true(p->ni < MAXI && p->nb > 0);
	memset(in, 0, sizeof(*in));
	in->pc = p->pc;
	axp_decode(word, &in->d);
	assert_int_not_equal(in->d.op, AXP_OP_INVALID);
	in->block = p->nb - 1;
	in->m = m;
	in->ev[AN_EV_CYCLES] = s;
	p->pc += 4;
	p->bl[p->nb - 1].n++;
	return p->ni++;
}

static void edge(struct proc *p, uint32_t from, uint32_t to, double f)
{
	assert_true(p->ne < MAXE);
	p->ed[p->ne++] = (struct an_cp_edge){ .from = from, .to = to, .f = f };
}

static struct an_cp_proc view(const struct proc *p)
{
	struct an_cp_proc v = { .insns = p->in,
				.ninsns = p->ni,
				.blocks = p->bl,
				.nblocks = p->nb,
				.edges = p->ed,
				.nedges = p->ne,
				.callee = p->with_callee ? p->callee : NULL };

	memcpy(v.period, p->period, sizeof(v.period));
	return v;
}

static uint32_t cand_of(const struct proc *p, uint32_t i, uint32_t culprit[AN_CAUSE_NR])
{
	struct an_cp_proc v = view(p);
	uint32_t cand = 0, tmp[AN_CAUSE_NR];

	assert_int_equal(an_culprit_candidates(&v, NULL, i, &cand, culprit ? culprit : tmp), 0);
	return cand;
}

#define HAS(c, cause) (((c) >> (cause)) & 1u)

/*
 * I-cache, same-line rule (§6.2). Block B0 (entry) runs 0x1000..0x1024; B1 starts at 0x1028,
 * in B0's last line, and is reached from B0 (falling through) and from B2 in another line.
 */
static void test_an_culprit_icache_same_line_rule(void **state)
{
	struct proc p;
	uint32_t b0, b1, b2, mid, line_start, head;

	(void)state;
	init(&p, 0x1000);
	b0 = block(&p, 100, AN_CP_ENTRY);
	for (int k = 0; k < 9; k++)
		insn(&p, ADDQI(T1, 1, T1), 1, 100);
	mid = 4; /* 0x1010: inside the line 0x1000..0x101f, not a block head */
	line_start = 8; /* 0x1020: first instruction of a line */
	insn(&p, BNE(T1, 20), 1, 100); /* 0x1024 */
	b1 = block(&p, 100, 0);
	head = insn(&p, ADDQI(T2, 1, T2), 1, 500); /* 0x1028 */
	insn(&p, BR(-12), 1, 100);
	p.pc = 0x2000;
	b2 = block(&p, 40, 0);
	insn(&p, ADDQI(T3, 1, T3), 1, 40);
	insn(&p, BR(-0x3f7), 1, 40);
	edge(&p, b0, b1, 60);
	edge(&p, b2, b1, 40);

	assert_false(HAS(cand_of(&p, mid, NULL), AN_CAUSE_ICACHE));
	assert_true(HAS(cand_of(&p, line_start, NULL), AN_CAUSE_ICACHE));
	/* B2's branch is in another line: the head of B1 may miss. */
	assert_true(HAS(cand_of(&p, head, NULL), AN_CAUSE_ICACHE));
	/* Only from B0 (same line): ruled out. */
	p.ed[1].f = 0.5; /* B2 -> B1 now "executed much less frequently": ignored */
	assert_false(HAS(cand_of(&p, head, NULL), AN_CAUSE_ICACHE));
	/* The same page: no ITB miss either way; an entry can always miss. */
	assert_false(HAS(cand_of(&p, head, NULL), AN_CAUSE_ITB));
	assert_true(HAS(cand_of(&p, 0, NULL), AN_CAUSE_ICACHE));
	assert_true(HAS(cand_of(&p, 0, NULL), AN_CAUSE_ITB));
}

/* D-cache: a consumer of a load keeps the D-cache candidate, blaming that load. */
static void test_an_culprit_dcache_kept_for_load_consumer(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result r[8];
	uint32_t culprit[AN_CAUSE_NR], ld, use, indep;

	(void)state;
	init(&p, 0x4004);
	block(&p, 1000, AN_CP_ENTRY);
	insn(&p, LDA(T2, SP, 16), 1, 1000);
	ld = insn(&p, LDQ(T0, A0, 0), 0, 0);
	insn(&p, LDA(T3, SP, 32), 1, 1000);
	use = insn(&p, ADDQ(T0, T2, T1), 1, 41000); /* 40 cycles of dynamic stall */
	indep = insn(&p, ADDQ(T2, T3, V0), 1, 9000); /* 8 cycles, no load feeds it */
	v = view(&p);

	assert_true(HAS(cand_of(&p, use, culprit), AN_CAUSE_DCACHE));
	assert_int_equal(culprit[AN_CAUSE_DCACHE], ld);
	assert_false(HAS(cand_of(&p, indep, NULL), AN_CAUSE_DCACHE));

	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(fabs(r[use].dyn - 40000) < 1e-6);
	assert_true(fabs(r[use].cpi - 41) < 1e-9);
	/* Only the D-cache is left for the consumer (mid-line, not a head, not a memory op). */
	assert_int_equal(r[use].cand, 1u << AN_CAUSE_DCACHE);
	assert_true(fabs(r[use].lo[AN_CAUSE_DCACHE] - 40000) < 1e-6);
	assert_true(fabs(r[use].share[AN_CAUSE_DCACHE] - 40000) < 1e-6);
	assert_true(r[use].unexplained == 0);
	/* Every cause ruled out: the stall is unexplained. */
	assert_int_equal(r[indep].cand, 0);
	assert_true(fabs(r[indep].unexplained - 8000) < 1e-6);
}

/* The producer is found through a predecessor block (a loop's back edge). */
static void test_an_culprit_dcache_through_predecessor(void **state)
{
	struct proc p;
	uint32_t b0, b1, b2, use, culprit[AN_CAUSE_NR];

	(void)state;
	init(&p, 0x8000);
	b0 = block(&p, 10, AN_CP_ENTRY);
	insn(&p, LDA(T0, SP, 0), 1, 10);
	b1 = block(&p, 1000, 0);
	use = insn(&p, ADDQ(T0, T0, T1), 1, 5000);
	insn(&p, ADDQI(T1, 3, T2), 1, 1000);
	b2 = block(&p, 1000, 0);
	insn(&p, LDQ(T0, A0, 8), 1, 1000);
	insn(&p, BNE(T0, -4), 1, 1000);
	edge(&p, b0, b1, 10);
	edge(&p, b1, b2, 1000);
	edge(&p, b2, b1, 990);
	assert_true(HAS(cand_of(&p, use, culprit), AN_CAUSE_DCACHE));
	assert_int_equal(culprit[AN_CAUSE_DCACHE], 3);
	/* Entered only from B0, whose LDA writes t0: ruled out. */
	p.ed[2].f = 0.1; /* the back edge is now rare */
	p.bl[b1].f = 10; /* ... and B0 -> B1 is not */
	assert_false(HAS(cand_of(&p, use, NULL), AN_CAUSE_DCACHE));
}

/* Mispredicts: after a conditional branch yes, after an unconditional BR no; after a call yes. */
static void test_an_culprit_branch_rule(void **state)
{
	struct proc p;
	uint32_t b0, b1, b2, b3, h1, h2, after_call, culprit[AN_CAUSE_NR], br;

	(void)state;
	init(&p, 0x10000);
	b0 = block(&p, 100, AN_CP_ENTRY);
	insn(&p, ADDQI(T0, 1, T0), 1, 100);
	br = insn(&p, BNE(T0, 2), 1, 100);
	b1 = block(&p, 50, 0);
	h1 = insn(&p, ADDQI(T1, 1, T1), 1, 100);
	insn(&p, BR(0), 1, 50);
	b2 = block(&p, 100, 0);
	h2 = insn(&p, ADDQI(T2, 1, T2), 1, 100);
	insn(&p, JSR_T12, 1, 100);
	b3 = block(&p, 100, 0);
	after_call = insn(&p, ADDQI(T3, 1, T3), 1, 100);
	edge(&p, b0, b1, 50);
	edge(&p, b0, b2, 50);
	edge(&p, b1, b2, 50);
	edge(&p, b2, b3, 100);

	assert_true(HAS(cand_of(&p, h1, culprit), AN_CAUSE_BRANCH));
	assert_int_equal(culprit[AN_CAUSE_BRANCH], br);
	assert_true(HAS(cand_of(&p, h2, NULL), AN_CAUSE_BRANCH)); /* one path is the BNE */
	p.ed[1].f = 0.1; /* only through B1's BR now */
	assert_false(HAS(cand_of(&p, h2, NULL), AN_CAUSE_BRANCH));
	assert_true(HAS(cand_of(&p, after_call, NULL), AN_CAUSE_BRANCH)); /* the return */
	assert_false(HAS(cand_of(&p, 0, NULL), AN_CAUSE_DTB));
}

/*
 * After a CALL_PAL its PALcode is the one cause (DCPI SOSP'97 §4.1): inside a block and at a
 * block head all of whose paths come from CALL_PALs; not when another path comes in.
 */
static void test_an_culprit_after_call_pal(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result res[16];
	uint32_t b0, b1, b2, pal1, pal2, use, head, other, culprit[AN_CAUSE_NR];

	(void)state;
	init(&p, 0x10000);
	b0 = block(&p, 100, AN_CP_ENTRY);
	insn(&p, LDQ(T0, SP, 0), 1, 10);
	pal1 = insn(&p, CALLSYS, 1, 10);
	use = insn(&p, ADDQ(T0, T1, T2), 1, 500); /* reads the load's t0: D-cache otherwise */
	pal2 = insn(&p, CALLSYS, 1, 10);
	b1 = block(&p, 100, 0);
	head = insn(&p, LDQ(T3, SP, 8), 1, 400);
	other = insn(&p, BNE(T3, -2), 1, 10);
	b2 = block(&p, 100, 0);
	insn(&p, NOP, 1, 1);
	edge(&p, b0, b1, 100);
	edge(&p, b1, b2, 100);

	assert_int_equal(cand_of(&p, use, culprit), 1u << AN_CAUSE_PAL);
	assert_int_equal(culprit[AN_CAUSE_PAL], pal1);
	assert_int_equal(cand_of(&p, head, culprit), 1u << AN_CAUSE_PAL);
	assert_int_equal(culprit[AN_CAUSE_PAL], pal2);
	assert_false(HAS(cand_of(&p, other, NULL), AN_CAUSE_PAL));
	/* A second path into b1 from a block that ends in a BNE: the rule no longer holds. */
	edge(&p, b1, b1, 50);
	assert_false(HAS(cand_of(&p, head, NULL), AN_CAUSE_PAL));
	assert_true(HAS(cand_of(&p, head, NULL), AN_CAUSE_DTB));
	p.ne--;

	/* The whole dynamic stall goes to the call, none unexplained. */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, res), 0);
	assert_true(res[use].dyn > 0);
	assert_int_equal(res[use].cand, 1u << AN_CAUSE_PAL);
	assert_int_equal(res[use].culprit[AN_CAUSE_PAL], pal1);
	assert_true(fabs(res[use].share[AN_CAUSE_PAL] - res[use].dyn) < 1e-9);
	assert_true(res[use].unexplained == 0);
	assert_string_equal(an_cause_name(AN_CAUSE_PAL), "pal");
}

/* DTB and write buffer only for memory operations; FU busy only after another multiply. */
static void test_an_culprit_memory_and_unit_rules(void **state)
{
	struct proc p;
	uint32_t b0, b1, st, ld, mul1, mul2, add, culprit[AN_CAUSE_NR];

	(void)state;
	init(&p, 0x20000);
	b0 = block(&p, 10, AN_CP_ENTRY);
	mul1 = insn(&p, MULQ(A0, A1, T0), 1, 10);
	b1 = block(&p, 10, 0);
	st = insn(&p, STQ(T0, A1, 0), 1, 10);
	ld = insn(&p, LDQ(T1, A1, 8), 1, 10);
	add = insn(&p, ADDQ(T2, T3, T3), 1, 10);
	mul2 = insn(&p, MULQ(T3, T3, T3), 1, 10);
	edge(&p, b0, b1, 10);

	assert_true(HAS(cand_of(&p, st, NULL), AN_CAUSE_DTB));
	assert_true(HAS(cand_of(&p, st, NULL), AN_CAUSE_WBUF));
	assert_true(HAS(cand_of(&p, ld, NULL), AN_CAUSE_DTB));
	assert_false(HAS(cand_of(&p, ld, NULL), AN_CAUSE_WBUF));
	assert_false(HAS(cand_of(&p, add, NULL), AN_CAUSE_DTB));
	assert_false(HAS(cand_of(&p, add, NULL), AN_CAUSE_WBUF));
	assert_true(HAS(cand_of(&p, mul2, culprit), AN_CAUSE_UNIT));
	assert_int_equal(culprit[AN_CAUSE_UNIT], mul1);
	assert_false(HAS(cand_of(&p, mul1, NULL), AN_CAUSE_UNIT)); /* nothing before it */
	assert_false(HAS(cand_of(&p, add, NULL), AN_CAUSE_UNIT));
}

/* Event samples bound what a cause can explain (§6.2: IMISS bounds I-cache stalls). */
static void test_an_culprit_event_bounds(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result r[8];
	struct an_cp_params prm;
	uint32_t b0, b1, br, i;

	(void)state;
	init(&p, 0x2fff0);
	b0 = block(&p, 100, AN_CP_ENTRY);
	insn(&p, ADDQI(T0, 1, T0), 1, 100);
	insn(&p, ADDQI(T1, 1, T1), 1, 100);
	insn(&p, ADDQI(T2, 1, T2), 1, 100);
	br = insn(&p, BNE(T2, 0), 1, 100); /* 0x2fffc */
	b1 = block(&p, 100, 0);
	/* 0x30000: a new line and a new page after a conditional branch; t0 from an add */
	i = insn(&p, ADDQI(T0, 1, T0), 1, 10100); /* 100 cycles per execution of stall */
	insn(&p, NOP, 0, 0);
	edge(&p, b0, b1, 100);
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_int_equal(r[i].cand,
			 (1u << AN_CAUSE_ICACHE) | (1u << AN_CAUSE_ITB) | (1u << AN_CAUSE_BRANCH));
	assert_int_equal(r[i].culprit[AN_CAUSE_BRANCH], br);
	assert_true(fabs(r[i].hi[AN_CAUSE_ICACHE] - 10000) < 1e-6); /* no IMISS sampled */
	assert_true(r[i].lo[AN_CAUSE_ICACHE] == 0); /* ITB and branch could explain it all */

	/* IMISS, ITBMISS, BRANCHMP sampled: 2 IMISS samples at period 50, no others. */
	p.period[AN_EV_IMISS] = 50;
	p.period[AN_EV_ITBMISS] = 50;
	p.period[AN_EV_BRANCHMP] = 50;
	p.in[i].ev[AN_EV_IMISS] = 2;
	v = view(&p);
	an_cp_params_default(&prm);
	prm.cost[AN_CAUSE_ICACHE] = 40;
	assert_int_equal(an_culprit_explain(&v, &prm, r), 0);
	/* 100 misses x 40 cycles = 4000 cycles = 4 samples at period 1000. */
	assert_true(fabs(r[i].hi[AN_CAUSE_ICACHE] - 4.0) < 1e-9);
	assert_true(r[i].hi[AN_CAUSE_ITB] == 0 && r[i].hi[AN_CAUSE_BRANCH] == 0);
	assert_true(fabs(r[i].lo[AN_CAUSE_ICACHE] - 4.0) < 1e-9);
	assert_true(fabs(r[i].unexplained - (10000 - 4.0)) < 1e-6);
	assert_true(fabs(r[i].share[AN_CAUSE_ICACHE] - 4.0) < 1e-9);

	/* A mispredict event on the branch: it now bounds the branch cause. */
	p.in[br].ev[AN_EV_BRANCHMP] = 3; /* 150 mispredicts x 10 cycles = 1.5 samples */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, &prm, r), 0);
	assert_true(fabs(r[i].hi[AN_CAUSE_BRANCH] - 1.5) < 1e-9);
	assert_true(fabs(r[i].unexplained - (10000 - 5.5)) < 1e-6);
}

/* An entry: the mispredicted call is in the caller, so its events cannot bound the stall. */
static void test_an_culprit_entry_branch_unbounded(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result r[4];

	(void)state;
	init(&p, 0x40000);
	block(&p, 100, AN_CP_ENTRY);
	insn(&p, ADDQI(T0, 1, T0), 1, 1100);
	p.period[AN_EV_BRANCHMP] = 50;
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(HAS(r[0].cand, AN_CAUSE_BRANCH));
	assert_true(fabs(r[0].hi[AN_CAUSE_BRANCH] - 1000) < 1e-9);
}

/* No samples, no frequency: nothing to explain, nothing divided by zero. */
static void test_an_culprit_no_samples(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result r[4];

	(void)state;
	init(&p, 0x40000);
	block(&p, 0, AN_CP_ENTRY);
	insn(&p, LDQ(T0, A0, 0), 1, 0);
	insn(&p, ADDQ(T0, T0, T1), 1, 7); /* samples but F = 0 */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(r[0].dyn == 0 && r[0].cpi == 0);
	assert_true(r[1].cpi == 0 && fabs(r[1].dyn - 7) < 1e-12);
	assert_true(isfinite(r[1].share[AN_CAUSE_DCACHE]));
}

/*
 * Callee's result (issue 15): cxxshapes' geo::total, `jsr ra,(t12); ldah gp; lda gp; cmpeq;
 * addq s2,v0,s2`, the callee ending in MULQ v0: the addq may wait for it. The bound: the longest
 * integer latency (UMULH 14 + 2) minus the static cycles from the call to the reader.
 */
static void test_an_culprit_callee_result(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result r[16];
	struct an_cp_params prm;
	uint32_t b0, b1, b2, pre, call, gp1, cmp, use, other, sp_use, ra_use, fuse, mid, after;
	uint32_t culprit[AN_CAUSE_NR];

	(void)state;
	an_cp_params_default(&prm);
	assert_int_equal(prm.callee_lat[0], 16);
	assert_int_equal(prm.callee_lat[1], 22);
	init(&p, 0x60000);
	b0 = block(&p, 100, AN_CP_ENTRY);
	pre = insn(&p, ADDQ(A1, A1, T1), 1, 100); /* a1 from the caller: no call before it */
	call = insn(&p, JSR_T12, 1, 100);
	b1 = block(&p, 100, 0);
	gp1 = insn(&p, LDA(29, RA, 0), 1, 100); /* reads RA: the RET read it */
	insn(&p, LDA(29, 29, 8), 1, 100);
	cmp = insn(&p, ADDQ(29, 29, T2), 1, 100); /* gp: written after the call */
	use = insn(&p, ADDQ(9, V0, 9), 1, 1000); /* 9 cycles of dynamic stall per execution */
	sp_use = insn(&p, LDA(SP, SP, 16), 1, 100);
	ra_use = insn(&p, ADDQ(RA, RA, T3), 0, 100);
	fuse = insn(&p, ADDT(0, 1, 2), 1, 100); /* f0, f1: FP results of the callee */
	insn(&p, LDA(V0, ZERO, 1), 1, 100); /* v0 written after the call ... */
	after = insn(&p, ADDQ(V0, V0, T3), 1, 100); /* ... so this v0 is not the callee's */
	b2 = block(&p, 100, 0);
	mid = insn(&p, ADDQ(V0, T3, T3), 1, 100); /* through b1 the writer is that LDA */
	other = insn(&p, ADDQ(T2, T2, T3), 1, 100); /* t2: cmp's */
	edge(&p, b0, b1, 100);
	edge(&p, b1, b2, 100);

	assert_true(HAS(cand_of(&p, use, culprit), AN_CAUSE_CALLEE));
	assert_int_equal(culprit[AN_CAUSE_CALLEE], call);
	assert_true(HAS(cand_of(&p, fuse, NULL), AN_CAUSE_CALLEE));
	assert_false(HAS(cand_of(&p, gp1, NULL), AN_CAUSE_CALLEE)); /* RA */
	assert_false(HAS(cand_of(&p, sp_use, NULL), AN_CAUSE_CALLEE)); /* SP */
	assert_false(HAS(cand_of(&p, ra_use, NULL), AN_CAUSE_CALLEE));
	assert_false(HAS(cand_of(&p, cmp, NULL), AN_CAUSE_CALLEE)); /* gp: written since */
	assert_false(HAS(cand_of(&p, pre, NULL), AN_CAUSE_CALLEE)); /* no call before it */
	assert_false(HAS(cand_of(&p, after, NULL), AN_CAUSE_CALLEE)); /* v0 rewritten since */
	assert_false(HAS(cand_of(&p, mid, NULL), AN_CAUSE_CALLEE));
	assert_false(HAS(cand_of(&p, other, NULL), AN_CAUSE_CALLEE));

	/* The bound: 16 - 4 cycles (gp, gp, cmp, the reader) = 12 per execution. */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(fabs(r[use].dyn - 900) < 1e-9);
	assert_true(fabs(r[use].hi[AN_CAUSE_CALLEE] - 900) < 1e-9);
	assert_true(r[use].unexplained == 0);
	p.in[use].ev[AN_EV_CYCLES] = 1500; /* 14 per execution: more than 12 */
	p.period[AN_EV_DMISS] = 50; /* no DMISS samples: the D-cache explains none */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(fabs(r[use].hi[AN_CAUSE_CALLEE] - 1200) < 1e-9);
	assert_true(fabs(r[use].unexplained - 200) < 1e-9);
	/* FP: 22 cycles minus the 6 from the call to the ADDT: a 17-cycle stall is 1 too many. */
	p.in[fuse].ev[AN_EV_CYCLES] = 1800;
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(fabs(r[fuse].hi[AN_CAUSE_CALLEE] - 1600) < 1e-9);

	/* A known callee (a BSR to a leaf): what it leaves in flight at its RET, for the registers
	 * it writes. Here it writes v0, s2, f0 and f1 and leaves 10 cycles in an integer one, none
	 * in an FP one: 10 - 4 = 6 per execution for the addq, nothing for the addt. */
	p.with_callee = true;
	p.callee[call] =
		(struct an_cp_callee){ .known = true,
				       .written = 1ull << V0 | 1ull << 9 | 1ull << 32 | 1ull << 33,
				       .wait = { 10, 0 } };
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(fabs(r[use].hi[AN_CAUSE_CALLEE] - 600) < 1e-9);
	assert_false(HAS(r[fuse].cand, AN_CAUSE_CALLEE));
	/* Nothing in flight at its RET (an add right before it): ruled out ... */
	p.callee[call].wait[0] = 1;
	assert_false(HAS(cand_of(&p, use, NULL), AN_CAUSE_CALLEE));
	/* ... unless it leaves s2 alone: the caller's own s2 producer may still be in flight. */
	p.callee[call].written = 1ull << V0;
	assert_true(HAS(cand_of(&p, use, NULL), AN_CAUSE_CALLEE));
	p.with_callee = false;

	/* Far enough from the call (16 cycles of schedule in between): nothing can be left. */
	p.in[cmp].m = 14;
	assert_false(HAS(cand_of(&p, use, NULL), AN_CAUSE_CALLEE));
	p.in[cmp].m = 1;
	/* The call in the same block, right before: the same rule (a BSR too). */
	p.in[call].d.op = AXP_OP_BSR;
	axp_decode(BSR(0), &p.in[call].d);
	assert_true(HAS(cand_of(&p, use, NULL), AN_CAUSE_CALLEE));
}

/*
 * Replay (issue 15, 21164 HRM p. 2-33): callargs' ca_site_a, `stq ra,0(sp); unop; bsr`, the unop
 * being ldq_u r31,0(sp) issued the cycle after the store to its quadword. Not for another base,
 * a rewritten base, another quadword, a load far enough, or when another store came last.
 */
static void test_an_culprit_replay_after_store(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result r[32];
	uint32_t st, un, st2, ld2, st3, ld3, st4, ld4, ld5, st6, ld6, ld7, st8, ld8, ld9, ld10,
		ld11;
	uint32_t ld12;
	uint32_t b1, h, culprit[AN_CAUSE_NR];

	(void)state;
	init(&p, 0x70000);
	block(&p, 100, AN_CP_ENTRY);
	insn(&p, LDA(SP, SP, -16), 1, 100);
	st = insn(&p, STQ(RA, SP, 0), 1, 100);
	un = insn(&p, UNOP, 1, 800); /* 7 cycles of replay per execution */
	insn(&p, BSR(0), 1, 100);
	b1 = block(&p, 100, 0);
	st2 = insn(&p, STQ(T0, A0, 0), 1, 100);
	ld2 = insn(&p, LDQ(T1, A1, 0), 1, 100); /* another base */
	st3 = insn(&p, STQ(T0, A0, 0), 1, 100);
	insn(&p, LDA(A0, A0, 8), 0, 100);
	ld3 = insn(&p, LDQ(T1, A0, 0), 1, 100); /* the same displacement, but a0 moved on */
	st4 = insn(&p, STQ(T0, A0, 0), 1, 100);
	ld4 = insn(&p, LDQ(T1, A0, 8), 1, 100); /* the next quadword */
	ld5 = insn(&p, LDL(T1, A0, 4), 2, 100); /* in st4's quadword, but 3 cycles after it */
	st6 = insn(&p, STL(T0, A0, 4), 1, 100);
	ld6 = insn(&p, LDQ_U(T1, A0, 0), 1, 100); /* 0(a0) and 4(a0): one quadword */
	ld7 = insn(&p, LDT(1, A0, 4), 3, 100); /* in st6's quadword, 4 cycles after */
	st8 = insn(&p, STB(T0, A0, 7), 1, 100);
	ld8 = insn(&p, LDBU(T1, A0, 8), 1, 100); /* 7(a0) and 8(a0) may share a quadword */
	insn(&p, STQ(T0, A0, 0), 1, 100);
	insn(&p, STQ(T0, A0, 16), 1, 100);
	ld9 = insn(&p, LDQ(T1, A0, 0), 1, 100); /* the first store's quadword, but not the last's */
	insn(&p, STQ(T0, A0, 24), 1, 100);
	insn(&p, NOP, 0, 100);
	ld10 = insn(&p, LDQ(T1, A0, 24), 1, 100); /* same cycle group as the NOP: 1 cycle after */
	insn(&p, STQ(T0, SP, 8), 1, 100);
	insn(&p, BNE(T1, 0), 0, 100);
	h = block(&p, 100, 0);
	ld11 = insn(&p, LDQ(T2, SP, 8), 1, 100); /* through the block boundary */
	insn(&p, STQ(T0, ZERO, 256), 1, 100);
	insn(&p, TRAPB, 0, 100); /* writes nothing */
	ld12 = insn(&p, LDQ(T1, ZERO, 256), 1, 100); /* base R31: never rewritten */
	edge(&p, 0, b1, 100);
	edge(&p, b1, h, 100);
	(void)st;

	assert_true(HAS(cand_of(&p, un, culprit), AN_CAUSE_REPLAY));
	assert_int_equal(culprit[AN_CAUSE_REPLAY], st);
	assert_false(HAS(cand_of(&p, ld2, NULL), AN_CAUSE_REPLAY));
	assert_false(HAS(cand_of(&p, ld3, NULL), AN_CAUSE_REPLAY));
	assert_false(HAS(cand_of(&p, ld4, NULL), AN_CAUSE_REPLAY));
	assert_false(HAS(cand_of(&p, ld5, NULL), AN_CAUSE_REPLAY));
	assert_true(HAS(cand_of(&p, ld6, culprit), AN_CAUSE_REPLAY));
	assert_int_equal(culprit[AN_CAUSE_REPLAY], st6);
	assert_false(HAS(cand_of(&p, ld7, NULL), AN_CAUSE_REPLAY));
	assert_true(HAS(cand_of(&p, ld8, culprit), AN_CAUSE_REPLAY));
	assert_int_equal(culprit[AN_CAUSE_REPLAY], st8);
	assert_false(HAS(cand_of(&p, ld9, NULL), AN_CAUSE_REPLAY));
	assert_true(HAS(cand_of(&p, ld10, NULL), AN_CAUSE_REPLAY));
	assert_true(HAS(cand_of(&p, ld11, NULL), AN_CAUSE_REPLAY));
	assert_true(HAS(cand_of(&p, ld12, NULL), AN_CAUSE_REPLAY));
	(void)st2;
	(void)st3;
	(void)st4;
	/* Stores are not candidates; an add is not. */
	assert_false(HAS(cand_of(&p, st4, NULL), AN_CAUSE_REPLAY));
	assert_false(HAS(cand_of(&p, 0, NULL), AN_CAUSE_REPLAY));

	/* The bound: 7 cycles per execution (cost[REPLAY]); here exactly the stall. */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(fabs(r[un].dyn - 700) < 1e-9);
	assert_true(fabs(r[un].hi[AN_CAUSE_REPLAY] - 700) < 1e-9);
	assert_true(r[un].unexplained == 0);
	p.in[un].ev[AN_EV_CYCLES] = 1000; /* 9 cycles: 2 more than a replay costs */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
	assert_true(fabs(r[un].hi[AN_CAUSE_REPLAY] - 700) < 1e-9);
	assert_true(fabs(r[un].unexplained - 200) < 1e-9);
	assert_string_equal(an_cause_name(AN_CAUSE_REPLAY), "replay");
	assert_string_equal(an_cause_name(AN_CAUSE_CALLEE), "callee");
}

static void test_an_culprit_bad_input(void **state)
{
	struct proc p;
	struct an_cp_proc v;
	struct an_cp_result r[4];
	uint32_t cand, culprit[AN_CAUSE_NR];

	(void)state;
	init(&p, 0x50000);
	block(&p, 1, AN_CP_ENTRY);
	insn(&p, NOP, 1, 1);
	insn(&p, NOP, 1, 1);
	p.in[1].block = 3; /* no such block */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), -EINVAL);
	p.in[1].block = 0;
	edge(&p, 0, 9, 1); /* no such block */
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), -EINVAL);
	p.ne = 0;
	p.in[0].d.op = AXP_OP_NR;
	v = view(&p);
	assert_int_equal(an_culprit_explain(&v, NULL, r), -EINVAL);
	p.in[0].d.op = AXP_OP_BIS;
	v = view(&p);
	assert_int_equal(an_culprit_candidates(&v, NULL, 2, &cand, culprit), -EINVAL);
	/* An empty procedure is fine. */
	memset(&v, 0, sizeof(v));
	assert_int_equal(an_culprit_explain(&v, NULL, r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_culprit_icache_same_line_rule),
		cmocka_unit_test(test_an_culprit_dcache_kept_for_load_consumer),
		cmocka_unit_test(test_an_culprit_dcache_through_predecessor),
		cmocka_unit_test(test_an_culprit_branch_rule),
		cmocka_unit_test(test_an_culprit_after_call_pal),
		cmocka_unit_test(test_an_culprit_memory_and_unit_rules),
		cmocka_unit_test(test_an_culprit_event_bounds),
		cmocka_unit_test(test_an_culprit_entry_branch_unbounded),
		cmocka_unit_test(test_an_culprit_no_samples),
		cmocka_unit_test(test_an_culprit_callee_result),
		cmocka_unit_test(test_an_culprit_replay_after_store),
		cmocka_unit_test(test_an_culprit_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
