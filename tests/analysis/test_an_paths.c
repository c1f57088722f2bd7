/* tests/analysis/test_an_paths.c - path reconstruction on hand-built graphs: history, pairs, calls. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "an_paths.h"

#define MAXN 16
#define MAXE 32

struct hg {
	struct an_pnode node[MAXN];
	struct an_pedge pe[MAXE];
	uint32_t to[MAXE];
	uint32_t n, e;
	struct an_pgraph g;
};

/* Node at 0x1000 * (i + 1), len instructions. */
static uint32_t node(struct hg *h, uint32_t len, uint32_t flags, double start_w)
{
	struct an_pnode *v = &h->node[h->n];

	v->addr = 0x1000 * (uint64_t)(h->n + 1);
	v->n = len;
	v->flags = flags;
	v->retpt = UINT32_MAX;
	v->start_w = start_w;
	return h->n++;
}

static void edge(struct hg *h, uint32_t from, uint32_t to, uint8_t kind, bool taken, double w)
{
	h->pe[h->e] = (struct an_pedge){ .from = from, .kind = kind, .flags = taken, .w = w };
	h->to[h->e++] = to;
}

/* Group in-edges by destination (what an_pgraph_build does). */
static const struct an_pgraph *done(struct hg *h)
{
	struct an_pedge tmp[MAXE];
	uint32_t k = 0;

	for (uint32_t v = 0; v < h->n; v++) {
		h->node[v].pred = k;
		for (uint32_t i = 0; i < h->e; i++)
			if (h->to[i] == v)
				tmp[k++] = h->pe[i];
		h->node[v].npred = k - h->node[v].pred;
	}
	memcpy(h->pe, tmp, sizeof(tmp));
	h->g = (struct an_pgraph){ .node = h->node, .nnodes = h->n, .pe = h->pe, .npe = h->e };
	return &h->g;
}

/* Is path i of ps exactly the blocks b[0..n) with that end? */
static bool is_path(const struct an_paths *ps, uint32_t i, const uint32_t *b, uint32_t n,
		    bool begun)
{
	const struct an_path *p = &ps->v[i];

	return p->nblk == n && p->begun == begun && !memcmp(ps->blk + p->first, b, n * sizeof(*b));
}

static bool has(const struct an_paths *ps, const uint32_t *b, uint32_t n, bool begun)
{
	for (uint32_t i = 0; i < ps->n; i++)
		if (is_path(ps, i, b, n, begun))
			return true;
	return false;
}

enum { A, B, C, D };

/* A (entry, beq) -> B (not taken, br) / C (taken, falls) -> D; B->D 30, C->D 70. */
static const struct an_pgraph *diamond(struct hg *h)
{
	memset(h, 0, sizeof(*h));
	node(h, 4, AN_PN_COND | AN_PN_START, 100);
	node(h, 3, 0, 0);
	node(h, 5, 0, 0);
	node(h, 6, 0, 0);
	edge(h, A, B, AN_PE_FLOW, false, 30);
	edge(h, A, C, AN_PE_FLOW, true, 70);
	edge(h, B, D, AN_PE_FLOW, false, 30);
	edge(h, C, D, AN_PE_FLOW, false, 70);
	return done(h);
}

static void test_an_paths_history_picks_the_branch(void **state)
{
	static const uint32_t via_c[] = { D, C, A }, via_b[] = { D, B, A };
	struct an_paths_query q = { .node = D, .off = 2, .bits = 1, .use_history = true };
	struct hg h;
	const struct an_pgraph *g = diamond(&h);
	struct an_paths ps;

	(void)state;
	q.history = 1; /* A's beq taken */
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 1);
	assert_true(is_path(&ps, 0, via_c, 3, true));
	assert_int_equal(ps.v[0].nbranches, 1);
	an_paths_free(&ps);

	q.history = 0; /* not taken */
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 1);
	assert_true(is_path(&ps, 0, via_b, 3, true));
	an_paths_free(&ps);

	/* no history: both, the heavier first, probabilities from the merge at D */
	q.use_history = false;
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 2);
	assert_true(is_path(&ps, 0, via_c, 3, true));
	assert_true(is_path(&ps, 1, via_b, 3, true));
	assert_true(ps.v[0].p > 0.69 && ps.v[0].p < 0.71);
	assert_true(ps.v[1].p > 0.29 && ps.v[1].p < 0.31);
	an_paths_free(&ps);
}

static void test_an_paths_zero_bits_stop_before_the_branch(void **state)
{
	static const uint32_t db[] = { D, B }, dc[] = { D, C };
	struct an_paths_query q = { .node = D, .off = 0, .bits = 0, .use_history = true };
	struct hg h;
	const struct an_pgraph *g = diamond(&h);
	struct an_paths ps;

	(void)state;
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 2);
	assert_true(is_path(&ps, 0, dc, 2, false));
	assert_true(is_path(&ps, 1, db, 2, false));
	assert_int_equal(ps.v[0].nbranches, 0);
	an_paths_free(&ps);
}

static void test_an_paths_partner_discards(void **state)
{
	static const uint32_t via_b[] = { D, B, A };
	struct an_paths_query q = { .node = D, .off = 0, .bits = 1 };
	struct hg h;
	const struct an_pgraph *g = diamond(&h);
	struct an_paths ps;

	(void)state;
	/* the partner is B's last instruction, one fetch before D's first */
	q.partner = h.node[B].addr + 4 * 2;
	q.dist = 1;
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 1);
	assert_true(is_path(&ps, 0, via_b, 3, true));
	assert_int_equal(ps.rejected_partner, 1);
	an_paths_free(&ps);

	/* B's first instruction at a distance the paths cover: still only via B */
	q.partner = h.node[B].addr;
	q.dist = 5;
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 1);
	assert_true(is_path(&ps, 0, via_b, 3, true));
	an_paths_free(&ps);

	/* a partner farther back than either path reaches: nothing can be told */
	q.partner = 0x9000;
	q.dist = 50;
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 2);
	assert_int_equal(ps.rejected_partner, 0);
	an_paths_free(&ps);

	/* but one the paths cover and do not hold rejects both */
	q.dist = 3;
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 0);
	assert_int_equal(ps.rejected_partner, 2);
	an_paths_free(&ps);
}

static void test_an_paths_greedy_follows_counts(void **state)
{
	static const uint32_t via_c[] = { D, C, A }, via_b[] = { D, B, A };
	struct an_paths_query q = { .node = D, .off = 0, .bits = 1, .history = 0 };
	struct hg h;
	const struct an_pgraph *g = diamond(&h);
	struct an_paths ps;

	(void)state;
	assert_int_equal(an_paths_greedy(g, &q, &ps), 0);
	assert_int_equal(ps.n, 1);
	assert_true(is_path(&ps, 0, via_c, 3, true)); /* history ignored */
	an_paths_free(&ps);
	for (uint32_t i = 0; i < h.e; i++) /* swap the weights: now B is heavier */
		h.pe[i].w = 100 - h.pe[i].w;
	assert_int_equal(an_paths_greedy(g, &q, &ps), 0);
	assert_true(is_path(&ps, 0, via_b, 3, true));
	an_paths_free(&ps);
}

/* E (entry) -> L; L: bne back to L (taken) or falls to X. */
static void test_an_paths_loop_counts_iterations(void **state)
{
	enum { E, L, X };
	static const uint32_t ended[] = { X, L, L, L }, begun1[] = { X, L, E },
			      begun3[] = { X, L, L, L, E };
	struct an_paths_query q = { .node = X, .off = 0, .bits = 3, .use_history = true };
	struct hg h;
	struct an_paths ps;
	const struct an_pgraph *g;

	(void)state;
	memset(&h, 0, sizeof(h));
	node(&h, 2, AN_PN_START, 10);
	node(&h, 3, AN_PN_COND, 0);
	node(&h, 1, 0, 0);
	edge(&h, E, L, AN_PE_FLOW, false, 10);
	edge(&h, L, L, AN_PE_FLOW, true, 90);
	edge(&h, L, X, AN_PE_FLOW, false, 10);
	g = done(&h);
	q.history = 0x6; /* newest first: exit (0), then two back edges (1, 1) */
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	/* entered before the first, second or third iteration (the paper's intraprocedural rule:
	 * a path reaching the entry is complete, the older bits are the caller's), or looping
	 * before that */
	assert_int_equal(ps.n, 4);
	assert_true(has(&ps, ended, 4, false));
	assert_true(has(&ps, begun1, 3, true));
	assert_true(has(&ps, begun3, 5, true));
	for (uint32_t i = 1; i < ps.n; i++)
		assert_true(ps.v[i - 1].p >= ps.v[i].p);
	an_paths_free(&ps);

	q.max_steps = 3; /* a walk cut short says so */
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_true(ps.overflow);
	an_paths_free(&ps);
	q.max_steps = 0;

	q.history = 0x7; /* the newest branch taken: it would not have reached X */
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 0);
	an_paths_free(&ps);
}

/* Two callers of f; f's return leads back only to the caller that called it. */
static void test_an_paths_calls_match_returns(void **state)
{
	enum { P1, Q1, P2, Q2, F0, F1, F2 };
	static const uint32_t want[] = { Q1, F2, F0, P1 };
	struct an_paths_query q = { .node = Q1, .off = 0, .bits = 1, .use_history = true };
	struct hg h;
	struct an_paths ps;
	const struct an_pgraph *g;

	(void)state;
	memset(&h, 0, sizeof(h));
	node(&h, 2, AN_PN_START | AN_PN_CALL, 5);
	node(&h, 2, 0, 0);
	node(&h, 2, AN_PN_START | AN_PN_CALL, 5);
	node(&h, 2, 0, 0);
	node(&h, 3, AN_PN_COND, 0);
	node(&h, 1, 0, 0);
	node(&h, 1, 0, 0);
	h.node[P1].retpt = Q1;
	h.node[P2].retpt = Q2;
	edge(&h, P1, F0, AN_PE_CALL, false, 5);
	edge(&h, P2, F0, AN_PE_CALL, false, 5);
	edge(&h, F0, F1, AN_PE_FLOW, false, 5);
	edge(&h, F0, F2, AN_PE_FLOW, true, 5);
	edge(&h, F1, Q1, AN_PE_RET, false, 2);
	edge(&h, F2, Q1, AN_PE_RET, false, 3);
	edge(&h, F1, Q2, AN_PE_RET, false, 3);
	edge(&h, F2, Q2, AN_PE_RET, false, 2);
	g = done(&h);
	q.history = 1;
	assert_int_equal(an_paths_find(g, &q, &ps), 0);
	assert_int_equal(ps.n, 1);
	assert_true(is_path(&ps, 0, want, 4, true));
	an_paths_free(&ps);
}

static void test_an_paths_bad_query(void **state)
{
	struct an_paths_query q = { .node = 99 };
	struct hg h;
	const struct an_pgraph *g = diamond(&h);
	struct an_paths ps;

	(void)state;
	assert_int_equal(an_paths_find(g, &q, &ps), -EINVAL);
	q.node = D;
	q.bits = 17;
	assert_int_equal(an_paths_find(g, &q, &ps), -EINVAL);
	q.bits = 1;
	q.off = 6; /* D has 6 instructions */
	assert_int_equal(an_paths_greedy(g, &q, &ps), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_paths_history_picks_the_branch),
		cmocka_unit_test(test_an_paths_zero_bits_stop_before_the_branch),
		cmocka_unit_test(test_an_paths_partner_discards),
		cmocka_unit_test(test_an_paths_greedy_follows_counts),
		cmocka_unit_test(test_an_paths_loop_counts_iterations),
		cmocka_unit_test(test_an_paths_calls_match_returns),
		cmocka_unit_test(test_an_paths_bad_query),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
