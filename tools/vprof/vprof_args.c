/* tools/vprof/vprof_args.c - vprof --args and --callers: per procedure arguments, returns, callers. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vprof.h"
#include "hotlist.h"
#include "tl_sym.h"
#include "tl_addr.h"
#include "tl_sym.h"

/*
 * DCPI's dcpivarg view (value-sampling slides 2 and 12) from procs.prof (pdb.h PDB_FT_PROCS):
 * per procedure, the top values of each argument register at entry and of the return register
 * at its rets, with their shares and 95% intervals (vp_share_ci, as vprof's values), marked
 * "invariant" when the lower end of the top value's interval is at least the --invariant
 * threshold (default 0.9: with 95% confidence the value is the argument in at least 90% of the
 * calls: the slide's "a function is always evaluated at zero"); and, with --callers, the calling
 * instructions by share, each named procedure+offset in its image. A procedure's entries are the
 * calls the interpreter saw (its CALLER or a0 hotlist's n).
 */

#define NREGS 64
#define PROC_MAX_VALUES 8
#define RET_RNG_SEED 0x7670726f66726574ull

/* One procedure of one image: its entry hotlists (by register) and its rets' merged ones. */
struct vproc {
	const char *name;
	uint64_t start, end, entries;
	struct hotlist *arg[NREGS]; /* ARG by register, CALLER at 26 */
	struct hotlist ret[2]; /* v0, f0: every ret of the procedure merged */
	bool has_ret[2];
};

static uint64_t vproc_entries(const void *p)
{
	return ((const struct vproc *)p)->entries;
}

static int vproc_cmp(const void *a, const void *b)
{
	const struct vproc *x = a, *y = b;
	int k;

	if (vp_sort_key == VP_SORT_NAME &&
	    (k = strcmp(x->name ? x->name : "", y->name ? y->name : "")))
		return k;
	if (vp_sort_key == VP_SORT_ADDRESS && x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->entries != y->entries)
		return x->entries > y->entries ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static struct vproc *vproc_of(const struct tl_view_image *im, struct vproc **ps, size_t *n,
			      size_t *cap, uint64_t off)
{
	const char *name;
	uint64_t s, e;

	if (!tl_view_proc_bounds(im, NULL, off, &name, &s, &e)) {
		name = NULL; /* no symbol: the offset alone */
		s = off;
		e = off + 4;
	}
	for (size_t i = 0; i < *n; i++)
		if ((*ps)[i].start == s)
			return &(*ps)[i];
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct vproc *np = realloc(*ps, nc * sizeof(*np));

		if (!np)
			return NULL;
		*ps = np;
		*cap = nc;
	}
	memset(&(*ps)[*n], 0, sizeof(**ps));
	(*ps)[*n].name = name;
	(*ps)[*n].start = s;
	(*ps)[*n].end = e;
	return &(*ps)[(*n)++];
}

/* The image's procedures with procs records, by entries. */
static int gather(const struct vp_args_opts *o, const struct tl_view_image *im,
		  const struct pdb_proc *t, size_t nt, struct vproc **out, size_t *nout)
{
	struct hotlist_rng rng;
	struct vproc *ps = NULL;
	size_t n = 0, cap = 0;

	hotlist_rng_seed(&rng, RET_RNG_SEED);
	for (size_t i = 0; i < nt; i++) {
		struct vproc *p = vproc_of(im, &ps, &n, &cap, t[i].offset);
		unsigned int r = t[i].reg;

		if (!p) {
			free(ps);
			return -ENOMEM;
		}
		if (t[i].kind == PDB_PROC_RET) {
			unsigned int k = r == 32;

			if (p->has_ret[k])
				hotlist_merge(&p->ret[k], &t[i].h, &rng);
			else
				p->ret[k] = t[i].h;
			p->has_ret[k] = true;
		} else if (r < NREGS && !p->arg[r]) {
			p->arg[r] = (struct hotlist *)&t[i].h;
			if (t[i].h.n > p->entries)
				p->entries = t[i].h.n;
		}
	}
	/* --proc and --min-n */
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if ((!o->proc || (ps[i].name && tl_sym_shown_is(ps[i].name, o->proc))) &&
		    ps[i].entries >= o->min_n && (ps[i].entries || ps[i].has_ret[0]))
			ps[k++] = ps[i];
	*out = ps;
	*nout = k;
	return 0;
}

static const char *reg_name(unsigned int r, char *buf, size_t size)
{
	return tl_dest_name(r, buf, size);
}

static bool is_invariant(const struct vp_args_opts *o, const struct hotlist *h)
{
	struct hotlist_item it;
	double lo, hi;

	if (!hotlist_top(h, &it, 1))
		return false;
	vp_share_ci(h, it.estimate, &lo, &hi);
	return lo >= o->invariant;
}

/* The caller value v named "proc+0xoff image" (or its raw pc). */
static void caller_name(const struct tl_view *v, const struct pdb_prof *p, uint64_t val, char *buf,
			size_t size, const struct tl_view_image **imp, uint64_t *offp)
{
	const char *key = "", *pn;
	uint64_t off = val, s, e;

	*imp = NULL;
	if (pdb_prof_caller_decode(p, val, &key, &off)) {
		snprintf(buf, size, "0x%" PRIx64 " (damaged)", val);
		*offp = val;
		return;
	}
	*offp = off;
	for (size_t i = 0; *key && i < v->n; i++)
		if (!strcmp(v->im[i].img.key, key))
			*imp = &v->im[i];
	if (!*imp) {
		snprintf(buf, size, "0x%" PRIx64 " %s", off, *key ? key : "(no image)");
		return;
	}
	const char *b = strrchr((*imp)->name, '/');

	b = b ? b + 1 : (*imp)->name;
	if (tl_view_proc_bounds(*imp, NULL, off, &pn, &s, &e))
		snprintf(buf, size, "%s+0x%" PRIx64 " %s", pn, off - s, b);
	else
		snprintf(buf, size, "0x%" PRIx64 " %s", off, b);
}

/* ---- text ---- */

static void text_values(const struct vp_args_opts *o, const struct tl_view *v,
			const struct tl_view_image *im, const char *what, const struct hotlist *h)
{
	struct hotlist_item it[PROC_MAX_VALUES];
	unsigned int k = hotlist_top(h, it, o->nvalues);
	char sym[256];

	printf("  %-4s %-9s ", what, is_invariant(o, h) ? "invariant" : "");
	for (unsigned int i = 0; i < k; i++) {
		double lo, hi;

		vp_share_ci(h, it[i].estimate, &lo, &hi);
		printf("%s(%.2f%% [%.1f,%.1f] 0x%" PRIx64, i ? " " : "", it[i].share_ppm / 1e4,
		       100 * lo, 100 * hi, it[i].value);
		if (tl_addr_sym(v, im, it[i].value, sym, sizeof(sym)))
			printf(" <%s>", sym);
		putchar(')');
	}
	printf(" n=%" PRIu64 "\n", h->n);
}

static void text_proc(const struct vp_args_opts *o, const struct tl_view *v,
		      const struct tl_view_image *im, const struct vproc *p)
{
	char reg[16], name[400];

	if (p->name)
		printf("\nprocedure %s (%" PRIu64 " entries interpreted)\n", p->name, p->entries);
	else
		printf("\nprocedure at 0x%" PRIx64 " (%" PRIu64 " entries interpreted)\n", p->start,
		       p->entries);
	if (o->callers) {
		const struct hotlist *h = p->arg[26];
		struct hotlist_item it[PROC_MAX_VALUES];
		unsigned int k = h ? hotlist_top(h, it, PROC_MAX_VALUES) : 0;

		printf("  %8s %-13s %s\n", "share", "interval", "caller");
		for (unsigned int i = 0; i < k; i++) {
			const struct tl_view_image *ci;
			double lo, hi;
			uint64_t off;

			vp_share_ci(h, it[i].estimate, &lo, &hi);
			caller_name(v, im->prof, it[i].value, name, sizeof(name), &ci, &off);
			snprintf(reg, sizeof(reg), "[%.1f,%.1f]", 100 * lo, 100 * hi);
			printf("  %7.2f%% %-13s %s\n", it[i].share_ppm / 1e4, reg, name);
		}
		if (!k)
			printf("  (no callers recorded: record with --observe +callers)\n");
		return;
	}
	for (unsigned int r = 0; r < NREGS; r++) {
		bool fp = r >= 32;

		if (!p->arg[r] || r == 26 || (fp && !o->fp))
			continue;
		text_values(o, v, im, reg_name(r, reg, sizeof(reg)), p->arg[r]);
	}
	for (unsigned int k = 0; k < 2; k++)
		if (p->has_ret[k] && (!k || o->fp))
			text_values(o, v, im, k ? "f0" : "v0", &p->ret[k]);
}

/* ---- JSON ---- */

static void json_values(const struct vp_args_opts *o, const struct tl_view *v,
			const struct tl_view_image *im, struct ax_json *j, const char *reg,
			const struct hotlist *h)
{
	struct hotlist_item it[PROC_MAX_VALUES];
	unsigned int k = hotlist_top(h, it, o->nvalues);

	ax_json_obj_open(j, NULL);
	ax_json_str(j, "reg", reg);
	ax_json_u64(j, "n", h->n);
	ax_json_u64(j, "tau", h->tau);
	ax_json_bool(j, "invariant", is_invariant(o, h));
	ax_json_arr_open(j, "values");
	for (unsigned int i = 0; i < k; i++) {
		double lo, hi;

		vp_share_ci(h, it[i].estimate, &lo, &hi);
		ax_json_obj_open(j, NULL);
		ax_json_hex(j, "value", it[i].value);
		tl_addr_json(j, "symbol", v, im, it[i].value);
		ax_json_num(j, "share", it[i].share_ppm / 1e6, 6);
		ax_json_num(j, "share_low", lo, 6);
		ax_json_num(j, "share_high", hi, 6);
		ax_json_u64(j, "estimate", it[i].estimate);
		ax_json_u64(j, "count", it[i].count);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
	ax_json_obj_close(j);
}

static void json_proc(const struct vp_args_opts *o, const struct tl_view *v,
		      const struct tl_view_image *im, const struct vproc *p, struct ax_json *j)
{
	char reg[16], name[400];

	ax_json_obj_open(j, NULL);
	tl_sym_json(j, "procedure", p->name ? p->name : "");
	ax_json_hex(j, "address", p->start);
	ax_json_hex(j, "end", p->end);
	ax_json_u64(j, "entries", p->entries);
	if (o->callers) {
		const struct hotlist *h = p->arg[26];
		struct hotlist_item it[PROC_MAX_VALUES];
		unsigned int k = h ? hotlist_top(h, it, PROC_MAX_VALUES) : 0;

		ax_json_arr_open(j, "callers");
		for (unsigned int i = 0; i < k; i++) {
			const struct tl_view_image *ci;
			double lo, hi;
			uint64_t off;

			vp_share_ci(h, it[i].estimate, &lo, &hi);
			caller_name(v, im->prof, it[i].value, name, sizeof(name), &ci, &off);
			ax_json_obj_open(j, NULL);
			ax_json_str(j, "caller", name);
			ax_json_str(j, "image", ci ? ci->name : "");
			ax_json_hex(j, "address", off);
			ax_json_num(j, "share", it[i].share_ppm / 1e6, 6);
			ax_json_num(j, "share_low", lo, 6);
			ax_json_num(j, "share_high", hi, 6);
			ax_json_u64(j, "estimate", it[i].estimate);
			ax_json_u64(j, "count", it[i].count);
			ax_json_obj_close(j);
		}
		ax_json_arr_close(j);
		ax_json_obj_close(j);
		return;
	}
	ax_json_arr_open(j, "args");
	for (unsigned int r = 0; r < NREGS; r++)
		if (p->arg[r] && r != 26 && (r < 32 || o->fp))
			json_values(o, v, im, j, reg_name(r, reg, sizeof(reg)), p->arg[r]);
	ax_json_arr_close(j);
	ax_json_arr_open(j, "returns");
	for (unsigned int k = 0; k < 2; k++)
		if (p->has_ret[k] && (!k || o->fp))
			json_values(o, v, im, j, k ? "f0" : "v0", &p->ret[k]);
	ax_json_arr_close(j);
	ax_json_obj_close(j);
}

int vp_args_report(const struct vp_args_opts *o, const struct tl_view *v, const struct tl_ropts *ro,
		   const struct tl_view_image **sel, size_t n, struct ax_json *j)
{
	size_t shown = 0;

	if (!ro->json)
		printf("%s (entries: calls the interpreter saw; invariant: the top value's 95%% "
		       "interval lies above %.0f%%)\n",
		       o->callers ? "Callers by share" :
				    "Arguments at entry and return values, top values by share",
		       100 * o->invariant);
	for (size_t i = 0; i < n; i++) {
		struct pdb_proc *t = NULL;
		struct vproc *ps = NULL;
		size_t nt = 0, np = 0;

		if (!sel[i]->prof)
			continue;
		if (pdb_prof_procs(sel[i]->prof, &t, &nt) || gather(o, sel[i], t, nt, &ps, &np)) {
			free(t);
			return -ENOMEM;
		}
		np = tl_rows_sort(ro, ps, np, sizeof(*ps), vproc_cmp, &vp_sort_key,
				  vp_sort_key != VP_SORT_SAMPLES, vproc_entries, 0);
		if (np && ro->json) {
			ax_json_obj_open(j, NULL);
			ax_json_str(j, "image", sel[i]->name);
			ax_json_str(j, "key", sel[i]->img.key);
			ax_json_arr_open(j, "procedures");
		} else if (np) {
			printf("\nimage %s (%s)\n", sel[i]->name, sel[i]->img.key);
		}
		for (size_t k = 0; k < np; k++) {
			if (ro->json)
				json_proc(o, v, sel[i], &ps[k], j);
			else
				text_proc(o, v, sel[i], &ps[k]);
		}
		if (np && ro->json) {
			ax_json_arr_close(j);
			ax_json_obj_close(j);
		}
		shown += np;
		free(ps);
		free(t);
	}
	if (!shown && !ro->json)
		printf("\n(none: record with --mode vprof --observe +args,callers)\n");
	return 0;
}
