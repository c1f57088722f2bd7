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
#include "tl_view.h"

/*
 * One epoch of a database for other tools:
 *   pprof   profile.proto, gzipped (tl_pprof.h): one sample type per event, one location per
 *           sampled instruction with its function, file and line, and the inline chain as
 *           pprof's inlined lines; `go tool pprof` reads it;
 *   folded  Brendan Gregg's FlameGraph input ("frame;frame count" per line): without recorded
 *           stacks each line is image;procedure;
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

static int write_pprof(struct exp *x, const struct tl_view_image *const *sel, size_t nsel)
{
	const char *names[MAX_EV];
	char evn[MAX_EV][32], comment[4200];
	struct tl_pprof *p;
	uint8_t *gz = NULL;
	size_t len;
	int ret = 0;

	for (unsigned int k = 0; k < x->nev; k++)
		names[k] = tl_event_lower(x->ev[k], evn[k], sizeof(evn[k]));
	p = tl_pprof_new(names, x->nev, "samples");
	if (!p)
		return -ENOMEM;
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
		for (size_t k = 0; k < n && !ret; k++) {
			int64_t val[MAX_EV];
			uint64_t loc = pprof_location(p, map, im, r[k].offset);

			for (unsigned int e = 0; e < x->nev; e++)
				val[e] = (int64_t)(r[k].c[e] > INT64_MAX ? INT64_MAX : r[k].c[e]);
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
	if (!ret && fwrite(gz, 1, len, x->out) != len)
		ret = -EIO;
	free(gz);
	return ret;
}

/* ---- folded ---- */

struct fold {
	const char *image;
	char proc[300];
	uint64_t count;
};

static int fold_cmp(const void *a, const void *b)
{
	const struct fold *x = a, *y = b;
	int k = strcmp(x->image, y->image);

	return k ? k : strcmp(x->proc, y->proc);
}

static int write_folded(struct exp *x, const struct tl_view_image *const *sel, size_t nsel)
{
	struct fold *f = NULL;
	size_t nf = 0;
	int ret = 0;

	for (size_t i = 0; i < nsel && !ret; i++) {
		struct insn *r;
		size_t n;
		struct fold *nfp;

		if (!sel[i]->prof)
			continue;
		ret = image_insns(x, sel[i], &r, &n);
		if (ret)
			break;
		nfp = realloc(f, (nf + n + 1) * sizeof(*f));
		if (!nfp) {
			free(r);
			ret = -ENOMEM;
			break;
		}
		f = nfp;
		for (size_t k = 0; k < n; k++) {
			char buf[300];

			f[nf].image = base_name(sel[i]->name);
			snprintf(f[nf].proc, sizeof(f[nf].proc), "%s",
				 proc_name(sel[i], r[k].offset, buf, sizeof(buf)));
			f[nf++].count = r[k].c[0];
		}
		free(r);
	}
	if (nf > 1)
		qsort(f, nf, sizeof(*f), fold_cmp);
	for (size_t i = 0; i < nf && !ret;) {
		size_t h = i;
		uint64_t c = 0;

		for (; i < nf && !fold_cmp(&f[i], &f[h]); i++)
			c += f[i].count;
		if (c)
			fprintf(x->out, "%s;%s %" PRIu64 "\n", f[h].image, f[h].proc, c);
	}
	if (!ret && x->v.unknown_total[x->ev[0]] && (!x->ro.image || !*x->ro.image))
		fprintf(x->out, "[unknown] %" PRIu64 "\n", x->v.unknown_total[x->ev[0]]);
	free(f);
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
	ret = x->fmt == F_PPROF	 ? write_pprof(x, sel, n) :
	      x->fmt == F_FOLDED ? write_folded(x, sel, n) :
				   write_csv(x, sel, n);
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
