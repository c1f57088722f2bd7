/* tests/analysis/test_an_cyceq.c - cycle equivalence: published graphs, our graphs, brute force. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "an_cyceq.h"

#define MAXN 64
#define MAXE 256

struct g {
	uint32_t n, e;
	uint32_t src[MAXE], dst[MAXE];
	uint32_t entry, exit;
};

static uint32_t add(struct g *g, uint32_t a, uint32_t b)
{
	assert_true(g->e < MAXE);
	g->src[g->e] = a;
	g->dst[g->e] = b;
	return g->e++;
}

static struct an_cyceq_graph view(const struct g *g)
{
	return (struct an_cyceq_graph){ .nnodes = g->n,
					.nedges = g->e,
					.src = g->src,
					.dst = g->dst,
					.entry = g->entry,
					.exit = g->exit };
}

/* Run the algorithm. */
static uint32_t classes(const struct g *g, uint32_t *nc, uint32_t *ec)
{
	struct an_cyceq_graph v = view(g);
	uint32_t k = 0;

	assert_int_equal(an_cyceq_classes(&v, nc, ec, &k), 0);
	return k;
}

/*
 * Expected edge partition: grp[i] is a group label per edge; edges share a class iff they share
 * a label.
 */
static void expect_edge_partition(const struct g *g, const uint32_t *ec, const int *grp)
{
	for (uint32_t i = 0; i < g->e; i++)
		for (uint32_t j = 0; j < g->e; j++) {
			bool want = grp[i] == grp[j], got = ec[i] == ec[j];

			if (want != got)
				fail_msg("edges %u (%u->%u) and %u (%u->%u): expected %s class", i,
					 g->src[i], g->dst[i], j, g->src[j], g->dst[j],
					 want ? "the same" : "different");
		}
}

/* ------------------------------------------------------------------------------------------ */
/* Graphs from CQCL/hugr hugr-passes/src/nest_cfgs.rs tests (expected classes as published). */

enum { EN, SPLIT, LEFT, RIGHT, MERGE, HEAD, TAIL, EX, NN };

/*               /-> left --\
 * entry -> split            > merge -> head -> tail -> exit
 *               \-> right -/             \-<--<-/          (test_cond_then_loop_separate) */
static void test_an_cyceq_hugr_cond_then_loop_separate(void **state)
{
	struct g g = { .n = NN, .entry = EN, .exit = EX };
	uint32_t nc[NN], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, EN, SPLIT)] = 5;
	grp[add(&g, SPLIT, LEFT)] = 1;
	grp[add(&g, SPLIT, RIGHT)] = 2;
	grp[add(&g, LEFT, MERGE)] = 1;
	grp[add(&g, RIGHT, MERGE)] = 2;
	grp[add(&g, MERGE, HEAD)] = 5;
	grp[add(&g, HEAD, TAIL)] = 3;
	grp[add(&g, TAIL, HEAD)] = 4;
	grp[add(&g, TAIL, EX)] = 5;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
	/* nodes: entry, split, merge, exit run once; head and tail with the loop body edge */
	assert_int_equal(nc[EN], ec[0]);
	assert_int_equal(nc[SPLIT], ec[0]);
	assert_int_equal(nc[MERGE], ec[0]);
	assert_int_equal(nc[EX], ec[0]);
	assert_int_equal(nc[LEFT], ec[1]);
	assert_int_equal(nc[RIGHT], ec[2]);
	assert_int_equal(nc[HEAD], ec[6]);
	assert_int_equal(nc[TAIL], ec[6]);
}

/*      /-> left --\
 * entry            > merge -> tail -> exit
 *      \-> right -/     \-<--<-/                              (test_cond_then_loop_combined) */
static void test_an_cyceq_hugr_cond_then_loop_combined(void **state)
{
	struct g g = { .n = NN, .entry = EN, .exit = EX };
	uint32_t nc[NN], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, EN, LEFT)] = 1;
	grp[add(&g, EN, RIGHT)] = 2;
	grp[add(&g, LEFT, MERGE)] = 1;
	grp[add(&g, RIGHT, MERGE)] = 2;
	grp[add(&g, MERGE, TAIL)] = 4;
	grp[add(&g, TAIL, MERGE)] = 5;
	grp[add(&g, TAIL, EX)] = 3;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
}

/*                        /-> left --\
 *  entry -> head -> split            > merge -> tail -> exit
 *             |          \-> right -/             |
 *             \---<---<---<---<---<---<---<---<---/     (test_cond_in_loop_separate_headers) */
static void test_an_cyceq_hugr_cond_in_loop_separate_headers(void **state)
{
	struct g g = { .n = NN, .entry = EN, .exit = EX };
	uint32_t nc[NN], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, EN, HEAD)] = 4;
	grp[add(&g, HEAD, SPLIT)] = 3;
	grp[add(&g, SPLIT, LEFT)] = 1;
	grp[add(&g, SPLIT, RIGHT)] = 2;
	grp[add(&g, LEFT, MERGE)] = 1;
	grp[add(&g, RIGHT, MERGE)] = 2;
	grp[add(&g, MERGE, TAIL)] = 3;
	grp[add(&g, TAIL, HEAD)] = 5;
	grp[add(&g, TAIL, EX)] = 4;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
	assert_int_equal(nc[HEAD], ec[1]);
	assert_int_equal(nc[SPLIT], ec[1]);
	assert_int_equal(nc[MERGE], ec[1]);
	assert_int_equal(nc[TAIL], ec[1]);
}

/*               /-> left --\
 *  entry -> head            > merge -> tail -> exit
 *            |  \-> right -/             |
 *             \---<---<---<---<---<--<---/              (test_cond_in_loop_combined_headers) */
static void test_an_cyceq_hugr_cond_in_loop_combined_headers(void **state)
{
	struct g g = { .n = NN, .entry = EN, .exit = EX };
	uint32_t nc[NN], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, EN, HEAD)] = 4;
	grp[add(&g, HEAD, LEFT)] = 1;
	grp[add(&g, HEAD, RIGHT)] = 2;
	grp[add(&g, LEFT, MERGE)] = 1;
	grp[add(&g, RIGHT, MERGE)] = 2;
	grp[add(&g, MERGE, TAIL)] = 3;
	grp[add(&g, TAIL, HEAD)] = 5;
	grp[add(&g, TAIL, EX)] = 4;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
}

/* ------------------------------------------------------------------------------------------ */
/* Our graphs. */

/* if (c) A else B; C; return */
static void test_an_cyceq_if_then_else(void **state)
{
	enum { E, C0, A, B, J, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	uint32_t nc[N], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, E, C0)] = 0;
	grp[add(&g, C0, A)] = 1;
	grp[add(&g, C0, B)] = 2;
	grp[add(&g, A, J)] = 1;
	grp[add(&g, B, J)] = 2;
	grp[add(&g, J, X)] = 0;
	assert_int_equal(classes(&g, nc, ec), 3);
	expect_edge_partition(&g, ec, grp);
	assert_int_equal(nc[E], nc[J]);
	assert_int_equal(nc[A], ec[1]);
	assert_int_equal(nc[B], ec[2]);
	assert_int_not_equal(nc[A], nc[B]);
}

/* for (i) { for (j) body; tail } */
static void test_an_cyceq_nested_loops(void **state)
{
	enum { E, OH, IH, BODY, OT, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	uint32_t nc[N], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, E, OH)] = 0;
	grp[add(&g, OH, IH)] = 1; /* outer iterations */
	grp[add(&g, IH, BODY)] = 2; /* inner iterations */
	grp[add(&g, BODY, IH)] = 2; /* inner back edge: the body's only way out */
	grp[add(&g, IH, OT)] = 1;
	grp[add(&g, OT, OH)] = 1; /* outer back edge */
	grp[add(&g, OH, X)] = 0;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
	assert_int_equal(nc[OT], ec[1]);
	assert_int_equal(nc[BODY], ec[3]); /* body runs as often as its back edge */
	assert_int_not_equal(nc[IH], nc[BODY]);
	assert_int_not_equal(nc[OH], nc[E]);
}

/* while (1) { if (c) break; body } ; after */
static void test_an_cyceq_loop_with_break(void **state)
{
	enum { E, H, BODY, AFTER, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	uint32_t nc[N], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, E, H)] = 0;
	grp[add(&g, H, AFTER)] = 0; /* the break: taken once per run */
	grp[add(&g, H, BODY)] = 1;
	grp[add(&g, BODY, H)] = 1;
	grp[add(&g, AFTER, X)] = 0;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
	assert_int_equal(nc[BODY], ec[2]);
	assert_int_equal(nc[AFTER], ec[0]);
	assert_int_not_equal(nc[H], ec[0]);
}

/* Irreducible: entry branches into the middle of a two-node cycle. */
static void test_an_cyceq_irreducible(void **state)
{
	enum { E, A, B, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	uint32_t nc[N], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, E, A)] = 0;
	grp[add(&g, E, B)] = 1;
	grp[add(&g, A, B)] = 2;
	grp[add(&g, B, A)] = 3;
	grp[add(&g, A, X)] = 4;
	grp[add(&g, B, X)] = 5;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
	assert_int_not_equal(nc[A], nc[B]);
	assert_int_not_equal(nc[A], nc[E]);
}

/* An idle loop: entry -> init -> loop (self-loop, no way out); exit unreachable. */
static void test_an_cyceq_infinite_loop(void **state)
{
	enum { E, INIT, L, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	struct an_cyceq_graph v;
	uint32_t nc[N], ec[MAXE], extra[N], nextra = 99;
	int grp[16];

	(void)state;
	grp[add(&g, E, INIT)] = 0;
	grp[add(&g, INIT, L)] = 0;
	grp[add(&g, L, L)] = 1;
	v = view(&g);
	assert_int_equal(an_cyceq_exitless(&v, extra, &nextra), 0);
	assert_int_equal(nextra, 1);
	assert_int_equal(extra[0], L);
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
	assert_int_equal(nc[INIT], ec[0]);
	assert_int_equal(nc[E], ec[0]);
	assert_int_not_equal(nc[L], ec[0]);
	assert_int_not_equal(nc[L], ec[2]);
}

/* An OS idle loop of two blocks next to normal code: only the sink component gets the edge. */
static void test_an_cyceq_infinite_loop_two_blocks(void **state)
{
	enum { E, C0, H, T, R, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	struct an_cyceq_graph v;
	uint32_t nc[N], ec[MAXE], extra[N], nextra = 99;

	(void)state;
	add(&g, E, C0);
	add(&g, C0, H); /* into the idle loop */
	add(&g, C0, R);
	add(&g, H, T);
	add(&g, T, H);
	add(&g, R, X);
	v = view(&g);
	assert_int_equal(an_cyceq_exitless(&v, extra, &nextra), 0);
	assert_int_equal(nextra, 1);
	assert_int_equal(extra[0], H); /* the loop header: reached first from entry */
	classes(&g, nc, ec);
	assert_int_equal(ec[0], nc[C0]);
	assert_int_equal(ec[0], nc[E]);
	assert_int_equal(ec[2], ec[5]); /* the normal path */
	assert_int_equal(ec[2], nc[R]);
	assert_int_equal(ec[3], ec[4]); /* H->T and T->H alternate */
	assert_int_equal(ec[3], nc[T]);
	assert_int_not_equal(ec[1], nc[H]); /* entered once, iterated many times */
	assert_int_not_equal(ec[1], ec[3]);
	assert_int_not_equal(ec[1], ec[0]);
}

/* Several returns: each return edge is its own class; the procedure entry joins the exit. */
static void test_an_cyceq_multiple_returns(void **state)
{
	enum { E, A, B, C1, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	uint32_t nc[N], ec[MAXE];
	int grp[16];

	(void)state;
	grp[add(&g, E, A)] = 0;
	grp[add(&g, A, X)] = 1; /* early return */
	grp[add(&g, A, B)] = 2;
	grp[add(&g, B, X)] = 3; /* second return */
	grp[add(&g, B, C1)] = 4;
	grp[add(&g, C1, X)] = 4;
	classes(&g, nc, ec);
	expect_edge_partition(&g, ec, grp);
	assert_int_equal(nc[A], ec[0]);
	assert_int_equal(nc[B], ec[2]);
	assert_int_equal(nc[C1], ec[4]);
	assert_int_equal(nc[X], ec[0]);
}

/* Parallel edges (a branch to the next block) and an unreachable block. */
static void test_an_cyceq_parallel_and_unreachable(void **state)
{
	enum { E, A, B, U, X, N };
	struct g g = { .n = N, .entry = E, .exit = X };
	uint32_t nc[N], ec[MAXE];

	(void)state;
	add(&g, E, A);
	add(&g, A, B); /* taken */
	add(&g, A, B); /* fall-through */
	add(&g, B, X);
	add(&g, U, B); /* padding falling into B, never executed */
	classes(&g, nc, ec);
	assert_int_equal(ec[0], ec[3]);
	assert_int_not_equal(ec[1], ec[2]);
	assert_int_not_equal(ec[1], ec[0]);
	assert_int_equal(nc[B], ec[0]);
	for (uint32_t i = 0; i < g.e; i++)
		assert_int_not_equal(nc[U], ec[i]);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_not_equal(ec[4], ec[i]);
	for (uint32_t n = 0; n < N; n++)
		if (n != U)
			assert_int_not_equal(nc[U], nc[n]);
}

static void test_an_cyceq_bad_input(void **state)
{
	uint32_t src[1] = { 0 }, dst[1] = { 7 }, nc[3], ec[1], k;
	struct an_cyceq_graph g = {
		.nnodes = 3, .nedges = 1, .src = src, .dst = dst, .entry = 0, .exit = 2
	};

	(void)state;
	assert_int_equal(an_cyceq_classes(&g, nc, ec, &k), -EINVAL);
	dst[0] = 1;
	g.exit = 0;
	assert_int_equal(an_cyceq_classes(&g, nc, ec, &k), -EINVAL);
	g.exit = 2;
	assert_int_equal(an_cyceq_classes(&g, nc, ec, &k), 0);
	assert_int_equal(an_cyceq_undirected(2, 1, src, dst, 5, ec, &k), -EINVAL);
}

/* ------------------------------------------------------------------------------------------ */
/* Brute force on random graphs. */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/*
 * The split, augmented graph the definition talks about: node k -> k_in = 2k, k_out = 2k+1;
 * element k < n is node k's edge, element n + i is CFG edge i; then the artificial edges.
 */
struct sg {
	uint32_t nv, ne;
	uint32_t a[2 * MAXE], b[2 * MAXE];
	bool on[2 * MAXE]; /* element in the reached part */
};

/* Is there a directed path from `from` to `to` avoiding elements x and y? */
static bool path(const struct sg *s, uint32_t from, uint32_t to, uint32_t x, uint32_t y)
{
	bool seen[2 * MAXN + 2] = { false };
	uint32_t q[2 * MAXN + 2], qh = 0, qt = 0;

	seen[from] = true;
	q[qt++] = from;
	while (qh < qt) {
		uint32_t v = q[qh++];

		if (v == to)
			return true;
		for (uint32_t i = 0; i < s->ne; i++)
			if (s->on[i] && i != x && i != y && s->a[i] == v && !seen[s->b[i]]) {
				seen[s->b[i]] = true;
				q[qt++] = s->b[i];
			}
	}
	return false;
}

/* Undirected: are u and v connected avoiding x and y? */
static bool upath(const struct sg *s, uint32_t from, uint32_t to, uint32_t x, uint32_t y)
{
	bool seen[2 * MAXN + 2] = { false };
	uint32_t q[2 * MAXN + 2], qh = 0, qt = 0;

	seen[from] = true;
	q[qt++] = from;
	while (qh < qt) {
		uint32_t v = q[qh++];

		if (v == to)
			return true;
		for (uint32_t i = 0; i < s->ne; i++) {
			uint32_t w;

			if (!s->on[i] || i == x || i == y)
				continue;
			if (s->a[i] == v)
				w = s->b[i];
			else if (s->b[i] == v)
				w = s->a[i];
			else
				continue;
			if (!seen[w]) {
				seen[w] = true;
				q[qt++] = w;
			}
		}
	}
	return false;
}

/* Element x lies on a (directed) cycle that avoids y. */
static bool cycle_avoiding(const struct sg *s, uint32_t x, uint32_t y, bool directed)
{
	if (directed)
		return path(s, s->b[x], s->a[x], x, y);
	return upath(s, s->b[x], s->a[x], x, y);
}

static void reach_from(const struct g *g, uint32_t from, bool *seen)
{
	uint32_t q[MAXN], qh = 0, qt = 0;

	memset(seen, 0, MAXN * sizeof(*seen));
	seen[from] = true;
	q[qt++] = from;
	while (qh < qt) {
		uint32_t v = q[qh++];

		for (uint32_t i = 0; i < g->e; i++)
			if (g->src[i] == v && !seen[g->dst[i]]) {
				seen[g->dst[i]] = true;
				q[qt++] = g->dst[i];
			}
	}
}

static void random_graph(struct g *g, bool exit_succ)
{
	uint32_t n = 3 + rnd(9), m;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->entry = 0;
	g->exit = n - 1;
	/* most nodes hang off an earlier node, so most are reachable */
	for (uint32_t k = 1; k < n; k++)
		if (rnd(8))
			add(g, rnd(k), k);
	m = rnd(2 * n + 1);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t a = rnd(n), b = rnd(n);

		if (a == g->exit && !exit_succ)
			continue;
		add(g, a, b);
	}
}

static void check_random(const struct g *g)
{
	struct an_cyceq_graph v = view(g);
	uint32_t nc[MAXN], ec[MAXE], extra[MAXN], nextra = 0, k = 0;
	uint32_t cls[2 * MAXE];
	bool fwd[MAXN], seen[MAXN];
	struct sg s = { 0 };
	uint32_t nel = g->n + g->e;

	assert_int_equal(an_cyceq_classes(&v, nc, ec, &k), 0);
	assert_int_equal(an_cyceq_exitless(&v, extra, &nextra), 0);
	reach_from(g, g->entry, fwd);

	/* extra edges: each from a reached node that cannot reach exit, one per sink component */
	for (uint32_t i = 0; i < nextra; i++) {
		assert_true(fwd[extra[i]]);
		reach_from(g, extra[i], seen);
		assert_false(seen[g->exit]);
		for (uint32_t n = 0; n < g->n; n++) /* a sink component: everything it reaches */
			if (seen[n]) { /* reaches it back */
				bool back[MAXN];

				reach_from(g, n, back);
				assert_true(back[extra[i]]);
			}
		for (uint32_t j = 0; j < i; j++) /* distinct components */
			assert_false(seen[extra[j]]);
	}
	/* after adding them, every reached node reaches exit */
	for (uint32_t n = 0; n < g->n; n++) {
		bool ok;

		if (!fwd[n])
			continue;
		reach_from(g, n, seen);
		ok = seen[g->exit];
		for (uint32_t i = 0; i < nextra && !ok; i++)
			ok = seen[extra[i]];
		assert_true(ok);
	}

	/* classes are dense */
	for (uint32_t c = 0; c < k; c++) {
		bool used = false;

		for (uint32_t n = 0; n < g->n && !used; n++)
			used = nc[n] == c;
		for (uint32_t i = 0; i < g->e && !used; i++)
			used = ec[i] == c;
		assert_true(used);
	}

	/* the split graph with exit->entry and the extra edges */
	s.nv = 2 * g->n;
	for (uint32_t n = 0; n < g->n; n++) {
		s.a[s.ne] = 2 * n;
		s.b[s.ne] = 2 * n + 1;
		s.on[s.ne] = fwd[n] || n == g->exit;
		cls[s.ne++] = nc[n];
	}
	for (uint32_t i = 0; i < g->e; i++) {
		s.a[s.ne] = 2 * g->src[i] + 1;
		s.b[s.ne] = 2 * g->dst[i];
		s.on[s.ne] = (fwd[g->src[i]] || g->src[i] == g->exit) &&
			     (fwd[g->dst[i]] || g->dst[i] == g->exit);
		cls[s.ne++] = ec[i];
	}
	for (uint32_t i = 0; i < nextra; i++) {
		s.a[s.ne] = 2 * extra[i] + 1;
		s.b[s.ne] = 2 * g->exit;
		s.on[s.ne++] = true;
	}
	s.a[s.ne] = 2 * g->exit + 1;
	s.b[s.ne] = 2 * g->entry;
	s.on[s.ne++] = true;

	for (uint32_t x = 0; x < nel; x++) {
		for (uint32_t y = x + 1; y < nel; y++) {
			bool want, wantu, got = cls[x] == cls[y];

			if (!s.on[x] || !s.on[y]) {
				if (got)
					fail_msg(
						"element %u or %u is unreached but shares class %u",
						x, y, cls[x]);
				continue;
			}
			want = !cycle_avoiding(&s, x, y, true) && !cycle_avoiding(&s, y, x, true);
			wantu = !cycle_avoiding(&s, x, y, false) &&
				!cycle_avoiding(&s, y, x, false);
			if (want != wantu)
				fail_msg(
					"directed and undirected cycle equivalence differ (%u, %u)",
					x, y);
			if (want != got) {
				for (uint32_t i = 0; i < g->e; i++)
					fprintf(stderr, "  edge %u: %u -> %u (class %u)\n", i,
						g->src[i], g->dst[i], ec[i]);
				for (uint32_t n = 0; n < g->n; n++)
					fprintf(stderr, "  node %u class %u%s\n", n, nc[n],
						fwd[n] ? "" : " (unreached)");
				fail_msg("elements %u and %u: brute force says %s, algorithm %s", x,
					 y, want ? "equivalent" : "not",
					 got ? "equivalent" : "not");
			}
		}
	}
}

static void test_an_cyceq_random_vs_brute_force(void **state)
{
	struct g g;

	(void)state;
	for (int i = 0; i < 4000; i++) {
		random_graph(&g, false);
		check_random(&g);
	}
}

static void test_an_cyceq_random_exit_with_successors(void **state)
{
	struct g g;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		random_graph(&g, true);
		check_random(&g);
	}
}

/* A long chain of nested loops: the iterative DFS and the bracket lists stay linear. */
static void test_an_cyceq_deep_graph(void **state)
{
	uint32_t n = 200000, ne = 0, *src, *dst, *nc, *ec, k;
	struct an_cyceq_graph g;

	(void)state;
	src = malloc(3 * n * sizeof(*src));
	dst = malloc(3 * n * sizeof(*dst));
	nc = malloc(n * sizeof(*nc));
	ec = malloc(3 * n * sizeof(*ec));
	assert_non_null(src);
	assert_non_null(dst);
	assert_non_null(nc);
	assert_non_null(ec);
	for (uint32_t i = 0; i + 1 < n; i++) {
		src[ne] = i;
		dst[ne++] = i + 1;
		if (i > 0 && i < n / 2) { /* loop i .. n-1-i */
			src[ne] = n - 1 - i;
			dst[ne++] = i;
		}
	}
	g = (struct an_cyceq_graph){
		.nnodes = n, .nedges = ne, .src = src, .dst = dst, .entry = 0, .exit = n - 1
	};
	assert_int_equal(an_cyceq_classes(&g, nc, ec, &k), 0);
	/* chain edges i->i+1 and n-2-i -> n-1-i are the two ends of loop level i */
	assert_int_equal(ec[0], nc[0]);
	assert_int_not_equal(nc[1], nc[2]);
	assert_true(k > n / 2);
	free(src);
	free(dst);
	free(nc);
	free(ec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_cyceq_hugr_cond_then_loop_separate),
		cmocka_unit_test(test_an_cyceq_hugr_cond_then_loop_combined),
		cmocka_unit_test(test_an_cyceq_hugr_cond_in_loop_separate_headers),
		cmocka_unit_test(test_an_cyceq_hugr_cond_in_loop_combined_headers),
		cmocka_unit_test(test_an_cyceq_if_then_else),
		cmocka_unit_test(test_an_cyceq_nested_loops),
		cmocka_unit_test(test_an_cyceq_loop_with_break),
		cmocka_unit_test(test_an_cyceq_irreducible),
		cmocka_unit_test(test_an_cyceq_infinite_loop),
		cmocka_unit_test(test_an_cyceq_infinite_loop_two_blocks),
		cmocka_unit_test(test_an_cyceq_multiple_returns),
		cmocka_unit_test(test_an_cyceq_parallel_and_unreachable),
		cmocka_unit_test(test_an_cyceq_bad_input),
		cmocka_unit_test(test_an_cyceq_random_vs_brute_force),
		cmocka_unit_test(test_an_cyceq_random_exit_with_successors),
		cmocka_unit_test(test_an_cyceq_deep_graph),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
