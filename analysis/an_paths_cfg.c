/* analysis/an_paths_cfg.c - the path-reconstruction graph of one or more procedures' CFGs. */
/*
 * Nodes are an_cfg blocks; in-edges are the CFG's edges (calls and returns as an_paths.h says).
 * CALL_PAL that returns (system calls) is a plain fall-through: the emulated system call runs
 * no user branches, so the history does not move across it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ax_err.h"
#include "an_cfg.h"
#include "an_paths.h"

struct build {
	const struct an_procs *ps;
	size_t lo, hi;
	struct an_cfg **cfg; /* hi - lo */
	uint32_t *base; /* first node of each CFG */
	double (*w)(void *priv, uint64_t from, uint64_t to);
	void *priv;
	struct an_pgraph *g;
	uint32_t cap_pe;
	/* in-edges collected unsorted: (to, edge) */
	uint32_t *to;
};

static const struct axp_insn *last_insn(const struct an_cfg *c, const struct an_block *b)
{
	return &c->insn[b->first + b->n - 1];
}

static bool is_cond(const struct axp_insn *d)
{
	return axp_op_info[d->op].fmt == AXP_FMT_BRA && d->op != AXP_OP_BR && d->op != AXP_OP_BSR;
}

/* Direct call target of a BSR with a link register, else 0. */
static uint64_t bsr_target(const struct axp_insn *d, uint64_t pc)
{
	if (d->op != AXP_OP_BSR || d->ra == 31)
		return 0;
	return pc + 4 + 4 * (int64_t)d->disp;
}

static int add_pe(struct build *s, uint32_t to, uint32_t from, uint8_t kind, uint8_t flags,
		  double w)
{
	struct an_pgraph *g = s->g;

	if (g->npe == s->cap_pe) {
		uint32_t cap = s->cap_pe ? 2 * s->cap_pe : 256;
		struct an_pedge *pe = realloc(g->pe, cap * sizeof(*pe));
		uint32_t *t;

		if (!pe)
			return -ENOMEM;
		g->pe = pe;
		t = realloc(s->to, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		s->to = t;
		s->cap_pe = cap;
	}
	g->pe[g->npe] = (struct an_pedge){ .from = from, .kind = kind, .flags = flags, .w = w };
	s->to[g->npe++] = to;
	return 0;
}

uint32_t an_pgraph_node_at(const struct an_pgraph *g, uint64_t addr)
{
	uint32_t lo = 0, hi = g->nnodes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct an_pnode *b = &g->node[mid];

		if (addr < b->addr)
			hi = mid;
		else if (addr >= b->addr + 4 * (uint64_t)b->n)
			lo = mid + 1;
		else
			return mid;
	}
	return UINT32_MAX;
}

/* Intraprocedural edges of CFG i, and its calls' CALL/RET edges when inter. */
static int edges_of(struct build *s, size_t i, bool inter)
{
	const struct an_cfg *c = s->cfg[i];
	const uint32_t base = s->base[i];
	int err = 0;

	for (uint32_t e = 0; e < c->nedges && !err; e++) {
		const struct an_edge *ed = &c->edge[e];
		const struct an_block *b;
		const struct axp_insn *d;
		uint64_t lpc, to;
		uint8_t fl = 0;
		double w;

		if (ed->from == AN_NODE_ENTRY || ed->to == AN_NODE_EXIT)
			continue;
		b = &c->block[ed->from];
		d = last_insn(c, b);
		lpc = an_cfg_addr(c, b->first + b->n - 1);
		to = c->block[ed->to].addr;
		if (ed->kind == AN_EDGE_CALLRET && axp_op_info[d->op].fmt != AXP_FMT_PAL) {
			uint64_t callee = bsr_target(d, lpc);
			uint32_t ce =
				inter && callee ? an_pgraph_node_at(s->g, callee) : UINT32_MAX;

			s->g->node[base + ed->from].flags |= AN_PN_CALL;
			s->g->node[base + ed->from].retpt = base + ed->to;
			if (ce == UINT32_MAX)
				continue; /* the return point begins paths */
			err = add_pe(s, ce, base + ed->from, AN_PE_CALL, 0,
				     s->w(s->priv, lpc, callee));
			continue; /* RET edges: below, once every callee's returns are known */
		}
		if (is_cond(d))
			fl = ed->kind == AN_EDGE_TAKEN ? AN_PE_TAKEN : 0;
		if (ed->kind == AN_EDGE_FALL && !is_cond(d))
			w = s->w(s->priv, 0, lpc); /* every execution falls through */
		else
			w = s->w(s->priv, lpc, to);
		err = add_pe(s, base + ed->to, base + ed->from, AN_PE_FLOW, fl, w);
	}
	return err;
}

/* RET edges: every return block of the callee of each CALL node into its return point. */
static int ret_edges(struct build *s)
{
	struct an_pgraph *g = s->g;
	const uint32_t n0 = g->npe;
	int err = 0;

	for (uint32_t e = 0; e < n0 && !err; e++) {
		uint32_t call = g->pe[e].from, entry = s->to[e], rp;
		size_t ci = 0;

		if (g->pe[e].kind != AN_PE_CALL)
			continue;
		rp = g->node[call].retpt;
		while (ci + 1 < s->hi - s->lo && s->base[ci + 1] <= entry)
			ci++;
		for (uint32_t x = 0; x < s->cfg[ci]->nexit_preds && !err; x++) {
			const struct an_cfg *c = s->cfg[ci];
			const struct an_edge *ed = &c->edge[c->pred[c->exit_preds + x]];
			const struct an_block *b = &c->block[ed->from];
			uint64_t lpc = an_cfg_addr(c, b->first + b->n - 1);

			if (ed->why != AN_EXIT_RETURN)
				continue;
			err = add_pe(s, rp, s->base[ci] + ed->from, AN_PE_RET, 0,
				     s->w(s->priv, lpc, g->node[rp].addr));
		}
	}
	return err;
}

/* Sort the in-edges by destination; START weights. */
static int finish(struct build *s)
{
	struct an_pgraph *g = s->g;
	struct an_pedge *pe = malloc((g->npe ? g->npe : 1) * sizeof(*pe));
	uint32_t *at = calloc(g->nnodes + 1, sizeof(*at));

	if (!pe || !at) {
		free(pe);
		free(at);
		return -ENOMEM;
	}
	for (uint32_t e = 0; e < g->npe; e++)
		at[s->to[e] + 1]++;
	for (uint32_t v = 0; v < g->nnodes; v++) {
		at[v + 1] += at[v];
		g->node[v].pred = at[v];
		g->node[v].npred = at[v + 1] - at[v];
	}
	for (uint32_t e = 0; e < g->npe; e++)
		pe[at[s->to[e]]++] = g->pe[e];
	free(g->pe);
	g->pe = pe;
	free(at);
	for (uint32_t v = 0; v < g->nnodes; v++) {
		struct an_pnode *b = &g->node[v];
		double in = 0, cnt;

		if (!(b->flags & AN_PN_START))
			continue;
		for (uint32_t i = 0; i < b->npred; i++)
			in += g->pe[b->pred + i].w;
		cnt = s->w(s->priv, 0, b->addr);
		b->start_w = cnt > in ? cnt - in : 0;
	}
	return 0;
}

/* Nodes of every CFG; START flags for entries and return points. */
static int nodes(struct build *s)
{
	struct an_pgraph *g = s->g;
	uint32_t n = 0;

	for (size_t i = 0; i < s->hi - s->lo; i++) {
		s->base[i] = n;
		n += s->cfg[i]->nblocks;
	}
	g->node = calloc(n ? n : 1, sizeof(*g->node));
	if (!g->node)
		return -ENOMEM;
	g->nnodes = n;
	for (size_t i = 0; i < s->hi - s->lo; i++) {
		const struct an_cfg *c = s->cfg[i];

		for (uint32_t k = 0; k < c->nblocks; k++) {
			const struct an_block *b = &c->block[k];
			struct an_pnode *v = &g->node[s->base[i] + k];

			v->addr = b->addr;
			v->n = b->n;
			v->retpt = UINT32_MAX;
			v->flags = is_cond(last_insn(c, b)) ? AN_PN_COND : 0;
			if (b->flags & AN_BLK_ENTRY)
				v->flags |= AN_PN_START;
			if (k && (c->block[k - 1].flags & AN_BLK_CALL))
				v->flags |= AN_PN_START; /* a return point */
		}
	}
	return 0;
}

/* Interprocedural: a START node reached by CALL or RET edges begins paths only when some of
 * its executions came from elsewhere (its START weight). */
static void unstart(struct an_pgraph *g)
{
	for (uint32_t v = 0; v < g->nnodes; v++) {
		struct an_pnode *b = &g->node[v];
		bool linked = false;

		for (uint32_t i = 0; i < b->npred; i++)
			linked |= g->pe[b->pred + i].kind != AN_PE_FLOW;
		if (linked && b->start_w <= 0)
			b->flags &= ~AN_PN_START;
	}
}

int an_pgraph_build(const struct an_procs *ps, size_t lo, size_t hi, bool inter,
		    double (*w)(void *priv, uint64_t from, uint64_t to), void *priv,
		    struct an_pgraph **out, struct ax_error *err)
{
	struct build s = { .ps = ps, .lo = lo, .hi = hi, .w = w, .priv = priv };
	int rc = -ENOMEM;

	*out = NULL;
	if (lo >= hi || hi > ps->n)
		return ax_fail(err, -EINVAL, "no procedure to build a path graph of");
	s.cfg = calloc(hi - lo, sizeof(*s.cfg));
	s.base = calloc(hi - lo, sizeof(*s.base));
	s.g = calloc(1, sizeof(*s.g));
	if (!s.cfg || !s.base || !s.g)
		goto out;
	for (size_t i = lo; i < hi; i++) {
		rc = an_cfg_build(ps, &ps->v[i], &s.cfg[i - lo], err);
		if (rc)
			goto out;
	}
	rc = nodes(&s);
	for (size_t i = 0; i < hi - lo && !rc; i++)
		rc = edges_of(&s, i, inter);
	if (!rc && inter)
		rc = ret_edges(&s);
	if (!rc)
		rc = finish(&s);
	if (!rc && inter)
		unstart(s.g);
out:
	for (size_t i = 0; s.cfg && i < hi - lo; i++)
		an_cfg_free(s.cfg[i]);
	free(s.cfg);
	free(s.base);
	free(s.to);
	if (rc) {
		an_pgraph_free(s.g);
		if (rc == -ENOMEM)
			ax_fail(err, rc, "out of memory building the path graph");
		return rc;
	}
	*out = s.g;
	return 0;
}

void an_pgraph_free(struct an_pgraph *g)
{
	if (!g)
		return;
	free(g->node);
	free(g->pe);
	free(g);
}
