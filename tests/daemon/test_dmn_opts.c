/* tests/daemon/test_dmn_opts.c - the sampling options record and axprofd share (dmn_sampling_*). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dmn_opts.h"
#include "hotlist.h"

/*
 * Parse a command line the way record and axprofd do: every option through dmn_sampling_opt(),
 * then dmn_sampling_config(). Returns its result; err gets the message.
 */
static int parse(struct vs_config *cfg, struct ax_error *err, ...)
{
	static const struct option longopts[] = {
		DMN_SAMPLING_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct dmn_sampling s = { 0 };
	char *argv[32] = { (char *)"prog" };
	int argc = 1, c, ret;
	va_list ap;

	va_start(ap, err);
	for (char *a; (a = va_arg(ap, char *)) && argc < 31;)
		argv[argc++] = a;
	va_end(ap);
	ax_error_clear(err);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		ret = dmn_sampling_opt(&s, c, optarg, err);
		if (ret < 0)
			return ret;
		if (!ret)
			return -E2BIG; /* not a sampling option: the test's mistake */
	}
	memset(cfg, 0xa5, sizeof(*cfg)); /* every field must be set */
	return dmn_sampling_config(&s, cfg, err);
}

static void test_dmn_sampling_defaults_are_cycles_mode(void **state)
{
	struct vs_config cfg, want;
	struct ax_error err;

	(void)state;
	assert_int_equal(parse(&cfg, &err, NULL), 0);
	vs_config_default(&want, VS_MODE_CYCLES);
	assert_memory_equal(&cfg, &want, sizeof(cfg));
}

/* axprofd used to keep --period across a later --mode; record applied the mode first. Now
 * both: the mode's defaults, then the rest, whatever the order. */
static void test_dmn_sampling_order_does_not_matter(void **state)
{
	struct vs_config a, b, want;
	struct ax_error err;

	(void)state;
	assert_int_equal(
		parse(&a, &err, "--period", "1000-1100", "--mode", "vprof", "--seed", "7", NULL),
		0);
	assert_int_equal(
		parse(&b, &err, "--seed", "7", "--mode", "vprof", "--period", "1000-1100", NULL),
		0);
	assert_memory_equal(&a, &b, sizeof(a));
	vs_config_default(&want, VS_MODE_VPROF);
	want.period[VS_EV_CYCLES] = (struct vs_period){ 1000, 1100 };
	want.seed = 7;
	assert_memory_equal(&a, &want, sizeof(a));
}

static void test_dmn_sampling_every_option_lands_in_the_config(void **state)
{
	struct vs_config cfg;
	struct ax_error err;

	(void)state;
	assert_int_equal(parse(&cfg, &err, "--mode", "vreplay", "--event", "cycles,imiss",
			       "--period", "imiss=500-600", "--share", "3/7", "--budget", "0x20",
			       "--hotlist-m", "8", "--seed", "12345", NULL),
			 0);
	assert_int_equal(cfg.mode, VS_MODE_VREPLAY);
	assert_int_equal(cfg.events, (1u << VS_EV_CYCLES) | (1u << VS_EV_IMISS));
	assert_int_equal(cfg.period[VS_EV_IMISS].lo, 500);
	assert_int_equal(cfg.period[VS_EV_IMISS].hi, 600);
	assert_int_equal(cfg.interp_num, 3);
	assert_int_equal(cfg.interp_den, 7);
	assert_int_equal(cfg.interp_budget, 32);
	assert_int_equal(cfg.hotlist_m, 8);
	assert_int_equal(cfg.seed, 12345);
}

/* --period prime:LO-HI sets the event's period_prime bit; a plain range clears it again. */
static void test_dmn_sampling_prime_period(void **state)
{
	struct vs_config cfg;
	struct ax_error err;

	(void)state;
	assert_int_equal(parse(&cfg, &err, "--period", "prime:1000-1100", "--period",
			       "dmiss=PRIME:300-400", "--event", "cycles,dmiss", NULL),
			 0);
	assert_int_equal(cfg.period[VS_EV_CYCLES].lo, 1000);
	assert_int_equal(cfg.period[VS_EV_CYCLES].hi, 1100);
	assert_int_equal(cfg.period[VS_EV_DMISS].lo, 300);
	assert_int_equal(cfg.period_prime, (1u << VS_EV_CYCLES) | (1u << VS_EV_DMISS));
	assert_int_equal(
		parse(&cfg, &err, "--period", "prime:1000-1100", "--period", "900-950", NULL), 0);
	assert_int_equal(cfg.period_prime, 0);
	assert_int_equal(cfg.period[VS_EV_CYCLES].lo, 900);
	/* 24..28 holds no prime; ProfileMe's interval is not a counter period. */
	assert_int_equal(parse(&cfg, &err, "--period", "prime:24-28", NULL), -EINVAL);
	assert_non_null(strstr(err.msg, "not 'prime:24-28'"));
	assert_int_equal(
		parse(&cfg, &err, "--mode", "profileme", "--period", "prime:5000-6000", NULL),
		-EINVAL);
	assert_int_equal(parse(&cfg, &err, "--period", "prime:", NULL), -EINVAL);
}

/* --mode profileme: --period is in fetched instructions, --pair-window sets W, counters may be
 * added with --event; W and the period must leave one pair in flight. */
static void test_dmn_sampling_profileme(void **state)
{
	struct vs_config cfg, want;
	struct ax_error err;

	(void)state;
	assert_int_equal(parse(&cfg, &err, "--mode", "profileme", NULL), 0);
	vs_config_default(&want, VS_MODE_PROFILEME);
	assert_memory_equal(&cfg, &want, sizeof(cfg));
	assert_int_equal(cfg.events, 0);
	assert_int_equal(parse(&cfg, &err, "--period", "5000-6000", "--pair-window", "20", "--mode",
			       "profileme", "--period", "dmiss=300-400", "--event", "dmiss", NULL),
			 0);
	assert_int_equal(cfg.pme_period.lo, 5000);
	assert_int_equal(cfg.pme_period.hi, 6000);
	assert_int_equal(cfg.pme_window, 20);
	assert_int_equal(cfg.period[VS_EV_CYCLES].lo, 60000); /* untouched */
	assert_int_equal(cfg.period[VS_EV_DMISS].lo, 300);
	assert_int_equal(cfg.events, 1u << VS_EV_DMISS);
	assert_int_equal(parse(&cfg, &err, "--mode", "profileme", "--pair-window", "0", NULL), 0);
	assert_int_equal(cfg.pme_window, 0);
	assert_int_equal(parse(&cfg, &err, "--mode", "profileme", "--pair-window", "1025", NULL),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "--pair-window needs 0..1024"));
	assert_int_equal(parse(&cfg, &err, "--mode", "profileme", "--period", "200-300", NULL),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "pme_period"));
}

static const struct bad {
	const char *opt, *arg, *msg;
} bad_args[] = {
	{ "--mode", "fast", "--mode must be cycles, vprof, vreplay or profileme, not 'fast'" },
	{ "--pair-window", "10", "--pair-window needs --mode profileme" },
	{ "--period", "100", "--period needs LO-HI or E=LO-HI" },
	{ "--period", "0-10", "not '0-10'" },
	{ "--period", "20-10", "not '20-10'" },
	{ "--period", "1-2000000", "< LO + 2^20" },
	{ "--period", "frob=1-2", "not 'frob=1-2'" },
	{ "--event", "cycles,", "--event takes cycles, imiss, dmiss, branchmp, insns, replays" },
	{ "--event", "tlb", "not 'tlb'" },
	{ "--share", "3/2", "--share needs N/D with N <= D, not '3/2'" },
	{ "--share", "1/0", "not '1/0'" },
	{ "--budget", "0", "--budget needs 1..4096, not '0'" },
	{ "--budget", "4097", "not '4097'" },
	{ "--hotlist-m", "3", "--hotlist-m needs 4..32, not '3'" },
	{ "--hotlist-m", "33", "not '33'" },
	{ "--seed", "-1", "--seed needs a number, not '-1'" },
	{ "--seed", "12x", "not '12x'" },
};

static void test_dmn_sampling_rejects_bad_values_with_one_message(void **state)
{
	struct vs_config cfg;
	struct ax_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_args) / sizeof(bad_args[0]); i++) {
		int ret = parse(&cfg, &err, bad_args[i].opt, bad_args[i].arg, NULL);

		if (ret != -EINVAL || !strstr(err.msg, bad_args[i].msg))
			fail_msg("%s %s: %d '%s', want -EINVAL and '%s'", bad_args[i].opt,
				 bad_args[i].arg, ret, err.msg, bad_args[i].msg);
	}
}

static void test_dmn_sampling_too_many_periods(void **state)
{
	struct dmn_sampling s = { 0 };
	struct ax_error err = { 0 };

	(void)state;
	for (int i = 0; i < DMN_PERIOD_OPTS_MAX; i++)
		assert_int_equal(dmn_sampling_opt(&s, DMN_OPT_PERIOD, "10-20", &err), 1);
	assert_int_equal(dmn_sampling_opt(&s, DMN_OPT_PERIOD, "10-20", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "too many --period"));
	assert_int_equal(dmn_sampling_opt(&s, 'q', NULL, &err), 0);
}

/* A bad --period leaves the whole message and its code in err; a NULL err is allowed. */
static void test_dmn_sampling_bad_period_fills_ax_error(void **state)
{
	struct dmn_sampling s = { 0 };
	struct vs_config cfg;
	struct ax_error err;

	(void)state;
	assert_int_equal(dmn_sampling_opt(&s, DMN_OPT_PERIOD, "9-3", &err), 1);
	memset(&err, 0x5a, sizeof(err));
	assert_int_equal(dmn_sampling_config(&s, &cfg, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_string_equal(
		err.msg, "--period needs LO-HI or E=LO-HI (E: cycles, imiss, dmiss, "
			 "branchmp, insns, replays) with 1 <= LO <= HI < LO + 2^20, LO-HI may be "
			 "prime:LO-HI (a prime in the range; not with profileme's interval), "
			 "not '9-3'");
	assert_int_equal(dmn_sampling_config(&s, &cfg, NULL), -EINVAL);
}

/* --kernel-values sets VS_CFG_KERNEL_VALUES, only with a mode that interprets. */
static void test_dmn_sampling_kernel_values(void **state)
{
	struct vs_config cfg;
	struct ax_error err;

	(void)state;
	assert_int_equal(parse(&cfg, &err, "--mode", "vprof", NULL), 0);
	assert_int_equal(cfg.flags, 0);
	assert_int_equal(parse(&cfg, &err, "--kernel-values", "--mode", "vreplay", NULL), 0);
	assert_int_equal(cfg.flags, VS_CFG_KERNEL_VALUES);
	assert_int_equal(vs_config_check(&cfg, NULL), 0);
	assert_int_equal(parse(&cfg, &err, "--kernel-values", NULL), -EINVAL);
	assert_non_null(strstr(err.msg, "--kernel-values needs --mode vprof or vreplay"));
}

static void test_dmn_sampling_observe(void **state)
{
	struct vs_config cfg, want;
	struct ax_error err;
	uint32_t m;

	(void)state;
	/* A list replaces the mode's observers; + adds to them; none clears them. */
	assert_int_equal(parse(&cfg, &err, "--mode", "vprof", "--observe", "args,Callers", NULL),
			 0);
	assert_int_equal(cfg.gather, VS_GATHER_ARGS | VS_GATHER_CALLERS);
	assert_true(cfg.proc_entries >= VS_TAB_MIN);
	vs_config_default(&want, VS_MODE_VPROF);
	assert_int_equal(parse(&cfg, &err, "--observe", "+callers", "--mode", "vprof", NULL), 0);
	assert_int_equal(cfg.gather, want.gather | VS_GATHER_CALLERS);
	assert_int_equal(parse(&cfg, &err, "--mode", "vreplay", "--observe", "none", NULL), 0);
	assert_int_equal(cfg.gather, 0);
	/* Tables the mode does not size by default get a capacity: vprof with conflicts. */
	assert_int_equal(
		parse(&cfg, &err, "--mode", "vprof", "--observe", "conflicts,loadload", NULL), 0);
	assert_int_equal(vs_config_check(&cfg, NULL), 0);
	/* Every name of the core's table parses to its own bit. */
	for (unsigned int i = 0; i < VS_GATHER_NR; i++) {
		assert_int_equal(dmn_parse_observers(vs_gather_name[i], &m), 0);
		assert_int_equal(m, 1u << i);
	}
	/* Errors: unknown name, empty item, "+" alone, a mode that does not interpret, loadload
	 * without conflicts (the sampler's check). */
	assert_int_equal(parse(&cfg, &err, "--mode", "vprof", "--observe", "args,bogus", NULL),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "--observe"));
	assert_non_null(strstr(err.msg, "args,bogus"));
	assert_int_equal(parse(&cfg, &err, "--mode", "vprof", "--observe", "args,", NULL), -EINVAL);
	assert_int_equal(parse(&cfg, &err, "--mode", "vprof", "--observe", "+", NULL), -EINVAL);
	assert_int_equal(parse(&cfg, &err, "--observe", "args", NULL), -EINVAL);
	assert_non_null(strstr(err.msg, "--mode vprof or vreplay"));
	assert_int_equal(parse(&cfg, &err, "--mode", "vprof", "--observe", "loadload", NULL),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "LOADLOAD"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmn_sampling_defaults_are_cycles_mode),
		cmocka_unit_test(test_dmn_sampling_order_does_not_matter),
		cmocka_unit_test(test_dmn_sampling_every_option_lands_in_the_config),
		cmocka_unit_test(test_dmn_sampling_profileme),
		cmocka_unit_test(test_dmn_sampling_rejects_bad_values_with_one_message),
		cmocka_unit_test(test_dmn_sampling_too_many_periods),
		cmocka_unit_test(test_dmn_sampling_prime_period),
		cmocka_unit_test(test_dmn_sampling_bad_period_fills_ax_error),
		cmocka_unit_test(test_dmn_sampling_observe),
		cmocka_unit_test(test_dmn_sampling_kernel_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
