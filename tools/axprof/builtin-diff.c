/* tools/axprof/builtin-diff.c - `axprof diff`: two profiles (or two sets of runs) compared. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "tl_sym.h"
#include "tl_stats.h"
#include "tl_view.h"

/*
 * DCPI's dcpidiff and dcpistats (SOSP'97 §3: "dcpistats analyzes the variations in profile data
 * from many runs"): each side is one run or several (databases, or epochs of one database);
 * every image, procedure and instruction gets each side's share of the event's total (mean and
 * standard deviation over the side's runs), the delta of the means, and a significance mark
 * from a two-sample test (tl_stats.h: Welch's t-test with repeated runs on both sides, else the
 * two-proportion z-test on the sample counts), Bonferroni-corrected over the rows of a level.
 */

#define ALPHA 0.01
#define NLEVEL 3

static const char *const level_name[NLEVEL] = { "images", "procedures", "instructions" };

struct run {
	const char *db;
	uint32_t epoch; /* 0: the current one (the view says which) */
	uint64_t total;
};

struct ent {
	unsigned int level;
	char *key; /* unique at the level */
	const char *image, *proc; /* display: point into the key's strings (owned by names) */
	uint64_t address; /* instructions, procedures (UINT64_MAX: none) */
	char *file; /* instructions: the source file as DWARF names it, or NULL */
	unsigned int line;
	unsigned int side, run;
	uint64_t count;
};

struct diff {
	struct run run[2][TL_DIFF_RUNS_MAX];
	size_t nrun[2];
	unsigned int event;
	long top;
	double pct_limit; /* --percent-limit: rows where both sides' shares are below it left out */
	bool json;
	struct ent *e;
	size_t ne, cap;
	char **names; /* every string the entries point to */
	size_t nnames, capnames;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof diff [--event E] [-n N] [--percent-limit P] [--json]\n"
		"                   DB_A[,DB_A2...] DB_B[,DB_B2...]\n"
		"       axprof diff -d DB --epoch A[,A2...] --epoch B[,B2...] [--event E] [-n N]\n"
		"                   [--percent-limit P] [--json]\n\n"
		"Compare two profiles the way DCPI's dcpidiff and dcpistats do: for every image,\n"
		"procedure and instruction, each side's share of the event's total samples (so runs\n"
		"of different lengths compare), the delta of the shares, and whether the difference\n"
		"is significant. A side of several runs (databases or epochs separated by commas)\n"
		"gives the mean and standard deviation of the runs' shares.\n\n"
		"The test (axprof-diff(1)): with two runs or more on both sides, Welch's t-test on\n"
		"the runs' shares; otherwise the two-proportion z-test on the sample counts. A row\n"
		"is marked * when its p-value is below 0.01 divided by the number of rows compared\n"
		"at its level (Bonferroni).\n\n"
		"Options:\n"
		"  -d, --db DIR     with --epoch: the database both sides come from\n"
		"  --epoch LIST     a side's epochs of -d DIR (given twice: side A, then side B)\n"
		"  --event E        the event compared (default cycles)\n"
		"  -n, --top N      the N rows with the largest |delta| per level (default 10; 0: all)\n"
		"  --sort FIELD     delta (default), a, b (a side's share), p (p-value, smallest\n"
		"                   first): the N rows by it; name: the N by delta, by name\n"
		"  --percent-limit P  leave out rows below P percent of the total on both sides\n"
		"  --no-demangle    print C++ symbols as the file has them (mangled)\n"
		"  --json           JSON output (docs/axprof-json.7)\n"
		"  --help           this text\n\n"
		"Exit status: 0, 1 when a database cannot be read, 2 for bad options.\n");
}

static char *keep(struct diff *d, char *s)
{
	if (!s)
		return NULL;
	if (d->nnames == d->capnames) {
		size_t ncap = d->capnames ? 2 * d->capnames : 256;
		char **nn = realloc(d->names, ncap * sizeof(*nn));

		if (!nn) {
			free(s);
			return NULL;
		}
		d->names = nn;
		d->capnames = ncap;
	}
	d->names[d->nnames++] = s;
	return s;
}

static struct ent *add(struct diff *d)
{
	if (d->ne == d->cap) {
		size_t ncap = d->cap ? 2 * d->cap : 1024;
		struct ent *ne = realloc(d->e, ncap * sizeof(*ne));

		if (!ne)
			return NULL;
		d->e = ne;
		d->cap = ncap;
	}
	memset(&d->e[d->ne], 0, sizeof(d->e[0]));
	return &d->e[d->ne++];
}

/* The entries of one image's samples in run (side, r): its image, procedure and instruction rows. */
static int add_image(struct diff *d, const struct tl_view_image *im, unsigned int side,
		     unsigned int r)
{
	struct pdb_count *cs = NULL;
	size_t n = 0;
	char *iname = keep(d, strdup(im->name));

	if (!iname || pdb_prof_samples(im->prof, d->event, &cs, &n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t start = UINT64_MAX;
		const char *p = tl_view_proc(im, cs[i].offset, &start);
		char *pname = keep(d, strdup(p ? p : "(no symbol)"));
		char *k0 = keep(d, strdup(iname)), *k1 = NULL, *k2 = NULL, *file = NULL;
		struct img_line ln;
		bool has = tl_view_line(im, cs[i].offset, &ln);

		if (pname && asprintf(&k1, "%s\t%s", iname, pname) < 0)
			k1 = NULL;
		k1 = keep(d, k1);
		if (asprintf(&k2, "%s\t%016" PRIx64, iname, cs[i].offset) < 0)
			k2 = NULL;
		k2 = keep(d, k2);
		if (has)
			file = keep(d, strdup(ln.file));
		if (!pname || !k0 || !k1 || !k2 || (has && !file)) {
			free(cs);
			return -ENOMEM;
		}
		const char *keys[NLEVEL] = { k0, k1, k2 };

		for (unsigned int l = 0; l < NLEVEL; l++) {
			struct ent *e = add(d);

			if (!e) {
				free(cs);
				return -ENOMEM;
			}
			*e = (struct ent){ l,
					   (char *)keys[l],
					   iname,
					   l ? pname : NULL,
					   l == 2 ? cs[i].offset :
					   l == 1 ? start :
						    UINT64_MAX,
					   l == 2 ? file : NULL,
					   has ? ln.line : 0,
					   side,
					   r,
					   cs[i].count };
		}
	}
	free(cs);
	return 0;
}

static int load_run(struct diff *d, unsigned int side, unsigned int r)
{
	struct run *ru = &d->run[side][r];
	struct tl_view v;
	struct ax_error err;
	int ret;

	ret = tl_view_open(&v, ru->db, ru->epoch, &err);
	if (ret) {
		fprintf(stderr, "axprof diff: %s\n", err.msg);
		return ret;
	}
	ru->epoch = v.epoch;
	ru->total = v.total[d->event];
	for (size_t i = 0; i < v.n && !ret; i++)
		if (v.im[i].prof)
			ret = add_image(d, &v.im[i], side, r);
	if (!ret && v.unknown_total[d->event]) {
		struct ent *e = add(d);
		char *k = keep(d, strdup("unknown"));

		if (!e || !k)
			ret = -ENOMEM;
		else
			*e = (struct ent){ 0,	 k, k,	  NULL, UINT64_MAX,
					   NULL, 0, side, r,	v.unknown_total[d->event] };
	}
	tl_view_close(&v);
	if (ret == -ENOMEM)
		fprintf(stderr, "axprof diff: out of memory\n");
	return ret;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	int k;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	k = strcmp(x->key, y->key);
	if (k)
		return k;
	if (x->side != y->side)
		return x->side < y->side ? -1 : 1;
	return (x->run > y->run) - (x->run < y->run);
}

struct row {
	const struct ent *e; /* the first entry of the group: its names */
	struct tl_diff_row r;
};

/*
 * --sort: delta (default: |B - A|, largest first), a, b (a side's share, largest first), p
 * (the test's p-value, smallest first) choose the -n rows; name (the row's image, procedure or
 * instruction key) orders the rows delta chose.
 */
static const char *const sort_fields[] = { "delta", "a", "b", "p", "name" };
enum { SORT_DELTA, SORT_A, SORT_B, SORT_P, SORT_NAME };
static int sort_key;

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double dx = fabs(x->r.delta), dy = fabs(y->r.delta);

	switch (sort_key) {
	case SORT_A:
	case SORT_B:
		if (x->r.mean[sort_key - SORT_A] != y->r.mean[sort_key - SORT_A])
			return x->r.mean[sort_key - SORT_A] > y->r.mean[sort_key - SORT_A] ? -1 : 1;
		break;
	case SORT_P:
		if (x->r.p != y->r.p)
			return x->r.p < y->r.p ? -1 : 1;
		break;
	case SORT_NAME:
		return strcmp(x->e->key, y->e->key);
	}
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->e->key, y->e->key);
}

/* The rows of one level from its entries e[0..n) (sorted by key, side, run). */
static struct row *level_rows(const struct diff *d, const struct ent *e, size_t n, size_t *nrows)
{
	struct row *rows = calloc(n ? n : 1, sizeof(*rows));
	uint64_t cnt[2][TL_DIFF_RUNS_MAX], tot[2][TL_DIFF_RUNS_MAX];
	size_t m = 0, nr = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < n; m++)
		for (size_t h = i; i < n && !strcmp(e[i].key, e[h].key); i++)
			;
	for (int s = 0; s < 2; s++)
		for (size_t r = 0; r < d->nrun[s]; r++)
			tot[s][r] = d->run[s][r].total;
	for (size_t i = 0; i < n;) {
		size_t h = i;
		const uint64_t *cp[2] = { cnt[0], cnt[1] }, *tp[2] = { tot[0], tot[1] };

		memset(cnt, 0, sizeof(cnt));
		for (; i < n && !strcmp(e[i].key, e[h].key); i++)
			cnt[e[i].side][e[i].run] += e[i].count;
		rows[nr].e = &e[h];
		tl_diff_compute(cp, tp, d->nrun, m, ALPHA, &rows[nr].r);
		nr++;
	}
	if (nr > 1) { /* --sort name orders the rows delta chose (keep_rows) */
		int k = sort_key;

		sort_key = k == SORT_NAME ? SORT_DELTA : k;
		qsort(rows, nr, sizeof(*rows), row_cmp);
		sort_key = k;
	}
	*nrows = nr;
	return rows;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void text_side(const struct diff *d, int s)
{
	printf("%s:", s ? "B" : "A");
	for (size_t r = 0; r < d->nrun[s]; r++)
		printf("%s %s epoch %u (%" PRIu64 " samples)", r ? "," : "", d->run[s][r].db,
		       d->run[s][r].epoch, d->run[s][r].total);
	printf("\n");
}

static const char *line_text(const struct ent *e, char *buf, size_t size)
{
	if (!e->file)
		return "-";
	snprintf(buf, size, "%s:%u", base_name(e->file), e->line);
	return buf;
}

/*
 * Rows shown, in place and in order: those where either side's share reaches --percent-limit
 * (perf diff's option: a row small on both sides says nothing), then the -n first.
 */
static size_t keep_rows(const struct diff *d, struct row *rows, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		double big = fmax(rows[i].r.mean[0], rows[i].r.mean[1]);

		if (d->pct_limit > 0 && 100 * big < d->pct_limit)
			continue;
		rows[k++] = rows[i];
	}
	return d->top > 0 && (size_t)d->top < k ? (size_t)d->top : k;
}

static void text_level(const struct diff *d, unsigned int l, const struct row *rows, size_t n,
		       size_t shown)
{
	char buf[512];
	bool sd = d->nrun[0] > 1 || d->nrun[1] > 1;

	printf("\n%s (%zu compared; * significant at p < %.2g)\n", level_name[l], n,
	       ALPHA / (double)(n ? n : 1));
	printf("%8s %s%8s %s%8s %9s  ", "A%", sd ? "  sdA%  " : "", "B%", sd ? "  sdB%  " : "",
	       "delta", "p");
	printf("%s\n", l == 0 ? "image" :
		       l == 1 ? "procedure image" :
				"address procedure line image");
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		printf("%7.2f%%", 100 * r->r.mean[0]);
		if (sd)
			printf(" %7.2f%%", 100 * r->r.sd[0]);
		printf(" %7.2f%%", 100 * r->r.mean[1]);
		if (sd)
			printf(" %7.2f%%", 100 * r->r.sd[1]);
		printf(" %+7.2f%% %9.2g%s ", 100 * r->r.delta, r->r.p,
		       r->r.significant ? "*" : " ");
		if (l == 0)
			printf("%s\n", r->e->image);
		else if (l == 1)
			printf("%-24s %s\n", r->e->proc, base_name(r->e->image));
		else
			printf("0x%" PRIx64 " %-20s %-18s %s\n", r->e->address, r->e->proc,
			       line_text(r->e, buf, sizeof(buf)), base_name(r->e->image));
	}
}

static void json_share(struct ax_json *j, const char *key, double mean, double sd, bool with_sd)
{
	ax_json_obj_open(j, key);
	ax_json_num(j, "mean", mean, 6);
	if (with_sd)
		ax_json_num(j, "stddev", sd, 6);
	ax_json_obj_close(j);
}

static void json_level(struct ax_json *j, const struct diff *d, unsigned int l,
		       const struct row *rows, size_t shown)
{
	bool sd = d->nrun[0] > 1 || d->nrun[1] > 1;

	ax_json_arr_open(j, level_name[l]);
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];

		ax_json_obj_open(j, NULL);
		ax_json_str(j, "image", r->e->image);
		if (l >= 1)
			tl_sym_json(j, "procedure", r->e->proc);
		if (l >= 1 && r->e->address != UINT64_MAX)
			ax_json_hex(j, "address", r->e->address);
		if (l == 2 && r->e->file) {
			ax_json_str(j, "file", r->e->file);
			ax_json_u64(j, "line", r->e->line);
		}
		json_share(j, "side_a", r->r.mean[0], r->r.sd[0], sd);
		json_share(j, "side_b", r->r.mean[1], r->r.sd[1], sd);
		ax_json_num(j, "delta", r->r.delta, 6);
		ax_json_num(j, "p_value", r->r.p, 6);
		ax_json_bool(j, "significant", r->r.significant);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static void json_sides(struct ax_json *j, const struct diff *d)
{
	ax_json_arr_open(j, "sides");
	for (int s = 0; s < 2; s++) {
		ax_json_obj_open(j, NULL);
		ax_json_arr_open(j, "runs");
		for (size_t r = 0; r < d->nrun[s]; r++) {
			ax_json_obj_open(j, NULL);
			ax_json_str(j, "database", d->run[s][r].db);
			ax_json_u64(j, "epoch", d->run[s][r].epoch);
			ax_json_u64(j, "samples", d->run[s][r].total);
			ax_json_obj_close(j);
		}
		ax_json_arr_close(j);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static int report(struct diff *d)
{
	struct ax_json j;
	char evn[32];
	size_t lo = 0;

	if (d->ne > 1)
		qsort(d->e, d->ne, sizeof(d->e[0]), ent_cmp);
	if (d->json) {
		ax_json_doc_open(&j, stdout, "diff");
		ax_json_str(&j, "event", tl_event_lower(d->event, evn, sizeof(evn)));
		ax_json_str(&j, "test", d->nrun[0] > 1 && d->nrun[1] > 1 ? "welch" : "proportions");
		ax_json_num(&j, "alpha", ALPHA, 4);
		json_sides(&j, d);
	} else {
		printf("axprof diff: %s samples, each row's share of its run's total\n",
		       tl_event_lower(d->event, evn, sizeof(evn)));
		text_side(d, 0);
		text_side(d, 1);
		printf("test: %s; delta = B - A\n",
		       d->nrun[0] > 1 && d->nrun[1] > 1 ?
			       "Welch's t-test on the runs' shares" :
			       "two-proportion z-test on the sample counts (one run on a side)");
	}
	for (unsigned int l = 0; l < NLEVEL; l++) {
		size_t hi = lo, nrows, shown;
		struct row *rows;

		while (hi < d->ne && d->e[hi].level == l)
			hi++;
		rows = level_rows(d, d->e + lo, hi - lo, &nrows);
		if (!rows) {
			fprintf(stderr, "axprof diff: out of memory\n");
			return -ENOMEM;
		}
		shown = keep_rows(d, rows, nrows);
		if (sort_key == SORT_NAME && shown > 1)
			qsort(rows, shown, sizeof(*rows), row_cmp);
		if (d->json)
			json_level(&j, d, l, rows, shown);
		else
			text_level(d, l, rows, nrows, shown);
		free(rows);
		lo = hi;
	}
	if (d->json)
		ax_json_doc_close(&j);
	return 0;
}

/* "A,B,C" into side s's runs: databases (dbs) or epochs of db. 0, or 2 after a message. */
static int parse_side(struct diff *d, int s, char *list, const char *db)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		struct run *r;

		if (d->nrun[s] == TL_DIFF_RUNS_MAX) {
			fprintf(stderr, "axprof diff: at most %d runs per side\n",
				TL_DIFF_RUNS_MAX);
			return 2;
		}
		r = &d->run[s][d->nrun[s]++];
		r->db = db ? db : tok;
		r->epoch = 0;
		if (db && tl_parse_epoch("axprof diff", "--epoch", tok, &r->epoch))
			return 2;
	}
	if (!d->nrun[s]) {
		fprintf(stderr, "axprof diff: side %c is empty\n", s ? 'B' : 'A');
		return 2;
	}
	return 0;
}

static void free_diff(struct diff *d)
{
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	free(d->names);
	free(d->e);
}

int cmd_diff(int argc, char **argv)
{
	enum { O_EPOCH = 256, O_JSON, O_EVENT, O_HELP };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "epoch", required_argument, NULL, O_EPOCH },
		{ "event", required_argument, NULL, O_EVENT },
		{ "top", required_argument, NULL, 'n' },
		TL_LONGOPT_PERCENT_LIMIT,
		TL_LONGOPT_NO_DEMANGLE,
		TL_LONGOPT_SORT,
		{ "json", no_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct diff d = { .event = PDB_EV_CYCLES, .top = 10 };
	char *epochs[2] = { NULL, NULL };
	const char *db = NULL;
	int c, nep = 0, ret = 0, ev;
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case O_EPOCH:
			if (nep == 2) {
				fprintf(stderr, "axprof diff: --epoch goes twice, once per side\n");
				return 2;
			}
			epochs[nep++] = optarg;
			break;
		case O_EVENT:
			ev = tl_event_parse(optarg);
			if (ev < 0) {
				fprintf(stderr, "axprof diff: unknown event '%s'\n", optarg);
				return 2;
			}
			d.event = (unsigned int)ev;
			break;
		case 'n':
			errno = 0;
			d.top = strtol(optarg, &end, 10);
			if (errno || *end || !*optarg || d.top < 0 || d.top > TL_TOP_MAX) {
				fprintf(stderr, "axprof diff: -n needs a count 0..%ld, not '%s'\n",
					TL_TOP_MAX, optarg);
				return 2;
			}
			break;
		case TL_OPT_NO_DEMANGLE:
			tl_sym_set_demangle(false);
			break;
		case TL_OPT_SORT:
			sort_key = tl_sort_check("axprof diff", NULL, optarg, sort_fields,
						 sizeof(sort_fields) / sizeof(*sort_fields));
			if (sort_key < 0)
				return 2;
			break;
		case TL_OPT_PERCENT_LIMIT: {
			struct tl_ropts o;

			tl_ropts_init(&o, "axprof diff", 0);
			if (tl_ropts_parse(&o, c, optarg) == 2)
				return 2;
			d.pct_limit = o.percent_limit;
			break;
		}
		case O_JSON:
			d.json = true;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (nep || db) {
		if (nep != 2 || !db || optind != argc) {
			fprintf(stderr,
				"axprof diff: -d DB takes --epoch twice (side A, side B) and "
				"no other argument\n");
			return 2;
		}
		if (parse_side(&d, 0, epochs[0], db) || parse_side(&d, 1, epochs[1], db))
			return 2;
	} else {
		if (argc - optind != 2) {
			fprintf(stderr, "axprof diff: need two sides, DB_A DB_B (see 'axprof diff "
					"--help')\n");
			return 2;
		}
		if (parse_side(&d, 0, argv[optind], NULL) ||
		    parse_side(&d, 1, argv[optind + 1], NULL))
			return 2;
	}
	for (int s = 0; s < 2 && !ret; s++)
		for (size_t r = 0; r < d.nrun[s] && !ret; r++)
			ret = load_run(&d, (unsigned int)s, (unsigned int)r);
	if (!ret)
		ret = report(&d);
	free_diff(&d);
	return ret ? 1 : 0;
}
