/* tools/lib/tl_codesym.h - code symbols that are not functions (assembly routines). */
#ifndef TL_CODESYM_H
#define TL_CODESYM_H

#include <stdint.h>

#include "img.h"

/*
 * Hand-written assembly routines are often STT_NOTYPE symbols with a size in a code section
 * (glibc's Alpha __divqu, __remqu, __reml: the integer division routines every `/` and `%`
 * calls), so they are not in the image's function list (img_function_at) and a sample in them
 * would have no name. The views name an address no function holds by such a symbol: the
 * primary table's first defined STT_NOTYPE symbol of non-zero size, in a code section, that
 * holds addr (tl_code_sym_at), or that is called name (tl_code_sym_named). NULL when none.
 */
const struct img_symbol *tl_code_sym_at(const struct img *im, uint64_t addr);
const struct img_symbol *tl_code_sym_named(const struct img *im, const char *name);

#endif /* TL_CODESYM_H */
