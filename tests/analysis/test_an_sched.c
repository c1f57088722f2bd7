/* tests/analysis/test_an_sched.c - static EV5 schedule: Mi, issue points, stall culprits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "img.h"
#include "an_proc.h"
#include "an_sched.h"
#include "fixtures/mkelf.h"
#include "mach_ev5_model.h"

/* Integer registers (objdump names). */
enum { V0 = 0, T0, T1, T2, T3, T4, T5, T6, T7, A0 = 16, RA = 26, ZERO = 31 };

#define LDQ(ra, d, rb) enc_mem(0x29, ra, rb, d)
#define STQ(ra, d, rb) enc_mem(0x2d, ra, rb, d)
#define LDA(ra, d, rb) enc_mem(0x08, ra, rb, d)
#define ADDQ(ra, rb, rc) enc_opr(0x10, 0x20, ra, rb, rc)
#define ADDQI(ra, l, rc) enc_oprl(0x10, 0x20, ra, l, rc)
#define CMPULT(ra, rb, rc) enc_opr(0x10, 0x1d, ra, rb, rc)
#define CMPEQ(ra, rb, rc) enc_opr(0x10, 0x2d, ra, rb, rc)
#define SLLI(ra, l, rc) enc_oprl(0x12, 0x39, ra, l, rc)
#define SRLI(ra, l, rc) enc_oprl(0x12, 0x34, ra, l, rc)
#define MULQ(ra, rb, rc) enc_opr(0x13, 0x20, ra, rb, rc)
#define MULL(ra, rb, rc) enc_opr(0x13, 0x00, ra, rb, rc)
#define ADDT(fa, fb, fc) enc_fpo(0x16, 0x0a0, fa, fb, fc)
#define MULT(fa, fb, fc) enc_fpo(0x16, 0x0a2, fa, fb, fc)
#define DIVT(fa, fb, fc) enc_fpo(0x16, 0x0a3, fa, fb, fc)
#define DIVS(fa, fb, fc) enc_fpo(0x16, 0x083, fa, fb, fc)
#define TRAPB 0x63ff0000u
#define BNE(ra, at, to) enc_bra(0x3d, ra, at, to)
#define BEQ(ra, at, to) enc_bra(0x39, ra, at, to)

static struct an_sched_model *model;

static int setup(void **state)
{
	(void)state;
	return an_sched_model_new(&model);
}

static int teardown(void **state)
{
	(void)state;
	an_sched_model_free(model);
	return 0;
}

#define MAXI 32

/* Schedule words at addr into out. */
static void sched(const uint32_t *w, uint32_t n, uint64_t addr, struct an_sched_insn *out)
{
	struct axp_insn d[MAXI];

	assert_true(n <= MAXI);
	for (uint32_t i = 0; i < n; i++)
		axp_decode(w[i], &d[i]);
	assert_int_equal(an_sched_block(model, d, addr, n, out), 0);
}

static void expect_m(const struct an_sched_insn *s, const unsigned int *m, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (s[i].m != m[i])
			fail_msg("instruction %u: M %u, expected %u (cycle %u)", i, s[i].m, m[i],
				 s[i].cycle);
}

/* DCPI SOSP'97 Figure 7: the copy loop at 0x9810 and its published M column. */
static void test_an_sched_dcpi_figure7(void **state)
{
	const uint32_t w[] = {
		LDQ(T4, 0, T1),	 ADDQI(T0, 4, T0), LDQ(T5, 8, T1),  LDQ(T6, 16, T1),
		LDQ(A0, 24, T1), LDA(T1, 32, T1),  STQ(T4, 0, T2),  CMPULT(T0, V0, T4),
		STQ(T5, 8, T2),	 STQ(T6, 16, T2),  STQ(A0, 24, T2), LDA(T2, 32, T2),
		BNE(T4, 12, 0),
	};
	const unsigned int m[] = { 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1 };
	struct an_sched_insn s[13];

	(void)state;
	sched(w, 13, 0x9810, s);
	expect_m(s, m, 13);
	/* issue points are exactly the instructions with M > 0 */
	for (int i = 0; i < 13; i++)
		assert_int_equal(an_sched_is_issue_point(&s[i]), m[i] > 0);
	/* stq t4 waits: ldq a0 and lda t1 hold both integer pipes (and a store does not issue
	 * with a load) */
	assert_int_equal(s[6].reason, AN_STALL_SLOT);
	assert_int_equal(s[6].culprit, 5); /* lda t1: both integer pipes are taken */
	/* ldq t5 cannot join ldq t4 + addq: both integer pipes are taken */
	assert_int_equal(s[2].reason, AN_STALL_SLOT);
	assert_int_equal(s[12].cycle, 7);
}

/* Independent E0 and E1/E01 instructions issue together; two E0-only ones do not. */
static void test_an_sched_dual_issue(void **state)
{
	const uint32_t w1[] = { SLLI(T0, 1, T1), ADDQI(T2, 1, T3) };
	const uint32_t w2[] = { SLLI(T0, 1, T1), SRLI(T2, 1, T3) };
	const uint32_t w3[] = { SLLI(T0, 1, T1), BEQ(T5, 1, 8) };
	struct an_sched_insn s[2];

	(void)state;
	sched(w1, 2, 0x1000, s);
	assert_int_equal(s[0].cycle, 0);
	assert_int_equal(s[1].cycle, 0);
	assert_int_equal(s[1].m, 0);
	assert_int_equal(s[1].stall, 0);

	sched(w2, 2, 0x1000, s);
	assert_int_equal(s[1].cycle, 1);
	assert_int_equal(s[1].m, 1);
	assert_int_equal(s[1].reason, AN_STALL_SLOT);
	assert_int_equal(s[1].culprit, 0);

	sched(w3, 2, 0x1000, s); /* E0 shift + E1 branch */
	assert_int_equal(s[1].cycle, 0);
	assert_int_equal(s[1].m, 0);
}

/* A load's consumer waits two cycles (D-cache hit latency). */
static void test_an_sched_load_use(void **state)
{
	const uint32_t w[] = { LDQ(T0, 0, T1), ADDQI(T0, 1, T2) };
	struct an_sched_insn s[2];

	(void)state;
	sched(w, 2, 0x2000, s);
	assert_int_equal(s[0].m, 1);
	assert_int_equal(s[1].cycle, 2);
	assert_int_equal(s[1].m, 2);
	assert_int_equal(s[1].stall, 2);
	assert_int_equal(s[1].reason, AN_STALL_DEP);
	assert_int_equal(s[1].culprit, 0);
	assert_int_equal(s[1].lat, 2);
}

/* The multiplier is busy 8 cycles after MULQ; MULQ's result comes 12 cycles later, MULL's 8. */
static void test_an_sched_imul(void **state)
{
	const uint32_t busy[] = { MULQ(T0, T1, T2), MULQ(T3, T4, T5) };
	const uint32_t lat[] = { MULQ(T0, T1, T2), ADDQI(T2, 1, T3) };
	const uint32_t latl[] = { MULL(T0, T1, T2), ADDQI(T2, 1, T3) };
	struct an_sched_insn s[2];

	(void)state;
	sched(busy, 2, 0x3000, s);
	assert_int_equal(s[1].cycle, 8);
	assert_int_equal(s[1].reason, AN_STALL_UNIT);
	assert_int_equal(s[1].culprit, 0);

	sched(lat, 2, 0x3000, s);
	assert_int_equal(s[1].cycle, 12);
	assert_int_equal(s[1].reason, AN_STALL_DEP);
	assert_int_equal(s[1].lat, 12);

	sched(latl, 2, 0x3000, s);
	assert_int_equal(s[1].cycle, 8);
	assert_int_equal(s[1].lat, 8);
}

/* A source produced just before a multiply makes its result 2 cycles late [ev5.md]. */
static void test_an_sched_imul_input_penalty(void **state)
{
	const uint32_t w[] = { ADDQI(T0, 1, T0), MULL(T0, T1, T2), ADDQI(T2, 1, T3) };
	struct an_sched_insn s[3];

	(void)state;
	sched(w, 3, 0x3000, s);
	assert_int_equal(s[1].cycle, 1);
	assert_int_equal(s[2].cycle, 1 + 8 + 2);
	assert_int_equal(s[2].lat, 10);
}

/* E0 is reserved two cycles before a multiply completes: an E0-only op waits, E01 does not. */
static void test_an_sched_imul_reserves_e0(void **state)
{
	const uint32_t w[] = {
		MULL(T0, T1, T2), LDQ(T5, 0, T6),   ADDQI(T5, 1, T5), ADDQI(T5, 1, T5),
		ADDQI(T5, 1, T5), ADDQI(T5, 1, T5), SLLI(T5, 1, T5),
	};
	uint32_t w2[7];
	struct an_sched_insn s[7];

	(void)state;
	sched(w, 7, 0x4000, s);
	assert_int_equal(s[5].cycle, 5);
	assert_int_equal(s[6].cycle, 7);
	assert_int_equal(s[6].reason, AN_STALL_UNIT);
	assert_int_equal(s[6].culprit, 0);

	memcpy(w2, w, sizeof(w2));
	w2[6] = ADDQI(T5, 1, T5);
	sched(w2, 7, 0x4000, s);
	assert_int_equal(s[6].cycle, 6);
}

/* FP latencies: FADD/FMUL 4, DIVT 22, DIVS 15; the divider is busy for the whole divide. */
static void test_an_sched_fp(void **state)
{
	const uint32_t add_mul[] = { ADDT(1, 2, 3), MULT(3, 4, 5) };
	const uint32_t divt[] = { DIVT(1, 2, 3), ADDT(3, 4, 5) };
	const uint32_t divs[] = { DIVS(1, 2, 3), ADDT(3, 4, 5) };
	const uint32_t two[] = { DIVT(1, 2, 3), DIVT(4, 5, 6) };
	const uint32_t pair[] = { ADDT(1, 2, 3), MULT(4, 5, 6) };
	struct an_sched_insn s[2];

	(void)state;
	sched(add_mul, 2, 0x5000, s);
	assert_int_equal(s[1].cycle, 4);
	assert_int_equal(s[1].reason, AN_STALL_DEP);
	assert_int_equal(s[1].lat, 4);

	sched(divt, 2, 0x5000, s);
	assert_int_equal(s[1].cycle, 22);
	sched(divs, 2, 0x5000, s);
	assert_int_equal(s[1].cycle, 15);

	sched(two, 2, 0x5000, s);
	assert_int_equal(s[1].cycle, 22);
	assert_int_equal(s[1].reason, AN_STALL_UNIT);

	sched(pair, 2, 0x5000, s); /* FA and FM together */
	assert_int_equal(s[1].cycle, 0);
}

/* A store and a load do not issue together, and no load issues two cycles after a store. */
static void test_an_sched_store_load(void **state)
{
	const uint32_t same[] = { STQ(T0, 0, T1), LDQ(T2, 8, T3) };
	const uint32_t two[] = { STQ(T0, 0, T1), ADDQI(T3, 1, T3), ADDQI(T3, 1, T3),
				 LDQ(T2, 0, T3) };
	struct an_sched_insn s[4];

	(void)state;
	sched(same, 2, 0x6000, s);
	assert_int_equal(s[1].cycle, 1);
	assert_int_equal(s[1].reason, AN_STALL_SLOT);
	assert_int_equal(s[1].culprit, 0);

	sched(two, 4, 0x6000, s);
	assert_int_equal(s[2].cycle, 1);
	assert_int_equal(s[3].cycle, 3);
	assert_int_equal(s[3].reason, AN_STALL_LDST);
	assert_int_equal(s[3].culprit, 0);
}

/* ICMP feeds a branch in the same cycle (0-cycle bypass). */
static void test_an_sched_compare_branch_bypass(void **state)
{
	const uint32_t w[] = { CMPEQ(T0, T1, T2), BEQ(T2, 1, 9) };
	struct an_sched_insn s[2];

	(void)state;
	sched(w, 2, 0x7000, s);
	assert_int_equal(s[1].cycle, 0);
	assert_int_equal(s[1].m, 0);
}

/* TRAPB waits for every earlier result. */
static void test_an_sched_barrier(void **state)
{
	const uint32_t w[] = { LDQ(T0, 0, T1), TRAPB };
	struct an_sched_insn s[2];

	(void)state;
	sched(w, 2, 0x7000, s);
	assert_int_equal(s[1].cycle, 2);
	assert_int_equal(s[1].reason, AN_STALL_BARRIER);
	assert_int_equal(s[1].culprit, 0);
}

/* A new INT16 fetch block starts a new cycle even for independent instructions. */
static void test_an_sched_fetch_block(void **state)
{
	const uint32_t w[] = { ADDQI(T0, 1, T0), ADDQI(T1, 1, T1), ADDQI(T2, 1, T2) };
	struct an_sched_insn s[3];

	(void)state;
	sched(w, 3, 0x8008, s); /* 0x8008, 0x800c | 0x8010 */
	assert_int_equal(s[1].m, 0);
	assert_int_equal(s[2].m, 1);
	assert_int_equal(s[2].stall, 0); /* not a stall: a new issue group */
	assert_int_equal(s[2].reason, AN_STALL_NONE);
	assert_int_equal(s[2].culprit, -1);
}

static void test_an_sched_bad_input(void **state)
{
	struct axp_insn d;
	struct an_sched_insn s;

	(void)state;
	axp_decode(W_NOP, &d);
	assert_int_equal(an_sched_block(model, &d, 0x1000, 0, &s), -EINVAL);
	assert_int_equal(an_sched_block(model, &d, 0x1002, 1, &s), -EINVAL);
	/* a word that is not an instruction still gets a schedule */
	axp_decode(0x1c000000u | (0x7fu << 5), &d);
	assert_int_equal(an_sched_block(model, &d, 0x1000, 1, &s), 0);
	assert_int_equal(s.m, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* Differential: the hosted machine's EV5 model times the same block (all hits, warm). */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

#define BASE_REG 20 /* holds the data address; never written */
#define DATA 0x20000000ull

/* A random instruction; its memory address (if any) in *ea. */
static uint32_t random_insn(uint64_t *ea)
{
	unsigned int a = 1 + rnd(8), b = 1 + rnd(8), c = 1 + rnd(8);

	*ea = 0;
	switch (rnd(22)) {
	case 0:
		return ADDQ(a, b, c);
	case 1:
		return ADDQI(a, rnd(256), c);
	case 2:
		return enc_opr(0x10, 0x29, a, b, c); /* subq */
	case 3:
		return enc_opr(0x11, 0x00, a, b, c); /* and */
	case 4:
		return SLLI(a, rnd(64), c);
	case 5:
		return enc_opr(0x12, 0x06, a, b, c); /* extbl */
	case 6:
		return CMPEQ(a, b, c);
	case 7:
		return enc_opr(0x11, 0x26, a, b, c); /* cmovne */
	case 8:
		return MULL(a, b, c);
	case 9:
		return MULQ(a, b, c);
	case 10:
		return enc_opr(0x13, 0x30, a, b, c); /* umulh */
	case 11:
	case 12:
		*ea = DATA;
		return LDQ(c, 0, BASE_REG);
	case 13:
		*ea = DATA + 8;
		return STQ(a, 8, BASE_REG);
	case 14:
		*ea = DATA + 16;
		return enc_mem(0x23, c, BASE_REG, 16); /* ldt */
	case 15:
		*ea = DATA + 24;
		return enc_mem(0x27, a, BASE_REG, 24); /* stt */
	case 16:
		return ADDT(a, b, c);
	case 17:
		return MULT(a, b, c);
	case 18:
		return rnd(4) ? DIVS(a, b, c) : DIVT(a, b, c);
	case 19:
		return enc_fpo(0x17, 0x020, a, b, c); /* cpys */
	case 20:
		return LDA(c, (int)rnd(100), a);
	default:
		return rnd(3) ? enc_oprl(0x10, 0x2d, a, rnd(256), c) : TRAPB; /* cmpeq lit, trapb */
	}
}

/* Retire one instruction on the machine; returns its issue cycle. */
static uint64_t feed(struct mach_ev5 *mm, uint32_t word, uint64_t pc, uint64_t next_pc, uint64_t ea)
{
	struct axp_insn d;
	struct axp_event ev;
	uint32_t f;

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
	ev.insn = &d;
	mach_ev5_retire(mm, &d, &ev);
	return mach_ev5_cycles(mm);
}

/*
 * Random straight-line blocks B, each run as a loop  B; trapb; addq; addq; bne -> B  on the
 * machine until caches, TLBs and the predictor are warm. The TRAPB waits for every result, two
 * dependent adds keep every multiply source older than two cycles, and the taken branch starts
 * B with a new fetch, so B starts as our fresh schedule does: its issue cycles relative to its
 * first instruction must equal ours.
 */
static void test_an_sched_matches_machine(void **state)
{
	struct mach_ev5_params p;
	int mismatches = 0;

	(void)state;
	mach_ev5_params_default(&p);
	for (int round = 0; round < 3000; round++) {
		uint32_t n = 1 + rnd(14), w[MAXI + 4], skew = rnd(4);
		uint64_t ea[MAXI + 4], addr = 0x10000 + 4 * (uint64_t)skew, cyc[MAXI + 4];
		struct an_sched_insn s[MAXI];
		struct axp_insn d[MAXI];
		struct mach_ev5 *mm;

		for (uint32_t i = 0; i < n; i++)
			w[i] = random_insn(&ea[i]);
		w[n] = TRAPB;
		w[n + 1] = ADDQI(22, 1, 22);
		w[n + 2] = ADDQI(22, 1, 22);
		w[n + 3] = BNE(21, (int)n + 3, 0);
		assert_int_equal(mach_ev5_new_params(&mm, &p), 0);
		for (int it = 0; it < 4; it++)
			for (uint32_t i = 0; i < n + 4; i++) {
				uint64_t pc = addr + 4 * (uint64_t)i;

				cyc[i] = feed(mm, w[i], pc, i == n + 3 ? addr : pc + 4,
					      i < n ? ea[i] : 0);
			}
		mach_ev5_free(mm);
		for (uint32_t i = 0; i < n; i++)
			axp_decode(w[i], &d[i]);
		assert_int_equal(an_sched_block(model, d, addr, n, s), 0);
		for (uint32_t i = 0; i < n; i++) {
			if (cyc[i] - cyc[0] == s[i].cycle)
				continue;
			if (mismatches++ < 5) {
				fprintf(stderr, "block at 0x%llx:\n", (unsigned long long)addr);
				for (uint32_t k = 0; k < n; k++)
					fprintf(stderr, "  %2u %08x %-8s machine %3llu ours %3u\n",
						k, w[k], axp_op_info[d[k].op].name,
						(unsigned long long)(cyc[k] - cyc[0]), s[k].cycle);
			}
			break;
		}
	}
	assert_int_equal(mismatches, 0);
}

/*
 * The same with a block split by a not-taken branch: B1; beq r21,out; B2; trapb; addq; addq;
 * bne -> B1. B2's only predecessor is B1 (falling through), so an_sched_cfg() continues B1's
 * schedule into B2, as the machine does.
 */
static void test_an_sched_cfg_matches_machine(void **state)
{
	char path[64];
	struct mach_ev5_params p;
	int mismatches = 0;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_an_sched.%d.elf", (int)getpid());
	mach_ev5_params_default(&p);
	for (int round = 0; round < 400; round++) {
		uint32_t n1 = 1 + rnd(8), n2 = 1 + rnd(8), n = n1 + 1 + n2 + 4, w[32];
		uint64_t ea[32], cyc[32], addr = 0x120000000ull + 4 * (uint64_t)rnd(4), abs[32];
		const struct mkelf_sym sym = { "f", addr, 4 * (uint64_t)n, true };
		struct an_sched_insn s[32];
		struct an_procs *ps;
		struct img *elf;
		struct an_cfg *cfg;
		struct mach_ev5 *mm;
		struct ax_error err;

		for (uint32_t i = 0; i < n1; i++)
			w[i] = random_insn(&ea[i]);
		w[n1] = BEQ(21, (int)n1, (int)n + 4); /* out of the procedure: never taken */
		ea[n1] = 0;
		for (uint32_t i = n1 + 1; i < n1 + 1 + n2; i++)
			w[i] = random_insn(&ea[i]);
		w[n - 4] = TRAPB;
		w[n - 3] = ADDQI(22, 1, 22);
		w[n - 2] = ADDQI(22, 1, 22);
		w[n - 1] = BNE(21, (int)n - 1, 0);
		for (uint32_t i = n - 4; i < n; i++)
			ea[i] = 0;

		assert_int_equal(mach_ev5_new_params(&mm, &p), 0);
		for (int it = 0; it < 4; it++)
			for (uint32_t i = 0; i < n; i++) {
				uint64_t pc = addr + 4 * (uint64_t)i;

				cyc[i] = feed(mm, w[i], pc, i == n - 1 ? addr : pc + 4, ea[i]);
			}
		mach_ev5_free(mm);

		{
			uint32_t all[36];
			uint32_t pre = (uint32_t)((addr & 0xf) / 4);

			for (uint32_t i = 0; i < pre; i++)
				all[i] = W_NOP;
			memcpy(all + pre, w, n * sizeof(*w));
			assert_int_equal(mkelf_write(path, addr & ~0xfull, all, pre + n, NULL, 0, 0,
						     &sym, 1),
					 0);
		}
		assert_int_equal(img_open(path, 0, &elf, NULL), 0);
		assert_int_equal(an_procs_find(elf, &ps, &err), 0);
		assert_int_equal(an_cfg_build(ps, an_procs_lookup(ps, "f"), &cfg, &err), 0);
		assert_int_equal(an_sched_cfg(model, cfg, s), 0);
		assert_int_equal(cfg->nblocks, 2);
		/* absolute cycles: block 1 continues from block 0's last instruction by its M */
		for (uint32_t i = 0; i < n; i++)
			abs[i] = i < n1 + 1 ? s[i].cycle : abs[n1] + s[n1 + 1].m + s[i].cycle;
		for (uint32_t i = 0; i < n - 3; i++) {
			if (cyc[i] - cyc[0] == abs[i])
				continue;
			if (mismatches++ < 5) {
				fprintf(stderr, "blocks at 0x%llx (split after %u):\n",
					(unsigned long long)addr, n1);
				for (uint32_t k = 0; k < n - 3; k++)
					fprintf(stderr,
						"  %2u %08x %-8s machine %3llu ours %3llu\n", k,
						w[k], axp_op_info[cfg->insn[k].op].name,
						(unsigned long long)(cyc[k] - cyc[0]),
						(unsigned long long)abs[k]);
			}
			break;
		}
		an_cfg_free(cfg);
		an_procs_free(ps);
		img_close(elf);
	}
	unlink(path);
	assert_int_equal(mismatches, 0);
}

/*
 * Issue 15 item 3: a loop-carried ADDT chain. f: lda t0,100; L: addt f1,f2,f1; lda t0,-1(t0);
 * bne t0,L; ret. The loop block has two predecessors (the entry block and itself), so
 * an_sched_cfg() starts it fresh (M = 1 for the addt, its wait for the last iteration's result
 * unseen). Continuing from its back edge (an_sched_cfg_via), the addt waits for the previous
 * iteration's addt: addt and lda issue in cycle c (one fetch block), bne in c + 1 (it waits
 * for the lda's t0), and the next addt when the FP add latency (4, isa_ev5.h) is over, in
 * c + 4: M = 3 after the bne, a DEP stall whose culprit is the addt itself (previous
 * iteration). The machine's model agrees: one iteration every 4 cycles.
 */
static void test_an_sched_cfg_via_loop_carried(void **state)
{
	char path[64];
	const uint64_t addr = 0x120000000ull;
	const uint32_t w[8] = { LDA(T0, 100, ZERO),
				ADDT(1, 2, 1),
				LDA(T0, -1, T0),
				BNE(T0, 3, 1),
				W_RET,
				W_NOP,
				W_NOP,
				W_NOP };
	const struct mkelf_sym sym = { "f", addr, 20, true };
	struct an_sched_insn s[5], v[5];
	struct an_procs *ps;
	struct img *elf;
	struct an_cfg *cfg;
	struct ax_error err;
	uint32_t via[4], back = UINT32_MAX;
	struct mach_ev5 *mm;
	struct mach_ev5_params p;
	uint64_t cyc[2] = { 0, 0 };

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_an_sched_via.%d.elf", (int)getpid());
	assert_int_equal(mkelf_write(path, addr, w, 8, NULL, 0, 0, &sym, 1), 0);
	assert_int_equal(img_open(path, 0, &elf, NULL), 0);
	assert_int_equal(an_procs_find(elf, &ps, &err), 0);
	assert_int_equal(an_cfg_build(ps, an_procs_lookup(ps, "f"), &cfg, &err), 0);
	assert_int_equal(cfg->nblocks, 3);
	assert_int_equal(cfg->block[1].first, 1);
	for (uint32_t k = cfg->block[1].pred; k < cfg->block[1].pred + cfg->block[1].npred; k++)
		if (cfg->edge[cfg->pred[k]].from == 1)
			back = cfg->pred[k];
	assert_true(back != UINT32_MAX);

	assert_int_equal(an_sched_cfg(model, cfg, s), 0);
	assert_int_equal(s[1].m, 1); /* fresh: the carried latency is not seen */
	for (uint32_t b = 0; b < 4; b++)
		via[b] = UINT32_MAX;
	via[1] = back;
	assert_int_equal(an_sched_cfg_via(model, cfg, via, v), 0);
	assert_int_equal(v[1].m, 3);
	assert_int_equal(v[3].cycle + v[1].m, 4); /* bne at c + 1, the next addt 3 later */
	assert_int_equal(v[1].reason, AN_STALL_DEP);
	assert_true(v[1].culprit_pc == addr + 4);
	assert_int_equal(v[1].lat, 4);
	/* the rest of the loop and the other blocks are unchanged */
	assert_int_equal(v[0].m, s[0].m);
	assert_int_equal(v[2].m, s[2].m);
	assert_int_equal(v[3].m, s[3].m);
	assert_int_equal(v[4].m, s[4].m);
	/* an edge that does not enter the block is ignored: the fresh schedule */
	via[1] = cfg->block[0].succ;
	if (cfg->edge[via[1]].to == 1)
		via[1] = UINT32_MAX;
	assert_int_equal(an_sched_cfg_via(model, cfg, via, v), 0);
	assert_int_equal(v[1].m, s[1].m);

	/* The machine: the addt of one iteration issues 4 cycles after the one before. */
	mach_ev5_params_default(&p);
	assert_int_equal(mach_ev5_new_params(&mm, &p), 0);
	feed(mm, w[0], addr, addr + 4, 0);
	for (int it = 0; it < 6; it++) {
		uint64_t c = feed(mm, w[1], addr + 4, addr + 8, 0);

		feed(mm, w[2], addr + 8, addr + 12, 0);
		feed(mm, w[3], addr + 12, addr + 4, 0);
		cyc[0] = cyc[1];
		cyc[1] = c;
	}
	mach_ev5_free(mm);
	assert_int_equal(cyc[1] - cyc[0], 4);

	an_cfg_free(cfg);
	an_procs_free(ps);
	img_close(elf);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_sched_dcpi_figure7),
		cmocka_unit_test(test_an_sched_dual_issue),
		cmocka_unit_test(test_an_sched_load_use),
		cmocka_unit_test(test_an_sched_imul),
		cmocka_unit_test(test_an_sched_imul_input_penalty),
		cmocka_unit_test(test_an_sched_imul_reserves_e0),
		cmocka_unit_test(test_an_sched_fp),
		cmocka_unit_test(test_an_sched_store_load),
		cmocka_unit_test(test_an_sched_compare_branch_bypass),
		cmocka_unit_test(test_an_sched_barrier),
		cmocka_unit_test(test_an_sched_fetch_block),
		cmocka_unit_test(test_an_sched_bad_input),
		cmocka_unit_test(test_an_sched_matches_machine),
		cmocka_unit_test(test_an_sched_cfg_matches_machine),
		cmocka_unit_test(test_an_sched_cfg_via_loop_carried),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
