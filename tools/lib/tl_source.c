/* tools/lib/tl_source.c - source files for annotate: found by DWARF's names, read once, by line. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_source.h"

struct src_file {
	char *key; /* comp_dir + "\n" + file: one entry per DWARF name */
	char *where; /* the path read, or the paths tried */
	char *text; /* NULL: not found */
	char **line; /* line[i] is line i + 1, NUL-terminated inside text */
	size_t nlines;
};

struct tl_sources {
	char *dir;
	struct src_file *f;
	size_t n;
};

struct tl_sources *tl_sources_new(const char *dir)
{
	struct tl_sources *s = calloc(1, sizeof(*s));

	if (s && dir && !(s->dir = strdup(dir))) {
		free(s);
		return NULL;
	}
	return s;
}

void tl_sources_free(struct tl_sources *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->f[i].key);
		free(s->f[i].where);
		free(s->f[i].text);
		free(s->f[i].line);
	}
	free(s->f);
	free(s->dir);
	free(s);
}

/* Read path whole and split it into lines; false when it cannot be read. */
static bool read_lines(struct src_file *f, const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t cap = 0, len = 0, n = 0;
	char *t = NULL;

	if (!fp)
		return false;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nt = realloc(t, cap = 2 * cap + 8192);

			if (!nt) {
				free(t);
				fclose(fp);
				return false;
			}
			t = nt;
		}
		size_t got = fread(t + len, 1, 4096, fp);

		len += got;
		if (got < 4096)
			break;
	}
	fclose(fp);
	t[len] = '\0';
	for (size_t i = 0; i < len; i++)
		n += t[i] == '\n';
	f->line = calloc(n + 1, sizeof(*f->line));
	if (!f->line) {
		free(t);
		return false;
	}
	for (char *p = t; *p && f->nlines <= n;) {
		char *nl = strchr(p, '\n');

		f->line[f->nlines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	f->text = t;
	return true;
}

static const char *base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

/* Try the candidate paths in order (see the header); f->where says what happened. */
static void find(struct tl_sources *s, struct src_file *f, const struct img_line *ln)
{
	char cand[3][4096], tried[3 * 4096 + 16] = "";
	int nc = 0;

	if (s->dir) {
		if (ln->file[0] != '/')
			snprintf(cand[nc++], sizeof(cand[0]), "%s/%s", s->dir, ln->file);
		snprintf(cand[nc++], sizeof(cand[0]), "%s/%s", s->dir, base(ln->file));
	} else if (ln->file[0] == '/') {
		snprintf(cand[nc++], sizeof(cand[0]), "%s", ln->file);
	} else {
		if (ln->comp_dir)
			snprintf(cand[nc++], sizeof(cand[0]), "%s/%s", ln->comp_dir, ln->file);
		snprintf(cand[nc++], sizeof(cand[0]), "%s", ln->file);
	}
	for (int i = 0; i < nc; i++) {
		if (read_lines(f, cand[i])) {
			f->where = strdup(cand[i]);
			return;
		}
		if (i)
			strcat(tried, ", ");
		strcat(tried, cand[i]);
	}
	f->where = strdup(tried);
}

const char *tl_source_line(struct tl_sources *s, const struct img_line *ln, bool *first,
			   const char **where)
{
	char key[8200];
	struct src_file *f = NULL;

	*first = false;
	*where = "";
	snprintf(key, sizeof(key), "%s\n%s", ln->comp_dir ? ln->comp_dir : "", ln->file);
	for (size_t i = 0; i < s->n && !f; i++)
		if (!strcmp(s->f[i].key, key))
			f = &s->f[i];
	if (!f) {
		struct src_file *nf = realloc(s->f, (s->n + 1) * sizeof(*nf));

		if (!nf)
			return NULL;
		s->f = nf;
		f = &s->f[s->n];
		memset(f, 0, sizeof(*f));
		f->key = strdup(key);
		if (!f->key)
			return NULL;
		s->n++;
		find(s, f, ln);
		*first = true;
	}
	*where = f->where ? f->where : "";
	if (!f->text || ln->line == 0 || ln->line > f->nlines)
		return NULL;
	return f->line[ln->line - 1];
}
