/* daemon/dmn_opts.h - the sampling options `axprof record` and axprofd share, one meaning each. */
#ifndef DMN_OPTS_H
#define DMN_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "ax_err.h"
#include "vs_abi.h"

/* "A<sep>B" with A and B decimal 32-bit numbers. Returns 0 or -EINVAL. */
int dmn_parse_pair(const char *s, char sep, uint32_t *a, uint32_t *b);

/*
 * "cycles,imiss,..." -> a mask of VS_EV_* bits (names: cycles, imiss, dmiss, branchmp, insns or
 * retired, replays or replay; any case). Returns 0, or -EINVAL for an unknown or empty list.
 */
int dmn_parse_events(const char *s, uint32_t *mask);

/*
 * "values,args,..." -> a mask of VS_GATHER_* bits (names: vs_gather_name[], any case; "none" alone
 * is 0). Returns 0, or -EINVAL for an unknown or empty name.
 */
int dmn_parse_observers(const char *s, uint32_t *mask);

/*
 * One --period argument into cfg->period[]: "LO-HI" sets the CYCLES period, "EVENT=LO-HI" the
 * period of that event (names as above). 1 <= LO <= HI < LO + VS_PERIOD_SPREAD_MAX. "prime:LO-HI"
 * in place of "LO-HI" sets the event's cfg->period_prime bit (periods drawn from the primes in
 * the range, which must hold one; not for PROFILEME's interval); a plain range clears it.
 * Returns 0, or -EINVAL.
 */
int dmn_parse_period(const char *s, struct vs_config *cfg);

/*
 * A prime-valued period (--period prime:LO-HI) stands for the mean of the primes in [LO, HI],
 * which is not (LO + HI) / 2. The database keeps twice the events a sample stands for as
 * lo + hi (pdb.h PERIODS), so *p becomes a range { m, 2M - m } with the mean M of the primes
 * (2M rounded to the nearest integer: M off by at most 1/4 of an event); unchanged when the
 * range holds no prime (vs_config_check refuses that configuration).
 */
void dmn_prime_period(struct vs_period *p);

/*
 * The sampling options, parsed once for both `axprof record` and axprofd:
 *   --mode MODE        cycles (default), vprof, vreplay or profileme: the mode's defaults
 *                      (vs_config_default)
 *   --period LO-HI     the CYCLES period (profileme: fetched instructions between samples);
 *                      --period E=LO-HI the period of event E (repeatable); prime:LO-HI for
 *                      LO-HI draws each period from the primes in the range (SpeedShop)
 *   --pair-window W    profileme: the second of a pair 1..W fetched instructions after the
 *                      first (0: no pairs; default 50, MICRO'97 §5.3)
 *   --event E[,E...]   the events sampled (cycles, imiss, dmiss, branchmp, insns, replays)
 *   --share N/D        interpret N of every D user samples
 *   --budget N         instructions per interpretation, 1..VS_BUDGET_MAX
 *   --hotlist-m M      hotlist capacity, HOTLIST_MIN_M..HOTLIST_MAX_M
 *   --observe LIST     vprof/vreplay: the observers an interpretation runs (vs_gather_name[]:
 *                      values, latency, conflicts, loadload, vcount, args, callers,
 *                      addrs; "none"),
 *                      replacing the mode's; "+LIST" adds to the mode's
 *   --kernel-values    vprof/vreplay with the driver: kernel-mode samples interpret too, as a
 *                      shadow (nothing committed) where the driver proves it safe
 *                      (VS_CFG_KERNEL_VALUES; kmod/sampler/linux/vs_drv_kvals.c)
 *   --seed N           the sampling seed
 * The order on the command line does not matter: the mode's defaults come first, then the
 * periods, events, share, budget, hotlist capacity and seed given. A tool lists
 * DMN_SAMPLING_LONGOPTS in its getopt_long table, hands every option to dmn_sampling_opt() and,
 * after the loop, builds its vs_config with dmn_sampling_config().
 */
enum {
	DMN_OPT_MODE = 0x2000,
	DMN_OPT_PERIOD,
	DMN_OPT_EVENT,
	DMN_OPT_SHARE,
	DMN_OPT_BUDGET,
	DMN_OPT_HOTLIST_M,
	DMN_OPT_SEED,
	DMN_OPT_PAIR_WINDOW,
	DMN_OPT_OBSERVE,
	DMN_OPT_KERNEL_VALUES,
};

/* clang-format off */
/* The sampling options' lines of a --help text (record and axprofd print the same). */
#define DMN_SAMPLING_HELP \
	"  --mode MODE           cycles (default), vprof, vreplay or profileme (ProfileMe\n" \
	"                        instruction samples: hosted --cpu ev6 only)\n" \
	"  --period LO-HI        CYCLES sampling period, uniform in [LO, HI] (default\n" \
	"                        60000-64000); profileme: fetched instructions per sample\n" \
	"  --pair-window W       profileme: pair each sample with one 1..W instructions\n" \
	"                        later (default 50; 0: no pairs)\n" \
	"  --period E=LO-HI      the period of event E (imiss, dmiss, branchmp, insns,\n" \
	"                        replays; default 60000-64000, replays 4000-4250); repeat\n" \
	"                        for several events\n" \
	"  --period [E=]prime:LO-HI  each period a prime drawn uniformly from the primes\n" \
	"                        in [LO, HI] (SpeedShop; breaks aliasing with loops)\n" \
	"  --event E[,E...]      events to sample: cycles, imiss, dmiss, branchmp, insns,\n" \
	"                        replays (hosted: --cpu ev6 only) (default cycles; hosted\n" \
	"                        --mode vreplay on ev6: cycles,replays)\n" \
	"  --share N/D           interpret N of every D user samples (vprof 1/32, vreplay\n" \
	"                        1/129; hosted: vprof 1/2, vreplay 1/8)\n" \
	"  --budget N            instructions per interpretation (vprof 8, vreplay 128;\n" \
	"                        hosted: vprof 4)\n" \
	"  --hotlist-m M         hotlist capacity, 4..32 (default 16)\n" \
	"  --observe LIST        vprof/vreplay: what an interpretation records: values,\n" \
	"                        latency, conflicts, loadload, vcount, args, callers,\n" \
	"                        addrs or\n" \
	"                        none (default vprof values,latency,vcount; vreplay\n" \
	"                        conflicts,loadload,vcount); +LIST adds to the default\n" \
	"  --kernel-values       vprof/vreplay, kernel driver: interpret kernel-mode samples\n" \
	"                        too, without side effects, where provably safe (refusals\n" \
	"                        and stops counted by reason in the summary)\n" \
	"  --seed N              sampling seed (default fixed: runs are reproducible)\n"

#define DMN_SAMPLING_LONGOPTS \
	{ "mode", required_argument, NULL, DMN_OPT_MODE }, \
	{ "period", required_argument, NULL, DMN_OPT_PERIOD }, \
	{ "event", required_argument, NULL, DMN_OPT_EVENT }, \
	{ "share", required_argument, NULL, DMN_OPT_SHARE }, \
	{ "budget", required_argument, NULL, DMN_OPT_BUDGET }, \
	{ "hotlist-m", required_argument, NULL, DMN_OPT_HOTLIST_M }, \
	{ "seed", required_argument, NULL, DMN_OPT_SEED }, \
	{ "pair-window", required_argument, NULL, DMN_OPT_PAIR_WINDOW }, \
	{ "observe", required_argument, NULL, DMN_OPT_OBSERVE }, \
	{ "kernel-values", no_argument, NULL, DMN_OPT_KERNEL_VALUES }
/* clang-format on */

#define DMN_PERIOD_OPTS_MAX 16 /* --period options one command line may give */

/* The sampling options as given, until dmn_sampling_config(). Zero-initialise. */
struct dmn_sampling {
	const char *mode, *events, *share, *budget, *hotlist_m, *seed, *pair_window, *observe;
	const char *period[DMN_PERIOD_OPTS_MAX];
	unsigned int nperiod;
	bool kernel_values; /* --kernel-values */
};

/*
 * Take option c (getopt_long's return) with its argument if it is a sampling option. Returns 1
 * when taken, 0 when it is not one, -EINVAL with a message in err (may be NULL; too many --period).
 */
int dmn_sampling_opt(struct dmn_sampling *s, int c, const char *arg, struct ax_error *err);

/*
 * The configuration the options describe into cfg, checked with vs_config_check(). Returns 0,
 * or -EINVAL with a message in err (may be NULL) naming the option, its argument and what it needs (the
 * caller prefixes its own name: "axprof record: ", "axprofd: ").
 */
int dmn_sampling_config(const struct dmn_sampling *s, struct vs_config *cfg, struct ax_error *err);

#endif /* DMN_OPTS_H */
