/* tools/axprof/builtin-paths.c - axprof paths: the hottest paths reaching hot instructions. */
/*
 * [PM] ProfileMe, MICRO'97 §5.3 "Path profiles". For each hot instruction I of one procedure
 * (by ProfileMe samples, pdb.h PDB_FT_PROFILEME), the path segments reaching it are found from
 * the database's history and partner lists (PDB_FT_PMPATHS) with analysis/an_paths:
 *  - the graph is the procedure's (an_pgraph_build, intraprocedural) weighted by ProfileMe's
 *    estimates: a block executes (mean retired samples of its instructions) x S times, S the
 *    mean interval; a conditional branch's taken share is its taken samples over its retired
 *    ones (the `taken` event; 1/2 without samples);
 *  - each history value h of I's history hotlist, cut to L bits (--bits), holds the share
 *    est(h) / n of I's executions; an_paths_find lists the paths consistent with it, each with
 *    its Markov probability from the graph's weights (normalised over the list);
 *  - with --pairs, the partners fetched before I (distance d, partner pc a) re-weight them: one
 *    EM step per round over the partner observations, each observation spreading its count over
 *    the candidates consistent with it (an_paths_find with the partner), observations that no
 *    candidate of h explains being left out. The lists are stored apart, so this treats each
 *    partner as independent of the history it came with (an approximation: the paper pairs
 *    them per sample);
 *  - a path's estimated frequency is I's executions x share(h) x its weight, summed over the
 *    history values it is consistent with (a path with fewer branches than L matches several);
 *    the share of histories the hotlist does not hold (values too rare to be kept) goes to the
 *    paths by the graph's weights alone (an_paths_find without history: execution counts).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "an_paths.h"
#include "an_proc.h"
#include "ax_err.h"
#include "ax_json.h"
#include "pdb.h"
#include "tl_opts.h"
#include "tl_view.h"

#define MAX_PATHS 512u /* consistent paths listed per history value */
#define MAX_STEPS 200000u /* blocks a walk may visit */
#define EM_ROUNDS 20 /* re-weighting rounds with the partners */

struct pa_args {
	struct tl_ropts ro;
	const char *proc;
	unsigned int bits;
	bool pairs;
	unsigned int npaths;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof paths [-d DIR] [--epoch N] --image NAME --proc NAME [--bits L]\n"
		"                    [--pairs|--no-pairs] [-n N] [--paths K] [--min-samples K]\n"
		"                    [--percent-limit P] [--sort samples|address] [--skip-damaged]\n"
		"                    [--json]\n\n"
		"For each hot instruction of a procedure (by ProfileMe samples from `axprof record\n"
		"--mode profileme --cpu ev6`), the hottest path segments reaching it, reconstructed\n"
		"from the global branch history recorded with each sample and from paired samples\n"
		"(MICRO'97 5.3), with estimated frequencies (the history value's share x the\n"
		"instruction's estimated executions). A segment runs from the L-th most recent\n"
		"conditional branch (or the procedure's entry, or a call's return point) to the\n"
		"instruction; its blocks are shown oldest first as address ranges.\n\n"
		"  -d, --db DIR      the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N         that epoch (default the current one)\n"
		"  --image NAME      the image (key, path or file name)\n"
		"  --proc NAME       the procedure\n"
		"  --bits L          history bits to use, 0..12 (default 8)\n"
		"  --pairs           weigh the paths with the paired samples (the default)\n"
		"  --no-pairs        history bits only\n"
		"  -n, --top N       the N hottest instructions (default 5; 0: all)\n"
		"  --paths K         paths shown per instruction (default 3)\n"
		"  --min-samples K   only instructions with at least K samples (default 20)\n"
		"  --percent-limit P only instructions with at least P%% of the procedure's samples\n"
		"  --sort FIELD      samples (default: most first) or address (the -n hottest, by\n"
		"                    address)\n"
		"  --skip-damaged    go on past damaged database files, naming them\n"
		"  --json            JSON output (axprof-json(7))\n");
}

/* --sort's fields: samples ranks (the default), address only orders (tl_rows_sort). */
static const char *const sort_fields[] = { "samples", "address" };
static int sort_key; /* qsort has no context argument */

static int parse_uint(const char *s, unsigned long max, const char *what, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > max) {
		fprintf(stderr, "axprof paths: %s takes 0..%lu, not '%s'\n", what, max, s);
		return 2;
	}
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct pa_args *a)
{
	enum { O_PROC = 256, O_BITS, O_PAIRS, O_NO_PAIRS, O_PATHS, O_HELP };
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_IMAGE,
		TL_LONGOPT_JSON,
		TL_LONGOPT_TOP,
		TL_LONGOPT_MIN_SAMPLES,
		TL_LONGOPT_PERCENT_LIMIT,
		TL_LONGOPT_SORT,
		TL_LONGOPT_SKIP_DAMAGED,
		{ "proc", required_argument, NULL, O_PROC },
		{ "bits", required_argument, NULL, O_BITS },
		{ "pairs", no_argument, NULL, O_PAIRS },
		{ "no-pairs", no_argument, NULL, O_NO_PAIRS },
		{ "paths", required_argument, NULL, O_PATHS },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c, ret;

	tl_ropts_init(&a->ro, "axprof paths", 5);
	a->ro.min_samples = 20;
	a->bits = 8;
	a->pairs = true;
	a->npaths = 3;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&a->ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case O_PROC:
			a->proc = optarg;
			break;
		case O_BITS:
			if (parse_uint(optarg, PDB_PMP_HIST_BITS, "--bits", &v))
				return 2;
			a->bits = (unsigned int)v;
			break;
		case O_PAIRS:
		case O_NO_PAIRS:
			a->pairs = c == O_PAIRS;
			break;
		case O_PATHS:
			if (parse_uint(optarg, 1000, "--paths", &v) || v == 0) {
				if (v == 0)
					fprintf(stderr, "axprof paths: --paths takes 1..1000\n");
				return 2;
			}
			a->npaths = (unsigned int)v;
			break;
		case O_HELP:
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "axprof paths: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!a->ro.image || !a->proc) {
		fprintf(stderr, "axprof paths: --image and --proc are required\n");
		usage(stderr);
		return 2;
	}
	sort_key =
		tl_sort_pick(&a->ro, NULL, sort_fields, sizeof(sort_fields) / sizeof(*sort_fields));
	return sort_key < 0 ? 2 : 0;
}

/* --- the graph's weights from ProfileMe --- */

struct wctx {
	const struct pdb_pme *pm; /* the image's ProfileMe table, sorted by offset */
	size_t npm;
	double S; /* mean interval: fetched instructions per sample */
	const struct an_pgraph *g0; /* the same graph, for block lookups (NULL: weights 1) */
	double *bexec; /* per node of g0: estimated executions */
};

static const struct pdb_profileme *pme_at(const struct wctx *w, uint64_t off)
{
	size_t lo = 0, hi = w->npm;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->pm[mid].offset == off)
			return &w->pm[mid].pme;
		if (w->pm[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static double retired(const struct wctx *w, uint64_t off)
{
	const struct pdb_profileme *p = pme_at(w, off);

	return p ? (double)p->status[0] : 0;
}

static double weight(void *priv, uint64_t from, uint64_t to)
{
	const struct wctx *w = priv;
	const struct an_pnode *b;
	uint32_t u, v;
	double t = 0.5;

	if (!w->g0)
		return 1;
	v = an_pgraph_node_at(w->g0, to);
	if (!from)
		return v == UINT32_MAX ? 0 : w->bexec[v];
	u = an_pgraph_node_at(w->g0, from);
	if (u == UINT32_MAX)
		return 0;
	b = &w->g0->node[u];
	if ((b->flags & AN_PN_COND) && from == b->addr + 4 * (uint64_t)(b->n - 1)) {
		const struct pdb_profileme *p = pme_at(w, from);

		if (p && p->status[0])
			t = (double)p->events[5] / (double)p->status[0];
		return w->bexec[u] * (to == from + 4 ? 1 - t : t);
	}
	if (v == UINT32_MAX)
		return w->bexec[u];
	return w->bexec[u] < w->bexec[v] ? w->bexec[u] : w->bexec[v];
}

/* --- paths of one instruction --- */

struct found {
	uint32_t *blk; /* node indices, the sample's block first */
	uint32_t nblk, nbranches;
	bool begun, truncated;
	double freq;
};

struct insn {
	uint64_t offset;
	uint64_t samples, retired;
	double exec, covered; /* covered: share of the history mass in the hotlist */
	uint64_t partners_used;
	struct found *v;
	size_t n;
};

static bool same_path(const struct found *f, const struct an_paths *ps, uint32_t i)
{
	const struct an_path *p = &ps->v[i];

	return f->nblk == p->nblk && f->begun == p->begun &&
	       !memcmp(f->blk, ps->blk + p->first, p->nblk * sizeof(*f->blk));
}

static int add_found(struct insn *in, const struct an_paths *ps, uint32_t i, double freq)
{
	const struct an_path *p = &ps->v[i];
	struct found *f, *t;

	for (size_t k = 0; k < in->n; k++)
		if (same_path(&in->v[k], ps, i)) {
			in->v[k].freq += freq;
			return 0;
		}
	t = realloc(in->v, (in->n + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	in->v = t;
	f = &in->v[in->n];
	f->blk = malloc(p->nblk * sizeof(*f->blk));
	if (!f->blk)
		return -ENOMEM;
	memcpy(f->blk, ps->blk + p->first, p->nblk * sizeof(*f->blk));
	f->nblk = p->nblk;
	f->nbranches = p->nbranches;
	f->begun = p->begun;
	f->truncated = p->truncated;
	f->freq = freq;
	in->n++;
	return 0;
}

/*
 * Weights of the candidates ps (prior: their probabilities) after the partner observations:
 * EM rounds of pi_j <- sum over observations o of c_o pi_j [j fits o] / sum_k pi_k [k fits o],
 * over the observations some candidate fits. *used: the observations' counts used.
 */
static int reweigh(const struct an_pgraph *g, const struct an_paths_query *q0,
		   const struct an_paths *ps, const struct pdb_pmpath *pp, double *pi,
		   uint64_t *used)
{
	struct hotlist_item top[HOTLIST_MAX_M];
	unsigned int nt = hotlist_top(&pp->partners, top, HOTLIST_MAX_M), no = 0;
	uint8_t *fit = calloc((size_t)nt * ps->n + 1, 1);
	double *cnt = calloc(nt + 1, sizeof(*cnt)), *nw = calloc(ps->n + 1, sizeof(*nw));
	int ret = 0;

	*used = 0;
	if (!fit || !cnt || !nw) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (unsigned int o = 0; o < nt; o++) {
		struct an_paths_query q = *q0;
		struct pdb_partner pt;
		struct an_paths got;
		bool any = false;

		if (pdb_pmp_partner_decode(top[o].value, &pt) || pt.later || pt.cycles)
			continue;
		q.partner = pt.offset;
		q.dist = pt.dist;
		ret = an_paths_find(g, &q, &got);
		if (ret)
			goto out_free;
		for (uint32_t j = 0; j < ps->n; j++)
			for (uint32_t k = 0; k < got.n && !fit[(size_t)no * ps->n + j]; k++)
				if (an_path_equal(ps, j, &got, k))
					fit[(size_t)no * ps->n + j] = 1, any = true;
		an_paths_free(&got);
		if (!any)
			continue;
		cnt[no++] = (double)top[o].estimate;
		*used += top[o].estimate;
	}
	for (int r = 0; r < EM_ROUNDS && no; r++) {
		double total = 0;

		memset(nw, 0, ps->n * sizeof(*nw));
		for (unsigned int o = 0; o < no; o++) {
			const uint8_t *f = fit + (size_t)o * ps->n;
			double z = 0;

			for (uint32_t j = 0; j < ps->n; j++)
				z += f[j] ? pi[j] : 0;
			if (z <= 0)
				continue;
			for (uint32_t j = 0; j < ps->n; j++)
				if (f[j])
					nw[j] += cnt[o] * pi[j] / z;
		}
		for (uint32_t j = 0; j < ps->n; j++)
			total += nw[j];
		if (total <= 0)
			break;
		for (uint32_t j = 0; j < ps->n; j++)
			pi[j] = nw[j] / total;
	}
out_free:
	free(fit);
	free(cnt);
	free(nw);
	return ret;
}

static int one_insn(const struct pa_args *a, const struct an_pgraph *g, const struct pdb_pmp *pp,
		    struct insn *in)
{
	struct hotlist_item top[HOTLIST_MAX_M];
	unsigned int nt = hotlist_top(&pp->pp.hist, top, HOTLIST_MAX_M);
	uint32_t mask = (1u << a->bits) - 1, node = an_pgraph_node_at(g, in->offset);
	double n = (double)pp->pp.hist.n;
	bool *done = calloc(nt + 1, sizeof(*done));
	int ret = 0;

	if (!done)
		return -ENOMEM;
	in->covered = 0;
	for (unsigned int i = 0; i < nt && !ret; i++) {
		struct an_paths_query q = { .node = node,
					    .off = (uint32_t)((in->offset - g->node[node].addr) /
							      4),
					    .bits = a->bits,
					    .history = (uint32_t)top[i].value & mask,
					    .use_history = true,
					    .max_paths = MAX_PATHS,
					    .max_steps = MAX_STEPS };
		struct an_paths ps;
		double share = 0, sum = 0, *pi;
		uint64_t used = 0;

		if (done[i])
			continue;
		/* history values equal in their L low bits are one value */
		for (unsigned int k = i; k < nt; k++)
			if (((uint32_t)top[k].value & mask) == q.history) {
				done[k] = true;
				share += (double)top[k].estimate / n;
			}
		in->covered += share;
		ret = an_paths_find(g, &q, &ps);
		if (ret)
			break;
		pi = calloc(ps.n + 1, sizeof(*pi));
		if (!pi) {
			an_paths_free(&ps);
			ret = -ENOMEM;
			break;
		}
		for (uint32_t j = 0; j < ps.n; j++)
			sum += ps.v[j].p;
		for (uint32_t j = 0; j < ps.n; j++)
			pi[j] = sum > 0 ? ps.v[j].p / sum : 1.0 / ps.n;
		if (a->pairs && ps.n > 1)
			ret = reweigh(g, &q, &ps, &pp->pp, pi, &used);
		in->partners_used += used;
		for (uint32_t j = 0; j < ps.n && !ret; j++)
			if (pi[j] > 0)
				ret = add_found(in, &ps, j, in->exec * share * pi[j]);
		free(pi);
		an_paths_free(&ps);
	}
	free(done);
	/* histories the hotlist does not hold: the paths by the graph's weights alone */
	if (!ret && in->covered < 1) {
		struct an_paths_query q = { .node = node,
					    .off = (uint32_t)((in->offset - g->node[node].addr) /
							      4),
					    .bits = a->bits,
					    .max_paths = MAX_PATHS,
					    .max_steps = MAX_STEPS };
		struct an_paths ps;
		double sum = 0;

		ret = an_paths_find(g, &q, &ps);
		if (ret)
			return ret;
		for (uint32_t j = 0; j < ps.n; j++)
			sum += ps.v[j].p;
		for (uint32_t j = 0; !ret && j < ps.n && sum > 0; j++)
			ret = add_found(in, &ps, j, in->exec * (1 - in->covered) * ps.v[j].p / sum);
		an_paths_free(&ps);
	}
	return ret;
}

static int cmp_found(const void *x, const void *y)
{
	const struct found *a = x, *b = y;

	if (a->freq != b->freq)
		return a->freq > b->freq ? -1 : 1;
	return a->nblk < b->nblk ? -1 : a->nblk > b->nblk;
}

static int cmp_insn(const void *x, const void *y)
{
	const struct insn *a = x, *b = y;

	if (!sort_key && a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

static uint64_t insn_samples(const void *row)
{
	return ((const struct insn *)row)->samples;
}

/* --- output --- */

static void sym(const struct tl_view_image *im, uint64_t off, char *buf, size_t len)
{
	uint64_t start;
	const char *p = tl_view_proc(im, off, &start);

	if (p)
		snprintf(buf, len, "%s+0x%" PRIx64, p, off - start);
	else
		snprintf(buf, len, "0x%" PRIx64, off);
}

/* Block k of path f (oldest first): [start, end] addresses (the sample's block ends at it). */
static void block_range(const struct an_pgraph *g, const struct found *f, const struct insn *in,
			uint32_t k, uint64_t *s, uint64_t *e)
{
	const struct an_pnode *b = &g->node[f->blk[f->nblk - 1 - k]];

	*s = b->addr;
	*e = k + 1 == f->nblk ? in->offset : b->addr + 4 * (uint64_t)(b->n - 1);
}

/* The directions of f's conditional branches, oldest first (T taken, N not): its history. */
static void history_str(const struct an_pgraph *g, const struct found *f, char *buf, size_t len)
{
	size_t n = 0;

	for (uint32_t k = f->nblk - 1; k > 0 && n + 1 < len; k--) {
		const struct an_pnode *u = &g->node[f->blk[k]], *v = &g->node[f->blk[k - 1]];

		if (u->flags & AN_PN_COND)
			buf[n++] = v->addr == u->addr + 4 * (uint64_t)u->n ? 'N' : 'T';
	}
	buf[n] = 0;
}

static void print_text(const struct pa_args *a, const struct tl_view_image *im,
		       const struct an_pgraph *g, const struct insn *v, size_t count, double S)
{
	char s1[256], s2[256], text[128], hs[64];
	uint32_t word;

	printf("paths reaching the hot instructions of %s in %s (history %u bits, %s; mean "
	       "interval %.0f fetched instructions per sample)\n",
	       a->proc, im->name, a->bits, a->pairs ? "with paired samples" : "history only", S);
	for (size_t i = 0; i < count; i++) {
		const struct insn *in = &v[i];

		if (!tl_view_insn(im, in->offset, &word, text, sizeof(text)))
			snprintf(text, sizeof(text), "?");
		sym(im, in->offset, s1, sizeof(s1));
		printf("\n0x%" PRIx64 " %s  %s\n  %" PRIu64 " samples, %.0f estimated executions, "
		       "histories in the hotlist %.1f%%",
		       in->offset, s1, text, in->samples, in->exec, 100.0 * in->covered);
		if (a->pairs)
			printf(", partner samples used %" PRIu64, in->partners_used);
		printf("\n");
		if (!in->n)
			printf("  no path of the procedure's graph fits its histories\n");
		for (size_t j = 0; j < in->n && j < a->npaths; j++) {
			const struct found *f = &in->v[j];

			history_str(g, f, hs, sizeof(hs));
			printf("  %5.1f%% %12.0f  history %s%s%s\n", 100.0 * f->freq / in->exec,
			       f->freq, *hs ? hs : "-",
			       f->begun ? ", from the entry or a return point" : "",
			       f->truncated ? ", truncated" : "");
			for (uint32_t k = 0; k < f->nblk; k++) {
				uint64_t s, e;

				block_range(g, f, in, k, &s, &e);
				sym(im, s, s1, sizeof(s1));
				sym(im, e, s2, sizeof(s2));
				printf("      0x%" PRIx64 "-0x%" PRIx64 "  %s .. %s\n", s, e, s1,
				       s2);
			}
		}
	}
}

static void print_json(const struct pa_args *a, const struct tl_view *tv,
		       const struct tl_view_image *im, const struct an_pgraph *g,
		       const struct insn *v, size_t count, double S)
{
	char s1[256], text[128], hs[64];
	struct ax_json j;
	uint32_t word;

	ax_json_doc_open(&j, stdout, "paths");
	ax_json_str(&j, "database", pdb_dir(tv->db));
	ax_json_u64(&j, "epoch", tv->epoch);
	tl_view_json_skipped(&j, tv);
	ax_json_str(&j, "image", im->name);
	ax_json_str(&j, "procedure", a->proc);
	ax_json_u64(&j, "history_bits", a->bits);
	ax_json_bool(&j, "use_pairs", a->pairs);
	ax_json_num(&j, "interval", S, 1);
	ax_json_arr_open(&j, "instructions");
	for (size_t i = 0; i < count; i++) {
		const struct insn *in = &v[i];

		if (!tl_view_insn(im, in->offset, &word, text, sizeof(text)))
			snprintf(text, sizeof(text), "?");
		sym(im, in->offset, s1, sizeof(s1));
		ax_json_obj_open(&j, NULL);
		ax_json_hex(&j, "address", in->offset);
		ax_json_str(&j, "symbol", s1);
		ax_json_str(&j, "text", text);
		ax_json_u64(&j, "samples", in->samples);
		ax_json_num(&j, "executions", in->exec, 0);
		ax_json_num(&j, "history_coverage", in->covered, 4);
		ax_json_u64(&j, "partners_used", in->partners_used);
		ax_json_arr_open(&j, "paths");
		for (size_t k = 0; k < in->n && k < a->npaths; k++) {
			const struct found *f = &in->v[k];

			history_str(g, f, hs, sizeof(hs));
			ax_json_obj_open(&j, NULL);
			ax_json_num(&j, "executions", f->freq, 0);
			ax_json_num(&j, "share", in->exec > 0 ? f->freq / in->exec : 0, 4);
			ax_json_str(&j, "history", hs);
			ax_json_u64(&j, "branches", f->nbranches);
			ax_json_bool(&j, "begun", f->begun);
			ax_json_bool(&j, "truncated", f->truncated);
			ax_json_arr_open(&j, "blocks");
			for (uint32_t b = 0; b < f->nblk; b++) {
				uint64_t s, e;

				block_range(g, f, in, b, &s, &e);
				sym(im, s, s1, sizeof(s1));
				ax_json_obj_open(&j, NULL);
				ax_json_hex(&j, "start", s);
				ax_json_hex(&j, "end", e);
				ax_json_str(&j, "symbol", s1);
				ax_json_obj_close(&j);
			}
			ax_json_arr_close(&j);
			ax_json_obj_close(&j);
		}
		ax_json_arr_close(&j);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

/* --- the command --- */

struct pa_state {
	struct wctx w;
	struct pdb_pmp *pmp;
	size_t npmp;
	struct an_procs *ps;
	struct an_pgraph *g0, *g;
	struct insn *v;
	size_t n;
};

static void state_free(struct pa_state *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t k = 0; k < s->v[i].n; k++)
			free(s->v[i].v[k].blk);
		free(s->v[i].v);
	}
	free(s->v);
	an_pgraph_free(s->g);
	an_pgraph_free(s->g0);
	if (s->ps)
		an_procs_free(s->ps);
	free(s->w.bexec);
	free((void *)s->w.pm);
	free(s->pmp);
}

/* The procedure's graph with ProfileMe's weights (two builds: blocks first, then weights). */
static int build_graph(struct pa_state *s, size_t pi, struct ax_error *err)
{
	int ret = an_pgraph_build(s->ps, pi, pi + 1, false, weight, &s->w, &s->g0, err);

	if (ret)
		return ret;
	s->w.bexec = calloc(s->g0->nnodes + 1, sizeof(*s->w.bexec));
	if (!s->w.bexec)
		return -ENOMEM;
	for (uint32_t u = 0; u < s->g0->nnodes; u++) {
		const struct an_pnode *b = &s->g0->node[u];
		double r = 0;

		for (uint32_t k = 0; k < b->n; k++)
			r += retired(&s->w, b->addr + 4 * (uint64_t)k);
		s->w.bexec[u] = b->n ? r / b->n * s->w.S : 0;
	}
	s->w.g0 = s->g0;
	return an_pgraph_build(s->ps, pi, pi + 1, false, weight, &s->w, &s->g, err);
}

static const struct pdb_pmp *pmp_at(const struct pa_state *s, uint64_t off)
{
	size_t lo = 0, hi = s->npmp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->pmp[mid].offset == off)
			return &s->pmp[mid];
		if (s->pmp[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int run(const struct pa_args *a, const struct tl_view *tv, const struct tl_view_image *im)
{
	struct pa_state s = { 0 };
	struct ax_error err = { 0 };
	const struct an_proc *p = NULL;
	struct pdb_pme *pm = NULL;
	uint64_t samples_p = 0, events2 = 0, proc_samples = 0;
	size_t npm = 0, pi, count;
	int ret;

	if (!im->elf) {
		fprintf(stderr, "axprof paths: cannot read %s: %s\n", im->name, im->elf_err.msg);
		return 1;
	}
	ret = pdb_prof_profileme(im->prof, &pm, &npm);
	if (!ret)
		ret = pdb_prof_pmpaths(im->prof, &s.pmp, &s.npmp);
	if (!ret)
		ret = an_procs_find(im->elf, &s.ps, &err);
	if (ret) {
		fprintf(stderr, "axprof paths: %s: %s\n", im->name,
			err.msg[0] ? err.msg : strerror(-ret));
		goto out_free;
	}
	s.w.pm = pm;
	s.w.npm = npm;
	for (size_t i = 0; i < s.ps->n && !p; i++)
		if (s.ps->v[i].name && !strcmp(s.ps->v[i].name, a->proc))
			p = &s.ps->v[i];
	ret = 1;
	if (!p) {
		fprintf(stderr, "axprof paths: no procedure '%s' in %s\n", a->proc, im->name);
		goto out_free;
	}
	pi = (size_t)(p - s.ps->v);
	for (size_t i = 0; i < npm; i++) {
		samples_p += pm[i].pme.samples_p;
		events2 += pm[i].pme.events2;
		if (pm[i].offset < p->start || pm[i].offset >= p->end)
			continue;
		struct insn in = { .offset = pm[i].offset };
		struct insn *t;

		for (unsigned int k = 0; k < PDB_PME_STATUS; k++)
			in.samples += pm[i].pme.status[k];
		in.retired = pm[i].pme.status[0];
		proc_samples += in.samples;
		if (in.samples < a->ro.min_samples || !in.retired)
			continue;
		t = realloc(s.v, (s.n + 1) * sizeof(*t));
		if (!t) {
			fprintf(stderr, "axprof paths: out of memory\n");
			goto out_free;
		}
		s.v = t;
		s.v[s.n++] = in;
	}
	s.w.S = samples_p ? (double)events2 / (2.0 * (double)samples_p) : 0;
	if (!s.n) {
		fprintf(stderr,
			"axprof paths: no ProfileMe samples in %s%s, procedure %s, epoch %u (with "
			"--min-samples %" PRIu64 "; record with `axprof record --mode profileme "
			"--cpu ev6`)\n",
			npm ? "" : "any instruction of ", im->name, a->proc, tv->epoch,
			a->ro.min_samples);
		goto out_free;
	}
	if (!s.npmp) {
		fprintf(stderr,
			"axprof paths: %s has ProfileMe samples but no path histories (pmpaths.prof) "
			"in epoch %u: it was recorded by an axprof that did not store them; record "
			"again\n",
			im->name, tv->epoch);
		goto out_free;
	}
	if (!s.w.S) {
		fprintf(stderr,
			"axprof paths: %s: the ProfileMe samples have no known interval: executions "
			"cannot be estimated\n",
			im->name);
		goto out_free;
	}
	ret = build_graph(&s, pi, &err);
	if (ret) {
		fprintf(stderr, "axprof paths: %s: %s\n", a->proc,
			err.msg[0] ? err.msg : strerror(-ret));
		ret = 1;
		goto out_free;
	}
	/* --percent-limit: of the procedure's samples (every instruction's, before the limits) */
	count = tl_rows_sort(&a->ro, s.v, s.n, sizeof(*s.v), cmp_insn, &sort_key, sort_key == 1,
			     insn_samples, proc_samples);
	for (size_t i = 0; i < count && !ret; i++) {
		const struct pdb_pmp *pp = pmp_at(&s, s.v[i].offset);

		s.v[i].exec = (double)s.v[i].retired * s.w.S;
		if (!pp || an_pgraph_node_at(s.g, s.v[i].offset) == UINT32_MAX)
			continue;
		ret = one_insn(a, s.g, pp, &s.v[i]);
		qsort(s.v[i].v, s.v[i].n, sizeof(*s.v[i].v), cmp_found);
	}
	if (ret) {
		fprintf(stderr, "axprof paths: %s: %s\n", a->proc, strerror(-ret));
		ret = 1;
		goto out_free;
	}
	if (a->ro.json)
		print_json(a, tv, im, s.g, s.v, count, s.w.S);
	else
		print_text(a, im, s.g, s.v, count, s.w.S);
	ret = 0;
out_free:
	state_free(&s);
	return ret;
}

int cmd_paths(int argc, char **argv)
{
	struct pa_args a = { 0 };
	const struct tl_view_image **sel;
	struct ax_error err;
	struct tl_view v;
	size_t n;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (tl_view_open_ro(&v, &a.ro, &err)) {
		fprintf(stderr, "axprof paths: %s\n", err.msg);
		return 1;
	}
	sel = calloc(v.n + 1, sizeof(*sel));
	if (!sel) {
		tl_view_close(&v);
		fprintf(stderr, "axprof paths: out of memory\n");
		return 1;
	}
	n = tl_view_select(&v, a.ro.image, PDB_EV_CYCLES, sel);
	if (n != 1 || !sel[0]->prof) {
		fprintf(stderr, "axprof paths: %s image '%s' with a profile in %s epoch %u\n",
			n > 1 ? "more than one" : "no", a.ro.image, a.ro.db, v.epoch);
		ret = 1;
	} else {
		ret = run(&a, &v, sel[0]);
	}
	free(sel);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, "axprof paths: cannot write the output\n");
		ret = 1;
	}
	tl_view_close(&v);
	return ret;
}
