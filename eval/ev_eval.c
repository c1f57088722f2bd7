/* eval/ev_eval.c - grading frequency and culprit estimates against the machine's ground truth. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ev_eval.h"
#include "tl_prof.h"

int ev_eval_bucket(double est, double truth)
{
	double r;
	int k;

	if (!(truth > 0))
		return EV_EVAL_NB - 1;
	r = est / truth;
	if (r < 0.55)
		return 0;
	if (r >= 1.45)
		return EV_EVAL_NB - 1;
	/* [0.55, 0.60) is "-45%" (bucket 1) ... [1.40, 1.45) is "+40%" (bucket 18). A tiny bias
	 * keeps exact ratios like 0.95 in their own bucket despite rounding. */
	k = (int)floor((r - 1.0) / 0.05 + 1e-9);
	if (k < -9)
		k = -9;
	if (k > 8)
		k = 8;
	return k + 10;
}

const char *ev_eval_bucket_label(int b)
{
	static const char *const names[EV_EVAL_NB] = {
		"<-45%", "-45%", "-40%", "-35%", "-30%", "-25%", "-20%", "-15%", "-10%", "-5%",
		"+0%",	 "+5%",	 "+10%", "+15%", "+20%", "+25%", "+30%", "+35%", "+40%", ">=+45%",
	};

	return b >= 0 && b < EV_EVAL_NB ? names[b] : "?";
}

void ev_eval_hist_add(struct ev_eval_hist *h, double est, double truth, double w, bool low)
{
	int b = ev_eval_bucket(est, truth);

	h->w[b] += w;
	if (low)
		h->low[b] += w;
	h->total += w;
}

void ev_eval_hist_merge(struct ev_eval_hist *a, const struct ev_eval_hist *b)
{
	for (int k = 0; k < EV_EVAL_NB; k++) {
		a->w[k] += b->w[k];
		a->low[k] += b->low[k];
	}
	a->total += b->total;
}

/* Buckets [10 - pct/5, 10 + pct/5) are within +-pct%. */
double ev_eval_hist_within(const struct ev_eval_hist *h, int pct)
{
	double s = 0;
	int n = pct / 5;

	if (!(h->total > 0))
		return 0;
	for (int k = 10 - n; k < 10 + n; k++)
		if (k >= 0 && k < EV_EVAL_NB)
			s += h->w[k];
	return s / h->total;
}

double ev_eval_hist_beyond_low(const struct ev_eval_hist *h, int pct)
{
	double s = 0, l = 0;
	int n = pct / 5;

	for (int k = 0; k < EV_EVAL_NB; k++) {
		if (k >= 10 - n && k < 10 + n)
			continue;
		s += h->w[k];
		l += h->low[k];
	}
	return s > 0 ? l / s : 0;
}

double ev_eval_pearson(const double *x, const double *y, size_t n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (!(sxx > 0) || !(syy > 0))
		return 0;
	return sxy / sqrt(sxx * syy);
}

void ev_eval_acc_free(struct ev_eval_acc *a)
{
	free(a->pts);
	a->pts = NULL;
	a->npts = a->cap = 0;
}

static int add_point(struct ev_eval_acc *a, const struct ev_eval_point *p)
{
	if (a->npts == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		struct ev_eval_point *np = realloc(a->pts, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		a->pts = np;
		a->cap = cap;
	}
	a->pts[a->npts++] = *p;
	return 0;
}

int ev_eval_acc_merge(struct ev_eval_acc *a, const struct ev_eval_acc *b)
{
	ev_eval_hist_merge(&a->insn, &b->insn);
	ev_eval_hist_merge(&a->edge, &b->edge);
	a->samples += b->samples;
	a->samples_image += b->samples_image;
	a->unexplained += b->unexplained;
	a->m_agree += b->m_agree;
	a->m_total += b->m_total;
	a->dyn_true += b->dyn_true;
	a->dyn_kept += b->dyn_kept;
	for (int c = 0; c < MACH_STALL_NR; c++) {
		a->dyn_true_cause[c] += b->dyn_true_cause[c];
		a->dyn_kept_cause[c] += b->dyn_kept_cause[c];
	}
	a->imiss_sampled = a->imiss_sampled || b->imiss_sampled;
	a->truth_events = a->truth_events || b->truth_events;
	a->procs += b->procs;
	a->procs_failed += b->procs_failed;
	a->seconds += b->seconds;
	for (size_t i = 0; i < b->npts; i++)
		if (add_point(a, &b->pts[i]))
			return -ENOMEM;
	return 0;
}

/* ------------------------------------------------------------------------------------------ */

struct ctx {
	const struct mach_truth *t;
	uint64_t bias;
};

static uint64_t texec(const struct ctx *c, uint64_t off)
{
	const struct mach_truth_pc *r = mach_truth_find(c->t, off + c->bias);

	return r ? r->exec : 0;
}

static double override(void *priv, uint64_t off)
{
	return (double)texec(priv, off);
}

/* The machine's stall causes as the analysis names them: the analysis' causes (a bit each) a
 * stall of that kind is credited to when they are candidates (0: none). */
static uint32_t causes_of(int stall)
{
	switch (stall) {
	case MACH_STALL_IMISS:
		return 1u << AN_CAUSE_ICACHE;
	case MACH_STALL_DMISS:
		return 1u << AN_CAUSE_DCACHE;
	case MACH_STALL_ITBMISS:
		return 1u << AN_CAUSE_ITB;
	case MACH_STALL_DTBMISS:
		return 1u << AN_CAUSE_DTB;
	case MACH_STALL_BRANCHMP:
		return 1u << AN_CAUSE_BRANCH;
	case MACH_STALL_WBFULL:
		return 1u << AN_CAUSE_WBUF;
	case MACH_STALL_UNIT:
		return 1u << AN_CAUSE_UNIT;
	case MACH_STALL_OTHER:
		/* The machine's OTHER is a load's replay after a store and PALcode time
		 * (machine/mach_ev5.c) */
		return (1u << AN_CAUSE_REPLAY) | (1u << AN_CAUSE_PAL);
	default:
		return 0;
	}
}

static bool is_cond_branch(const struct axp_insn *d)
{
	unsigned int u = axp_info(d)->unit;

	return (u == AXP_U_IBR || u == AXP_U_FBR) && d->op != AXP_OP_BR;
}

/* Exact count of a CFG edge between two blocks (see Figure 9 above). */
static double edge_truth(const struct ctx *c, const struct an_cfg *cfg, const struct an_edge *ed)
{
	const struct an_block *fb = &cfg->block[ed->from], *tb = &cfg->block[ed->to];
	uint32_t li = fb->first + fb->n - 1;
	uint64_t last = an_cfg_addr(cfg, li);

	switch (ed->kind) {
	case AN_EDGE_TAKEN:
	case AN_EDGE_JTAB:
		return (double)mach_truth_edge_count(c->t, last + c->bias, tb->addr + c->bias);
	case AN_EDGE_FALL:
		if (is_cond_branch(&cfg->insn[li]))
			return (double)mach_truth_edge_count(c->t, last + c->bias,
							     last + 4 + c->bias);
		return (double)texec(c, last);
	case AN_EDGE_CALLRET:
		return (double)texec(c, last);
	default:
		return -1;
	}
}

struct pp {
	const struct an_proc *p;
	double samples;
};

static int cmp_pp(const void *a, const void *b)
{
	const struct pp *x = a, *y = b;

	return (x->samples < y->samples) - (x->samples > y->samples);
}

static int grade_proc(struct ctx *c, struct an_fi_image *im, const struct an_proc *p,
		      const struct an_fi_opts *o, struct ev_eval_acc *acc, FILE *detail,
		      const char *tag, bool fig10, struct ax_error *err)
{
	struct an_fi_opts ov = *o;
	struct an_fi_proc *fp, *fx;
	struct ev_eval_point pt = { 0 };
	double P = o->period[AN_EV_CYCLES];
	int ret;

	ov.exec_override = NULL;
	ret = an_fi_analyze(im, p, &ov, &fp, err);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		const struct an_fi_insn *in = &fp->insn[i];
		const struct mach_truth_pc *r = mach_truth_find(c->t, in->pc + c->bias);
		double s = (double)in->samples[AN_EV_CYCLES], ex = r ? (double)r->exec : 0;
		double est = in->cp.f * P;

		acc->unexplained += in->cp.unexplained;
		if (!s)
			continue;
		acc->samples += s;
		ev_eval_hist_add(&acc->insn, est, ex, s, in->conf <= AN_CONF_LOW);
		if (r && r->exec) {
			double st = (double)r->stall[MACH_STALL_STATIC] / (double)r->exec;

			acc->m_total += s;
			if (fabs(st - in->sched.m) < 0.5)
				acc->m_agree += s;
			for (int k = 1; k < MACH_STALL_NR; k++) {
				uint32_t causes = causes_of(k);

				acc->dyn_true += (double)r->stall[k];
				acc->dyn_true_cause[k] += (double)r->stall[k];
				if (in->cp.cand & causes) {
					acc->dyn_kept += (double)r->stall[k];
					acc->dyn_kept_cause[k] += (double)r->stall[k];
				}
			}
		}
		if (detail)
			fprintf(detail,
				"%s,%s,0x%" PRIx64 ",%u,%u,%.0f,%u,%.1f,%.0f,%.4f,%s,%s,%" PRIu64
				",%.3f,%" PRIu64 "\n",
				tag, fp->name, in->pc, in->block, fp->cfg->block[in->block].cls, s,
				in->sched.m, est, ex, ex > 0 ? est / ex - 1 : 0,
				an_conf_name(in->conf), an_fhow_name(in->how),
				r ? r->stall[MACH_STALL_STATIC] : 0, in->cp.unexplained,
				r ? r->head : 0);
	}
	for (uint32_t e = 0; e < fp->cfg->nedges; e++) {
		const struct an_edge *ed = &fp->cfg->edge[e];
		double tr;

		if (ed->from >= fp->cfg->nblocks || ed->to >= fp->cfg->nblocks)
			continue;
		tr = edge_truth(c, fp->cfg, ed);
		if (tr <= 0)
			continue;
		ev_eval_hist_add(&acc->edge, fp->edge_f[e] > 0 ? fp->edge_f[e] * P : 0, tr, tr,
				 fp->cls[ed->cls].conf <= AN_CONF_LOW);
	}
	if (fig10) {
		/* §6.2: culprits with measured execution counts, to isolate them from §6.1. */
		ov.exec_override = override;
		ov.override_priv = c;
		ret = an_fi_analyze(im, p, &ov, &fx, err);
		if (ret) {
			an_fi_proc_free(fp);
			return ret;
		}
		snprintf(pt.name, sizeof(pt.name), "%.80s:%.200s", tag, fx->name);
		for (uint32_t i = 0; i < fx->ninsns; i++) {
			const struct an_fi_insn *in = &fx->insn[i];
			const struct mach_truth_pc *r = mach_truth_find(c->t, in->pc + c->bias);

			pt.lo += in->cp.lo[AN_CAUSE_ICACHE] * P;
			pt.hi += in->cp.hi[AN_CAUSE_ICACHE] * P;
			pt.samples += (double)in->samples[AN_EV_CYCLES];
			if (o->period[AN_EV_IMISS] > 0)
				pt.misses +=
					(double)in->samples[AN_EV_IMISS] * o->period[AN_EV_IMISS];
			else if (r)
				pt.misses += (double)r->ev[MACH_TEV_IMISS];
			if (r)
				pt.true_icache += (double)r->stall[MACH_STALL_IMISS];
		}
		an_fi_proc_free(fx);
		ret = add_point(acc, &pt);
	}
	an_fi_proc_free(fp);
	return ret;
}

/* The truth's exact event counts as the image's event samples (period 1). */
static int truth_events(struct an_fi_image *im, const struct mach_truth *t, uint64_t bias,
			struct an_fi_opts *o)
{
	static const struct {
		unsigned int ev, tev;
	} map[] = {
		{ AN_EV_IMISS, MACH_TEV_IMISS },       { AN_EV_DMISS, MACH_TEV_DMISS },
		{ AN_EV_DTBMISS, MACH_TEV_DTBMISS },   { AN_EV_ITBMISS, MACH_TEV_ITBMISS },
		{ AN_EV_BRANCHMP, MACH_TEV_BRANCHMP },
	};
	struct an_count *v = malloc((t->npcs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t m = 0; m < sizeof(map) / sizeof(map[0]); m++) {
		size_t n = 0;
		int ret;

		for (size_t k = 0; k < t->npcs; k++)
			if (t->pcs[k].pc >= bias && t->pcs[k].ev[map[m].tev])
				v[n++] = (struct an_count){ t->pcs[k].pc - bias,
							    t->pcs[k].ev[map[m].tev] };
		ret = an_fi_set_samples(im, map[m].ev, v, n);
		if (ret) {
			free(v);
			return ret;
		}
		o->period[map[m].ev] = 1;
	}
	free(v);
	return 0;
}

int ev_eval_image(const char *image, const struct pdb_prof *prof, const struct mach_truth *t,
		  uint64_t offset_bias, const struct an_fi_opts *o, unsigned int flags,
		  struct ev_eval_acc *acc, FILE *detail, const char *tag, struct ax_error *err)
{
	struct ctx c = { .t = t, .bias = offset_bias };
	struct an_fi_opts oe = *o;
	struct an_fi_image *im;
	struct pp *v = NULL;
	size_t n = 0, k;
	double total = 0, cum = 0;
	struct timespec t0, t1;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = an_fi_open(image, &im, err);
	if (ret)
		return ret;
	ret = tl_fi_set_profile(im, prof);
	if (ret) {
		ax_fail(err, ret, "%s: cannot take the profile: %s", image, strerror(-ret));
		goto out;
	}
	if (flags & EV_EVAL_TRUTH_EVENTS) {
		ret = truth_events(im, t, offset_bias, &oe);
		if (ret) {
			ax_fail(err, ret, "out of memory");
			goto out;
		}
		o = &oe;
		acc->truth_events = true;
	}
	acc->imiss_sampled = o->period[AN_EV_IMISS] > 0;
	acc->samples_image += (double)an_fi_samples_in(im, AN_EV_CYCLES, 0, UINT64_MAX);
	v = calloc(an_fi_procs(im)->n + 1, sizeof(*v));
	if (!v) {
		ret = ax_fail(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < an_fi_procs(im)->n; k++) {
		const struct an_proc *p = &an_fi_procs(im)->v[k];
		double s = (double)an_fi_samples_in(im, AN_EV_CYCLES, p->start, p->end);

		if (s > 0) {
			v[n++] = (struct pp){ p, s };
			total += s;
		}
	}
	if (n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(v, n, sizeof(*v), cmp_pp);
	for (k = 0; k < n; k++) {
		/* Figure 10 takes "the procedures accounting for 99.9% of the execution time". */
		bool fig10 = cum < 0.999 * total;

		cum += v[k].samples;
		ret = grade_proc(&c, im, v[k].p, o, acc, detail, tag, fig10, NULL);
		if (ret == -ENOMEM) {
			ax_fail(err, ret, "out of memory");
			goto out;
		}
		if (ret) {
			acc->procs_failed++;
			ret = 0;
			continue;
		}
		acc->procs++;
	}
out:
	free(v);
	an_fi_close(im);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	acc->seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return ret;
}

int ev_eval_infer_bias(const struct pdb_prof *prof, const struct mach_truth *t, double period,
		       uint64_t *bias)
{
	struct pdb_count *v = NULL, top;
	size_t n = 0, k;
	uint64_t total = 0, best_bias = 0;
	double best = -1;
	bool found = false;
	int ret;

	*bias = 0;
	ret = pdb_prof_samples(prof, PDB_EV_CYCLES, &v, &n);
	if (ret)
		return ret;
	if (!n) {
		free(v);
		return -ENODATA;
	}
	top = v[0];
	for (k = 0; k < n; k++) {
		total += v[k].count;
		if (v[k].count > top.count)
			top = v[k];
	}
	for (size_t i = 0; i < t->npcs; i++) {
		uint64_t b = t->pcs[i].pc - top.offset, hit = 0;
		double miss = 0;

		if (t->pcs[i].pc < top.offset || b % 8192 || !t->pcs[i].head)
			continue;
		/* Every sample must fall on an instruction the run executed... */
		for (k = 0; k < n; k++) {
			const struct mach_truth_pc *r = mach_truth_find(t, v[k].offset + b);

			if (r && r->exec)
				hit += v[k].count;
			/* ... and the counts should follow the head-of-issue cycles. */
			miss += fabs((double)v[k].count - (r ? (double)r->head / period : 0));
		}
		if (hit * 100 < total * 99)
			continue;
		if (!found || miss < best) {
			best = miss;
			best_bias = b;
			found = true;
		}
	}
	free(v);
	if (!found)
		return -ENOENT;
	*bias = best_bias;
	return 0;
}
