/* tools/lib/tl_periods.c - the --period and --event-period options the analysis commands share. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tl_periods.h"

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

int cmd_period_parse(const char *cmd, const char *arg, double period[AN_EV_NR])
{
	if (positive(arg, &period[AN_EV_CYCLES])) {
		fprintf(stderr, "%s: --period needs a positive number, not '%s'\n", cmd, arg);
		return 2;
	}
	return 0;
}

int cmd_event_period_parse(const char *cmd, const char *arg, double period[AN_EV_NR])
{
	const char *eq = strchr(arg, '=');

	for (int e = 1; eq && e < AN_EV_NR; e++) {
		if (strlen(ev_names[e]) != (size_t)(eq - arg) ||
		    strncasecmp(arg, ev_names[e], (size_t)(eq - arg)))
			continue;
		if (positive(eq + 1, &period[e]))
			break;
		return 0;
	}
	fprintf(stderr,
		"%s: --event-period needs E=P, E one of imiss, dmiss, dtbmiss, itbmiss, branchmp "
		"and P a positive number, not '%s'\n",
		cmd, arg);
	return 2;
}
