/* daemon/dmn_opts.h - the sampler options `axprof record` and axprofd share (--period, --event). */
#ifndef DMN_OPTS_H
#define DMN_OPTS_H

#include <stdint.h>

#include "vs_abi.h"

/* "A<sep>B" with A and B decimal 32-bit numbers. Returns 0 or -EINVAL. */
int dmn_parse_pair(const char *s, char sep, uint32_t *a, uint32_t *b);

/*
 * "cycles,imiss,..." -> a mask of VS_EV_* bits (names: cycles, imiss, dmiss, branchmp, insns or
 * retired, replays or replay; any case). Returns 0, or -EINVAL for an unknown or empty list.
 */
int dmn_parse_events(const char *s, uint32_t *mask);

/*
 * One --period argument into cfg->period[]: "LO-HI" sets the CYCLES period, "EVENT=LO-HI" the
 * period of that event (names as above). 1 <= LO <= HI < LO + VS_PERIOD_SPREAD_MAX. Returns 0,
 * or -EINVAL.
 */
int dmn_parse_period(const char *s, struct vs_config *cfg);

#endif /* DMN_OPTS_H */
