/* tests/machine/test_mach_thread.c - guest threads: clone, futex wait/wake/requeue, exit, tgkill. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mach_sys.h"

#define BUF 0x100000000ull /* scratch page: futex words, tid words */
#define PTHREAD_FLAGS \
	0x3d0f00ull /* glibc pthread_create: VM FS FILES SIGHAND THREAD SYSVSEM SETTLS PARENT_SETTID CHILD_CLEARTID */

static int setup(void **state)
{
	struct mach *m;
	uint64_t va;

	if (mach_new(&m, NULL))
		return -1;
	if (mach_mem_map(m->mem, BUF, MACH_PAGE_SIZE, MACH_PROT_R | MACH_PROT_W, MACH_MAP_FIXED, -1,
			 0, &va))
		return -1;
	m->err = fopen("/dev/null", "w");
	m->prog = "test";
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	struct mach *m = *state;

	fclose(m->err);
	mach_free(m);
	return 0;
}

static void sys(struct mach *m, unsigned int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		uint64_t a4, uint64_t a5)
{
	m->ctx.pc += 4;
	m->ctx.r[0] = nr;
	m->ctx.r[16] = a0;
	m->ctx.r[17] = a1;
	m->ctx.r[18] = a2;
	m->ctx.r[19] = a3;
	m->ctx.r[20] = a4;
	m->ctx.r[21] = a5;
	mach_syscall(m);
}

static uint32_t get32(struct mach *m, uint64_t va)
{
	uint32_t v = 0;

	assert_int_equal(mach_mem_read(m->mem, va, &v, 4), 0);
	return v;
}

static void put32(struct mach *m, uint64_t va, uint32_t v)
{
	assert_int_equal(mach_mem_write(m->mem, va, &v, 4), 0);
}

/* Main clones a thread; returns its tid (the machine still runs main). */
static int32_t spawn(struct mach *m, uint64_t sp, uint64_t tls)
{
	int32_t tid;

	m->ctx.pc = 0x120000000ull;
	m->ctx.r[5] = 0x5555;
	sys(m, MACH_NR_clone, PTHREAD_FLAGS, sp, BUF, BUF + 4, tls, 0);
	assert_int_equal(m->ctx.r[19], 0);
	tid = (int32_t)m->ctx.r[0];
	assert_int_not_equal(tid, m->pid);
	assert_int_equal(get32(m, BUF), (uint32_t)tid); /* CLONE_PARENT_SETTID */
	return tid;
}

static void test_clone_gives_the_thread_its_own_registers_and_tls(void **state)
{
	struct mach *m = *state;
	int32_t main_tid = m->tid, tid = spawn(m, 0x7000, 0xabc0);

	assert_int_equal(mach_thread_count(m), 2);
	assert_int_equal(m->tid, main_tid);
	mach_sched(m); /* round-robin: the new thread */
	assert_int_equal(m->tid, tid);
	assert_int_equal(m->ctx.r[30], 0x7000);
	assert_int_equal(m->ctx.unique, 0xabc0);
	assert_int_equal(m->ctx.r[0], 0); /* copy_thread: v0 = 0, a3 = 0, a4 = 1 */
	assert_int_equal(m->ctx.r[19], 0);
	assert_int_equal(m->ctx.r[20], 1);
	assert_int_equal(m->ctx.r[5], 0x5555); /* the rest copied from the parent */
	assert_int_equal(m->ctx.pc, 0x120000004ull);
	sys(m, MACH_NR_gettid, 0, 0, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], (uint64_t)tid);
	mach_sched(m);
	assert_int_equal(m->tid, main_tid);
	assert_int_not_equal(m->ctx.unique, 0xabc0);
}

static void test_futex_wait_blocks_until_wake(void **state)
{
	struct mach *m = *state;
	int32_t main_tid = m->tid, tid = spawn(m, 0x7000, 0);
	const uint64_t word = BUF + 64;

	put32(m, word, 1);
	sys(m, MACH_NR_futex, word, 128 /* WAIT|PRIVATE */, 2, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 1); /* value differs: EAGAIN at once */
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(EAGAIN));
	sys(m, MACH_NR_futex, word, 128, 1, 0, 0, 0);
	assert_true(m->resched);
	mach_sched(m);
	assert_int_equal(m->tid, tid); /* main waits */
	mach_sched(m);
	assert_int_equal(m->tid, tid); /* still the only runnable one */
	sys(m, MACH_NR_futex, word, 129 /* WAKE|PRIVATE */, 5, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], 1); /* one waiter woken */
	mach_sched(m);
	assert_int_equal(m->tid, main_tid);
	assert_int_equal(m->ctx.r[19], 0); /* its wait returned 0 */
	assert_int_equal(m->ctx.r[0], 0);
}

static void test_futex_cmp_requeue_moves_waiters(void **state)
{
	struct mach *m = *state;
	int32_t t1 = spawn(m, 0x7000, 0), t2 = spawn(m, 0x8000, 0);
	const uint64_t a = BUF + 64, b = BUF + 128;

	put32(m, a, 0);
	mach_sched(m);
	assert_int_equal(m->tid, t1);
	sys(m, MACH_NR_futex, a, 128, 0, 0, 0, 0); /* t1 waits on a */
	mach_sched(m);
	assert_int_equal(m->tid, t2);
	sys(m, MACH_NR_futex, a, 128, 0, 0, 0, 0); /* t2 waits on a */
	mach_sched(m);
	assert_int_equal(m->tid, m->pid);
	sys(m, MACH_NR_futex, a, 128 | 4 /* CMP_REQUEUE */, 1, 1, b, 7);
	assert_int_equal(m->ctx.r[19], 1); /* *a != 7: EAGAIN */
	sys(m, MACH_NR_futex, a, 128 | 4, 1, 1, b, 0);
	assert_int_equal(m->ctx.r[0], 2); /* t1 woken, t2 moved to b */
	sys(m, MACH_NR_futex, a, 129, 10, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], 0); /* nobody left on a */
	sys(m, MACH_NR_futex, b, 129, 10, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], 1);
}

static void test_thread_exit_clears_and_wakes_child_tid(void **state)
{
	struct mach *m = *state;
	int32_t tid = spawn(m, 0x7000, 0);

	/* main joins: waits on the child_tid word while it holds the tid */
	put32(m, BUF + 4, (uint32_t)tid);
	sys(m, MACH_NR_futex, BUF + 4, 0, (uint32_t)tid, 0, 0, 0);
	mach_sched(m);
	assert_int_equal(m->tid, tid);
	sys(m, MACH_NR_exit, 0, 0, 0, 0, 0, 0);
	assert_false(m->exited); /* one thread ended, not the process */
	mach_sched(m);
	assert_int_equal(m->tid, m->pid);
	assert_int_equal(get32(m, BUF + 4), 0); /* CLONE_CHILD_CLEARTID */
	assert_int_equal(m->ctx.r[19], 0); /* woken by the exit */
	assert_int_equal(mach_thread_count(m), 1);
	sys(m, MACH_NR_exit, 3, 0, 0, 0, 0, 0);
	assert_true(m->exited); /* the last thread ends the process */
	assert_int_equal(m->exit_code, 3);
}

static void test_tgkill_interrupts_a_waiting_thread(void **state)
{
	struct mach *m = *state;
	int32_t tid = spawn(m, 0x7000, 0);

	mach_sched(m);
	put32(m, BUF + 64, 0);
	sys(m, MACH_NR_futex, BUF + 64, 128, 0, 0, 0, 0);
	mach_sched(m);
	assert_int_equal(m->tid, m->pid);
	sys(m, MACH_NR_tgkill, (uint64_t)m->pid, (uint64_t)tid, MACH_SIGUSR1, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 0);
	assert_int_equal(m->sigpending, 0); /* not main's */
	sys(m, MACH_NR_tgkill, (uint64_t)m->pid, 12345, MACH_SIGUSR1, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(ESRCH));
	mach_sched(m);
	assert_int_equal(m->tid, tid);
	assert_true(m->sigpending & (1ull << (MACH_SIGUSR1 - 1)));
	assert_int_equal(m->ctx.r[19], 1); /* its wait: EINTR */
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(EINTR));
}

static void test_bad_clone_flags_fail_einval_named_once(void **state)
{
	struct mach *m = *state;
	char buf[512] = "";

	fclose(m->err);
	m->err = fmemopen(buf, sizeof(buf), "w");
	sys(m, MACH_NR_clone, 0x100 /* CLONE_VM alone */, 0x7000, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(EINVAL));
	sys(m, MACH_NR_clone, PTHREAD_FLAGS | 0x8000000 /* CLONE_NEWUTS */, 0x7000, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(EINVAL));
	sys(m, MACH_NR_futex, BUF, 6 /* LOCK_PI */, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(ENOSYS));
	fflush(m->err);
	assert_non_null(strstr(buf, "clone flags 0x100 not supported: EINVAL"));
	assert_null(strstr(buf, "0x8d0f00")); /* the second bad clone: no second line */
	assert_non_null(strstr(buf, "futex operation 0x6 not supported: ENOSYS"));
	assert_int_equal(mach_thread_count(m), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_clone_gives_the_thread_its_own_registers_and_tls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_futex_wait_blocks_until_wake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_futex_cmp_requeue_moves_waiters, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_thread_exit_clears_and_wakes_child_tid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tgkill_interrupts_a_waiting_thread, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_clone_flags_fail_einval_named_once, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
