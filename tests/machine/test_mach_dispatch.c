/*
 * tests/machine/test_mach_dispatch.c - axp_run() on the hosted machine without an observer (the
 * threaded loop, kmod/interp/exec.c run_threaded(); without the decode cache and direct access,
 * run_plain() of exec_plain.h; and as the kernel glue runs it, with an observer and fetch_insn()
 * for every instruction, no decoded page) against axp_step() without the decode cache:
 * every integer operate of ops.def (register and literal forms), every common load, store, branch
 * and jump, a loop, a page crossing, and each way a run stops, at every budget and under two
 * hand-back policies; registers, pc, stop info and memory must agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "axp_asm.h"
#include "mach_mem.h"

#define PG MACH_PAGE_SIZE
#define RW (MACH_PROT_R | MACH_PROT_W)
#define PROG_MAX 512
#define ADDQ_R20 asm_opri(0x10, 20, 1, 0x20, 20) /* addq r20,1,r20: counts what ran */

struct op_enc {
	unsigned int opc, fn, fmt;
};

static const struct op_enc all_ops[] = {
#define AXP_OP(id, name, opc, fn, fmt, unit, flags) { opc, fn, AXP_FMT_##fmt },
#include "ops.def"
#undef AXP_OP
};

/* The ways a program ends (its last instructions). */
enum tail {
	TAIL_PAL, /* call_pal 0 */
	TAIL_LOAD_FAULT, /* ldq from an unmapped page */
	TAIL_STORE_FAULT, /* stq to a read-only page */
	TAIL_UNALIGNED_LOAD, /* ldl 2(r4): fixed up, or handed back */
	TAIL_UNALIGNED_STORE, /* stq 3(r4) */
	TAIL_OVERFLOW, /* addqv overflows: trap after (full policy) or handed back */
	TAIL_ILLEGAL, /* opcode 0x01 */
	TAIL_SELF_STORE, /* stl rewrites the next instruction (stale entry) */
	TAIL_LLSC, /* ldq_l / stq_c */
	TAIL_FP, /* cpys: not a common operation */
	TAIL_NR
};

static unsigned int put(uint32_t *p, unsigned int n, uint32_t w)
{
	assert_true(n < PROG_MAX);
	p[n] = w;
	return n + 1;
}

/* word, else with Ra 31, else with Ra and Rb 31 (register form), as operation `op` requires
 * (SEXTB, CTPOP, IMPLVER, ...); 0 when none decodes as `op` */
static uint32_t legal(uint32_t word, size_t op)
{
	static const uint32_t force[] = { 0, 31u << 21, 31u << 21 | 31u << 16 };
	struct axp_insn d;

	for (unsigned int f = 0; f < 3; f++) {
		uint32_t w = word | force[f];

		if (f == 2 && (word & (1u << 12)))
			break;
		axp_decode(w, &d);
		if (d.op == op)
			return w;
	}
	return 0;
}

static unsigned int build(uint32_t *p, enum tail tail)
{
	unsigned int n = 0, k = 0;
	uint32_t w;
	static const unsigned int bcond[] = { 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f };
	static const unsigned int bra_ra[] = { 31, 1, 3 };

	/* every integer operate, register and literal forms */
	for (size_t i = 0; i < sizeof(all_ops) / sizeof(all_ops[0]); i++) {
		if (all_ops[i].fmt != AXP_FMT_OPR)
			continue;
		w = legal(asm_opr(all_ops[i].opc, 1, 2, all_ops[i].fn, 8 + k % 8), i);
		if (w)
			n = put(p, n, w);
		w = legal(asm_opri(all_ops[i].opc, 3, 37 + k % 200, all_ops[i].fn, 16 + k % 4), i);
		if (w)
			n = put(p, n, w);
		k++;
	}
	assert_true(k > 60);
	/* loads, stores, address arithmetic */
	n = put(p, n, asm_mem(0x29, 8, 4, 0)); /* ldq r8,0(r4) */
	n = put(p, n, asm_mem(0x28, 9, 4, 12)); /* ldl */
	n = put(p, n, asm_mem(0x0a, 10, 4, 5)); /* ldbu */
	n = put(p, n, asm_mem(0x0c, 11, 4, 6)); /* ldwu */
	n = put(p, n, asm_mem(0x0b, 12, 4, 13)); /* ldq_u */
	n = put(p, n, asm_mem(0x23, 1, 4, 8)); /* ldt f1 */
	n = put(p, n, asm_mem(0x29, 31, 4, 0)); /* ldq r31: a prefetch */
	n = put(p, n, asm_mem(0x29, 22, 6, 8)); /* ldq from the read-only page */
	n = put(p, n, asm_mem(0x2d, 1, 4, 16)); /* stq */
	n = put(p, n, asm_mem(0x2c, 3, 4, 24)); /* stl */
	n = put(p, n, asm_mem(0x0e, 1, 4, 33)); /* stb */
	n = put(p, n, asm_mem(0x0d, 3, 4, 34)); /* stw */
	n = put(p, n, asm_mem(0x0f, 1, 4, 43)); /* stq_u */
	n = put(p, n, asm_mem(0x27, 1, 4, 48)); /* stt f1 */
	n = put(p, n, asm_mem(0x29, 8, 4, 16)); /* ldq: read back */
	n = put(p, n, asm_mem(0x08, 13, 4, -8)); /* lda */
	n = put(p, n, asm_mem(0x09, 14, 4, 3)); /* ldah */
	n = put(p, n, asm_mem(0x08, 4, 4, 8)); /* lda r4, 8(r4): the base moves */
	/* every conditional branch, taken or not (skipping a counter) */
	for (unsigned int b = 0; b < 8; b++)
		for (unsigned int r = 0; r < 3; r++) {
			n = put(p, n, asm_bra(bcond[b], bra_ra[r], 1));
			n = put(p, n, ADDQ_R20);
		}
	/* br, bsr, jsr, ret, jmp, jsr_coroutine */
	n = put(p, n, asm_bra(0x30, 26, 0)); /* i0: br r26 (r26 = i1) */
	n = put(p, n, asm_mem(0x08, 27, 26, 12)); /* i1: lda r27, 12(r26) (i4) */
	n = put(p, n, asm_mem(0x1a, 28, 27, 1 << 14)); /* i2: jsr r28, (r27) */
	n = put(p, n, asm_bra(0x30, 31, 2)); /* i3: br i6 */
	n = put(p, n, ADDQ_R20); /* i4 */
	n = put(p, n, asm_mem(0x1a, 31, 28, 2 << 14)); /* i5: ret (r28: i3) */
	n = put(p, n, asm_mem(0x08, 27, 27, 16)); /* i6: r27 = i8 */
	n = put(p, n, asm_mem(0x1a, 31, 27, 0)); /* i7: jmp (r27) */
	n = put(p, n, asm_mem(0x08, 27, 27, 12)); /* i8: r27 = i11 */
	n = put(p, n, asm_mem(0x1a, 29, 27, 3 << 14)); /* i9: jsr_coroutine r29, (r27) */
	n = put(p, n, ADDQ_R20); /* i10: skipped */
	n = put(p, n, asm_bra(0x34, 30, 1)); /* i11: bsr r30, +1 */
	n = put(p, n, ADDQ_R20); /* skipped */
	/* a loop: 3 turns */
	n = put(p, n, asm_mem(0x08, 21, 31, 3)); /* lda r21, 3 */
	n = put(p, n, asm_opri(0x10, 21, 1, 0x29, 21)); /* subq r21, 1, r21 */
	n = put(p, n, ADDQ_R20);
	n = put(p, n, asm_bra(0x3d, 21, -3)); /* bne r21 */
	switch (tail) {
	case TAIL_PAL:
		break;
	case TAIL_LOAD_FAULT:
		n = put(p, n, asm_mem(0x29, 5, 7, 0));
		break;
	case TAIL_STORE_FAULT:
		n = put(p, n, asm_mem(0x2d, 5, 6, 0));
		break;
	case TAIL_UNALIGNED_LOAD:
		n = put(p, n, asm_mem(0x28, 5, 4, 2));
		break;
	case TAIL_UNALIGNED_STORE:
		n = put(p, n, asm_mem(0x2d, 1, 4, 3));
		break;
	case TAIL_OVERFLOW:
		n = put(p, n, asm_mem(0x09, 22, 31, 0x4000)); /* ldah r22, 0x4000: 2^30 */
		n = put(p, n, asm_opri(0x12, 22, 32, 0x39, 22)); /* sll: 2^62 */
		n = put(p, n, asm_opr(0x10, 22, 22, 0x60, 23)); /* addq/v: overflows */
		break;
	case TAIL_ILLEGAL:
		n = put(p, n, 0x01u << 26);
		break;
	case TAIL_SELF_STORE:
		n = put(p, n, asm_bra(0x30, 25, 0)); /* br r25 (r25: the stl) */
		n = put(p, n, asm_mem(0x2c, 24, 25, 4)); /* stl r24, 4(r25): the next word */
		n = put(p, n, 0); /* becomes addq r20,1,r20 */
		break;
	case TAIL_LLSC:
		n = put(p, n, asm_mem(0x2b, 5, 4, 0)); /* ldq_l */
		n = put(p, n, asm_mem(0x2f, 5, 4, 0)); /* stq_c */
		break;
	case TAIL_FP:
		n = put(p, n, asm_opr(0x17, 1, 1, 0x20, 2)); /* cpys f1, f1, f2 */
		break;
	default:
		break;
	}
	return put(p, n, 0); /* call_pal 0 */
}

struct machine {
	struct mach_mem *m;
	struct axp_ctx ctx;
	uint64_t code, data, ro;
};

/* The program from the last 128 words of a page on (it crosses into the next). */
static void setup_machine(struct machine *mc, const uint32_t *prog, unsigned int n)
{
	uint64_t q, bad = 8, junk;

	assert_int_equal(mach_mem_new(&mc->m), 0);
	assert_int_equal(mach_mem_map(mc->m, 0, 4 * PG, RW | MACH_PROT_X, 0, -1, 0, &mc->code), 0);
	assert_int_equal(mach_mem_map(mc->m, 0, PG, RW, 0, -1, 0, &mc->data), 0);
	assert_int_equal(mach_mem_map(mc->m, 0, PG, MACH_PROT_R, 0, -1, 0, &mc->ro), 0);
	assert_int_not_equal(mach_mem_read(mc->m, bad, &junk, 8), 0);
	for (unsigned int i = 0; i < 16; i++) {
		q = 0x8102030405060708ull * (i + 1);
		assert_int_equal(mach_mem_write(mc->m, mc->data + 8 * i, &q, 8), 0);
	}
	assert_int_equal(mach_mem_write(mc->m, mc->code + PG - 512, prog, 4 * n), 0);
	memset(&mc->ctx, 0, sizeof(mc->ctx));
	mc->ctx.pc = mc->code + PG - 512;
	mc->ctx.lock_addr = AXP_NO_LOCK;
	mc->ctx.r[1] = 0x0123456700000abcull;
	mc->ctx.r[2] = 5;
	mc->ctx.r[3] = (uint64_t)-3;
	mc->ctx.r[4] = mc->data;
	mc->ctx.r[6] = mc->ro;
	mc->ctx.r[7] = bad;
	mc->ctx.r[24] = ADDQ_R20;
	mc->ctx.f[1] = 0x4000000000000000ull; /* 2.0 */
}

static unsigned int observed;

static void count_event(void *priv, const struct axp_event *ev)
{
	(void)priv;
	(void)ev;
	observed++;
}

static void test_mach_dispatch_run_matches_step(void **state)
{
	const struct axp_observer obs = { .insn = count_event };
	struct axp_mem_ops kernel_ops = mach_mem_ops;
	static const unsigned int policies[] = { 0, AXP_HB_UNALIGNED | AXP_HB_ARITH | AXP_HB_LLSC };
	struct axp_mem_ops step_ops = mach_mem_ops;
	uint32_t prog[PROG_MAX];
	unsigned int reasons = 0;

	(void)state;
	step_ops.fetch_insn = NULL;
	step_ops.insn_page = NULL;
	step_ops.direct = NULL;
	kernel_ops.insn_page = NULL;
	kernel_ops.direct = NULL;
	for (unsigned int t = 0; t < TAIL_NR; t++) {
		unsigned int n = build(prog, t);

		for (unsigned int pol = 0; pol < 6; pol++) {
			for (uint64_t budget = 0; budget <= n + 24; budget++) {
				struct machine ms, mr;
				struct axp_stop_info si = { 0 }, ri;
				/* pol 0-1: the threaded loop; 2-3: run_plain(); 4-5: the kernel's */
				const struct axp_mem_ops *const run_ops[] = { &mach_mem_ops,
									      &step_ops,
									      &kernel_ops };
				struct axp_run_cfg scfg = { .mem = &step_ops,
							    .handback = policies[pol & 1] };
				struct axp_run_cfg rcfg = { .mem = run_ops[pol / 2],
							    .obs = pol >= 4 ? &obs : NULL,
							    .handback = policies[pol & 1] };
				static uint8_t want[4 * PG], got[4 * PG];
				uint64_t done = 0;
				int rc = 0;

				setup_machine(&ms, prog, n);
				setup_machine(&mr, prog, n);
				assert_int_equal(ms.data, mr.data);
				scfg.mem_priv = ms.m;
				rcfg.mem_priv = mr.m;
				si.reason = AXP_STOP_BUDGET;
				while (done < budget && !(rc = axp_step(&ms.ctx, &scfg, &si)))
					done++;
				if (!rc)
					si.pc = ms.ctx.pc;
				else if (si.reason == AXP_STOP_ARITH &&
					 !(policies[pol & 1] & AXP_HB_ARITH))
					done++; /* the trapping instruction completed */
				observed = 0;
				assert_int_equal(axp_run(&mr.ctx, &rcfg, budget, &ri), si.reason);
				assert_int_equal(ri.executed, done);
				assert_int_equal(observed, pol >= 4 ? done : 0);
				assert_int_equal(ri.pc, si.pc);
				if (done || rc)
					assert_int_equal(ri.word, si.word);
				if (rc)
					assert_int_equal(ri.addr, si.addr);
				assert_memory_equal(&mr.ctx, &ms.ctx, sizeof(ms.ctx));
				assert_int_equal(mach_mem_read(ms.m, ms.data, want, PG), 0);
				assert_int_equal(mach_mem_read(mr.m, mr.data, got, PG), 0);
				assert_memory_equal(got, want, PG);
				assert_int_equal(mach_mem_read(ms.m, ms.code, want, 4 * PG), 0);
				assert_int_equal(mach_mem_read(mr.m, mr.code, got, 4 * PG), 0);
				assert_memory_equal(got, want, 4 * PG);
				reasons |= 1u << si.reason;
				mach_mem_free(ms.m);
				mach_mem_free(mr.m);
			}
		}
	}
	/* every way this program can stop was reached */
	assert_true(reasons & (1u << AXP_STOP_BUDGET));
	assert_true(reasons & (1u << AXP_STOP_CALL_PAL));
	assert_true(reasons & (1u << AXP_STOP_LOAD_FAULT));
	assert_true(reasons & (1u << AXP_STOP_STORE_FAULT));
	assert_true(reasons & (1u << AXP_STOP_UNALIGNED));
	assert_true(reasons & (1u << AXP_STOP_ARITH));
	assert_true(reasons & (1u << AXP_STOP_ILLEGAL));
	assert_true(reasons & (1u << AXP_STOP_LLSC));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mach_dispatch_run_matches_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
