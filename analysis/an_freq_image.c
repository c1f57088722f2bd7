/* analysis/an_freq_image.c - DCPI's dynamic analysis of an image: frequency, CPI, stalls per procedure. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_freq_image.h"

struct an_fi_image {
	struct img *elf;
	struct an_procs *procs;
	struct an_sched_model *model;
	struct an_count *ev[AN_EV_NR];
	size_t nev[AN_EV_NR];
};

int an_fi_open(const char *path, struct an_fi_image **out, struct ax_error *err)
{
	struct an_fi_image *im;
	int ret;

	*out = NULL;
	im = calloc(1, sizeof(*im));
	if (!im)
		return ax_fail(err, -ENOMEM, "%s: out of memory", path);
	ret = img_open(path, 0, &im->elf, err);
	if (ret)
		goto fail;
	ret = an_procs_find(im->elf, &im->procs, err);
	if (ret)
		goto fail;
	ret = an_sched_model_new(&im->model);
	if (ret) {
		ax_fail(err, ret, "%s: cannot build the EV5 model: %s", path, strerror(-ret));
		goto fail;
	}
	*out = im;
	return 0;
fail:
	an_fi_close(im);
	return ret;
}

void an_fi_close(struct an_fi_image *im)
{
	if (!im)
		return;
	for (unsigned int e = 0; e < AN_EV_NR; e++)
		free(im->ev[e]);
	an_sched_model_free(im->model);
	if (im->procs)
		an_procs_free(im->procs);
	if (im->elf)
		img_close(im->elf);
	free(im);
}

const struct img *an_fi_elf(const struct an_fi_image *im)
{
	return im->elf;
}

const struct an_procs *an_fi_procs(const struct an_fi_image *im)
{
	return im->procs;
}

int an_fi_set_samples(struct an_fi_image *im, unsigned int ev, const struct an_count *v, size_t n)
{
	struct an_count *c = NULL;

	if (ev >= AN_EV_NR || (n && !v))
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (v[i].offset <= v[i - 1].offset)
			return -EINVAL;
	if (n) {
		c = malloc(n * sizeof(*c));
		if (!c)
			return -ENOMEM;
		memcpy(c, v, n * sizeof(*c));
	}
	free(im->ev[ev]);
	im->ev[ev] = c;
	im->nev[ev] = n;
	return 0;
}

/* Index of the first sample at offset >= lo. */
static size_t lower(const struct an_fi_image *im, unsigned int ev, uint64_t lo)
{
	size_t a = 0, b = im->nev[ev];

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (im->ev[ev][mid].offset < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

uint64_t an_fi_samples_in(const struct an_fi_image *im, unsigned int ev, uint64_t lo, uint64_t hi)
{
	uint64_t s = 0;

	if (ev >= AN_EV_NR)
		return 0;
	for (size_t k = lower(im, ev, lo); k < im->nev[ev] && im->ev[ev][k].offset < hi; k++)
		s += im->ev[ev][k].count;
	return s;
}

/* ------------------------------------------------------------------------------------------ */
/* One procedure. */

void an_fi_proc_free(struct an_fi_proc *fp)
{
	if (!fp)
		return;
	if (fp->cfg)
		an_cfg_free(fp->cfg);
	free(fp->insn);
	free(fp->cls);
	free(fp->edge_f);
	free(fp->callee);
	free(fp);
}

/* Does an_sched's stall reason make M_i depend on the culprit's latency or resource (§6.1)? */
static bool reason_is_dependence(unsigned int reason)
{
	return reason == AN_STALL_DEP || reason == AN_STALL_LDST || reason == AN_STALL_UNIT;
}

/*
 * Is block b entered by falling through from the block before it, among other predecessors?
 * (With that block as its only predecessor an_sched_cfg() continues its schedule, so M_i are
 * right; with several it starts afresh, and the first fetch group's M_i depend on the path.)
 */
static bool falls_into(const struct an_cfg *cfg, uint32_t b)
{
	const struct an_block *bl = &cfg->block[b];

	if (bl->npred < 2 && !(bl->flags & AN_BLK_ENTRY))
		return false;
	for (uint32_t k = bl->pred; k < bl->pred + bl->npred; k++) {
		const struct an_edge *ed = &cfg->edge[cfg->pred[k]];

		if (ed->kind == AN_EDGE_FALL && ed->from + 1 == b)
			return true;
	}
	return false;
}

/*
 * Ours (issue 15): once a first estimate is known, a block whose fall-through in-edge carries
 * less than RARE_FALL of its executions (a loop head entered by its back edge, a procedure body
 * entered past its GP prologue by local calls) starts a fresh fetch block on nearly every
 * execution, so its first group's M_i are those of the fresh schedule: not path dependent.
 */
#define RARE_FALL 0.10 /* [U] */

static bool rarely_falls_into(const struct an_fi_proc *fp, uint32_t b)
{
	const struct an_cfg *cfg = fp->cfg;
	const struct an_block *bl = &cfg->block[b];
	const struct an_fest *c = &fp->cls[bl->cls];

	if (c->how == AN_FHOW_NONE || !(c->f > 0))
		return false; /* no estimate yet (the first pass) */
	for (uint32_t k = bl->pred; k < bl->pred + bl->npred; k++) {
		uint32_t e = cfg->pred[k];
		const struct an_edge *ed = &cfg->edge[e];

		if (ed->kind == AN_EDGE_FALL && ed->from + 1 == b)
			return fp->edge_f[e] >= 0 && fp->edge_f[e] < RARE_FALL * c->f;
	}
	return false;
}

/*
 * fresh: NULL, or the schedule before an_sched_cfg_via (blocks started afresh); an issue point
 * whose cross-block M_i is larger keeps its fresh M_i for the estimate (the latency the chosen
 * predecessor leaves in flight may be absorbed by a dynamic stall there, and a too large M_i
 * makes the ratio, hence F, too small; a too small one only makes the point look stalled).
 */
static int build_fg(struct an_fi_proc *fp, const struct an_sched_insn *fresh,
		    struct an_fg_insn **fin, struct an_fg_block **fbl, struct an_fg_edge **fed,
		    struct an_fg *g)
{
	const struct an_cfg *cfg = fp->cfg;
	uint32_t nb = cfg->nblocks, ne = 0, i, b, e;
	bool missing = cfg->flags & AN_CFG_MISSING_EDGES;

	*fin = calloc((size_t)cfg->ninsns + 1, sizeof(**fin));
	*fbl = calloc((size_t)nb + 2, sizeof(**fbl));
	*fed = calloc((size_t)cfg->nedges + 1, sizeof(**fed));
	if (!*fin || !*fbl || !*fed)
		return -ENOMEM;
	for (i = 0; i < cfg->ninsns; i++) {
		const struct an_fi_insn *in = &fp->insn[i];
		struct an_fg_insn *f = &(*fin)[i];

		const struct an_sched_insn *sc = &in->sched;
		int32_t culprit = in->static_culprit;

		if (fresh && fresh[i].m < sc->m) {
			sc = &fresh[i];
			culprit = sc->culprit >= 0 ? (int32_t)(cfg->block[in->block].first +
							       (uint32_t)sc->culprit) :
						     -1;
		}
		f->pc = in->pc;
		f->samples = in->samples[AN_EV_CYCLES];
		f->branchmp = in->samples[AN_EV_BRANCHMP]; /* kept by mark_clean() when a cause */
		f->m = sc->m;
		f->dep = AN_NONE;
		if (reason_is_dependence(sc->reason) && culprit >= 0 && (uint32_t)culprit < i &&
		    (uint32_t)culprit >= cfg->block[in->block].first)
			f->dep = (uint32_t)culprit;
	}
	for (b = 0; b < nb; b++) {
		const struct an_block *bl = &cfg->block[b];

		/*
		 * A block that starts inside a 16-byte fetch block (INT16) and is entered by
		 * falling through can issue its first group with the end of the previous block
		 * (EV5-MODEL.md: only a new fetch block or a redirect starts a new cycle), so the
		 * M_i of its first fetch block depend on that block.
		 */
		if (bl->addr % 16 && falls_into(cfg, b) && !rarely_falls_into(fp, b))
			for (i = bl->first; i < bl->first + bl->n; i++)
				if (an_cfg_addr(cfg, i) / 16 == bl->addr / 16)
					(*fin)[i].flags |= AN_FG_M_UNSURE;
		(*fbl)[b] = (struct an_fg_block){ .first = bl->first, .n = bl->n, .cls = bl->cls };
		/* With missing edges any block may be the target of the unresolved jump. */
		if (missing || (bl->flags & AN_BLK_UNREACHABLE))
			(*fbl)[b].flags |= AN_FG_NO_IN;
	}
	/* The virtual ENTRY and EXIT nodes, each with a class of its own. */
	(*fbl)[nb] = (struct an_fg_block){
		.first = 0, .n = 0, .cls = cfg->nclasses, .flags = AN_FG_NO_IN
	};
	(*fbl)[nb + 1] = (struct an_fg_block){
		.first = 0, .n = 0, .cls = cfg->nclasses + 1, .flags = AN_FG_NO_OUT
	};
	for (e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		if (ed->kind == AN_EDGE_NORETURN)
			continue; /* artificial, never runs: not a flow */
		(*fed)[ne++] = (struct an_fg_edge){
			.from = ed->from == AN_NODE_ENTRY ? nb : ed->from,
			.to = ed->to == AN_NODE_EXIT ? nb + 1 : ed->to,
			.cls = ed->cls,
		};
	}
	*g = (struct an_fg){ .insns = *fin,
			     .ninsns = cfg->ninsns,
			     .blocks = *fbl,
			     .nblocks = nb + 2,
			     .edges = *fed,
			     .nedges = ne,
			     .nclasses = cfg->nclasses + 2 };
	return 0;
}

/*
 * The callee's result (an_culprit.h, AN_CAUSE_CALLEE) where the callee is known: a BSR to a
 * straight-line leaf, no branch, jump, call or CALL_PAL before its first RET (Square::area,
 * callargs' ca_callee). Its block scheduled alone (an_sched_block: as it runs after the call's
 * redirect, nothing in flight from the caller counts here) gives, per register file, the most
 * cycles a result can still be in flight when the RET issues: over the last writer of each
 * register, the cycle the schedule has its result ready (an_sched_insn.ready) minus the RET's
 * issue cycle. Loads count their hit latency: a miss is the D-cache's cause.
 * Anything else stays unknown: the generic bound.
 */
#define LEAF_MAX 64 /* ours: longer leaves keep the generic bound */

static void leaf_wait(const struct an_fi_image *im, uint64_t target, struct an_cp_callee *out)
{
	const struct an_proc *p = an_procs_at(im->procs, target);
	struct axp_insn d[LEAF_MAX];
	struct an_sched_insn s[LEAF_MAX];
	bool seen[64] = { false };
	uint32_t n = 0, w[2] = { 0, 0 };

	memset(out, 0, sizeof(*out));
	if (!p || target % 4)
		return;
	for (uint64_t a = target; a < p->end && n < LEAF_MAX; a += 4) {
		unsigned int u;

		axp_decode(an_proc_word(p, a), &d[n]);
		u = axp_info(&d[n])->unit;
		if (d[n++].op == AXP_OP_RET)
			break;
		if (d[n - 1].op == AXP_OP_INVALID || u == AXP_U_IBR || u == AXP_U_FBR ||
		    u == AXP_U_JSR || u == AXP_U_PAL)
			return;
	}
	if (!n || d[n - 1].op != AXP_OP_RET || an_sched_block(im->model, d, target, n, s))
		return;
	for (uint32_t k = n - 1; k-- > 0;) {
		uint32_t f = axp_info(&d[k])->flags, ret_at = s[n - 1].cycle;
		unsigned int r;

		if (f & AXP_F_DA)
			r = d[k].ra + ((f & AXP_F_FA) ? 32 : 0);
		else if (f & AXP_F_DC)
			r = d[k].rc + ((f & AXP_F_FC) ? 32 : 0);
		else
			continue;
		if ((r & 31) == 31 || seen[r])
			continue;
		seen[r] = true;
		out->written |= 1ull << r;
		if (s[k].ready > ret_at && s[k].ready - ret_at > w[r >= 32])
			w[r >= 32] = s[k].ready - ret_at;
	}
	out->wait[0] = (uint8_t)(w[0] < UINT8_MAX ? w[0] : UINT8_MAX);
	out->wait[1] = (uint8_t)(w[1] < UINT8_MAX ? w[1] : UINT8_MAX);
	out->known = true;
}

/* fp->callee: leaf_wait() of every BSR; 0 or -ENOMEM. */
static int call_waits(const struct an_fi_image *im, struct an_fi_proc *fp)
{
	fp->callee = calloc((size_t)fp->ninsns + 1, sizeof(*fp->callee));
	if (!fp->callee)
		return -ENOMEM;
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		const struct axp_insn *d = &fp->cfg->insn[i];

		if (d->op == AXP_OP_BSR)
			leaf_wait(im, an_cfg_addr(fp->cfg, i) + 4 + 4 * (int64_t)d->disp,
				  &fp->callee[i]);
	}
	return 0;
}

/* The culprit analysis' view of the procedure (an_culprit.h). */
struct cpbuf {
	struct an_cp_insn *ci;
	struct an_cp_block *cb;
	struct an_cp_edge *ce;
	struct an_cp_proc pr;
};

static void cp_free(struct cpbuf *c)
{
	free(c->ci);
	free(c->cb);
	free(c->ce);
}

/* prelim: before the frequencies are known (blocks at 0, edges unknown: no edge is "rare"). */
static int cp_build(const struct an_fi_proc *fp, const struct an_fi_opts *o, bool prelim,
		    struct cpbuf *c)
{
	const struct an_cfg *cfg = fp->cfg;
	uint32_t i, b, e, ne = 0;
	bool missing = cfg->flags & AN_CFG_MISSING_EDGES;

	c->ci = calloc((size_t)cfg->ninsns + 1, sizeof(*c->ci));
	c->cb = calloc((size_t)cfg->nblocks + 1, sizeof(*c->cb));
	c->ce = calloc((size_t)cfg->nedges + 1, sizeof(*c->ce));
	if (!c->ci || !c->cb || !c->ce) {
		cp_free(c);
		return -ENOMEM;
	}
	for (b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];
		double f = 0;

		if (!prelim && fp->cls[bl->cls].how != AN_FHOW_NONE)
			f = fp->cls[bl->cls].f;
		if (!prelim && o->exec_override) {
			double x = o->exec_override(o->override_priv, bl->addr);

			if (x >= 0)
				f = x / o->period[AN_EV_CYCLES];
		}
		c->cb[b] = (struct an_cp_block){ .first = bl->first, .n = bl->n, .f = f };
		if (bl->flags & AN_BLK_ENTRY)
			c->cb[b].flags |= AN_CP_ENTRY;
		if (missing || (bl->flags & AN_BLK_UNREACHABLE))
			c->cb[b].flags |= AN_CP_UNKNOWN_PREDS;
	}
	for (i = 0; i < cfg->ninsns; i++) {
		c->ci[i].pc = fp->insn[i].pc;
		c->ci[i].d = cfg->insn[i];
		c->ci[i].block = cfg->blk_of[i];
		c->ci[i].m = fp->insn[i].sched.m;
		memcpy(c->ci[i].ev, fp->insn[i].samples, sizeof(c->ci[i].ev));
	}
	for (e = 0; e < cfg->nedges; e++) {
		const struct an_edge *ed = &cfg->edge[e];

		if (ed->from >= cfg->nblocks || ed->to >= cfg->nblocks)
			continue;
		c->ce[ne++] = (struct an_cp_edge){ .from = ed->from,
						   .to = ed->to,
						   .f = prelim ? -1 : fp->edge_f[e] };
	}
	c->pr = (struct an_cp_proc){ .insns = c->ci,
				     .ninsns = cfg->ninsns,
				     .blocks = c->cb,
				     .nblocks = cfg->nblocks,
				     .edges = c->ce,
				     .nedges = ne,
				     .callee = fp->callee };
	memcpy(c->pr.period, o->period, sizeof(c->pr.period));
	return 0;
}

static int explain(struct an_fi_proc *fp, const struct an_fi_opts *o)
{
	struct an_cp_result *res = calloc((size_t)fp->ninsns + 1, sizeof(*res));
	struct cpbuf c;
	int ret;

	if (!res)
		return -ENOMEM;
	ret = cp_build(fp, o, false, &c);
	if (ret) {
		free(res);
		return ret;
	}
	ret = an_culprit_explain(&c.pr, o->cp, res);
	if (!ret)
		for (uint32_t i = 0; i < fp->ninsns; i++)
			fp->insn[i].cp = res[i];
	cp_free(&c);
	free(res);
	return ret;
}

/*
 * Is a mispredict the main stall the rules leave for point i (bmp_correct in an_freq.c)? The
 * branch is a candidate, and no sample of another candidate's event was taken where the 21164
 * delivers it (an_culprit.c): IMISS/ITBMISS at i itself, DMISS/DTBMISS at the load the rules
 * name as the culprit (a candidate without a known culprit: not main). Ours (issue 15 cause A):
 * hashmap's I-missing loop head, 902 IMISS samples, lost 40% to BRANCHMP samples alone.
 */
static bool branch_main(const struct an_cp_proc *pr, const struct an_cp_params *cp, uint32_t i)
{
	static const unsigned int other[] = { AN_CAUSE_ICACHE, AN_CAUSE_ITB, AN_CAUSE_DCACHE,
					      AN_CAUSE_DTB };
	static const unsigned int ev[] = { AN_EV_IMISS, AN_EV_ITBMISS, AN_EV_DMISS, AN_EV_DTBMISS };
	uint32_t cand = 0, culprit[AN_CAUSE_NR];

	if (an_culprit_candidates(pr, cp, i, &cand, culprit) || !(cand & (1u << AN_CAUSE_BRANCH)))
		return false;
	for (unsigned int k = 0; k < 4; k++) {
		uint32_t at = k < 2 ? i : culprit[other[k]];

		if (!(cand & (1u << other[k])))
			continue;
		if (at >= pr->ninsns || pr->insns[at].ev[ev[k]])
			return false;
	}
	return (cand & ~((1u << AN_CAUSE_BRANCH) | (1u << AN_CAUSE_ICACHE) | (1u << AN_CAUSE_ITB) |
			 (1u << AN_CAUSE_DCACHE) | (1u << AN_CAUSE_DTB))) == 0;
}

/* Issue points no dynamic stall cause applies to (for the confidence of their class), and
 * the BRANCHMP samples of those a mispredict mainly stalls (an_fg_insn.branchmp). */
static int mark_clean(const struct an_fi_proc *fp, const struct an_fi_opts *o,
		      struct an_fg_insn *fin)
{
	uint32_t *cand = calloc((size_t)fp->ninsns + 1, sizeof(*cand));
	struct cpbuf c;
	int ret;

	if (!cand)
		return -ENOMEM;
	ret = cp_build(fp, o, true, &c);
	if (ret) {
		free(cand);
		return ret;
	}
	ret = an_culprit_candidates_all(&c.pr, o->cp, cand);
	for (uint32_t i = 0; !ret && i < fp->ninsns; i++) {
		if (!cand[i])
			fin[i].flags |= AN_FG_CLEAN;
		if (fin[i].branchmp && fin[i].m && !branch_main(&c.pr, o->cp, i))
			fin[i].branchmp = 0;
	}
	cp_free(&c);
	free(cand);
	return ret;
}

/*
 * Cross-block latencies (issue 15 item 3). DCPI SOSP'97 §6.1: "When a block has multiple
 * predecessors, there is no one static code schedule for computing Mi. In this case, we
 * currently ignore all preceding blocks", and names the error that makes (a static stall taken
 * for a dynamic one). Ours: once a first estimate gives the in-edges' frequencies, a block with
 * several predecessors one of which carries at least VIA_SHARE of its executions (a hot loop's
 * back edge, the common path into a join) continues that predecessor's schedule
 * (an_sched_cfg_via): a loop-carried FP chain or a divide feeding the next block becomes a
 * static stall with its culprit, and its issue points' M_i are those of nearly every execution.
 * The other paths' executions differ by at most their share. Fills via[] and returns how many
 * blocks got one.
 */
#define VIA_SHARE 0.90 /* [U] */

static uint32_t choose_via(const struct an_fi_proc *fp, uint32_t *via)
{
	const struct an_cfg *cfg = fp->cfg;
	uint32_t n = 0;

	for (uint32_t b = 0; b < cfg->nblocks; b++) {
		const struct an_block *bl = &cfg->block[b];
		uint32_t best = UINT32_MAX, pred;
		double sum = 0, top = 0;
		bool ok = true;

		via[b] = UINT32_MAX;
		if (bl->npred < 2 || an_sched_continues(cfg, b, &pred) ||
		    (cfg->flags & AN_CFG_MISSING_EDGES) || (bl->flags & AN_BLK_UNREACHABLE))
			continue;
		for (uint32_t k = bl->pred; k < bl->pred + bl->npred && ok; k++) {
			uint32_t e = cfg->pred[k];
			const struct an_edge *ed = &cfg->edge[e];
			double f = fp->edge_f[e];

			if (ed->from != AN_NODE_ENTRY &&
			    (cfg->block[ed->from].flags & AN_BLK_UNREACHABLE))
				continue;
			ok = f >= 0;
			sum += f;
			if (f > top && ed->from != AN_NODE_ENTRY && ed->kind != AN_EDGE_CALLRET) {
				top = f;
				best = e;
			}
		}
		if (!ok || best == UINT32_MAX || !(sum > 0) || top < VIA_SHARE * sum)
			continue;
		via[b] = best;
		n++;
	}
	return n;
}

/* Does a block marked M_UNSURE by the first pass lose the mark in a second one? */
static bool any_rare_fall(const struct an_fi_proc *fp)
{
	const struct an_cfg *cfg = fp->cfg;

	for (uint32_t b = 0; b < cfg->nblocks; b++)
		if (cfg->block[b].addr % 16 && falls_into(cfg, b) && rarely_falls_into(fp, b))
			return true;
	return false;
}

/* Fill fp->insn[i].sched and static_culprit from sched[]. */
static void set_sched(struct an_fi_proc *fp, const struct an_sched_insn *sched)
{
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		struct an_fi_insn *in = &fp->insn[i];
		const struct an_block *bl = &fp->cfg->block[in->block];

		in->sched = sched[i];
		in->static_culprit = sched[i].culprit >= 0 && (uint32_t)sched[i].culprit < bl->n ?
					     (int32_t)(bl->first + (uint32_t)sched[i].culprit) :
					     -1;
	}
}

/* §6.1 on the procedure as scheduled: the class estimates, then every edge's. */
static int estimate(struct an_fi_proc *fp, const struct an_fi_opts *o,
		    const struct an_sched_insn *fresh)
{
	struct an_fg_insn *fin = NULL;
	struct an_fg_block *fbl = NULL;
	struct an_fg_edge *fed = NULL;
	struct an_fg g;
	int ret;

	ret = build_fg(fp, fresh, &fin, &fbl, &fed, &g);
	if (!ret)
		ret = mark_clean(fp, o, fin);
	if (!ret && o->period[AN_EV_BRANCHMP] > 0)
		g.branchmp_period = o->period[AN_EV_BRANCHMP] / o->period[AN_EV_CYCLES];
	if (!ret) {
		memset(fp->cls, 0, ((size_t)fp->cfg->nclasses + 2) * sizeof(*fp->cls));
		ret = an_freq_estimate(&g, o->freq, fp->cls);
	}
	for (uint32_t e = 0; !ret && e < fp->cfg->nedges; e++) {
		const struct an_edge *ed = &fp->cfg->edge[e];

		fp->edge_f[e] =
			ed->kind == AN_EDGE_NORETURN || fp->cls[ed->cls].how == AN_FHOW_NONE ?
				(ed->kind == AN_EDGE_NORETURN ? 0 : -1) :
				fp->cls[ed->cls].f;
	}
	free(fin);
	free(fbl);
	free(fed);
	return ret;
}

int an_fi_analyze(struct an_fi_image *im, const struct an_proc *p, const struct an_fi_opts *o,
		  struct an_fi_proc **out, struct ax_error *err)
{
	struct an_sched_insn *sched = NULL, *fresh = NULL;
	struct an_fi_proc *fp;
	uint32_t *via = NULL;
	size_t k[AN_EV_NR];
	uint32_t i;
	int ret;

	*out = NULL;
	if (!(o->period[AN_EV_CYCLES] > 0))
		return ax_fail(err, -EINVAL, "no CYCLES sampling period");
	fp = calloc(1, sizeof(*fp));
	if (!fp)
		return ax_fail(err, -ENOMEM, "out of memory");
	fp->proc = p;
	an_proc_name(p, fp->name, sizeof(fp->name));
	memcpy(fp->period, o->period, sizeof(fp->period));
	ret = an_cfg_build(im->procs, p, &fp->cfg, err);
	if (ret)
		goto fail;
	ret = an_cfg_classes(fp->cfg);
	if (ret)
		goto nomem;
	fp->ninsns = fp->cfg->ninsns;
	fp->insn = calloc((size_t)fp->ninsns + 1, sizeof(*fp->insn));
	sched = calloc((size_t)fp->ninsns + 1, sizeof(*sched));
	fp->cls = calloc((size_t)fp->cfg->nclasses + 2, sizeof(*fp->cls));
	fp->edge_f = calloc((size_t)fp->cfg->nedges + 1, sizeof(*fp->edge_f));
	via = calloc((size_t)fp->cfg->nblocks + 1, sizeof(*via));
	fresh = calloc((size_t)fp->ninsns + 1, sizeof(*fresh));
	if (!fp->insn || !sched || !fp->cls || !fp->edge_f || !via || !fresh)
		goto nomem;
	ret = an_sched_cfg(im->model, fp->cfg, sched);
	if (ret) {
		ax_fail(err, ret, "%s: cannot schedule: %s", fp->name, strerror(-ret));
		goto fail;
	}
	if (call_waits(im, fp))
		goto nomem;
	for (unsigned int ev = 0; ev < AN_EV_NR; ev++)
		k[ev] = lower(im, ev, fp->cfg->start);
	for (i = 0; i < fp->ninsns; i++) {
		struct an_fi_insn *in = &fp->insn[i];

		in->pc = an_cfg_addr(fp->cfg, i);
		in->word = fp->cfg->insn[i].word;
		in->block = fp->cfg->blk_of[i];
		for (unsigned int ev = 0; ev < AN_EV_NR; ev++) {
			while (k[ev] < im->nev[ev] && im->ev[ev][k[ev]].offset < in->pc)
				k[ev]++;
			if (k[ev] < im->nev[ev] && im->ev[ev][k[ev]].offset == in->pc)
				in->samples[ev] = im->ev[ev][k[ev]].count;
			fp->samples[ev] += in->samples[ev];
		}
	}
	set_sched(fp, sched);

	/* §6.1: frequencies; again when the cross-block schedule (choose_via) changed M_i. */
	ret = estimate(fp, o, NULL);
	if (!ret && choose_via(fp, via)) {
		memcpy(fresh, sched, (size_t)fp->ninsns * sizeof(*sched));
		ret = an_sched_cfg_via(im->model, fp->cfg, via, sched);
		if (!ret) {
			set_sched(fp, sched);
			ret = estimate(fp, o, fresh);
		}
	} else if (!ret && any_rare_fall(fp)) {
		ret = estimate(fp, o, NULL); /* the M_UNSURE marks change (rarely_falls_into) */
	}
	if (ret == -ENOMEM)
		goto nomem;
	if (ret) {
		ax_fail(err, ret, "%s: frequency estimation failed: %s", fp->name, strerror(-ret));
		goto fail;
	}
	for (i = 0; i < fp->ninsns; i++) {
		const struct an_fest *c = &fp->cls[fp->cfg->block[fp->insn[i].block].cls];

		fp->insn[i].conf = c->conf;
		fp->insn[i].how = c->how;
		/* a fallback target's in-edges are guessed (an_cfg.h): never high confidence */
		if ((fp->cfg->block[fp->insn[i].block].flags & AN_BLK_GUESSED) &&
		    fp->insn[i].conf > AN_CONF_MEDIUM)
			fp->insn[i].conf = AN_CONF_MEDIUM;
	}

	/* §6.2: culprits. */
	ret = explain(fp, o);
	if (ret) {
		ax_fail(err, ret, "%s: culprit analysis failed: %s", fp->name, strerror(-ret));
		goto fail;
	}
	free(via);
	free(fresh);
	free(sched);
	*out = fp;
	return 0;
nomem:
	ret = ax_fail(err, -ENOMEM, "out of memory");
fail:
	free(via);
	free(fresh);
	free(sched);
	an_fi_proc_free(fp);
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Summaries. */

void an_stall_summary(const struct an_fi_proc *fp, struct an_stall_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->period = fp->period[AN_EV_CYCLES];
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		const struct an_fi_insn *in = &fp->insn[i];
		double s = (double)in->samples[AN_EV_CYCLES], f = in->cp.f, base, st;

		out->insns_exec += f * out->period;
		if (!s)
			continue;
		out->samples += s;
		/* The schedule's own split of M_i: stall cycles (bubbles) and the rest. */
		st = f * (in->sched.stall < in->sched.m ? in->sched.stall : in->sched.m);
		base = f * in->sched.m - st;
		if (base > s)
			base = s;
		if (st > s - base)
			st = s - base;
		out->exec += base;
		out->stat += st;
		out->dyn += s - base - st;
		for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
			out->lo[c] += in->cp.lo[c];
			out->hi[c] += in->cp.hi[c];
			out->share[c] += in->cp.share[c];
		}
		out->unexplained += in->cp.unexplained;
	}
}

void an_stall_summary_add(struct an_stall_summary *a, const struct an_stall_summary *b)
{
	double n = a->samples + b->samples;

	/* The mean period of the sum: weighted by samples, so samples x period adds the cycles. */
	if (!a->period)
		a->period = b->period;
	else if (b->period && a->period != b->period && n > 0)
		a->period = (a->samples * a->period + b->samples * b->period) / n;
	a->samples += b->samples;
	a->exec += b->exec;
	a->stat += b->stat;
	a->dyn += b->dyn;
	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		a->lo[c] += b->lo[c];
		a->hi[c] += b->hi[c];
		a->share[c] += b->share[c];
	}
	a->unexplained += b->unexplained;
	a->insns_exec += b->insns_exec;
}

void an_stall_summary_print(FILE *f, const char *name, const struct an_stall_summary *s)
{
	double t = s->samples > 0 ? s->samples : 1, cycles = s->samples * s->period;
	double cpi = s->insns_exec > 0 ? cycles / s->insns_exec : 0;

	fprintf(f, "%s%s%.0f samples, %.4g cycles, %.4g instructions, CPI %.2f\n", name ? name : "",
		name ? ": " : "", s->samples, cycles, s->insns_exec, cpi);
	fprintf(f, "  %-24s %6.1f%%\n", "execution", 100 * s->exec / t);
	fprintf(f, "  %-24s %6.1f%%\n", "static stalls", 100 * s->stat / t);
	fprintf(f, "  %-24s %6.1f%%\n", "dynamic stalls", 100 * s->dyn / t);
	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		if (s->hi[c] <= 0)
			continue;
		fprintf(f, "    %-22s %6.1f%% to %5.1f%%  (%.1f%%)\n", an_cause_label(c),
			100 * s->lo[c] / t, 100 * s->hi[c] / t, 100 * s->share[c] / t);
	}
	fprintf(f, "    %-22s %6.1f%%\n", "unexplained", 100 * s->unexplained / t);
}

static int cmp_stall_proc(const void *a, const void *b)
{
	const struct an_stall_proc *x = a, *y = b;

	if (x->s.samples != y->s.samples)
		return x->s.samples < y->s.samples ? 1 : -1;
	return (x->start > y->start) - (x->start < y->start);
}

int an_stall_procs(struct an_fi_image *im, const struct an_fi_opts *o, struct an_stall_proc **out,
		   size_t *nout, size_t *skipped)
{
	struct an_stall_proc *v;
	size_t n = 0, i;

	*out = NULL;
	*nout = 0;
	*skipped = 0;
	v = calloc(an_fi_procs(im)->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < an_fi_procs(im)->n; i++) {
		const struct an_proc *p = &an_fi_procs(im)->v[i];
		struct an_fi_proc *fp;

		if (!an_fi_samples_in(im, AN_EV_CYCLES, p->start, p->end))
			continue;
		if (an_fi_analyze(im, p, o, &fp, NULL)) {
			(*skipped)++; /* a procedure the CFG builder rejects */
			continue;
		}
		an_stall_summary(fp, &v[n].s);
		snprintf(v[n].name, sizeof(v[n].name), "%s", fp->name);
		v[n].start = p->start;
		n++;
		an_fi_proc_free(fp);
	}
	if (n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(v, n, sizeof(*v), cmp_stall_proc);
	*out = v;
	*nout = n;
	return 0;
}
