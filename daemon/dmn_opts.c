/* daemon/dmn_opts.c - the sampler options `axprof record` and axprofd share (--period, --event). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dmn_opts.h"

static const struct {
	const char *name;
	unsigned int ev;
} ev_names[] = {
	{ "cycles", VS_EV_CYCLES },	{ "imiss", VS_EV_IMISS },    { "dmiss", VS_EV_DMISS },
	{ "branchmp", VS_EV_BRANCHMP }, { "insns", VS_EV_INSNS },    { "retired", VS_EV_INSNS },
	{ "replays", VS_EV_REPLAYS },	{ "replay", VS_EV_REPLAYS },
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

int dmn_parse_period(const char *s, struct vs_config *cfg)
{
	const char *eq = strchr(s, '=');
	int ev = VS_EV_CYCLES;
	uint32_t lo, hi;

	if (eq) {
		ev = event_of(s, (size_t)(eq - s));
		if (ev < 0)
			return -EINVAL;
		s = eq + 1;
	}
	if (dmn_parse_pair(s, '-', &lo, &hi) || !lo || lo > hi || hi - lo >= VS_PERIOD_SPREAD_MAX)
		return -EINVAL;
	cfg->period[ev] = (struct vs_period){ lo, hi };
	return 0;
}
