/* eval/ev_eval.h - grading frequency and culprit estimates against the machine's ground truth. */
#ifndef EV_EVAL_H
#define EV_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "an_freq_image.h"
#include "mach_truth.h"
#include "pdb.h"

/*
 * DCPI SOSP'97 §6.1 and §6.2 evaluated the analysis against exact counts (dcpix, an instrumenting
 * tool); we grade it against the hosted machine's truth file (machine/mach_truth.h), which knows
 * every instruction's execution count, head-of-issue cycles by cause and events, and every
 * edge's count.
 *
 *   Figure 8: for each instruction with samples, the ratio of the estimated execution count
 *             F x P to the exact one falls in a bucket; the bucket collects the instruction's
 *             CYCLES samples. Buckets are 5% wide and named by their lower end ("-15%" holds
 *             ratios in [0.85, 0.90)), with "<-45%" below 0.55 and ">=+45%" from 1.45 on.
 *   Figure 9: the same for CFG edges between blocks, weighted by their exact execution counts.
 *   Figure 10: per procedure (those with 99.9% of the image's samples), the I-cache stall cycles
 *             the culprit analysis attributes (a range: lo, hi, and its midpoint), computed with
 *             the exact execution counts as the paper did, against the number of I-cache misses
 *             (IMISS samples x the IMISS period when IMISS was sampled, else the truth's exact
 *             IMISS events); the Pearson correlation of each end of the range.
 *   Unexplained: the share of all CYCLES samples that the culprit analysis leaves unexplained.
 * Diagnostics beyond the paper: how often M_i equals the machine's static cycles per execution,
 * and how much of the machine's true dynamic stall cycles fall under a cause the analysis kept
 * (recall of "guilty until proven innocent").
 */

#define EV_EVAL_NB 20 /* buckets: "<-45%", -45% .. +40% (18), ">=+45%" */

struct ev_eval_hist {
	double w[EV_EVAL_NB]; /* weight per bucket */
	double low[EV_EVAL_NB]; /* ... of which had a low-confidence estimate */
	double total;
};

/* Bucket of the ratio est / truth (truth > 0; truth == 0 goes to the top bucket). */
int ev_eval_bucket(double est, double truth);
const char *ev_eval_bucket_label(int b);
void ev_eval_hist_add(struct ev_eval_hist *h, double est, double truth, double w, bool low);
void ev_eval_hist_merge(struct ev_eval_hist *a, const struct ev_eval_hist *b);
/* Share of the weight whose ratio is within +-pct% (5, 10, 15 ... by whole buckets). */
double ev_eval_hist_within(const struct ev_eval_hist *h, int pct);
/* Share of the weight beyond +-pct% that has low confidence. */
double ev_eval_hist_beyond_low(const struct ev_eval_hist *h, int pct);

/* Pearson correlation of x and y (0 when undefined: n < 2 or a constant series). */
double ev_eval_pearson(const double *x, const double *y, size_t n);

/* One Figure 10 point: a procedure. */
struct ev_eval_point {
	char name[288];
	double misses; /* I-cache misses (projected from IMISS samples, or exact) */
	double lo, hi; /* I-cache stall cycles attributed */
	double samples; /* its CYCLES samples */
	double true_icache; /* the machine's I-cache stall cycles (diagnostic) */
};

struct ev_eval_acc {
	struct ev_eval_hist insn; /* Figure 8 */
	struct ev_eval_hist edge; /* Figure 9 */
	double samples; /* CYCLES samples graded */
	double samples_image; /* CYCLES samples of the image (graded or not: outside procedures,
			       * procedures the CFG builder rejects) */
	double unexplained; /* samples left unexplained */
	double m_agree, m_total; /* samples at instructions whose M_i matches the machine */
	double dyn_true, dyn_kept; /* true dynamic stall cycles; of which under a kept cause */
	double dyn_true_cause[MACH_STALL_NR], dyn_kept_cause[MACH_STALL_NR];
	struct ev_eval_point *pts;
	size_t npts, cap;
	bool imiss_sampled; /* Figure 10 x from IMISS samples (else the truth's events) */
	bool truth_events; /* the event samples were the truth's exact counts */
	uint64_t procs, procs_failed;
	double seconds; /* analysis time */
};

void ev_eval_acc_free(struct ev_eval_acc *a);
/* Add b's figures into a (the points are appended). 0 or -ENOMEM. */
int ev_eval_acc_merge(struct ev_eval_acc *a, const struct ev_eval_acc *b);

/*
 * Grade one image: analyse every procedure with CYCLES samples in prof (o as for an_fi_analyze;
 * the exec_override fields are ignored) and compare with truth. offset_bias is added to image
 * offsets to get the run's pcs (0 for a program linked at a fixed address). detail, when not
 * NULL, gets one CSV line per instruction with samples (the tuning view). Returns 0 or -Exxx
 * with a message in err (may be NULL).
 */
int ev_eval_image(const char *image, const struct pdb_prof *prof, const struct mach_truth *t,
		  uint64_t offset_bias, const struct an_fi_opts *o, unsigned int flags,
		  struct ev_eval_acc *acc, FILE *detail, const char *tag, struct ax_error *err);

/*
 * flags: EV_EVAL_TRUTH_EVENTS replaces the profile's IMISS, DMISS, DTBMISS, ITBMISS and
 * BRANCHMP samples by the truth's exact per-instruction event counts (as samples with period 1):
 * the limit of event sampling, for when the recorder cannot sample events at a useful period.
 */
#define EV_EVAL_TRUTH_EVENTS (1u << 0)

/*
 * The load bias of a shared object in the run that wrote truth t, from its profile: among the
 * page-aligned biases that put the most sampled offset on an instruction that spent cycles, and
 * at least 99% of the samples on executed instructions, the one whose per-instruction counts
 * best follow the truth's head-of-issue cycles / period. -ENOENT when none fits; -ENODATA
 * without CYCLES samples.
 */
int ev_eval_infer_bias(const struct pdb_prof *prof, const struct mach_truth *t, double period,
		       uint64_t *bias);

#endif /* EV_EVAL_H */
