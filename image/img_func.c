/* image/img_func.c - functions: the primary table's code symbols sorted by address. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "img_int.h"

static int cmp_func(const void *pa, const void *pb)
{
	const struct img_symbol *a = *(const struct img_symbol *const *)pa;
	const struct img_symbol *b = *(const struct img_symbol *const *)pb;
	int la = a->bind == STB_LOCAL, lb = b->bind == STB_LOCAL;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	if (la != lb)
		return la - lb;
	return a < b ? -1 : a > b;
}

static bool is_function(const struct img *im, const struct img_symbol *s)
{
	const struct img_section *sec;

	if (s->type != STT_FUNC && s->type != STT_GNU_IFUNC)
		return false;
	sec = img_section_by_index(im, s->shndx);
	/* A symbol-only image (the daemon's kernel symbol files, daemon/dmn_kelf.c) has its code
	 * section SHT_NOBITS: its functions have names and addresses, and no bytes to read. */
	return sec && (img_section_is_code(sec) ||
		       (sec->type == SHT_NOBITS && (sec->flags & SHF_EXECINSTR)));
}

int img_load_functions(struct img *im, struct ax_error *err)
{
	size_t nsyms = img_nsymbols(im), n = 0;

	if (!nsyms)
		return 0;
	im->funcs = calloc(nsyms, sizeof(*im->funcs));
	if (!im->funcs)
		return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
	for (size_t i = 0; i < nsyms; i++)
		if (is_function(im, img_symbol(im, i)))
			im->funcs[n++] = img_symbol(im, i);
	qsort(im->funcs, n, sizeof(*im->funcs), cmp_func);
	im->nfuncs = 0;
	for (size_t i = 0; i < n; i++) /* one per address: the first after sorting */
		if (!im->nfuncs || im->funcs[im->nfuncs - 1]->value != im->funcs[i]->value)
			im->funcs[im->nfuncs++] = im->funcs[i];
	return 0;
}

size_t img_nfunctions(const struct img *im)
{
	return im->nfuncs;
}

const struct img_symbol *img_function(const struct img *im, size_t i)
{
	return i < im->nfuncs ? im->funcs[i] : NULL;
}

const struct img_symbol *img_function_at(const struct img *im, uint64_t addr)
{
	size_t lo = 0, hi = im->nfuncs;
	const struct img_symbol *f;
	uint64_t end;

	while (lo < hi) { /* first function starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (im->funcs[mid]->value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	f = im->funcs[lo - 1];
	if (f->size)
		end = f->value + f->size;
	else if (lo < im->nfuncs)
		end = im->funcs[lo]->value;
	else
		return img_section_at(im, addr) ? f : NULL;
	return addr < end ? f : NULL;
}
