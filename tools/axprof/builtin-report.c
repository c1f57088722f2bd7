/* tools/axprof/builtin-report.c - `axprof report`: samples by image and procedure (dcpiprof's view). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_freq_image.h"
#include "axprof/builtin.h"
#include "tl_sym.h"
#include "tl_json_an.h"
#include "tl_lines.h"
#include "tl_periods.h"
#include "tl_prof.h"
#include "tl_view.h"

/*
 * DCPI's dcpiprof (SOSP'97 §3, §6): images, then procedures, sorted by samples of one event,
 * with each event's percentage of its total and the cumulative percentage of the sort event.
 * --stalls: DCPI's procedure summary (§6.2, Figure 4), where each procedure's cycles went.
 */

#define MAX_COLS REPORT_MAX_COLS

struct report {
	struct tl_view v;
	struct tl_ropts ro; /* -d, --epoch, --image, --json, -n (--stalls: procedures shown) */
	unsigned int ev[MAX_COLS]; /* events shown; ev[0] sorts */
	unsigned int ncol;
	bool procs, stalls, lines;
	bool tasks; /* --tasks: a row per process and thread */
	struct report_filter f; /* --pid P, --tid T, --comm NAME: only their samples */
	const char *callers, *callees; /* --callers SYM, --callees SYM (builtin-report-cg.c) */
	uint64_t total[PDB_EV_MAX]; /* the totals shown (a filter: its samples') */
	bool assumed; /* --stalls: an image's CYCLES period was assumed (none stored) */
	struct tl_periods per; /* --stalls: --period, --event-period */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof report [-d DIR] [--epoch N] [--image I] [--procedures] [--event E]\n"
		"                     [--pid P] [--tid T] [--comm NAME] [--tasks]\n"
		"                     [-n N] [--percent-limit P] [--json]\n"
		"       axprof report --lines [-d DIR] [--epoch N] [--image I] [--event E] [-n N]\n"
		"                     [--percent-limit P] [--json]\n"
		"       axprof report --callers SYM | --callees SYM [-d DIR] [--epoch N] [--image I]\n"
		"                     [--event E] [-n N] [--percent-limit P] [--json]\n"
		"       axprof report --stalls [-d DIR] [--epoch N] [--image I] [-n N] [--period P]\n"
		"                     [--event-period E=P] [--percent-limit P] [--json]\n\n"
		"Summarise a profile database the way DCPI's dcpiprof does: images (then, with\n"
		"--procedures, procedures) by samples, each event's share of its total, and the\n"
		"cumulative share of the sorting event. Procedures are the ELF function symbols of\n"
		"each image.\n\n"
		"With --lines, SpeedShop's per-line view: source lines (file:line from each image's\n"
		"DWARF line table; build with -g) by samples, each event's share of its total;\n"
		"samples at addresses without line information are one row per image.\n\n"
		"With --callers SYM or --callees SYM (both may be given), the call graph of\n"
		"procedure SYM from the call stacks `axprof record -g` stored: its inclusive\n"
		"samples (stacks holding it) and self samples (its own pc sampled), the call sites\n"
		"(sym+off) it was called from and the procedures it called, each with its samples\n"
		"and share of SYM's inclusive samples. --image I: SYM in image I only.\n\n"
		"With --stalls, DCPI's procedure summary instead: for each procedure with CYCLES\n"
		"samples, the share of its cycles spent issuing instructions, in static stalls (the\n"
		"EV5 schedule's), and in dynamic stalls by cause (I-cache, ITB, D-cache, DTB, branch\n"
		"mispredict, write buffer, functional unit) or unexplained, from the frequency and\n"
		"culprit analysis `axprof annotate` shows per instruction. A cause's column is one\n"
		"split of the dynamic stalls among the causes not ruled out (annotate and --json give\n"
		"the range each cause may explain).\n\n"
		"Options:\n"
		"  -d, --db DIR     the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N        that epoch (default the current one)\n"
		"  --image I        only images whose key, path or file name is I\n"
		"  --procedures     procedures instead of images\n"
		"  --pid P          only the samples process P took (its virtual pid on the hosted\n"
		"                   machine: the program is 1000); totals and shares are P's\n"
		"  --tid T          only the samples thread T took (its virtual tid on the hosted\n"
		"                   machine); T's totals and shares\n"
		"  --comm NAME      only the samples of threads that had the command name NAME\n"
		"                   (the executed file's basename, or one the thread set; a thread\n"
		"                   renamed by execve has both)\n"
		"  --tasks          one row per process, then one per thread of it (pid, tid, comm):\n"
		"                   samples of each event, all images (with --pid, --tid, --comm:\n"
		"                   theirs)\n"
		"  --event E        sort by event E (cycles, imiss, dmiss, branchmp, retired,\n"
		"                   replay; default the first recorded)\n"
		"  --lines          source lines instead of images (see above)\n"
		"  --callers SYM    the call sites SYM was called from (needs record -g)\n"
		"  --callees SYM    the procedures SYM called (needs record -g)\n"
		"  --stalls         where each procedure's cycles went (see above)\n"
		"  -n, --top N      the N rows with most samples (default 0: all)\n"
		"  --sort FIELD     row order: samples (default, most first), name, image, address\n"
		"                   (by image, then address) with --procedures; images: samples,\n"
		"                   name; --stalls: samples, cpi, static, dynamic (shares; largest\n"
		"                   first: -n takes the N largest), name; --lines: samples, line\n"
		"                   (file and line). Names, addresses and lines only order the rows\n"
		"                   -n and --percent-limit chose by samples\n"
		"  --percent-limit P  leave out rows with less than P percent of the (first)\n"
		"                   event's total samples (--stalls: of CYCLES)\n"
		"  --period P       --stalls: mean CYCLES sampling period, P or LO-HI (default: the\n"
		"                   one the database stored for each image, else 62000, the\n"
		"                   recorder's default)\n"
		"  --event-period E=P  --stalls: mean period of event E (imiss, dmiss, dtbmiss,\n"
		"                   itbmiss, branchmp; default the stored one), when it was sampled:\n"
		"                   its samples then bound the stalls of its cause\n"
		"  --no-demangle    print C++ symbols as the file has them (mangled)\n"
		"  --json           JSON output (docs/axprof-json.7)\n"
		"  --skip-damaged   leave out damaged database files, naming them on stderr and\n"
		"                   in the output (axprof-fsck(1) lists and repairs them)\n"
		"  --help           this text\n");
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * --sort FIELD per view (tl_sort_pick): counts descend, names and addresses ascend; ties fall
 * back to the default order. The first field is the default.
 */
static const char *const sort_images[] = { "samples", "name" };
static const char *const sort_procs[] = { "samples", "name", "image", "address" };
static const char *const sort_stalls[] = { "samples", "cpi", "static", "dynamic", "name" };
static const char *const sort_lines[] = { "samples", "line" };
enum { SORT_SAMPLES, SORT_NAME, SORT_IMAGE, SORT_ADDRESS };
enum { SSORT_SAMPLES, SSORT_CPI, SSORT_STATIC, SSORT_DYNAMIC, SSORT_NAME };
enum { LSORT_SAMPLES, LSORT_LINE };
#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))
static int sort_key; /* the view's field index, for the comparators below */

/* ---- rows ---- */

struct row {
	const char *name; /* procedure or image */
	const char *image;
	uint64_t start; /* procedure address (UINT64_MAX: no symbol) */
	uint64_t c[MAX_COLS];
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int k;

	/* image rows: name is the image (by file name, as tl_name_cmp orders images) */
	if (sort_key == SORT_NAME && x->name == x->image && (k = tl_name_cmp(x->name, y->name)))
		return k;
	if (sort_key == SORT_NAME && x->name != x->image && (k = strcmp(x->name, y->name)))
		return k;
	/* address: within each image (addresses of two images do not compare) */
	if ((sort_key == SORT_IMAGE || sort_key == SORT_ADDRESS) &&
	    (k = tl_name_cmp(x->image, y->image)))
		return k;
	if (sort_key == SORT_ADDRESS && x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->c[0] != y->c[0])
		return x->c[0] > y->c[0] ? -1 : 1;
	for (k = 1; k < MAX_COLS; k++)
		if (x->c[k] != y->c[k])
			return x->c[k] > y->c[k] ? -1 : 1;
	k = tl_name_cmp(x->image, y->image);
	return k ? k : strcmp(x->name, y->name);
}

/* The first column's samples, for --percent-limit (tl_rows_keep). */
static uint64_t row_samples(const void *r)
{
	return ((const struct row *)r)->c[0];
}

struct rows {
	struct row *r;
	size_t n, cap;
};

static struct row *rows_add(struct rows *rs)
{
	if (rs->n == rs->cap) {
		size_t ncap = rs->cap ? 2 * rs->cap : 64;
		struct row *n = realloc(rs->r, ncap * sizeof(*n));

		if (!n)
			return NULL;
		rs->r = n;
		rs->cap = ncap;
	}
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	return &rs->r[rs->n++];
}

struct psample {
	uint64_t start;
	const char *name;
	unsigned int col;
	uint64_t count;
};

static int ps_cmp(const void *a, const void *b)
{
	const struct psample *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Per process (issue 17 item 5): the image's tasks.prof holds its samples per (pid, offset,
 * event); with --pid P the rows come from P's entries instead of <EVENT>.prof.
 */
static int get_samples(const struct report *rp, const struct pdb_prof *prof, unsigned int ev,
		       struct pdb_count **out, size_t *n)
{
	struct pdb_task *t = NULL;
	struct pdb_count *c;
	size_t nt = 0, k = 0;

	if (!report_filter_is_on(&rp->f))
		return pdb_prof_samples(prof, ev, out, n);
	*out = NULL;
	*n = 0;
	if (pdb_prof_tasks(prof, &t, &nt))
		return -ENOMEM;
	c = calloc(nt ? nt : 1, sizeof(*c));
	if (!c) {
		free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nt; i++)
		if (t[i].event == ev && report_filter_match(&rp->f, t[i].pid, t[i].tid))
			c[k++] = (struct pdb_count){ .offset = t[i].offset, .count = t[i].count };
	free(t);
	*out = c;
	*n = k;
	return 0;
}

/* The filter's totals of each event over the selected images (and its unknown samples). */
static int pid_totals(struct report *rp, const struct tl_view_image *const *sel, size_t nsel)
{
	struct pdb_task *t = NULL;
	struct pdb_unknown *u = NULL;
	size_t n = 0;

	memset(rp->total, 0, sizeof(rp->total));
	for (size_t i = 0; i < nsel; i++) {
		if (!sel[i]->prof)
			continue;
		if (pdb_prof_tasks(sel[i]->prof, &t, &n))
			return -ENOMEM;
		for (size_t k = 0; k < n; k++)
			if (report_filter_match(&rp->f, t[k].pid, t[k].tid))
				rp->total[t[k].event] += t[k].count;
		free(t);
		t = NULL;
	}
	if (rp->v.unknown && (!rp->ro.image || !*rp->ro.image) && !rp->procs) {
		if (pdb_prof_unknowns(rp->v.unknown, &u, &n))
			return -ENOMEM;
		for (size_t k = 0; k < n; k++)
			if (report_filter_match(&rp->f, u[k].pid, u[k].tid))
				rp->total[u[k].event] += u[k].count;
		free(u);
	}
	return 0;
}

/* The filter's unknown samples of the shown events (c[k]: of ev[k]). */
static int add_unknown_pid(const struct report *rp, uint64_t *c)
{
	struct pdb_unknown *u = NULL;
	size_t n = 0;

	if (pdb_prof_unknowns(rp->v.unknown, &u, &n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (unsigned int k = 0;
		     report_filter_match(&rp->f, u[i].pid, u[i].tid) && k < rp->ncol; k++)
			if (rp->ev[k] == u[i].event)
				c[k] += u[i].count;
	free(u);
	return 0;
}

/* The filter's samples of the shown events in one image (c[k]: of ev[k]). */
static int image_pid(const struct report *rp, const struct pdb_prof *prof, uint64_t *c)
{
	for (unsigned int k = 0; k < rp->ncol; k++) {
		struct pdb_count *cs = NULL;
		size_t n = 0;

		if (get_samples(rp, prof, rp->ev[k], &cs, &n))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			c[k] += cs[i].count;
		free(cs);
	}
	return 0;
}

/* The procedures of one image as rows. */
static int image_procs(struct report *rp, const struct tl_view_image *im, struct rows *rs)
{
	struct psample *ps = NULL;
	size_t nps = 0, cap = 0;
	int ret = 0;

	for (unsigned int k = 0; k < rp->ncol; k++) {
		struct pdb_count *cs = NULL;
		size_t n = 0;

		if (get_samples(rp, im->prof, rp->ev[k], &cs, &n))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			uint64_t start = UINT64_MAX;
			const char *name = tl_view_proc(im, cs[i].offset, &start);

			if (nps == cap) {
				size_t ncap = cap ? 2 * cap : 256;
				struct psample *np = realloc(ps, ncap * sizeof(*np));

				if (!np) {
					free(cs);
					free(ps);
					return -ENOMEM;
				}
				ps = np;
				cap = ncap;
			}
			ps[nps++] = (struct psample){ name ? start : UINT64_MAX,
						      name ? name : "(no symbol)", k, cs[i].count };
		}
		free(cs);
	}
	if (nps > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(ps, nps, sizeof(*ps), ps_cmp);
	for (size_t i = 0; i < nps;) {
		struct row *r = rows_add(rs);

		if (!r) {
			ret = -ENOMEM;
			break;
		}
		size_t head = i;

		r->name = ps[head].name;
		r->image = im->name;
		r->start = ps[head].start;
		for (;
		     i < nps && ps[i].start == ps[head].start && !strcmp(ps[i].name, ps[head].name);
		     i++)
			r->c[ps[i].col] += ps[i].count;
	}
	free(ps);
	return ret;
}

/* ---- output ---- */

static void header(const struct report *rp, const char *what)
{
	char evn[32];

	printf("Column          Total\n");
	for (unsigned int k = 0; k < rp->ncol; k++)
		printf("%-10s %10" PRIu64 "\n", tl_event_lower(rp->ev[k], evn, sizeof(evn)),
		       rp->total[rp->ev[k]]);
	printf("\nThe numbers given below are the number of samples for each listed event type;\n"
	       "%% is the share of that event's total, cum%% accumulates the first column.\n");
	printf("==============================================================================\n");
	for (unsigned int k = 0; k < rp->ncol; k++) {
		printf("%9s %7s", tl_event_lower(rp->ev[k], evn, sizeof(evn)), "%");
		if (k == 0)
			printf(" %7s", "cum%");
		printf(" ");
	}
	printf(" %s\n", what);
}

static void print_rows(const struct report *rp, const struct rows *rs)
{
	uint64_t cum = 0, tot0 = rp->total[rp->ev[0]];

	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];

		for (unsigned int k = 0; k < rp->ncol; k++) {
			uint64_t t = rp->total[rp->ev[k]];

			printf("%9" PRIu64 " %6.2f%%", r->c[k], pct(r->c[k], t));
			if (k == 0) {
				cum += r->c[0];
				printf(" %6.2f%%", pct(cum, tot0));
			}
			printf(" ");
		}
		if (rp->procs || rp->lines)
			printf(" %-30s %s\n", r->name, base_name(r->image));
		else
			printf(" %s\n", r->name);
	}
}

/* {"cycles":N,...} of the shown events. */
static void json_events(struct ax_json *j, const char *key, const struct report *rp,
			const uint64_t *c, bool by_event)
{
	char evn[32];

	ax_json_obj_open(j, key);
	for (unsigned int k = 0; k < rp->ncol; k++)
		ax_json_u64(j, tl_event_lower(rp->ev[k], evn, sizeof(evn)),
			    by_event ? c[rp->ev[k]] : c[k]);
	ax_json_obj_close(j);
}

static void json_report(const struct report *rp, const struct rows *rs)
{
	struct ax_json j;
	char evn[32];

	ax_json_doc_open(&j, stdout, "report");
	ax_json_str(&j, "database", pdb_dir(rp->v.db));
	ax_json_u64(&j, "epoch", rp->v.epoch);
	tl_view_json_skipped(&j, &rp->v);
	ax_json_arr_open(&j, "events");
	for (unsigned int c = 0; c < rp->ncol; c++)
		ax_json_str(&j, NULL, tl_event_lower(rp->ev[c], evn, sizeof(evn)));
	ax_json_arr_close(&j);
	if (rp->f.pid_given)
		ax_json_u64(&j, "pid", rp->f.pid);
	if (rp->f.tid_given)
		ax_json_u64(&j, "tid", rp->f.tid);
	if (rp->f.comm)
		ax_json_str(&j, "comm", rp->f.comm);
	json_events(&j, "totals", rp, rp->total, true);
	ax_json_arr_open(&j, rp->procs ? "procedures" : "images");
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];

		ax_json_obj_open(&j, NULL);
		if (rp->procs) {
			tl_sym_json(&j, "procedure", r->name);
			if (r->start != UINT64_MAX)
				ax_json_hex(&j, "address", r->start);
		}
		ax_json_str(&j, "image", r->image);
		json_events(&j, "samples_by_event", rp, r->c, false);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

static int run(struct report *rp)
{
	const struct tl_view_image **sel;
	struct rows rs = { 0 };
	size_t n;
	int ret = 0;

	sel = calloc(rp->v.n ? rp->v.n : 1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	n = tl_view_select(&rp->v, rp->ro.image, rp->ev[0], sel);
	if (rp->ro.image && *rp->ro.image && !n) {
		fprintf(stderr, "axprof report: no image '%s' in epoch %u\n", rp->ro.image,
			rp->v.epoch);
		free(sel);
		return -ENOENT;
	}
	memcpy(rp->total, rp->v.total, sizeof(rp->total));
	if (report_filter_is_on(&rp->f)) {
		bool any = false;
		char what[128];

		ret = pid_totals(rp, sel, n);
		for (unsigned int e = 0; e < PDB_EV_MAX; e++)
			any |= rp->total[e] != 0;
		if (!ret && !any) {
			report_filter_describe(&rp->f, what, sizeof(what));
			fprintf(stderr,
				"axprof report: no samples of %s in epoch %u%s%s (axprof report "
				"--tasks lists the processes and threads that have some)\n",
				what, rp->v.epoch, rp->ro.image && *rp->ro.image ? " in " : "",
				rp->ro.image && *rp->ro.image ? rp->ro.image : "");
			free(sel);
			return -ENOENT;
		}
	}
	if (!ret && rp->tasks) {
		struct report_tasks_args a = {
			.v = &rp->v,
			.ro = &rp->ro,
			.sel = sel,
			.nsel = n,
			.with_unknown = !rp->ro.image || !*rp->ro.image,
			.ev = rp->ev,
			.ncol = rp->ncol,
			.total = rp->total,
			.f = &rp->f,
		};

		ret = report_tasks(&a);
		free(sel);
		return ret;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		const struct tl_view_image *im = sel[i];
		struct row *r;

		if (!im->prof)
			continue;
		if (rp->procs) {
			ret = image_procs(rp, im, &rs);
			continue;
		}
		r = rows_add(&rs);
		if (!r) {
			ret = -ENOMEM;
			break;
		}
		r->name = r->image = im->name;
		if (report_filter_is_on(&rp->f)) {
			ret = image_pid(rp, im->prof, r->c);
			continue;
		}
		for (unsigned int k = 0; k < rp->ncol; k++)
			r->c[k] = im->total[rp->ev[k]];
	}
	if (!ret && !rp->procs && (!rp->ro.image || !*rp->ro.image) && rp->v.unknown) {
		struct row *r = rows_add(&rs);

		if (r) {
			r->name = r->image = "unknown";
			for (unsigned int k = 0; k < rp->ncol; k++)
				r->c[k] = rp->v.unknown_total[rp->ev[k]];
		}
		if (r && report_filter_is_on(&rp->f)) {
			memset(r->c, 0, sizeof(r->c));
			ret = add_unknown_pid(rp, r->c);
		}
	}
	if (ret) {
		free(rs.r);
		free(sel);
		return ret;
	}
	/* Rows with no sample of any shown event say nothing. */
	size_t k = 0;

	for (size_t i = 0; i < rs.n; i++) {
		bool any = false;

		for (unsigned int c = 0; c < rp->ncol; c++)
			any |= rs.r[i].c[c] != 0;
		if (any)
			rs.r[k++] = rs.r[i];
	}
	rs.n = k;
	rs.n = tl_rows_sort(&rp->ro, rs.r, rs.n, sizeof(rs.r[0]), row_cmp, &sort_key,
			    sort_key != SORT_SAMPLES, row_samples, rp->total[rp->ev[0]]);
	if (rp->ro.json) {
		json_report(rp, &rs);
	} else {
		printf("axprof report: database %s, epoch %u\n\n", pdb_dir(rp->v.db), rp->v.epoch);
		if (report_filter_is_on(&rp->f)) {
			char what[128];

			report_filter_describe(&rp->f, what, sizeof(what));
			printf("Samples of %s only\n\n", what);
		}
		header(rp, rp->procs ? "procedure                      image" : "image");
		print_rows(rp, &rs);
	}
	free(rs.r);
	free(sel);
	return 0;
}

/* ---- --stalls: where each procedure's cycles went ---- */

struct srow {
	struct an_stall_proc p;
	const char *image;
};

static int srow_cmp(const void *a, const void *b)
{
	const struct srow *x = a, *y = b;
	double kx = 0, ky = 0;
	int k;

	switch (sort_key) {
	case SSORT_CPI: /* cycles per instruction executed */
		kx = x->p.s.insns_exec > 0 ?
			     (x->p.s.exec + x->p.s.stat + x->p.s.dyn) / x->p.s.insns_exec :
			     0;
		ky = y->p.s.insns_exec > 0 ?
			     (y->p.s.exec + y->p.s.stat + y->p.s.dyn) / y->p.s.insns_exec :
			     0;
		break;
	case SSORT_STATIC: /* the share of the procedure's cycles */
		kx = x->p.s.samples ? x->p.s.stat / x->p.s.samples : 0;
		ky = y->p.s.samples ? y->p.s.stat / y->p.s.samples : 0;
		break;
	case SSORT_DYNAMIC:
		kx = x->p.s.samples ? x->p.s.dyn / x->p.s.samples : 0;
		ky = y->p.s.samples ? y->p.s.dyn / y->p.s.samples : 0;
		break;
	case SSORT_NAME:
		k = strcmp(tl_sym_name(x->p.name), tl_sym_name(y->p.name));
		if (k)
			return k;
		break;
	}
	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (x->p.s.samples != y->p.s.samples)
		return x->p.s.samples < y->p.s.samples ? 1 : -1;
	k = tl_name_cmp(x->image, y->image);
	return k ? k : (x->p.start > y->p.start) - (x->p.start < y->p.start);
}

static uint64_t srow_samples(const void *r)
{
	return ((const struct srow *)r)->p.s.samples;
}

static double share(double a, double t)
{
	return t > 0 ? 100 * a / t : 0;
}

static void stall_line(const char *name, const char *image, const struct an_stall_summary *s)
{
	double t = s->samples, cpi = s->insns_exec > 0 ? s->samples * s->period / s->insns_exec : 0;

	printf("%9.0f %6.2f %5.1f %6.1f", t, cpi, share(s->exec, t), share(s->stat, t));
	for (unsigned int c = 0; c < AN_CAUSE_NR; c++)
		printf(" %6.1f", share(s->share[c], t));
	printf(" %6.1f  ", share(s->unexplained, t));
	if (image)
		printf("%-30s %s\n", name, base_name(image));
	else
		printf("%s\n", name);
}

static void stall_text(const struct report *rp, const struct srow *v, size_t n,
		       const struct an_stall_summary *tot)
{
	printf("axprof report: database %s, epoch %u; mean CYCLES period %.0f%s\n\n",
	       pdb_dir(rp->v.db), rp->v.epoch, tot->period,
	       tl_psrc_note(rp->assumed ? TL_PSRC_ASSUMED : TL_PSRC_STORED));
	printf("Where each procedure's cycles went, in %% of its CYCLES samples: issuing (exec),\n"
	       "static stalls, and dynamic stalls by cause (one split among the causes not ruled\n"
	       "out; `axprof annotate IMAGE PROC` shows the ranges and the culprits).\n");
	printf("==============================================================================\n");
	printf("%9s %6s %5s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s  %-30s %s\n", "cycles",
	       "CPI", "exec", "static", "Icache", "ITB", "Dcache", "DTB", "branch", "wbuf", "FU",
	       "PAL", "callee", "replay", "unexpl", "procedure", "image");
	for (size_t i = 0; i < n; i++)
		stall_line(tl_sym_name(v[i].p.name), v[i].image, &v[i].p.s);
	printf("------------------------------------------------------------------------------\n");
	stall_line("total", NULL, tot);
}

static void stall_json(const struct report *rp, const struct srow *v, size_t n,
		       const struct an_stall_summary *tot)
{
	struct ax_json j;

	ax_json_doc_open(&j, stdout, "report");
	ax_json_str(&j, "database", pdb_dir(rp->v.db));
	ax_json_u64(&j, "epoch", rp->v.epoch);
	tl_view_json_skipped(&j, &rp->v);
	ax_json_num(&j, "period", tot->period, 3);
	ax_json_bool(&j, "period_assumed", rp->assumed);
	ax_json_arr_open(&j, "procedures");
	for (size_t i = 0; i < n; i++) {
		ax_json_obj_open(&j, NULL);
		tl_sym_json(&j, "procedure", tl_sym_name(v[i].p.name));
		ax_json_str(&j, "image", v[i].image);
		ax_json_hex(&j, "address", v[i].p.start);
		tl_json_stall_summary(&j, "summary", &v[i].p.s);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	tl_json_stall_summary(&j, "total", tot);
	ax_json_doc_close(&j);
}

/* Analyse every selected image with CYCLES samples; images that cannot be read are named. */
static int run_stalls(struct report *rp)
{
	const struct tl_view_image **sel;
	struct an_fi_opts o = { 0 };
	struct an_stall_summary tot = { 0 };
	struct srow *v = NULL;
	size_t n = 0, nsel, i, k;
	int ret = 0;

	sel = calloc(rp->v.n ? rp->v.n : 1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	nsel = tl_view_select(&rp->v, rp->ro.image, PDB_EV_CYCLES, sel);
	if (rp->ro.image && *rp->ro.image && !nsel) {
		fprintf(stderr, "axprof report: no image '%s' in epoch %u\n", rp->ro.image,
			rp->v.epoch);
		free(sel);
		return -ENOENT;
	}
	for (i = 0; i < nsel && !ret; i++) {
		const struct tl_view_image *im = sel[i];
		struct an_stall_proc *ps;
		size_t np, skipped;
		struct ax_error err;
		struct srow *nv;

		if (!im->prof || !im->total[PDB_EV_CYCLES])
			continue;
		if (!im->img.path || !*im->img.path) {
			fprintf(stderr,
				"axprof report: %s: file unknown, its %" PRIu64
				" CYCLES samples are left out\n",
				im->name, im->total[PDB_EV_CYCLES]);
			continue;
		}
		if (tl_periods_for(&rp->per, im->prof, o.period) == TL_PSRC_ASSUMED)
			rp->assumed = true;
		ret = tl_stall_procs(im->img.path, im->prof, &o, &ps, &np, &skipped, &err);
		if (ret == -ENOMEM)
			break;
		if (ret) {
			fprintf(stderr,
				"axprof report: %s (its %" PRIu64 " CYCLES samples are left out)\n",
				err.msg, im->total[PDB_EV_CYCLES]);
			ret = 0;
			continue;
		}
		if (skipped)
			fprintf(stderr,
				"axprof report: %s: %zu procedure%s the CFG builder rejects "
				"left out\n",
				im->name, skipped, skipped == 1 ? "" : "s");
		nv = realloc(v, (n + np + 1) * sizeof(*v));
		if (!nv) {
			free(ps);
			ret = -ENOMEM;
			break;
		}
		v = nv;
		for (k = 0; k < np; k++) {
			v[n].p = ps[k];
			v[n].image = im->name;
			an_stall_summary_add(&tot, &ps[k].s);
			n++;
		}
		free(ps);
	}
	if (!ret && !n) {
		fprintf(stderr,
			"axprof report: no procedure with CYCLES samples could be analysed "
			"in epoch %u%s%s\n",
			rp->v.epoch, rp->ro.image ? " for image " : "",
			rp->ro.image ? rp->ro.image : "");
		ret = -ENOENT;
	}
	if (!ret) {
		if (!tot.period)
			tot.period = o.period[AN_EV_CYCLES];
		n = tl_rows_sort(&rp->ro, v, n, sizeof(*v), srow_cmp, &sort_key,
				 sort_key == SSORT_NAME, srow_samples, rp->v.total[PDB_EV_CYCLES]);
		if (rp->ro.json)
			stall_json(rp, v, n, &tot);
		else
			stall_text(rp, v, n, &tot);
	}
	free(v);
	free(sel);
	return ret;
}

/* ---- --lines: samples per source line ---- */

static int lrow_cmp(const void *a, const void *b)
{
	const struct tl_line_row *x = a, *y = b;
	int k;

	if (sort_key == LSORT_LINE) {
		k = tl_name_cmp(x->im->name, y->im->name);
		if (k)
			return k;
		if (!x->file || !y->file)
			return !x->file - !y->file;
		k = strcmp(x->file, y->file);
		return k ? k : (x->line > y->line) - (x->line < y->line);
	}
	for (k = 0; k < TL_LINE_COLS; k++)
		if (x->c[k] != y->c[k])
			return x->c[k] > y->c[k] ? -1 : 1;
	k = tl_name_cmp(x->im->name, y->im->name);
	if (k)
		return k;
	if (!x->file || !y->file)
		return !x->file - !y->file;
	k = strcmp(x->file, y->file);
	return k ? k : (x->line > y->line) - (x->line < y->line);
}

static uint64_t lrow_samples(const void *r)
{
	return ((const struct tl_line_row *)r)->c[0];
}

static const char *line_name(const struct tl_line_row *r, char *buf, size_t size)
{
	if (!r->file)
		return "(no line information)";
	snprintf(buf, size, "%s:%u", base_name(r->file), r->line);
	return buf;
}

static void lines_json(const struct report *rp, const struct tl_line_row *r, size_t n)
{
	struct ax_json j;
	char evn[32];

	ax_json_doc_open(&j, stdout, "report");
	ax_json_str(&j, "database", pdb_dir(rp->v.db));
	ax_json_u64(&j, "epoch", rp->v.epoch);
	tl_view_json_skipped(&j, &rp->v);
	ax_json_arr_open(&j, "events");
	for (unsigned int c = 0; c < rp->ncol; c++)
		ax_json_str(&j, NULL, tl_event_lower(rp->ev[c], evn, sizeof(evn)));
	ax_json_arr_close(&j);
	json_events(&j, "totals", rp, rp->v.total, true);
	ax_json_arr_open(&j, "lines");
	for (size_t i = 0; i < n; i++) {
		ax_json_obj_open(&j, NULL);
		if (r[i].file) {
			ax_json_str(&j, "file", r[i].file);
			ax_json_u64(&j, "line", r[i].line);
		}
		ax_json_str(&j, "image", r[i].im->name);
		json_events(&j, "samples_by_event", rp, r[i].c, false);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

static int run_lines(struct report *rp)
{
	const struct tl_view_image **sel;
	struct tl_line_row *r = NULL;
	size_t nsel, n = 0, k = 0;
	int ret;

	sel = calloc(rp->v.n ? rp->v.n : 1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	nsel = tl_view_select(&rp->v, rp->ro.image, rp->ev[0], sel);
	if (rp->ro.image && *rp->ro.image && !nsel) {
		fprintf(stderr, "axprof report: no image '%s' in epoch %u\n", rp->ro.image,
			rp->v.epoch);
		free(sel);
		return -ENOENT;
	}
	for (size_t i = 0; i < nsel; i++) {
		const char *why;

		if (sel[i]->prof && !tl_view_lines(sel[i], &why) && !rp->ro.json)
			fprintf(stderr, "axprof report: %s: no source lines: %s\n", sel[i]->name,
				why);
	}
	memcpy(rp->total, rp->v.total, sizeof(rp->total)); /* the header's and the shares' */
	ret = tl_line_rows(sel, nsel, rp->ev, rp->ncol, &r, &n);
	free(sel);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		bool any = false;

		for (unsigned int c = 0; c < rp->ncol; c++)
			any |= r[i].c[c] != 0;
		if (any)
			r[k++] = r[i];
	}
	n = k;
	n = tl_rows_sort(&rp->ro, r, n, sizeof(*r), lrow_cmp, &sort_key, sort_key == LSORT_LINE,
			 lrow_samples, rp->v.total[rp->ev[0]]);
	if (rp->ro.json) {
		lines_json(rp, r, n);
	} else {
		struct rows rs = { 0 };
		char(*names)[256];

		rs.r = calloc(n ? n : 1, sizeof(*rs.r));
		names = calloc(n ? n : 1, sizeof(*names));
		if (!rs.r || !names) {
			free(rs.r);
			free(names);
			free(r);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			rs.r[i].name = line_name(&r[i], names[i], sizeof(names[i]));
			rs.r[i].image = r[i].im->name;
			memcpy(rs.r[i].c, r[i].c, sizeof(rs.r[i].c));
		}
		rs.n = n;
		printf("axprof report: database %s, epoch %u\n\n", pdb_dir(rp->v.db), rp->v.epoch);
		header(rp, "source line                    image");
		print_rows(rp, &rs);
		free(names);
		free(rs.r);
	}
	free(r);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	enum {
		O_STALLS = 256,
		O_PERIOD,
		O_EVPERIOD,
		O_LINES,
		O_PID,
		O_TID,
		O_COMM,
		O_TASKS,
		O_CALLERS,
		O_CALLEES
	};
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_IMAGE,
		TL_LONGOPT_JSON,
		TL_LONGOPT_TOP,
		TL_LONGOPT_PERCENT_LIMIT,
		TL_LONGOPT_SKIP_DAMAGED,
		TL_LONGOPT_NO_DEMANGLE,
		TL_LONGOPT_SORT,
		{ "procedures", no_argument, NULL, 'p' },
		{ "pid", required_argument, NULL, O_PID },
		{ "tid", required_argument, NULL, O_TID },
		{ "comm", required_argument, NULL, O_COMM },
		{ "tasks", no_argument, NULL, O_TASKS },
		{ "callers", required_argument, NULL, O_CALLERS },
		{ "callees", required_argument, NULL, O_CALLEES },
		{ "event", required_argument, NULL, 'E' },
		{ "stalls", no_argument, NULL, O_STALLS },
		{ "lines", no_argument, NULL, O_LINES },
		{ "period", required_argument, NULL, O_PERIOD },
		{ "event-period", required_argument, NULL, O_EVPERIOD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report rp = { 0 };
	const char *evname = NULL;
	struct ax_error err;
	int c, ret, sort_ev = -1;
	bool stall_opt = false;

	tl_ropts_init(&rp.ro, "axprof report", 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&rp.ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case O_STALLS:
			rp.stalls = true;
			break;
		case O_LINES:
			rp.lines = true;
			break;
		case O_PERIOD:
			if (tl_period_parse("axprof report", optarg, rp.per.given))
				return 2;
			stall_opt = true;
			break;
		case O_EVPERIOD:
			if (tl_event_period_parse("axprof report", optarg, rp.per.given))
				return 2;
			stall_opt = true;
			break;
		case 'p':
			rp.procs = true;
			break;
		case O_PID:
		case O_TID: {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *optarg < '0' || *optarg > '9' || *end || v > UINT32_MAX) {
				fprintf(stderr,
					"axprof report: %s needs a %s id (a number), not '%s'\n",
					c == O_PID ? "--pid" : "--tid",
					c == O_PID ? "process" : "thread", optarg);
				return 2;
			}
			if (c == O_PID) {
				rp.f.pid = (uint32_t)v;
				rp.f.pid_given = true;
			} else {
				rp.f.tid = (uint32_t)v;
				rp.f.tid_given = true;
			}
			break;
		}
		case O_COMM:
			if (!*optarg || strlen(optarg) > PDB_COMM_MAX) {
				fprintf(stderr,
					"axprof report: --comm needs a command name of 1 to %d "
					"bytes (the kernel's; longer names are cut there), not '%s'\n",
					PDB_COMM_MAX, optarg);
				return 2;
			}
			rp.f.comm = optarg;
			break;
		case O_TASKS:
			rp.tasks = true;
			break;
		case O_CALLERS:
			rp.callers = optarg;
			break;
		case O_CALLEES:
			rp.callees = optarg;
			break;
		case 'E':
			evname = optarg;
			sort_ev = tl_event_parse(optarg);
			if (sort_ev < 0) {
				fprintf(stderr, "axprof report: unknown event '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "axprof report: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!rp.stalls && stall_opt) {
		fprintf(stderr, "axprof report: --period and --event-period go with --stalls\n");
		return 2;
	}
	if (rp.lines && (rp.procs || rp.stalls || stall_opt)) {
		fprintf(stderr, "axprof report: --lines does not go with --procedures, --stalls, "
				"--period or --event-period\n");
		return 2;
	}
	if ((report_filter_is_on(&rp.f) || rp.tasks) &&
	    (rp.stalls || rp.lines || (rp.tasks && rp.procs))) {
		fprintf(stderr,
			"axprof report: --pid, --tid and --comm go with images, --procedures "
			"and --tasks, --tasks not with --procedures (and none with --stalls "
			"or --lines)\n");
		return 2;
	}
	if ((rp.callers || rp.callees) &&
	    (rp.stalls || rp.lines || rp.procs || rp.tasks || report_filter_is_on(&rp.f) ||
	     stall_opt || rp.ro.sort ||
	     (rp.callers && rp.callees && strcmp(rp.callers, rp.callees)) ||
	     !*(rp.callers ? rp.callers : rp.callees))) {
		fprintf(stderr, "axprof report: --callers and --callees take one procedure name "
				"(the same when both are given) and go with --event, --image, -n, "
				"--percent-limit and --json only\n");
		return 2;
	}
	if (rp.stalls && (rp.procs || evname)) {
		fprintf(stderr, "axprof report: --stalls shows procedures by CYCLES samples; "
				"--procedures and --event do not go with it\n");
		return 2;
	}
	if (rp.stalls)
		sort_key =
			tl_sort_pick(&rp.ro, "report --stalls", sort_stalls, NFIELDS(sort_stalls));
	else if (rp.lines)
		sort_key = tl_sort_pick(&rp.ro, "report --lines", sort_lines, NFIELDS(sort_lines));
	else if (rp.procs)
		sort_key = tl_sort_pick(&rp.ro, "report --procedures", sort_procs,
					NFIELDS(sort_procs));
	else
		sort_key = tl_sort_pick(&rp.ro, "report", sort_images, NFIELDS(sort_images));
	if (sort_key < 0)
		return 2;
	ret = tl_view_open_ro(&rp.v, &rp.ro, &err);
	if (ret) {
		fprintf(stderr, "axprof report: %s\n", err.msg);
		return 1;
	}
	if (report_filter_load(&rp.f, &rp.v)) {
		fprintf(stderr, "axprof report: out of memory\n");
		tl_view_close(&rp.v);
		return 1;
	}
	if (sort_ev >= 0)
		rp.ev[rp.ncol++] = (unsigned int)sort_ev;
	for (unsigned int e = 0; e < PDB_EV_MAX && rp.ncol < MAX_COLS; e++)
		if ((rp.v.events & (1u << e)) && (int)e != sort_ev)
			rp.ev[rp.ncol++] = e;
	if (!rp.ncol) {
		if (evname)
			rp.ev[rp.ncol++] = (unsigned int)sort_ev;
		else
			rp.ev[rp.ncol++] = PDB_EV_CYCLES;
	}
	if (rp.callers || rp.callees)
		ret = report_callgraph(&rp.v, &rp.ro, rp.ev[0],
				       rp.callers ? rp.callers : rp.callees, rp.callers != NULL,
				       rp.callees != NULL);
	else
		ret = rp.stalls ? run_stalls(&rp) : rp.lines ? run_lines(&rp) : run(&rp);
	report_filter_free(&rp.f);
	tl_view_close(&rp.v);
	return ret ? 1 : 0;
}
