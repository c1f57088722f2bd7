/* tools/lib/tl_view.c - reading the profile database for the report tools (report, vprof, vreplay). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isa_dis.h"
#include "tl_codesym.h"
#include "tl_sym.h"
#include "tl_view.h"

static void add_totals(uint64_t *total, const struct pdb_prof *p)
{
	for (unsigned int e = 0; e < PDB_EV_MAX; e++)
		total[e] += pdb_prof_total(p, e);
}

/* The image file of a database image: symbols and code for the reports, or why there are none. */
static void open_image(struct tl_view_image *im)
{
	img_open(im->img.path, 0, &im->elf, &im->elf_err);
}

/* --skip-damaged with a damaged DIR/current: the newest epoch, current's damage recorded. */
static int newest_epoch(struct tl_view *v, uint32_t *epoch)
{
	char path[4096];
	uint32_t *ep;
	size_t n;
	int ret;

	snprintf(path, sizeof(path), "%s/current", pdb_dir(v->db));
	if (pdb_skips_add(&v->skipped, path, pdb_errmsg(v->db)))
		return -ENOMEM;
	ret = pdb_epoch_list(v->db, &ep, &n);
	if (ret)
		return ret;
	*epoch = n ? ep[n - 1] : 0;
	free(ep);
	return n ? 0 : -ENOENT;
}

int tl_view_open(struct tl_view *v, const char *dir, uint32_t epoch, struct ax_error *err)
{
	return tl_view_open_opt(v, dir, epoch, 0, err);
}

int tl_view_open_opt(struct tl_view *v, const char *dir, uint32_t epoch, unsigned int flags,
		     struct ax_error *err)
{
	unsigned int lf = (flags & TL_VIEW_SKIP_DAMAGED) ? PDB_LOAD_SKIP_DAMAGED : 0;
	struct pdb_image *list = NULL;
	size_t n = 0;
	int ret;

	memset(v, 0, sizeof(*v));
	ret = pdb_open(dir, false, &v->db, err);
	if (ret)
		return ret;
	if (!epoch) {
		ret = pdb_epoch_current(v->db, &epoch);
		if (ret == -EBADMSG && lf)
			ret = newest_epoch(v, &epoch);
		if (ret)
			goto out_err;
	}
	v->epoch = epoch;
	v->skip_damaged = lf != 0;
	ret = pdb_image_list_opt(v->db, epoch, lf, &list, &n, &v->skipped);
	if (ret)
		goto out_err;
	v->im = calloc(n ? n : 1, sizeof(*v->im));
	if (!v->im) {
		pdb_image_list_free(list, n);
		ret = ax_fail(err, -ENOMEM, "out of memory");
		goto out_close;
	}
	for (size_t i = 0; i < n; i++) {
		struct tl_view_image *im = &v->im[v->n];

		im->img = list[i];
		im->img.path = strdup(list[i].path ? list[i].path : "");
		if (!im->img.path) {
			ret = -ENOMEM;
			break;
		}
		v->n++;
		im->name = im->img.path[0] ? im->img.path : im->img.key;
		ret = pdb_load_opt(v->db, epoch, im->img.key, lf, &im->prof, &v->skipped);
		if (ret == -ENOENT) {
			im->prof = NULL;
		} else if (ret) {
			break;
		} else {
			add_totals(im->total, im->prof);
			add_totals(v->total, im->prof);
			v->events |= pdb_prof_events(im->prof);
		}
		ret = 0;
		if (im->img.path[0])
			open_image(im);
		else
			ax_fail(&im->elf_err, -ENOENT, "path not recorded");
	}
	pdb_image_list_free(list, n);
	if (ret)
		goto out_err;
	ret = pdb_load_opt(v->db, epoch, PDB_KEY_UNKNOWN, lf, &v->unknown, &v->skipped);
	if (ret == -ENOENT) {
		v->unknown = NULL;
	} else if (ret) {
		goto out_err;
	} else {
		struct pdb_unknown *u = NULL;
		size_t nu = 0;

		ret = pdb_prof_unknowns(v->unknown, &u, &nu);
		if (ret)
			goto out_err;
		for (size_t i = 0; i < nu; i++) {
			if (u[i].event >= PDB_EV_MAX)
				continue;
			v->unknown_total[u[i].event] += u[i].count;
			v->total[u[i].event] += u[i].count;
			v->events |= 1u << u[i].event;
		}
		free(u);
	}
	return 0;

out_err:
	/* The database's own report (with the line and offset of any damage), else the errno. */
	if (err && pdb_errmsg(v->db)[0]) {
		*err = *pdb_last_error(v->db);
		err->code = ret;
	} else {
		ax_fail(err, ret, "%s", strerror(-ret));
	}
out_close:
	tl_view_close(v);
	return ret;
}

void tl_view_close(struct tl_view *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free((char *)v->im[i].img.path);
		pdb_prof_free(v->im[i].prof);
		img_lines_close(v->im[i].lines);
		free(v->im[i].addr_syms);
		img_close(v->im[i].elf);
	}
	free(v->im);
	pdb_prof_free(v->unknown);
	pdb_skips_free(&v->skipped);
	pdb_close(v->db);
	memset(v, 0, sizeof(*v));
}

/* The message without its leading "FILE: " (the file is printed before it). */
static const char *why_of(const struct pdb_skip *k)
{
	size_t n = strlen(k->file);

	if (!strncmp(k->why, k->file, n) && !strncmp(k->why + n, ": ", 2))
		return k->why + n + 2;
	return k->why;
}

void tl_skips_warn(const struct pdb_skips *s, const char *cmd)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(stderr, "%s: skipped damaged %s: %s\n", cmd, s->v[i].file,
			why_of(&s->v[i]));
}

void tl_skips_text(FILE *f, const struct pdb_skips *s)
{
	if (!s->n)
		return;
	fprintf(f, "Skipped (damaged; --skip-damaged): the numbers below leave out these files\n");
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "  skipped damaged %s: %s\n", s->v[i].file, why_of(&s->v[i]));
	fprintf(f, "\n");
}

void tl_skips_json(struct ax_json *j, const struct pdb_skips *s)
{
	ax_json_arr_open(j, "skipped");
	for (size_t i = 0; i < s->n; i++) {
		ax_json_obj_open(j, NULL);
		ax_json_str(j, "file", s->v[i].file);
		ax_json_str(j, "why", why_of(&s->v[i]));
		ax_json_obj_close(j);
	}
	ax_json_arr_close(j);
}

int tl_view_open_ro(struct tl_view *v, const struct tl_ropts *o, struct ax_error *err)
{
	int ret;

	ret = tl_view_open_opt(v, o->db, o->epoch, o->skip_damaged ? TL_VIEW_SKIP_DAMAGED : 0, err);
	if (ret)
		return ret;
	tl_skips_warn(&v->skipped, o->cmd);
	if (!o->json)
		tl_skips_text(stdout, &v->skipped);
	return 0;
}

void tl_view_json_skipped(struct ax_json *j, const struct tl_view *v)
{
	if (v->skip_damaged)
		tl_skips_json(j, &v->skipped);
}

static bool matches(const struct tl_view_image *im, const char *sel)
{
	const char *base;

	if (!sel || !*sel)
		return true;
	if (!strcmp(im->img.key, sel) || !strcmp(im->img.path, sel))
		return true;
	base = strrchr(im->img.path, '/');
	return base && !strcmp(base + 1, sel);
}

int tl_name_cmp(const char *a, const char *b)
{
	const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
	int k = strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b);

	return k ? k : strcmp(a, b);
}

static unsigned int sort_event;

static int by_samples(const void *a, const void *b)
{
	const struct tl_view_image *x = *(const struct tl_view_image *const *)a;
	const struct tl_view_image *y = *(const struct tl_view_image *const *)b;

	if (x->total[sort_event] != y->total[sort_event])
		return x->total[sort_event] > y->total[sort_event] ? -1 : 1;
	return tl_name_cmp(x->name, y->name);
}

size_t tl_view_select(const struct tl_view *v, const char *sel, unsigned int event,
		      const struct tl_view_image **out)
{
	size_t k = 0;

	for (size_t i = 0; i < v->n; i++)
		if (matches(&v->im[i], sel))
			out[k++] = &v->im[i];
	sort_event = event < PDB_EV_MAX ? event : 0;
	if (k > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(out, k, sizeof(*out), by_samples);
	return k;
}

bool tl_view_has_proc(const struct tl_view *v, const char *sel, const char *name)
{
	uint64_t b, e;
	const char *pn;

	for (size_t i = 0; i < v->n; i++)
		if (matches(&v->im[i], sel) && tl_view_proc_bounds(&v->im[i], name, 0, &pn, &b, &e))
			return true;
	return false;
}

const char *tl_view_proc(const struct tl_view_image *im, uint64_t offset, uint64_t *start)
{
	const char *name;
	uint64_t b, e;

	if (!tl_view_proc_bounds(im, NULL, offset, &name, &b, &e))
		return NULL;
	if (start)
		*start = b;
	return name;
}

/* An assembly routine's symbol as a procedure (tl_codesym.h): false for NULL. */
static bool code_sym(const struct img_symbol *s, const char **pname, uint64_t *start, uint64_t *end)
{
	if (!s)
		return false;
	*pname = tl_sym_name(s->name);
	*start = s->value;
	*end = s->value + s->size;
	return true;
}

bool tl_view_proc_bounds(const struct tl_view_image *im, const char *name, uint64_t offset,
			 const char **pname, uint64_t *start, uint64_t *end)
{
	const struct img_symbol *s = NULL;
	const struct img_section *sec;
	size_t i, n;

	if (!im->elf)
		return false;
	n = img_nfunctions(im->elf);
	if (name) {
		for (i = 0; i < n; i++)
			if (tl_sym_matches(img_function(im->elf, i)->name, name))
				break;
	} else {
		s = img_plt_at(im->elf, offset);
		if (s) { /* a PLT slot: name@plt (the PLT has no function symbols) */
			*pname = tl_sym_name(s->name);
			*start = s->value;
			*end = s->value + s->size;
			return true;
		}
		s = img_function_at(im->elf, offset);
		if (!s)
			return code_sym(tl_code_sym_at(im->elf, offset), pname, start, end);
		for (i = 0; i < n; i++)
			if (img_function(im->elf, i)->value == s->value)
				break;
	}
	if (i >= n)
		return name && code_sym(tl_code_sym_named(im->elf, name), pname, start, end);
	s = img_function(im->elf, i);
	*pname = tl_sym_name(s->name);
	*start = s->value;
	if (s->size)
		*end = s->value + s->size;
	else if (i + 1 < n)
		*end = img_function(im->elf, i + 1)->value;
	else if ((sec = img_section_at(im->elf, s->value)))
		*end = sec->addr + sec->size;
	else
		*end = s->value + 4;
	return name || offset < *end;
}

bool tl_view_insn(const struct tl_view_image *im, uint64_t offset, uint32_t *word, char *buf,
		  size_t size)
{
	uint32_t w = 0;

	*word = 0;
	if (!im->elf || img_read32(im->elf, offset, &w)) {
		snprintf(buf, size, "?");
		return false;
	}
	*word = w;
	if (isa_dis_format(w, offset, NULL, buf, size) < 0)
		snprintf(buf, size, ".long 0x%08x", w);
	/* "ldq\tt1,-8(a0)" -> "ldq t1,-8(a0)"; objdump's trailing tabs ("nop\t") go. */
	for (char *t = buf; *t; t++)
		if (*t == '\t')
			*t = ' ';
	for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--)
		buf[n - 1] = 0;
	return true;
}

const char *tl_event_lower(unsigned int event, char *buf, size_t size)
{
	const char *n = pdb_event_name(event);

	snprintf(buf, size, "%s", n ? n : "?");
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return buf;
}

int tl_event_parse(const char *name)
{
	char up[32];
	size_t i;

	for (i = 0; name[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[i] = 0;
	if (!strcmp(up, "REPLAYS"))
		return PDB_EV_REPLAY;
	if (!strcmp(up, "INSNS") || !strcmp(up, "INSTRUCTIONS"))
		return PDB_EV_RETIRED;
	return pdb_event_id(up);
}

const char *tl_dest_name(unsigned int dest, char *buf, size_t size)
{
	if (dest < 32)
		snprintf(buf, size, "%s", isa_dis_ireg_name(dest));
	else
		snprintf(buf, size, "$f%u", dest - 32);
	return buf;
}

/*
 * The DWARF is read on first use, so that the views that show no lines never hand an image's
 * debug sections to libdw. The image is the view's own (allocated by tl_view_open, not const):
 * the lazily filled fields are written through a non-const pointer to it.
 */
const struct img_lines *tl_view_lines(const struct tl_view_image *im, const char **why)
{
	struct tl_view_image *m = (struct tl_view_image *)im;

	if (!m->lines_tried) {
		m->lines_tried = true;
		if (!m->elf)
			ax_fail(&m->lines_err, -ENOENT, "%s", m->elf_err.msg);
		else
			img_lines_open(m->elf, &m->lines, &m->lines_err);
	}
	if (why)
		*why = m->lines ? "" : m->lines_err.msg;
	return m->lines;
}

bool tl_view_line(const struct tl_view_image *im, uint64_t offset, struct img_line *out)
{
	const struct img_lines *l = tl_view_lines(im, NULL);

	return l && img_line_at(l, offset, out) && out->line;
}

const char *tl_view_line_str(const struct tl_view_image *im, uint64_t offset, char *buf,
			     size_t size)
{
	struct img_line ln;
	const char *b;

	if (!tl_view_line(im, offset, &ln)) {
		buf[0] = '\0';
		return buf;
	}
	b = strrchr(ln.file, '/');
	snprintf(buf, size, "%s:%u", b ? b + 1 : ln.file, ln.line);
	return buf;
}

void tl_view_line_json(struct ax_json *j, const struct tl_view_image *im, uint64_t offset)
{
	struct img_line ln;

	if (!tl_view_line(im, offset, &ln))
		return;
	ax_json_str(j, "file", ln.file);
	ax_json_u64(j, "line", ln.line);
}
