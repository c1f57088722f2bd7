/* tests/machine/test_mach_stack.c - shadow call stacks: calls, rets, threads, truncation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mach_stack.h"

/* Alpha Architecture Handbook §4.3 encodings: BSR ra, JSR ra,(rb), RET r31,(r26), BR r31. */
static struct axp_insn dec(uint32_t w)
{
	struct axp_insn d;

	axp_decode(w, &d);
	return d;
}
#define BSR_RA (0x34u << 26 | 26u << 21)
#define JSR_RA (0x1au << 26 | 26u << 21 | 27u << 16 | 1u << 14)
#define RET_RA (0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14)
#define BR_31 (0x30u << 26 | 31u << 21)
#define BSR_31 (0x34u << 26 | 31u << 21) /* a branch, not a call */
#define NOP (0x47ffu << 16 | 0x041fu) /* bis r31,r31,r31 */

static struct mach_stacks *st;

static void fetch(int32_t tid, uint64_t va, uint32_t w)
{
	struct axp_insn d = dec(w);

	assert_int_equal(mach_stacks_fetch(st, tid, va, &d), 0);
}

/* The frames of tid's stack sampled at pc (next instruction next), innermost first. */
static unsigned int snap(int32_t tid, uint64_t pc, uint64_t next, uint64_t *pcs, uint8_t *flags)
{
	uint8_t rec[VS_REC_MAX];
	struct vs_rec_stack r;
	const char *why = NULL;
	size_t len = mach_stacks_record(st, tid, pc, next, 42, 3, rec);

	assert_int_equal(vs_abi_check_record(rec, len, &why), (int)len);
	memcpy(&r, rec, sizeof(r));
	assert_int_equal(r.pid, 42);
	assert_int_equal(r.event, 3);
	assert_int_equal(r.count, 1);
	memcpy(pcs, rec + sizeof(r), 8 * r.depth);
	*flags = r.flags;
	return r.depth;
}

static int setup(void **state)
{
	(void)state;
	return mach_stacks_new(&st);
}

static int teardown(void **state)
{
	(void)state;
	mach_stacks_free(st);
	return 0;
}

/* main 0x1000 calls f (0x2000) which calls g (0x3000) through jsr; g returns, f returns. */
static void test_mach_stack_calls_and_rets(void **state)
{
	uint64_t pcs[VS_STACK_MAX];
	uint8_t fl;
	struct mach_stacks_stats s;

	(void)state;
	fetch(1, 0x1000, NOP);
	fetch(1, 0x1004, BSR_RA); /* call f */
	fetch(1, 0x2000, NOP);
	fetch(1, 0x2004, JSR_RA); /* call g */
	fetch(1, 0x3000, NOP);
	assert_int_equal(snap(1, 0x3000, 0x3004, pcs, &fl), 3);
	assert_true(pcs[0] == 0x3000 && pcs[1] == 0x2004 && pcs[2] == 0x1004 && fl == 0);
	fetch(1, 0x3004, RET_RA);
	fetch(1, 0x2008, NOP); /* back in f */
	assert_int_equal(snap(1, 0x2008, 0x200c, pcs, &fl), 2);
	assert_true(pcs[0] == 0x2008 && pcs[1] == 0x1004);
	fetch(1, 0x200c, RET_RA);
	fetch(1, 0x1008, NOP);
	assert_int_equal(snap(1, 0x1008, 0x100c, pcs, &fl), 1);
	mach_stacks_get_stats(st, &s);
	assert_int_equal(s.calls, 2);
	assert_int_equal(s.rets, 2);
	assert_int_equal(s.rets_unmatched, 0);
	assert_int_equal(s.max_depth, 2);
	assert_int_equal(s.snapshots, 3);
}

/* A branch (BR, BSR r31) is no call; a refetch of the same pc (a fault, handed back) means the
 * call did not execute; a sample between a call and its target's fetch sees the call. */
static void test_mach_stack_pending_and_branches(void **state)
{
	uint64_t pcs[VS_STACK_MAX];
	uint8_t fl;

	(void)state;
	fetch(1, 0x1000, BR_31);
	fetch(1, 0x1100, BSR_31);
	fetch(1, 0x1200, BSR_RA);
	fetch(1, 0x1200, BSR_RA); /* refetched: not executed the first time */
	assert_int_equal(snap(1, 0x1200, 0x1200, pcs, &fl), 1); /* still pending */
	assert_int_equal(snap(1, 0x2000, 0x2000, pcs, &fl), 2); /* executed: at its target */
	assert_true(pcs[1] == 0x1200);
	fetch(1, 0x2000, NOP); /* the fetch after the sample does not push it twice */
	assert_int_equal(snap(1, 0x2000, 0x2004, pcs, &fl), 2);
}

/* A ret pops to the frame it returns to (skipping frames a longjmp abandoned); a ret to no
 * frame (a signal handler's to its trampoline) changes nothing and is counted. */
static void test_mach_stack_unmatched_rets(void **state)
{
	uint64_t pcs[VS_STACK_MAX];
	struct mach_stacks_stats s;
	uint8_t fl;

	(void)state;
	fetch(1, 0x1000, BSR_RA); /* a */
	fetch(1, 0x2000, BSR_RA); /* b */
	fetch(1, 0x3000, BSR_RA); /* c */
	fetch(1, 0x4000, RET_RA);
	fetch(1, 0x9000, NOP); /* to no frame */
	assert_int_equal(snap(1, 0x9000, 0x9004, pcs, &fl), 4);
	fetch(1, 0x9004, RET_RA);
	fetch(1, 0x1004, NOP); /* to a's return address: b and c were abandoned */
	assert_int_equal(snap(1, 0x1004, 0x1008, pcs, &fl), 1);
	mach_stacks_get_stats(st, &s);
	assert_int_equal(s.rets_unmatched, 1);
}

/* Each thread has its own stack; a forked child keeps only its own thread's. */
static void test_mach_stack_threads(void **state)
{
	uint64_t pcs[VS_STACK_MAX];
	uint8_t fl;

	(void)state;
	fetch(1, 0x1000, BSR_RA);
	fetch(2, 0x5000, NOP);
	fetch(1, 0x2000, NOP); /* thread 1's call executed although thread 2 ran between */
	fetch(2, 0x5004, BSR_RA);
	fetch(2, 0x6000, BSR_RA);
	fetch(2, 0x7000, NOP);
	assert_int_equal(snap(1, 0x2000, 0x2004, pcs, &fl), 2);
	assert_int_equal(snap(2, 0x7000, 0x7004, pcs, &fl), 3);
	assert_true(pcs[1] == 0x6000 && pcs[2] == 0x5004);
	mach_stacks_keep_only(st, 2);
	assert_int_equal(snap(1, 0x2000, 0x2004, pcs, &fl), 1);
	assert_int_equal(snap(2, 0x7000, 0x7004, pcs, &fl), 3);
}

/* Deeper than VS_STACK_MAX: the innermost frames, flagged and counted. */
static void test_mach_stack_truncation(void **state)
{
	uint64_t pcs[VS_STACK_MAX];
	struct mach_stacks_stats s;
	uint8_t fl;
	unsigned int i;

	(void)state;
	for (i = 0; i < 100; i++)
		fetch(1, 0x10000 + 0x100 * i, BSR_RA);
	fetch(1, 0x90000, NOP);
	assert_int_equal(snap(1, 0x90000, 0x90004, pcs, &fl), VS_STACK_MAX);
	assert_int_equal(fl, VS_STK_TRUNCATED);
	assert_true(pcs[1] == 0x10000 + 0x100 * 99 && pcs[61] == 0x10000 + 0x100 * 39);
	for (i = 100; i-- > 39;) { /* return from the 61 innermost: 62 frames then */
		fetch(1, 0x90000 + 0x100 * i, RET_RA);
		fetch(1, 0x10004 + 0x100 * i, NOP);
	}
	assert_int_equal(snap(1, 0x10004 + 0x100 * 39, 0, pcs, &fl), 40);
	assert_int_equal(fl, 0);
	mach_stacks_get_stats(st, &s);
	assert_int_equal(s.truncated, 1);
	assert_int_equal(s.max_depth, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mach_stack_calls_and_rets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_stack_pending_and_branches, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_stack_unmatched_rets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_stack_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_stack_truncation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
