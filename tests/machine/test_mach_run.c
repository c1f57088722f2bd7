/* tests/machine/test_mach_run.c - unit tests of the run loop (mach_run.c) on hand-made code. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "mach_int.h"
#include "mach_ev5.h"

#define CODE 0x120000000ull

/* Instruction words (Alpha Architecture Handbook formats). */
#define LDA(ra, rb, disp) ((0x08u << 26) | ((ra) << 21) | ((rb) << 16) | ((disp)&0xffffu))
#define BIS(ra, rb, rc) ((0x11u << 26) | ((ra) << 21) | ((rb) << 16) | (0x20u << 5) | (rc))
#define SUBQ_LIT(ra, lit, rc) \
	((0x10u << 26) | ((ra) << 21) | ((lit) << 13) | (1u << 12) | (0x29u << 5) | (rc))
#define BNE(ra, disp) ((0x3du << 26) | ((ra) << 21) | ((disp)&0x1fffffu))
#define CALL_PAL(fn) (fn)
#define NR_EXIT_GROUP 405

struct fixture {
	struct mach *m;
	char msg[512];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint64_t va;

	if (!f || mach_new(&f->m, NULL))
		return -1;
	if (mach_mem_map(f->m->mem, CODE, MACH_PAGE_SIZE, MACH_PROT_R | MACH_PROT_X, MACH_MAP_FIXED,
			 -1, 0, &va) ||
	    mach_mem_map(f->m->mem, MACH_STACK_TOP - MACH_PAGE_SIZE, MACH_PAGE_SIZE,
			 MACH_PROT_R | MACH_PROT_W, MACH_MAP_FIXED, -1, 0, &va))
		return -1;
	f->m->err = fmemopen(f->msg, sizeof(f->msg), "w");
	f->m->prog = "code";
	f->m->ctx.pc = CODE;
	f->m->ctx.r[30] = MACH_STACK_TOP - 64;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	fclose(f->m->err);
	mach_free(f->m);
	free(f);
	return 0;
}

static void code(struct mach *m, const uint32_t *w, size_t n)
{
	assert_int_equal(mach_mem_poke(m->mem, CODE, w, n * 4), 0);
}

static void test_mach_run_exit_group_status_passes_through(void **state)
{
	struct fixture *f = *state;
	const uint32_t w[] = { LDA(16, 31, 42), LDA(0, 31, NR_EXIT_GROUP), CALL_PAL(0x83) };

	code(f->m, w, 3);
	assert_int_equal(mach_run(f->m), 42);
	assert_true(f->m->exited);
	assert_int_equal(f->m->exit_signal, 0);
	assert_int_equal(f->m->insns, 3); /* the CALL_PAL counts */
	assert_int_equal(f->m->syscalls, 1);
}

static void test_mach_run_unique_register_round_trip(void **state)
{
	struct fixture *f = *state;
	const uint32_t w[] = {
		LDA(16, 31, 1234), CALL_PAL(0x9f), LDA(0, 31, 0),
		CALL_PAL(0x9e),	   BIS(0, 0, 16),  LDA(0, 31, NR_EXIT_GROUP),
		CALL_PAL(0x83),
	};

	code(f->m, w, 7);
	assert_int_equal(mach_run(f->m), 1234 & 0xff);
	assert_int_equal(f->m->ctx.unique, 1234);
}

static void test_mach_run_gentrap_intdiv_kills_with_sigfpe(void **state)
{
	struct fixture *f = *state;
	const uint32_t w[] = { LDA(16, 31, -2), CALL_PAL(0xaa) };

	code(f->m, w, 2);
	assert_int_equal(mach_run(f->m), 128 + MACH_SIGFPE);
	assert_int_equal(f->m->exit_signal, MACH_SIGFPE);
	assert_int_equal(f->m->siginfo[MACH_SIGFPE].code, MACH_FPE_INTDIV);
	assert_int_equal(f->m->siginfo[MACH_SIGFPE].addr, CODE + 8); /* the next pc */
	fflush(f->m->err);
	assert_non_null(strstr(f->msg, "axprof run: code: SIGFPE at pc 0x120000004: "));
	assert_non_null(strstr(f->msg, "gentrap"));
}

static void test_mach_run_privileged_pal_and_bad_fetch_are_faults(void **state)
{
	struct fixture *f = *state;
	const uint32_t w[] = { CALL_PAL(0x00) }; /* halt: privileged */

	code(f->m, w, 1);
	assert_int_equal(mach_run(f->m), 128 + MACH_SIGILL);
	assert_int_equal(f->m->siginfo[MACH_SIGILL].code, MACH_ILL_ILLOPC);
	assert_int_equal(f->m->fault_pc, CODE);

	/* Jumping to a data page is SIGSEGV with SEGV_ACCERR (mapped, not executable). */
	f->m->exited = false;
	f->m->exit_signal = 0;
	f->m->ctx.pc = MACH_STACK_TOP - 64;
	assert_int_equal(mach_run(f->m), 128 + MACH_SIGSEGV);
	assert_int_equal(f->m->siginfo[MACH_SIGSEGV].code, MACH_SEGV_ACCERR);
	assert_int_equal(f->m->siginfo[MACH_SIGSEGV].addr, MACH_STACK_TOP - 64);
}

static void test_mach_run_max_insns_stops_the_program(void **state)
{
	struct fixture *f = *state;
	const uint32_t w[] = { LDA(1, 31, 1000), SUBQ_LIT(1, 0, 1), BNE(1, -2) }; /* forever */

	code(f->m, w, 3);
	f->m->opts.max_insns = 5000;
	assert_int_equal(mach_run(f->m), 0);
	assert_true(f->m->stopped_at_max);
	assert_int_equal(f->m->insns, 5000);
}

static struct mach *alarm_mach;

static void on_alarm(int sig)
{
	(void)sig;
	mach_interrupt(alarm_mach);
}

/* A host signal handler stops an endless program: mach_run returns 0, interrupted, no exit. */
static void test_mach_run_interrupt_from_a_signal_handler_stops_the_run(void **state)
{
	struct fixture *f = *state;
	const uint32_t w[] = { LDA(1, 31, 1), BNE(1, -1) }; /* forever */
	struct itimerval it = { .it_value = { 0, 50 * 1000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct mach_result res;

	code(f->m, w, 2);
	alarm_mach = f->m;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	assert_int_equal(mach_run(f->m), 0);
	signal(SIGALRM, SIG_DFL);
	mach_get_result(f->m, &res);
	assert_true(res.interrupted);
	assert_false(res.exited);
	assert_int_equal(res.status, 0);
	assert_true(res.insns > 0);
}

/* A kept host signal: the program's sigaction does not take its host disposition over. */
static void test_mach_run_kept_host_signal_stays_the_embedders(void **state)
{
	struct fixture *f = *state;
	struct sigaction sa = { .sa_handler = on_alarm }, now;

	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGINT, &sa, NULL), 0);
	f->m->opts.host_signals_kept = 1ull << (SIGINT - 1);
	f->m->sigact[MACH_SIGINT].handler = 0x120000100ull; /* the program handles SIGINT */
	mach_signal_sync_host(f->m, MACH_SIGINT);
	assert_int_equal(sigaction(SIGINT, NULL, &now), 0);
	assert_ptr_equal(now.sa_handler, on_alarm);
	f->m->opts.host_signals_kept = 0; /* not kept: the program's */
	mach_signal_sync_host(f->m, MACH_SIGINT);
	assert_int_equal(sigaction(SIGINT, NULL, &now), 0);
	assert_ptr_not_equal(now.sa_handler, on_alarm);
	signal(SIGINT, SIG_DFL);
}

static unsigned int irqs;

static void count_irq(void *priv, struct axp_ctx *ctx, const struct mach_irq *irq)
{
	struct mach *m = priv;

	(void)ctx;
	irqs++;
	mach_ev5_pmu_arm(m->model, irq->event, 100);
}

static void test_mach_run_timing_mode_counts_and_interrupts(void **state)
{
	struct fixture *f = *state;
	const uint32_t w[] = {
		LDA(1, 31, 1000), SUBQ_LIT(1, 1, 1),	     BNE(1, -2),
		LDA(16, 31, 7),	  LDA(0, 31, NR_EXIT_GROUP), CALL_PAL(0x83),
	};

	code(f->m, w, 6);
	assert_int_equal(mach_timing_init(f->m, false), 0);
	f->m->hooks.pmu_irq = count_irq;
	f->m->hooks.priv = f->m;
	mach_ev5_pmu_arm(f->m->model, MACH_EV_CYCLES, 100);
	irqs = 0;
	assert_int_equal(mach_run(f->m), 7);
	assert_int_equal(f->m->insns, 1 + 2 * 1000 + 3);
	assert_int_equal(mach_ev5_count(f->m->model, MACH_EV_RETIRED), f->m->insns);
	assert_true(mach_ev5_cycles(f->m->model) >= f->m->insns / 4);
	/* One CYCLES interrupt per 100 cycles, give or take the delivery delay. */
	assert_in_range(irqs, mach_ev5_cycles(f->m->model) / 100 - 2,
			mach_ev5_cycles(f->m->model) / 100 + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_mach_run_interrupt_from_a_signal_handler_stops_the_run, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_mach_run_kept_host_signal_stays_the_embedders,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_run_exit_group_status_passes_through,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_run_unique_register_round_trip, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_run_gentrap_intdiv_kills_with_sigfpe,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_mach_run_privileged_pal_and_bad_fetch_are_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_run_max_insns_stops_the_program, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_run_timing_mode_counts_and_interrupts,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
