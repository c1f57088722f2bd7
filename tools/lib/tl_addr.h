/* tools/lib/tl_addr.h - naming a value that points into an image: "sym+0xoff". */
#ifndef TL_ADDR_H
#define TL_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ax_json.h"
#include "tl_view.h"

/*
 * A value a program produced (a vprof hotlist value) that falls in a symbol of an image of the
 * view, data or text (STT_OBJECT, STT_FUNC, STT_GNU_IFUNC, STT_NOTYPE with a size; PLT slots as
 * name@plt), is named by that symbol and the offset into it (issue 16 item 7: "pointer values that
 * fall in an image's symbols"). Only images loaded at their ELF addresses (ET_EXEC) are looked in:
 * the database keeps no load address of a shared object or PIE, so their run-time addresses are
 * not known and a guess could name the wrong symbol. A symbol of size 0 names only its own address.
 *
 * `from` is the image of the instruction that produced the value (NULL: unknown). A value can only
 * point into its own process's executable: when `from` is one (ET_EXEC), only it is looked in;
 * otherwise every executable of the view is, and a value that more than one of them would name
 * (executables of different processes share addresses) is left unnamed rather than guessed.
 *
 * tl_addr_sym: true and "name+0xoff" (or "name" at offset 0; the name as tl_sym_name prints it)
 * in buf, else false and buf "". tl_addr_json: the key ("symbol" for a value) when named.
 */
bool tl_addr_sym(const struct tl_view *v, const struct tl_view_image *from, uint64_t value,
		 char *buf, size_t size);
void tl_addr_json(struct ax_json *j, const char *key, const struct tl_view *v,
		  const struct tl_view_image *from, uint64_t value);

#endif /* TL_ADDR_H */
