/* tests/machine/test_mach_ev6_replay.c - EV6 model: forwarding, replay traps, stWait, PMU, truth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_mach_ev6_util.h"

#define CODE 0x120000000ull /* code base: 64-byte aligned */
#define DATA 0x140000000ull /* data base */

/*
 * The pair every test plays with, in two quadpacks (a load in the second is fetched a cycle after
 * the store): MULQ r1,r2,r3 (7 cycles); STQ r3,0(r4) [data late when `late`]; then NOPs up to
 * the next quadpack; LDQ r5,0(r6) at `lea`. Returns the store's and the load's stages.
 */
static void pair(struct mach_ev6 *m, uint64_t pc, bool late, uint64_t sea, uint64_t lea,
		 struct ev6_stages *st, struct ev6_stages *ld)
{
	feed6s(m, MULQ(1, 2, 3), pc, 0);
	*st = feed6s(m, STQ(late ? 3 : 7, 0, 4), pc + 4, sea);
	feed6s(m, NOP(), pc + 8, 0);
	feed6s(m, NOP(), pc + 12, 0);
	*ld = feed6s(m, LDQ(5, 0, 6), pc + 16, lea);
}

/* Warm the I-cache line, ITB and DTB page of the pair at CODE (data block DATA + 4096). */
static void warm(struct mach_ev6 *m)
{
	struct ev6_stages a, b;

	pair(m, CODE, false, DATA + 4096, DATA + 4096 + 512, &a, &b);
}

static uint64_t replays(const struct mach_ev6 *m)
{
	return mach_ev6_count(m, MACH_EV_REPLAY);
}

/* A load after an older store to the same bytes that already issued gets its data forwarded. */
static void test_ev6_store_forwarding(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages st, ld;
	struct ev6_trec r;

	(void)state;
	assert_non_null(m);
	warm(m);
	pair(m, CODE, false, DATA, DATA, &st, &ld);
	assert_true(st.issue < ld.issue);
	assert_int_equal(ld.ready - ld.issue, 3);
	assert_int_equal(replays(m), 0);
	r = trec6(m, CODE + 16);
	assert_int_equal(r.c[EV6_TC_FWD], 1);
	assert_int_equal(r.c[EV6_TC_RP_STLD], 0);
	mach_ev6_free(m);
}

/* HRM 2.11: a store issuing after a younger load to overlapping bytes traps the load, which
 * issues again 14 cycles (Table 2-1) after; the stWait bit then holds it behind older stores. */
static void test_ev6_store_load_trap_and_stwait(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages st, ld;
	struct ev6_trec r;

	(void)state;
	assert_non_null(m);
	warm(m);
	pair(m, CODE, true, DATA, DATA, &st, &ld); /* the load reads the store's bytes */
	assert_int_equal(replays(m), 1);
	assert_int_equal(mach_ev6_replay_count(m, CODE + 16, CODE + 4, EV6_RP_STLD), 1);
	assert_true(ld.issue >= st.issue + 14);
	r = trec6(m, CODE + 16);
	assert_int_equal(r.c[EV6_TC_RP_STLD], 1);
	assert_int_equal(r.c[EV6_TC_AB_REPLAY], 1);
	assert_int_equal(r.c[EV6_TC_FETCH],
			 r.c[EV6_TC_RETIRE] + r.c[EV6_TC_AB_REPLAY] + r.c[EV6_TC_AB_YOUNGER]);
	pair(m, CODE, true, DATA, DATA, &st, &ld); /* again: stWait holds the load */
	assert_int_equal(replays(m), 1);
	assert_true(ld.issue > st.issue);
	r = trec6(m, CODE + 16);
	assert_int_equal(r.c[EV6_TC_STWAIT], 1);
	assert_int_equal(r.c[EV6_TC_FWD], 2); /* the refetched load and the held one */
	/* disjoint bytes never trap */
	pair(m, CODE + 64, true, DATA + 64, DATA + 72, &st, &ld);
	assert_int_equal(replays(m), 1);
	mach_ev6_free(m);
}

static void clear_fast(struct mach_ev6_params *p)
{
	p->stwait_clear = 100;
}

/* The stWait table is cleared periodically [U: stwait_clear]: the trap comes back after it. */
static void test_ev6_stwait_clearing(void **state)
{
	for (int fast = 0; fast < 2; fast++) {
		struct mach_ev6 *m = new_ev6(fast ? clear_fast : NULL);
		struct ev6_stages st, ld;

		(void)state;
		assert_non_null(m);
		warm(m);
		pair(m, CODE, true, DATA, DATA, &st, &ld);
		for (int i = 0; i < 40; i++) /* 280 cycles of dependent multiplies */
			feed6s(m, MULQ(9, 9, 9), CODE + 0x100 + 4 * i, 0);
		feed6s(m, LDQ(31, 0, 30), CODE + 0x200, DATA + 1024); /* a load clears it */
		pair(m, CODE, true, DATA, DATA, &st, &ld);
		assert_int_equal(replays(m), fast ? 2 : 1);
		mach_ev6_free(m);
	}
}

/* HRM 2.11: an older load to the same bytes issuing after a younger one traps the younger. */
static void test_ev6_load_load_trap(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages old, young;

	(void)state;
	assert_non_null(m);
	warm(m);
	feed6s(m, MULQ(1, 2, 3), CODE, 0);
	old = feed6s(m, LDQ(4, 0, 3), CODE + 4, DATA); /* its address comes late */
	feed6s(m, NOP(), CODE + 8, 0);
	feed6s(m, NOP(), CODE + 12, 0);
	young = feed6s(m, LDQ(5, 0, 6), CODE + 16, DATA);
	assert_int_equal(mach_ev6_replay_count(m, CODE + 16, CODE + 4, EV6_RP_LDLD), 1);
	assert_true(young.issue >= old.issue + 14);
	mach_ev6_free(m);
}

/* Other Mbox replays: a load only partly covered by an older store in the queue waits for it
 * to retire; the ninth outstanding miss finds the 8-entry MAF full. */
static void test_ev6_mbox_replays(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages st, ld;

	(void)state;
	assert_non_null(m);
	warm(m);
	feed6s(m, MULQ(1, 2, 3), CODE, 0);
	st = feed6s(m, STL(7, 4, 4), CODE + 4, DATA + 4); /* 4 bytes of the quadword */
	feed6s(m, NOP(), CODE + 8, 0);
	feed6s(m, NOP(), CODE + 12, 0);
	ld = feed6s(m, LDQ(5, 0, 6), CODE + 16, DATA);
	assert_int_equal(mach_ev6_replay_count(m, CODE + 16, CODE + 4, EV6_RP_MBOX), 1);
	assert_true(ld.issue > st.retire);
	for (int i = 0; i < 9; i++)
		feed6s(m, LDQ(10 + i, 0, 20), CODE + 64 + 4 * i, DATA + 128 * (i + 1));
	assert_int_equal(mach_ev6_replay_count(m, CODE + 64 + 32, 0, EV6_RP_MBOX), 1);
	assert_int_equal(replays(m), 2);
	mach_ev6_free(m);
}

static void queues2(struct mach_ev6_params *p)
{
	p->lq = 2;
	p->sq = 2;
}

/* Other Mbox replays: a third load (store) issuing while two older ones wait to retire finds the
 * load (store) queue full [HRM 2.11]; it issues again after the oldest retires. */
static void test_ev6_queue_full_replays(void **state)
{
	struct mach_ev6 *m = new_ev6(queues2);
	struct ev6_stages a, c;

	(void)state;
	assert_non_null(m);
	warm(m);
	feed6s(m, MULQ(1, 2, 3), CODE, 0);
	feed6s(m, MULQ(3, 2, 3), CODE + 4, 0); /* retire waits 14 cycles for these */
	a = feed6s(m, STQ(7, 0, 4), CODE + 8, DATA + 8);
	feed6s(m, STQ(7, 8, 4), CODE + 12, DATA + 16);
	c = feed6s(m, STQ(7, 16, 4), CODE + 16, DATA + 24);
	assert_int_equal(mach_ev6_replay_count(m, CODE + 16, 0, EV6_RP_MBOX), 1);
	assert_true(c.issue > a.retire);
	feed6s(m, MULQ(1, 2, 3), CODE + 64, 0);
	feed6s(m, MULQ(3, 2, 3), CODE + 68, 0);
	a = feed6s(m, LDQ(10, 0, 4), CODE + 72, DATA + 8);
	feed6s(m, LDQ(11, 8, 4), CODE + 76, DATA + 16);
	c = feed6s(m, LDQ(12, 16, 4), CODE + 80, DATA + 24);
	assert_int_equal(mach_ev6_replay_count(m, CODE + 80, 0, EV6_RP_MBOX), 1);
	assert_true(c.issue > a.retire);
	assert_int_equal(replays(m), 2);
	mach_ev6_free(m);
}

/* The PMU: REPLAY can be sampled; CYCLES overflows once a period, each interrupt reporting the
 * pc of an instruction retired no earlier than its delivery cycle. */
static void test_ev6_pmu(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages st, ld;
	struct mach_irq irq;
	unsigned int n = 0;

	(void)state;
	assert_non_null(m);
	warm(m);
	mach_ev6_pmu_arm(m, MACH_EV_REPLAY, 1);
	pair(m, CODE, true, DATA, DATA, &st, &ld);
	for (int i = 0; i < 20 && !mach_ev6_irq_take(m, &irq); i++)
		feed6s(m, NOP(), CODE + 0x40 + 4 * i, 0);
	assert_int_equal(irq.event, MACH_EV_REPLAY);
	mach_ev6_pmu_arm(m, MACH_EV_CYCLES, 100);
	for (int i = 0; i < 3000; i++) {
		feed6s(m, ADDQ(9, 9, 9), CODE + 0x400 + 4 * (i % 256), 0); /* one a cycle */
		while (mach_ev6_irq_take(m, &irq)) {
			assert_int_equal(irq.event, MACH_EV_CYCLES);
			assert_true(irq.cycle <= mach_ev6_cycles(m));
			assert_int_equal(irq.pc, CODE + 0x400 + 4 * (i % 256));
			n++;
			mach_ev6_pmu_arm(m, MACH_EV_CYCLES, 100);
		}
	}
	assert_in_range(n, mach_ev6_cycles(m) / 100 - 35, mach_ev6_cycles(m) / 100 + 1);
	mach_ev6_free(m);
}

/* The truth file: written, read back, the EV6 records and the replay's cause. */
static void test_ev6_truth_file(void **state)
{
	struct mach_ev6 *m = new_ev6(NULL);
	struct ev6_stages st, ld;
	char path[] = "/tmp/axprof-ev6-truth.XXXXXX";
	const struct mach_truth_ev6pc *r;
	struct mach_truth *t;
	struct ax_error err;
	uint64_t fetch = 0, ret = 0, ab = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(m);
	warm(m);
	pair(m, CODE, true, DATA, DATA, &st, &ld);
	assert_int_equal(mach_ev6_truth_write(m, path), 0);
	assert_int_equal(mach_truth_read(path, &t, &err), 0);
	unlink(path);
	assert_int_equal(t->sum.ext[MACH_TX_CPU], 6);
	assert_int_equal(t->sum.insns, m->seq);
	assert_int_equal(t->sum.ext[MACH_TX_REPLAY], 1);
	assert_int_equal(t->nreplays, 1);
	assert_int_equal(t->replays[0].pc, CODE + 16);
	assert_int_equal(t->replays[0].cause, CODE + 4);
	assert_int_equal(t->replays[0].kind, EV6_RP_STLD);
	r = mach_truth_find_ev6(t, CODE + 16);
	assert_non_null(r);
	assert_int_equal(r->c[MACH_T6_RP_STLD], 1);
	assert_int_equal(r->c[MACH_T6_RETIRE], 2);
	for (size_t i = 0; i < t->nev6; i++) {
		fetch += t->ev6[i].c[MACH_T6_FETCH];
		ret += t->ev6[i].c[MACH_T6_RETIRE];
		ab += t->ev6[i].c[MACH_T6_AB_REPLAY] + t->ev6[i].c[MACH_T6_AB_YOUNGER];
	}
	assert_int_equal(ret, m->seq);
	assert_int_equal(fetch, ret + ab);
	assert_true(ab > 1); /* the load and what was fetched after it */
	mach_truth_free(t);
	mach_ev6_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ev6_store_forwarding),
		cmocka_unit_test(test_ev6_store_load_trap_and_stwait),
		cmocka_unit_test(test_ev6_stwait_clearing),
		cmocka_unit_test(test_ev6_load_load_trap),
		cmocka_unit_test(test_ev6_mbox_replays),
		cmocka_unit_test(test_ev6_queue_full_replays),
		cmocka_unit_test(test_ev6_pmu),
		cmocka_unit_test(test_ev6_truth_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
