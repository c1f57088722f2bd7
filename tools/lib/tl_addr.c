/* tools/lib/tl_addr.c - naming a value that points into an image: "sym+0xoff". */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tl_addr.h"
#include "tl_sym.h"

static bool is_addressed(const struct img_symbol *s)
{
	if (s->shndx == IMG_SHN_UNDEF || s->shndx == IMG_SHN_ABS || s->shndx == IMG_SHN_COMMON)
		return false;
	if (!s->name[0])
		return false;
	switch (s->type) {
	case STT_OBJECT:
	case STT_FUNC:
	case STT_GNU_IFUNC:
		return true;
	case STT_NOTYPE:
		return s->size != 0;
	default: /* sections, files, TLS offsets */
		return false;
	}
}

static int by_value(const void *a, const void *b)
{
	const struct img_symbol *x = *(const struct img_symbol *const *)a;
	const struct img_symbol *y = *(const struct img_symbol *const *)b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* the larger first, then a global before a local: the one to name a shared address */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (y->bind == STB_GLOBAL) - (x->bind == STB_GLOBAL);
}

/* The image's addressed symbols sorted by address, built on first use (as tl_view_lines). */
static void index_syms(const struct tl_view_image *im)
{
	struct tl_view_image *m = (struct tl_view_image *)im;
	size_t n, k = 0;

	m->addr_tried = true;
	if (!m->elf || img_type(m->elf) != ET_EXEC)
		return;
	n = img_nsymbols(m->elf);
	if (!n)
		return;
	m->addr_syms = malloc(n * sizeof(*m->addr_syms));
	if (!m->addr_syms)
		return; /* values are then printed bare, which is still right */
	for (size_t i = 0; i < n; i++)
		if (is_addressed(img_symbol(m->elf, i)))
			m->addr_syms[k++] = img_symbol(m->elf, i);
	if (k > 1)
		qsort(m->addr_syms, k, sizeof(*m->addr_syms), by_value);
	m->naddr_syms = k;
}

/* The symbol of im holding value, or NULL. */
static const struct img_symbol *find(const struct tl_view_image *im, uint64_t value)
{
	size_t lo = 0, hi;

	if (!im->addr_tried)
		index_syms(im);
	hi = im->naddr_syms;
	while (lo < hi) { /* the first symbol above value */
		size_t mid = lo + (hi - lo) / 2;

		if (im->addr_syms[mid]->value <= value)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* symbols at or below value, nearest first: the first that holds it (nested objects) */
	for (size_t i = lo; i-- > 0;) {
		const struct img_symbol *s = im->addr_syms[i];

		if (value == s->value || value - s->value < s->size)
			return s;
		if (lo - i >= 64) /* far enough: no symbol reaches over this many */
			break;
	}
	return NULL;
}

/* The symbol of image im (an executable) naming value, or NULL. */
static const struct img_symbol *in_image(const struct tl_view_image *im, uint64_t value)
{
	const struct img_symbol *s;

	if (!im->elf || img_type(im->elf) != ET_EXEC)
		return NULL;
	s = img_plt_at(im->elf, value);
	return s ? s : find(im, value);
}

bool tl_addr_sym(const struct tl_view *v, const struct tl_view_image *from, uint64_t value,
		 char *buf, size_t size)
{
	const struct img_symbol *s = NULL;

	if (from && from->elf && img_type(from->elf) == ET_EXEC) {
		s = in_image(from, value);
	} else {
		for (size_t i = 0; i < v->n; i++) {
			const struct img_symbol *t = in_image(&v->im[i], value);

			if (t && s) { /* two processes' executables: which one is not known */
				s = NULL;
				break;
			}
			if (t)
				s = t;
		}
	}
	if (s) {
		if (value == s->value)
			snprintf(buf, size, "%s", tl_sym_name(s->name));
		else
			snprintf(buf, size, "%s+0x%" PRIx64, tl_sym_name(s->name),
				 value - s->value);
		return true;
	}
	if (size)
		buf[0] = '\0';
	return false;
}

void tl_addr_json(struct ax_json *j, const char *key, const struct tl_view *v,
		  const struct tl_view_image *from, uint64_t value)
{
	char buf[512];

	if (tl_addr_sym(v, from, value, buf, sizeof(buf)))
		ax_json_str(j, key, buf);
}
