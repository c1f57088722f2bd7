/* eval/axeval.h - the parts of the axeval tool in separate files. */
#ifndef AXEVAL_H
#define AXEVAL_H

#include "tl_periods.h"

/*
 * `axeval --replays NAME DB IMAGE TRUTH...` (nargs words): grade vreplay's named conflicts
 * against the EV6 truth's replay traps (eval/ev_replay.h), print a line per run, the total and
 * the verdicts. 0, or 1 when a run could not be graded.
 */
int axeval_replays(char **runs, int nargs, const struct tl_periods *per);

/*
 * `axeval --paths NAME IMAGE TRUTH...` (nargs words): ProfileMe Figure 6, path reconstruction
 * (analysis/an_paths.h) against the EV6 truth's paths of paired samples. 0, or 1 when a run
 * could not be graded.
 */
int axeval_paths(char **runs, int nargs);

/*
 * `axeval --kernel NAME DB TRUTH...` (nargs words): the hosted [kernel] image's share of the
 * CYCLES samples against the truth's system-call cycles (section 10), and its top procedure.
 * One line per run (key=value, then met or MISSED), then the count. 0, or 1 when a run could
 * not be graded.
 */
int axeval_kernel(char **runs, int nargs);

#endif /* AXEVAL_H */
