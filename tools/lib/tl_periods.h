/* tools/lib/tl_periods.h - the sampling periods the analysis commands use: stored, or given. */
#ifndef TL_PERIODS_H
#define TL_PERIODS_H

#include "an_culprit.h"
#include "pdb.h"

/* `axprof record`'s default CYCLES period is 60000-64000: its mean, when nothing else is known. */
#define TL_DEFAULT_PERIOD 62000.0

/*
 * An analysis takes the mean sampling period of each event of an image (an_fi_opts.period).
 * The database keeps them per image and event (pdb.h PERIODS); --period and --event-period
 * override them (databases written before it kept them). For each event: the period given,
 * else the one stored, else for CYCLES the recorder's default (then "assumed") and for the
 * other events none (0: their samples do not bound stalls).
 */
enum tl_psrc {
	TL_PSRC_ASSUMED, /* nothing stored: the recorder's default */
	TL_PSRC_STORED, /* the database's */
	TL_PSRC_GIVEN, /* --period */
};

struct tl_periods {
	double given[AN_EV_NR]; /* --period / --event-period; 0 where not given */
};

/*
 * --period P or LO-HI (mean (LO+HI)/2; E=P or E=LO-HI as --event-period): into
 * given[AN_EV_CYCLES] (or given[E]). --event-period E=P or E=LO-HI: the mean period of event E
 * (cycles, imiss, dmiss, dtbmiss, itbmiss, branchmp) into given[E]. Return 0, or 2 (the usage
 * exit code) after a message on stderr that starts with cmd.
 */
int tl_period_parse(const char *cmd, const char *arg, double given[AN_EV_NR]);
int tl_event_period_parse(const char *cmd, const char *arg, double given[AN_EV_NR]);

/*
 * The periods to analyse prof with (NULL: no profile, nothing stored) into period[]. Returns
 * where the CYCLES period came from.
 */
enum tl_psrc tl_periods_for(const struct tl_periods *p, const struct pdb_prof *prof,
			    double period[AN_EV_NR]);

/* " (assumed: ...)" after a printed CYCLES period that was assumed, "" otherwise. */
const char *tl_psrc_note(enum tl_psrc src);

#endif /* TL_PERIODS_H */
