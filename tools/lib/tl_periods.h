/* tools/lib/tl_periods.h - the --period and --event-period options the analysis commands share. */
#ifndef AXPROF_PERIODS_H
#define AXPROF_PERIODS_H

#include "an_culprit.h"

/* `axprof record`'s default CYCLES period is 60000-64000: its mean, when none is given. */
#define CMD_DEFAULT_PERIOD 62000.0

/*
 * --period P: the mean CYCLES period into period[AN_EV_CYCLES]. --event-period E=P: the mean
 * period of event E (imiss, dmiss, dtbmiss, itbmiss, branchmp) into period[E]. Return 0, or 2
 * (the usage exit code) after a message on stderr that starts with cmd.
 */
int cmd_period_parse(const char *cmd, const char *arg, double period[AN_EV_NR]);
int cmd_event_period_parse(const char *cmd, const char *arg, double period[AN_EV_NR]);

#endif /* AXPROF_PERIODS_H */
