/* analysis/an_cyceq.c - cycle equivalence (Johnson, Pearson, Pingali, PLDI 1994) in linear time. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "an_cyceq.h"

#define NONE UINT32_MAX

/* Compressed adjacency: for node n, the edge ids adj[off[n] .. off[n+1]). */
struct adj {
	uint32_t *off, *e;
};

static void adj_free(struct adj *a)
{
	free(a->off);
	free(a->e);
}

/* Undirected (both ends) or directed (out: src side; in: dst side) adjacency. */
static int adj_build(struct adj *a, uint32_t nnodes, uint32_t nedges, const uint32_t *src,
		     const uint32_t *dst, bool out, bool in)
{
	uint32_t *fill;

	a->off = calloc((size_t)nnodes + 1, sizeof(*a->off));
	a->e = malloc(((size_t)nedges * 2 + 1) * sizeof(*a->e));
	fill = malloc(((size_t)nnodes + 1) * sizeof(*fill));
	if (!a->off || !a->e || !fill) {
		free(fill);
		adj_free(a);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nedges; i++) {
		if (out)
			a->off[src[i] + 1]++;
		if (in)
			a->off[dst[i] + 1]++;
	}
	for (uint32_t n = 0; n < nnodes; n++)
		a->off[n + 1] += a->off[n];
	memcpy(fill, a->off, (size_t)nnodes * sizeof(*fill));
	for (uint32_t i = 0; i < nedges; i++) {
		if (out)
			a->e[fill[src[i]]++] = i;
		if (in)
			a->e[fill[dst[i]]++] = i;
	}
	free(fill);
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The undirected core: JPP94 Figure 4. */

struct cyc {
	uint32_t nnodes, nedges;
	const uint32_t *u, *v;
	struct adj adj;
	uint32_t *dfsnum, *order, *parent; /* parent: tree edge to the parent, NONE at the root */
	uint32_t *hi;
	/* bracket lists: brackets 0..nedges-1 are backedges, nedges.. are capping backedges */
	uint32_t *bnext, *bprev, *rsize, *rclass;
	uint32_t *lhead, *ltail, *lsize; /* per node */
	uint32_t *cap_head, *cap_next; /* capping backedges by their upper end */
	uint32_t ncaps;
	uint32_t *eclass;
	uint32_t nclass;
};

static uint32_t other(const struct cyc *c, uint32_t e, uint32_t n)
{
	return c->u[e] == n ? c->v[e] : c->u[e];
}

static void list_push(struct cyc *c, uint32_t n, uint32_t b)
{
	c->bprev[b] = NONE;
	c->bnext[b] = c->lhead[n];
	if (c->lhead[n] != NONE)
		c->bprev[c->lhead[n]] = b;
	else
		c->ltail[n] = b;
	c->lhead[n] = b;
	c->lsize[n]++;
}

static void list_delete(struct cyc *c, uint32_t n, uint32_t b)
{
	if (c->bprev[b] != NONE)
		c->bnext[c->bprev[b]] = c->bnext[b];
	else
		c->lhead[n] = c->bnext[b];
	if (c->bnext[b] != NONE)
		c->bprev[c->bnext[b]] = c->bprev[b];
	else
		c->ltail[n] = c->bprev[b];
	c->lsize[n]--;
}

/* n.blist := concat(n.blist, m.blist) */
static void list_concat(struct cyc *c, uint32_t n, uint32_t m)
{
	if (c->lhead[m] == NONE)
		return;
	if (c->lhead[n] == NONE) {
		c->lhead[n] = c->lhead[m];
		c->ltail[n] = c->ltail[m];
	} else {
		c->bnext[c->ltail[n]] = c->lhead[m];
		c->bprev[c->lhead[m]] = c->ltail[n];
		c->ltail[n] = c->ltail[m];
	}
	c->lsize[n] += c->lsize[m];
	c->lhead[m] = c->ltail[m] = NONE;
	c->lsize[m] = 0;
}

/* Iterative undirected DFS from root: dfsnum, preorder, parent tree edges. Returns visited. */
static uint32_t udfs(struct cyc *c, uint32_t root, uint32_t *stack, uint32_t *cursor)
{
	uint32_t cnt = 0, sp = 0;

	c->dfsnum[root] = cnt;
	c->order[cnt++] = root;
	c->parent[root] = NONE;
	stack[sp++] = root;
	cursor[root] = c->adj.off[root];
	while (sp) {
		uint32_t n = stack[sp - 1];

		if (cursor[n] < c->adj.off[n + 1]) {
			uint32_t e = c->adj.e[cursor[n]++], m;

			if (e == c->parent[n] || c->u[e] == c->v[e])
				continue;
			m = other(c, e, n);
			if (c->dfsnum[m] != NONE)
				continue;
			c->dfsnum[m] = cnt;
			c->order[cnt++] = m;
			c->parent[m] = e;
			cursor[m] = c->adj.off[m];
			stack[sp++] = m;
		} else {
			sp--;
		}
	}
	return cnt;
}

static void visit(struct cyc *c, uint32_t n)
{
	const uint32_t dn = c->dfsnum[n];
	uint32_t hi0 = NONE, hi1 = NONE, hi2 = NONE;

	/* hi values and the children's bracket lists */
	for (uint32_t k = c->adj.off[n]; k < c->adj.off[n + 1]; k++) {
		uint32_t e = c->adj.e[k], m;

		if (e == c->parent[n] || c->u[e] == c->v[e])
			continue;
		m = other(c, e, n);
		if (c->parent[m] == e) { /* child */
			if (c->hi[m] < hi1) {
				hi2 = hi1;
				hi1 = c->hi[m];
			} else if (c->hi[m] < hi2) {
				hi2 = c->hi[m];
			}
			list_concat(c, n, m);
		} else if (c->dfsnum[m] < dn && c->dfsnum[m] < hi0) {
			hi0 = c->dfsnum[m];
		}
	}
	c->hi[n] = hi0 < hi1 ? hi0 : hi1;

	/* capping backedges from descendants to n */
	for (uint32_t b = c->cap_head[n]; b != NONE; b = c->cap_next[b - c->nedges])
		list_delete(c, n, b);
	/* backedges from descendants to n: n is their upper end */
	for (uint32_t k = c->adj.off[n]; k < c->adj.off[n + 1]; k++) {
		uint32_t e = c->adj.e[k], m;

		if (e == c->parent[n] || c->u[e] == c->v[e])
			continue;
		m = other(c, e, n);
		if (c->parent[m] == e || c->dfsnum[m] < dn)
			continue;
		list_delete(c, n, e);
		if (c->eclass[e] == NONE)
			c->eclass[e] = c->nclass++;
	}
	/* backedges from n to ancestors */
	for (uint32_t k = c->adj.off[n]; k < c->adj.off[n + 1]; k++) {
		uint32_t e = c->adj.e[k], m;

		if (e == c->parent[n] || c->u[e] == c->v[e])
			continue;
		m = other(c, e, n);
		if (c->parent[m] != e && c->dfsnum[m] < dn)
			list_push(c, n, e);
	}
	/*
	 * Capping backedge to node[hi2] when brackets of two subtrees leave n and reach above
	 * n's own backedges (JPP94 Fig. 4 "if hi2 < hi0"; hi2 < dn keeps the cap's upper end a
	 * proper ancestor).
	 */
	if (hi2 < hi0 && hi2 < dn) {
		uint32_t b = c->nedges + c->ncaps++, top = c->order[hi2];

		list_push(c, n, b);
		c->cap_next[b - c->nedges] = c->cap_head[top];
		c->cap_head[top] = b;
	}
	/* the tree edge from the parent */
	if (c->parent[n] != NONE) {
		uint32_t e = c->parent[n], b = c->lhead[n], size = c->lsize[n];

		if (b == NONE) { /* a bridge: in no cycle */
			c->eclass[e] = c->nclass++;
			return;
		}
		if (c->rsize[b] != size) {
			c->rsize[b] = size;
			c->rclass[b] = c->nclass++;
		}
		c->eclass[e] = c->rclass[b];
		if (size == 1 && b < c->nedges)
			c->eclass[b] = c->eclass[e];
	}
}

int an_cyceq_undirected(uint32_t nnodes, uint32_t nedges, const uint32_t *u, const uint32_t *v,
			uint32_t root, uint32_t *edge_class, uint32_t *nclasses)
{
	struct cyc c = { .nnodes = nnodes, .nedges = nedges, .u = u, .v = v, .eclass = edge_class };
	size_t nb = (size_t)nedges + nnodes + 1, nn = (size_t)nnodes + 1;
	uint32_t *stack = NULL, *cursor = NULL, cnt;
	int err;

	if (root >= nnodes)
		return -EINVAL;
	for (uint32_t i = 0; i < nedges; i++)
		if (u[i] >= nnodes || v[i] >= nnodes)
			return -EINVAL;
	err = adj_build(&c.adj, nnodes, nedges, u, v, true, true);
	if (err)
		return err;
	/* self-loops appear twice in their node's list; harmless: they are skipped */
	c.dfsnum = malloc(nn * sizeof(uint32_t));
	c.order = malloc(nn * sizeof(uint32_t));
	c.parent = malloc(nn * sizeof(uint32_t));
	c.hi = malloc(nn * sizeof(uint32_t));
	c.lhead = malloc(nn * sizeof(uint32_t));
	c.ltail = malloc(nn * sizeof(uint32_t));
	c.lsize = calloc(nn, sizeof(uint32_t));
	c.cap_head = malloc(nn * sizeof(uint32_t));
	c.cap_next = malloc(nn * sizeof(uint32_t));
	c.bnext = malloc(nb * sizeof(uint32_t));
	c.bprev = malloc(nb * sizeof(uint32_t));
	c.rsize = malloc(nb * sizeof(uint32_t));
	c.rclass = malloc(nb * sizeof(uint32_t));
	stack = malloc(nn * sizeof(uint32_t));
	cursor = malloc(nn * sizeof(uint32_t));
	if (!c.dfsnum || !c.order || !c.parent || !c.hi || !c.lhead || !c.ltail || !c.lsize ||
	    !c.cap_head || !c.cap_next || !c.bnext || !c.bprev || !c.rsize || !c.rclass || !stack ||
	    !cursor) {
		err = -ENOMEM;
		goto out;
	}
	memset(c.dfsnum, 0xff, nn * sizeof(uint32_t));
	memset(c.lhead, 0xff, nn * sizeof(uint32_t));
	memset(c.ltail, 0xff, nn * sizeof(uint32_t));
	memset(c.cap_head, 0xff, nn * sizeof(uint32_t));
	memset(c.rsize, 0xff, nb * sizeof(uint32_t));
	for (uint32_t i = 0; i < nedges; i++)
		edge_class[i] = NONE;

	cnt = udfs(&c, root, stack, cursor);
	for (uint32_t k = cnt; k-- > 0;)
		visit(&c, c.order[k]);
	/* self-loops and edges outside root's component */
	for (uint32_t i = 0; i < nedges; i++)
		if (edge_class[i] == NONE)
			edge_class[i] = c.nclass++;
	*nclasses = c.nclass;
	err = 0;
out:
	free(stack);
	free(cursor);
	free(c.dfsnum);
	free(c.order);
	free(c.parent);
	free(c.hi);
	free(c.lhead);
	free(c.ltail);
	free(c.lsize);
	free(c.cap_head);
	free(c.cap_next);
	free(c.bnext);
	free(c.bprev);
	free(c.rsize);
	free(c.rclass);
	adj_free(&c.adj);
	return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Directed graphs with entry and exit. */

static int check_graph(const struct an_cyceq_graph *g)
{
	if (g->entry >= g->nnodes || g->exit >= g->nnodes || g->entry == g->exit)
		return -EINVAL;
	for (uint32_t i = 0; i < g->nedges; i++)
		if (g->src[i] >= g->nnodes || g->dst[i] >= g->nnodes)
			return -EINVAL;
	return 0;
}

/* BFS over a directed adjacency from `from`, marking mark[] (when allowed[] is NULL or set). */
static void bfs(const struct adj *a, const struct an_cyceq_graph *g, bool forward, uint32_t from,
		uint8_t *mark, uint32_t *queue, uint32_t *order_out)
{
	uint32_t qh = 0, qt = 0;

	mark[from] = 1;
	queue[qt++] = from;
	while (qh < qt) {
		uint32_t n = queue[qh++];

		if (order_out)
			order_out[n] = qh - 1;
		for (uint32_t k = a->off[n]; k < a->off[n + 1]; k++) {
			uint32_t e = a->e[k], m = forward ? g->dst[e] : g->src[e];

			if (!mark[m]) {
				mark[m] = 1;
				queue[qt++] = m;
			}
		}
	}
}

/*
 * Exit-less sink SCCs: Tarjan's algorithm (iterative) on the nodes reached from entry that do
 * not reach exit. For each sink component, its node with the smallest BFS order joins nodes[].
 */
static int exitless(const struct an_cyceq_graph *g, const struct adj *out, const uint8_t *reach,
		    const uint8_t *coreach, const uint32_t *bfsord, uint32_t *nodes, uint32_t *nout)
{
	uint32_t N = g->nnodes, idx = 0, sp = 0, csp = 0, nn = 0;
	uint32_t *index = malloc((size_t)N * sizeof(uint32_t));
	uint32_t *low = malloc((size_t)N * sizeof(uint32_t));
	uint32_t *stk = malloc((size_t)N * sizeof(uint32_t));
	uint32_t *cstk = malloc((size_t)N * sizeof(uint32_t));
	uint32_t *cur = malloc((size_t)N * sizeof(uint32_t));
	uint8_t *onstk = calloc(N ? N : 1, 1);
	int err = 0;

	if (!index || !low || !stk || !cstk || !cur || !onstk) {
		err = -ENOMEM;
		goto out;
	}
	memset(index, 0xff, (size_t)N * sizeof(uint32_t));
	for (uint32_t s = 0; s < N; s++) {
		if (!reach[s] || coreach[s] || index[s] != NONE)
			continue;
		index[s] = low[s] = idx++;
		stk[sp++] = s;
		onstk[s] = 1;
		cstk[csp++] = s;
		cur[s] = out->off[s];
		while (csp) {
			uint32_t n = cstk[csp - 1];

			if (cur[n] < out->off[n + 1]) {
				uint32_t m = g->dst[out->e[cur[n]++]];

				if (coreach[m]) /* cannot happen: n would reach exit */
					continue;
				if (index[m] == NONE) {
					index[m] = low[m] = idx++;
					stk[sp++] = m;
					onstk[m] = 1;
					cstk[csp++] = m;
					cur[m] = out->off[m];
				} else if (onstk[m] && index[m] < low[n]) {
					low[n] = index[m];
				}
				continue;
			}
			csp--;
			if (csp && low[n] < low[cstk[csp - 1]])
				low[cstk[csp - 1]] = low[n];
			if (low[n] != index[n])
				continue;
			/* n roots a component: pop it, check that no edge leaves it */
			{
				uint32_t base = sp, rep = n;
				bool sink = true;

				while (stk[base - 1] != n)
					base--;
				base--;
				for (uint32_t k = base; k < sp; k++)
					onstk[stk[k]] =
						2; /* member of the component being closed */
				for (uint32_t k = base; k < sp && sink; k++) {
					uint32_t x = stk[k];

					if (bfsord[x] < bfsord[rep])
						rep = x;
					for (uint32_t j = out->off[x]; j < out->off[x + 1]; j++)
						if (onstk[g->dst[out->e[j]]] != 2) {
							sink = false;
							break;
						}
				}
				for (uint32_t k = base; k < sp; k++) {
					uint32_t x = stk[k];

					if (bfsord[x] < bfsord[rep])
						rep = x;
					onstk[x] = 0;
				}
				sp = base;
				if (sink)
					nodes[nn++] = rep;
			}
		}
	}
	/* increasing node order */
	for (uint32_t i = 1; i < nn; i++) {
		uint32_t x = nodes[i], j = i;

		for (; j > 0 && nodes[j - 1] > x; j--)
			nodes[j] = nodes[j - 1];
		nodes[j] = x;
	}
	*nout = nn;
out:
	free(index);
	free(low);
	free(stk);
	free(cstk);
	free(cur);
	free(onstk);
	return err;
}

/* Reachability from entry, to exit, BFS order, and the exit-less representatives. */
struct reach {
	uint8_t *fwd, *bwd;
	uint32_t *ord, *extra;
	uint32_t nextra;
};

static void reach_free(struct reach *r)
{
	free(r->fwd);
	free(r->bwd);
	free(r->ord);
	free(r->extra);
}

static int reach_compute(const struct an_cyceq_graph *g, struct reach *r)
{
	struct adj out = { 0 }, in = { 0 };
	uint32_t N = g->nnodes, *queue = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->fwd = calloc(N, 1);
	r->bwd = calloc(N, 1);
	r->ord = malloc((size_t)N * sizeof(uint32_t));
	r->extra = malloc((size_t)N * sizeof(uint32_t));
	queue = malloc((size_t)N * sizeof(uint32_t));
	if (!r->fwd || !r->bwd || !r->ord || !r->extra || !queue) {
		err = -ENOMEM;
		goto out;
	}
	err = adj_build(&out, N, g->nedges, g->src, g->dst, true, false);
	if (err)
		goto out;
	err = adj_build(&in, N, g->nedges, g->src, g->dst, false, true);
	if (err)
		goto out;
	memset(r->ord, 0xff, (size_t)N * sizeof(uint32_t));
	bfs(&out, g, true, g->entry, r->fwd, queue, r->ord);
	bfs(&in, g, false, g->exit, r->bwd, queue, NULL);
	err = exitless(g, &out, r->fwd, r->bwd, r->ord, r->extra, &r->nextra);
out:
	free(queue);
	adj_free(&out);
	adj_free(&in);
	if (err)
		reach_free(r);
	return err;
}

int an_cyceq_exitless(const struct an_cyceq_graph *g, uint32_t *nodes, uint32_t *n)
{
	struct reach r;
	int err = check_graph(g);

	if (err)
		return err;
	err = reach_compute(g, &r);
	if (err)
		return err;
	if (r.nextra) /* memcpy() from NULL is undefined even for 0 bytes */
		memcpy(nodes, r.extra, (size_t)r.nextra * sizeof(uint32_t));
	*n = r.nextra;
	reach_free(&r);
	return 0;
}

int an_cyceq_classes(const struct an_cyceq_graph *g, uint32_t *node_class, uint32_t *edge_class,
		     uint32_t *nclasses)
{
	uint32_t N = g->nnodes, E = g->nedges, *map = NULL, *u = NULL, *v = NULL, *cls = NULL;
	uint32_t *renum = NULL, *eidx = NULL, nsplit = 0, ne = 0, ncls = 0, next = 0;
	struct reach r;
	size_t cap;
	int err = check_graph(g);

	if (err)
		return err;
	err = reach_compute(g, &r);
	if (err)
		return err;
	/*
	 * The split graph: included node n (reached from entry, or exit itself) becomes n_in =
	 * 2 map[n] and n_out = 2 map[n] + 1 joined by its node edge; an edge a -> b becomes
	 * a_out - b_in; then the artificial exit edges and exit -> entry.
	 */
	map = malloc(((size_t)N + 1) * sizeof(uint32_t));
	eidx = malloc(((size_t)E + 1) * sizeof(uint32_t));
	cap = (size_t)N + E + r.nextra + 1;
	u = malloc(cap * sizeof(uint32_t));
	v = malloc(cap * sizeof(uint32_t));
	cls = malloc(cap * sizeof(uint32_t));
	if (!map || !eidx || !u || !v || !cls) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t n = 0; n < N; n++)
		map[n] = (r.fwd[n] || n == g->exit) ? nsplit++ : NONE;
	for (uint32_t n = 0; n < N; n++)
		if (map[n] != NONE) {
			u[ne] = 2 * map[n];
			v[ne++] = 2 * map[n] + 1;
		}
	for (uint32_t i = 0; i < E; i++) {
		eidx[i] = NONE;
		if (map[g->src[i]] != NONE && map[g->dst[i]] != NONE) {
			eidx[i] = ne;
			u[ne] = 2 * map[g->src[i]] + 1;
			v[ne++] = 2 * map[g->dst[i]];
		}
	}
	for (uint32_t k = 0; k < r.nextra; k++) {
		u[ne] = 2 * map[r.extra[k]] + 1;
		v[ne++] = 2 * map[g->exit];
	}
	u[ne] = 2 * map[g->exit] + 1;
	v[ne++] = 2 * map[g->entry];
	err = an_cyceq_undirected(2 * nsplit, ne, u, v, 2 * map[g->entry], cls, &ncls);
	if (err)
		goto out;

	/* dense renumbering in order of appearance; excluded nodes and edges get their own */
	renum = malloc(((size_t)ncls + 1) * sizeof(uint32_t));
	if (!renum) {
		err = -ENOMEM;
		goto out;
	}
	memset(renum, 0xff, ((size_t)ncls + 1) * sizeof(uint32_t));
	for (uint32_t n = 0; n < N; n++) {
		uint32_t c;

		if (map[n] == NONE) {
			node_class[n] = next++;
			continue;
		}
		c = cls[map[n]];
		if (renum[c] == NONE)
			renum[c] = next++;
		node_class[n] = renum[c];
	}
	for (uint32_t i = 0; i < E; i++) {
		uint32_t c;

		if (eidx[i] == NONE) {
			edge_class[i] = next++;
			continue;
		}
		c = cls[eidx[i]];
		if (renum[c] == NONE)
			renum[c] = next++;
		edge_class[i] = renum[c];
	}
	*nclasses = next;
out:
	free(renum);
	free(eidx);
	free(map);
	free(u);
	free(v);
	free(cls);
	reach_free(&r);
	return err;
}
