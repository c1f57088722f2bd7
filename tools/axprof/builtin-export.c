/* tools/axprof/builtin-export.c - `axprof export`: a profile as pprof, folded stacks or CSV. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axprof/builtin.h"
#include "tl_pprof.h"
#include "tl_stack.h"
#include "tl_view.h"

/*
 * One epoch of a database for other tools:
 *   pprof   profile.proto, gzipped (tl_pprof.h): one sample type per event, one location per
 *           sampled instruction with its function, file and line, and the inline chain as
 *           pprof's inlined lines; `go tool pprof` reads it; with `record -g` stacks
 *           (stacks.prof, issue 16 item 4) each stack is a sample of its locations, leaf
 *           first as profile.proto wants, and the samples no kept stack covers are one-frame
 *           samples of their instruction;
 *   folded  Brendan Gregg's FlameGraph input ("frame;frame count" per line, root first): each
 *           stack of the first event is a line of its procedures; samples without a kept
 *           stack (none recorded, or a full table) are image;procedure lines;
 *   csv     one row per sampled instruction (RFC 4180): image, procedure, address, file, line,
 *           then one column per event.
 * The output goes to FILE.tmp, renamed over FILE when complete, so a failed export leaves no
 * torn file.
 */

enum fmt { F_PPROF, F_FOLDED, F_CSV };

#define MAX_EV 8

struct exp {
	struct tl_view v;
	struct tl_ropts ro;
	enum fmt fmt;
	unsigned int ev[MAX_EV];
	unsigned int nev;
	FILE *out;
	struct tl_stacks st[MAX_EV]; /* each event's call stacks (none without record -g) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: axprof export --format pprof|folded|csv [-d DIR] [--epoch N] [--image I]\n"
		"                     [--event E] [-o FILE]\n\n"
		"Write one epoch of a profile database for other tools:\n"
		"  pprof   pprof's profile.proto, gzipped, for `go tool pprof`: one sample type per\n"
		"          event, locations with function, file and line (and inline chains) from\n"
		"          each image's symbols and DWARF\n"
		"  folded  FlameGraph's folded stacks: \"image;procedure count\" per line\n"
		"  csv     one row per sampled instruction: image, procedure, address, file, line\n"
		"          and each event's samples\n\n"
		"Options:\n"
		"  --format F       pprof, folded or csv (required)\n"
		"  -o, --output FILE  write FILE (default standard output; written to FILE.tmp and\n"
		"                   renamed when complete)\n"
		"  --event E        only event E (folded: the event counted, default cycles)\n"
		"  -d, --db DIR     the database (default $AXPROF_DB, else ./axprof-db)\n"
		"  --epoch N        that epoch (default the current one)\n"
		"  --image I        only images whose key, path or file name is I\n"
		"  --no-demangle    C++ symbols as the file has them (mangled)\n"
		"  --skip-damaged   leave out damaged database files, naming them on stderr\n"
		"  --help           this text\n\n"
		"Exit status: 0, 1 when the database cannot be read or FILE written, 2 for bad\n"
		"options.\n");
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* ---- per-instruction samples of every exported event ---- */

struct insn {
	uint64_t offset;
	uint64_t c[MAX_EV];
};

struct isample {
	uint64_t offset;
	unsigned int k;
	uint64_t count;
};

static int is_cmp(const void *a, const void *b)
{
	const struct isample *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* The image's sampled instructions in address order with each event's samples. */
static int image_insns(const struct exp *x, const struct tl_view_image *im, struct insn **out,
		       size_t *n)
{
	struct isample *s = NULL;
	struct insn *r;
	size_t ns = 0, nr = 0;

	*out = NULL;
	*n = 0;
	for (unsigned int k = 0; k < x->nev; k++) {
		struct pdb_count *cs = NULL;
		size_t nc = 0;
		struct isample *t;

		if (pdb_prof_samples(im->prof, x->ev[k], &cs, &nc))
			goto nomem;
		t = realloc(s, (ns + nc + 1) * sizeof(*t));
		if (!t) {
			free(cs);
			goto nomem;
		}
		s = t;
		for (size_t i = 0; i < nc; i++)
			s[ns++] = (struct isample){ cs[i].offset, k, cs[i].count };
		free(cs);
	}
	if (ns > 1)
		qsort(s, ns, sizeof(*s), is_cmp);
	r = calloc(ns ? ns : 1, sizeof(*r));
	if (!r)
		goto nomem;
	for (size_t i = 0; i < ns;) {
		size_t h = i;

		r[nr].offset = s[h].offset;
		for (; i < ns && s[i].offset == s[h].offset; i++)
			r[nr].c[s[i].k] += s[i].count;
		nr++;
	}
	free(s);
	*out = r;
	*n = nr;
	return 0;
nomem:
	free(s);
	return -ENOMEM;
}

/* Index of the instruction at offset in r[0..n) (sorted by offset), or n. */
static size_t insn_at(const struct insn *r, size_t n, uint64_t offset)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].offset == offset ? lo : n;
}

/* Take the samples of im's stacks (event column k) out of its instructions' counts: what is
 * left has no kept stack. */
static void take_stacked(const struct tl_stacks *st, const struct tl_view_image *im, unsigned int k,
			 struct insn *r, size_t n)
{
	for (size_t i = 0; i < st->n; i++) {
		size_t at;

		if (st->s[i].f[0].im != im)
			continue;
		at = insn_at(r, n, st->s[i].f[0].offset);
		if (at < n)
			r[at].c[k] -= r[at].c[k] < st->s[i].count ? r[at].c[k] : st->s[i].count;
	}
}

static const char *proc_name(const struct tl_view_image *im, uint64_t off, char *buf, size_t size)
{
	uint64_t start;
	const char *p = tl_view_proc(im, off, &start);

	if (p)
		return p;
	snprintf(buf, size, "[%s]", base_name(im->name));
	return buf;
}

/* ---- pprof ---- */

/* The address range of im's PT_LOAD segments, or of its samples when the file is not read. */
static void image_range(const struct tl_view_image *im, const struct insn *r, size_t n,
			uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; im->elf && i < img_nsegments(im->elf); i++) {
		const struct img_segment *sg = img_segment(im->elf, i);

		if (sg->vaddr < *lo)
			*lo = sg->vaddr;
		if (sg->vaddr + sg->memsz > *hi)
			*hi = sg->vaddr + sg->memsz;
	}
	for (size_t i = 0; i < n; i++) {
		if (r[i].offset < *lo)
			*lo = r[i].offset;
		if (r[i].offset + 4 > *hi)
			*hi = r[i].offset + 4;
	}
	if (*lo > *hi)
		*lo = *hi = 0;
}

/* The location of one instruction: its line and inline chain as pprof lines (innermost first). */
static uint64_t pprof_location(struct tl_pprof *p, uint64_t map, const struct tl_view_image *im,
			       uint64_t off)
{
	struct tl_pprof_line lines[9];
	struct img_inline ch[8];
	struct img_line ln;
	char buf[300];
	const char *proc = proc_name(im, off, buf, sizeof(buf));
	size_t n = 0, nch = 0;

	if (!tl_view_line(im, off, &ln)) {
		lines[n++] = (struct tl_pprof_line){ tl_pprof_function(p, proc, NULL), 0 };
	} else {
		nch = img_line_inlines(tl_view_lines(im, NULL), off, ch, 8);
		if (nch > 8)
			nch = 8;
		/* Frame k runs in ch[k].func (the procedure itself past the chain), at the line
		 * of the frame inside it: the instruction's for k = 0, else ch[k - 1]'s call. */
		for (size_t k = 0; k <= nch; k++) {
			const char *fn = k < nch && ch[k].func[0] ? ch[k].func : proc;
			const char *file = k ? ch[k - 1].call_file : ln.file;
			unsigned int line = k ? ch[k - 1].call_line : ln.line;

			lines[n++] = (struct tl_pprof_line){ tl_pprof_function(p, fn, file), line };
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!lines[i].function)
			return 0;
	return tl_pprof_location(p, map, off, lines, n);
}

/* Locations already written, by (image, offset): a frame seen again reuses its location. */
struct locs {
	struct loc {
		const struct tl_view_image *im; /* NULL: a raw pc no image of the view holds */
		uint64_t off, id;
	} * v;
	size_t n, cap;
	uint64_t *map; /* mapping id of each image of the view (0: not made yet) */
};

static uint64_t loc_get(struct tl_pprof *p, struct locs *lc, const struct exp *x,
			const struct tl_view_image *im, uint64_t off)
{
	uint64_t id, lo, hi;

	for (size_t i = 0; i < lc->n; i++)
		if (lc->v[i].im == im && lc->v[i].off == off)
			return lc->v[i].id;
	if (lc->n == lc->cap) {
		size_t ncap = lc->cap ? 2 * lc->cap : 256;
		struct loc *nv = realloc(lc->v, ncap * sizeof(*nv));

		if (!nv)
			return 0;
		lc->v = nv;
		lc->cap = ncap;
	}
	if (im) {
		size_t k = (size_t)(im - x->v.im);

		if (!lc->map[k]) {
			image_range(im, NULL, 0, &lo, &hi);
			lc->map[k] = tl_pprof_mapping(p, lo, hi, 0, im->name, im->img.key,
						      tl_view_lines(im, NULL) != NULL);
		}
		id = lc->map[k] ? pprof_location(p, lc->map[k], im, off) : 0;
	} else {
		struct tl_pprof_line l = { tl_pprof_function(p, "[unknown]", NULL), 0 };

		id = l.function ? tl_pprof_location(p, 0, off, &l, 1) : 0;
	}
	if (id)
		lc->v[lc->n++] = (struct loc){ im, off, id };
	return id;
}

/* Every stack of event column k whose sample lies in im: one sample of its locations. */
static int pprof_stacks(struct tl_pprof *p, struct locs *lc, const struct exp *x,
			const struct tl_view_image *im, unsigned int k)
{
	const struct tl_stacks *st = &x->st[k];

	for (size_t i = 0; i < st->n; i++) {
		const struct tl_stack *s = &st->s[i];
		uint64_t loc[PDB_STK_DEPTH_MAX];
		int64_t val[MAX_EV] = { 0 };

		if (s->f[0].im != im)
			continue;
		for (unsigned int j = 0; j < s->depth; j++) {
			loc[j] = loc_get(p, lc, x, s->f[j].im, s->f[j].offset);
			if (!loc[j])
				return -ENOMEM;
		}
		val[k] = (int64_t)(s->count > INT64_MAX ? INT64_MAX : s->count);
		if (tl_pprof_sample(p, loc, s->depth, val))
			return -ENOMEM;
	}
	return 0;
}

static int write_pprof(struct exp *x, const struct tl_view_image *const *sel, size_t nsel)
{
	struct locs lc = { 0 };
	const char *names[MAX_EV];
	char evn[MAX_EV][32], comment[4200];
	struct tl_pprof *p;
	uint8_t *gz = NULL;
	size_t len;
	int ret = 0;

	for (unsigned int k = 0; k < x->nev; k++)
		names[k] = tl_event_lower(x->ev[k], evn[k], sizeof(evn[k]));
	p = tl_pprof_new(names, x->nev, "samples");
	lc.map = calloc(x->v.n + 1, sizeof(*lc.map));
	if (!p || !lc.map) {
		tl_pprof_free(p);
		free(lc.map);
		return -ENOMEM;
	}
	snprintf(comment, sizeof(comment), "axprof export: database %s, epoch %u", pdb_dir(x->v.db),
		 x->v.epoch);
	ret = tl_pprof_comment(p, comment);
	for (size_t i = 0; i < nsel && !ret; i++) {
		const struct tl_view_image *im = sel[i];
		struct insn *r;
		size_t n;
		uint64_t lo, hi, map;

		if (!im->prof)
			continue;
		ret = image_insns(x, im, &r, &n);
		if (ret)
			break;
		image_range(im, r, n, &lo, &hi);
		map = tl_pprof_mapping(p, lo, hi, 0, im->name, im->img.key,
				       tl_view_lines(im, NULL) != NULL);
		if (!map)
			ret = -ENOMEM;
		lc.map[im - x->v.im] = map;
		for (unsigned int e = 0; e < x->nev && !ret; e++) {
			ret = pprof_stacks(p, &lc, x, im, e);
			take_stacked(&x->st[e], im, e, r, n);
		}
		for (size_t k = 0; k < n && !ret; k++) {
			int64_t val[MAX_EV];
			bool any = false;
			uint64_t loc;

			for (unsigned int e = 0; e < x->nev; e++) {
				val[e] = (int64_t)(r[k].c[e] > INT64_MAX ? INT64_MAX : r[k].c[e]);
				any |= val[e] != 0;
			}
			if (!any)
				continue; /* every sample of it went with a stack */
			loc = loc_get(p, &lc, x, im, r[k].offset);
			ret = loc ? tl_pprof_sample(p, &loc, 1, val) : -ENOMEM;
		}
		free(r);
	}
	if (!ret && x->v.unknown && (!x->ro.image || !*x->ro.image)) {
		int64_t val[MAX_EV];
		bool any = false;

		for (unsigned int e = 0; e < x->nev; e++) {
			val[e] = (int64_t)x->v.unknown_total[x->ev[e]];
			any |= val[e] != 0;
		}
		if (any) {
			struct tl_pprof_line l = { tl_pprof_function(p, "[unknown]", NULL), 0 };
			uint64_t loc = l.function ? tl_pprof_location(p, 0, 0, &l, 1) : 0;

			ret = loc ? tl_pprof_sample(p, &loc, 1, val) : -ENOMEM;
		}
	}
	if (!ret)
		ret = tl_pprof_encode(p, &gz, &len);
	tl_pprof_free(p);
	free(lc.v);
	free(lc.map);
	if (!ret && fwrite(gz, 1, len, x->out) != len)
		ret = -EIO;
	free(gz);
	return ret;
}

/* ---- folded ---- */

struct fold {
	char *line; /* frames, root first, ';' between */
	uint64_t count;
};

static int fold_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fold *)a)->line, ((const struct fold *)b)->line);
}

struct folds {
	struct fold *f;
	size_t n, cap;
};

/* Add a line (taken: freed on failure). */
static int fold_add(struct folds *fs, char *line, uint64_t count)
{
	if (!line)
		return -ENOMEM;
	if (fs->n == fs->cap) {
		size_t ncap = fs->cap ? 2 * fs->cap : 256;
		struct fold *nf = realloc(fs->f, ncap * sizeof(*nf));

		if (!nf) {
			free(line);
			return -ENOMEM;
		}
		fs->f = nf;
		fs->cap = ncap;
	}
	fs->f[fs->n++] = (struct fold){ line, count };
	return 0;
}

/* A frame's name in a folded line: its procedure, else [image], else [unknown]. */
static const char *fold_frame(const struct tl_frame *f, char *buf, size_t size)
{
	if (f->proc)
		return f->proc;
	if (f->im)
		snprintf(buf, size, "[%s]", base_name(f->im->name));
	else
		snprintf(buf, size, "[unknown]");
	return buf;
}

/* The stack as a folded line, root first ("[truncated]" first when its root was dropped). */
static char *fold_stack(const struct tl_stack *s)
{
	char *line = NULL, buf[300];
	size_t size = 0;
	FILE *m = open_memstream(&line, &size);

	if (!m)
		return NULL;
	if (s->flags & PDB_STK_TRUNCATED)
		fputs("[truncated];", m);
	for (int j = (int)s->depth - 1; j >= 0; j--)
		fprintf(m, "%s%s", fold_frame(&s->f[j], buf, sizeof(buf)), j ? ";" : "");
	if (fclose(m)) {
		free(line);
		return NULL;
	}
	return line;
}

static int write_folded(struct exp *x, const struct tl_view_image *const *sel, size_t nsel)
{
	struct folds fs = { 0 };
	int ret = 0;

	for (size_t i = 0; i < nsel && !ret; i++) {
		struct insn *r;
		size_t n;

		if (!sel[i]->prof)
			continue;
		ret = image_insns(x, sel[i], &r, &n);
		if (ret)
			break;
		for (size_t k = 0; k < x->st[0].n && !ret; k++)
			if (x->st[0].s[k].f[0].im == sel[i])
				ret = fold_add(&fs, fold_stack(&x->st[0].s[k]),
					       x->st[0].s[k].count);
		take_stacked(&x->st[0], sel[i], 0, r, n);
		for (size_t k = 0; k < n && !ret; k++) {
			char buf[300], *line;

			if (!r[k].c[0])
				continue;
			if (asprintf(&line, "%s;%s", base_name(sel[i]->name),
				     proc_name(sel[i], r[k].offset, buf, sizeof(buf))) < 0)
				line = NULL;
			ret = fold_add(&fs, line, r[k].c[0]);
		}
		free(r);
	}
	if (fs.n > 1)
		qsort(fs.f, fs.n, sizeof(*fs.f), fold_cmp);
	for (size_t i = 0; i < fs.n && !ret;) {
		size_t h = i;
		uint64_t c = 0;

		for (; i < fs.n && !fold_cmp(&fs.f[i], &fs.f[h]); i++)
			c += fs.f[i].count;
		if (c)
			fprintf(x->out, "%s %" PRIu64 "\n", fs.f[h].line, c);
	}
	if (!ret && x->v.unknown_total[x->ev[0]] && (!x->ro.image || !*x->ro.image))
		fprintf(x->out, "[unknown] %" PRIu64 "\n", x->v.unknown_total[x->ev[0]]);
	for (size_t i = 0; i < fs.n; i++)
		free(fs.f[i].line);
	free(fs.f);
	return ret;
}

/* ---- csv ---- */

/* One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, o);
		return;
	}
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o);
		fputc(*s, o);
	}
	fputc('"', o);
}

static int write_csv(struct exp *x, const struct tl_view_image *const *sel, size_t nsel)
{
	char evn[32], buf[300];
	int ret = 0;

	fputs("image,procedure,address,file,line", x->out);
	for (unsigned int k = 0; k < x->nev; k++)
		fprintf(x->out, ",%s", tl_event_lower(x->ev[k], evn, sizeof(evn)));
	fputc('\n', x->out);
	for (size_t i = 0; i < nsel && !ret; i++) {
		struct insn *r;
		size_t n;

		if (!sel[i]->prof)
			continue;
		ret = image_insns(x, sel[i], &r, &n);
		for (size_t k = 0; k < n && !ret; k++) {
			struct img_line ln;
			bool has = tl_view_line(sel[i], r[k].offset, &ln);

			csv_field(x->out, sel[i]->name);
			fputc(',', x->out);
			csv_field(x->out, proc_name(sel[i], r[k].offset, buf, sizeof(buf)));
			fprintf(x->out, ",0x%" PRIx64 ",", r[k].offset);
			if (has) {
				csv_field(x->out, ln.file);
				fprintf(x->out, ",%u", ln.line);
			} else {
				fputc(',', x->out);
			}
			for (unsigned int e = 0; e < x->nev; e++)
				fprintf(x->out, ",%" PRIu64, r[k].c[e]);
			fputc('\n', x->out);
		}
		free(r);
	}
	return ret;
}

/* ---- main ---- */

static int run(struct exp *x)
{
	const struct tl_view_image **sel;
	size_t n;
	int ret;

	sel = calloc(x->v.n ? x->v.n : 1, sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	n = tl_view_select(&x->v, x->ro.image, x->ev[0], sel);
	if (x->ro.image && *x->ro.image && !n) {
		fprintf(stderr, "axprof export: no image '%s' in epoch %u\n", x->ro.image,
			x->v.epoch);
		free(sel);
		return -ENOENT;
	}
	for (unsigned int k = 0; k < x->nev && x->fmt != F_CSV; k++) {
		ret = tl_stacks_load(&x->v, x->ev[k], &x->st[k]);
		if (ret) {
			free(sel);
			return ret;
		}
	}
	ret = x->fmt == F_PPROF	 ? write_pprof(x, sel, n) :
	      x->fmt == F_FOLDED ? write_folded(x, sel, n) :
				   write_csv(x, sel, n);
	for (unsigned int k = 0; k < x->nev; k++)
		tl_stacks_free(&x->st[k]);
	free(sel);
	return ret;
}

int cmd_export(int argc, char **argv)
{
	enum { O_FORMAT = 256, O_EVENT, O_HELP };
	static const struct option longopts[] = {
		TL_LONGOPT_DB,
		TL_LONGOPT_EPOCH,
		TL_LONGOPT_IMAGE,
		TL_LONGOPT_SKIP_DAMAGED,
		TL_LONGOPT_NO_DEMANGLE,
		{ "format", required_argument, NULL, O_FORMAT },
		{ "event", required_argument, NULL, O_EVENT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct exp x = { 0 };
	const char *fmt = NULL, *path = NULL;
	char *tmp = NULL;
	struct ax_error err;
	int c, ret, ev = -1;

	tl_ropts_init(&x.ro, "axprof export", 0);
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:o:", longopts, NULL)) != -1) {
		ret = tl_ropts_parse(&x.ro, c, optarg);
		if (ret == 2)
			return 2;
		if (ret)
			continue;
		switch (c) {
		case O_FORMAT:
			fmt = optarg;
			break;
		case O_EVENT:
			ev = tl_event_parse(optarg);
			if (ev < 0) {
				fprintf(stderr, "axprof export: unknown event '%s'\n", optarg);
				return 2;
			}
			break;
		case 'o':
			path = optarg;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "axprof export: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!fmt) {
		fprintf(stderr, "axprof export: --format pprof|folded|csv is required\n");
		return 2;
	}
	if (!strcmp(fmt, "pprof")) {
		x.fmt = F_PPROF;
	} else if (!strcmp(fmt, "folded")) {
		x.fmt = F_FOLDED;
	} else if (!strcmp(fmt, "csv")) {
		x.fmt = F_CSV;
	} else {
		fprintf(stderr, "axprof export: unknown format '%s' (pprof, folded or csv)\n", fmt);
		return 2;
	}
	if (x.fmt == F_PPROF && !path && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "axprof export: pprof output is gzip data: give -o FILE or "
				"redirect standard output\n");
		return 2;
	}
	ret = tl_view_open_ro(&x.v, &x.ro, &err);
	if (ret) {
		fprintf(stderr, "axprof export: %s\n", err.msg);
		return 1;
	}
	if (ev >= 0)
		x.ev[x.nev++] = (unsigned int)ev;
	else if (x.fmt == F_FOLDED)
		x.ev[x.nev++] = PDB_EV_CYCLES;
	for (unsigned int e = 0; ev < 0 && e < PDB_EV_MAX && x.nev < MAX_EV; e++)
		if (x.v.events & (1u << e))
			x.ev[x.nev++] = e;
	if (!x.nev)
		x.ev[x.nev++] = PDB_EV_CYCLES;
	x.out = stdout;
	if (path) {
		if (asprintf(&tmp, "%s.tmp", path) < 0) {
			tl_view_close(&x.v);
			return 1;
		}
		x.out = fopen(tmp, "wb");
		if (!x.out) {
			fprintf(stderr, "axprof export: cannot create %s: %s\n", tmp,
				strerror(errno));
			free(tmp);
			tl_view_close(&x.v);
			return 1;
		}
	}
	ret = run(&x);
	if (ret && ret != -ENOENT)
		fprintf(stderr, "axprof export: %s\n",
			ret == -ENOMEM ? "out of memory" : strerror(-ret));
	if (path) {
		if (fclose(x.out) && !ret) {
			fprintf(stderr, "axprof export: error writing %s: %s\n", tmp,
				strerror(errno));
			ret = -EIO;
		}
		if (!ret && rename(tmp, path)) {
			fprintf(stderr, "axprof export: cannot rename %s to %s: %s\n", tmp, path,
				strerror(errno));
			ret = -EIO;
		}
		if (ret)
			unlink(tmp);
		free(tmp);
	}
	tl_view_close(&x.v);
	return ret ? 1 : 0;
}
