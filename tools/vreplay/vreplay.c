/* tools/vreplay/vreplay.c - vreplay: which stores (and loads) could have caused each replay trap. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_sym.h"
#include "tl_view.h"

/*
 * The value-sampling slides' "vreplay output" page: per instruction the hardware replay-trap
 * count (samples of the REPLAY event; "-" when the epoch has none: the hosted machine's EV5
 * does not replay), the instruction, vcount (times it was interpreted), the conflict rate
 * (the instruction's conflicts / its vcount: how often an interpretation of it found one) and
 * the accesses it conflicted with, with shares: for a load, the earlier stores (and with
 * load-load gathering, loads) whose bytes it read within one interpretation; for a store, the
 * later loads that read its bytes. "Later, combine results and hardware counts" (slide 19): a
 * load with replays and a dominant conflicting store names the culprit.
 *
 * When the epoch also has ProfileMe samples (`axprof record --mode profileme --cpu ev6` of the
 * same program into the same database), the replay counts come from them instead: a ProfileMe
 * record names the instruction whose attempt a replay trap aborted, so the attribution is exact
 * (no skid, [PM] ProfileMe, MICRO'97 §2.2, §4.1); an instruction's estimated replay traps are its
 * replay-aborted samples (store-load, load-load order: the load-store-order flag; and other
 * Mbox replays) x the mean interval each sample stands for (§5.1). The conflict partners still
 * come from the interpretation records.
 */

#define PARTNERS_MAX 4
#define CI_Z 1.959964 /* two-sided 95% normal quantile */
/*
 * Fewest interpretations of an instruction for a useful conflict rate: at 30 the 95% interval of
 * a 50% rate is 33..67% (Wilson), already wider than most decisions tolerate; below it vreplay
 * warns and names the options that collect more (issue 15, item 7).
 */
#define VCOUNT_FEW 30

/*
 * 95% interval of a conflict rate: each interpretation of the instruction is a Bernoulli trial
 * (did it find a conflict?), the Wilson score interval on vcount trials (Wilson, JASA 22, 1927).
 * The conflicts counted can exceed the trials (one interpretation may overlap several earlier
 * stores), so the successes are capped at vcount.
 */
static void rate_ci(uint64_t conflicts, uint64_t vcount, double *lo, double *hi)
{
	double n = (double)vcount, p, z2n, c, w;

	if (!vcount) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)(conflicts < vcount ? conflicts : vcount) / n;
	z2n = CI_Z * CI_Z / n;
	c = (p + z2n / 2) / (1 + z2n);
	w = CI_Z / (1 + z2n) * sqrt(p * (1 - p) / n + z2n / (4 * n));
	*lo = fmax(0.0, c - w);
	*hi = fmin(1.0, c + w);
}

struct vr {
	struct tl_view v;
	const char *proc;
	bool have_replays;
	bool have_pme; /* replay counts from ProfileMe samples */
	uint64_t few; /* instructions with conflicts interpreted fewer than VCOUNT_FEW times */
	struct tl_ropts ro;
	struct ax_json j;
};

struct tabs {
	struct pdb_count *rp; /* replay samples */
	size_t nrp;
	struct pdb_count *vc;
	size_t nvc;
	struct pdb_conflict *cf; /* sorted by load offset */
	size_t ncf;
	struct pdb_conflict **by_prior; /* the same, own-image priors sorted by prior offset */
	size_t nbp;
	struct pdb_pme *pme; /* ProfileMe aggregates, sorted by offset */
	size_t npme;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vreplay [-d DIR] [--epoch N] [--image I] [--proc P] [-n N]\n"
		"               [--percent-limit P] [--json]\n\n"
		"Replay-trap diagnosis from `axprof record --mode vreplay`: for each instruction of\n"
		"the procedures with conflicts, the hardware replay count (REPLAY samples; \"-\" when\n"
		"none were recorded), the instruction, its vcount (times interpreted), its\n"
		"conflict rate (conflicts / vcount), and the accesses it overlapped with their\n"
		"shares: a load lists the earlier stores whose bytes it read, a store the later\n"
		"loads that read its bytes. Then every conflicting pair by count. When the\n"
		"epoch has ProfileMe samples (record --mode profileme --cpu ev6 into the same\n"
		"database), the replay counts are estimated from them: exact attribution, no skid.\n\n"
		"Options:\n"
		"  -d, --db DIR   the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N      that epoch (default the current one)\n"
		"  --image I      only images whose key, path or file name is I\n"
		"  --proc P       only procedure P\n"
		"  -n, --top N    procedures per image, by conflicts (default 10; 0: all)\n"
		"  --sort FIELD   the procedures' order: conflicts (default), name, address (of\n"
		"                 the -n with most conflicts)\n"
		"  --percent-limit P  only procedures with at least P percent of their image's\n"
		"                 conflicts\n"
		"  --no-demangle  print C++ symbols as the file has them (mangled)\n"
		"  --json         JSON output (docs/axprof-json.7)\n"
		"  --skip-damaged leave out damaged database files, naming them on stderr and\n"
		"                 in the output (axprof-fsck(1) lists and repairs them)\n"
		"  --help         this text\n");
}

static const struct pdb_count *find_count(const struct pdb_count *c, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c[mid].offset < off)
			lo = mid + 1;
		else if (c[mid].offset > off)
			hi = mid;
		else
			return &c[mid];
	}
	return NULL;
}

static int prior_cmp(const void *a, const void *b)
{
	const struct pdb_conflict *x = *(const struct pdb_conflict *const *)a;
	const struct pdb_conflict *y = *(const struct pdb_conflict *const *)b;

	if (x->prior_offset != y->prior_offset)
		return x->prior_offset < y->prior_offset ? -1 : 1;
	return x->load_offset < y->load_offset ? -1 : x->load_offset > y->load_offset;
}

static void tabs_free(struct tabs *t)
{
	free(t->rp);
	free(t->vc);
	free(t->cf);
	free(t->by_prior);
	free(t->pme);
	memset(t, 0, sizeof(*t));
}

static int tabs_load(const struct tl_view_image *im, struct tabs *t)
{
	memset(t, 0, sizeof(*t));
	if (!im->prof)
		return 0;
	if (pdb_prof_samples(im->prof, PDB_EV_REPLAY, &t->rp, &t->nrp) ||
	    pdb_prof_vcounts(im->prof, &t->vc, &t->nvc) ||
	    pdb_prof_conflicts(im->prof, &t->cf, &t->ncf) ||
	    pdb_prof_profileme(im->prof, &t->pme, &t->npme))
		goto out_nomem;
	t->by_prior = calloc(t->ncf ? t->ncf : 1, sizeof(*t->by_prior));
	if (!t->by_prior)
		goto out_nomem;
	for (size_t i = 0; i < t->ncf; i++)
		if (!strcmp(t->cf[i].prior_key, im->img.key))
			t->by_prior[t->nbp++] = &t->cf[i];
	qsort(t->by_prior, t->nbp, sizeof(*t->by_prior), prior_cmp);
	return 0;
out_nomem:
	tabs_free(t);
	return -ENOMEM;
}

static const struct pdb_profileme *pme_at(const struct tabs *t, uint64_t off)
{
	size_t lo = 0, hi = t->npme;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->pme[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->npme && t->pme[lo].offset == off ? &t->pme[lo].pme : NULL;
}

/* ProfileMe: samples of the instruction aborted by a replay trap (status: STLD, LDLD, Mbox),
 * those flagged load-store order (event LSO), and the replay traps they estimate. */
static double pme_replays(const struct pdb_profileme *p, uint64_t *samples, uint64_t *lso)
{
	*samples = p ? p->status[2] + p->status[3] + p->status[4] : 0;
	*lso = p ? p->events[7] : 0;
	if (!p || !p->samples_p)
		return 0;
	return (double)*samples * (double)p->events2 / (2.0 * (double)p->samples_p);
}

/* The conflicts whose load is at off: [*first, *first + return). */
static size_t loads_at(const struct tabs *t, uint64_t off, size_t *first)
{
	size_t lo = 0, hi = t->ncf, n = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->cf[mid].load_offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < t->ncf && t->cf[lo + n].load_offset == off)
		n++;
	return n;
}

static size_t stores_at(const struct tabs *t, uint64_t off, size_t *first)
{
	size_t lo = 0, hi = t->nbp, n = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->by_prior[mid]->prior_offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < t->nbp && t->by_prior[lo + n]->prior_offset == off)
		n++;
	return n;
}

static int cnf_count_cmp(const void *a, const void *b)
{
	const struct pdb_conflict *x = *(const struct pdb_conflict *const *)a;
	const struct pdb_conflict *y = *(const struct pdb_conflict *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->prior_offset != y->prior_offset)
		return x->prior_offset < y->prior_offset ? -1 : 1;
	if (x->load_offset != y->load_offset)
		return x->load_offset < y->load_offset ? -1 : 1;
	if (strcmp(x->prior_key, y->prior_key))
		return strcmp(x->prior_key, y->prior_key);
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* Partners of the instruction at off, largest count first, into p[PARTNERS_MAX]. */
static size_t partners(const struct tabs *t, uint64_t off, const struct pdb_conflict **p,
		       bool *as_store, uint64_t *total)
{
	const struct pdb_conflict *all[64];
	size_t first, n = loads_at(t, off, &first), k = 0;

	*total = 0;
	*as_store = false;
	if (n) {
		for (size_t i = 0; i < n && k < 64; i++)
			all[k++] = &t->cf[first + i];
	} else {
		n = stores_at(t, off, &first);
		for (size_t i = 0; i < n && k < 64; i++)
			all[k++] = t->by_prior[first + i];
		*as_store = n != 0;
	}
	for (size_t i = 0; i < k; i++)
		*total += all[i]->count;
	if (k > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(all, k, sizeof(all[0]), cnf_count_cmp);
	if (k > PARTNERS_MAX)
		k = PARTNERS_MAX;
	memcpy(p, all, k * sizeof(*p));
	return k;
}

static void insn_line(struct vr *vr, const struct tl_view_image *im, const struct tabs *t,
		      uint64_t off)
{
	const struct pdb_count *rp = find_count(t->rp, t->nrp, off);
	const struct pdb_count *vc = find_count(t->vc, t->nvc, off);
	const struct pdb_conflict *p[PARTNERS_MAX];
	uint64_t total;
	bool as_store;
	size_t np = partners(t, off, p, &as_store, &total);
	uint64_t vcount = vc ? vc->count : 0, rp_samples, lso;
	double rp_est = pme_replays(pme_at(t, off), &rp_samples, &lso);
	bool has_rate = np && vcount; /* conflicts come from interpretations: vcount >= 1 */
	double rate = has_rate ? (double)total / (double)vcount : 0.0;
	char text[160], rbuf[24], ratebuf[48], where[300];
	double lo = 0, hi = 1;
	uint32_t w;

	tl_view_insn(im, off, &w, text, sizeof(text));
	if (has_rate)
		rate_ci(total, vcount, &lo, &hi);
	if (np && vcount < VCOUNT_FEW)
		vr->few++;
	if (vr->ro.json) {
		struct ax_json *j = &vr->j;

		ax_json_obj_open(j, NULL);
		ax_json_hex(j, "address", off);
		if (vr->have_replays)
			ax_json_u64(j, "replays", rp ? rp->count : 0);
		if (vr->have_pme) {
			ax_json_num(j, "replays_estimated", rp_est, 0);
			ax_json_u64(j, "replay_samples", rp_samples);
			ax_json_u64(j, "lso_samples", lso);
		}
		ax_json_u64(j, "vcount", vcount);
		if (has_rate) {
			ax_json_num(j, "rate", rate, 6);
			ax_json_num(j, "rate_low", lo, 6);
			ax_json_num(j, "rate_high", hi, 6);
		}
		ax_json_str(j, "text", text);
		tl_view_line_json(j, im, off);
		ax_json_arr_open(j, as_store ? "later_loads" : "earlier_accesses");
		for (size_t i = 0; i < np; i++) {
			ax_json_obj_open(j, NULL);
			ax_json_hex(j, "address",
				    as_store ? p[i]->load_offset : p[i]->prior_offset);
			ax_json_u64(j, "count", p[i]->count);
			ax_json_num(j, "share", (double)p[i]->count / (double)total, 6);
			ax_json_str(j, "kind",
				    p[i]->kind == PDB_CNF_LOAD_LOAD ? "load-load" : "store-load");
			ax_json_u64(j, "dist_min", p[i]->dist_min);
			if (!as_store && strcmp(p[i]->prior_key, im->img.key))
				ax_json_str(j, "prior_key", p[i]->prior_key);
			ax_json_obj_close(j);
		}
		ax_json_arr_close(j);
		ax_json_obj_close(j);
		return;
	}
	if (vr->have_pme)
		snprintf(rbuf, sizeof(rbuf), "%.0f", rp_est);
	else if (vr->have_replays)
		snprintf(rbuf, sizeof(rbuf), "%" PRIu64, rp ? rp->count : 0);
	else
		snprintf(rbuf, sizeof(rbuf), "-");
	printf("%7s  0x%-12" PRIx64 " %-16s %-28s %7" PRIu64, rbuf, off,
	       tl_view_line_str(im, off, where, sizeof(where)), text, vcount);
	if (np) { /* no rate column on lines without conflicts: no trailing blanks */
		if (has_rate)
			snprintf(ratebuf, sizeof(ratebuf), "%.1f%% [%.0f,%.0f]", 100.0 * rate,
				 100 * lo, 100 * hi);
		else
			snprintf(ratebuf, sizeof(ratebuf), "-");
		printf(" %16s", ratebuf);
	}
	for (size_t i = 0; i < np; i++) {
		uint64_t o = as_store ? p[i]->load_offset : p[i]->prior_offset;

		printf(" (%.1f%% %s0x%" PRIx64 "%s)", 100.0 * (double)p[i]->count / (double)total,
		       as_store ? "-> " : "", o, p[i]->kind == PDB_CNF_LOAD_LOAD ? " ld" : "");
	}
	printf("\n");
}

/* ---- procedures ---- */

struct proc {
	const char *name;
	uint64_t start, end, conflicts;
};

static uint64_t proc_conflicts(const void *p)
{
	return ((const struct proc *)p)->conflicts;
}

/* --sort of the procedures: conflicts (default), name, address (order the -n chosen). */
static const char *const sort_fields[] = { "conflicts", "name", "address" };
enum { SORT_CONFLICTS, SORT_NAME, SORT_ADDRESS };
static int sort_key;

static int proc_cmp(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	int k;

	if (sort_key == SORT_NAME && (k = strcmp(x->name, y->name)))
		return k;
	if (sort_key == SORT_ADDRESS && x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->conflicts != y->conflicts)
		return x->conflicts > y->conflicts ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int procs_of(const struct vr *vr, const struct tl_view_image *im, const struct tabs *t,
		    struct proc **out, size_t *nout)
{
	struct proc *ps = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	if (vr->proc) {
		ps = calloc(1, sizeof(*ps));
		if (!ps)
			return -ENOMEM;
		if (!tl_view_proc_bounds(im, vr->proc, 0, &ps->name, &ps->start, &ps->end)) {
			free(ps);
			return 0;
		}
		*out = ps;
		*nout = 1;
		return 0;
	}
	for (size_t i = 0; i < t->ncf; i++) {
		struct proc p;
		size_t k;

		if (!tl_view_proc_bounds(im, NULL, t->cf[i].load_offset, &p.name, &p.start, &p.end))
			continue;
		for (k = 0; k < n && ps[k].start != p.start; k++)
			;
		if (k < n) {
			ps[k].conflicts += t->cf[i].count;
			continue;
		}
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
		p.conflicts = t->cf[i].count;
		ps[n++] = p;
	}
	*out = ps;
	*nout = n;
	return 0;
}

/*
 * The earlier access of a pair in another image, by that image's symbols: "file:proc+0xOFF"
 * into buf, and its text into text; false (buf, text untouched) when the image or its
 * procedure is unknown.
 */
static bool other_image_sym(const struct tl_view *v, const struct pdb_conflict *c, char *buf,
			    size_t size, char *text, size_t tsize)
{
	const char *pn, *base;
	uint64_t ps, pe;
	uint32_t w;

	for (size_t i = 0; c->prior_key[0] && i < v->n; i++) {
		const struct tl_view_image *o = &v->im[i];

		if (strcmp(o->img.key, c->prior_key))
			continue;
		if (!tl_view_proc_bounds(o, NULL, c->prior_offset, &pn, &ps, &pe))
			return false;
		base = strrchr(o->name, '/');
		snprintf(buf, size, "%s:%s+0x%" PRIx64, base ? base + 1 : o->name, pn,
			 c->prior_offset - ps);
		if (text)
			tl_view_insn(o, c->prior_offset, &w, text, tsize);
		return true;
	}
	return false;
}

static void pair_line(const struct tl_view *v, const struct tl_view_image *im,
		      const struct pdb_conflict *c, uint64_t load_total)
{
	char lt[160], st[160], lw[300], sw[300];
	const char *pn;
	uint64_t ps, pe;
	uint32_t w;

	tl_view_insn(im, c->load_offset, &w, lt, sizeof(lt));
	if (tl_view_proc_bounds(im, NULL, c->load_offset, &pn, &ps, &pe))
		snprintf(lw, sizeof(lw), "%s+0x%" PRIx64, pn, c->load_offset - ps);
	else
		snprintf(lw, sizeof(lw), "0x%" PRIx64, c->load_offset);
	if (!strcmp(c->prior_key, im->img.key)) {
		tl_view_insn(im, c->prior_offset, &w, st, sizeof(st));
		if (tl_view_proc_bounds(im, NULL, c->prior_offset, &pn, &ps, &pe))
			snprintf(sw, sizeof(sw), "%s+0x%" PRIx64, pn, c->prior_offset - ps);
		else
			snprintf(sw, sizeof(sw), "0x%" PRIx64, c->prior_offset);
	} else if (!other_image_sym(v, c, sw, sizeof(sw), st, sizeof(st))) {
		snprintf(st, sizeof(st), "?");
		snprintf(sw, sizeof(sw), "%s:0x%" PRIx64, c->prior_key[0] ? c->prior_key : "pc",
			 c->prior_offset);
	}
	printf("%8" PRIu64 " %6.1f%% %4u  %-10s %-22s %-26s <- %-22s %s\n", c->count,
	       load_total ? 100.0 * (double)c->count / (double)load_total : 0.0, c->dist_min,
	       c->kind == PDB_CNF_LOAD_LOAD ? "load-load" : "store-load", lw, lt, sw, st);
}

static void json_pairs(struct ax_json *j, const struct tl_view *v, const struct tl_view_image *im,
		       const struct tabs *t)
{
	char sym[300];

	ax_json_arr_open(j, "pairs");
	for (size_t i = 0; i < t->ncf; i++) {
		const struct pdb_conflict *c = &t->cf[i];

		ax_json_obj_open(j, NULL);
		ax_json_hex(j, "load", c->load_offset);
		ax_json_hex(j, "prior", c->prior_offset);
		ax_json_str(j, "prior_key", c->prior_key);
		if (strcmp(c->prior_key, im->img.key) &&
		    other_image_sym(v, c, sym, sizeof(sym), NULL, 0))
			ax_json_str(j, "prior_symbol", sym);
		ax_json_str(j, "kind", c->kind == PDB_CNF_LOAD_LOAD ? "load-load" : "store-load");
		ax_json_u64(j, "count", c->count);
		ax_json_u64(j, "dist_min", c->dist_min);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

static int image_report(struct vr *vr, const struct tl_view_image *im)
{
	struct tabs t;
	struct proc *ps;
	uint64_t total = 0;
	size_t n;
	int ret;

	ret = tabs_load(im, &t);
	if (ret)
		return ret;
	ret = procs_of(vr, im, &t, &ps, &n);
	if (ret) {
		tabs_free(&t);
		return ret;
	}
	for (size_t i = 0; i < n; i++)
		total += ps[i].conflicts;
	n = tl_rows_sort(&vr->ro, ps, n, sizeof(*ps), proc_cmp, &sort_key,
			 sort_key != SORT_CONFLICTS, proc_conflicts, total);
	if (vr->ro.json) {
		ax_json_obj_open(&vr->j, NULL);
		ax_json_str(&vr->j, "image", im->name);
		ax_json_str(&vr->j, "key", im->img.key);
		ax_json_arr_open(&vr->j, "procedures");
	} else {
		printf("image %s (%s)%s%s\n", im->name, im->img.key, im->elf ? "" : ": ",
		       im->elf ? "" : im->elf_err.msg);
	}
	for (size_t i = 0; i < n; i++) {
		if (vr->ro.json) {
			ax_json_obj_open(&vr->j, NULL);
			tl_sym_json(&vr->j, "procedure", ps[i].name);
			ax_json_hex(&vr->j, "address", ps[i].start);
			ax_json_u64(&vr->j, "conflicts", ps[i].conflicts);
			ax_json_arr_open(&vr->j, "instructions");
		} else {
			printf("\nprocedure %s (%" PRIu64 " conflicts)\n", ps[i].name,
			       ps[i].conflicts);
			printf("%7s  %-14s %-16s %-28s %7s %16s %s\n", "replays", "address", "line",
			       "instruction", "vcount", "rate [95% CI]", "conflicts");
		}
		for (uint64_t off = ps[i].start; off < ps[i].end; off += 4)
			insn_line(vr, im, &t, off);
		if (vr->ro.json) {
			ax_json_arr_close(&vr->j);
			ax_json_obj_close(&vr->j);
		}
	}
	if (vr->ro.json) {
		ax_json_arr_close(&vr->j);
		json_pairs(&vr->j, &vr->v, im, &t);
		ax_json_obj_close(&vr->j);
	} else {
		const struct pdb_conflict **order = calloc(t.ncf ? t.ncf : 1, sizeof(*order));

		if (!order) {
			free(ps);
			tabs_free(&t);
			return -ENOMEM;
		}
		for (size_t i = 0; i < t.ncf; i++)
			order[i] = &t.cf[i];
		if (t.ncf > 1) /* qsort(NULL, 0, ...) is undefined */
			qsort(order, t.ncf, sizeof(*order), cnf_count_cmp);
		printf("\nConflicting pairs, by count (share of the load's conflicts; dist: fewest "
		       "instructions apart):\n");
		printf("%8s %7s %4s  %-10s %-22s %-26s    %s\n", "count", "share", "dist", "kind",
		       "load", "", "earlier access");
		for (size_t i = 0; i < t.ncf; i++) {
			size_t first, k = loads_at(&t, order[i]->load_offset, &first);
			uint64_t lt = 0;

			for (size_t j = 0; j < k; j++)
				lt += t.cf[first + j].count;
			pair_line(&vr->v, im, order[i], lt);
		}
		if (!t.ncf)
			printf("  (none)\n");
		printf("\n");
		free(order);
	}
	free(ps);
	tabs_free(&t);
	return 0;
}

static int run(struct vr *vr)
{
	const struct tl_view_image **sel;
	size_t n, k = 0;
	int ret = 0;

	sel = calloc(vr->v.n ? vr->v.n : 1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	n = tl_view_select(&vr->v, vr->ro.image, PDB_EV_CYCLES, sel);
	if (vr->ro.image && *vr->ro.image && !n) {
		fprintf(stderr, "vreplay: no image '%s' in epoch %u\n", vr->ro.image, vr->v.epoch);
		free(sel);
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		struct pdb_conflict *c;
		size_t nc = 0;

		if (!sel[i]->prof)
			continue;
		if (!pdb_prof_conflicts(sel[i]->prof, &c, &nc))
			free(c);
		if (!vr->have_pme) {
			struct pdb_pme *pm = NULL;
			size_t npm = 0;

			if (!pdb_prof_profileme(sel[i]->prof, &pm, &npm))
				free(pm);
			vr->have_pme = npm != 0;
		}
		if (nc || (vr->ro.image && *vr->ro.image))
			sel[k++] = sel[i];
	}
	vr->have_replays = (vr->v.events >> PDB_EV_REPLAY) & 1;
	if (vr->ro.json) {
		ax_json_doc_open(&vr->j, stdout, "vreplay");
		ax_json_str(&vr->j, "database", pdb_dir(vr->v.db));
		ax_json_u64(&vr->j, "epoch", vr->v.epoch);
		tl_view_json_skipped(&vr->j, &vr->v);
		ax_json_bool(&vr->j, "replays_recorded", vr->have_replays);
		ax_json_str(&vr->j, "replays_from",
			    vr->have_pme     ? "profileme" :
			    vr->have_replays ? "replay_samples" :
					       "none");
		ax_json_arr_open(&vr->j, "images");
	} else {
		printf("vreplay: database %s, epoch %u%s\n\n", pdb_dir(vr->v.db), vr->v.epoch,
		       vr->have_pme ?
			       " (replays: estimated from ProfileMe samples aborted by a replay trap, "
			       "exact attribution, no skid)" :
		       vr->have_replays ? "" :
					  " (no hardware replay counts recorded: \"-\")");
		if (!k)
			printf("No conflicts in this epoch (record with --mode vreplay).\n");
	}
	for (size_t i = 0; i < k && !ret; i++)
		ret = image_report(vr, sel[i]);
	if (vr->ro.json && !ret) {
		ax_json_arr_close(&vr->j);
		ax_json_u64(&vr->j, "few_interpretations", vr->few);
		ax_json_doc_close(&vr->j);
	}
	if (!ret && vr->few)
		fprintf(stderr,
			"vreplay: warning: %" PRIu64 " instruction%s with conflicts %s interpreted "
			"fewer than %d times: %s conflict rate%s only rough (see the intervals); "
			"record more interpretations with `axprof record --mode vreplay --share N/D` "
			"(a larger share, e.g. --share 1/8) or a longer run\n",
			vr->few, vr->few == 1 ? "" : "s", vr->few == 1 ? "was" : "were", VCOUNT_FEW,
			vr->few == 1 ? "its" : "their", vr->few == 1 ? " is" : "s are");
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
		TL_LONGOPT_SKIP_DAMAGED,
		TL_LONGOPT_NO_DEMANGLE,
		TL_LONGOPT_SORT,
		{ "proc", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vr vr = { 0 };
	struct ax_error err;
	int c, ret;

	tl_ropts_init(&vr.ro, "vreplay", 10);
	while ((c = getopt_long(argc, argv, "d:n:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&vr.ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case 'p':
			vr.proc = optarg;
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
		fprintf(stderr, "vreplay: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	sort_key =
		tl_sort_pick(&vr.ro, NULL, sort_fields, sizeof(sort_fields) / sizeof(*sort_fields));
	if (sort_key < 0)
		return 2;
	ret = tl_view_open_ro(&vr.v, &vr.ro, &err);
	if (ret) {
		fprintf(stderr, "vreplay: %s\n", err.msg);
		return 1;
	}
	if (vr.proc && !tl_view_has_proc(&vr.v, vr.ro.image, vr.proc)) {
		fprintf(stderr,
			"vreplay: no procedure '%s' in %s of epoch %u (no symbol of that name)\n",
			vr.proc, vr.ro.image && *vr.ro.image ? vr.ro.image : "the images",
			vr.v.epoch);
		tl_view_close(&vr.v);
		return 1;
	}
	ret = run(&vr);
	tl_view_close(&vr.v);
	if (ret)
		return 1;
	return tl_finish_stdout("vreplay");
}
