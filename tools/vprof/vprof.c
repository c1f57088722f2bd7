/* tools/vprof/vprof.c - vprof: per-instruction value profiles and load latencies from the database. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_sym.h"
#include "tl_addr.h"
#include "tl_view.h"
#include "hotlist.h"
#include "vp_class.h"
#include "vprof.h"

/*
 * The value-sampling slides' reports: "A value profile" (per instruction: samples, the
 * instruction, its destination's most frequent values with their shares, from the Gibbons-Matias
 * hotlists the interpreter filled) and "Load latencies" (per load: the shares of loads satisfied
 * in the D-cache, S-cache, B-cache and memory). Then the most semi-invariant instructions
 * (slide 2: "find semi-invariant values"), weighted by how often they run (their samples).
 */

#define TOP_VALUES_MAX 8
#define CI_Z 1.959964 /* two-sided 95% normal quantile */

/*
 * A 95% confidence interval for the share of a value with the given hotlist estimate (issue 15,
 * item 6). Two sources of error, independent, added as variances:
 *  - sampling: the n executions the interpreter observed are a sample of all executions, so the
 *    share is binomial on n: the Wilson score interval (Wilson, JASA 22, 1927), which stays
 *    inside [0, 1] and keeps a useful width at p near 0 or 1 with small n;
 *  - the counting sample's own missed run (hotlist.h): an entry's count misses the occurrences
 *    before its admission, a geometric run with P(heads) = 1/tau whose variance is
 *    tau (tau - 1) (its conditional variance given X < f is smaller, so this errs wide); the
 *    estimate's correction removes its mean, not its spread: sd tau-term = sqrt(tau (tau - 1)) / n.
 * The half-width is sqrt(wilson^2 + (z sd)^2) around the Wilson centre, clamped to [0, 1].
 */
void vp_share_ci(const struct hotlist *h, uint64_t estimate, double *lo, double *hi)
{
	double n = (double)h->n, t = (double)h->tau, p, z2n, c, wb, wh, w;

	if (!h->n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = fmin(1.0, (double)estimate / n);
	z2n = CI_Z * CI_Z / n;
	c = (p + z2n / 2) / (1 + z2n);
	wb = CI_Z / (1 + z2n) * sqrt(p * (1 - p) / n + z2n / (4 * n));
	wh = CI_Z * sqrt(t * (t - 1)) / n;
	w = sqrt(wb * wb + wh * wh);
	*lo = fmax(0.0, c - w);
	*hi = fmin(1.0, c + w);
}

struct vp {
	struct tl_view v;
	const char *proc;
	double min_share;
	uint64_t min_n; /* fewest observations for the summary */
	unsigned int nvalues;
	unsigned int event; /* samples column */
	bool latency;
	bool addresses; /* --addresses: prefetch candidates (vprof_addrs.c) */
	bool has_addrs; /* some selected image has addrs.prof records */
	bool all_classes; /* --all: invariants by construction too, labelled */
	struct vp_args_opts args; /* --args, --callers */
	bool args_mode;
	struct tl_ropts ro;
	struct ax_json j;
};

/* One image's tables, indexed by offset. */
struct tabs {
	struct pdb_count *s;
	size_t ns;
	struct pdb_value *val;
	size_t nval;
	struct pdb_lat *lat;
	size_t nlat;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vprof [-d DIR] [--epoch N] [--image I] [--proc P] [--min-share X] [--latency]\n"
		"             [--values K] [-n N] [--percent-limit P] [--min-samples N] [--json]\n"
		"       vprof --args|--callers [--proc P] [--fp] [--invariant X] [--min-n N] ...\n"
		"       vprof --addresses [--proc P] [--min-share X] [--min-n N] ...\n\n"
		"Value profiles recorded by `axprof record --mode vprof`: for each instruction of the\n"
		"profiled procedures, its samples, its text, and the most frequent values of its\n"
		"destination register with their estimated shares (Gibbons-Matias hotlists) and\n"
		"each share's 95%% confidence interval, e.g.\n"
		"  t1:(95.02%% [93.9,96.0] 0x3c8) (4.98%% [4.0,6.1] 0x1000)\n"
		"then the most semi-invariant data instructions (top value share >= X), by\n"
		"potential, each with the optimisation it suggests (hoist, specialise, speculate).\n\n"
		"Options:\n"
		"  -d, --db DIR     the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N        that epoch (default the current one)\n"
		"  --image I        only images whose key, path or file name is I\n"
		"  --proc P         only procedure P (every instruction of it)\n"
		"  --min-share X    semi-invariance threshold, 0 < X <= 1 (default 0.9)\n"
		"  --min-n N        ... observed at least N times (default 10; --args, --callers:\n"
		"                   procedures with at least N interpreted entries)\n"
		"  --latency        load latencies (D/S/B/M shares) instead of values\n"
		"  --addresses      prefetch candidates (record with --observe +addrs): loads whose\n"
		"                   address is invariant (top address share >= X) or strided (top\n"
		"                   nonzero stride share >= X), with their D-cache share and a\n"
		"                   suggestion, by potential (also --prefetch; the summary lists\n"
		"                   them too)\n"
		"  --all            the summary lists invariants by construction too (constants,\n"
		"                   literal loads, return addresses, loop-control compares),\n"
		"                   each labelled with its class (default: data invariants only)\n"
		"  --args           per procedure: top values of a0-a5 at entry and of v0 at its\n"
		"                   rets (record with --observe +args), an \"invariant\" mark when\n"
		"                   the top value's 95%% interval lies above X (--invariant)\n"
		"  --callers        per procedure: its callers by share (--observe +callers)\n"
		"  --fp             with --args: also f16-f21 and f0\n"
		"  --invariant X    the invariant mark's threshold, 0 < X <= 1 (default 0.9)\n"
		"  --values K       values shown per instruction, 1..%d (default 2)\n"
		"  -n, --top N      procedures per image, by samples (default 10; 0: all)\n"
		"  --sort FIELD     the procedures' order: samples (default; --args, --callers:\n"
		"                   interpreted entries), name, address (the -n chosen by samples)\n"
		"  --percent-limit P  only procedures with at least P percent of their image's\n"
		"                   samples\n"
		"  --min-samples N  only procedures with at least N samples\n"
		"  --no-demangle    print C++ symbols as the file has them (mangled)\n"
		"  --json           JSON output (docs/axprof-json.7)\n"
		"  --skip-damaged   leave out damaged database files, naming them on stderr and\n"
		"                   in the output (axprof-fsck(1) lists and repairs them)\n"
		"  --help           this text\n",
		TOP_VALUES_MAX);
}

static const void *find_off(const void *base, size_t n, size_t size, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t o = *(const uint64_t *)((const char *)base + mid * size);

		if (o < off)
			lo = mid + 1;
		else if (o > off)
			hi = mid;
		else
			return (const char *)base + mid * size;
	}
	return NULL;
}

static uint64_t samples_at(const struct tabs *t, uint64_t off)
{
	const struct pdb_count *c = find_off(t->s, t->ns, sizeof(*t->s), off);

	return c ? c->count : 0;
}

static void tabs_free(struct tabs *t)
{
	free(t->s);
	free(t->val);
	free(t->lat);
	memset(t, 0, sizeof(*t));
}

static int tabs_load(const struct vp *vp, const struct tl_view_image *im, struct tabs *t)
{
	memset(t, 0, sizeof(*t));
	if (!im->prof)
		return 0;
	if (pdb_prof_samples(im->prof, vp->event, &t->s, &t->ns) ||
	    pdb_prof_values(im->prof, &t->val, &t->nval) ||
	    pdb_prof_latencies(im->prof, &t->lat, &t->nlat)) {
		tabs_free(t);
		return -ENOMEM;
	}
	return 0;
}

/* ---- one instruction ---- */

static void print_values(FILE *f, const struct vp *vp, const struct tl_view_image *im,
			 const struct pdb_value *pv)
{
	struct hotlist_item it[TOP_VALUES_MAX];
	unsigned int k = hotlist_top(&pv->h, it, vp->nvalues);
	char reg[16], sym[256];

	fprintf(f, "%s:", tl_dest_name(pv->dest, reg, sizeof(reg)));
	for (unsigned int i = 0; i < k; i++) {
		double lo, hi;

		vp_share_ci(&pv->h, it[i].estimate, &lo, &hi);
		fprintf(f, "%s(%.2f%% [%.1f,%.1f] 0x%" PRIx64, i ? " " : "", it[i].share_ppm / 1e4,
			100 * lo, 100 * hi, it[i].value);
		if (tl_addr_sym(&vp->v, im, it[i].value, sym, sizeof(sym)))
			fprintf(f, " <%s>", sym);
		fputc(')', f);
	}
	if (!k)
		fprintf(f, "()");
	fprintf(f, " n=%" PRIu64, pv->h.n);
}

static const char level_letter[PDB_LAT_LEVELS] = { '?', 'D', 'S', 'B', 'M' };

static uint64_t lat_loads(const struct pdb_latency *l)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < PDB_LAT_LEVELS; i++)
		n += l->level[i];
	return n;
}

static void print_latency(FILE *f, const struct pdb_lat *pl)
{
	uint64_t n = lat_loads(&pl->lat);
	bool done[PDB_LAT_LEVELS] = { false };

	/* Levels by share, largest first (slide 16: "(94.3% D) (3.6% M) (2.1% B)"). */
	for (unsigned int k = 0; k < PDB_LAT_LEVELS; k++) {
		int best = -1;

		for (unsigned int i = 0; i < PDB_LAT_LEVELS; i++)
			if (!done[i] && pl->lat.level[i] &&
			    (best < 0 || pl->lat.level[i] > pl->lat.level[best]))
				best = (int)i;
		if (best < 0)
			break;
		done[best] = true;
		fprintf(f, "%s(%.1f%% %c)", k ? " " : "",
			100.0 * (double)pl->lat.level[best] / (double)n, level_letter[best]);
	}
	fprintf(f, " avg %.1f n=%" PRIu64, n ? (double)pl->lat.latency_sum / (double)n : 0.0, n);
}

static void json_values(struct vp *vp, const struct tl_view_image *im, const struct pdb_value *pv)
{
	struct hotlist_item it[TOP_VALUES_MAX];
	unsigned int k = hotlist_top(&pv->h, it, vp->nvalues);
	char reg[16];

	ax_json_str(&vp->j, "dest", tl_dest_name(pv->dest, reg, sizeof(reg)));
	ax_json_u64(&vp->j, "n", pv->h.n);
	ax_json_u64(&vp->j, "tau", pv->h.tau);
	ax_json_arr_open(&vp->j, "values");
	for (unsigned int i = 0; i < k; i++) {
		double lo, hi;

		vp_share_ci(&pv->h, it[i].estimate, &lo, &hi);
		ax_json_obj_open(&vp->j, NULL);
		ax_json_hex(&vp->j, "value", it[i].value);
		tl_addr_json(&vp->j, "symbol", &vp->v, im, it[i].value);
		ax_json_num(&vp->j, "share", it[i].share_ppm / 1e6, 6);
		ax_json_num(&vp->j, "share_low", lo, 6);
		ax_json_num(&vp->j, "share_high", hi, 6);
		ax_json_u64(&vp->j, "estimate", it[i].estimate);
		ax_json_u64(&vp->j, "count", it[i].count);
		ax_json_obj_close(&vp->j);
	}
	ax_json_arr_close(&vp->j);
}

static void json_latency(struct ax_json *j, const struct pdb_lat *pl)
{
	static const char *const names[PDB_LAT_LEVELS] = { "unknown", "dcache", "scache", "bcache",
							   "memory" };
	uint64_t n = lat_loads(&pl->lat);

	ax_json_obj_open(j, "latency");
	ax_json_u64(j, "loads", n);
	ax_json_num(j, "average", n ? (double)pl->lat.latency_sum / (double)n : 0.0, 3);
	for (unsigned int i = 0; i < PDB_LAT_LEVELS; i++)
		ax_json_u64(j, names[i], pl->lat.level[i]);
	ax_json_obj_close(j);
}

static void insn_line(struct vp *vp, const struct tl_view_image *im, const struct tabs *t,
		      uint64_t off)
{
	const struct pdb_value *pv = find_off(t->val, t->nval, sizeof(*t->val), off);
	const struct pdb_lat *pl = find_off(t->lat, t->nlat, sizeof(*t->lat), off);
	uint64_t s = samples_at(t, off);
	char text[160], where[300];
	uint32_t w;

	tl_view_insn(im, off, &w, text, sizeof(text));
	if (vp->ro.json) {
		ax_json_obj_open(&vp->j, NULL);
		ax_json_hex(&vp->j, "address", off);
		ax_json_u64(&vp->j, "samples", s);
		ax_json_str(&vp->j, "text", text);
		tl_view_line_json(&vp->j, im, off);
		if (pv)
			json_values(vp, im, pv);
		if (pl)
			json_latency(&vp->j, pl);
		ax_json_obj_close(&vp->j);
		return;
	}
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);

	if (!m)
		return;
	fprintf(m, "%8" PRIu64 "  0x%-12" PRIx64 " %-16s %-28s ", s, off,
		tl_view_line_str(im, off, where, sizeof(where)), text);
	if (vp->latency && pl)
		print_latency(m, pl);
	else if (!vp->latency && pv)
		print_values(m, vp, im, pv);
	fclose(m);
	while (len && line[len - 1] == ' ')
		line[--len] = 0;
	puts(line);
	free(line);
}

/* ---- procedures ---- */

struct proc {
	const char *name;
	uint64_t start, end, samples;
};

static uint64_t proc_samples(const void *p)
{
	return ((const struct proc *)p)->samples;
}

int vp_sort_key;
static const char *const sort_fields[] = { "samples", "name", "address" };

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	int k;

	if (vp_sort_key == VP_SORT_NAME && (k = strcmp(x->name, y->name)))
		return k;
	if (vp_sort_key == VP_SORT_ADDRESS && x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t range_samples(const struct tabs *t, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->ns; i++)
		if (t->s[i].offset >= start && t->s[i].offset < end)
			n += t->s[i].count;
	return n;
}

/* Procedures with a value (or latency) record, sorted by samples. */
static int procs_of(const struct vp *vp, const struct tl_view_image *im, const struct tabs *t,
		    struct proc **out, size_t *nout)
{
	struct proc *ps = NULL;
	size_t n = 0, cap = 0;
	size_t nrec = vp->latency ? t->nlat : t->nval;

	*out = NULL;
	*nout = 0;
	if (vp->proc) {
		ps = calloc(1, sizeof(*ps));
		if (!ps)
			return -ENOMEM;
		if (!tl_view_proc_bounds(im, vp->proc, 0, &ps->name, &ps->start, &ps->end)) {
			free(ps);
			return 0;
		}
		ps->samples = range_samples(t, ps->start, ps->end);
		*out = ps;
		*nout = 1;
		return 0;
	}
	for (size_t i = 0; i < nrec; i++) {
		uint64_t off = vp->latency ? t->lat[i].offset : t->val[i].offset;
		struct proc p;

		if (!tl_view_proc_bounds(im, NULL, off, &p.name, &p.start, &p.end))
			continue;
		if (n && ps[n - 1].start == p.start)
			continue; /* records are sorted by offset */
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 32;
			struct proc *np = realloc(ps, ncap * sizeof(*np));

			if (!np) {
				free(ps);
				return -ENOMEM;
			}
			ps = np;
			cap = ncap;
		}
		p.samples = range_samples(t, p.start, p.end);
		ps[n++] = p;
	}
	*out = ps;
	*nout = n;
	return 0;
}

static int image_report(struct vp *vp, const struct tl_view_image *im)
{
	struct tabs t;
	struct proc *ps;
	size_t n;
	char evn[32];
	int ret;

	ret = tabs_load(vp, im, &t);
	if (ret)
		return ret;
	ret = procs_of(vp, im, &t, &ps, &n);
	if (ret) {
		tabs_free(&t);
		return ret;
	}
	n = tl_rows_sort(&vp->ro, ps, n, sizeof(*ps), proc_cmp, &vp_sort_key,
			 vp_sort_key != VP_SORT_SAMPLES, proc_samples, im->total[vp->event]);
	if (vp->ro.json) {
		ax_json_obj_open(&vp->j, NULL);
		ax_json_str(&vp->j, "image", im->name);
		ax_json_str(&vp->j, "key", im->img.key);
		ax_json_arr_open(&vp->j, "procedures");
	} else if (n) {
		printf("image %s (%s)%s%s\n", im->name, im->img.key, im->elf ? "" : ": ",
		       im->elf ? "" : im->elf_err.msg);
	}
	for (size_t i = 0; i < n; i++) {
		if (vp->ro.json) {
			ax_json_obj_open(&vp->j, NULL);
			tl_sym_json(&vp->j, "procedure", ps[i].name);
			ax_json_hex(&vp->j, "address", ps[i].start);
			ax_json_u64(&vp->j, "samples", ps[i].samples);
			ax_json_arr_open(&vp->j, "instructions");
		} else {
			printf("\nprocedure %s (%" PRIu64 " %s samples)\n", ps[i].name,
			       ps[i].samples, tl_event_lower(vp->event, evn, sizeof(evn)));
			printf("%8s  %-14s %-16s %-28s %s\n", evn, "address", "line", "instruction",
			       vp->latency ? "latencies" : "values");
		}
		for (uint64_t off = ps[i].start; off < ps[i].end; off += 4)
			insn_line(vp, im, &t, off);
		if (vp->ro.json) {
			ax_json_arr_close(&vp->j);
			ax_json_obj_close(&vp->j);
		}
	}
	if (vp->ro.json) {
		ax_json_arr_close(&vp->j);
		ax_json_obj_close(&vp->j);
	} else if (n)
		printf("\n");
	free(ps);
	tabs_free(&t);
	return 0;
}

/* ---- the semi-invariant summary ---- */

struct semi {
	const struct tl_view_image *im;
	uint64_t off, samples, n, value;
	double lo, hi; /* the share's 95% interval */
	double potential; /* the share of its procedure's samples it and its dependants hold */
	uint32_t share_ppm;
	unsigned int dest;
	struct an_vinfo cls; /* why it is invariant (an_vclass.h) */
};

/*
 * Issue 20: ordered by potential (the share of the procedure's samples that the instruction and
 * the instructions of its block depending on it hold: what acting on it could save at most),
 * then by execution weight (how often the interpreter saw it run), then by samples.
 */
static int semi_cmp(const void *a, const void *b)
{
	const struct semi *x = a, *y = b;

	if (x->potential != y->potential)
		return x->potential > y->potential ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->share_ppm != y->share_ppm)
		return x->share_ppm > y->share_ppm ? -1 : 1;
	if (x->im != y->im)
		return tl_name_cmp(x->im->name, y->im->name);
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Classify ss (an_vclass) and estimate its potential from the image's samples. */
static void classify(struct vp_class *vc, const struct tabs *t, struct semi *ss)
{
	uint64_t deps[VP_DEP_MAX], ps = 0, pe = 0, dep_samples = 0, proc_total;
	uint32_t nd = 0;
	const char *pn;

	if (vp_classify(vc, ss->im, ss->off, &ss->cls, deps, &nd) < 0) {
		ss->cls.cls = AN_VC_DATA; /* not analysable: shown, never hidden */
		ss->cls.suggest = AN_VS_SPECULATE;
	}
	if (!nd) {
		deps[0] = ss->off;
		nd = 1;
	}
	for (uint32_t k = 0; k < nd; k++)
		dep_samples += samples_at(t, deps[k]);
	if (!tl_view_proc_bounds(ss->im, NULL, ss->off, &pn, &ps, &pe))
		ps = pe = 0;
	proc_total = pe > ps ? range_samples(t, ps, pe) : 0;
	ss->potential = proc_total ? (double)dep_samples / (double)proc_total : 0;
}

/* The suggestion a reader can act on, in words. */
static const char *suggestion(const struct semi *ss, const char *proc, char *buf, size_t size)
{
	char reg[16], arg[16];

	switch (ss->cls.suggest) {
	case AN_VS_HOIST:
		snprintf(buf, size, "hoist the load, or cache the value it returns (0x%" PRIx64 ")",
			 ss->value);
		break;
	case AN_VS_SPECIALISE:
		snprintf(buf, size, "specialise %s for %s, which makes %s = 0x%" PRIx64,
			 proc ? proc : "the procedure", tl_dest_name(ss->cls.arg, arg, sizeof(arg)),
			 tl_dest_name(ss->dest, reg, sizeof(reg)), ss->value);
		break;
	case AN_VS_SPECULATE:
		snprintf(buf, size, "speculate on %s = 0x%" PRIx64 " (value prediction)",
			 tl_dest_name(ss->dest, reg, sizeof(reg)), ss->value);
		break;
	default:
		snprintf(buf, size, "none: invariant by construction (%s)",
			 an_vclass_name[ss->cls.cls]);
		break;
	}
	return buf;
}

/* The prefetch candidates (vprof_addrs.c): text, or the "prefetch" key of the open document. */
static int prefetch(struct vp *vp, const struct tl_view_image **sel, size_t nsel, bool json)
{
	struct vp_addr_opts o = {
		.proc = vp->proc,
		.min_share = vp->min_share,
		.min_n = vp->min_n,
		.event = vp->event,
		.all = vp->all_classes,
	};

	return vp_addrs_report(&o, sel, nsel, json ? &vp->j : NULL);
}

static int summary(struct vp *vp, const struct tl_view_image **sel, size_t nsel)
{
	struct vp_class vc = { 0 };
	struct semi *ss = NULL;
	size_t n = 0, cap = 0, hidden = 0;
	uint32_t min_ppm = (uint32_t)(vp->min_share * 1e6 + 0.5);
	char evn[32], reg[16], text[160], sug[200];

	for (size_t i = 0; i < nsel; i++) {
		struct tabs t;

		if (tabs_load(vp, sel[i], &t)) {
			free(ss);
			vp_class_done(&vc);
			return -ENOMEM;
		}
		for (size_t k = 0; k < t.nval; k++) {
			struct hotlist_item it;

			if (!hotlist_top(&t.val[k].h, &it, 1) || it.share_ppm < min_ppm ||
			    t.val[k].h.n < vp->min_n)
				continue;
			if (n == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct semi *nss = realloc(ss, ncap * sizeof(*nss));

				if (!nss) {
					free(ss);
					tabs_free(&t);
					vp_class_done(&vc);
					return -ENOMEM;
				}
				ss = nss;
				cap = ncap;
			}
			ss[n] = (struct semi){ .im = sel[i],
					       .off = t.val[k].offset,
					       .samples = samples_at(&t, t.val[k].offset),
					       .n = t.val[k].h.n,
					       .value = it.value,
					       .share_ppm = it.share_ppm,
					       .dest = t.val[k].dest };
			vp_share_ci(&t.val[k].h, it.estimate, &ss[n].lo, &ss[n].hi);
			classify(&vc, &t, &ss[n]);
			if (ss[n].cls.cls != AN_VC_DATA && !vp->all_classes) {
				hidden++;
				continue;
			}
			n++;
		}
		tabs_free(&t);
	}
	vp_class_done(&vc);
	if (n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(ss, n, sizeof(*ss), semi_cmp);
	if (vp->ro.json) {
		struct ax_json *j = &vp->j;

		ax_json_arr_close(j);
		ax_json_num(j, "min_share", vp->min_share, 6);
		ax_json_u64(j, "min_n", vp->min_n);
		ax_json_bool(j, "all_classes", vp->all_classes);
		ax_json_u64(j, "hidden", hidden);
		ax_json_arr_open(j, "semi_invariant");
		for (size_t i = 0; i < n; i++) {
			const char *pn;
			uint64_t ps, pe;
			uint32_t w;

			tl_view_insn(ss[i].im, ss[i].off, &w, text, sizeof(text));
			ax_json_obj_open(j, NULL);
			ax_json_str(j, "image", ss[i].im->name);
			ax_json_hex(j, "address", ss[i].off);
			ax_json_u64(j, "samples", ss[i].samples);
			ax_json_str(j, "dest", tl_dest_name(ss[i].dest, reg, sizeof(reg)));
			ax_json_hex(j, "value", ss[i].value);
			tl_addr_json(j, "symbol", &vp->v, ss[i].im, ss[i].value);
			ax_json_num(j, "share", ss[i].share_ppm / 1e6, 6);
			ax_json_num(j, "share_low", ss[i].lo, 6);
			ax_json_num(j, "share_high", ss[i].hi, 6);
			ax_json_u64(j, "n", ss[i].n);
			ax_json_str(j, "text", text);
			tl_view_line_json(j, ss[i].im, ss[i].off);
			pn = NULL;
			if (tl_view_proc_bounds(ss[i].im, NULL, ss[i].off, &pn, &ps, &pe))
				tl_sym_json(j, "procedure", pn);
			ax_json_str(j, "invariance", an_vclass_name[ss[i].cls.cls]);
			ax_json_str(j, "suggestion", an_vsuggest_name[ss[i].cls.suggest]);
			ax_json_str(j, "advice", suggestion(&ss[i], pn, sug, sizeof(sug)));
			ax_json_num(j, "potential", ss[i].potential, 6);
			ax_json_obj_close(j);
		}
		ax_json_arr_close(j);
		if (vp->has_addrs && prefetch(vp, sel, nsel, true)) {
			free(ss);
			return -ENOMEM;
		}
		ax_json_doc_close(j);
		free(ss);
		return 0;
	}
	printf("Most semi-invariant %sinstructions (top value share >= %.2f%%, n >= %" PRIu64
	       "), by potential\n(n: executions the interpreter observed; %s: samples;"
	       " interval: the share's 95%% confidence interval;\n potential: the share of its"
	       " procedure's %s samples that it and its block's instructions using its value"
	       " hold)%s:\n",
	       vp->all_classes ? "" : "data ", vp->min_share * 100, vp->min_n,
	       tl_event_lower(vp->event, evn, sizeof(evn)), evn,
	       vp->all_classes ? "" : "; invariants by construction left out (--all shows them)");
	printf("%8s %8s %-13s %-18s %8s %9s  %-28s %s\n", evn, "share", "interval", "value", "n",
	       "potential", "instruction", "where");
	for (size_t i = 0; i < n; i++) {
		const char *pn = NULL, *b = strrchr(ss[i].im->name, '/');
		uint64_t ps = 0, pe;
		char where[700], val[300], line[300], ci[32], sym[256];
		uint32_t w;

		tl_view_insn(ss[i].im, ss[i].off, &w, text, sizeof(text));
		tl_view_line_str(ss[i].im, ss[i].off, line, sizeof(line));
		if (tl_view_proc_bounds(ss[i].im, NULL, ss[i].off, &pn, &ps, &pe))
			snprintf(where, sizeof(where), "%s+0x%" PRIx64 " %s%s%s", pn,
				 ss[i].off - ps, b ? b + 1 : ss[i].im->name, line[0] ? " " : "",
				 line);
		else
			snprintf(where, sizeof(where), "0x%" PRIx64 " %s%s%s", ss[i].off,
				 b ? b + 1 : ss[i].im->name, line[0] ? " " : "", line);
		snprintf(val, sizeof(val), "%s=0x%" PRIx64,
			 tl_dest_name(ss[i].dest, reg, sizeof(reg)), ss[i].value);
		if (tl_addr_sym(&vp->v, ss[i].im, ss[i].value, sym, sizeof(sym)))
			snprintf(val + strlen(val), sizeof(val) - strlen(val), " <%s>", sym);
		snprintf(ci, sizeof(ci), "[%.1f,%.1f]", 100 * ss[i].lo, 100 * ss[i].hi);
		printf("%8" PRIu64 " %7.2f%% %-13s %-18s %8" PRIu64 " %8.1f%%  %-28s %s\n",
		       ss[i].samples, ss[i].share_ppm / 1e4, ci, val, ss[i].n,
		       100 * ss[i].potential, text, where);
		if (vp->all_classes)
			printf("%8s class: %s; ", "", an_vclass_name[ss[i].cls.cls]);
		else
			printf("%8s ", "");
		printf("suggestion: %s\n", suggestion(&ss[i], pn, sug, sizeof(sug)));
	}
	if (!n)
		printf("  (none)\n");
	if (hidden && !vp->all_classes)
		printf("(%zu more invariant by construction: constants, literal loads, return"
		       " addresses, loop-control compares; --all lists them)\n",
		       hidden);
	free(ss);
	if (vp->has_addrs) {
		printf("\n");
		return prefetch(vp, sel, nsel, false);
	}
	return 0;
}

/* --args, --callers: every selected image with procs records (vprof_args.c). */
static int run_args(struct vp *vp, const struct tl_view_image **sel, size_t n)
{
	int ret;

	vp->args.min_n = vp->min_n;
	vp->args.nvalues = vp->nvalues;
	vp->args.proc = vp->proc;
	if (vp->ro.json) {
		ax_json_doc_open(&vp->j, stdout, "vprof");
		ax_json_str(&vp->j, "database", pdb_dir(vp->v.db));
		ax_json_u64(&vp->j, "epoch", vp->v.epoch);
		tl_view_json_skipped(&vp->j, &vp->v);
		ax_json_str(&vp->j, "mode", vp->args.callers ? "callers" : "args");
		ax_json_num(&vp->j, "invariant", vp->args.invariant, 6);
		ax_json_u64(&vp->j, "min_n", vp->min_n);
		ax_json_arr_open(&vp->j, "images");
	} else {
		printf("vprof: database %s, epoch %u\n\n", pdb_dir(vp->v.db), vp->v.epoch);
	}
	ret = vp_args_report(&vp->args, &vp->v, &vp->ro, sel, n, &vp->j);
	if (!ret && vp->ro.json) {
		ax_json_arr_close(&vp->j);
		ax_json_doc_close(&vp->j);
	}
	free(sel);
	return ret;
}

/* --addresses: the prefetch candidates of the selected images with addrs records. */
static int run_addresses(struct vp *vp, const struct tl_view_image **sel, size_t n)
{
	int ret;

	if (vp->ro.json) {
		ax_json_doc_open(&vp->j, stdout, "vprof");
		ax_json_str(&vp->j, "database", pdb_dir(vp->v.db));
		ax_json_u64(&vp->j, "epoch", vp->v.epoch);
		tl_view_json_skipped(&vp->j, &vp->v);
		ax_json_str(&vp->j, "mode", "addresses");
		ax_json_num(&vp->j, "min_share", vp->min_share, 6);
		ax_json_u64(&vp->j, "min_n", vp->min_n);
		ax_json_arr_open(&vp->j, "images"); /* the images with address profiles */
		for (size_t i = 0; i < n; i++) {
			ax_json_obj_open(&vp->j, NULL);
			ax_json_str(&vp->j, "image", sel[i]->name);
			ax_json_str(&vp->j, "key", sel[i]->img.key);
			ax_json_obj_close(&vp->j);
		}
		ax_json_arr_close(&vp->j);
	} else {
		printf("vprof: database %s, epoch %u\n\n", pdb_dir(vp->v.db), vp->v.epoch);
	}
	ret = prefetch(vp, sel, n, vp->ro.json);
	if (!ret && vp->ro.json)
		ax_json_doc_close(&vp->j);
	free(sel);
	return ret;
}

static int run(struct vp *vp)
{
	const struct tl_view_image **sel;
	size_t n, k = 0;
	int ret = 0;

	sel = calloc(vp->v.n ? vp->v.n : 1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	n = tl_view_select(&vp->v, vp->ro.image, vp->event, sel);
	if (vp->ro.image && *vp->ro.image && !n) {
		fprintf(stderr, "vprof: no image '%s' in epoch %u\n", vp->ro.image, vp->v.epoch);
		free(sel);
		return -ENOENT;
	}
	/* Images that have what is asked for. */
	for (size_t i = 0; i < n; i++) {
		const struct pdb_prof *p = sel[i]->prof;
		struct pdb_value *pv;
		struct pdb_lat *pl;
		struct pdb_addr *pa;
		size_t nv = 0, nl = 0, na = 0;

		if (!p)
			continue;
		if (!pdb_prof_values(p, &pv, &nv))
			free(pv);
		if (!pdb_prof_latencies(p, &pl, &nl))
			free(pl);
		if (!pdb_prof_addrs(p, &pa, &na))
			free(pa);
		vp->has_addrs |= na > 0;
		if ((vp->latency   ? nl :
		     vp->addresses ? na :
				     nv + na) ||
		    (vp->ro.image && *vp->ro.image))
			sel[k++] = sel[i];
	}
	if (vp->args_mode)
		return run_args(vp, sel, n);
	if (vp->addresses)
		return run_addresses(vp, sel, k);
	if (vp->ro.json) {
		ax_json_doc_open(&vp->j, stdout, "vprof");
		ax_json_str(&vp->j, "database", pdb_dir(vp->v.db));
		ax_json_u64(&vp->j, "epoch", vp->v.epoch);
		tl_view_json_skipped(&vp->j, &vp->v);
		ax_json_str(&vp->j, "mode", vp->latency ? "latency" : "values");
		ax_json_arr_open(&vp->j, "images");
	} else {
		printf("vprof: database %s, epoch %u\n\n", pdb_dir(vp->v.db), vp->v.epoch);
		if (!k)
			printf("No %s in this epoch (record with --mode vprof).\n\n",
			       vp->latency ? "load latencies" : "value profiles");
	}
	for (size_t i = 0; i < k && !ret; i++)
		ret = image_report(vp, sel[i]);
	if (!ret && vp->latency && vp->ro.json)
		ax_json_doc_close(&vp->j);
	else if (!ret && !vp->latency)
		ret = summary(vp, sel, k);
	free(sel);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_IMAGE,
		TL_LONGOPT_JSON,
		TL_LONGOPT_TOP,
		TL_LONGOPT_PERCENT_LIMIT,
		TL_LONGOPT_MIN_SAMPLES,
		TL_LONGOPT_SKIP_DAMAGED,
		TL_LONGOPT_NO_DEMANGLE,
		TL_LONGOPT_SORT,
		{ "proc", required_argument, NULL, 'p' },
		{ "min-share", required_argument, NULL, 'm' },
		{ "min-n", required_argument, NULL, 'N' },
		{ "latency", no_argument, NULL, 'l' },
		{ "addresses", no_argument, NULL, 'R' },
		{ "prefetch", no_argument, NULL, 'R' },
		{ "values", required_argument, NULL, 'k' },
		{ "all", no_argument, NULL, 'a' },
		{ "args", no_argument, NULL, 'A' },
		{ "callers", no_argument, NULL, 'C' },
		{ "fp", no_argument, NULL, 'F' },
		{ "invariant", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vp vp = { .min_share = 0.9,
			 .min_n = 10,
			 .nvalues = 2,
			 .event = PDB_EV_CYCLES,
			 .args = { .invariant = 0.9 } };
	unsigned long u;
	struct ax_error err;
	char *end;
	int c, ret;

	tl_ropts_init(&vp.ro, "vprof", 10);
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&vp.ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case 'p':
			vp.proc = optarg;
			break;
		case 'm':
			vp.min_share = strtod(optarg, &end);
			if (end == optarg || *end || !(vp.min_share > 0 && vp.min_share <= 1)) {
				fprintf(stderr, "vprof: --min-share needs 0 < X <= 1, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'l':
			vp.latency = true;
			break;
		case 'R':
			vp.addresses = true;
			break;
		case 'a':
			vp.all_classes = true;
			break;
		case 'A':
		case 'C':
			if (vp.args_mode && vp.args.callers != (c == 'C')) {
				fprintf(stderr, "vprof: --args and --callers are two views: one at "
						"a time\n");
				return 2;
			}
			vp.args_mode = true;
			vp.args.callers = c == 'C';
			break;
		case 'F':
			vp.args.fp = true;
			break;
		case 'I':
			vp.args.invariant = strtod(optarg, &end);
			if (end == optarg || *end ||
			    !(vp.args.invariant > 0 && vp.args.invariant <= 1)) {
				fprintf(stderr, "vprof: --invariant needs 0 < X <= 1, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'N':
			errno = 0;
			u = strtoul(optarg, &end, 10);
			/* strtoul takes "-1" as ULONG_MAX: a digit first */
			if (*optarg < '0' || *optarg > '9' || errno || *end) {
				fprintf(stderr,
					"vprof: --min-n needs a number of executions (0 or more), "
					"not '%s'\n",
					optarg);
				return 2;
			}
			vp.min_n = u;
			break;
		case 'k':
			u = strtoul(optarg, &end, 10);
			if (end == optarg || *end || u < 1 || u > TOP_VALUES_MAX) {
				fprintf(stderr, "vprof: --values: bad number '%s'\n", optarg);
				return 2;
			}
			vp.nvalues = (unsigned int)u;
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
		fprintf(stderr, "vprof: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (vp.addresses && (vp.args_mode || vp.latency)) {
		fprintf(stderr, "vprof: --addresses and --%s are two views: one at a time\n",
			vp.latency	? "latency" :
			vp.args.callers ? "callers" :
					  "args");
		return 2;
	}
	vp_sort_key =
		tl_sort_pick(&vp.ro, NULL, sort_fields, sizeof(sort_fields) / sizeof(*sort_fields));
	if (vp_sort_key < 0)
		return 2;
	if (vp.args_mode && vp.latency) {
		fprintf(stderr, "vprof: --latency and --%s are two views: one at a time\n",
			vp.args.callers ? "callers" : "args");
		return 2;
	}
	ret = tl_view_open_ro(&vp.v, &vp.ro, &err);
	if (ret) {
		fprintf(stderr, "vprof: %s\n", err.msg);
		return 1;
	}
	if (vp.proc && !tl_view_has_proc(&vp.v, vp.ro.image, vp.proc)) {
		fprintf(stderr,
			"vprof: no procedure '%s' in %s of epoch %u (no symbol of that name)\n",
			vp.proc, vp.ro.image && *vp.ro.image ? vp.ro.image : "the images",
			vp.v.epoch);
		tl_view_close(&vp.v);
		return 1;
	}
	if (!(vp.v.events & (1u << PDB_EV_CYCLES)))
		for (unsigned int e = 0; e < PDB_EV_MAX; e++)
			if (vp.v.events & (1u << e)) {
				vp.event = e;
				break;
			}
	ret = run(&vp);
	tl_view_close(&vp.v);
	if (ret)
		return 1;
	return tl_finish_stdout("vprof");
}
