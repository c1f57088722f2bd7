/* tests/interp/test_exec.c - executor semantics: table-driven vectors, stops, side effects. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "axp.h"

#include "axp_asm.h"

#define CODE FLAT_CODE
#define DATA FLAT_DATA

static uint64_t t_rpcc(void *priv)
{
	(void)priv;
	return 0x1234;
}

static const struct axp_mem_ops tops = { .fetch = flat_fetch,
					 .load = flat_load,
					 .store = flat_store,
					 .rpcc = t_rpcc };

struct rig {
	struct flatmem m;
	struct axp_ctx ctx;
	struct axp_run_cfg cfg;
	struct axp_stop_info info;
};

static void rig_init(struct rig *r, unsigned handback)
{
	memset(r, 0, sizeof(*r));
	r->ctx.pc = CODE;
	r->ctx.lock_addr = AXP_NO_LOCK;
	r->cfg.mem = &tops;
	r->cfg.mem_priv = &r->m;
	r->cfg.handback = handback;
	r->cfg.amask = AXP_AMASK_BWX | AXP_AMASK_FIX | AXP_AMASK_CIX | AXP_AMASK_MVI;
	r->cfg.implver = 2;
}

static void rig_code(struct rig *r, unsigned idx, uint32_t w)
{
	flat_put(&r->m, idx, w);
}

/* Run one instruction word with r1=a, r2=b; return r3. */
static uint64_t run3(uint32_t w, uint64_t a, uint64_t b)
{
	struct rig r;

	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, w);
	r.ctx.r[1] = a;
	r.ctx.r[2] = b;
	r.ctx.r[3] = 0x5a5a5a5a5a5a5a5aull;
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), 0);
	assert_int_equal(r.ctx.pc, CODE + 4);
	return r.ctx.r[3];
}

struct vec {
	const char *what;
	uint32_t word;
	uint64_t a, b, want;
};

/* Expected values worked out from the Handbook's instruction descriptions (ch. 4). */
static const struct vec int_vecs[] = {
	{ "addl wraps to sign-extended 32", 0, 0x7fffffff, 1, 0xffffffff80000000ull },
	{ "s4addq", 0, 3, 5, 17 },
	{ "subq", 0, 0, 1, UINT64_MAX },
	{ "cmpbge bytes", 0, 0x0102030405060708ull, 0x0807060504030201ull, 0x0f },
	{ "cmpult", 0, 1, UINT64_MAX, 1 },
	{ "cmplt signed", 0, UINT64_MAX, 1, 1 },
	{ "extbl", 0, 0x1122334455667788ull, 2, 0x66 },
	{ "extwl at 7", 0, 0x1122334455667788ull, 7, 0x11 },
	{ "extwh at 7", 0, 0x1122334455667788ull, 7, 0x8800 },
	{ "extqh at 0 is whole", 0, 0x1122334455667788ull, 0, 0x1122334455667788ull },
	{ "insbl at 3", 0, 0xabcd, 3, 0xcd000000ull },
	{ "inswh at 7", 0, 0xabcd, 7, 0xab },
	{ "insqh at 0 is zero", 0, UINT64_MAX, 0, 0 },
	{ "mskwh at 7", 0, UINT64_MAX, 7, 0xffffffffffffff00ull },
	{ "mskll at 6", 0, UINT64_MAX, 6, 0x0000ffffffffffffull },
	{ "zapnot 0x0f", 0, 0x1122334455667788ull, 0x0f, 0x55667788 },
	{ "zap 0x81", 0, 0x1122334455667788ull, 0x81, 0x0022334455667700ull },
	{ "sra by 63", 0, 0x8000000000000000ull, 63, UINT64_MAX },
	{ "sll by 64 wraps to 0", 0, 1, 64, 1 },
	{ "umulh", 0, UINT64_MAX, UINT64_MAX, 0xfffffffffffffffeull },
	{ "mull sign-extends", 0, 0x10000, 0x8000, 0xffffffff80000000ull },
	{ "ornot", 0, 0, 0, UINT64_MAX },
	{ "eqv", 0, 0xf0f0, 0xf0f0, UINT64_MAX },
	{ "ctpop", 0, 0, 0xff00ff00ull, 16 },
	{ "ctlz of 1", 0, 0, 1, 63 },
	{ "cttz of 0", 0, 0, 0, 64 },
	{ "sextw", 0, 0, 0x8000, 0xffffffffffff8000ull },
	{ "perr", 0, 0x0000000000000a05ull, 0x0000000000000307ull, 9 },
	{ "minsb8", 0, 0x80, 0x01, 0x80 },
	{ "maxub8", 0, 0x80, 0x01, 0x80 },
	{ "unpkbw", 0, 0, 0x44332211ull, 0x0044003300220011ull },
	{ "pkwb", 0, 0, 0x0044003300220011ull, 0x44332211ull },
	{ "amask clears present", 0, 0, 0x307, 0x200 },
};

static uint32_t int_words[] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static void fill_words(void)
{
	unsigned i = 0;

	int_words[i++] = asm_opr(0x10, 1, 2, 0x00, 3); /* addl */
	int_words[i++] = asm_opr(0x10, 1, 2, 0x22, 3); /* s4addq */
	int_words[i++] = asm_opr(0x10, 1, 2, 0x29, 3); /* subq */
	int_words[i++] = asm_opr(0x10, 1, 2, 0x0f, 3); /* cmpbge */
	int_words[i++] = asm_opr(0x10, 1, 2, 0x1d, 3); /* cmpult */
	int_words[i++] = asm_opr(0x10, 1, 2, 0x4d, 3); /* cmplt */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x06, 3); /* extbl */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x16, 3); /* extwl */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x5a, 3); /* extwh */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x7a, 3); /* extqh */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x0b, 3); /* insbl */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x57, 3); /* inswh */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x77, 3); /* insqh */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x52, 3); /* mskwh */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x22, 3); /* mskll */
	int_words[i++] = asm_opri(0x12, 1, 0x0f, 0x31, 3); /* zapnot lit */
	int_words[i++] = asm_opri(0x12, 1, 0x81, 0x30, 3); /* zap lit */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x3c, 3); /* sra */
	int_words[i++] = asm_opr(0x12, 1, 2, 0x39, 3); /* sll */
	int_words[i++] = asm_opr(0x13, 1, 2, 0x30, 3); /* umulh */
	int_words[i++] = asm_opr(0x13, 1, 2, 0x00, 3); /* mull */
	int_words[i++] = asm_opr(0x11, 1, 2, 0x28, 3); /* ornot */
	int_words[i++] = asm_opr(0x11, 1, 2, 0x48, 3); /* eqv */
	int_words[i++] = asm_opr(0x1c, 31, 2, 0x30, 3); /* ctpop */
	int_words[i++] = asm_opr(0x1c, 31, 2, 0x32, 3); /* ctlz */
	int_words[i++] = asm_opr(0x1c, 31, 2, 0x33, 3); /* cttz */
	int_words[i++] = asm_opr(0x1c, 31, 2, 0x01, 3); /* sextw */
	int_words[i++] = asm_opr(0x1c, 1, 2, 0x31, 3); /* perr */
	int_words[i++] = asm_opr(0x1c, 1, 2, 0x38, 3); /* minsb8 */
	int_words[i++] = asm_opr(0x1c, 1, 2, 0x3c, 3); /* maxub8 */
	int_words[i++] = asm_opr(0x1c, 31, 2, 0x34, 3); /* unpkbw */
	int_words[i++] = asm_opr(0x1c, 31, 2, 0x36, 3); /* pkwb */
	int_words[i++] = asm_opr(0x11, 31, 2, 0x61, 3); /* amask */
	assert_int_equal(i, sizeof(int_vecs) / sizeof(int_vecs[0]));
}

static void test_exec_integer_vectors(void **state)
{
	(void)state;
	fill_words();
	for (size_t i = 0; i < sizeof(int_vecs) / sizeof(int_vecs[0]); i++) {
		uint64_t got = run3(int_words[i], int_vecs[i].a, int_vecs[i].b);

		if (got != int_vecs[i].want)
			fail_msg("%s: got %#llx want %#llx", int_vecs[i].what,
				 (unsigned long long)got, (unsigned long long)int_vecs[i].want);
	}
}

static void test_exec_r31_reads_zero_and_is_never_written(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, asm_opri(0x10, 31, 5, 0x20, 31)); /* addq zero,5,zero */
	rig_code(&r, 1, asm_opri(0x10, 31, 5, 0x20, 4)); /* addq zero,5,r4 */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 2, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.r[31], 0);
	assert_int_equal(r.ctx.r[4], 5);
}

static void test_exec_cmov_keeps_old_value(void **state)
{
	(void)state;
	/* cmoveq r1, r2, r3: r1 != 0 so r3 keeps its value */
	assert_int_equal(run3(asm_opr(0x11, 1, 2, 0x24, 3), 1, 7), 0x5a5a5a5a5a5a5a5aull);
	assert_int_equal(run3(asm_opr(0x11, 1, 2, 0x24, 3), 0, 7), 7);
}

static void test_exec_overflow_trap(void **state)
{
	struct rig r;

	(void)state;
	/* full policy: addq/v completes (result written, pc advanced) and reports the trap */
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, asm_opr(0x10, 1, 2, 0x60, 3));
	r.ctx.r[1] = INT64_MAX;
	r.ctx.r[2] = 1;
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 10, &r.info), AXP_STOP_ARITH);
	assert_int_equal(r.info.exc_sum, AXP_EXC_IOV);
	assert_int_equal(r.info.pc, CODE);
	assert_int_equal(r.info.executed, 1);
	assert_int_equal(r.ctx.pc, CODE + 4);
	assert_int_equal(r.ctx.r[3], 0x8000000000000000ull);

	/* interrupt policy: handed back, nothing changed */
	rig_init(&r, AXP_POLICY_INTERRUPT);
	rig_code(&r, 0, asm_opr(0x10, 1, 2, 0x60, 3));
	r.ctx.r[1] = INT64_MAX;
	r.ctx.r[2] = 1;
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 10, &r.info), AXP_STOP_ARITH);
	assert_int_equal(r.info.executed, 0);
	assert_int_equal(r.ctx.pc, CODE);
	assert_int_equal(r.ctx.r[3], 0);

	/* mulq/v: -1 * INT64_MIN overflows; 2^31 * 2^31 does not */
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, asm_opr(0x13, 1, 2, 0x60, 3));
	r.ctx.r[1] = UINT64_MAX;
	r.ctx.r[2] = 0x8000000000000000ull;
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), -EAGAIN);
	assert_int_equal(r.info.reason, AXP_STOP_ARITH);
	assert_int_equal(run3(asm_opr(0x13, 1, 2, 0x60, 3), 1ull << 31, 1ull << 31), 1ull << 62);
}

static void test_exec_loads_and_stores(void **state)
{
	struct rig r;
	uint64_t q;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	q = 0x80000000fffffffeull;
	memcpy(r.m.data + 8, &q, 8);
	r.ctx.r[2] = DATA;
	rig_code(&r, 0, asm_mem(0x28, 3, 2, 8)); /* ldl r3, 8(r2): sign-extends 0xfffffffe */
	rig_code(&r, 1, asm_mem(0x0b, 4, 2, 13)); /* ldq_u r4, 13(r2): address & ~7 = DATA+8 */
	rig_code(&r, 2, asm_mem(0x0e, 3, 2, 100)); /* stb r3, 100(r2) */
	rig_code(&r, 3, asm_mem(0x0a, 5, 2, 100)); /* ldbu r5, 100(r2) */
	rig_code(&r, 4, asm_mem(0x09, 6, 2, -1)); /* ldah r6, -1(r2) */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 5, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.r[3], 0xfffffffffffffffeull);
	assert_int_equal(r.ctx.r[4], q);
	assert_int_equal(r.m.data[100], 0xfe);
	assert_int_equal(r.ctx.r[5], 0xfe);
	assert_int_equal(r.ctx.r[6], DATA - 65536);
}

static void test_exec_load_to_r31_is_not_performed(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0,
		 asm_mem(0x29, 31, 31, 0)); /* ldq zero, 0(zero): prefetch of an unmapped page */
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), 0);
	assert_int_equal(r.m.loads, 0);
	assert_int_equal(r.ctx.pc, CODE + 4);
}

static void test_exec_fault_leaves_context_unchanged(void **state)
{
	struct rig r, before;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, asm_mem(0x29, 3, 2, 0)); /* ldq r3, 0(r2) with r2 unmapped */
	r.ctx.r[2] = 0x10;
	r.ctx.r[3] = 77;
	before = r;
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), -EAGAIN);
	assert_int_equal(r.info.reason, AXP_STOP_LOAD_FAULT);
	assert_int_equal(r.info.addr, 0x10);
	assert_memory_equal(&r.ctx, &before.ctx, sizeof(r.ctx));

	rig_code(&r, 0, asm_mem(0x2d, 3, 2, 0)); /* stq */
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), -EAGAIN);
	assert_int_equal(r.info.reason, AXP_STOP_STORE_FAULT);
	assert_memory_equal(&r.ctx, &before.ctx, sizeof(r.ctx));

	r.ctx.pc = 0x8; /* fetch fault */
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), -EAGAIN);
	assert_int_equal(r.info.reason, AXP_STOP_FETCH_FAULT);
	assert_int_equal(r.ctx.pc, 0x8);
}

static void test_exec_unaligned_by_policy(void **state)
{
	struct rig r;
	uint64_t q = 0x1122334455667788ull;

	(void)state;
	rig_init(&r, AXP_POLICY_INTERRUPT);
	memcpy(r.m.data + 1, &q, 8);
	r.ctx.r[2] = DATA + 1;
	rig_code(&r, 0, asm_mem(0x29, 3, 2, 0)); /* ldq r3, 0(r2) unaligned */
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), -EAGAIN);
	assert_int_equal(r.info.reason, AXP_STOP_UNALIGNED);
	assert_int_equal(r.ctx.r[3], 0);

	r.cfg.handback = AXP_POLICY_FULL; /* the kernel's fixup: performed */
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), 0);
	assert_int_equal(r.ctx.r[3], q);
}

static void test_exec_ll_sc(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	r.ctx.r[2] = DATA;
	r.ctx.r[4] = 99;
	rig_code(&r, 0, asm_mem(0x2b, 3, 2, 0)); /* ldq_l r3, 0(r2) */
	rig_code(&r, 1, asm_mem(0x2f, 4, 2, 0)); /* stq_c r4, 0(r2) -> succeeds, r4 = 1 */
	rig_code(&r, 2, asm_mem(0x2f, 5, 2, 0)); /* stq_c r5, 0(r2) -> no reservation, r5 = 0 */
	r.ctx.r[5] = 55;
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 3, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.r[4], 1);
	assert_int_equal(r.m.data[0], 99);
	assert_int_equal(r.ctx.r[5], 0);
	assert_int_equal(r.m.stores, 1);
	assert_int_equal(r.ctx.lock_addr, AXP_NO_LOCK);

	rig_init(&r, AXP_POLICY_INTERRUPT);
	r.ctx.r[2] = DATA;
	rig_code(&r, 0, asm_mem(0x2b, 3, 2, 0));
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 3, &r.info), AXP_STOP_LLSC);
	assert_int_equal(r.info.executed, 0);
}

static void test_exec_branches_and_jumps(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, asm_bra(0x39, 1, 2)); /* beq r1, +2 -> taken to index 3 */
	rig_code(&r, 3, asm_bra(0x34, 26, -4)); /* bsr ra, -4 -> index 0, ra = index 4 */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 2, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.pc, CODE);
	assert_int_equal(r.ctx.r[26], CODE + 16);

	rig_init(&r, AXP_POLICY_FULL);
	r.ctx.r[27] = CODE + 0x43; /* low bits are ignored */
	rig_code(&r, 0, asm_mem(0x1a, 26, 27, 0x4000)); /* jsr ra, (pv) */
	assert_int_equal(axp_step(&r.ctx, &r.cfg, &r.info), 0);
	assert_int_equal(r.ctx.pc, CODE + 0x40);
	assert_int_equal(r.ctx.r[26], CODE + 4);

	/* fbge with -0.0 is taken; fblt with -0.0 is not */
	rig_init(&r, AXP_POLICY_FULL);
	r.ctx.f[1] = 0x8000000000000000ull;
	rig_code(&r, 0, asm_bra(0x32, 1, 5)); /* fblt f1 */
	rig_code(&r, 1, asm_bra(0x36, 1, 5)); /* fbge f1 */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 2, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.pc, CODE + 8 + 20);
}

static void test_exec_stops_name_the_reason(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, 0x00000083); /* call_pal callsys */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 10, &r.info), AXP_STOP_CALL_PAL);
	assert_int_equal(r.ctx.pc, CODE);
	rig_code(&r, 0, 0x04000000); /* opcode 0x01: reserved */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 10, &r.info), AXP_STOP_ILLEGAL);
	rig_code(&r, 0, asm_opr(0x15, 1, 2, 0x080, 3)); /* addf: VAX */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 10, &r.info), AXP_STOP_VAX_FP);
	rig_code(&r, 0, asm_opr(0x1c, 1, 2, 0x30, 3)); /* ctpop with ra != 31: invalid */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 10, &r.info), AXP_STOP_ILLEGAL);
	assert_string_equal(axp_stop_name[AXP_STOP_VAX_FP], "vax-fp");
	for (int i = 0; i < AXP_STOP_NR; i++)
		assert_non_null(axp_stop_name[i]);
}

struct seen {
	struct axp_event ev[8];
	int n;
};

static void obs_fn(void *priv, const struct axp_event *ev)
{
	struct seen *s = priv;

	if (s->n < 8)
		s->ev[s->n] = *ev;
	s->n++;
}

static void test_exec_observer_sees_results_and_addresses(void **state)
{
	struct rig r;
	struct seen s = { .n = 0 };
	struct axp_observer obs = { .insn = obs_fn, .priv = &s };
	uint64_t q = 42;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	r.cfg.obs = &obs;
	memcpy(r.m.data + 16, &q, 8);
	r.ctx.r[2] = DATA;
	rig_code(&r, 0, asm_mem(0x29, 3, 2, 16)); /* ldq r3, 16(r2) */
	rig_code(&r, 1, asm_mem(0x2d, 3, 2, 24)); /* stq r3, 24(r2) */
	rig_code(&r, 2, asm_opri(0x10, 3, 1, 0x20, 4)); /* addq r3, 1, r4 */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 3, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(s.n, 3);
	assert_true(s.ev[0].is_load);
	assert_int_equal(s.ev[0].ea, DATA + 16);
	assert_int_equal(s.ev[0].dest, 3);
	assert_int_equal(s.ev[0].value, 42);
	assert_int_equal(s.ev[0].acc.latency, 2);
	assert_true(s.ev[1].is_store);
	assert_int_equal(s.ev[1].store_value, 42);
	assert_int_equal(s.ev[1].dest, AXP_NO_DEST);
	assert_int_equal(s.ev[2].value, 43);
	assert_int_equal(s.ev[2].pc, CODE + 8);
	assert_int_equal(s.ev[2].next_pc, CODE + 12);
}

struct stopper {
	int n, stop_after;
	volatile bool stop;
	const struct axp_insn *last;
};

static void stop_fn(void *priv, const struct axp_event *ev)
{
	struct stopper *s = priv;

	s->last = ev->insn;
	if (++s->n == s->stop_after)
		s->stop = true;
}

static void test_exec_observer_can_stop_the_run(void **state)
{
	struct rig r;
	struct stopper s = { .n = 0, .stop_after = 3 };
	struct axp_observer obs = { stop_fn, &s, &s.stop };

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	r.cfg.obs = &obs;
	for (unsigned int i = 0; i < 8; i++)
		rig_code(&r, i, asm_opri(0x10, 1, 1, 0x20, 1)); /* addq r1, 1, r1 */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 8, &r.info), AXP_STOP_OBSERVER);
	assert_int_equal(r.info.executed, 3);
	assert_int_equal(r.ctx.r[1], 3);
	assert_int_equal(r.ctx.pc, CODE + 12);
	assert_non_null(s.last);
	assert_int_equal(s.last->op, AXP_OP_ADDQ);
	s.stop = false;
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 2, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.r[1], 5);
}

static void test_exec_misc_group(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	rig_code(&r, 0, asm_mem(0x18, 3, 31, 0xc000)); /* rpcc r3 */
	rig_code(&r, 1, asm_mem(0x18, 4, 31, 0xf000)); /* rs r4: old flag 0, flag := 1 */
	rig_code(&r, 2, asm_mem(0x18, 5, 31, 0xe000)); /* rc r5: old flag 1, flag := 0 */
	rig_code(&r, 3, asm_mem(0x18, 0, 0, 0x4000)); /* mb */
	rig_code(&r, 4, asm_opr(0x11, 31, 31, 0x6c, 6)); /* implver r6 */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 5, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.r[3], 0x1234);
	assert_int_equal(r.ctx.r[4], 0);
	assert_int_equal(r.ctx.r[5], 1);
	assert_int_equal(r.ctx.r[6], 2);
	assert_int_equal(r.ctx.intr_flag, 0);
}

/* The barrier hook's calls: "<kind>@<stores>s<loads>l" each, the accesses done before it. */
static char barrier_log[64];

static void log_barrier(void *priv, unsigned int kind)
{
	const struct flatmem *m = priv;
	size_t n = strlen(barrier_log);

	snprintf(barrier_log + n, sizeof(barrier_log) - n, "%s@%us%ul ",
		 kind == AXP_BARRIER_MB	 ? "mb" :
		 kind == AXP_BARRIER_WMB ? "wmb" :
					   "?",
		 m->stores, m->loads);
}

static const struct axp_mem_ops barrier_ops = { .fetch = flat_fetch,
						.load = flat_load,
						.store = flat_store,
						.fence = log_barrier };

/* MB and WMB reach the memory system's barrier in program order between the accesses; TRAPB,
 * EXCB and the cache hints do not (a multiprocessor's interpretation must order the program's
 * shared stores as it asked). Without the hook they are no-ops. */
static void test_exec_barriers_reach_the_memory_system(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r, AXP_POLICY_FULL);
	r.cfg.mem = &barrier_ops;
	r.ctx.r[2] = DATA;
	r.ctx.r[1] = 7;
	barrier_log[0] = 0;
	rig_code(&r, 0, asm_mem(0x2d, 1, 2, 0)); /* stq r1, 0(r2) */
	rig_code(&r, 1, asm_mem(0x18, 0, 0, 0x4400)); /* wmb */
	rig_code(&r, 2, asm_mem(0x2d, 1, 2, 8)); /* stq r1, 8(r2) */
	rig_code(&r, 3, asm_mem(0x18, 0, 0, 0x0000)); /* trapb */
	rig_code(&r, 4, asm_mem(0x18, 0, 0, 0x0400)); /* excb */
	rig_code(&r, 5, asm_mem(0x18, 0, 2, 0x8000)); /* fetch 0(r2) */
	rig_code(&r, 6, asm_mem(0x18, 0, 0, 0x4000)); /* mb */
	rig_code(&r, 7, asm_mem(0x29, 3, 2, 8)); /* ldq r3, 8(r2) */
	rig_code(&r, 8, asm_mem(0x18, 0, 0, 0x4000)); /* mb */
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 9, &r.info), AXP_STOP_BUDGET);
	assert_string_equal(barrier_log, "wmb@1s0l mb@2s0l mb@2s1l ");
	assert_int_equal(r.ctx.r[3], 7);
	/* No hook: the same program runs the same way. */
	rig_init(&r, AXP_POLICY_FULL);
	r.ctx.r[2] = DATA;
	r.ctx.r[1] = 7;
	barrier_log[0] = 0;
	rig_code(&r, 0, asm_mem(0x2d, 1, 2, 0));
	rig_code(&r, 1, asm_mem(0x18, 0, 0, 0x4400));
	rig_code(&r, 2, asm_mem(0x18, 0, 0, 0x4000));
	rig_code(&r, 3, asm_mem(0x29, 3, 2, 0));
	assert_int_equal(axp_run(&r.ctx, &r.cfg, 4, &r.info), AXP_STOP_BUDGET);
	assert_int_equal(r.ctx.r[3], 7);
	assert_string_equal(barrier_log, "");
}

/* The registers the dispatch test starts from: pointers into the data (aligned and not), then
 * varied values (FP: 1.5, -0.0, a NaN, ...). */
static void dispatch_regs(struct rig *r)
{
	r->ctx.r[1] = DATA + 8;
	r->ctx.r[2] = DATA + 0x103;
	for (unsigned int i = 3; i < 31; i++)
		r->ctx.r[i] = 0x0123456789abcdefull * i ^ (uint64_t)i << 60;
	r->ctx.f[1] = 0x3ff8000000000000ull;
	r->ctx.f[2] = 0x8000000000000000ull;
	r->ctx.f[3] = 0x7ff8000000000001ull;
	for (unsigned int i = 4; i < 31; i++)
		r->ctx.f[i] = 0x4000000000000000ull + 0x0001000000000000ull * i;
	for (unsigned int i = 0; i < FLAT_SZ; i++)
		r->m.data[i] = (uint8_t)(i * 7 + 1);
}

/*
 * axp_run()'s loop without decode cache, observer or direct access (exec_plain.h) dispatches on
 * its own table: every opcode, with every value of insn[15:5] (the operate formats' literal bit
 * and function, the miscellaneous and jump formats' function bits, elsewhere displacement bits)
 * and Ra, Rb, Rc R1, R2, R3, and with every value of insn[12:5] and other choices among R1, R2,
 * R3 and R31, runs one instruction there and through axp_step(): the same stop, context and
 * memory.
 */
static void test_exec_run_dispatch_matches_step(void **state)
{
	static const unsigned int regs[][3] = {
		{ 1, 2, 3 }, { 2, 1, 31 }, { 31, 31, 1 }, { 3, 31, 2 }
	};
	static struct rig a, b;

	(void)state;
	for (unsigned int opc = 0; opc < 64; opc++) {
		for (size_t k = 0; k < sizeof(regs) / sizeof(regs[0]); k++) {
			for (unsigned int fn = 0; fn < (k ? 256u : 2048u); fn++) {
				uint32_t w = opc << 26 | regs[k][0] << 21 | regs[k][1] << 16 |
					     fn << 5 | regs[k][2];
				enum axp_stop want = AXP_STOP_BUDGET;
				enum axp_stop got;
				bool stopped;

				rig_init(&a, AXP_POLICY_FULL);
				rig_code(&a, 0, w);
				dispatch_regs(&a);
				b = a;
				b.cfg.mem_priv = &b.m;
				stopped = axp_step(&a.ctx, &a.cfg, &a.info) != 0;
				if (stopped)
					want = a.info.reason;
				got = axp_run(&b.ctx, &b.cfg, 1, &b.info);
				/* (info.pc: for a stop; a completed step names the instruction, a
				 * run the next) */
				if (got != want || b.info.executed != a.info.executed ||
				    (stopped && b.info.pc != a.info.pc) ||
				    memcmp(&a.ctx, &b.ctx, sizeof(a.ctx)) != 0 ||
				    memcmp(&a.m, &b.m, sizeof(a.m)) != 0)
					fail_msg(
						"word %#010x: axp_run %s (%llu executed), axp_step %s "
						"(%llu), or their context or memory differ",
						(unsigned int)w, axp_stop_name[got],
						(unsigned long long)b.info.executed,
						axp_stop_name[want],
						(unsigned long long)a.info.executed);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_integer_vectors),
		cmocka_unit_test(test_exec_r31_reads_zero_and_is_never_written),
		cmocka_unit_test(test_exec_cmov_keeps_old_value),
		cmocka_unit_test(test_exec_overflow_trap),
		cmocka_unit_test(test_exec_loads_and_stores),
		cmocka_unit_test(test_exec_load_to_r31_is_not_performed),
		cmocka_unit_test(test_exec_fault_leaves_context_unchanged),
		cmocka_unit_test(test_exec_unaligned_by_policy),
		cmocka_unit_test(test_exec_ll_sc),
		cmocka_unit_test(test_exec_branches_and_jumps),
		cmocka_unit_test(test_exec_stops_name_the_reason),
		cmocka_unit_test(test_exec_observer_sees_results_and_addresses),
		cmocka_unit_test(test_exec_misc_group),
		cmocka_unit_test(test_exec_barriers_reach_the_memory_system),
		cmocka_unit_test(test_exec_observer_can_stop_the_run),
		cmocka_unit_test(test_exec_run_dispatch_matches_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
