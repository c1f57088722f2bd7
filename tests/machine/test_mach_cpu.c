/* tests/machine/test_mach_cpu.c - a second CPU model plugs into the run loop through the ops table. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mach_int.h"

#define CODE 0x120000000ull

#define LDA(ra, rb, disp) ((0x08u << 26) | ((ra) << 21) | ((rb) << 16) | ((disp)&0xffffu))
#define LDAH(ra, rb, disp) ((0x09u << 26) | ((ra) << 21) | ((rb) << 16) | ((disp)&0xffffu))
#define SUBQ_LIT(ra, lit, rc) \
	((0x10u << 26) | ((ra) << 21) | ((lit) << 13) | (1u << 12) | (0x29u << 5) | (rc))
#define BNE(ra, disp) ((0x3du << 26) | ((ra) << 21) | ((disp)&0x1fffffu))
#define CALLSYS 0x83u
#define NR_EXIT_GROUP 405

/*
 * The test model: every instruction takes 3 cycles, taken branches 2 more; a CYCLES or RETIRED
 * counter overflows exactly at its period and interrupts at once, reporting the next pc.
 */
struct tiny {
	uint64_t cycles, count[MACH_EV_NR];
	uint64_t next_ov[MACH_EV_NR];
	bool pending;
	struct mach_irq irq;
	uint64_t irqs, accesses;
	bool truth;
};

static int tiny_create(void **model, const struct mach_cpu_cfg *cfg)
{
	struct tiny *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (int e = 0; e < MACH_EV_NR; e++)
		t->next_ov[e] = UINT64_MAX;
	t->truth = cfg && cfg->truth;
	*model = t;
	return 0;
}

static void tiny_free(void *model)
{
	free(model);
}

static void tiny_event(struct tiny *t, enum mach_event e, uint64_t n, uint64_t pc)
{
	t->count[e] += n;
	if (t->count[e] >= t->next_ov[e] && !t->pending) {
		t->pending = true;
		t->next_ov[e] = UINT64_MAX;
		t->irq = (struct mach_irq){ .event = e, .pc = pc, .cycle = t->cycles };
	}
}

static bool tiny_retire(void *model, const struct axp_insn *d, const struct axp_event *ev)
{
	struct tiny *t = model;
	uint64_t c = ev->taken ? 5 : 3;

	(void)d;
	t->cycles += c;
	tiny_event(t, MACH_EV_RETIRED, 1, ev->next_pc);
	tiny_event(t, MACH_EV_CYCLES, c, ev->next_pc);
	return t->pending;
}

static bool tiny_irq_take(void *model, struct mach_irq *irq)
{
	struct tiny *t = model;

	if (!t->pending)
		return false;
	t->pending = false;
	t->irqs++;
	*irq = t->irq;
	return true;
}

static void tiny_pmu_arm(void *model, enum mach_event e, uint64_t period)
{
	struct tiny *t = model;

	t->next_ov[e] = period ? t->count[e] + period : UINT64_MAX;
}

static uint64_t tiny_cycles(const void *model)
{
	return ((const struct tiny *)model)->cycles;
}

static uint64_t tiny_count(const void *model, enum mach_event e)
{
	const struct tiny *t = model;

	return e == MACH_EV_CYCLES ? t->cycles : t->count[e];
}

static int tiny_truth_write(void *const *models, unsigned int n, const char *path)
{
	(void)models;
	(void)n;
	(void)path;
	return -ENOSYS; /* a marker: the machine called the model's op */
}

static void tiny_print_stats(const void *model, FILE *f, uint64_t insns)
{
	fprintf(f, "axprof run: tiny: %llu cycles for %llu instructions, %llu interrupts\n",
		(unsigned long long)tiny_cycles(model), (unsigned long long)insns,
		(unsigned long long)((const struct tiny *)model)->irqs);
}

static const struct mach_cpu_ops tiny_ops = {
	.name = "tiny-test",
	.create = tiny_create,
	.free = tiny_free,
	.retire = tiny_retire,
	.irq_take = tiny_irq_take,
	.pmu_arm = tiny_pmu_arm,
	.cycles = tiny_cycles,
	.count = tiny_count,
	.truth_write = tiny_truth_write,
	.print_stats = tiny_print_stats,
};

static int setup(void **state)
{
	int ret = mach_cpu_register(&tiny_ops);

	(void)state;
	return ret == 0 || ret == -EEXIST ? 0 : -1;
}

/* A loop of 2 x 20000 instructions, then exit_group(0): 40004 in all. */
static struct mach *loop_machine(const char *cpu, bool truth)
{
	const uint32_t w[] = {
		LDA(1, 31, 20000), SUBQ_LIT(1, 1, 1),	      BNE(1, -2),
		LDA(16, 31, 0),	   LDA(0, 31, NR_EXIT_GROUP), CALLSYS,
	};
	struct mach_opts o = { .cpu = cpu, .truth = truth, .prog = "loop" };
	struct mach *m;
	uint64_t va;

	assert_int_equal(mach_new(&m, &o), 0);
	assert_int_equal(mach_mem_map(m->mem, CODE, MACH_PAGE_SIZE, MACH_PROT_R | MACH_PROT_X,
				      MACH_MAP_FIXED, -1, 0, &va),
			 0);
	assert_int_equal(mach_mem_poke(m->mem, CODE, w, sizeof(w)), 0);
	m->ctx.pc = CODE;
	return m;
}

static struct tiny *sampled;

/* The sampler's place: re-arm CYCLES with a fixed period at every interrupt. */
static void pmu_hook(void *priv, struct axp_ctx *ctx, const struct mach_irq *irq)
{
	struct mach *m = priv;

	(void)ctx;
	assert_int_equal(irq->event, MACH_EV_CYCLES);
	m->cpu->pmu_arm(m->model, MACH_EV_CYCLES, 1000);
	sampled = m->model;
}

static void test_mach_cpu_test_model_times_a_program(void **state)
{
	struct mach *m = loop_machine("tiny-test", false);
	struct mach_result r;
	struct tiny *t = m->model;
	char buf[512], want[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_ptr_equal(m->cpu, &tiny_ops);
	m->hooks.pmu_irq = pmu_hook;
	m->hooks.priv = m;
	m->cpu->pmu_arm(m->model, MACH_EV_CYCLES, 1000);
	assert_int_equal(mach_run(m), 0);
	mach_get_result(m, &r);
	assert_true(r.timed);
	assert_int_equal(r.insns, 40004);
	assert_int_equal(r.events[MACH_EV_RETIRED], 40004); /* CALL_PAL retired too */
	/* 19999 taken branches and the CALL_PAL (a redirect) at 5 cycles, the other 20004 at 3 */
	assert_int_equal(r.cycles, 3 * 20004 + 5 * 20000);
	assert_int_equal(r.events[MACH_EV_CYCLES], r.cycles);
	assert_ptr_equal(sampled, t);
	assert_in_range(t->irqs, r.cycles / 1004, r.cycles / 1000);
	mach_print_stats(m, f, 1.0, 1.0);
	fclose(f);
	/* the machine's virtual pid (mach_vpid.c) */
	snprintf(want, sizeof(want), "axprof run: pid %d: 40004 instructions", MACH_VPID_FIRST);
	assert_non_null(strstr(buf, want)); /* labelled with the process */
	assert_non_null(strstr(buf, "axprof run: tiny: 160012 cycles for 40004 instructions"));
	mach_free(m);
}

static void test_mach_cpu_builtin_handler_and_truth_go_through_the_ops(void **state)
{
	struct mach *m = loop_machine("tiny-test", true);
	struct tiny *t = m->model;

	(void)state;
	assert_true(t->truth);
	assert_int_equal(mach_run(m), 0);
	/* the built-in handler armed CYCLES with the 60000-64000 period: 2 in 160012 cycles */
	assert_int_equal(t->irqs, 2);
	assert_int_equal(mach_truth_write(m, "/nonexistent/x"), -ENOSYS);
	mach_free(m);
}

static void test_mach_cpu_functional_has_no_model(void **state)
{
	struct mach *m = loop_machine("none", false);
	struct mach_result r;

	(void)state;
	assert_null(m->model);
	assert_int_equal(mach_run(m), 0);
	mach_get_result(m, &r);
	assert_false(r.timed);
	assert_int_equal(r.insns, 40004);
	assert_int_equal(r.cycles, 0);
	assert_int_equal(mach_truth_write(m, "/nonexistent/x"), -EINVAL);
	mach_free(m);
}

static void test_mach_cpu_registry_checks(void **state)
{
	struct mach_cpu_ops partial = tiny_ops, none = tiny_ops;
	struct mach_opts o = { .cpu = "no-such-model" };
	struct mach *m = (struct mach *)&o;

	(void)state;
	assert_ptr_equal(mach_cpu_find("ev5"), &mach_ev5_cpu_ops);
	assert_ptr_equal(mach_cpu_find("tiny-test"), &tiny_ops);
	assert_null(mach_cpu_find("no-such-model"));
	assert_int_equal(mach_cpu_register(&tiny_ops), -EEXIST);
	assert_int_equal(mach_cpu_register(&mach_ev5_cpu_ops), -EEXIST);
	partial.name = "partial";
	partial.retire = NULL;
	assert_int_equal(mach_cpu_register(&partial), -EINVAL);
	none.name = "none";
	assert_int_equal(mach_cpu_register(&none), -EINVAL);
	assert_int_equal(mach_new(&m, &o), -EINVAL);
	assert_null(m);
}

static void test_mach_cpu_ev5_through_the_ops(void **state)
{
	const struct mach_cpu_ops *ops = mach_cpu_find("ev5");
	struct mach_cpu_cfg cfg = { .mem_latency = 100 };
	const char *name;
	uint64_t v, mem = 0;
	unsigned int n = 0;
	void *model = NULL;

	(void)state;
	assert_non_null(ops);
	assert_int_equal(ops->create(&model, &cfg), 0);
	while (ops->param(model, n, &name, &v) == 0) {
		if (!strcmp(name, "mem_lat"))
			mem = v;
		n++;
	}
	assert_int_equal(n, 13);
	assert_int_equal(mem, 100); /* the configuration reached the model */
	assert_int_equal(ops->param(model, n, &name, &v), -ENOENT);
	assert_int_equal(ops->cycles(model), 0);
	assert_int_equal(ops->truth_write(&model, 1, "/nonexistent/x"),
			 -EINVAL); /* no truth asked */
	ops->free(model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mach_cpu_test_model_times_a_program),
		cmocka_unit_test(test_mach_cpu_builtin_handler_and_truth_go_through_the_ops),
		cmocka_unit_test(test_mach_cpu_functional_has_no_model),
		cmocka_unit_test(test_mach_cpu_registry_checks),
		cmocka_unit_test(test_mach_cpu_ev5_through_the_ops),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
