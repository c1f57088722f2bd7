/* analysis/an_freq_image.h - DCPI's dynamic analysis of an image: frequency, CPI, stalls per procedure. */
#ifndef AN_FREQ_IMAGE_H
#define AN_FREQ_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "an_cfg.h"
#include "an_culprit.h"
#include "img.h"
#include "an_freq.h"
#include "an_proc.h"
#include "an_sched.h"

/*
 * The whole of DCPI SOSP'97 §6 for one executable image, procedure by procedure:
 *   an_cfg_build + an_cfg_classes   blocks, edges, frequency equivalence classes (§6.1)
 *   an_sched_cfg                    M_i, issue points, static stalls with reason and culprit
 *   an_freq_estimate                F per class, then per block, edge and instruction (§6.1)
 *   an_culprit_explain              dynamic stalls and their possible causes (§6.2)
 * Samples are per image offset (the instruction's address in the image's own ELF program
 * headers, as the profile database stores them), one sorted array of struct an_count per event;
 * the tools library turns a database profile into these (tools/lib/tl_prof.h).
 *
 * Periods: period[AN_EV_CYCLES] is the mean CYCLES sampling period P (an execution count is
 * F * P); period[e] of another event is its mean period, 0 when it was not sampled.
 */

struct an_fi_opts {
	double period[AN_EV_NR]; /* mean sampling periods (see above); CYCLES must be > 0 */
	const struct an_freq_params *freq; /* NULL: defaults */
	const struct an_cp_params *cp; /* NULL: defaults */
	/*
	 * Optional: use these frequencies instead of the estimates (the paper's Figure 10 experiment
	 * isolates culprit analysis "using execution counts measured with instrumented
	 * executables"). Returns the execution count of the instruction at offset pc, or a
	 * negative value when unknown.
	 */
	double (*exec_override)(void *priv, uint64_t pc);
	void *override_priv;
};

/* One instruction of an analysed procedure. */
struct an_fi_insn {
	uint64_t pc; /* image offset */
	uint32_t word;
	uint32_t block; /* cfg block index */
	uint64_t samples[AN_EV_NR];
	struct an_sched_insn sched; /* M_i, static stall, reason, culprit (index in the block) */
	int32_t static_culprit; /* the static culprit as an instruction index, -1 if none */
	uint8_t conf; /* enum an_conf of its class's estimate */
	uint8_t how; /* enum an_fhow */
	struct an_cp_result cp; /* f (per CYCLES period), cpi, dynamic stall and causes */
};

struct an_fi_proc {
	const struct an_proc *proc;
	char name[256];
	struct an_cfg *cfg;
	struct an_fi_insn *insn; /* cfg->ninsns */
	uint32_t ninsns;
	struct an_fest *cls; /* per class, plus the ENTRY and EXIT nodes' classes at the end */
	double *edge_f; /* per cfg edge: estimated frequency (per CYCLES period) */
	double period[AN_EV_NR];
	uint64_t samples[AN_EV_NR]; /* totals over the procedure */
	struct an_cp_callee *callee; /* per instruction: an_cp_proc.callee (an_culprit.h) */
};

struct an_fi_image;

/* Samples of one event at one image offset. */
struct an_count {
	uint64_t offset;
	uint64_t count;
};

/*
 * Open the ELF image at path and find its procedures. Returns 0 and *out, or -Exxx with a
 * one-line message in err (may be NULL): what img_open() and an_procs_find() return (not ELF, not Alpha,
 * no code, damaged headers...), -ENOMEM.
 */
int an_fi_open(const char *path, struct an_fi_image **out, struct ax_error *err);
void an_fi_close(struct an_fi_image *im);
const struct img *an_fi_elf(const struct an_fi_image *im);
const struct an_procs *an_fi_procs(const struct an_fi_image *im);

/*
 * Give the samples of event ev (AN_EV_*), sorted by offset, strictly (copied). Returns 0, -EINVAL
 * (ev out of range, not sorted), -ENOMEM.
 */
int an_fi_set_samples(struct an_fi_image *im, unsigned int ev, const struct an_count *v, size_t n);

/* Samples of event ev in [lo, hi). */
uint64_t an_fi_samples_in(const struct an_fi_image *im, unsigned int ev, uint64_t lo, uint64_t hi);

/*
 * Analyse procedure p of the image. Returns 0 and *out (free with an_fi_proc_free), or -Exxx
 * with a message in err (may be NULL): -EINVAL (no CYCLES period, a procedure the CFG builder rejects),
 * -ENOMEM.
 */
int an_fi_analyze(struct an_fi_image *im, const struct an_proc *p, const struct an_fi_opts *o,
		  struct an_fi_proc **out, struct ax_error *err);
void an_fi_proc_free(struct an_fi_proc *fp);

/* ------------------------------------------------------------------------------------------ */
/* Where a procedure's cycles went (DCPI Figure 4; §6.2 "At the procedure level, we summarize
 * the cycles spent in the procedure, showing how many have gone to I-cache misses, how many to
 * D-cache misses, etc., by aggregating instruction-level data"). All in CYCLES samples; times
 * the period gives cycles. samples = exec + stat + dyn; dyn = sum(share) + unexplained. */
struct an_stall_summary {
	double samples; /* CYCLES samples of the procedure */
	double exec; /* M_i cycles the schedule does not count as stalls (issue cycles) */
	double stat; /* static stalls: the schedule's stall cycles (its bubbles) */
	double dyn; /* dynamic stalls */
	double lo[AN_CAUSE_NR], hi[AN_CAUSE_NR]; /* the range each cause may explain */
	double share[AN_CAUSE_NR]; /* one split of dyn - unexplained */
	double unexplained;
	double period; /* mean CYCLES period */
	double insns_exec; /* estimated instructions executed (sum of F over instructions) x P */
};

void an_stall_summary(const struct an_fi_proc *fp, struct an_stall_summary *out);
/* Add b into a (image or program totals; the period becomes the samples-weighted mean). */
void an_stall_summary_add(struct an_stall_summary *a, const struct an_stall_summary *b);

/*
 * Print a summary the way `axprof annotate` shows it: one line per category with its share of the
 * samples, ranges "lo% to hi%" for the causes. name may be NULL. (Its JSON is the tools' own:
 * tools/lib/tl_json_an.h.)
 */
void an_stall_summary_print(FILE *f, const char *name, const struct an_stall_summary *s);

/* One procedure's summary, as an_stall_procs() returns them. */
struct an_stall_proc {
	char name[256];
	uint64_t start; /* image offset of its first instruction */
	struct an_stall_summary s;
};

/*
 * What `axprof report --stalls` needs of one image: analyse every procedure of im that has CYCLES
 * samples (periods and parameters in o, as for an_fi_analyze) and return their summaries in
 * *out, *n of them, most samples first (free() the array). Procedures the CFG builder rejects
 * are left out and counted in *skipped. Returns 0 or -ENOMEM.
 */
int an_stall_procs(struct an_fi_image *im, const struct an_fi_opts *o, struct an_stall_proc **out,
		   size_t *n, size_t *skipped);

#endif /* AN_FREQ_IMAGE_H */
