/* analysis/an_freq.c - execution frequency and CPI from CYCLES samples (DCPI SOSP'97 §6.1). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "an_freq.h"

/*
 * DCPI SOSP'97 §6.1, "Estimating frequency from sample counts". For one equivalence class the
 * estimator assumes (1) that some of its issue points suffer no dynamic stall and (2) that M_i,
 * the cycles issue point i spends at the head of the issue queue without dynamic stalls, is
 * known from the static schedule. A clean issue point then has S_i / M_i ~ F; a stalled one a
 * larger ratio. So F is the average of a cluster of the smallest ratios.
 *
 * The paper's text leaves two formulas out of our copy (seeds/dcpi-sosp97-sec6-data-analysis.txt
 * shows "we estimate F as:" and "we use the ratio:" with nothing after). We use:
 *   - small classes:       F = sum(S_i) / sum(M_i) over every issue point of the class;
 *   - dependence overlap:  when issue point i waits for the latency of an earlier instruction j
 *                          of its block, a dynamic stall of an instruction between them overlaps
 *                          that latency and shortens i's time at the head of the queue, so its
 *                          ratio is taken over the run j+1 .. i:
 *                              R_i = sum(S_k, k = j+1 .. i) / sum(M_k, k = j+1 .. i),
 *                          which is >= F whenever the run has no dynamic stall overlap error
 *                          (the issue cycle of i minus that of j is at least the static time).
 * Both are the natural reading of the surrounding text; the unit tests pin their behaviour.
 *
 * Cluster selection, following "we examine clusters of issue points that have relatively small
 * ratios, where a cluster is a set of issue points that have similar ratios (e.g., maximum ratio
 * in cluster <= 1.5 * minimum ratio in cluster)":
 *   1. sort the points by ratio; for each start s (smallest first) the cluster is every point
 *      whose ratio is within cluster_ratio of point s's;
 *   2. F_s = sum(S) / sum(M) over the cluster (the sample-weighted average of its ratios, the
 *      maximum-likelihood F for Poisson counts);
 *   3. our refinement for sampling noise: starting from the cluster's median ratio, drop points
 *      whose counts are significantly above F_s * M (a stall, z-score > z, the variance widened
 *      by F_s's own noise), admit points beyond the 1.5 bound whose counts are consistent with
 *      F_s (a clean point that drew high), and points below s that are consistent with F_s;
 *      iterate to a fixed point. With many samples per point this is the paper's cluster; with
 *      few it does not truncate the noise of clean points, and a mildly stalled point cannot
 *      pull the estimate up;
 *   4. "the cluster is discarded if its issue points appear to have anomalous values for S_i or
 *      M_i, e.g., because the cluster contains less than a minimum fraction of the issue points
 *      in the class or because the estimate for F would imply an unreasonably large stall for
 *      another instruction in the class": min_fraction of the points, and no instruction of the
 *      class may stall more than stall_max cycles per execution under F_s;
 *   5. the first cluster that is not anomalous gives F; if every one is, the first (smallest)
 *      one does, with low confidence (AN_FHOW_FALLBACK).
 *
 * Issue points marked AN_FG_M_UNSURE (M_i depends on the block the path came from) take part only
 * when the class has no other issue point.
 *
 * Confidence (§6.1: "a function of the number of issue points used to compute the estimate, how
 * tightly the ratios of the issue points were clustered, whether the estimate was made by
 * propagation, and the magnitude of the estimate"): see conf_of().
 *
 * Local propagation (§6.1): the flow equations F(block) = sum F(in-edges) = sum F(out-edges),
 * except where a block has no predecessors (successors) or is marked AN_FG_NO_IN/NO_OUT, solved
 * one unknown class at a time with a worklist, every new estimate given at once to its whole
 * class, never negative. Ours on top: an equation whose unknowns all have one sign and must sum
 * to zero or less sets them all to 0; and when propagation is stuck, bounded(), below.
 */

void an_freq_params_default(struct an_freq_params *p)
{
	p->cluster_ratio = 1.5; /* §6.1 */
	p->min_fraction = 0.25; /* ours: "a minimum fraction of the issue points" */
	p->stall_max = 400.0; /* ours: a few memory latencies; the write buffer stalls ~110 */
	p->z = 2.0; /* ours: Poisson z-score */
	p->small_samples = 24; /* ours */
	p->high_samples = 200; /* ours */
	/*
	 * Ours (issue 15 item 4): with a few samples per issue point the smallest ratios are the
	 * points that drew low, so the cluster underestimates F. Measured on make eval's classes
	 * (17 programs, 16:39 databases): medium/high estimates within 15% were 48% below 4 samples
	 * per point, 71% below 8, 85% below 16, 87% below 32 and 99.5% above.
	 */
	p->low_per_point = 16;
	p->medium_per_point = 32;
	/*
	 * Ours (issue 15, outside34): §6.1's large errors are "classes with only one or two issue
	 * points where dynamic stalls occur regularly". When the culprit rules (an_culprit.c, §6.2)
	 * leave a stall candidate at every issue point of a class of this many points or fewer
	 * (the target of a branch that may mispredict, a reader of a load that may miss), its
	 * estimate is low confidence (est->noclean), so the flow rules (an_freq_recon.c) may
	 * correct it. Measured (axeval, outside34 D1-D5 with the flow rules of this change):
	 * within 5% 87.1-91.1% -> 87.0-94.1%, within 15% 96.3-96.8% -> 97.7-98.1%; a bound on the
	 * points used instead of the class's points gives the same figures within 0.2 point.
	 */
	p->noclean_points = 2;
	/*
	 * The 21164 delays the instruction after a mispredicted branch or jump by 5 cycles (21164
	 * HRM ch. 2; machine/mach_ev5.c `mispredict`): the expected cost, unlike the culprit
	 * rules' bound an_cp_params.cost[AN_CAUSE_BRANCH] (10). Used by bmp_correct().
	 */
	p->branch_penalty = 5;
	p->bmp_rel_sd = 0.15; /* ours (issue 15 cause A) */
}

const char *an_conf_name(unsigned int conf)
{
	static const char *const names[] = { "none", "low", "medium", "high" };

	return conf < 4 ? names[conf] : "?";
}

const char *an_fhow_name(unsigned int how)
{
	static const char *const names[] = { "none", "cluster",	   "small",
					     "zero", "propagated", "fallback" };

	return how < 6 ? names[how] : "?";
}

/* ------------------------------------------------------------------------------------------ */
/* Validation. */

static int check_graph(const struct an_fg *g)
{
	uint32_t b, e, i;

	if (g->nblocks && !g->nclasses)
		return -EINVAL;
	if ((g->ninsns && !g->insns) || (g->nblocks && !g->blocks) || (g->nedges && !g->edges))
		return -EINVAL;
	for (b = 0; b < g->nblocks; b++) {
		const struct an_fg_block *bl = &g->blocks[b];

		if (bl->cls >= g->nclasses || bl->first > g->ninsns ||
		    bl->n > g->ninsns - bl->first)
			return -EINVAL;
		for (i = bl->first; i < bl->first + bl->n; i++) {
			uint32_t d = g->insns[i].dep;

			if (d != AN_NONE && (d < bl->first || d >= i))
				return -EINVAL;
		}
	}
	for (e = 0; e < g->nedges; e++)
		if (g->edges[e].from >= g->nblocks || g->edges[e].to >= g->nblocks ||
		    g->edges[e].cls >= g->nclasses)
			return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* One class from its issue points. */

struct point {
	double num, den; /* samples and static cycles the ratio is taken over */
	double ratio;
	uint64_t s; /* S_i itself */
	uint32_t m; /* M_i itself */
	uint32_t flags; /* the instruction's AN_FG_* */
	uint64_t b; /* BRANCHMP samples at it (an_fg_insn.branchmp) */
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	return (x->ratio > y->ratio) - (x->ratio < y->ratio);
}

/*
 * Is num significantly above (below) what F * den predicts: a stall rather than noise? F itself
 * comes from points with `set` static cycles in all, so its own noise widens the test: the
 * variance of num - F * den is about F * den * (1 + den / set) for Poisson counts.
 */
static double sd(double f, double den, double set)
{
	return sqrt(f * den * (1.0 + den / (set > 0 ? set : den)));
}

static bool above(double f, double num, double den, double set, double z)
{
	return num > f * den + z * sd(f, den, set) + 1.0;
}

static bool below(double f, double num, double den, double set, double z)
{
	return num < f * den - z * sd(f, den, set) - 1.0;
}

/*
 * Refine the cluster that starts at sorted point s (step 3 above). Marks in[] and returns the
 * estimate.
 */
static double refine(const struct point *pt, uint32_t n, uint32_t s, const struct an_freq_params *p,
		     bool *in)
{
	double num = 0, den = 0, f;
	uint32_t k, iter, e = s;

	/* The paper's cluster: s .. e, every ratio within cluster_ratio of point s's. */
	while (e + 1 < n && pt[e + 1].ratio <= p->cluster_ratio * pt[s].ratio)
		e++;
	/*
	 * Start from the cluster's median ratio rather than its mean: a mildly stalled point in
	 * the cluster then cannot drag the first estimate up far enough to pass the noise test.
	 */
	f = pt[s + (e - s) / 2].ratio;
	if ((e - s) % 2)
		f = (f + pt[s + (e - s) / 2 + 1].ratio) / 2;
	den = 0;
	for (k = s; k <= e; k++)
		den += pt[k].den;
	for (k = 0; k < n; k++)
		in[k] = false;
	for (iter = 0; iter < 16; iter++) {
		bool changed = iter == 0;
		double set = den;

		num = den = 0;
		for (k = 0; k < n; k++) {
			bool want;

			if (k >= s)
				want = !above(f, pt[k].num, pt[k].den, set, p->z);
			else
				want = !above(f, pt[k].num, pt[k].den, set, p->z) &&
				       !below(f, pt[k].num, pt[k].den, set, p->z);
			/* The cluster's own start always stays: it defines the cluster. */
			if (k == s)
				want = true;
			if (want != in[k])
				changed = true;
			in[k] = want;
			if (want) {
				num += pt[k].num;
				den += pt[k].den;
			}
		}
		f = num / den;
		if (!changed)
			break;
	}
	return f;
}

/* Would F imply an unreasonably large stall for some instruction of the class (step 4)? */
static bool implausible(const struct an_fg *g, const uint32_t *blocks, uint32_t nb, double f,
			double stall_max)
{
	uint32_t b, i;

	for (b = 0; b < nb; b++) {
		const struct an_fg_block *bl = &g->blocks[blocks[b]];

		for (i = bl->first; i < bl->first + bl->n; i++) {
			const struct an_fg_insn *in = &g->insns[i];

			if (!in->samples)
				continue;
			if (f <= 0)
				return true;
			if ((double)in->samples / f - in->m > stall_max)
				return true;
		}
	}
	return false;
}

/*
 * §6.1's second heuristic: confidence from the number of points used, how tight their ratios
 * are, and the magnitude (samples) of the estimate; propagation lowers it (an_freq_propagate).
 * Ours: the only issue point of a class counts only when the culprit rules say it cannot stall
 * (clean), since one regularly stalled point is the paper's main source of large errors
 * ("classes with only one or two issue points where dynamic stalls occur regularly"); the
 * smallest of several points, with many samples, is medium. Points whose M_i depend on the code
 * before their block never make an estimate better than low.
 */
static uint8_t conf_of(const struct an_freq_params *p, uint32_t used, uint32_t points,
		       double spread, uint64_t samples, bool clean, bool unsure)
{
	uint32_t want = points < 3 ? points : 3;

	if (unsure)
		return AN_CONF_LOW;
	if (used >= 2 && used >= want && samples >= p->high_samples && spread <= p->cluster_ratio)
		return AN_CONF_HIGH;
	if (samples >= p->small_samples &&
	    (used >= 2 || clean || (points >= 2 && samples >= p->high_samples)))
		return AN_CONF_MEDIUM;
	return AN_CONF_LOW;
}

/*
 * Few samples per issue point (a procedure with few samples per block: a large unrolled body,
 * a rarely run path): the cluster of the smallest ratios is made of the points that drew low,
 * whatever their number, so the estimate is low by 15-60% (issue 15 item 4). Such an estimate is
 * low confidence below low_per_point samples per point, at most medium below medium_per_point.
 */
static uint8_t cap_per_point(const struct an_freq_params *p, uint8_t conf, double per_point)
{
	if (per_point < p->low_per_point)
		return AN_CONF_LOW;
	if (per_point < p->medium_per_point && conf > AN_CONF_MEDIUM)
		return AN_CONF_MEDIUM;
	return conf;
}

/* The estimate of one class whose blocks are blocks[0 .. nb) (graph already checked). */
/* Too few samples to refine: samples over the points' cycles, low confidence, every point used. */
static void set_small(struct an_fest *est, uint64_t samples, double cycles)
{
	est->f = (double)samples / cycles;
	est->how = AN_FHOW_SMALL;
	est->conf = AN_CONF_LOW;
	est->used = est->points;
	est->samples = samples;
	est->spread = 1;
}

/*
 * Ours (issue 15, cause A): a class of one or two issue points none of which is clean, the
 * target of a branch that mispredicts regularly. SOSP'97 §6.1 names these classes as its large
 * errors and §6.2 uses event samples only to bound a stall's cycles; using them to correct the
 * estimate is ours. The 21164 delivers a BRANCHMP sample on the instruction after the branch,
 * the stalled point itself (an_culprit.c), so point q's mispredict cycles in CYCLES samples
 * are about B_q x (P_branchmp / P_cycles) x penalty, and F_q = (S_q - that) / M_q. Its variance
 * (Poisson on S_q and B_q) is (S_q + k^2 B_q) / M_q^2. The smallest such ratio whose relative
 * sd is below bmp_rel_sd replaces a larger cluster estimate; otherwise the estimate stands.
 */
static void bmp_correct(const struct an_fg *g, const struct an_freq_params *p,
			const struct point *pt, uint32_t n, struct an_fest *est)
{
	double k = g->branchmp_period * p->branch_penalty, best = 0;
	bool found = false;

	if (!(k > 0))
		return;
	for (uint32_t q = 0; q < n; q++) {
		double num, sd;

		if (!pt[q].b || !(pt[q].den > 0))
			continue;
		num = pt[q].num - k * (double)pt[q].b;
		sd = sqrt(pt[q].num + k * k * (double)pt[q].b);
		if (!(num > 0) || sd >= p->bmp_rel_sd * num)
			continue;
		if (!found || num / pt[q].den < best)
			best = num / pt[q].den;
		found = true;
	}
	if (found && best < est->f) {
		est->f = best;
		est->bmp_corrected = true;
	}
}

static int est_class(const struct an_fg *g, const struct an_freq_params *p, const uint32_t *blocks,
		     uint32_t nb, struct an_fest *est)
{
	struct point *pt = NULL;
	bool *in = NULL;
	uint32_t n = 0, cap = 0, b, i, s, k;
	uint64_t tot_s = 0, tot_m = 0;
	bool sure = false, any_clean = false;
	int ret = 0;

	memset(est, 0, sizeof(*est));
	/* Issue points whose M_i depends on the preceding code count only when nothing else does. */
	for (b = 0; b < nb && !sure; b++) {
		const struct an_fg_block *bl = &g->blocks[blocks[b]];

		for (i = bl->first; i < bl->first + bl->n; i++)
			if (g->insns[i].m && !(g->insns[i].flags & AN_FG_M_UNSURE))
				sure = true;
	}
	for (b = 0; b < nb; b++) {
		const struct an_fg_block *bl = &g->blocks[blocks[b]];

		for (i = bl->first; i < bl->first + bl->n; i++) {
			const struct an_fg_insn *ins = &g->insns[i];
			struct point *q;

			if (!ins->m || (sure && (ins->flags & AN_FG_M_UNSURE)))
				continue;
			if (n == cap) {
				struct point *np;

				cap = cap ? 2 * cap : 16;
				np = realloc(pt, cap * sizeof(*pt));
				if (!np) {
					ret = -ENOMEM;
					goto out;
				}
				pt = np;
			}
			q = &pt[n++];
			q->s = ins->samples;
			q->m = ins->m;
			q->flags = ins->flags;
			q->b = ins->branchmp;
			q->num = (double)ins->samples;
			q->den = ins->m;
			if (ins->dep != AN_NONE) {
				/* The dependence-overlap ratio over j+1 .. i. */
				q->num = q->den = 0;
				for (k = ins->dep + 1; k <= i; k++) {
					q->num += (double)g->insns[k].samples;
					q->den += g->insns[k].m;
				}
			}
			q->ratio = q->num / q->den;
			any_clean = any_clean || (ins->flags & AN_FG_CLEAN);
			tot_s += ins->samples;
			tot_m += ins->m;
		}
	}
	est->points = n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
	if (!n)
		goto out; /* AN_FHOW_NONE: left to propagation */
	if (!tot_s && tot_m) {
		/*
		 * Ours (issue 15): issue points without a sample while other instructions of the
		 * class have some. The class ran; the static schedule gave the cycle to the wrong
		 * instruction (a first instruction that dual-issues with the end of the block it
		 * falls out of, so its branch takes the cycle: libc's `cmpeq; bne` after a
		 * one-instruction block, 16,000 executions, 0 samples on the cmpeq, 69 on the bne).
		 * Taken as 0 (± 1 in the reconciliation) it forced its neighbours to 0 through the
		 * flow. Every instruction's samples over the points' cycles instead, low confidence.
		 */
		uint64_t all = 0;

		for (b = 0; b < nb; b++) {
			const struct an_fg_block *bl = &g->blocks[blocks[b]];

			for (i = bl->first; i < bl->first + bl->n; i++)
				all += g->insns[i].samples;
		}
		if (all) {
			set_small(est, all, tot_m);
			goto out;
		}
	}
	if (!tot_s) {
		est->how = AN_FHOW_ZERO;
		est->conf = AN_CONF_LOW;
		est->used = est->points;
		est->spread = 1;
		goto out;
	}
	if (tot_s < p->small_samples) {
		set_small(est, tot_s, tot_m);
		goto out;
	}

	qsort(pt, n, sizeof(*pt), cmp_point);
	in = calloc(n, sizeof(*in));
	if (!in) {
		ret = -ENOMEM;
		goto out;
	}
	for (s = 0; s <= n; s++) {
		/* s == n: every cluster was anomalous; take the first one anyway. */
		uint32_t start = s < n ? s : 0, used = 0;
		double f = refine(pt, n, start, p, in), lo = 0, hi = 0;
		uint64_t samples = 0;
		bool clean = false;

		for (k = 0; k < n; k++) {
			if (!in[k])
				continue;
			clean = clean || (pt[k].flags & AN_FG_CLEAN);
			if (!used || pt[k].ratio < lo)
				lo = pt[k].ratio;
			if (!used || pt[k].ratio > hi)
				hi = pt[k].ratio;
			used++;
			samples += pt[k].s;
		}
		if (s < n && ((double)used < p->min_fraction * n ||
			      implausible(g, blocks, nb, f, p->stall_max)))
			continue;
		est->f = f;
		est->used = used > UINT16_MAX ? UINT16_MAX : (uint16_t)used;
		est->samples = samples;
		est->clean = clean;
		est->spread = lo > 0 ? (float)(hi / lo) : (hi > 0 ? INFINITY : 1.0f);
		if (s < n) {
			est->how = AN_FHOW_CLUSTER;
			est->conf = conf_of(p, used, n, est->spread, samples, clean, !sure);
			est->conf = cap_per_point(p, est->conf, (double)tot_s / n);
			if (!any_clean && n <= p->noclean_points && est->conf > AN_CONF_LOW) {
				est->conf = AN_CONF_LOW;
				est->noclean = true;
			}
			if (!any_clean && n <= p->noclean_points)
				bmp_correct(g, p, pt, n, est);
		} else {
			est->how = AN_FHOW_FALLBACK;
			est->conf = AN_CONF_LOW;
		}
		break;
	}
out:
	free(in);
	free(pt);
	return ret;
}

int an_freq_class(const struct an_fg *g, const struct an_freq_params *p, uint32_t cls,
		  struct an_fest *est)
{
	struct an_freq_params defp;
	uint32_t *blocks, nb = 0, b;
	int ret;

	memset(est, 0, sizeof(*est));
	ret = check_graph(g);
	if (ret)
		return ret;
	if (cls >= g->nclasses)
		return -EINVAL;
	if (!p) {
		an_freq_params_default(&defp);
		p = &defp;
	}
	blocks = malloc(((size_t)g->nblocks + 1) * sizeof(*blocks));
	if (!blocks)
		return -ENOMEM;
	for (b = 0; b < g->nblocks; b++)
		if (g->blocks[b].cls == cls)
			blocks[nb++] = b;
	ret = est_class(g, p, blocks, nb, est);
	free(blocks);
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Local propagation. */

struct prop {
	const struct an_fg *g;
	struct an_fest *est;
	uint32_t *in_off, *in_e; /* CSR: in-edges of each block */
	uint32_t *out_off, *out_e; /* CSR: out-edges */
	uint32_t *cb_off, *cb; /* CSR: blocks of each class */
	uint32_t *ce_off, *ce; /* CSR: edges of each class */
	uint32_t *work; /* stack of blocks to examine */
	uint32_t nwork;
	bool *queued;
	double *coef; /* per class, scratch */
	double *ub; /* per class: upper bound (bounded()) */
	uint32_t *u; /* scratch: the unknowns of one equation */
	double *var; /* NULL, or per class the variance of its estimate (an_freq_flow) */
	double kvar; /* scratch: the variance of the known side of one equation */
};

static uint32_t *csr(uint32_t nkeys, uint32_t nitems,
		     uint32_t (*key)(const struct an_fg *, uint32_t), const struct an_fg *g,
		     uint32_t **items)
{
	uint32_t *off = calloc((size_t)nkeys + 1, sizeof(*off)), *pos, i;

	*items = malloc(((size_t)nitems + 1) * sizeof(**items));
	pos = calloc((size_t)nkeys + 1, sizeof(*pos));
	if (!off || !*items || !pos) {
		free(off);
		free(*items);
		free(pos);
		*items = NULL;
		return NULL;
	}
	for (i = 0; i < nitems; i++)
		off[key(g, i) + 1]++;
	for (i = 0; i < nkeys; i++)
		off[i + 1] += off[i];
	memcpy(pos, off, (size_t)nkeys * sizeof(*pos));
	for (i = 0; i < nitems; i++)
		(*items)[pos[key(g, i)]++] = i;
	free(pos);
	return off;
}

static uint32_t key_edge_to(const struct an_fg *g, uint32_t e)
{
	return g->edges[e].to;
}

static uint32_t key_edge_from(const struct an_fg *g, uint32_t e)
{
	return g->edges[e].from;
}

static uint32_t key_block_cls(const struct an_fg *g, uint32_t b)
{
	return g->blocks[b].cls;
}

static uint32_t key_edge_cls(const struct an_fg *g, uint32_t e)
{
	return g->edges[e].cls;
}

static void push(struct prop *pr, uint32_t b)
{
	if (pr->queued[b])
		return;
	pr->queued[b] = true;
	pr->work[pr->nwork++] = b;
}

static bool known(const struct prop *pr, uint32_t cls)
{
	return pr->est[cls].how != AN_FHOW_NONE;
}

/* A new estimate for class c: every block touching a member of c may now be solvable. */
static void set_class(struct prop *pr, uint32_t c, double f, uint8_t conf)
{
	struct an_fest *e = &pr->est[c];
	uint32_t k;

	/* an_freq_flow: a negative flow value means its known terms disagree: no variance */
	if (pr->var)
		pr->var[c] = f < 0 ? INFINITY :
				     pr->kvar / (pr->coef[c] != 0 ? pr->coef[c] * pr->coef[c] : 1);
	e->f = f > 0 ? f : 0; /* §6.1: "no negative estimates are allowed" */
	e->how = AN_FHOW_PROPAGATED;
	e->conf = conf;
	for (k = pr->cb_off[c]; k < pr->cb_off[c + 1]; k++)
		push(pr, pr->cb[k]);
	for (k = pr->ce_off[c]; k < pr->ce_off[c + 1]; k++) {
		push(pr, pr->g->edges[pr->ce[k]].from);
		push(pr, pr->g->edges[pr->ce[k]].to);
	}
}

/*
 * One flow equation: F(block) = sum of F(edges). With the classes known so far it reads
 * sum(coef_c * F_c, unknown c) = -K. coefs() fills pr->coef for the classes involved and
 * returns K; *conf gets the least confidence of the known terms.
 */
static double coefs(struct prop *pr, uint32_t b, const uint32_t *edges, uint32_t ne, uint8_t *conf)
{
	const struct an_fg *g = pr->g;
	uint32_t c = g->blocks[b].cls, k;
	double kk = 0;

	*conf = AN_CONF_HIGH;
	pr->kvar = 0;
	pr->coef[c] = 0;
	for (k = 0; k < ne; k++)
		pr->coef[g->edges[edges[k]].cls] = 0;
	if (known(pr, c)) {
		kk += pr->est[c].f;
		pr->kvar += pr->var ? pr->var[c] : 0;
		*conf = pr->est[c].conf < *conf ? pr->est[c].conf : *conf;
	} else {
		pr->coef[c] += 1;
	}
	for (k = 0; k < ne; k++) {
		uint32_t ec = g->edges[edges[k]].cls;

		if (known(pr, ec)) {
			kk -= pr->est[ec].f;
			pr->kvar += pr->var ? pr->var[ec] : 0;
			*conf = pr->est[ec].conf < *conf ? pr->est[ec].conf : *conf;
		} else {
			pr->coef[ec] -= 1;
		}
	}
	return kk;
}

/*
 * The unknown classes of the equation with a non-zero coefficient, into u[] (room for ne + 1);
 * returns their number and *sign: +1 or -1 when all coefficients have that sign, else 0.
 */
static uint32_t unknowns(struct prop *pr, uint32_t b, const uint32_t *edges, uint32_t ne,
			 uint32_t *u, int *sign)
{
	const struct an_fg *g = pr->g;
	uint32_t n = 0, k;

	*sign = 0;
	for (k = 0; k <= ne; k++) {
		uint32_t c = k < ne ? g->edges[edges[k]].cls : g->blocks[b].cls;
		int sg;
		bool dup = false;

		if (known(pr, c) || pr->coef[c] == 0)
			continue;
		for (uint32_t j = 0; j < n; j++)
			dup = dup || u[j] == c;
		if (dup)
			continue;
		sg = pr->coef[c] > 0 ? 1 : -1;
		if (!n)
			*sign = sg;
		else if (sg != *sign)
			*sign = 0;
		u[n++] = c;
	}
	return n;
}

static void solve(struct prop *pr, uint32_t b, const uint32_t *edges, uint32_t ne)
{
	uint32_t n, k;
	uint8_t conf;
	double kk;
	int sign;

	if (!ne)
		return;
	kk = coefs(pr, b, edges, ne, &conf);
	n = unknowns(pr, b, edges, ne, pr->u, &sign);
	/* A propagated estimate is one step less sure than the least sure of its inputs. */
	conf = conf > AN_CONF_LOW ? conf - 1 : AN_CONF_LOW;
	if (n == 1) {
		set_class(pr, pr->u[0], -kk / pr->coef[pr->u[0]], conf);
		return;
	}
	/*
	 * Several unknowns, every coefficient of one sign, the other side of the other sign (or
	 * 0): no estimate may be negative, so every unknown is 0 (the common case: a block that
	 * never ran, F = 0, bounds all its edges to 0).
	 */
	if (n > 1 && sign && -kk * sign <= 0)
		for (k = 0; k < n; k++)
			set_class(pr, pr->u[k], 0, AN_CONF_LOW);
}

/* Upper bounds from the equations with unknowns of one sign: each is at most the whole. */
static void bound(struct prop *pr, uint32_t b, const uint32_t *edges, uint32_t ne)
{
	uint32_t n, k;
	uint8_t conf;
	double kk, r;
	int sign;

	if (!ne)
		return;
	kk = coefs(pr, b, edges, ne, &conf);
	n = unknowns(pr, b, edges, ne, pr->u, &sign);
	if (n < 2 || !sign)
		return;
	r = -kk * sign;
	for (k = 0; k < n; k++) {
		double ub = r / fabs(pr->coef[pr->u[k]]);

		if (ub < pr->ub[pr->u[k]])
			pr->ub[pr->u[k]] = ub;
	}
}

static void run(struct prop *pr)
{
	const struct an_fg *g = pr->g;

	while (pr->nwork) {
		uint32_t x = pr->work[--pr->nwork];

		pr->queued[x] = false;
		if (!(g->blocks[x].flags & AN_FG_NO_IN))
			solve(pr, x, pr->in_e + pr->in_off[x], pr->in_off[x + 1] - pr->in_off[x]);
		if (!(g->blocks[x].flags & AN_FG_NO_OUT))
			solve(pr, x, pr->out_e + pr->out_off[x],
			      pr->out_off[x + 1] - pr->out_off[x]);
	}
}

/*
 * Ours, beyond the paper's local propagation: when it is stuck on equations with several
 * unknowns of one sign, each unknown lies in [0, bound]. The unknown with the smallest bound is
 * set to the middle of its range (low confidence) and propagation resumes; the error is at most
 * half that bound (e.g. a loop entered from a block with a handful of executions: its back edge
 * gets the loop's frequency minus half of that handful).
 */
static void bounded(struct prop *pr)
{
	const struct an_fg *g = pr->g;

	for (;;) {
		uint32_t x, c, best = AN_NONE;

		for (c = 0; c < g->nclasses; c++)
			pr->ub[c] = INFINITY;
		for (x = 0; x < g->nblocks; x++) {
			if (!(g->blocks[x].flags & AN_FG_NO_IN))
				bound(pr, x, pr->in_e + pr->in_off[x],
				      pr->in_off[x + 1] - pr->in_off[x]);
			if (!(g->blocks[x].flags & AN_FG_NO_OUT))
				bound(pr, x, pr->out_e + pr->out_off[x],
				      pr->out_off[x + 1] - pr->out_off[x]);
		}
		for (c = 0; c < g->nclasses; c++)
			if (!known(pr, c) && isfinite(pr->ub[c]) &&
			    (best == AN_NONE || pr->ub[c] < pr->ub[best]))
				best = c;
		if (best == AN_NONE)
			return;
		set_class(pr, best, pr->ub[best] / 2, AN_CONF_LOW);
		run(pr);
	}
}

static int propagate(const struct an_fg *g, struct an_fest *est, double *var)
{
	struct prop pr = { .g = g, .est = est, .var = var };
	uint32_t b;
	int ret;

	ret = check_graph(g);
	if (ret)
		return ret;
	if (!g->nblocks)
		return 0;
	ret = -ENOMEM;
	pr.in_off = csr(g->nblocks, g->nedges, key_edge_to, g, &pr.in_e);
	pr.out_off = csr(g->nblocks, g->nedges, key_edge_from, g, &pr.out_e);
	pr.cb_off = csr(g->nclasses, g->nblocks, key_block_cls, g, &pr.cb);
	pr.ce_off = csr(g->nclasses, g->nedges, key_edge_cls, g, &pr.ce);
	pr.work = malloc((size_t)g->nblocks * sizeof(*pr.work));
	pr.queued = calloc(g->nblocks, sizeof(*pr.queued));
	pr.coef = calloc(g->nclasses, sizeof(*pr.coef));
	pr.ub = calloc(g->nclasses, sizeof(*pr.ub));
	pr.u = calloc((size_t)g->nedges + 2, sizeof(*pr.u));
	if (!pr.in_off || !pr.out_off || !pr.cb_off || !pr.ce_off || !pr.work || !pr.queued ||
	    !pr.coef || !pr.ub || !pr.u)
		goto out;
	for (b = g->nblocks; b-- > 0;)
		push(&pr, b);
	run(&pr);
	if (!var)
		bounded(&pr); /* guesses: not for an_freq_flow, whose values must be the flow's */
	ret = 0;
out:
	free(pr.in_off);
	free(pr.in_e);
	free(pr.out_off);
	free(pr.out_e);
	free(pr.cb_off);
	free(pr.cb);
	free(pr.ce_off);
	free(pr.ce);
	free(pr.work);
	free(pr.queued);
	free(pr.coef);
	free(pr.ub);
	free(pr.u);
	return ret;
}

int an_freq_propagate(const struct an_fg *g, struct an_fest *est)
{
	return propagate(g, est, NULL);
}

int an_freq_flow(const struct an_fg *g, struct an_fest *est, double *var)
{
	return var ? propagate(g, est, var) : -EINVAL;
}

int an_freq_estimate(const struct an_fg *g, const struct an_freq_params *p, struct an_fest *est)
{
	struct an_freq_params defp;
	uint32_t c, *off, *blocks;
	int ret;

	ret = check_graph(g);
	if (ret)
		return ret;
	if (!p) {
		an_freq_params_default(&defp);
		p = &defp;
	}
	off = csr(g->nclasses, g->nblocks, key_block_cls, g, &blocks);
	if (!off)
		return -ENOMEM;
	for (c = 0; c < g->nclasses && !ret; c++)
		ret = est_class(g, p, blocks + off[c], off[c + 1] - off[c], &est[c]);
	free(off);
	free(blocks);
	if (!ret)
		ret = an_freq_propagate(g, est);
	return ret ? ret : an_freq_reconcile(g, est);
}
