/* tools/lib/tl_codesym.c - code symbols that are not functions (assembly routines). */
#include <elf.h>
#include <stdbool.h>

#include "tl_codesym.h"
#include "tl_sym.h"

static bool is_code_sym(const struct img *im, const struct img_symbol *s)
{
	const struct img_section *sec;

	if (s->type != STT_NOTYPE || !s->size || !s->name[0] || s->shndx == IMG_SHN_UNDEF ||
	    s->shndx == IMG_SHN_ABS || s->shndx == IMG_SHN_COMMON)
		return false;
	sec = img_section_by_index(im, s->shndx);
	return sec && img_section_is_code(sec);
}

const struct img_symbol *tl_code_sym_at(const struct img *im, uint64_t addr)
{
	size_t n = img_nsymbols(im);

	for (size_t i = 0; i < n; i++) {
		const struct img_symbol *s = img_symbol(im, i);

		if (addr >= s->value && addr - s->value < s->size && is_code_sym(im, s))
			return s;
	}
	return NULL;
}

const struct img_symbol *tl_code_sym_named(const struct img *im, const char *name)
{
	size_t n = img_nsymbols(im);

	for (size_t i = 0; i < n; i++) {
		const struct img_symbol *s = img_symbol(im, i);

		if (tl_sym_matches(s->name, name) && is_code_sym(im, s))
			return s;
	}
	return NULL;
}
