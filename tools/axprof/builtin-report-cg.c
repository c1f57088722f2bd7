/* tools/axprof/builtin-report-cg.c - `axprof report --callers/--callees SYM`: call graph view. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axprof/builtin.h"
#include "tl_stack.h"

/*
 * Issue 16 item 4 (perf report --call-graph, gprof's callers/callees from sampled stacks). From
 * the `record -g` stacks (stacks.prof) of one event: a stack "holds" SYM when one of its frames
 * lies in SYM. inclusive = samples of the stacks holding it (once per stack, however often
 * recursion repeats it), self = those whose sampled pc (frame 0) is in it. Callers: for each stack
 * holding it, the call site (frame o + 1, a bsr/jsr named sym+off) of its outermost frame o, or
 * the stack's root when SYM is the outermost frame; their shares of inclusive add up to 100%.
 * Callees: for each stack where SYM is not the sampled procedure, the procedure of the frame
 * inside its innermost frame: the samples SYM spent in each callee, inclusive of what that
 * callee called; callees and self add up to inclusive.
 */

struct cg_row {
	const struct tl_frame *f; /* the call site or callee frame; NULL: the root of the stack */
	bool truncated; /* root of a truncated stack (its outer frames were dropped) */
	uint64_t samples;
};

struct cg_rows {
	struct cg_row *r;
	size_t n, cap;
};

/* Two frames are the same row: same call site (callers) or same procedure (callees). */
static bool same(const struct tl_frame *a, const struct tl_frame *b, bool by_proc)
{
	if (a->im != b->im)
		return false;
	if (by_proc && a->proc && b->proc)
		return a->start == b->start && !strcmp(a->proc, b->proc);
	return !a->proc == !b->proc && a->offset == b->offset;
}

static int add_row(struct cg_rows *rs, const struct tl_frame *f, bool truncated, bool by_proc,
		   uint64_t samples)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct cg_row *r = &rs->r[i];

		if ((!f && !r->f && r->truncated == truncated) ||
		    (f && r->f && same(f, r->f, by_proc))) {
			r->samples += samples;
			return 0;
		}
	}
	if (rs->n == rs->cap) {
		size_t ncap = rs->cap ? 2 * rs->cap : 32;
		struct cg_row *n = realloc(rs->r, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		rs->r = n;
		rs->cap = ncap;
	}
	rs->r[rs->n++] = (struct cg_row){ f, truncated, samples };
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct cg_row *x = a, *y = b;
	char bx[256], by[256];

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (!x->f || !y->f)
		return !x->f - !y->f;
	return strcmp(tl_frame_name(x->f, bx, sizeof(bx)), tl_frame_name(y->f, by, sizeof(by)));
}

static uint64_t row_samples(const void *r)
{
	return ((const struct cg_row *)r)->samples;
}

/* Is f in the procedure sym, in an image --image selects (NULL: any)? */
static bool in_sym(const struct tl_frame *f, const char *sym, const char *image)
{
	const char *path, *base;

	if (!f->proc || strcmp(f->proc, sym))
		return false;
	if (!image || !*image)
		return true;
	path = f->im->img.path ? f->im->img.path : "";
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strcmp(f->im->img.key, image) || !strcmp(path, image) || !strcmp(base, image);
}

struct cg {
	uint64_t inclusive, self;
	const struct tl_frame *proc; /* a frame of SYM (its image and start), NULL when none */
	struct cg_rows callers, callees;
};

static int walk(const struct tl_stacks *st, const char *sym, const char *image, struct cg *g)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct tl_stack *s = &st->s[i];
		int inner = -1, outer = -1, err = 0;

		for (int j = 0; j < (int)s->depth; j++)
			if (in_sym(&s->f[j], sym, image)) {
				if (inner < 0)
					inner = j;
				outer = j;
			}
		if (inner < 0)
			continue;
		if (!g->proc)
			g->proc = &s->f[inner];
		g->inclusive += s->count;
		if (inner == 0)
			g->self += s->count;
		else
			err = add_row(&g->callees, &s->f[inner - 1], false, true, s->count);
		if (!err)
			err = add_row(&g->callers,
				      outer + 1 < (int)s->depth ? &s->f[outer + 1] : NULL,
				      s->flags & PDB_STK_TRUNCATED, false, s->count);
		if (err)
			return err;
	}
	return 0;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static const char *row_name(const struct cg_row *r, bool callers, char *buf, size_t size)
{
	if (!r->f)
		return r->truncated ? "[truncated stack]" : "[root]";
	if (!callers && r->f->proc)
		return r->f->proc;
	return tl_frame_name(r->f, buf, size);
}

static void text_rows(const struct cg_rows *rs, bool callers, uint64_t inclusive)
{
	char buf[256];

	printf("\n%s:\n%9s %7s  %-36s %s\n", callers ? "callers (call sites)" : "callees",
	       "samples", "share", callers ? "call site" : "procedure", "image");
	for (size_t i = 0; i < rs->n; i++) {
		const struct cg_row *r = &rs->r[i];

		printf("%9" PRIu64 " %6.2f%%  %-36s %s\n", r->samples, pct(r->samples, inclusive),
		       row_name(r, callers, buf, sizeof(buf)), r->f ? tl_frame_image(r->f) : "");
	}
}

static void json_rows(struct ax_json *j, const struct cg_rows *rs, bool callers, uint64_t inclusive)
{
	char buf[256];

	ax_json_arr_open(j, callers ? "callers" : "callees");
	for (size_t i = 0; i < rs->n; i++) {
		const struct cg_row *r = &rs->r[i];

		ax_json_obj_open(j, NULL);
		if (callers)
			ax_json_str(j, "site", row_name(r, true, buf, sizeof(buf)));
		if (r->f && r->f->proc)
			ax_json_str(j, "procedure", r->f->proc);
		if (r->f && callers)
			ax_json_hex(j, "address", r->f->offset);
		if (r->f && r->f->im)
			ax_json_str(j, "image", r->f->im->name);
		if (callers && !r->f)
			ax_json_bool(j, "truncated", r->truncated);
		ax_json_u64(j, "samples", r->samples);
		ax_json_num(j, "share", inclusive ? (double)r->samples / (double)inclusive : 0, 6);
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

int report_callgraph(const struct tl_view *v, const struct tl_ropts *ro, unsigned int event,
		     const char *sym, bool callers, bool callees)
{
	struct tl_stacks st;
	struct cg g = { 0 };
	char evn[32];
	int ret;

	ret = tl_stacks_load(v, event, &st);
	if (ret)
		return ret;
	if (!st.any) {
		fprintf(stderr,
			"axprof report: no call stacks in %s epoch %u: record with `axprof record "
			"-g` (hosted machine) to store the stacks --callers and --callees need\n",
			pdb_dir(v->db), v->epoch);
		tl_stacks_free(&st);
		return -ENOENT;
	}
	ret = walk(&st, sym, ro->image, &g);
	if (!ret && !g.proc && !tl_view_has_proc(v, ro->image, sym)) {
		fprintf(stderr, "axprof report: no procedure '%s'%s%s in epoch %u\n", sym,
			ro->image && *ro->image ? " in image " : "",
			ro->image && *ro->image ? ro->image : "", v->epoch);
		ret = -ENOENT;
	}
	if (ret)
		goto out_free;
	tl_event_lower(event, evn, sizeof(evn));
	qsort(g.callers.r, g.callers.n, sizeof(*g.callers.r), row_cmp);
	qsort(g.callees.r, g.callees.n, sizeof(*g.callees.r), row_cmp);
	g.callers.n = tl_rows_keep(ro, g.callers.r, g.callers.n, sizeof(*g.callers.r), row_samples,
				   g.inclusive);
	g.callees.n = tl_rows_keep(ro, g.callees.r, g.callees.n, sizeof(*g.callees.r), row_samples,
				   g.inclusive);
	if (ro->json) {
		struct ax_json j;

		ax_json_doc_open(&j, stdout, "report");
		ax_json_str(&j, "database", pdb_dir(v->db));
		ax_json_u64(&j, "epoch", v->epoch);
		tl_view_json_skipped(&j, v);
		ax_json_str(&j, "event", evn);
		ax_json_str(&j, "procedure", sym);
		if (g.proc)
			ax_json_str(&j, "image", tl_frame_image(g.proc));
		ax_json_u64(&j, "stack_samples", st.samples);
		ax_json_u64(&j, "stacks_not_kept", st.dropped);
		ax_json_u64(&j, "inclusive", g.inclusive);
		ax_json_u64(&j, "self", g.self);
		if (callers)
			json_rows(&j, &g.callers, true, g.inclusive);
		if (callees)
			json_rows(&j, &g.callees, false, g.inclusive);
		ax_json_doc_close(&j);
	} else {
		printf("axprof report: database %s, epoch %u\n", pdb_dir(v->db), v->epoch);
		printf("%s%s%s, event %s: %" PRIu64 " samples with a call stack", sym,
		       g.proc ? " in " : "", g.proc ? tl_frame_image(g.proc) : "", evn, st.samples);
		if (st.dropped)
			printf(" (%" PRIu64 " of them without a kept stack: table full)",
			       st.dropped);
		printf("\ninclusive %" PRIu64 " (%.2f%%), self %" PRIu64 " (%.2f%%)\n", g.inclusive,
		       pct(g.inclusive, st.samples), g.self, pct(g.self, st.samples));
		printf("shares below are of the procedure's inclusive samples\n");
		if (callers)
			text_rows(&g.callers, true, g.inclusive);
		if (callees)
			text_rows(&g.callees, false, g.inclusive);
	}
out_free:
	free(g.callers.r);
	free(g.callees.r);
	tl_stacks_free(&st);
	return ret;
}
