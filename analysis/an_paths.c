/* analysis/an_paths.c - enumerate the path segments consistent with a ProfileMe sample. */
/*
 * [PM] §5.3: walk the CFG backwards from the sampled instruction, keep the paths whose
 * conditional branch directions agree with the history bits, and (paired sampling) drop those
 * that do not hold the other pc of the pair. The rules are in an_paths.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an_paths.h"

#define DEF_MAX_PATHS 4096u
#define DEF_MAX_BLOCKS 256u
#define DEF_MAX_STEPS (1u << 20)
#define MAX_CALLS 64u

struct walk {
	const struct an_pgraph *g;
	const struct an_paths_query *q;
	struct an_paths *out;
	uint32_t max_paths, max_blocks, steps_left;
	uint32_t *blk; /* the path being grown, the sample's block first */
	uint32_t nblk;
	uint32_t calls[MAX_CALLS]; /* return points walked back into, innermost last */
	uint32_t ncalls;
	int err;
};

/* Does the current path hold q->partner within the q->dist instructions before the sample, or
 * is it too short to tell? */
static bool partner_ok(const struct walk *w)
{
	const struct an_paths_query *q = w->q;
	uint32_t seen = 0;

	if (!q->partner || !q->dist)
		return true;
	for (uint32_t i = 0; i < w->nblk && seen < q->dist; i++) {
		const struct an_pnode *b = &w->g->node[w->blk[i]];
		uint32_t k = i ? b->n : q->off;

		while (k-- && seen < q->dist) {
			seen++;
			if (b->addr + 4 * (uint64_t)k == q->partner)
				return true;
		}
	}
	return seen < q->dist;
}

static int push_path(struct an_paths *out, const uint32_t *blk, uint32_t nblk,
		     const struct an_path *p)
{
	if (out->n == out->cap) {
		uint32_t cap = out->cap ? 2 * out->cap : 16;
		struct an_path *v = realloc(out->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		out->v = v;
		out->cap = cap;
	}
	if (out->nblk + nblk > out->cap_blk) {
		size_t cap = out->cap_blk ? 2 * out->cap_blk : 256;
		uint32_t *b;

		while (cap < out->nblk + nblk)
			cap *= 2;
		b = realloc(out->blk, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		out->blk = b;
		out->cap_blk = cap;
	}
	memcpy(out->blk + out->nblk, blk, nblk * sizeof(*blk));
	out->v[out->n] = *p;
	out->v[out->n].first = (uint32_t)out->nblk;
	out->v[out->n].nblk = nblk;
	out->n++;
	out->nblk += nblk;
	return 0;
}

static void emit(struct walk *w, uint32_t k, bool begun, bool truncated, double p)
{
	struct an_path path = { .nbranches = k, .begun = begun, .truncated = truncated, .p = p };

	if (w->err)
		return;
	if (!partner_ok(w)) {
		w->out->rejected_partner++;
		return;
	}
	if (w->out->n == w->max_paths) {
		w->out->overflow = true;
		return;
	}
	w->err = push_path(w->out, w->blk, w->nblk, &path);
}

/* The in-frequency of node v: its in-edges and, for a START node, its beginnings. */
static double total_in(const struct an_pgraph *g, uint32_t v)
{
	const struct an_pnode *b = &g->node[v];
	double t = (b->flags & AN_PN_START) ? b->start_w : 0;

	for (uint32_t i = 0; i < b->npred; i++)
		t += g->pe[b->pred + i].w;
	return t;
}

/* The share of total t that weight x stands for (uniform over n choices when nothing ran). */
static double share(double x, double t, uint32_t n)
{
	if (t > 0)
		return x / t;
	return n ? 1.0 / n : 1.0;
}

/* Can the walk take in-edge e of v (call/return matching)? Updates the call stack; *pushed,
 * *popped say how to undo it. */
static bool enter_edge(struct walk *w, uint32_t v, const struct an_pedge *e, bool *pushed,
		       uint32_t *popped)
{
	*pushed = false;
	*popped = UINT32_MAX;
	if (e->kind == AN_PE_RET) {
		if (w->ncalls == MAX_CALLS)
			return false;
		w->calls[w->ncalls++] = v;
		*pushed = true;
	} else if (e->kind == AN_PE_CALL && w->ncalls) {
		if (w->g->node[e->from].retpt != w->calls[w->ncalls - 1])
			return false;
		*popped = w->calls[--w->ncalls];
	}
	return true;
}

static void leave_edge(struct walk *w, bool pushed, uint32_t popped)
{
	if (pushed)
		w->ncalls--;
	if (popped != UINT32_MAX)
		w->calls[w->ncalls++] = popped;
}

/* The path ends in w->blk[nblk - 1] == v, with k bits consumed and probability p so far. */
static void grow(struct walk *w, uint32_t v, uint32_t k, double p)
{
	const struct an_pgraph *g = w->g;
	const struct an_paths_query *q = w->q;
	const struct an_pnode *b = &g->node[v];
	const uint32_t nchoice = b->npred + ((b->flags & AN_PN_START) ? 1 : 0);
	const double t = total_in(g, v);
	double end_w = 0;
	bool end = false;

	if (w->err || w->out->overflow)
		return;
	if (!w->steps_left--) {
		w->out->overflow = true;
		return;
	}
	if (w->nblk == w->max_blocks) {
		emit(w, k, false, true, p);
		return;
	}
	if (b->flags & AN_PN_START)
		emit(w, k, true, false, p * share(b->start_w, t, nchoice));
	for (uint32_t i = 0; i < b->npred; i++) {
		const struct an_pedge *e = &g->pe[b->pred + i];
		uint32_t k2 = k, popped;
		bool pushed;

		if (g->node[e->from].flags & AN_PN_COND) {
			unsigned int bit = (e->flags & AN_PE_TAKEN) ? 1 : 0;

			if (k == q->bits) { /* that branch would be bit L: the path ends here */
				end = true;
				end_w += e->w;
				continue;
			}
			if (q->use_history && bit != ((q->history >> k) & 1))
				continue;
			k2++;
		}
		if (!enter_edge(w, v, e, &pushed, &popped))
			continue;
		w->blk[w->nblk++] = e->from;
		grow(w, e->from, k2, p * share(e->w, t, nchoice));
		w->nblk--;
		leave_edge(w, pushed, popped);
	}
	if (end)
		emit(w, k, false, false, p * share(end_w, t, nchoice));
}

static int by_p(const void *a, const void *b)
{
	const struct an_path *x = a, *y = b;

	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int setup(struct walk *w, const struct an_pgraph *g, const struct an_paths_query *q,
		 struct an_paths *out)
{
	memset(out, 0, sizeof(*out));
	memset(w, 0, sizeof(*w));
	if (q->node >= g->nnodes || q->bits > 16 || q->off >= g->node[q->node].n)
		return -EINVAL;
	w->g = g;
	w->q = q;
	w->out = out;
	w->max_paths = q->max_paths ? q->max_paths : DEF_MAX_PATHS;
	w->max_blocks = q->max_blocks ? q->max_blocks : DEF_MAX_BLOCKS;
	w->steps_left = q->max_steps ? q->max_steps : DEF_MAX_STEPS;
	w->blk = malloc(w->max_blocks * sizeof(*w->blk));
	if (!w->blk)
		return -ENOMEM;
	w->blk[w->nblk++] = q->node;
	return 0;
}

int an_paths_find(const struct an_pgraph *g, const struct an_paths_query *q, struct an_paths *out)
{
	struct walk w;
	int err = setup(&w, g, q, out);

	if (err)
		return err;
	grow(&w, q->node, 0, 1.0);
	free(w.blk);
	if (w.err) {
		an_paths_free(out);
		return w.err;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_p);
	return 0;
}

int an_paths_greedy(const struct an_pgraph *g, const struct an_paths_query *q, struct an_paths *out)
{
	struct an_paths_query q0 = *q;
	struct walk w;
	uint32_t v = q->node, k = 0;
	double p = 1.0;
	int err;

	q0.partner = 0; /* execution counts only */
	err = setup(&w, g, &q0, out);
	if (err)
		return err;
	for (;;) {
		const struct an_pnode *b = &g->node[v];
		const uint32_t nchoice = b->npred + ((b->flags & AN_PN_START) ? 1 : 0);
		const double t = total_in(g, v);
		double best = -1, end_w = 0;
		const struct an_pedge *pick = NULL;
		bool begun = false, pushed;
		uint32_t popped;

		if (w.nblk == w.max_blocks) {
			emit(&w, k, false, true, p);
			break;
		}
		if (b->flags & AN_PN_START) {
			best = b->start_w;
			begun = true;
		}
		for (uint32_t i = 0; i < b->npred; i++) {
			const struct an_pedge *e = &g->pe[b->pred + i];

			if (g->node[e->from].flags & AN_PN_COND && k == q->bits) {
				end_w += e->w;
				continue;
			}
			if (e->kind == AN_PE_CALL && w.ncalls &&
			    g->node[e->from].retpt != w.calls[w.ncalls - 1])
				continue;
			if (e->w > best) {
				best = e->w;
				pick = e;
				begun = false;
			}
		}
		if (end_w > best && end_w > 0) {
			emit(&w, k, false, false, p * share(end_w, t, nchoice));
			break;
		}
		if (!pick) {
			emit(&w, k, begun, false, p * share(best > 0 ? best : 0, t, nchoice));
			break;
		}
		if (!enter_edge(&w, v, pick, &pushed, &popped)) { /* call nesting too deep */
			emit(&w, k, false, true, p);
			break;
		}
		p *= share(pick->w, t, nchoice);
		if (g->node[pick->from].flags & AN_PN_COND)
			k++;
		v = pick->from;
		w.blk[w.nblk++] = v;
	}
	free(w.blk);
	if (w.err) {
		an_paths_free(out);
		return w.err;
	}
	return 0;
}

bool an_path_equal(const struct an_paths *a, uint32_t pa, const struct an_paths *b, uint32_t pb)
{
	const struct an_path *x = &a->v[pa], *y = &b->v[pb];

	if (x->nblk != y->nblk || x->begun != y->begun || x->truncated != y->truncated)
		return false;
	return !memcmp(a->blk + x->first, b->blk + y->first, x->nblk * sizeof(*a->blk));
}

void an_paths_free(struct an_paths *ps)
{
	free(ps->v);
	free(ps->blk);
	memset(ps, 0, sizeof(*ps));
}
