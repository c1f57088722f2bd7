/* analysis/an_freq.h - execution frequency and CPI from CYCLES samples (DCPI SOSP'97 §6.1). */
#ifndef AN_FREQ_H
#define AN_FREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * DCPI's frequency estimator (Anderson et al., "Continuous Profiling: Where Have All the Cycles
 * Gone?", SOSP'97, §6.1), on one procedure at a time, over a small self-contained description of
 * the procedure: the "frequency graph" below. Whoever builds it (an_freq_proc.c from the CFG,
 * cycle-equivalence classes and static schedule; the unit tests by hand) fills:
 *
 *   insns   every instruction of the procedure, block by block, with its CYCLES samples S_i,
 *           its static head-of-issue cycles M_i from the block's schedule (0 for an instruction
 *           that issues in the same cycle as an earlier one), and, when M_i is set by the latency
 *           of an earlier instruction j of the same block, that j (the dependence-overlap ratio);
 *           AN_FG_M_UNSURE when M_i depends on the code before the block;
 *   blocks  [first, first + n) into insns, the block's frequency-equivalence class, and whether
 *           its in-flow (entry, unknown predecessors) or out-flow (exit, unresolved jump) cannot
 *           be used as a flow constraint;
 *   edges   (from, to) block indexes and the edge's class.
 *
 * Classes number 0 .. nclasses - 1. When the CFG may miss edges, the builder gives every block
 * and edge a class of its own (§6.1: "each block and each edge is assigned its own equivalence
 * class"); the estimator does not care how the classes were found.
 *
 * Frequencies F are in "executions per sampling period": F = executions / P where P is the mean
 * CYCLES sampling period, so the estimated execution count is F * P and an instruction's CPI is
 * S_i / F (§6.1: "S_i should be approximately F_i C_i").
 */

#define AN_NONE UINT32_MAX

struct an_fg_insn {
	uint64_t pc;
	uint64_t samples; /* S_i: CYCLES samples at this instruction */
	uint32_t m; /* M_i: static head-of-issue cycles; > 0 makes it an issue point */
	uint32_t dep; /* index (into insns, same block, earlier) of the instruction whose latency
		       * sets M_i, or AN_NONE */
	uint32_t flags; /* AN_FG_M_UNSURE, AN_FG_CLEAN */
	uint64_t branchmp; /* BRANCHMP samples at it when the culprit rules leave a mispredicted
			    * branch as a cause of its stalls (0 otherwise): an_fg.branchmp_period */
};

/* M_i depends on what ran before the block (e.g. the block's first fetch group can issue with
 * the end of the block it falls out of): used only when the class has no other issue point. */
#define AN_FG_M_UNSURE (1u << 0)
/* No dynamic stall cause applies to it (an_culprit.h rules): a point that can vouch for F. */
#define AN_FG_CLEAN (1u << 1)

#define AN_FG_NO_IN (1u << 0) /* in-flow is not the sum of the in-edges (entry, unknown preds) */
#define AN_FG_NO_OUT (1u << 1) /* out-flow is not the sum of the out-edges (exit, unknown succs) */

struct an_fg_block {
	uint32_t first, n; /* insns[first .. first + n) */
	uint32_t cls; /* equivalence class */
	uint32_t flags; /* AN_FG_* */
};

struct an_fg_edge {
	uint32_t from, to; /* block indexes */
	uint32_t cls;
};

struct an_fg {
	const struct an_fg_insn *insns;
	uint32_t ninsns;
	const struct an_fg_block *blocks;
	uint32_t nblocks;
	const struct an_fg_edge *edges;
	uint32_t nedges;
	uint32_t nclasses;
	/* P_branchmp / P_cycles: the BRANCHMP sampling period over the mean CYCLES period (0 when
	 * BRANCHMP was not sampled); a BRANCHMP sample stands for that many CYCLES samples' worth
	 * of mispredicts, each an_freq_params.branch_penalty cycles. */
	double branchmp_period;
};

/* Confidence of an estimate (§6.1, last heuristic). */
enum an_conf {
	AN_CONF_NONE, /* no estimate */
	AN_CONF_LOW,
	AN_CONF_MEDIUM,
	AN_CONF_HIGH,
};

/* How a class's frequency was obtained. */
enum an_fhow {
	AN_FHOW_NONE, /* no issue point and no flow constraint reached it */
	AN_FHOW_CLUSTER, /* average of a cluster of the smallest S_i / M_i ratios */
	AN_FHOW_SMALL, /* few samples: sum S_i / sum M_i over every issue point (the class's every
			* instruction's S_i when its issue points have none) */
	AN_FHOW_ZERO, /* no instruction of the class has a sample */
	AN_FHOW_PROPAGATED, /* local propagation over the flow constraints */
	AN_FHOW_FALLBACK, /* every cluster was anomalous: the smallest one anyway */
};

struct an_fest {
	double f; /* executions per mean sampling period (0 when unknown) */
	uint8_t conf; /* enum an_conf */
	uint8_t how; /* enum an_fhow */
	uint16_t used; /* issue points averaged */
	uint16_t points; /* issue points in the class */
	float spread; /* max / min ratio of the points used (1 for one point) */
	uint64_t samples; /* samples of the points used */
	bool clean; /* a point used is one no dynamic stall cause applies to (AN_FG_CLEAN) */
	bool noclean; /* low confidence only for want of a clean point (noclean_points) */
	bool bmp_corrected; /* f is the issue points' ratio less their mispredict stalls */
};

/* Heuristic parameters; an_freq_params_default() documents the values. */
struct an_freq_params {
	double cluster_ratio; /* a cluster: max ratio <= cluster_ratio * min ratio */
	double min_fraction; /* a cluster holds at least this share of the class's issue points */
	double stall_max; /* cycles per execution no instruction plausibly stalls on average */
	double z; /* Poisson z-score that separates a stalled point from a noisy clean one */
	uint64_t small_samples; /* fewer samples on the issue points: the small-sample estimate */
	uint64_t high_samples; /* samples a high-confidence estimate needs */
	double low_per_point; /* fewer samples per issue point of the class: low confidence */
	double medium_per_point; /* fewer: at most medium confidence */
	uint32_t noclean_points; /* a class of this many issue points or fewer, none of them
				  * clean (AN_FG_CLEAN): low confidence (an_fest.noclean) */
	double branch_penalty; /* expected (not worst) cycles a mispredict delays the next insn */
	double bmp_rel_sd; /* a mispredict-corrected estimate is used below this relative sd */
};

void an_freq_params_default(struct an_freq_params *p);

/*
 * Estimate every class of g into est[0 .. g->nclasses - 1]: first from its issue points
 * (est_class), then local propagation over the flow constraints, then the correction of
 * the classes the flow proves too high (an_freq_reconcile). p may be NULL (defaults).
 * Returns 0, -EINVAL for an inconsistent graph (an index out of range, a dep that is not an
 * earlier instruction of the same block, an empty class count with blocks), or -ENOMEM.
 */
int an_freq_estimate(const struct an_fg *g, const struct an_freq_params *p, struct an_fest *est);

/*
 * The estimate for one class from its issue points only (no propagation): the points are the
 * instructions with M_i > 0 of the blocks whose class is cls. Returns 0 and est->how ==
 * AN_FHOW_NONE when the class has no issue point. -EINVAL/-ENOMEM as above.
 */
int an_freq_class(const struct an_fg *g, const struct an_freq_params *p, uint32_t cls,
		  struct an_fest *est);

/*
 * Local propagation alone (§6.1): est[] holds the classes known so far (how != NONE); fills
 * the others it can reach through the flow constraints, never with a negative value. Linear in
 * the size of the graph. 0, -EINVAL or -ENOMEM.
 */
int an_freq_propagate(const struct an_fg *g, struct an_fest *est);

/*
 * The flow's values alone: like an_freq_propagate without its bounded guesses (only equations
 * with one unknown class, or unknowns forced to 0), and with variances: var[c] holds the
 * variance of every known estimate on entry and receives that of every class filled (the sum
 * of its equation's known terms' variances over its coefficient squared; infinite when the
 * equation's value was negative, clamped to 0: its known terms disagree). 0, -EINVAL or
 * -ENOMEM.
 */
int an_freq_flow(const struct an_fg *g, struct an_fest *est, double *var);

/*
 * Correct est[] with the flow equations (an_freq_recon.c): a low-confidence class that an
 * equation of medium/high-confidence neighbours proves more than 10% too high takes the flow's
 * value; a low-confidence class more than 1.5x the sum of the cluster estimates on the other
 * side of an equation takes that sum, and a side of such classes above 1.5x the other side's
 * cluster estimates comes down to it (all stay low confidence); then the reliable estimates of
 * equations they satisfy within their Poisson noise move to the weighted least-squares
 * solution (variance f^2 / samples). 0 or -ENOMEM.
 */
int an_freq_reconcile(const struct an_fg *g, struct an_fest *est);

const char *an_conf_name(unsigned int conf); /* "none", "low", "medium", "high" */
const char *an_fhow_name(unsigned int how);

#endif /* AN_FREQ_H */
