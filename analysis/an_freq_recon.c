/* analysis/an_freq_recon.c - class frequencies checked against the flow equations. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "an_freq.h"

/*
 * DCPI SOSP'97 §6.1 estimates every class from its own issue points, then fills the classes
 * without an estimate by local propagation; it never checks an existing estimate against the
 * flow. One stalled issue point can then make a class 2-9x too frequent while the flow
 * equations around it, F(block) = sum F(in-edges) = sum F(out-edges), and its neighbours'
 * well-estimated counts forbid it (issue 15, shape 1). Ours: an equation whose terms are all
 * medium- or high-confidence estimates from their own issue points but one low-confidence
 * class c gives c's flow value; c takes it when its own estimate is higher by more than RECON_TOL
 * (dynamic stalls only ever inflate a point's ratio S_i / M_i, so the flow value is the better
 * one), repeated while it changes something. c keeps its low confidence.
 *
 * Measured (make eval, issue 15): a global weighted least-squares reconciliation of every
 * estimate with the flow (variances from confidence and samples) lost 0.8 points within 5% on
 * the suite (libcheavy 17, Lua 4), more when high-confidence estimates were held fixed: they
 * are not consistent enough with one another for their errors to be spread over their
 * neighbours. Hence three local steps: the correction above; upper bounds from the cluster
 * estimates of the other side of an equation (clip_row); and least squares only over the
 * equations the reliable estimates already satisfy within their noise (smooth). Measured with
 * axeval on the 17-program suite's databases (after an_sched_cfg_via): within 5/10/15%
 * 90.7/95.4/97.3% -> 91.1/95.6/97.6%, edges 85.0 -> 85.4%, Lua 71.5 -> 72.9% within 5%.
 */

#define RECON_TOL 0.10 /* [U] */
#define RECON_PASSES 4 /* [U] */
#define SMOOTH_SWEEPS 100 /* [U] weighted projections over the consistent equations */
#define SMOOTH_DONE 1e-6 /* [U] ... until no estimate moves by more than this share of itself */
#define SMOOTH_Z 2.5 /* [U] an equation off by more than this many sd is not noise */

struct recon {
	uint32_t nrows;
	uint32_t *off; /* CSR rows: terms off[r] .. off[r + 1] */
	uint32_t *cls;
	double *coef;
	uint32_t nterms, cap;
};

static int term_add(struct recon *rc, uint32_t c, double a)
{
	/* merge with a term of the same class in the open row */
	for (uint32_t k = rc->off[rc->nrows]; k < rc->nterms; k++)
		if (rc->cls[k] == c) {
			rc->coef[k] += a;
			return 0;
		}
	if (rc->nterms == rc->cap) {
		uint32_t cap = rc->cap ? rc->cap * 2 : 64;
		uint32_t *nc = realloc(rc->cls, (size_t)cap * sizeof(*nc));
		double *na;

		if (!nc)
			return -ENOMEM;
		rc->cls = nc;
		na = realloc(rc->coef, (size_t)cap * sizeof(*na));
		if (!na)
			return -ENOMEM;
		rc->coef = na;
		rc->cap = cap;
	}
	rc->cls[rc->nterms] = c;
	rc->coef[rc->nterms++] = a;
	return 0;
}

/* Close the open row: kept when it has a non-zero term and every class has an estimate. */
static void row_close(struct recon *rc, const struct an_fest *est)
{
	uint32_t k, w = rc->off[rc->nrows];
	bool usable = true, any = false;

	for (k = rc->off[rc->nrows]; k < rc->nterms; k++) {
		if (rc->coef[k] == 0)
			continue;
		any = true;
		usable = usable && est[rc->cls[k]].how != AN_FHOW_NONE;
		rc->cls[w] = rc->cls[k];
		rc->coef[w++] = rc->coef[k];
	}
	if (!any || !usable) {
		rc->nterms = rc->off[rc->nrows];
		return;
	}
	rc->nterms = w;
	rc->off[++rc->nrows] = w;
}

/* Rows of the flow equations (one per block side with edges), into rc. */
static int build_rows(const struct an_fg *g, const struct an_fest *est, struct recon *rc)
{
	int ret;

	rc->off = calloc(2 * (size_t)g->nblocks + 1, sizeof(*rc->off));
	if (!rc->off)
		return -ENOMEM;
	for (uint32_t b = 0; b < g->nblocks; b++) {
		for (int side = 0; side < 2; side++) {
			uint32_t n = 0;

			if (g->blocks[b].flags & (side ? AN_FG_NO_OUT : AN_FG_NO_IN))
				continue;
			ret = term_add(rc, g->blocks[b].cls, 1);
			for (uint32_t e = 0; e < g->nedges && !ret; e++) {
				if ((side ? g->edges[e].from : g->edges[e].to) != b)
					continue;
				n++;
				ret = term_add(rc, g->edges[e].cls, -1);
			}
			if (ret)
				return ret;
			if (!n)
				rc->nterms = rc->off[rc->nrows]; /* no edge: no equation */
			else
				row_close(rc, est);
		}
	}
	return 0;
}

/* An estimate the flow may correct: made from the class's own points, low confidence. */
static bool correctable(const struct an_fest *e)
{
	return e->how != AN_FHOW_NONE && e->how != AN_FHOW_PROPAGATED && e->conf < AN_CONF_MEDIUM;
}

/* An estimate the flow may rely on: medium or high confidence from its own issue points. */
static bool reliable(const struct an_fest *e)
{
	return e->conf >= AN_CONF_MEDIUM && e->how != AN_FHOW_PROPAGATED && e->how != AN_FHOW_NONE;
}

/*
 * One equation sum(a_k x_k) = 0 whose terms are all reliable but one correctable class c:
 * the flow's value for c, v = -sum(a_k x_k, k != c) / a_c. When c's estimate exceeds v by more
 * than RECON_TOL (a stalled point inflates a ratio; nothing makes one fall below F), c takes v.
 * Returns true when it changed something.
 */
static bool correct_row(const struct recon *rc, uint32_t r, struct an_fest *est)
{
	uint32_t c = UINT32_MAX;
	double rest = 0, a = 0, v;

	for (uint32_t k = rc->off[r]; k < rc->off[r + 1]; k++) {
		const struct an_fest *e = &est[rc->cls[k]];

		if (reliable(e)) {
			rest += rc->coef[k] * e->f;
		} else if (correctable(e) && (c == UINT32_MAX || c == rc->cls[k])) {
			c = rc->cls[k];
			a += rc->coef[k];
		} else {
			return false;
		}
	}
	if (c == UINT32_MAX || a == 0)
		return false;
	v = -rest / a;
	if (v < 0 || est[c].f <= v * (1 + RECON_TOL))
		return false;
	est[c].f = v;
	return true;
}

/*
 * The noise of the estimates (issue 15 item 1): a class estimated from n samples is off by about
 * 1/sqrt(n) (Poisson), so most estimates beyond 5% on the suite are classes of a few hundred to
 * a few thousand samples, while the flow equations tie them to neighbours with many more. Over
 * the equations with a reliable term which their estimates satisfy within SMOOTH_Z standard
 * deviations (an equation off by more is a stall or a missing edge, not noise: left alone),
 * the estimates move to the weighted least-squares solution: each class's variance is
 * f^2 / samples (smooth_var() for the others), and cyclic weighted projections onto the
 * equations (Kaczmarz) converge to the minimum-variance correction, which moves the noisy
 * classes and hardly the well-sampled ones.
 */
static double var_of(const struct an_fest *e)
{
	return e->samples ? e->f * e->f / (double)e->samples : INFINITY;
}

/*
 * The smoothing's variance of an estimate, INFINITY for one it must not use (none). A
 * low-confidence estimate from its own points takes part too, with at least LOW_REL_SD of
 * itself as its sd: it may be a stalled point's upper bound, so it gives way to the reliable
 * ones, but it no longer cuts an equation that ties them (tree's tr_insert: F2 = F4 + F6 + F8
 * with F4 a low-confidence block of 700 executions beside three of 170,000-340,000). So does a
 * propagated one (an edge that is the difference of two blocks): nearly free, it carries the
 * equations of its two ends into each other. Measured on one saved recording of the suite
 * (axeval, 17 programs): within 5% 91.5% (reliable terms only) -> 92.2% (with the
 * low-confidence ones) -> 93.1% (and the propagated ones); tree 67.8 -> 79.9 -> 83.8%, Lua
 * 74.7 -> 77.0 -> 79.8%; high-confidence samples within 15% stay at 99.8-99.9%.
 */
#define LOW_REL_SD 0.5 /* [U]: 0.25 and 1.0 give the same figures within 0.1 point */
#define ZERO_VAR 1.0 /* [U] F of a class whose issue points drew no sample: 0 +- 1 */

static double smooth_var(const struct an_fest *e)
{
	double v = var_of(e), lo = LOW_REL_SD * e->f;

	if (reliable(e))
		return e->f > 0 ? v : INFINITY;
	if (e->how == AN_FHOW_ZERO)
		return ZERO_VAR;
	if (e->how == AN_FHOW_PROPAGATED)
		return lo * lo + ZERO_VAR;
	/*
	 * Low only for want of a clean point (an_freq_params.noclean_points, issue 15 outside34):
	 * the flow rules above may have lowered it, but its samples are many and it anchors its
	 * equations like a reliable one. Measured on the suite's two saved recordings with the
	 * LOW_REL_SD treatment instead: edges within 10% 92.3/92.6% -> 92.0/91.7% (adi's memcpy
	 * blocks left at their lowest point's ratio, -13%).
	 */
	if (e->noclean)
		return e->f > 0 ? v : INFINITY;
	if (!correctable(e) || !(e->f > 0) || !e->samples)
		return INFINITY;
	return v > lo * lo ? v : lo * lo;
}

static void smooth(const struct recon *rc, uint32_t nclasses, struct an_fest *est)
{
	bool *ok = calloc(rc->nrows + 1, sizeof(*ok));
	double *v0 = malloc(((size_t)nclasses + 1) * sizeof(*v0));

	if (!ok || !v0) {
		free(ok);
		free(v0);
		return; /* an optional refinement: the estimates stand */
	}
	for (uint32_t c = 0; c < nclasses; c++)
		v0[c] = smooth_var(&est[c]); /* fixed: the weights of the projections */
	for (uint32_t r = 0; r < rc->nrows; r++) {
		double res = 0, v = 0;
		bool rel = false;

		ok[r] = true;
		for (uint32_t k = rc->off[r]; k < rc->off[r + 1] && ok[r]; k++) {
			const struct an_fest *e = &est[rc->cls[k]];

			ok[r] = isfinite(v0[rc->cls[k]]);
			rel = rel || reliable(e) || e->noclean;
			res += rc->coef[k] * e->f;
			v += rc->coef[k] * rc->coef[k] * v0[rc->cls[k]];
		}
		ok[r] = ok[r] && rel && fabs(res) <= SMOOTH_Z * sqrt(v);
		/*
		 * A projection that drives an estimate from above 0 to below it: the reliable
		 * terms disagree (one that is 0 already, a class without samples, stays at 0).
		 */
		for (uint32_t k = rc->off[r]; k < rc->off[r + 1] && ok[r]; k++)
			ok[r] = !(est[rc->cls[k]].f > 0) ||
				est[rc->cls[k]].f - rc->coef[k] * v0[rc->cls[k]] * res / v >= 0;
	}
	for (int sweep = 0; sweep < SMOOTH_SWEEPS; sweep++) {
		double moved = 0; /* the largest relative move of the sweep */

		for (uint32_t r = 0; r < rc->nrows; r++) {
			double res = 0, v = 0;

			if (!ok[r])
				continue;
			for (uint32_t k = rc->off[r]; k < rc->off[r + 1]; k++) {
				res += rc->coef[k] * est[rc->cls[k]].f;
				v += rc->coef[k] * rc->coef[k] * v0[rc->cls[k]];
			}
			if (!(v > 0))
				continue;
			for (uint32_t k = rc->off[r]; k < rc->off[r + 1]; k++) {
				struct an_fest *e = &est[rc->cls[k]];
				double f = e->f - rc->coef[k] * v0[rc->cls[k]] * res / v;

				f = f > 0 ? f : 0;
				if (fabs(f - e->f) > moved * (f > e->f ? f : e->f))
					moved = fabs(f - e->f) / (f > e->f ? f : e->f);
				e->f = f;
			}
		}
		if (moved < SMOOTH_DONE)
			break;
	}
	free(ok);
	free(v0);
}

/*
 * Upper bounds (issue 15 item 1, the classes no reliable equation reaches). Dynamic stalls only
 * raise a point's ratio, so every estimate from a cluster of issue points is, noise aside, an
 * upper bound of its class's F, whatever its confidence. In an equation sum(a_k x_k) = 0 with
 * every term on one side such an estimate, a class on the other side is at most their sum
 * (divided by its own coefficient): a one-point class after a mispredicted jump, estimated
 * 2.5-9x too high, beside a block whose own estimate is 25% high, is bounded by that block.
 * A low-confidence class above CLIP_RATIO times its bound takes the bound (still low).
 */
#define CLIP_RATIO 1.5 /* [U]: beyond the noise and selection errors of the bounding terms */

static bool bounding(const struct an_fest *e)
{
	return e->how == AN_FHOW_CLUSTER && e->conf >= AN_CONF_LOW;
}

static bool clip_row(const struct recon *rc, uint32_t r, struct an_fest *est)
{
	bool changed = false;

	for (uint32_t k = rc->off[r]; k < rc->off[r + 1]; k++) {
		struct an_fest *c = &est[rc->cls[k]];
		double other = 0;
		bool ok = correctable(c) && c->how != AN_FHOW_ZERO;

		for (uint32_t j = rc->off[r]; j < rc->off[r + 1] && ok; j++) {
			if (j == k || (rc->coef[j] > 0) == (rc->coef[k] > 0)) {
				/* the same side: a term that only adds to c's side is fine if >= 0 */
				continue;
			}
			ok = bounding(&est[rc->cls[j]]);
			other += fabs(rc->coef[j]) * est[rc->cls[j]].f;
		}
		if (!ok || rc->coef[k] == 0)
			continue;
		other /= fabs(rc->coef[k]);
		if (c->f > CLIP_RATIO * other) {
			c->f = other;
			changed = true;
		}
	}
	return changed;
}

/*
 * The same bound on a whole side (issue 15, outside34 hashmap): clip_row bounds each class of a
 * side by the other side alone, so the two targets of a branch after a well-estimated block,
 * both behind stalls (a load after the branch that may mispredict, its reader after a miss;
 * 5x each), each fall to the block's frequency and their sum stays twice it. When every term of
 * one side with an estimate above 0 is correctable and every term of the other side bounding,
 * the side's sum is at most the other's; above CLIP_RATIO times it, the side comes down to it:
 * its terms at the bound after clip_row (the stalled ones) share what the side's other terms
 * leave, in proportion to their estimates (§6.1's equation F(block) = sum F(out-edges) is all
 * that is known of their split); every term in proportion when the others alone reach it (with
 * only the stalled terms scaled: the same figures within 0.1 point). Measured on
 * outside34 D3 (axeval): scaled before clip_row, in proportion to the raw estimates, hashmap's
 * two 5-7x inflated successors of a 300,000-execution block split 54:46 (truth 50:50, 85.6%
 * within 5%); after it, both clipped to the block first, 50:50.
 */
static bool scale_side(const struct recon *rc, uint32_t r, struct an_fest *est, bool pos)
{
	double mine = 0, other = 0, big = 0;
	bool all;

	for (uint32_t k = rc->off[r]; k < rc->off[r + 1]; k++) {
		const struct an_fest *e = &est[rc->cls[k]];

		if ((rc->coef[k] > 0) != pos) {
			if (!bounding(e))
				return false;
			other += fabs(rc->coef[k]) * e->f;
		} else if (e->f > 0) {
			if (!correctable(e) || e->how == AN_FHOW_ZERO)
				return false;
			mine += fabs(rc->coef[k]) * e->f;
		}
	}
	if (!(other > 0) || mine <= CLIP_RATIO * other)
		return false;
	/* the terms at the bound (clipped, or as high): they share what the others leave */
	for (uint32_t k = rc->off[r]; k < rc->off[r + 1]; k++)
		if ((rc->coef[k] > 0) == pos && fabs(rc->coef[k]) * est[rc->cls[k]].f >= other)
			big += fabs(rc->coef[k]) * est[rc->cls[k]].f;
	all = !(big > 0) || mine - big >= other;
	if (all)
		big = mine; /* the others alone reach the bound: every term in proportion */
	for (uint32_t k = rc->off[r]; k < rc->off[r + 1]; k++)
		if ((rc->coef[k] > 0) == pos &&
		    (all || fabs(rc->coef[k]) * est[rc->cls[k]].f >= other))
			est[rc->cls[k]].f *= (other - (mine - big)) / big;
	return true;
}

/*
 * Upper bounds over two hops (issue 15 item 1): clip_row bounds a class by the cluster
 * estimates of the other side of one of its equations, but the edges into a join usually have
 * no estimate of their own (tree's tr_leaves: a one-point block behind a missing load, 8x its
 * count, entered by a taken branch and by the fall-through of a call's return block, both edges
 * classes of their own). An edge is executed at most as often as the block at its other end, so
 * a side of a block of class c is at most the sum, over its edges, of the edge's own cluster
 * estimate or, failing that, its other end's; a side with an edge of class c itself or without
 * such a bound gives none. A low-confidence class above CLIP_RATIO times its smallest bound
 * takes the bound. Returns true when it changed something.
 */
static double edge_bound(const struct an_fg *g, const struct an_fest *est, uint32_t e,
			 uint32_t other, uint32_t c)
{
	uint32_t ec = g->edges[e].cls, oc = g->blocks[other].cls;

	if (ec == c)
		return INFINITY;
	if (bounding(&est[ec]))
		return est[ec].f;
	if (oc != c && bounding(&est[oc]))
		return est[oc].f;
	return INFINITY;
}

static bool clip_two_hops(const struct an_fg *g, struct an_fest *est)
{
	bool changed = false;

	for (uint32_t c = 0; c < g->nclasses; c++) {
		struct an_fest *ce = &est[c];
		double best = INFINITY;

		if (!correctable(ce) || ce->how == AN_FHOW_ZERO || !(ce->f > 0))
			continue;
		for (uint32_t b = 0; b < g->nblocks; b++) {
			if (g->blocks[b].cls != c)
				continue;
			for (int side = 0; side < 2; side++) {
				double sum = 0;
				uint32_t n = 0;

				if (g->blocks[b].flags & (side ? AN_FG_NO_OUT : AN_FG_NO_IN))
					continue;
				for (uint32_t e = 0; e < g->nedges && isfinite(sum); e++) {
					const struct an_fg_edge *ed = &g->edges[e];

					if ((side ? ed->from : ed->to) != b)
						continue;
					n++;
					sum += edge_bound(g, est, e, side ? ed->to : ed->from, c);
				}
				if (n && sum < best)
					best = sum;
			}
		}
		if (isfinite(best) && ce->f > CLIP_RATIO * best) {
			ce->f = best;
			changed = true;
		}
	}
	return changed;
}

/*
 * The flow's value of a class over longer paths (issue 15 item 1): correct_row needs one
 * equation whose other terms are all reliable, but a join reached by a dozen edges, each the
 * difference of two reliable blocks (bzip2's mainGtU: twelve early exits into one return
 * block), has none. Here every class that is not a reliable estimate is forgotten, the flow
 * equations are solved from the reliable ones alone (an_freq_flow: no guesses, with the
 * variances var_of() carried along), and a correctable class whose own estimate exceeds the
 * flow's value by more than RECON_TOL and by more than SMOOTH_Z standard deviations of the
 * difference takes the flow's value (stalls only inflate; a flow value made of differences
 * is noisy, which the second test allows for). Classes without issue points but a sample-free
 * class (AN_FHOW_ZERO, F about 0) count as known with a small variance. Returns the number
 * of classes corrected, or -ENOMEM.
 */
static int flow_correct(const struct an_fg *g, struct an_fest *est)
{
	struct an_fest *tmp = malloc(((size_t)g->nclasses + 1) * sizeof(*tmp));
	double *var = malloc(((size_t)g->nclasses + 1) * sizeof(*var));
	int ret, n = 0;

	if (!tmp || !var) {
		free(tmp);
		free(var);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < g->nclasses; c++) {
		tmp[c] = est[c];
		var[c] = INFINITY;
		if (reliable(&est[c]) && isfinite(var_of(&est[c])))
			var[c] = var_of(&est[c]);
		else if (est[c].how == AN_FHOW_ZERO)
			var[c] = ZERO_VAR;
		else
			tmp[c] = (struct an_fest){ 0 };
	}
	ret = an_freq_flow(g, tmp, var);
	for (uint32_t c = 0; !ret && c < g->nclasses; c++) {
		struct an_fest *e = &est[c];
		double v = tmp[c].f;

		if (!correctable(e) || e->how == AN_FHOW_ZERO || tmp[c].how != AN_FHOW_PROPAGATED ||
		    !isfinite(var[c]))
			continue;
		if (e->f > v * (1 + RECON_TOL) &&
		    e->f - v > SMOOTH_Z * sqrt(var[c] + (e->samples ? var_of(e) : 0))) {
			e->f = v;
			n++;
		}
	}
	free(tmp);
	free(var);
	return ret ? ret : n;
}

/*
 * Reliable estimates checked against one another (issue 15 item 1): a class of two or three issue
 * points that all stall (a load's consumer beside the load, both behind a taken branch: Lua's
 * lua_type, 23% high with high confidence) passes every test of its own, and the smoothing then
 * spreads its excess over the flow-connected classes, clean ones included (lua_type's 5-point
 * block went from 4% to 9% high). Here each reliable class c in turn is forgotten and solved
 * from the other reliable estimates alone (an_freq_flow, with variances); when its own estimate
 * exceeds that flow value by more than RECON_TOL and by more than SMOOTH_Z standard deviations
 * of the difference, c is suspect: stalls only inflate, so of two flow-tied estimates that
 * disagree beyond their noise the lower one holds. But a stalled class also makes the flow
 * value of its neighbours too low (A = B + C with C stalled makes A - C too low for B), so a
 * suspect takes the flow's value only when it is still suspect, solved with every other
 * suspect forgotten too; when two suspects need each other (B and C above), which one
 * stalled is not known and both stay. Values from the estimates as they came, applied
 * together. Returns the number of classes corrected, or -ENOMEM.
 */
struct loo {
	struct an_fest *tmp;
	double *var;
	double *v; /* per class: its flow value when suspect, else NAN */
};

/* Is c above its flow value from the reliable classes but c and those with v[k] set (skip)? */
static int loo_suspect(const struct an_fg *g, const struct an_fest *est, uint32_t c, bool skip,
		       struct loo *lo, double *v)
{
	const struct an_fest *e = &est[c];
	int ret;

	for (uint32_t k = 0; k < g->nclasses; k++) {
		bool out = k == c || (skip && !isnan(lo->v[k]));

		lo->tmp[k] = est[k];
		lo->var[k] = INFINITY;
		if (!out && reliable(&est[k]) && isfinite(var_of(&est[k])))
			lo->var[k] = var_of(&est[k]);
		else if (!out && est[k].how == AN_FHOW_ZERO)
			lo->var[k] = ZERO_VAR;
		else
			lo->tmp[k] = (struct an_fest){ 0 };
	}
	ret = an_freq_flow(g, lo->tmp, lo->var);
	if (ret)
		return ret;
	*v = lo->tmp[c].f;
	/*
	 * Issue 15 (outside34 bitkern): a class with a clean point (its ratio is F's own, §6.1)
	 * whose estimate is less noisy than the flow's value, a difference of two large noisy
	 * blocks (sd 24% of the value beside the class's own 3%), keeps its own: the weights of
	 * §6.1's two sources of F are their variances, and the flow's is the larger.
	 */
	if (e->clean && var_of(e) < lo->var[c])
		return 0;
	return lo->tmp[c].how == AN_FHOW_PROPAGATED && isfinite(lo->var[c]) && *v > 0 &&
	       e->f > *v * (1 + RECON_TOL) && e->f - *v > SMOOTH_Z * sqrt(lo->var[c] + var_of(e));
}

static int loo_correct(const struct an_fg *g, struct an_fest *est)
{
	size_t n1 = (size_t)g->nclasses + 1;
	struct loo lo = { malloc(n1 * sizeof(*lo.tmp)), malloc(n1 * sizeof(*lo.var)),
			  malloc(n1 * sizeof(*lo.v)) };
	double *nf = malloc(n1 * sizeof(*nf));
	int ret = 0, n = 0;

	if (!lo.tmp || !lo.var || !lo.v || !nf) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t c = 0; c < g->nclasses; c++) {
		lo.v[c] = NAN;
		nf[c] = est[c].f;
	}
	for (uint32_t c = 0; c < g->nclasses && ret >= 0; c++) {
		double v;

		if (!reliable(&est[c]) || !(est[c].f > 0) || !isfinite(var_of(&est[c])))
			continue;
		ret = loo_suspect(g, est, c, false, &lo, &v);
		if (ret > 0)
			lo.v[c] = v;
	}
	for (uint32_t c = 0; c < g->nclasses && ret >= 0; c++) {
		double v;

		if (isnan(lo.v[c]))
			continue;
		ret = loo_suspect(g, est, c, true, &lo, &v);
		if (ret > 0) {
			nf[c] = v;
			n++;
		}
	}
	for (uint32_t c = 0; ret >= 0 && c < g->nclasses; c++)
		est[c].f = nf[c];
out:
	free(lo.tmp);
	free(lo.var);
	free(lo.v);
	free(nf);
	return ret < 0 ? ret : n;
}

/* After corrections: the propagated classes again, from the corrected estimates. */
static int repropagate(const struct an_fg *g, struct an_fest *est)
{
	for (uint32_t c = 0; c < g->nclasses; c++)
		if (est[c].how == AN_FHOW_PROPAGATED)
			est[c] = (struct an_fest){ 0 };
	return an_freq_propagate(g, est);
}

int an_freq_reconcile(const struct an_fg *g, struct an_fest *est)
{
	struct recon rc = { 0 };
	int ret;

	ret = loo_correct(g, est);
	if (ret > 0)
		ret = repropagate(g, est);
	if (ret >= 0)
		ret = flow_correct(g, est);
	if (ret > 0)
		ret = repropagate(g, est);
	if (!ret)
		ret = build_rows(g, est, &rc);
	for (int pass = 0; !ret && pass < RECON_PASSES; pass++) {
		bool changed = false;

		for (uint32_t r = 0; r < rc.nrows; r++)
			changed |= correct_row(&rc, r, est);
		if (!changed)
			break;
	}
	/* one pass: a bound made of bounded classes compounds their errors (measured: worse) */
	for (uint32_t r = 0; !ret && r < rc.nrows; r++) {
		clip_row(&rc, r, est);
		scale_side(&rc, r, est, true);
		scale_side(&rc, r, est, false);
	}
	if (!ret)
		clip_two_hops(g, est);
	if (!ret)
		smooth(&rc, g->nclasses, est);
	free(rc.off);
	free(rc.cls);
	free(rc.coef);
	return ret;
}
