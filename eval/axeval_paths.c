/* eval/axeval_paths.c - `axeval --paths`: ProfileMe Figure 6, path reconstruction vs the truth. */
/*
 * [PM] §5.3, Figure 6: for each sampled instruction, the path segment the machine really took
 * (the EV6 truth's MACH_TRUTH_SEC_PATHS: the retired control transfers before the sample) is
 * compared with the reconstruction from (a) execution counts only (an_paths_greedy, with the
 * truth's exact edge counts, as the paper's traces had), (b) the history bits (an_paths_find),
 * (c) history bits + the paired sample (the first of the pair, when it retired), for history
 * lengths 0..12, intraprocedurally (a path also begins at the routine's entry or after a call)
 * and interprocedurally (through direct calls and returns; the whole image's graph).
 * Success, as in the paper: the analysis produced exactly one path and it is the true one; the
 * "top" columns also count the most likely of several when it is the true one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_paths.h"
#include "an_proc.h"
#include "axeval.h"
#include "ax_err.h"
#include "img.h"
#include "mach_truth.h"

#define NBITS 13 /* history lengths 0..12 (the EV6's path register holds 12) */
#define MAX_PATHS 512u /* more consistent paths than this: a failure */
#define MAX_STEPS 50000u /* a walk longer than this: a failure */

enum { S_COUNTS, S_HIST, S_PAIR, S_NR };

struct tally {
	uint64_t n[NBITS]; /* samples graded */
	uint64_t ok[S_NR][NBITS]; /* unique and true */
	uint64_t top[S_NR][NBITS]; /* most likely is true */
	uint64_t skipped; /* the truth's transfers ran out, or left the CFG */
};

struct ctx {
	const struct mach_truth *t;
	const struct an_procs *ps;
	struct an_pgraph **intra; /* per procedure, built on demand */
	struct an_pgraph *inter;
	struct tally tl[2]; /* intra, inter */
	uint64_t outside; /* samples outside the image */
	uint64_t checked, inconsistent; /* records whose history bits were checked, wrong */
};

/*
 * The truth's own consistency: the record's history bits are the directions of the
 * conditional branches among its transfers, newest first (as far as the transfers stay in the
 * image, where the CFG says which are conditional branches). false: they disagree.
 */
static bool history_agrees(const struct an_pgraph *g, const struct mach_truth_path *r)
{
	unsigned int bit = 0;

	for (unsigned int j = 0; j < r->ndec && bit < 12; j++) {
		uint32_t u = an_pgraph_node_at(g, r->from[j]);
		const struct an_pnode *b = u == UINT32_MAX ? NULL : &g->node[u];

		if (!b)
			return true; /* left the image: its branches are unknown here */
		if (!(b->flags & AN_PN_COND) || b->addr + 4 * (uint64_t)(b->n - 1) != r->from[j])
			continue;
		if (((r->history >> bit++) & 1) != (r->to[j] != r->from[j] + 4))
			return false;
	}
	return true;
}

static double weight(void *priv, uint64_t from, uint64_t to)
{
	const struct mach_truth *t = priv;
	const struct mach_truth_pc *r;

	if (from)
		return (double)mach_truth_edge_count(t, from, to);
	r = mach_truth_find(t, to);
	return r ? (double)r->exec : 0;
}

/* Is there an in-edge u -> v in g? */
static bool has_edge(const struct an_pgraph *g, uint32_t u, uint32_t v)
{
	const struct an_pnode *b = &g->node[v];

	for (uint32_t i = 0; i < b->npred; i++)
		if (g->pe[b->pred + i].from == u)
			return true;
	return false;
}

/*
 * The true path with `bits` history bits in g, in the form an_paths_find gives (one path in
 * *tp). false when the truth cannot tell (its transfers ran out, or control came by a way the
 * CFG does not have).
 */
static bool true_path(const struct an_pgraph *g, const struct mach_truth_path *r, unsigned int bits,
		      struct an_paths *tp, uint32_t *blk)
{
	uint32_t v = an_pgraph_node_at(g, r->pc), n = 0, k = 0, j = 0;
	struct an_path p = { 0 };

	blk[n++] = v;
	for (;;) {
		uint64_t a = g->node[v].addr, from;
		uint32_t u;
		bool dec = j < r->ndec && r->to[j] == a;

		if (n == 256) {
			p.truncated = true;
			break;
		}
		if (!dec && j == r->ndec && r->ndec == MACH_TRUTH_PATH_DECS)
			return false; /* older transfers not recorded */
		from = dec ? r->from[j] : a - 4;
		u = an_pgraph_node_at(g, from);
		if (u == UINT32_MAX || !has_edge(g, u, v)) {
			if (!(g->node[v].flags & AN_PN_START))
				return false;
			p.begun = true;
			break;
		}
		if (g->node[u].addr + 4 * (uint64_t)(g->node[u].n - 1) != from)
			return false; /* a transfer from inside a block: the CFG lacks an edge */
		if (!dec && (g->node[u].flags & AN_PN_COND))
			return false; /* its direction was not recorded */
		if (g->node[u].flags & AN_PN_COND) {
			if (k == bits)
				break;
			k++;
		}
		j += dec;
		blk[n++] = u;
		v = u;
	}
	p.nbranches = k;
	p.nblk = n;
	tp->n = 1;
	tp->blk = blk;
	tp->v = malloc(sizeof(p));
	if (!tp->v)
		return false;
	*tp->v = p;
	return true;
}

static void grade(const struct an_pgraph *g, const struct mach_truth_path *r, struct tally *tl)
{
	uint32_t blk[256];

	for (unsigned int bits = 0; bits < NBITS; bits++) {
		struct an_paths_query q = { .node = an_pgraph_node_at(g, r->pc),
					    .bits = bits,
					    .history = r->history,
					    .max_paths = MAX_PATHS,
					    .max_steps = MAX_STEPS };
		struct an_paths tp = { 0 }, got;

		if (!true_path(g, r, bits, &tp, blk)) {
			tl->skipped += bits == 0;
			return; /* longer paths cannot be told either */
		}
		q.off = (uint32_t)((r->pc - g->node[q.node].addr) / 4);
		tl->n[bits]++;
		for (int s = 0; s < S_NR; s++) {
			int ret;

			q.use_history = s != S_COUNTS;
			q.partner = s == S_PAIR ? r->partner : 0;
			q.dist = r->dist;
			ret = s == S_COUNTS ? an_paths_greedy(g, &q, &got) :
					      an_paths_find(g, &q, &got);
			if (ret)
				continue;
			if (got.n && !got.overflow && an_path_equal(&got, 0, &tp, 0)) {
				tl->top[s][bits]++;
				tl->ok[s][bits] += got.n == 1;
			}
			an_paths_free(&got);
		}
		free(tp.v);
	}
}

static int one_sample(struct ctx *c, const struct mach_truth_path *r)
{
	const struct an_proc *p = an_procs_at(c->ps, r->pc);
	size_t pi;
	int ret;

	if (!p) {
		c->outside++;
		return 0;
	}
	pi = (size_t)(p - c->ps->v);
	if (!c->intra[pi]) {
		ret = an_pgraph_build(c->ps, pi, pi + 1, false, weight, (void *)c->t, &c->intra[pi],
				      NULL);
		if (ret)
			return ret;
	}
	if (an_pgraph_node_at(c->intra[pi], r->pc) == UINT32_MAX) {
		c->outside++;
		return 0;
	}
	c->checked++;
	c->inconsistent += !history_agrees(c->inter, r);
	grade(c->intra[pi], r, &c->tl[0]);
	grade(c->inter, r, &c->tl[1]);
	return 0;
}

static void print_tally(const char *what, const struct tally *tl)
{
	printf("  %s (%" PRIu64 " samples at 0 bits; %" PRIu64 " the truth could not tell)\n", what,
	       tl->n[0], tl->skipped);
	printf("    bits  samples   counts  history  hist+pairs   (unique and true; most likely "
	       "true)\n");
	for (unsigned int b = 0; b < NBITS; b++) {
		double n = tl->n[b] ? (double)tl->n[b] : 1;

		printf("    %4u %8" PRIu64, b, tl->n[b]);
		for (int s = 0; s < S_NR; s++)
			printf("  %5.1f%%/%5.1f%%", 100.0 * (double)tl->ok[s][b] / n,
			       100.0 * (double)tl->top[s][b] / n);
		printf("\n");
	}
}

/* The paper's ordering at 8..12 bits: history >= counts and pairs >= history. */
static bool ordered(const struct tally *tl)
{
	for (unsigned int b = 8; b < NBITS; b++)
		if (tl->top[S_HIST][b] < tl->top[S_COUNTS][b] ||
		    tl->top[S_PAIR][b] < tl->top[S_HIST][b])
			return false;
	return true;
}

static int run_one(const char *name, const char *image, const char *truth, struct tally *tot)
{
	struct ax_error err = { 0 };
	struct mach_truth *t = NULL;
	struct an_procs *ps = NULL;
	struct img *im = NULL;
	struct ctx c = { 0 };
	int ret;

	ret = mach_truth_read(truth, &t, &err);
	if (!ret)
		ret = img_open(image, 0, &im, &err);
	if (!ret)
		ret = an_procs_find(im, &ps, &err);
	if (!ret && !t->npaths) {
		fprintf(stderr,
			"axeval: %s: %s has no path records (record with --cpu ev6 --mode "
			"profileme, pairs and --truth)\n",
			name, truth);
		ret = -EINVAL;
	}
	if (!ret) {
		c.t = t;
		c.ps = ps;
		c.intra = calloc(ps->n ? ps->n : 1, sizeof(*c.intra));
		ret = c.intra ? an_pgraph_build(ps, 0, ps->n, true, weight, t, &c.inter, &err) :
				-ENOMEM;
	}
	for (size_t i = 0; !ret && i < t->npaths; i++)
		ret = one_sample(&c, &t->paths[i]);
	if (ret)
		fprintf(stderr, "axeval: %s: %s\n", name, err.msg[0] ? err.msg : strerror(-ret));
	else {
		printf("%s: %zu path samples, %" PRIu64
		       " outside %s; history bits disagreeing with "
		       "the recorded branches: %" PRIu64 " of %" PRIu64 "\n",
		       name, t->npaths, c.outside, image, c.inconsistent, c.checked);
		if (c.inconsistent)
			ret = -EBADMSG;
		print_tally("intraprocedural", &c.tl[0]);
		print_tally("interprocedural", &c.tl[1]);
		for (int m = 0; m < 2; m++)
			for (unsigned int b = 0; b < NBITS; b++) {
				tot[m].n[b] += c.tl[m].n[b];
				for (int s = 0; s < S_NR; s++) {
					tot[m].ok[s][b] += c.tl[m].ok[s][b];
					tot[m].top[s][b] += c.tl[m].top[s][b];
				}
			}
		for (int m = 0; m < 2; m++)
			tot[m].skipped += c.tl[m].skipped;
	}
	for (size_t i = 0; c.intra && i < ps->n; i++)
		an_pgraph_free(c.intra[i]);
	free(c.intra);
	an_pgraph_free(c.inter);
	an_procs_free(ps);
	if (im)
		img_close(im);
	mach_truth_free(t);
	return ret ? 1 : 0;
}

int axeval_paths(char **runs, int nargs)
{
	struct tally tot[2];
	int status = 0;

	memset(tot, 0, sizeof(tot));
	for (int i = 0; i + 2 < nargs; i += 3)
		status |= run_one(runs[i], runs[i + 1], runs[i + 2], tot);
	printf("all workloads:\n");
	print_tally("intraprocedural", &tot[0]);
	print_tally("interprocedural", &tot[1]);
	/* [PM] §5.3 Figure 6: the seed's text gives the curves' shapes, not their values */
	printf("paper (ProfileMe MICRO'97 Fig. 6, SPECint95): the seed states no values, only that "
	       "history bits beat execution counts, pairs improve on history bits, every method "
	       "falls with longer paths and is lower interprocedurally\n");
	printf("ordering at 8-12 bits (pairs >= history >= counts): intraprocedural %s, "
	       "interprocedural %s\n",
	       ordered(&tot[0]) ? "holds" : "FAILS", ordered(&tot[1]) ? "holds" : "FAILS");
	return status;
}
