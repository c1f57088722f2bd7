/* tools/lib/tl_lines.c - samples per source line: the DWARF line of each sampled instruction. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_lines.h"

struct ent {
	size_t im; /* index in sel */
	const char *file;
	unsigned int line;
	unsigned int col;
	uint64_t count;
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	int k;

	if (x->im != y->im)
		return x->im < y->im ? -1 : 1;
	if (!x->file || !y->file)
		return !x->file - !y->file;
	k = strcmp(x->file, y->file);
	if (k)
		return k;
	return (x->line > y->line) - (x->line < y->line);
}

static bool same(const struct ent *x, const struct ent *y)
{
	return x->im == y->im && x->line == y->line &&
	       (x->file == y->file || (x->file && y->file && !strcmp(x->file, y->file)));
}

int tl_line_rows(const struct tl_view_image *const *sel, size_t nsel, const unsigned int *ev,
		 unsigned int nev, struct tl_line_row **out, size_t *n)
{
	struct ent *e = NULL;
	struct tl_line_row *rows;
	size_t ne = 0, cap = 0, nr = 0;

	*out = NULL;
	*n = 0;
	if (nev > TL_LINE_COLS)
		return -EINVAL;
	for (size_t i = 0; i < nsel; i++) {
		if (!sel[i]->prof)
			continue;
		for (unsigned int k = 0; k < nev; k++) {
			struct pdb_count *cs = NULL;
			size_t nc = 0;

			if (pdb_prof_samples(sel[i]->prof, ev[k], &cs, &nc))
				goto nomem;
			if (ne + nc > cap) {
				size_t ncap = (ne + nc) * 2 + 64;
				struct ent *ne2 = realloc(e, ncap * sizeof(*ne2));

				if (!ne2) {
					free(cs);
					goto nomem;
				}
				e = ne2;
				cap = ncap;
			}
			for (size_t j = 0; j < nc; j++) {
				struct img_line ln;
				bool has = tl_view_line(sel[i], cs[j].offset, &ln);

				e[ne++] = (struct ent){ i, has ? ln.file : NULL, has ? ln.line : 0,
							k, cs[j].count };
			}
			free(cs);
		}
	}
	if (ne > 1)
		qsort(e, ne, sizeof(*e), ent_cmp);
	rows = calloc(ne ? ne : 1, sizeof(*rows));
	if (!rows)
		goto nomem;
	for (size_t i = 0; i < ne;) {
		size_t head = i;
		struct tl_line_row *r = &rows[nr++];

		r->im = sel[e[head].im];
		r->file = e[head].file;
		r->line = e[head].line;
		for (; i < ne && same(&e[i], &e[head]); i++)
			r->c[e[i].col] += e[i].count;
	}
	free(e);
	*out = rows;
	*n = nr;
	return 0;
nomem:
	free(e);
	return -ENOMEM;
}
