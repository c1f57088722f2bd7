/* tools/lib/tl_periods.c - the sampling periods the analysis commands use: stored, or given. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tl_periods.h"
#include "tl_prof.h"

static const char *const ev_names[AN_EV_NR] = { "cycles",  "imiss",   "dmiss",
						"dtbmiss", "itbmiss", "branchmp" };

static int positive(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v > 0) || v > 1e15)
		return -1;
	*out = v;
	return 0;
}

/* "P" or "LO-HI" (the recorder's form: its mean). */
static int mean_period(const char *s, double *out)
{
	const char *dash = strchr(s, '-');
	double lo, hi;
	char buf[64];

	if (!dash || dash == s)
		return positive(s, out);
	if ((size_t)(dash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, (size_t)(dash - s));
	buf[dash - s] = 0;
	if (positive(buf, &lo) || positive(dash + 1, &hi) || lo > hi)
		return -1;
	*out = (lo + hi) / 2;
	return 0;
}

/* "E=P" or "E=LO-HI" into given[E]; -1 when malformed. */
static int event_period(const char *arg, double given[AN_EV_NR])
{
	const char *eq = strchr(arg, '=');

	for (int e = 0; eq && e < AN_EV_NR; e++) {
		if (strlen(ev_names[e]) != (size_t)(eq - arg) ||
		    strncasecmp(arg, ev_names[e], (size_t)(eq - arg)))
			continue;
		return mean_period(eq + 1, &given[e]);
	}
	return -1;
}

int tl_period_parse(const char *cmd, const char *arg, double given[AN_EV_NR])
{
	if (strchr(arg, '=') ? event_period(arg, given) : mean_period(arg, &given[AN_EV_CYCLES])) {
		fprintf(stderr, "%s: --period needs a positive number P or LO-HI, not '%s'\n", cmd,
			arg);
		return 2;
	}
	return 0;
}

int tl_event_period_parse(const char *cmd, const char *arg, double given[AN_EV_NR])
{
	if (!event_period(arg, given))
		return 0;
	fprintf(stderr,
		"%s: --event-period needs E=P or E=LO-HI, E one of imiss, dmiss, dtbmiss, itbmiss, "
		"branchmp (or cycles) and P a positive number, not '%s'\n",
		cmd, arg);
	return 2;
}

enum tl_psrc tl_periods_for(const struct tl_periods *p, const struct pdb_prof *prof,
			    double period[AN_EV_NR])
{
	enum tl_psrc src = TL_PSRC_ASSUMED;

	for (unsigned int e = 0; e < AN_EV_NR; e++) {
		double stored;

		if (p->given[e] > 0) {
			period[e] = p->given[e];
			if (e == AN_EV_CYCLES)
				src = TL_PSRC_GIVEN;
		} else if (prof && pdb_prof_mean_period(prof, tl_pdb_event(e), &stored)) {
			period[e] = stored;
			if (e == AN_EV_CYCLES)
				src = TL_PSRC_STORED;
		} else {
			period[e] = e == AN_EV_CYCLES ? TL_DEFAULT_PERIOD : 0;
		}
	}
	return src;
}

const char *tl_psrc_note(enum tl_psrc src)
{
	return src == TL_PSRC_ASSUMED ?
		       " (assumed: the recorder's default, none is stored; see --period)" :
		       "";
}
