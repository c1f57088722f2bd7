/* eval/axeval.c - `make eval`'s grader: DCPI Figures 8, 9, 10 against the machine's ground truth. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axeval.h"
#include "ev_eval.h"
#include "mach_kern.h"
#include "pdb.h"
#include "ax_json.h"
#include "tl_periods.h"
#include "tl_view.h"

/*
 * axeval [options] NAME DB IMAGE TRUTH [NAME DB IMAGE TRUTH ...]
 *
 * For each run: the profile of IMAGE in DB's current epoch (recorded by `axprof record --truth
 * TRUTH`), analysed as `axprof annotate` does (analysis/an_freq_image.h) and graded against
 * TRUTH by eval/ev_eval.c. Prints one line per run, then the totals next to the paper's
 * published figures and the project's targets.
 */

/* DCPI SOSP'97 §6.1, §6.2 (published) and the project's targets. */
#define PAPER_W5 0.73
#define PAPER_W10 0.87
#define PAPER_W15 0.92
#define PAPER_EDGE10 0.58
#define PAPER_CORR_TOP 0.91
#define PAPER_CORR_BOT 0.86
#define PAPER_CORR_MID 0.90
#define PAPER_UNEXPLAINED 0.086
#define TARGET_W5 0.80
#define TARGET_W10 0.92
#define TARGET_EDGE10 0.70
#define TARGET_CORR 0.91
#define TARGET_UNEXPLAINED 0.086

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axeval [--period P] [--event-period E=P] [--detail FILE] [--json FILE]\n"
		"              NAME DB IMAGE TRUTH [NAME DB IMAGE TRUTH ...]\n"
		"       axeval --replays [--period P] NAME DB IMAGE TRUTH [...]\n"
		"       axeval --paths NAME IMAGE TRUTH [...]\n"
		"       axeval --kernel NAME DB TRUTH [...]\n\n"
		"Grade axprof's frequency and culprit estimates (DCPI SOSP'97 §6) against the hosted\n"
		"machine's ground truth: Figure 8 (instruction frequencies, by samples), Figure 9\n"
		"(edges), Figure 10 (I-cache stall cycles against I-cache misses), unexplained stalls.\n\n"
		"  --period P          mean CYCLES sampling period of the recordings, P or LO-HI\n"
		"                      (default: the one each database stored)\n"
		"  --event-period E=P  mean period of event E (imiss, dmiss, branchmp) when sampled\n"
		"                      (default: the stored one)\n"
		"  --truth-events      use the truth's exact event counts as event samples (the limit\n"
		"                      of event sampling; when the recorder cannot sample events)\n"
		"  --detail FILE       CSV of every graded instruction\n"
		"  --json FILE         the figures as one JSON document (docs/axprof-json.7)\n"
		"  --replays           instead: grade vreplay's named conflicts (recorded with\n"
		"                      --cpu ev6 --mode vreplay) against the truth's replay traps:\n"
		"                      recall and precision (eval/ev_replay.h)\n"
		"  --paths             instead: ProfileMe Figure 6, path reconstruction against the\n"
		"                      EV6 truth's paths of paired samples (recorded with --cpu ev6\n"
		"                      --mode profileme --truth), for 0..12 history bits\n"
		"  --kernel            instead: the hosted machine's system-call time, the [kernel]\n"
		"                      image's share of the CYCLES samples against the truth's\n"
		"                      (recorded with --truth), and its top procedure\n"
		"  --skip-damaged      grade what reads of a damaged database, naming each damaged\n"
		"                      file left out (stderr, output, \"skipped\" in --json); without\n"
		"                      it a damaged file fails its run\n");
}

static const char *pf(bool ok)
{
	return ok ? "met" : "MISSED";
}

static void bar(double share)
{
	int n = (int)lround(share * 60);

	for (int i = 0; i < n; i++)
		putchar('#');
}

static void print_hist(const char *title, const struct ev_eval_hist *h)
{
	printf("%s\n", title);
	printf("  %-7s %7s %9s\n", "bucket", "share", "low-conf");
	for (int b = 0; b < EV_EVAL_NB; b++) {
		double s = h->total > 0 ? h->w[b] / h->total : 0;
		double l = h->total > 0 ? h->low[b] / h->total : 0;

		printf("  %-7s %6.2f%% %8.2f%%  ", ev_eval_bucket_label(b), 100 * s, 100 * l);
		bar(s);
		printf("\n");
	}
}

struct fig10 {
	double top, bot, mid;
	double truth; /* the machine's own I-cache stall cycles against the same misses */
	size_t n;
};

static struct fig10 correlate(const struct ev_eval_acc *a)
{
	struct fig10 r = { 0 };
	double *x = calloc(a->npts + 1, sizeof(double)), *lo = calloc(a->npts + 1, sizeof(double));
	double *hi = calloc(a->npts + 1, sizeof(double)),
	       *mid = calloc(a->npts + 1, sizeof(double)),
	       *tr = calloc(a->npts + 1, sizeof(double));

	if (x && lo && hi && mid && tr) {
		for (size_t i = 0; i < a->npts; i++) {
			x[i] = a->pts[i].misses;
			lo[i] = a->pts[i].lo;
			hi[i] = a->pts[i].hi;
			mid[i] = (lo[i] + hi[i]) / 2;
			tr[i] = a->pts[i].true_icache;
		}
		r.n = a->npts;
		r.top = ev_eval_pearson(x, hi, a->npts);
		r.bot = ev_eval_pearson(x, lo, a->npts);
		r.mid = ev_eval_pearson(x, mid, a->npts);
		r.truth = ev_eval_pearson(x, tr, a->npts);
	}
	free(tr);
	free(x);
	free(lo);
	free(hi);
	free(mid);
	return r;
}

static int cmp_pt(const void *a, const void *b)
{
	const struct ev_eval_point *x = a, *y = b;

	return (x->misses < y->misses) - (x->misses > y->misses);
}

/* The hosted machine's [kernel] pseudo-image (machine/mach_kern.h)? */
static bool is_hosted_kernel(const char *path)
{
	const char *b = strrchr(path, '/');

	return !strcmp(b ? b + 1 : path, MACH_KERN_IMAGE);
}

/*
 * Grade every image of db's current epoch that has CYCLES samples: the program (key of
 * `image`) at its link addresses, shared objects at the load bias their samples reveal. *all
 * gets every CYCLES sample of the epoch (images and unknown), for the graded share.
 */
static int grade_run(const char *name, const char *dbdir, const char *image,
		     const struct mach_truth *t, const struct tl_periods *per, unsigned int flags,
		     struct ev_eval_acc *a, FILE *detail, double *all, struct pdb_skips *sk,
		     struct ax_error *err)
{
	unsigned int lf = sk ? PDB_LOAD_SKIP_DAMAGED : 0;
	struct an_fi_opts oi = { 0 }, *o = &oi;
	bool assumed = false;
	struct pdb_image *list = NULL, me;
	struct pdb_db *db;
	struct pdb_prof *up = NULL;
	uint32_t epoch;
	size_t n = 0;
	int ret;

	ret = pdb_open(dbdir, false, &db, err);
	if (ret)
		return ret;
	ret = pdb_image_describe(image, &me, err);
	if (ret)
		goto out;
	ret = pdb_epoch_current(db, &epoch);
	if (!ret)
		ret = pdb_image_list_opt(db, epoch, lf, &list, &n, sk);
	if (ret) {
		ax_fail(err, ret, "%s: %s", dbdir, pdb_errmsg(db));
		goto out;
	}
	ret = pdb_load_opt(db, epoch, PDB_KEY_UNKNOWN, lf, &up, sk);
	if (!ret) {
		*all += (double)pdb_prof_total(up, PDB_EV_CYCLES);
		pdb_prof_free(up);
	} else if (ret != -ENOENT) {
		ax_fail(err, ret, "%s", pdb_errmsg(db));
		goto out;
	}
	ret = 0;
	for (size_t k = 0; k < n; k++) {
		struct pdb_prof *prof = NULL;
		bool main_image = !strcmp(list[k].key, me.key);
		const char *path = main_image ? image : list[k].path;
		uint64_t bias = 0;
		char tag[160];

		ret = pdb_load_opt(db, epoch, list[k].key, lf, &prof, sk);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret) {
			ax_fail(err, ret, "%s", pdb_errmsg(db));
			goto out;
		}
		*all += (double)pdb_prof_total(prof, PDB_EV_CYCLES);
		if (!pdb_prof_total(prof, PDB_EV_CYCLES) || !path || !*path ||
		    is_hosted_kernel(path)) {
			/* the hosted [kernel]'s system-call time: no code (axeval --kernel) */
			pdb_prof_free(prof);
			continue;
		}
		if (tl_periods_for(per, prof, oi.period) == TL_PSRC_ASSUMED && !assumed) {
			fprintf(stderr,
				"axeval: %s: %s stores no CYCLES period: %.0f assumed (give "
				"--period)\n",
				name, dbdir, oi.period[AN_EV_CYCLES]);
			assumed = true;
		}
		if (!main_image && ev_eval_infer_bias(prof, t, o->period[AN_EV_CYCLES], &bias)) {
			fprintf(stderr, "axeval: %s: %s: no load bias fits the truth; not graded\n",
				name, path);
			pdb_prof_free(prof);
			continue;
		}
		if (main_image)
			snprintf(tag, sizeof(tag), "%s", name);
		else
			snprintf(tag, sizeof(tag), "%.60s/%.80s", name,
				 strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		ret = ev_eval_image(path, prof, t, bias, o, flags, a, detail, tag, err);
		pdb_prof_free(prof);
		if (ret)
			goto out;
	}
out:
	pdb_image_list_free(list, n);
	pdb_close(db);
	return ret;
}

struct opts {
	struct tl_periods per;
	unsigned int flags; /* EV_EVAL_* */
	const char *detail_path, *json_path;
	bool skip_damaged; /* --skip-damaged */
	bool replays; /* --replays */
	bool paths; /* --paths: ProfileMe Figure 6 */
	bool kernel; /* --kernel: the hosted [kernel] image against the truth */
	struct pdb_skips skipped; /* what every run left out */
};

/* The figures of the totals. */
struct figures {
	double w5, w10, w15, e10, unexp, low;
	struct fig10 f10;
};

/* 0, -1 after --help, or the usage exit code 2. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	enum {
		O_PERIOD = 256,
		O_EVP,
		O_TEV,
		O_DETAIL,
		O_JSON,
		O_HELP,
		O_SKIP,
		O_REPLAYS,
		O_PATHS,
		O_KERNEL
	};
	static const struct option longopts[] = {
		{ "period", required_argument, NULL, O_PERIOD },
		{ "event-period", required_argument, NULL, O_EVP },
		{ "truth-events", no_argument, NULL, O_TEV },
		{ "detail", required_argument, NULL, O_DETAIL },
		{ "json", required_argument, NULL, O_JSON },
		{ "help", no_argument, NULL, O_HELP },
		{ "skip-damaged", no_argument, NULL, O_SKIP },
		{ "replays", no_argument, NULL, O_REPLAYS },
		{ "paths", no_argument, NULL, O_PATHS },
		{ "kernel", no_argument, NULL, O_KERNEL },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_PERIOD:
			if (tl_period_parse("axeval", optarg, o->per.given))
				return 2;
			break;
		case O_EVP:
			if (tl_event_period_parse("axeval", optarg, o->per.given))
				return 2;
			break;
		case O_TEV:
			o->flags |= EV_EVAL_TRUTH_EVENTS;
			break;
		case O_DETAIL:
			o->detail_path = optarg;
			break;
		case O_JSON:
			o->json_path = optarg;
			break;
		case O_REPLAYS:
			o->replays = true;
			break;
		case O_PATHS:
			o->paths = true;
			break;
		case O_KERNEL:
			o->kernel = true;
			break;
		case O_SKIP:
			o->skip_damaged = true;
			break;
		case O_HELP:
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc || (argc - optind) % (o->paths || o->kernel ? 3 : 4)) {
		usage(stderr);
		return 2;
	}
	if (o->replays && (o->detail_path || o->json_path || o->skip_damaged ||
			   (o->flags & EV_EVAL_TRUTH_EVENTS))) {
		fprintf(stderr, "axeval: --replays takes only --period (the CYCLES period that "
				"places shared objects)\n");
		return 2;
	}
	return 0;
}

/* The per-instruction CSV with its header line; NULL after a message. */
static FILE *open_detail(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "axeval: cannot create %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fprintf(f, "run,procedure,addr,block,class,samples,m,est,exec,err,confidence,"
		   "how,true_static,unexplained,true_head\n");
	return f;
}

static void print_header(const struct opts *o)
{
	const double *g = o->per.given;

	printf("DCPI SOSP'97 §6 on the hosted EV5 machine: estimates vs exact counts\n");
	if (g[AN_EV_CYCLES] > 0)
		printf("mean CYCLES period %.0f", g[AN_EV_CYCLES]);
	else
		printf("mean periods as each database stored them");
	if (o->flags & EV_EVAL_TRUTH_EVENTS)
		printf("; events: the machine's exact counts (idealised event sampling)");
	if (g[AN_EV_IMISS] > 0)
		printf(", IMISS %.0f", g[AN_EV_IMISS]);
	if (g[AN_EV_DMISS] > 0)
		printf(", DMISS %.0f", g[AN_EV_DMISS]);
	if (g[AN_EV_BRANCHMP] > 0)
		printf(", BRANCHMP %.0f", g[AN_EV_BRANCHMP]);
	printf("\n\n%-13s %9s %6s %6s %6s %7s %7s %6s %7s %6s %5s\n", "run", "samples", "<=5%",
	       "<=10%", "<=15%", "edge10", "unexpl", "Mi=", "recall", "graded", "s");
}

static void print_run(const char *name, const struct ev_eval_acc *a)
{
	printf("%-13s %9.0f %5.1f%% %5.1f%% %5.1f%% %6.1f%% %6.2f%% %5.1f%% %6.1f%% "
	       "%5.1f%% %5.2f\n",
	       name, a->samples, 100 * ev_eval_hist_within(&a->insn, 5),
	       100 * ev_eval_hist_within(&a->insn, 10), 100 * ev_eval_hist_within(&a->insn, 15),
	       100 * ev_eval_hist_within(&a->edge, 10),
	       a->samples > 0 ? 100 * a->unexplained / a->samples : 0,
	       a->m_total > 0 ? 100 * a->m_agree / a->m_total : 0,
	       a->dyn_true > 0 ? 100 * a->dyn_kept / a->dyn_true : 0,
	       a->samples_image > 0 ? 100 * a->samples / a->samples_image : 0, a->seconds);
}

/*
 * Grade one run (NAME DB IMAGE TRUTH) into tot and print its line. 0, 1 when it could not be
 * graded (said on its line), -ENOMEM.
 */
static int grade_one(char *const run[4], struct opts *o, FILE *detail, struct ev_eval_acc *tot)
{
	struct pdb_skips mine = { 0 };
	struct ev_eval_acc a = { 0 };
	struct mach_truth *t = NULL;
	struct ax_error terr;
	double all = 0;
	struct ax_error err;
	int ret, status = 0;

	ret = mach_truth_read(run[3], &t, &terr);
	if (ret) {
		printf("%-13s cannot read the truth: %s\n", run[0], terr.msg);
		return 1;
	}
	ret = grade_run(run[0], run[1], run[2], t, &o->per, o->flags, &a, detail, &all,
			o->skip_damaged ? &mine : NULL, &err);
	a.samples_image = all;
	tl_skips_warn(&mine, "axeval");
	for (size_t i = 0; i < mine.n; i++) {
		printf("%-13s skipped damaged %s\n", run[0], mine.v[i].file);
		if (pdb_skips_add(&o->skipped, mine.v[i].file, mine.v[i].why))
			status = -ENOMEM;
	}
	pdb_skips_free(&mine);
	if (ret) {
		printf("%-13s analysis failed: %s\n", run[0], err.msg);
		status = 1;
	} else {
		print_run(run[0], &a);
		if (ev_eval_acc_merge(tot, &a))
			status = -ENOMEM;
	}
	ev_eval_acc_free(&a);
	mach_truth_free(t);
	return status;
}

static void print_total(const struct ev_eval_acc *tot)
{
	printf("%-13s %9.0f (graded %.1f%% of all samples; %" PRIu64 " procedures, %" PRIu64
	       " rejected by the CFG builder)\n\n",
	       "total", tot->samples,
	       tot->samples_image > 0 ? 100 * tot->samples / tot->samples_image : 0, tot->procs,
	       tot->procs_failed);
	printf("columns: share of CYCLES samples whose estimated execution count F*P is within\n"
	       "5/10/15%% of the exact count; share of edge executions within 10%%; unexplained\n"
	       "stall samples; samples at instructions whose static M_i equals the machine's\n"
	       "static cycles; share of the machine's dynamic stall cycles whose cause the culprit\n"
	       "analysis kept; share of all samples (program, shared objects, unattributed) in\n"
	       "procedures that were analysed and graded.\n\n");
}

static struct figures compute_figures(const struct ev_eval_acc *tot)
{
	struct figures f;

	f.w5 = ev_eval_hist_within(&tot->insn, 5);
	f.w10 = ev_eval_hist_within(&tot->insn, 10);
	f.w15 = ev_eval_hist_within(&tot->insn, 15);
	f.e10 = ev_eval_hist_within(&tot->edge, 10);
	f.unexp = tot->samples > 0 ? tot->unexplained / tot->samples : 0;
	f.low = 0;
	for (int b = 0; b < EV_EVAL_NB; b++)
		f.low += tot->insn.low[b];
	f.low = tot->insn.total > 0 ? f.low / tot->insn.total : 0;
	f.f10 = correlate(tot);
	return f;
}

/* Figure 10: the procedures with most misses and the correlations (sorts tot->pts). */
static void print_fig10(struct ev_eval_acc *tot, const struct fig10 *f10)
{
	printf("Figure 10: I-cache stall cycles attributed per procedure (with exact execution\n"
	       "counts, as in the paper) against %s, %zu procedures\n",
	       tot->truth_events ?
		       "I-cache misses; IMISS bounds and misses are the machine's\n"
		       "exact IMISS counts, not samples (the limit of event sampling)" :
	       tot->imiss_sampled ?
		       "IMISS samples x IMISS period" :
		       "the machine's exact IMISS events (IMISS not sampled, no bounds)",
	       f10->n);
	if (tot->npts) {
		qsort(tot->pts, tot->npts, sizeof(*tot->pts), cmp_pt);
		printf("  %-40s %10s %12s %12s %12s\n", "procedure (most misses first)", "misses",
		       "stall lo", "stall hi", "true icache");
		for (size_t k = 0; k < tot->npts && k < 12; k++)
			printf("  %-40.40s %10.0f %12.0f %12.0f %12.0f\n", tot->pts[k].name,
			       tot->pts[k].misses, tot->pts[k].lo, tot->pts[k].hi,
			       tot->pts[k].true_icache);
	}
	printf("  correlation: top %.3f, bottom %.3f, midpoint %.3f (paper: %.2f, %.2f, %.2f)\n",
	       f10->top, f10->bot, f10->mid, PAPER_CORR_TOP, PAPER_CORR_BOT, PAPER_CORR_MID);
	printf("  the machine's true I-cache stall cycles against the same misses: %.3f (what an\n"
	       "  attribution exactly equal to the truth would score)\n\n",
	       f10->truth);
}

static void print_figures(struct ev_eval_acc *tot, const struct figures *f)
{
	print_hist("Figure 8: instruction frequency estimates, share of CYCLES samples per error "
		   "bucket",
		   &tot->insn);
	printf("\n");
	print_hist("Figure 9: edge frequency estimates, share of edge executions per error bucket",
		   &tot->edge);
	printf("\n");
	print_fig10(tot, &f->f10);
}

static void print_summary(const struct ev_eval_acc *tot, const struct figures *f)
{
	printf("Summary                          measured   target    paper\n");
	printf("  samples within  5%%             %7.1f%%   >= %2.0f%%   %4.0f%%   %s\n",
	       100 * f->w5, 100 * TARGET_W5, 100 * PAPER_W5, pf(f->w5 >= TARGET_W5));
	printf("  samples within 10%%             %7.1f%%   >= %2.0f%%   %4.0f%%   %s\n",
	       100 * f->w10, 100 * TARGET_W10, 100 * PAPER_W10, pf(f->w10 >= TARGET_W10));
	printf("  samples within 15%%             %7.1f%%       -     %4.0f%%\n", 100 * f->w15,
	       100 * PAPER_W15);
	printf("  beyond 15%% marked low conf.    %7.1f%%       -    \"nearly all\"\n",
	       100 * ev_eval_hist_beyond_low(&tot->insn, 15));
	printf("  samples marked low confidence  %7.1f%%\n", 100 * f->low);
	printf("  edge executions within 10%%     %7.1f%%   >= %2.0f%%   %4.0f%%   %s\n",
	       100 * f->e10, 100 * TARGET_EDGE10, 100 * PAPER_EDGE10, pf(f->e10 >= TARGET_EDGE10));
	printf("  I-cache correlation (top)      %8.3f   >= %.2f   %.2f   %s\n", f->f10.top,
	       TARGET_CORR, PAPER_CORR_TOP, pf(f->f10.top >= TARGET_CORR));
	printf("  unexplained stall samples      %7.2f%%   < %.1f%%   %.1f%%   %s\n",
	       100 * f->unexp, 100 * TARGET_UNEXPLAINED, 100 * PAPER_UNEXPLAINED,
	       pf(f->unexp < TARGET_UNEXPLAINED));
	printf("  culprit recall (diagnostic)    %7.1f%% of the machine's dynamic stall cycles\n",
	       tot->dyn_true > 0 ? 100 * tot->dyn_kept / tot->dyn_true : 0);
	for (int k = 1; k < MACH_STALL_NR; k++)
		if (tot->dyn_true_cause[k] > 0)
			printf("      %-8s %5.1f%% of the true dynamic cycles, kept %5.1f%%\n",
			       mach_stall_name[k], 100 * tot->dyn_true_cause[k] / tot->dyn_true,
			       100 * tot->dyn_kept_cause[k] / tot->dyn_true_cause[k]);
	printf("  M_i = machine's static cycles  %7.1f%% of the samples (diagnostic)\n",
	       tot->m_total > 0 ? 100 * tot->m_agree / tot->m_total : 0);
}

/* The figures as one JSON document (docs/axprof-json.7, "axeval") into path: 0, or 1 after a
 * message. */
static int write_json(const char *path, const struct ev_eval_acc *tot, const struct figures *f,
		      const struct opts *o)
{
	FILE *out = fopen(path, "w");
	struct ax_json j;

	if (!out) {
		fprintf(stderr, "axeval: cannot create %s: %s\n", path, strerror(errno));
		return 1;
	}
	ax_json_doc_open(&j, out, "axeval");
	if (o->skip_damaged)
		tl_skips_json(&j, &o->skipped);
	ax_json_num(&j, "samples", tot->samples, 0);
	ax_json_num(&j, "within5", f->w5, 4);
	ax_json_num(&j, "within10", f->w10, 4);
	ax_json_num(&j, "within15", f->w15, 4);
	ax_json_num(&j, "edges_within10", f->e10, 4);
	ax_json_num(&j, "icache_corr_top", f->f10.top, 4);
	ax_json_num(&j, "icache_corr_bottom", f->f10.bot, 4);
	ax_json_num(&j, "icache_corr_mid", f->f10.mid, 4);
	ax_json_num(&j, "icache_corr_truth", f->f10.truth, 4);
	ax_json_num(&j, "unexplained_share", f->unexp, 4);
	ax_json_num(&j, "recall", tot->dyn_true > 0 ? tot->dyn_kept / tot->dyn_true : 0, 4);
	ax_json_arr_open(&j, "fig8");
	for (int b = 0; b < EV_EVAL_NB; b++) {
		ax_json_obj_open(&j, NULL);
		ax_json_str(&j, "bucket", ev_eval_bucket_label(b));
		ax_json_num(&j, "share", tot->insn.total > 0 ? tot->insn.w[b] / tot->insn.total : 0,
			    5);
		ax_json_num(&j, "low_share",
			    tot->insn.total > 0 ? tot->insn.low[b] / tot->insn.total : 0, 5);
		ax_json_obj_close(&j);
	}
	ax_json_doc_close(&j);
	if (fclose(out)) {
		fprintf(stderr, "axeval: error writing %s\n", path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct ev_eval_acc tot = { 0 };
	struct figures f;
	FILE *detail = NULL;
	int i, ret, status = 0;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (o.paths) {
		status = axeval_paths(argv + optind, argc - optind);
		return fflush(stdout) || ferror(stdout) ? 1 : status;
	}
	if (o.kernel) {
		status = axeval_kernel(argv + optind, argc - optind);
		return fflush(stdout) || ferror(stdout) ? 1 : status;
	}
	if (o.replays) {
		status = axeval_replays(argv + optind, argc - optind, &o.per);
		return fflush(stdout) || ferror(stdout) ? 1 : status;
	}
	if (o.detail_path) {
		detail = open_detail(o.detail_path);
		if (!detail)
			return 1;
	}
	print_header(&o);
	for (i = optind; i + 3 < argc; i += 4) {
		ret = grade_one(argv + i, &o, detail, &tot);
		if (ret < 0) {
			fprintf(stderr, "axeval: out of memory\n");
			return 1;
		}
		status |= ret;
	}
	if (detail && fclose(detail)) {
		fprintf(stderr, "axeval: error writing %s\n", o.detail_path);
		status = 1;
	}
	print_total(&tot);
	f = compute_figures(&tot);
	print_figures(&tot, &f);
	print_summary(&tot, &f);
	if (o.json_path)
		status |= write_json(o.json_path, &tot, &f, &o);
	pdb_skips_free(&o.skipped);
	ev_eval_acc_free(&tot);
	if (fflush(stdout) || ferror(stdout))
		status = 1;
	return status;
}
