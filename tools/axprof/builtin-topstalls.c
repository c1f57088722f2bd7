/* tools/axprof/builtin-topstalls.c - `axprof topstalls`: the largest stalls across images. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "tl_sym.h"
#include "tl_json_an.h"
#include "isa_dis.h"
#include "an_freq_image.h"
#include "tl_periods.h"
#include "tl_prof.h"
#include "tl_view.h"

/*
 * DCPI SOSP'97 §6.2 at the scale of a whole profile: every procedure with CYCLES samples in every
 * image is analysed (frequency, static schedule, culprits) and the instructions whose stalls
 * (static + dynamic) took the most samples are listed with the causes that could not be ruled
 * out and the culprit instructions.
 */

struct stall {
	const char *image; /* the view's name: the full path (text shows its file name) */
	const struct tl_view_image *vi; /* its source lines */
	char proc[256];
	uint64_t pc;
	char text[ISA_DIS_TEXT_MAX];
	double samples; /* all samples of the instruction */
	double stat, dyn; /* stall samples */
	double per_exec; /* stall cycles per execution */
	uint8_t conf;
	uint32_t cand;
	double hi[AN_CAUSE_NR];
	uint64_t culprit[AN_CAUSE_NR]; /* pc, 0 when none */
	char pal[ISA_DIS_TEXT_MAX]; /* the CALL_PAL culprit's text ("rduniq"), "" when none */
	uint8_t reason;
	double unexplained;
};

struct top {
	struct stall *v;
	size_t n, cap;
	double total; /* all CYCLES samples analysed */
	double cycles; /* their samples x their image's CYCLES period */
	bool assumed; /* an image's CYCLES period was assumed */
	double nocode; /* CYCLES samples in images with no code to analyse (the hosted [kernel]) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof topstalls [-d DIR] [--epoch N] [-n N] [--image I] [--period P]\n"
		"                        [--event-period E=P] [--percent-limit P] [--json]\n\n"
		"Analyse every procedure with CYCLES samples (DCPI SOSP'97 §6: frequency estimates,\n"
		"static schedule, dynamic stall culprits) and list the N instructions whose stalls\n"
		"took the most cycles, with the static reason and the dynamic causes that could not\n"
		"be ruled out.\n\n"
		"Options:\n"
		"  -d, --db DIR          the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N             that epoch (default the current one)\n"
		"  -n, --top N           how many (default 20; 0: all)\n"
		"  --sort FIELD          stall (default: static + dynamic stall cycles), static,\n"
		"                        dynamic, per-exec (stall cycles per execution), samples:\n"
		"                        the N largest; procedure, address: the N largest stalls\n"
		"                        in that order\n"
		"  --percent-limit P     only instructions whose stalls took at least P percent of\n"
		"                        the CYCLES samples analysed\n"
		"  --image I             only images whose key, path or file name is I\n"
		"  --period P            mean CYCLES sampling period, P or LO-HI (default: the one the\n"
		"                        database stored for each image, else 62000)\n"
		"  --event-period E=P    mean period of event E (imiss, dmiss, dtbmiss, itbmiss,\n"
		"                        branchmp; default the stored one)\n"
		"  --no-demangle         print C++ symbols as the file has them (mangled)\n"
		"  --json                JSON output (docs/axprof-json.7)\n"
		"  --skip-damaged        leave out damaged database files, naming them on stderr and\n"
		"                        in the output (axprof-fsck(1) lists and repairs them)\n"
		"  --help                this text\n");
}

/* Its stall samples (static + dynamic), rounded, for --percent-limit (tl_rows_keep). */
static uint64_t stall_samples(const void *p)
{
	const struct stall *x = p;

	return (uint64_t)(x->stat + x->dyn + 0.5);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void insn_text(uint32_t word, uint64_t pc, char *buf, size_t size)
{
	char *p;

	if (isa_dis_format(word, pc, NULL, buf, size) < 0 && size)
		buf[size - 1] = 0;
	for (p = buf; *p; p++)
		if (*p == '\t')
			*p = ' ';
	while (p > buf && p[-1] == ' ')
		*--p = 0;
}

static int add_proc(struct top *t, const struct tl_view_image *vi, const struct an_fi_proc *fp)
{
	for (uint32_t i = 0; i < fp->ninsns; i++) {
		const struct an_fi_insn *in = &fp->insn[i];
		double s = (double)in->samples[AN_EV_CYCLES], st, f = in->cp.f;
		struct stall *x;

		t->total += s;
		t->cycles += s * fp->period[AN_EV_CYCLES];
		if (!s)
			continue;
		st = f * in->sched.stall;
		if (st > s)
			st = s;
		if (st + in->cp.dyn <= 0)
			continue;
		if (t->n == t->cap) {
			struct stall *nv;

			t->cap = t->cap ? 2 * t->cap : 256;
			nv = realloc(t->v, t->cap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			t->v = nv;
		}
		x = &t->v[t->n++];
		memset(x, 0, sizeof(*x));
		x->image = vi->name;
		x->vi = vi;
		snprintf(x->proc, sizeof(x->proc), "%s", tl_sym_name(fp->name));
		x->pc = in->pc;
		insn_text(in->word, in->pc, x->text, sizeof(x->text));
		x->samples = s;
		x->stat = st;
		x->dyn = in->cp.dyn;
		x->per_exec = f > 0 ? (st + in->cp.dyn) / f : 0;
		x->conf = in->conf;
		x->cand = in->cp.cand;
		x->reason = in->sched.stall ? in->sched.reason : AN_STALL_NONE;
		x->unexplained = in->cp.unexplained;
		for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
			x->hi[c] = in->cp.hi[c];
			if (in->cp.culprit[c] != AN_NONE)
				x->culprit[c] = fp->insn[in->cp.culprit[c]].pc;
		}
		/* SOSP'97 4.1: the time after a CALL_PAL is the call's; name the call */
		if (in->cp.culprit[AN_CAUSE_PAL] != AN_NONE) {
			const struct an_fi_insn *pal = &fp->insn[in->cp.culprit[AN_CAUSE_PAL]];

			insn_text(pal->word, pal->pc, x->pal, sizeof(x->pal));
		}
	}
	return 0;
}

/* --sort: counts largest first; procedure and address order the rows the stalls chose. */
static const char *const sort_fields[] = { "stall",   "static",	   "dynamic", "per-exec",
					   "samples", "procedure", "address" };
enum { SORT_STALL, SORT_STATIC, SORT_DYNAMIC, SORT_PER_EXEC, SORT_SAMPLES, SORT_PROC, SORT_ADDR };
static int sort_key;

static double sort_val(const struct stall *x)
{
	switch (sort_key) {
	case SORT_STATIC:
		return x->stat;
	case SORT_DYNAMIC:
		return x->dyn;
	case SORT_PER_EXEC:
		return x->per_exec;
	case SORT_SAMPLES:
		return x->samples;
	default:
		return 0;
	}
}

static int cmp_stall(const void *a, const void *b)
{
	const struct stall *x = a, *y = b;
	double sx = x->stat + x->dyn, sy = y->stat + y->dyn, vx = sort_val(x), vy = sort_val(y);
	int k;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	if (sort_key == SORT_PROC && (k = strcmp(x->proc, y->proc)))
		return k;
	if ((sort_key == SORT_PROC || sort_key == SORT_ADDR) &&
	    (k = tl_name_cmp(x->image, y->image)))
		return k;
	if (sort_key == SORT_ADDR && x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return (x->pc > y->pc) - (x->pc < y->pc);
}

/* An image named "[...]" (its file name: the hosted machine's "[kernel]"), not a program file. */
static bool pseudo_image(const char *name)
{
	const char *base = name ? strrchr(name, '/') : NULL;

	base = base ? base + 1 : name;
	return base && base[0] == '[';
}

static int scan_image(struct top *t, const struct tl_view_image *vi, const struct tl_periods *per)
{
	struct an_fi_opts o = { 0 };
	struct an_fi_image *im;
	struct ax_error err;
	int ret;

	if (!vi->prof || !vi->total[PDB_EV_CYCLES])
		return 0;
	if (!vi->img.path || !*vi->img.path) {
		fprintf(stderr, "axprof topstalls: %s: file unknown, skipped\n", vi->name);
		return 0;
	}
	ret = tl_fi_open(vi->img.path, vi->prof, &im, &err);
	if (ret == -ENOMEM)
		return ret;
	if (ret == -ENOEXEC && pseudo_image(vi->name)) {
		/* A symbols-only pseudo-image (the hosted machine's modelled [kernel]): counted,
		 * not analysed; the output says how many samples that leaves out. A real image
		 * whose file is not code is still reported as skipped. */
		t->nocode += (double)vi->total[PDB_EV_CYCLES];
		return 0;
	}
	if (ret) {
		fprintf(stderr, "axprof topstalls: %s (skipped)\n", err.msg);
		return 0;
	}
	if (tl_periods_for(per, vi->prof, o.period) == TL_PSRC_ASSUMED)
		t->assumed = true;
	for (size_t k = 0; !ret && k < an_fi_procs(im)->n; k++) {
		const struct an_proc *p = &an_fi_procs(im)->v[k];
		struct an_fi_proc *fp;

		if (!an_fi_samples_in(im, AN_EV_CYCLES, p->start, p->end))
			continue;
		if (an_fi_analyze(im, p, &o, &fp, &err)) {
			fprintf(stderr, "axprof topstalls: %s: %s (skipped)\n", vi->name, err.msg);
			continue;
		}
		ret = add_proc(t, vi, fp);
		an_fi_proc_free(fp);
	}
	an_fi_close(im);
	return ret;
}

static void print_causes(const struct stall *x)
{
	bool first = true;

	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		if (!(x->cand & (1u << c)) || x->hi[c] <= 0)
			continue;
		printf("%s%s", first ? "" : ", ", an_cause_name(c));
		if (x->culprit[c])
			printf("<-0x%" PRIx64, x->culprit[c]);
		if (c == AN_CAUSE_PAL && x->pal[0])
			printf(" %s", x->pal);
		first = false;
	}
	if (x->dyn > 0 && !x->cand)
		printf("unexplained");
	else if (!(x->dyn > 0))
		printf("none");
}

static void json_causes(struct ax_json *j, const struct stall *x)
{
	ax_json_obj_open(j, "causes");
	for (unsigned int c = 0; c < AN_CAUSE_NR; c++) {
		if (!(x->cand & (1u << c)) || x->hi[c] <= 0)
			continue;
		ax_json_obj_open(j, an_cause_name(c));
		ax_json_num(j, "hi", x->hi[c], 3);
		if (x->culprit[c])
			ax_json_hex(j, "culprit", x->culprit[c]);
		if (c == AN_CAUSE_PAL && x->pal[0])
			ax_json_str(j, "culprit_text", x->pal);
		ax_json_obj_close(j);
	}
	ax_json_obj_close(j);
}

struct ts_args {
	struct tl_ropts ro;
	struct tl_periods per; /* --period, --event-period: override the stored periods */
};

/* The options into a; 0, -1 for --help (printed), or 2 after a usage message. */
static int parse_args(int argc, char **argv, struct ts_args *a)
{
	enum { O_PERIOD = 256, O_EVPERIOD, O_HELP };
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
		{ "period", required_argument, NULL, O_PERIOD },
		{ "event-period", required_argument, NULL, O_EVPERIOD },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	tl_ropts_init(&a->ro, "axprof topstalls", 20);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&a->ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case O_PERIOD:
			if (tl_period_parse("axprof topstalls", optarg, a->per.given))
				return 2;
			break;
		case O_EVPERIOD:
			if (tl_event_period_parse("axprof topstalls", optarg, a->per.given))
				return 2;
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
		fprintf(stderr, "axprof topstalls: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	sort_key =
		tl_sort_pick(&a->ro, NULL, sort_fields, sizeof(sort_fields) / sizeof(*sort_fields));
	return sort_key < 0 ? 2 : 0;
}

/* Every selected image's stalls into t, largest first. 0, or 1 after a message. */
static int collect(const struct ts_args *a, const struct tl_view *v, struct top *t)
{
	const struct tl_view_image **sel = calloc(v->n + 1, sizeof(*sel));
	size_t n;
	int ret = 0;

	if (!sel) {
		fprintf(stderr, "axprof topstalls: out of memory\n");
		return 1;
	}
	n = tl_view_select(v, a->ro.image, PDB_EV_CYCLES, sel);
	for (size_t k = 0; k < n && !ret; k++)
		ret = scan_image(t, sel[k], &a->per);
	free(sel);
	if (ret) {
		fprintf(stderr, "axprof topstalls: out of memory\n");
		return 1;
	}
	if (!t->total) {
		fprintf(stderr, "axprof topstalls: no CYCLES samples in %s epoch %u%s%s\n",
			a->ro.db, v->epoch, a->ro.image ? " for image " : "",
			a->ro.image ? a->ro.image : "");
		return 1;
	}
	return 0;
}

static void print_json(const struct tl_view *v, const struct top *t, size_t count)
{
	struct ax_json j;

	ax_json_doc_open(&j, stdout, "topstalls");
	ax_json_str(&j, "database", pdb_dir(v->db));
	ax_json_u64(&j, "epoch", v->epoch);
	tl_view_json_skipped(&j, v);
	ax_json_num(&j, "period", t->cycles / t->total, 3);
	ax_json_bool(&j, "period_assumed", t->assumed);
	ax_json_num(&j, "samples", t->total, 0);
	ax_json_num(&j, "samples_without_code", t->nocode, 0);
	ax_json_arr_open(&j, "stalls");
	for (size_t i = 0; i < count; i++) {
		const struct stall *x = &t->v[i];

		ax_json_obj_open(&j, NULL);
		ax_json_str(&j, "image", x->image);
		tl_sym_json(&j, "procedure", x->proc);
		ax_json_hex(&j, "address", x->pc);
		ax_json_str(&j, "text", x->text);
		tl_view_line_json(&j, x->vi, x->pc);
		ax_json_num(&j, "samples", x->samples, 0);
		ax_json_num(&j, "static", x->stat, 3);
		ax_json_str(&j, "static_reason", an_stall_name[x->reason]);
		ax_json_num(&j, "dynamic", x->dyn, 3);
		ax_json_num(&j, "cycles_per_exec", x->per_exec, 3);
		ax_json_str(&j, "confidence", an_conf_name(x->conf));
		ax_json_num(&j, "unexplained", x->unexplained, 3);
		json_causes(&j, x);
		ax_json_obj_close(&j);
	}
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

static void print_text(const struct top *t, size_t count)
{
	char where[300];

	printf("mean CYCLES period %.0f%s; %.0f samples analysed", t->cycles / t->total,
	       tl_psrc_note(t->assumed ? TL_PSRC_ASSUMED : TL_PSRC_STORED), t->total);
	if (t->nocode > 0)
		printf(" (%.0f more in images without code, e.g. the hosted [kernel])", t->nocode);
	printf("\n");
	printf("%6s %6s %7s %-6s %-14s %-20s %-18s %s\n", "stall%", "static", "cyc/ex", "conf",
	       "image", "procedure", "address", "instruction / causes");
	for (size_t i = 0; i < count; i++) {
		const struct stall *x = &t->v[i];

		printf("%5.1f%% %5.0f%% %7.1f %-6s %-14.14s %-20.20s 0x%016" PRIx64 " %s\n",
		       100 * (x->stat + x->dyn) / t->total,
		       x->stat + x->dyn > 0 ? 100 * x->stat / (x->stat + x->dyn) : 0, x->per_exec,
		       an_conf_name(x->conf), base_name(x->image), x->proc, x->pc, x->text);
		printf("%67s ", "");
		if (tl_view_line_str(x->vi, x->pc, where, sizeof(where))[0])
			printf("%s; ", where);
		if (x->stat > 0)
			printf("static: %s; ", an_stall_name[x->reason]);
		printf("dynamic: ");
		print_causes(x);
		printf("\n");
	}
}

int cmd_topstalls(int argc, char **argv)
{
	struct ts_args a = { 0 };
	struct tl_view v;
	struct top t = { 0 };
	struct ax_error err;
	size_t count;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (tl_view_open_ro(&v, &a.ro, &err)) {
		fprintf(stderr, "axprof topstalls: %s\n", err.msg);
		return 1;
	}
	ret = collect(&a, &v, &t);
	if (!ret) {
		count = tl_rows_sort(&a.ro, t.v, t.n, sizeof(*t.v), cmp_stall, &sort_key,
				     sort_key >= SORT_PROC, stall_samples,
				     (uint64_t)(t.total + 0.5));
		if (a.ro.json)
			print_json(&v, &t, count);
		else
			print_text(&t, count);
	}
	free(t.v);
	tl_view_close(&v);
	return ret;
}
