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
 * neighbours. The local correction only lowers the classes the flow proves too high.
 */

#define RECON_TOL 0.10 /* [U] */
#define RECON_PASSES 4 /* [U] */

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

int an_freq_reconcile(const struct an_fg *g, struct an_fest *est)
{
	struct recon rc = { 0 };
	int ret;

	ret = build_rows(g, est, &rc);
	for (int pass = 0; !ret && pass < RECON_PASSES; pass++) {
		bool changed = false;

		for (uint32_t r = 0; r < rc.nrows; r++)
			changed |= correct_row(&rc, r, est);
		if (!changed)
			break;
	}
	free(rc.off);
	free(rc.cls);
	free(rc.coef);
	return ret;
}
