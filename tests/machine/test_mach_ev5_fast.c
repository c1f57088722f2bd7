/* tests/machine/test_mach_ev5_fast.c - EV5 shortcuts (retire, inlined loop) = full paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mach_kern.h"
#include "test_mach_ev5_util.h"

#define CODE 0x120000000ull
#define DATA 0x140000000ull
#define BODY 24 /* instructions in one pass of the loop below */

struct step {
	struct axp_insn d;
	struct axp_event ev;
};

static void make_step(struct step *s, uint32_t word, uint64_t pc, uint64_t next_pc, uint64_t ea)
{
	uint32_t f;

	axp_decode(word, &s->d);
	f = axp_op_info[s->d.op].flags;
	memset(&s->ev, 0, sizeof(s->ev));
	s->ev.pc = pc;
	s->ev.next_pc = next_pc;
	s->ev.word = word;
	s->ev.op = s->d.op;
	s->ev.dest = AXP_NO_DEST;
	s->ev.size = (uint8_t)axp_mem_size(f);
	s->ev.ea = ea;
	s->ev.is_load = (f & AXP_F_LD) != 0;
	s->ev.is_store = (f & AXP_F_ST) != 0;
	s->ev.taken = next_pc != pc + 4;
	s->ev.insn = &s->d;
}

/*
 * Pass i of a loop with every kind of instruction the retire treats apart: dependent integer
 * ops, the ICMP -> IBR and CMOV bypass, loads walking 256 KB (D-cache and DTB misses, missing
 * loads' consumers and a WAW on one), stores, multiplies, FP operates and a divide, R31
 * destinations, a call and return, a taken and a not-taken branch.
 */
static unsigned int loop_pass(struct step *s, unsigned int i)
{
	const uint64_t a = DATA + (uint64_t)i * 1096 % (256u << 10), pc = CODE;
	const uint32_t w[BODY] = {
		LDQ(1, 0, 16),	 ADDQ(1, 2, 3),
		CMPULT(3, 4, 5), BEQ(5, 1),
		ADDQI(2, 1, 2),	 LDQ(6, 8, 16),
		LDQ(6, 16, 16),	 CMOVEQ(5, 6, 7),
		STQ(7, 0, 17),	 MULQ(7, 3, 8),
		ADDT(1, 2, 3),	 MULT(3, 3, 4),
		DIVT(4, 1, 5),	 ADDQ(8, 31, 31),
		SLLI(8, 3, 9),	 STQ(9, 8, 17),
		BSR(2),		 NOP(),
		NOP(),		 RET(),
		LDQ(10, 64, 16), ADDQ(10, 10, 11),
		STQ(11, 16, 17), BNE(3, -(BODY - 1) - 1),
	};
	unsigned int n = 0;

	for (unsigned int k = 0; k < BODY; k++) {
		uint64_t at = pc + 4 * k, next = at + 4, ea = 0;

		if (k == 3 && i % 3)
			next = at + 8; /* BEQ taken two passes in three: skips ADDQI */
		if (k == 4 && i % 3)
			continue;
		if (k == 16)
			next = at + 12; /* BSR over the NOPs... */
		if (k == 17 || k == 18)
			continue;
		if (k == 19)
			next = pc + 4 * 17 + 4 * 3; /* ...RET to the LDQ after them */
		if (k == BODY - 1)
			next = pc;
		if (k == 0 || k == 5 || k == 6 || k == 20)
			ea = a + (k == 20 ? 64 : 8 * (k / 5));
		if (k == 8 || k == 15 || k == 22)
			ea = DATA + (128u << 20) + (uint64_t)i * 24 % 8192 + (k - 8);
		make_step(&s[n++], w[k], at, next, ea & ~7ull);
	}
	return n;
}

static struct mach_ev5 *model(bool truth)
{
	struct mach_ev5_params p;
	struct mach_ev5 *m = NULL;

	mach_ev5_params_default(&p);
	p.truth = truth;
	assert_int_equal(mach_ev5_new_params(&m, &p), 0);
	return m;
}

/* Make the timing-facts cache miss on `word` at pc next time: its slot holds `junk` (the facts
 * of another instruction) tagged with another word. */
static void pd_evict(struct mach_ev5 *m, uint64_t pc, uint32_t word, const struct ev5_pd *junk)
{
	unsigned int slot = ev5_pd_slot(pc);

	m->pd[slot] = *junk;
	m->pd[slot].word = word ^ 1;
}

/* Every instruction's cycle, every stall total and event count, with the cache hitting (and
 * no truth: the retire's shortest path) and with every entry filled afresh (truth on). */
static void test_ev5_fast_cache_matches_fill(void **state)
{
	struct mach_ev5 *hit = model(false), *fill = model(true), *truth = model(true);
	struct mach_ev5 *other = model(false);
	const uint32_t mul = MULQ(20, 21, 22);
	struct step s[BODY];

	(void)state;
	feed1(other, mul, CODE, 0); /* its cache entry: what an eviction leaves behind */
	for (unsigned int i = 0; i < 400; i++) {
		unsigned int n = loop_pass(s, i);

		for (unsigned int k = 0; k < n; k++) {
			mach_ev5_retire(hit, &s[k].d, &s[k].ev);
			mach_ev5_retire(truth, &s[k].d, &s[k].ev);
			pd_evict(fill, s[k].ev.pc, s[k].ev.word, &other->pd[ev5_pd_slot(CODE)]);
			mach_ev5_retire(fill, &s[k].d, &s[k].ev);
			assert_int_equal(mach_ev5_cycles(hit), mach_ev5_cycles(fill));
		}
	}
	for (int c = 0; c < MACH_STALL_NR; c++)
		assert_int_equal(mach_ev5_stall_total(hit, (enum mach_stall)c),
				 mach_ev5_stall_total(fill, (enum mach_stall)c));
	for (int e = 0; e < MACH_EV_NR; e++)
		assert_int_equal(mach_ev5_count(hit, (enum mach_event)e),
				 mach_ev5_count(fill, (enum mach_event)e));
	assert_true(mach_ev5_stall_total(hit, MACH_STALL_DMISS) > 0);
	assert_true(mach_ev5_count(hit, MACH_EV_DTBMISS) > 0);
	for (unsigned int k = 0; k < BODY; k++) {
		struct mach_truth_pc a = truth_of(truth, CODE + 4 * k);
		struct mach_truth_pc b = truth_of(fill, CODE + 4 * k);

		assert_memory_equal(&a, &b, sizeof(a));
	}
	mach_ev5_free(hit);
	mach_ev5_free(fill);
	mach_ev5_free(truth);
	mach_ev5_free(other);
}

/* The retire books only the dynamic stall causes; STATIC is derived from the cycles outside the
 * kernel (stall_static()). With truth on every instruction's STATIC cycles are still booked to
 * its PC: the derived total must equal their sum, kernel stretches in between. */
static void test_ev5_fast_static_stall_matches_truth(void **state)
{
	struct mach_ev5 *m = model(true);
	struct step s[BODY];
	uint64_t head = 0;

	(void)state;
	for (unsigned int i = 0; i < 300; i++) {
		unsigned int n = loop_pass(s, i);

		for (unsigned int k = 0; k < n; k++)
			mach_ev5_retire(m, &s[k].d, &s[k].ev);
		if (i % 50 == 7)
			mach_ev5_kernel(m, 4, MACH_KERN_BASE, 100 + i);
	}
	for (int c = 0; c < MACH_STALL_NR; c++) {
		uint64_t sum = 0;

		for (unsigned int k = 0; k < BODY; k++)
			sum += truth_of(m, CODE + 4 * k).stall[c];
		assert_int_equal(mach_ev5_stall_total(m, (enum mach_stall)c), sum);
	}
	for (unsigned int k = 0; k < BODY; k++)
		head += truth_of(m, CODE + 4 * k).head;
	assert_int_equal(head + m->kcycles, mach_ev5_cycles(m));
	assert_true(m->kcycles >= 6 * 100);
	assert_true(mach_ev5_stall_total(m, MACH_STALL_STATIC) > 0);
	assert_true(mach_ev5_stall_total(m, MACH_STALL_DMISS) > 0);
	mach_ev5_free(m);
}

struct irq_log {
	unsigned int n;
	struct mach_irq v[512];
};

static void log_irq(struct mach_ev5 *m, struct irq_log *log, const struct mach_irq *irq)
{
	if (log->n < 512)
		log->v[log->n++] = *irq;
	mach_ev5_pmu_arm(m, irq->event, 37 + log->n % 5);
}

/* Two runs took the same interrupts: event, pc and cycle of each, in order. */
static void assert_irq_logs_equal(const struct irq_log *la, const struct irq_log *lb)
{
	assert_int_equal(la->n, lb->n);
	for (unsigned int i = 0; i < la->n; i++) {
		assert_int_equal(la->v[i].event, lb->v[i].event);
		assert_int_equal(la->v[i].pc, lb->v[i].pc);
		assert_int_equal(la->v[i].cycle, lb->v[i].cycle);
	}
}

/* The machine's observer (ev5_observe) and ops.retire + irq_take (the run loop's generic
 * observer) retire alike and stop for the same interrupts. */
static void test_ev5_fast_observer_matches_retire(void **state)
{
	struct mach_ev5 *a = model(false), *b = model(false);
	struct mach_cpu_obs obs = { .model = a };
	struct irq_log *la = calloc(1, sizeof(*la)), *lb = calloc(1, sizeof(*lb));
	struct step s[BODY];
	struct mach_irq irq;

	(void)state;
	assert_non_null(la);
	assert_non_null(lb);
	mach_ev5_pmu_arm(a, MACH_EV_CYCLES, 37);
	mach_ev5_pmu_arm(b, MACH_EV_CYCLES, 37);
	for (unsigned int i = 0; i < 100; i++) {
		unsigned int n = loop_pass(s, i);

		for (unsigned int k = 0; k < n; k++) {
			ev5_observe(&obs, &s[k].ev);
			while (obs.stop) {
				log_irq(a, la, &obs.irq);
				obs.have_irq = mach_ev5_irq_take(a, &obs.irq);
				obs.stop = obs.have_irq;
			}
			if (ev5_retire_op(b, &s[k].d, &s[k].ev))
				while (mach_ev5_irq_take(b, &irq))
					log_irq(b, lb, &irq);
		}
	}
	assert_true(la->n > 100);
	assert_irq_logs_equal(la, lb);
	assert_int_equal(mach_ev5_cycles(a), mach_ev5_cycles(b));
	free(la);
	free(lb);
	mach_ev5_free(a);
	mach_ev5_free(b);
}

/*
 * RETIRED, LOADS and FPOPS share one test per instruction (ev5_pmu_issue): each still overflows
 * exactly every period events, re-armed at every interrupt. Periods are counted from the
 * overflow, so the interrupts of each event number its count / period (the last ones
 * delivered by the NOPs after the loop, which count RETIRED only).
 */
static void test_ev5_fast_issue_events_overflow_exactly(void **state)
{
	static const enum mach_event ev[] = { MACH_EV_RETIRED, MACH_EV_LOADS, MACH_EV_FPOPS };
	static const uint64_t period[] = { 101, 13, 11 };
	struct mach_ev5 *m = model(false);
	unsigned int taken[MACH_EV_NR] = { 0 };
	struct step s[BODY];
	struct mach_irq irq;

	(void)state;
	for (unsigned int e = 0; e < 3; e++)
		mach_ev5_pmu_arm(m, ev[e], period[e]);
	for (unsigned int i = 0; i < 300; i++) {
		unsigned int n = loop_pass(s, i);

		for (unsigned int k = 0; k < n + 40; k++) {
			if (k < n)
				mach_ev5_retire(m, &s[k].d, &s[k].ev);
			else if (i == 299) /* the tail: NOPs until every interrupt is delivered */
				feed1(m, NOP(), CODE + 0x1000 + 4 * (k - n), 0);
			else
				break;
			while (mach_ev5_irq_take(m, &irq)) {
				taken[irq.event]++;
				for (unsigned int e = 0; e < 3; e++)
					if (ev[e] == irq.event)
						mach_ev5_pmu_arm(m, irq.event, period[e]);
			}
		}
	}
	assert_int_equal(m->irq_dropped, 0);
	for (unsigned int e = 0; e < 3; e++) {
		uint64_t count = mach_ev5_count(m, ev[e]);

		assert_true(count > 20 * period[e]);
		if (ev[e] == MACH_EV_RETIRED) /* the NOPs count too: its last may be pending */
			assert_true(taken[ev[e]] + 1 >= count / period[e]);
		else
			assert_int_equal(taken[ev[e]], count / period[e]);
		assert_true(taken[ev[e]] <= count / period[e]);
	}
	mach_ev5_free(m);
}

/* ---- the run loop with the observer inlined (ev5_run) ---- */

#define TPROG 0x10000ull /* the program's page (8 KB) */
#define TDATA 0x20000ull
#define TSIZE 0x40000u /* guest memory: [0, 256 KB) */
#define TPAGE_N 2048u /* instructions in the program's page */

/* Flat guest memory with a decoded copy of the program's page, kept coherent with stores as the
 * machine's (mach_mem.c): a store marks the entries of the words it changes AXP_OP_NR. */
struct tmem {
	uint8_t mem[TSIZE];
	struct axp_insn dec[TPAGE_N + 1]; /* + insn_page's sentinel (axp.h) */
};

static bool t_in(uint64_t va, unsigned int size)
{
	return va < TSIZE && size <= TSIZE - va;
}

static int t_fetch(void *priv, uint64_t va, uint32_t *word)
{
	struct tmem *t = priv;

	if (!t_in(va, 4))
		return -EFAULT;
	memcpy(word, t->mem + va, 4);
	return 0;
}

static const struct axp_insn *t_fetch_insn(void *priv, uint64_t va, int *err)
{
	struct tmem *t = priv;
	struct axp_insn *d;
	uint32_t word;

	if (va < TPROG || va >= TPROG + 4 * TPAGE_N || (va & 3)) {
		*err = -EFAULT;
		return NULL;
	}
	d = &t->dec[(va - TPROG) >> 2];
	if (d->op == AXP_OP_NR) {
		memcpy(&word, t->mem + va, 4);
		axp_decode(word, d);
	}
	return d;
}

static const struct axp_insn *t_insn_page(void *priv, uint64_t va, uint64_t *first, uint64_t *n)
{
	struct tmem *t = priv;

	(void)va;
	*first = TPROG;
	*n = TPAGE_N;
	return t->dec;
}

static int t_load(void *priv, uint64_t va, unsigned int size, uint64_t *val, struct axp_access *acc)
{
	struct tmem *t = priv;

	(void)acc;
	if (!t_in(va, size))
		return -EFAULT;
	*val = 0;
	memcpy(val, t->mem + va, size); /* (little-endian host) */
	return 0;
}

static int t_store(void *priv, uint64_t va, unsigned int size, uint64_t val, struct axp_access *acc)
{
	struct tmem *t = priv;

	(void)acc;
	if (!t_in(va, size))
		return -EFAULT;
	memcpy(t->mem + va, &val, size);
	for (uint64_t w = va & ~3ull; w < va + size; w += 4)
		if (w >= TPROG && w < TPROG + 4 * TPAGE_N)
			t->dec[(w - TPROG) >> 2].op = AXP_OP_NR;
	return 0;
}

static const struct axp_mem_ops t_ops = {
	.fetch = t_fetch,
	.load = t_load,
	.store = t_store,
	.fetch_insn = t_fetch_insn,
	.insn_page = t_insn_page,
};

#define TITER 300

/*
 * A loop of TITER passes (r1 counts down) with a load, a multiply, stores walking the data, and
 * a store into its own instruction word (index 5: STL r18, 0(r17)) that turns it into
 * ADDQ r5, 1, r5 from the second pass on; then CALL_PAL callsys.
 */
static struct tmem *t_program(struct axp_ctx *ctx)
{
	struct tmem *t = calloc(1, sizeof(*t));
	const uint32_t w[] = {
		LDQ(2, 0, 16),
		ADDQ(2, 1, 3),
		MULQ(3, 3, 4),
		STQ(4, 8, 16),
		ADDQI(16, 64, 16),
		e_mem(0x2c, 18, 17, 0), /* STL */
		e_lit(0x10, 0x29, 1, 1, 1) /* SUBQ r1, 1, r1 */,
		BNE(1, -8),
		0x83 /* CALL_PAL callsys */,
	};

	assert_non_null(t);
	for (unsigned int i = 0; i <= TPAGE_N; i++)
		t->dec[i].op = AXP_OP_NR;
	memcpy(t->mem + TPROG, w, sizeof(w));
	memset(ctx, 0, sizeof(*ctx));
	ctx->pc = TPROG;
	ctx->r[1] = TITER;
	ctx->r[16] = TDATA;
	ctx->r[17] = TPROG + 4 * 5;
	ctx->r[18] = ADDQI(5, 1, 5);
	ctx->lock_addr = AXP_NO_LOCK;
	return t;
}

/* Run the program to its CALL_PAL in chunks of 100 instructions, by ev5_run() (inl) or by
 * axp_run() with ev5_observe() as the observer, logging the interrupts. */
static uint64_t t_run(struct tmem *t, struct axp_ctx *ctx, struct mach_ev5 *m, bool inl,
		      struct irq_log *log)
{
	struct mach_cpu_obs o = { .model = m };
	const struct axp_observer obs = { .insn = ev5_observe, .priv = &o, .stop = &o.stop };
	const struct axp_run_cfg cfg = { .mem = &t_ops, .mem_priv = t, .obs = &obs };
	struct axp_stop_info info;
	enum axp_stop r;
	uint64_t n = 0;

	do {
		r = inl ? ev5_run(ctx, &cfg, 100, &info) : axp_run(ctx, &cfg, 100, &info);
		n += info.executed;
		while (o.have_irq) {
			log_irq(m, log, &o.irq);
			o.have_irq = mach_ev5_irq_take(m, &o.irq);
		}
		o.stop = false;
		assert_true(r == AXP_STOP_BUDGET || r == AXP_STOP_OBSERVER ||
			    r == AXP_STOP_CALL_PAL);
	} while (r != AXP_STOP_CALL_PAL);
	return n;
}

/* ev5_run(), the run loop with ev5_observe() inlined, runs and times a program exactly as
 * axp_run() with ev5_observe() as its observer does, a store into its own word included. */
static void test_ev5_fast_inlined_loop_matches_axp_run(void **state)
{
	struct mach_ev5 *a = model(true), *b = model(true);
	struct irq_log *la = calloc(1, sizeof(*la)), *lb = calloc(1, sizeof(*lb));
	struct axp_ctx ca, cb;
	struct tmem *ta = t_program(&ca), *tb = t_program(&cb);
	struct mach_truth_pc ra, rb;
	uint64_t na, nb;

	(void)state;
	assert_non_null(la);
	assert_non_null(lb);
	mach_ev5_pmu_arm(a, MACH_EV_CYCLES, 37);
	mach_ev5_pmu_arm(b, MACH_EV_CYCLES, 37);
	na = t_run(ta, &ca, a, false, la);
	nb = t_run(tb, &cb, b, true, lb);
	assert_int_equal(na, 8 * TITER);
	assert_int_equal(nb, na);
	assert_int_equal(ca.r[5], TITER - 1); /* the rewritten word ran from the second pass */
	assert_memory_equal(&ca, &cb, sizeof(ca));
	assert_memory_equal(ta->mem, tb->mem, TSIZE);
	assert_true(la->n > 10);
	assert_irq_logs_equal(la, lb);
	assert_int_equal(mach_ev5_cycles(a), mach_ev5_cycles(b));
	for (int c = 0; c < MACH_STALL_NR; c++)
		assert_int_equal(mach_ev5_stall_total(a, (enum mach_stall)c),
				 mach_ev5_stall_total(b, (enum mach_stall)c));
	for (int e = 0; e < MACH_EV_NR; e++)
		assert_int_equal(mach_ev5_count(a, (enum mach_event)e),
				 mach_ev5_count(b, (enum mach_event)e));
	for (unsigned int k = 0; k < 9; k++) {
		memset(&ra, 0, sizeof(ra));
		memset(&rb, 0, sizeof(rb));
		assert_int_equal(mach_ev5_truth_get(a, TPROG + 4 * k, &ra),
				 mach_ev5_truth_get(b, TPROG + 4 * k, &rb));
		assert_memory_equal(&ra, &rb, sizeof(ra));
	}
	free(ta);
	free(tb);
	free(la);
	free(lb);
	mach_ev5_free(a);
	mach_ev5_free(b);
}

/* A run entered with the stop flag already set (the machine never does: it clears the flag before
 * the next run) stops after one instruction, by ev5_run() as by axp_run(). */
static void test_ev5_fast_inlined_loop_stops_on_set_flag(void **state)
{
	(void)state;
	for (int inl = 0; inl < 2; inl++) {
		struct mach_ev5 *m = model(false);
		struct axp_ctx ctx;
		struct tmem *t = t_program(&ctx);
		struct mach_cpu_obs o = { .model = m, .stop = true };
		const struct axp_observer obs = { .insn = ev5_observe,
						  .priv = &o,
						  .stop = &o.stop };
		const struct axp_run_cfg cfg = { .mem = &t_ops, .mem_priv = t, .obs = &obs };
		struct axp_stop_info info;
		enum axp_stop r;

		r = inl ? ev5_run(&ctx, &cfg, 100, &info) : axp_run(&ctx, &cfg, 100, &info);
		assert_int_equal(r, AXP_STOP_OBSERVER);
		assert_int_equal(info.executed, 1);
		assert_int_equal(ctx.pc, TPROG + 4);
		assert_int_equal(mach_ev5_count(m, MACH_EV_RETIRED), 1);
		free(t);
		mach_ev5_free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ev5_fast_cache_matches_fill),
		cmocka_unit_test(test_ev5_fast_static_stall_matches_truth),
		cmocka_unit_test(test_ev5_fast_observer_matches_retire),
		cmocka_unit_test(test_ev5_fast_issue_events_overflow_exactly),
		cmocka_unit_test(test_ev5_fast_inlined_loop_matches_axp_run),
		cmocka_unit_test(test_ev5_fast_inlined_loop_stops_on_set_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
