/* daemon/dmn_opts.c - the sampling options `axprof record` and axprofd share, one meaning each. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dmn_opts.h"
#include "vs_core.h"
#include "hotlist.h"

static const struct {
	const char *name;
	unsigned int ev;
} ev_names[] = {
	{ "cycles", VS_EV_CYCLES },
	{ "imiss", VS_EV_IMISS },
	{ "dmiss", VS_EV_DMISS },
	{ "branchmp", VS_EV_BRANCHMP },
	{ "insns", VS_EV_INSNS },
	{ "retired", VS_EV_INSNS },
	{ "replays", VS_EV_REPLAYS },
	{ "replay", VS_EV_REPLAYS },
	/* the hosted machine's coherence events (--cpus 2 or more, machine/mach_coh.h) */
	{ "inval", VS_EV_USER6 },
	{ "interv", VS_EV_USER7 },
};

/* The event named by the len bytes at s, or -1. */
static int event_of(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(ev_names) / sizeof(ev_names[0]); i++)
		if (strlen(ev_names[i].name) == len && !strncasecmp(s, ev_names[i].name, len))
			return (int)ev_names[i].ev;
	return -1;
}

static int parse_u32(const char *s, const char *end, uint32_t *out)
{
	unsigned long v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

int dmn_parse_pair(const char *s, char sep, uint32_t *a, uint32_t *b)
{
	const char *p = strchr(s, sep);

	if (!p || parse_u32(s, p, a) || parse_u32(p + 1, p + 1 + strlen(p + 1), b))
		return -EINVAL;
	return 0;
}

int dmn_parse_events(const char *s, uint32_t *mask)
{
	*mask = 0;
	for (;;) {
		const char *comma = strchrnul(s, ',');
		int ev = event_of(s, (size_t)(comma - s));

		if (ev < 0)
			return -EINVAL;
		*mask |= 1u << ev;
		if (!*comma)
			return 0;
		s = comma + 1;
	}
}

int dmn_parse_observers(const char *s, uint32_t *mask)
{
	*mask = 0;
	if (!strcasecmp(s, "none"))
		return 0;
	for (;;) {
		const char *comma = strchrnul(s, ',');
		size_t len = (size_t)(comma - s);
		unsigned int i;

		for (i = 0; i < VS_GATHER_NR; i++)
			if (strlen(vs_gather_name[i]) == len &&
			    !strncasecmp(s, vs_gather_name[i], len))
				break;
		if (i == VS_GATHER_NR)
			return -EINVAL;
		*mask |= 1u << i;
		if (!*comma)
			return 0;
		s = comma + 1;
	}
}

int dmn_parse_period(const char *s, struct vs_config *cfg)
{
	const char *eq = strchr(s, '=');
	int ev = VS_EV_CYCLES;
	bool prime = false;
	uint32_t lo, hi;

	if (eq) {
		ev = event_of(s, (size_t)(eq - s));
		if (ev < 0)
			return -EINVAL;
		s = eq + 1;
	}
	if (!strncasecmp(s, "prime:", 6)) {
		prime = true;
		s += 6;
	}
	if (dmn_parse_pair(s, '-', &lo, &hi) || !lo || lo > hi || hi - lo >= VS_PERIOD_SPREAD_MAX)
		return -EINVAL;
	if (!eq && cfg->mode == VS_MODE_PROFILEME) {
		if (prime)
			return -EINVAL; /* ProfileMe's interval is not a counter's period */
		cfg->pme_period = (struct vs_period){ lo, hi }; /* fetched instructions */
		return 0;
	}
	if (prime && !vs_prime_at_or_after(lo, lo, hi))
		return -EINVAL;
	cfg->period[ev] = (struct vs_period){ lo, hi };
	if (prime)
		cfg->period_prime |= 1u << ev;
	else
		cfg->period_prime &= ~(1u << ev);
	return 0;
}

void dmn_prime_period(struct vs_period *p)
{
	uint64_t sum = 0, n = 0, twice;

	for (uint64_t v = p->lo; v <= p->hi; v++)
		if (vs_is_prime((uint32_t)v)) {
			sum += v;
			n++;
		}
	if (!n)
		return;
	twice = (2 * sum + n / 2) / n; /* 2M, rounded */
	p->lo = (uint32_t)(twice / 2);
	p->hi = (uint32_t)(twice - twice / 2);
}

int dmn_sampling_opt(struct dmn_sampling *s, int c, const char *arg, struct ax_error *err)
{
	switch (c) {
	case DMN_OPT_MODE:
		s->mode = arg;
		return 1;
	case DMN_OPT_PERIOD:
		if (s->nperiod == DMN_PERIOD_OPTS_MAX) {
			ax_fail(err, -EINVAL, "too many --period options (at most %d)",
				DMN_PERIOD_OPTS_MAX);
			return -EINVAL;
		}
		s->period[s->nperiod++] = arg;
		return 1;
	case DMN_OPT_EVENT:
		s->events = arg;
		return 1;
	case DMN_OPT_SHARE:
		s->share = arg;
		return 1;
	case DMN_OPT_BUDGET:
		s->budget = arg;
		return 1;
	case DMN_OPT_HOTLIST_M:
		s->hotlist_m = arg;
		return 1;
	case DMN_OPT_SEED:
		s->seed = arg;
		return 1;
	case DMN_OPT_PAIR_WINDOW:
		s->pair_window = arg;
		return 1;
	case DMN_OPT_OBSERVE:
		s->observe = arg;
		return 1;
	case DMN_OPT_KERNEL_VALUES:
		s->kernel_values = true;
		return 1;
	default:
		return 0;
	}
}

/* A number (decimal, 0x hex or 0 octal, as strtoull) lo..hi with nothing after it. */
static int parse_num(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int set_mode(const char *m, struct vs_config *cfg, struct ax_error *err)
{
	unsigned int mode = !m			    ? VS_MODE_CYCLES :
			    !strcmp(m, "cycles")    ? VS_MODE_CYCLES :
			    !strcmp(m, "vprof")	    ? VS_MODE_VPROF :
			    !strcmp(m, "vreplay")   ? VS_MODE_VREPLAY :
			    !strcmp(m, "profileme") ? VS_MODE_PROFILEME :
						      VS_MODE_NR;

	if (mode == VS_MODE_NR) {
		ax_fail(err, -EINVAL,
			"--mode must be cycles, vprof, vreplay or profileme, not '%s'", m);
		return -EINVAL;
	}
	vs_config_default(cfg, mode);
	return 0;
}

static int set_events(const char *ev, struct vs_config *cfg, struct ax_error *err)
{
	uint32_t mask;

	if (dmn_parse_events(ev, &mask)) {
		ax_fail(err, -EINVAL,
			"--event takes cycles, imiss, dmiss, branchmp, insns, replays, inval, interv "
			"(comma-separated), not '%s'",
			ev);
		return -EINVAL;
	}
	cfg->events = mask;
	cfg->interp_events &= mask;
	if (!cfg->interp_events)
		cfg->interp_events = mask;
	return 0;
}

static int set_share(const char *sh, struct vs_config *cfg, struct ax_error *err)
{
	uint32_t num, den;

	if (dmn_parse_pair(sh, '/', &num, &den) || !den || num > den) {
		ax_fail(err, -EINVAL, "--share needs N/D with N <= D, not '%s'", sh);
		return -EINVAL;
	}
	cfg->interp_num = num;
	cfg->interp_den = den;
	return 0;
}

/* --budget, --hotlist-m and --seed. */
static int set_numbers(const struct dmn_sampling *s, struct vs_config *cfg, struct ax_error *err)
{
	uint64_t v;

	if (s->budget) {
		if (parse_num(s->budget, 1, VS_BUDGET_MAX, &v)) {
			ax_fail(err, -EINVAL, "--budget needs 1..%u, not '%s'", VS_BUDGET_MAX,
				s->budget);
			return -EINVAL;
		}
		cfg->interp_budget = (uint32_t)v;
	}
	if (s->hotlist_m) {
		if (parse_num(s->hotlist_m, HOTLIST_MIN_M, HOTLIST_MAX_M, &v)) {
			ax_fail(err, -EINVAL, "--hotlist-m needs %d..%d, not '%s'", HOTLIST_MIN_M,
				HOTLIST_MAX_M, s->hotlist_m);
			return -EINVAL;
		}
		cfg->hotlist_m = (uint32_t)v;
	}
	if (s->seed) {
		if (parse_num(s->seed, 0, UINT64_MAX, &v)) {
			ax_fail(err, -EINVAL, "--seed needs a number, not '%s'", s->seed);
			return -EINVAL;
		}
		cfg->seed = v;
	}
	if (s->pair_window) {
		if (cfg->mode != VS_MODE_PROFILEME) {
			ax_fail(err, -EINVAL, "--pair-window needs --mode profileme");
			return -EINVAL;
		}
		if (parse_num(s->pair_window, 0, VS_PME_W_MAX, &v)) {
			ax_fail(err, -EINVAL, "--pair-window needs 0..%u (0: no pairs), not '%s'",
				VS_PME_W_MAX, s->pair_window);
			return -EINVAL;
		}
		cfg->pme_window = (uint32_t)v;
	}
	return 0;
}

/* --observe LIST or +LIST: the gather set; needs a mode that interprets. */
static int set_observe(const char *ob, struct vs_config *cfg, struct ax_error *err)
{
	bool add = *ob == '+';
	uint32_t mask;

	if (cfg->mode != VS_MODE_VPROF && cfg->mode != VS_MODE_VREPLAY) {
		ax_fail(err, -EINVAL, "--observe needs --mode vprof or vreplay (what interprets)");
		return -EINVAL;
	}
	if (dmn_parse_observers(ob + add, &mask) || (add && !mask)) {
		ax_fail(err, -EINVAL,
			"--observe takes values, latency, conflicts, loadload, vcount, args, callers, "
			"addrs (comma-separated, '+' before the list adds to the mode's) or none, not '%s'",
			ob);
		return -EINVAL;
	}
	cfg->gather = add ? cfg->gather | mask : mask;
	/* The tables a mode does not use by default get the other mode's capacity [U]. */
	if (!cfg->hot_entries)
		cfg->hot_entries = 512;
	if (!cfg->lat_entries)
		cfg->lat_entries = 512;
	if (!cfg->cnf_entries)
		cfg->cnf_entries = 1024;
	return 0;
}

int dmn_sampling_config(const struct dmn_sampling *s, struct vs_config *cfg, struct ax_error *err)
{
	const char *why = NULL;
	int ret = set_mode(s->mode, cfg, err);

	for (unsigned int i = 0; !ret && i < s->nperiod; i++) {
		ret = dmn_parse_period(s->period[i], cfg);
		if (ret)
			ax_fail(err, -EINVAL,
				"--period needs LO-HI or E=LO-HI (E: cycles, imiss, dmiss, branchmp, "
				"insns, replays) with 1 <= LO <= HI < LO + 2^20, LO-HI may be "
				"prime:LO-HI (a prime in the range; not with profileme's "
				"interval), not '%s'",
				s->period[i]);
	}
	if (!ret && s->events)
		ret = set_events(s->events, cfg, err);
	if (!ret && s->share)
		ret = set_share(s->share, cfg, err);
	if (!ret)
		ret = set_numbers(s, cfg, err);
	if (!ret && s->observe)
		ret = set_observe(s->observe, cfg, err);
	if (!ret && s->kernel_values) {
		if (cfg->mode != VS_MODE_VPROF && cfg->mode != VS_MODE_VREPLAY) {
			ax_fail(err, -EINVAL,
				"--kernel-values needs --mode vprof or vreplay (what interprets)");
			ret = -EINVAL;
		} else {
			cfg->flags |= VS_CFG_KERNEL_VALUES;
		}
	}
	if (!ret && vs_config_check(cfg, &why)) {
		ax_fail(err, -EINVAL, "the sampling options do not go together: %s",
			why ? why : "rejected by the sampler");
		ret = -EINVAL;
	}
	return ret;
}
