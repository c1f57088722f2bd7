/* tools/axprof/builtin-profileme.c - axprof profileme: ProfileMe per instruction (dcpiprofileme). */
/*
 * [PM] ProfileMe, MICRO'97. Per instruction of the database's ProfileMe table (pdb.h,
 * PDB_FT_PROFILEME): samples; estimated executions = retired samples x S, S the mean interval in
 * fetched instructions per sample (§5.1: k samples with a property estimate kS of them; with
 * pairs, one pair per interval, each sample stands for half of it); retired share;
 * aborts by reason; event rates (rate()); mean latency per stage and inum retire delay (per
 * retired sample); wasted issue slots from the pairs (§5.2.3): L C S / 2 - U W S, with L the
 * summed in-progress latency of the pair samples, U the useful overlaps, W the pair window and
 * C = 4 issue slots a cycle (the 21264's sustainable rate, [PM] §5.2.3). Then per-procedure and
 * per-image sums.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "ax_json.h"
#include "pdb.h"
#include "tl_sym.h"
#include "tl_opts.h"
#include "tl_view.h"

#define ISSUE_SLOTS 4.0 /* C: issue slots a cycle on the 21264 [PM §5.2.3] */

enum pm_sort { S_SAMPLES, S_EXEC, S_WASTED, S_LATENCY, S_DMISS, S_MISPREDICT, S_REPLAY, S_NR };
static const char *const sort_name[S_NR] = { "samples", "executions", "wasted", "latency",
					     "dcache",	"mispredict", "replay" };

struct row {
	const char *image, *proc;
	uint64_t offset;
	char text[128];
	struct pdb_profileme p;
	uint64_t samples;
	double S, exec, wasted, latency; /* latency: mean fetch->retire-ready */
	bool pairs;
};

/* Its samples, for --percent-limit (tl_rows_keep). */
static uint64_t row_samples(const void *r)
{
	return ((const struct row *)r)->samples;
}

struct pm_args {
	struct tl_ropts ro;
	const char *proc;
	enum pm_sort sort;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof profileme [-d DIR] [--epoch N] [--image NAME] [--proc NAME]\n"
		"                        [--sort FIELD] [-n N] [--percent-limit P] [--skip-damaged]\n"
		"                        [--json]\n\n"
		"ProfileMe instruction samples recorded with `axprof record --mode profileme --cpu\n"
		"ev6`, per instruction: samples, estimated executions (retired samples x the mean\n"
		"interval), retired share, aborts by reason, event rates, mean latency per pipeline\n"
		"stage, inum retire delay and, with paired samples, the estimated issue slots wasted\n"
		"while the instruction was in progress (MICRO'97 5.2.3); then per procedure and image.\n\n"
		"  -d, --db DIR      the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N         that epoch (default the current one)\n"
		"  --image NAME      only that image (key, path or file name)\n"
		"  --proc NAME       only that procedure\n"
		"  --sort FIELD      samples (default), executions, wasted, latency, dcache,\n"
		"                    mispredict, replay\n"
		"  -n, --top N       the N first instructions (default 30; 0: all)\n"
		"  --percent-limit P only instructions with at least P percent of the samples\n"
		"  --no-demangle     print C++ symbols as the file has them (mangled)\n"
		"  --skip-damaged    go on past damaged database files, naming them\n"
		"  --json            JSON output (axprof-json(7))\n");
}

static int parse_args(int argc, char **argv, struct pm_args *a)
{
	enum { O_PROC = 256, O_SORT, O_HELP };
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_IMAGE,
		TL_LONGOPT_JSON,
		TL_LONGOPT_TOP,
		TL_LONGOPT_PERCENT_LIMIT,
		TL_LONGOPT_SKIP_DAMAGED,
		TL_LONGOPT_NO_DEMANGLE,
		{ "proc", required_argument, NULL, O_PROC },
		{ "sort", required_argument, NULL, O_SORT },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	tl_ropts_init(&a->ro, "axprof profileme", 30);
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
		case O_SORT: {
			int k = tl_sort_check("axprof profileme", NULL, optarg, sort_name, S_NR);

			if (k < 0)
				return 2;
			a->sort = (enum pm_sort)k;
			break;
		}
		case O_HELP:
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "axprof profileme: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return 0;
}

static uint64_t replays(const struct pdb_profileme *p)
{
	return p->status[2] + p->status[3] + p->status[4];
}

/*
 * The event rates, each over the population the event belongs to, so that samples and the
 * truth (EV6 model) count the same thing. Bad-path samples (aborted: mispredict) are fetches of
 * the pc on a wrong path: they execute nothing and carry no events, so a rate per sample is
 * diluted by them (by 5 points for a bzip2 load, 6 for a gzip replay, issue 14). Hence:
 *   RATE_DMISS, RATE_MISPREDICT: samples with the event per retired sample = the share of the
 *     instruction's executions (retires) that missed the D-cache / were mispredicted (the EV6
 *     model flags both only on the retiring instance: a replayed attempt traps before it reaches
 *     the D-cache, a branch resolves on its last attempt);
 *   RATE_REPLAY: replay-aborted samples per retired or replayed sample = the share of the
 *     instruction's own issue attempts that a replay trap aborted (copies aborted by an older
 *     instruction's trap and bad-path copies are not its attempts).
 */
enum pm_rate { RATE_DMISS, RATE_MISPREDICT, RATE_REPLAY };

static double rate(const struct pdb_profileme *p, enum pm_rate which)
{
	uint64_t n, d = p->status[0];

	switch (which) {
	case RATE_DMISS:
		n = p->events[2];
		break;
	case RATE_MISPREDICT:
		n = p->events[6];
		break;
	default:
		n = replays(p);
		d += n;
		break;
	}
	return d ? (double)n / (double)d : 0;
}

/* The derived numbers of one instruction (or a sum of them). */
static void derive(struct row *r)
{
	const struct pdb_profileme *p = &r->p;
	double W;

	r->samples = 0;
	for (unsigned int i = 0; i < PDB_PME_STATUS; i++)
		r->samples += p->status[i];
	r->S = p->samples_p ? (double)p->events2 / (2.0 * (double)p->samples_p) : 0;
	r->exec = (double)p->status[0] * r->S;
	r->latency =
		p->status[0] ?
			(double)(p->lat_sum[0] + p->lat_sum[1] + p->lat_sum[2] + p->lat_sum[3]) /
				(double)p->status[0] :
			0;
	r->pairs = p->pair_samples != 0;
	W = p->pair_samples ? (double)p->wsum / (double)p->pair_samples : 0;
	/* r->S is per sample; with pairs the pair interval is 2 r->S: L C S/2 - U W S */
	r->wasted = (double)p->inprog_sum * ISSUE_SLOTS * r->S - (double)p->useful * W * 2.0 * r->S;
}

static double key(const struct row *r, enum pm_sort s)
{
	switch (s) {
	case S_EXEC:
		return r->exec;
	case S_WASTED:
		return r->wasted;
	case S_LATENCY:
		return r->latency * (double)r->p.status[0];
	case S_DMISS:
		return (double)r->p.events[2];
	case S_MISPREDICT:
		return (double)r->p.events[6] + (double)r->p.status[1];
	case S_REPLAY:
		return (double)replays(&r->p);
	default:
		return (double)r->samples;
	}
}

static enum pm_sort g_sort;

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double kx = key(x, g_sort), ky = key(y, g_sort);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->image != y->image)
		return strcmp(x->image, y->image);
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void add_into(struct pdb_profileme *d, const struct pdb_profileme *s)
{
	uint64_t *dd = (uint64_t *)d;
	const uint64_t *ss = (const uint64_t *)s;

	for (size_t i = 0; i < sizeof(*d) / 8; i++)
		dd[i] += ss[i];
}

struct pm_out {
	struct row *v;
	size_t n, cap;
	struct row *proc, *img; /* summaries */
	size_t nproc, nimg, capproc, capimg;
};

static int push(struct row **v, size_t *n, size_t *cap, const struct row *r)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		struct row *t = realloc(*v, nc * sizeof(*t));

		if (!t)
			return -ENOMEM;
		*v = t;
		*cap = nc;
	}
	(*v)[(*n)++] = *r;
	return 0;
}

static int scan_image(const struct pm_args *a, const struct tl_view_image *im, struct pm_out *o)
{
	struct pdb_pme *t = NULL;
	struct row img = { .image = im->name, .proc = "" };
	size_t n = 0;
	int err;

	if (!im->prof)
		return 0;
	err = pdb_prof_profileme(im->prof, &t, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		struct row r = { .image = im->name, .offset = t[i].offset, .p = t[i].pme };
		uint64_t start;
		uint32_t word;

		r.proc = tl_view_proc(im, r.offset, &start);
		if (!r.proc)
			r.proc = "";
		if (a->proc && !tl_sym_shown_is(r.proc, a->proc))
			continue;
		if (!tl_view_insn(im, r.offset, &word, r.text, sizeof(r.text)))
			snprintf(r.text, sizeof(r.text), "?");
		derive(&r);
		add_into(&img.p, &r.p);
		err = push(&o->v, &o->n, &o->cap, &r);
		if (!err && (!o->nproc || strcmp(o->proc[o->nproc - 1].proc, r.proc) ||
			     o->proc[o->nproc - 1].image != r.image)) {
			struct row pr = { .image = r.image, .proc = r.proc };

			err = push(&o->proc, &o->nproc, &o->capproc, &pr);
		}
		if (!err)
			add_into(&o->proc[o->nproc - 1].p, &r.p);
	}
	free(t);
	if (err)
		return err;
	derive(&img);
	if (img.samples)
		err = push(&o->img, &o->nimg, &o->capimg, &img);
	return err;
}

static void json_row(struct ax_json *j, const struct row *r, bool insn)
{
	const struct pdb_profileme *p = &r->p;
	static const char *const lat_name[PDB_PME_LATS] = { "fetch_map", "map_data", "data_issue",
							    "issue_ready", "ready_retire" };
	double ret = p->status[0] ? (double)p->status[0] : 1;

	ax_json_obj_open(j, NULL);
	ax_json_str(j, "image", r->image);
	if (insn || *r->proc)
		tl_sym_json(j, "procedure", r->proc);
	if (insn) {
		ax_json_hex(j, "address", r->offset);
		ax_json_str(j, "text", r->text);
	}
	ax_json_u64(j, "samples", r->samples);
	ax_json_num(j, "executions", r->exec, 0);
	ax_json_u64(j, "retired", p->status[0]);
	ax_json_obj_open(j, "aborted");
	ax_json_u64(j, "mispredict", p->status[1]);
	ax_json_u64(j, "replay", replays(p));
	ax_json_u64(j, "trap", p->status[5]);
	ax_json_obj_close(j);
	ax_json_num(j, "dcache_miss", rate(p, RATE_DMISS), 4);
	ax_json_num(j, "mispredict", rate(p, RATE_MISPREDICT), 4);
	ax_json_num(j, "replay", rate(p, RATE_REPLAY), 4);
	ax_json_obj_open(j, "latency");
	for (unsigned int i = 0; i < PDB_PME_LATS; i++)
		ax_json_num(j, lat_name[i], (double)p->lat_sum[i] / ret, 2);
	ax_json_obj_close(j);
	ax_json_num(j, "retire_delay", (double)p->retire_delay_sum / ret, 2);
	if (r->pairs)
		ax_json_num(j, "wasted_slots", r->wasted, 0);
	ax_json_obj_close(j);
}

static void print_json(const struct tl_view *v, const struct pm_out *o, size_t count)
{
	struct ax_json j;

	ax_json_doc_open(&j, stdout, "profileme");
	ax_json_str(&j, "database", pdb_dir(v->db));
	ax_json_u64(&j, "epoch", v->epoch);
	tl_view_json_skipped(&j, v);
	ax_json_arr_open(&j, "instructions");
	for (size_t i = 0; i < count; i++)
		json_row(&j, &o->v[i], true);
	ax_json_arr_close(&j);
	ax_json_arr_open(&j, "procedures");
	for (size_t i = 0; i < o->nproc; i++)
		json_row(&j, &o->proc[i], false);
	ax_json_arr_close(&j);
	ax_json_arr_open(&j, "images");
	for (size_t i = 0; i < o->nimg; i++)
		json_row(&j, &o->img[i], false);
	ax_json_arr_close(&j);
	ax_json_doc_close(&j);
}

static void text_row(const struct row *r, const char *name)
{
	const struct pdb_profileme *p = &r->p;
	double ret = p->status[0] ? (double)p->status[0] : 1, n = (double)r->samples;

	printf("%7" PRIu64 " %11.0f %5.1f%% %5" PRIu64 " %5" PRIu64 " %5" PRIu64 " %5.1f%% %5.1f%% "
	       "%5.1f %5.1f %5.1f %5.1f %5.1f %5.1f",
	       r->samples, r->exec, 100.0 * (double)p->status[0] / n, p->status[1], replays(p),
	       p->status[5], 100.0 * rate(p, RATE_DMISS), 100.0 * rate(p, RATE_MISPREDICT),
	       (double)p->lat_sum[0] / ret, (double)p->lat_sum[1] / ret,
	       (double)p->lat_sum[2] / ret, (double)p->lat_sum[3] / ret,
	       (double)p->lat_sum[4] / ret, (double)p->retire_delay_sum / ret);
	if (r->pairs)
		printf(" %11.0f", r->wasted);
	else
		printf(" %11s", "-");
	printf("  %s\n", name);
}

#define HEAD                                                                                       \
	"%7s %11s %6s %5s %5s %5s %6s %6s %5s %5s %5s %5s %5s %5s %11s  %s\n", "samples", "execs", \
		"ret%", "ab:mp", "ab:rp", "ab:tr", "dmiss", "mispr", "f-m", "m-d", "d-i", "i-r",   \
		"r-r", "delay", "wasted", name

static void print_text(const struct pm_out *o, size_t count)
{
	char buf[256];
	const char *name = "instruction";

	if (o->n && o->v[0].S > 0)
		printf("mean interval %.0f fetched instructions per sample\n", o->v[0].S);
	printf(HEAD);
	for (size_t i = 0; i < count; i++) {
		const struct row *r = &o->v[i];

		snprintf(buf, sizeof(buf), "%s 0x%" PRIx64 " %s  %s", r->proc, r->offset, r->text,
			 r->image);
		text_row(r, buf);
	}
	name = "procedure";
	printf("\n" HEAD);
	for (size_t i = 0; i < o->nproc; i++) {
		snprintf(buf, sizeof(buf), "%s  %s", *o->proc[i].proc ? o->proc[i].proc : "?",
			 o->proc[i].image);
		text_row(&o->proc[i], buf);
	}
	name = "image";
	printf("\n" HEAD);
	for (size_t i = 0; i < o->nimg; i++)
		text_row(&o->img[i], o->img[i].image);
}

int cmd_profileme(int argc, char **argv)
{
	struct pm_args a = { 0 };
	struct pm_out o = { 0 };
	const struct tl_view_image **sel;
	struct ax_error err;
	struct tl_view v;
	uint64_t total = 0;
	size_t n, count;
	int ret = 0;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (tl_view_open_ro(&v, &a.ro, &err)) {
		fprintf(stderr, "axprof profileme: %s\n", err.msg);
		return 1;
	}
	sel = calloc(v.n + 1, sizeof(*sel));
	if (!sel) {
		tl_view_close(&v);
		fprintf(stderr, "axprof profileme: out of memory\n");
		return 1;
	}
	n = tl_view_select(&v, a.ro.image, PDB_EV_CYCLES, sel);
	for (size_t k = 0; k < n && !ret; k++)
		ret = scan_image(&a, sel[k], &o);
	free(sel);
	if (ret) {
		fprintf(stderr, "axprof profileme: cannot read the ProfileMe table: %s\n",
			strerror(-ret));
		ret = 1;
	} else if (!o.n) {
		fprintf(stderr,
			"axprof profileme: no ProfileMe samples in %s epoch %u%s%s%s%s (record with "
			"`axprof record --mode profileme --cpu ev6`)\n",
			a.ro.db, v.epoch, a.ro.image ? " for image " : "",
			a.ro.image ? a.ro.image : "", a.proc ? " in procedure " : "",
			a.proc ? a.proc : "");
		ret = 1;
	} else {
		for (size_t i = 0; i < o.nproc; i++)
			derive(&o.proc[i]);
		g_sort = a.sort;
		qsort(o.v, o.n, sizeof(*o.v), cmp_row);
		qsort(o.proc, o.nproc, sizeof(*o.proc), cmp_row);
		if (o.nimg > 1)
			qsort(o.img, o.nimg, sizeof(*o.img), cmp_row);
		for (size_t i = 0; i < o.n; i++)
			total += o.v[i].samples;
		count = tl_rows_keep(&a.ro, o.v, o.n, sizeof(*o.v), row_samples, total);
		if (a.ro.json)
			print_json(&v, &o, count);
		else
			print_text(&o, count);
	}
	free(o.v);
	free(o.proc);
	free(o.img);
	tl_view_close(&v);
	return ret;
}
