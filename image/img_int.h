/* image/img_int.h - the image reader's private state, shared by its files. */
#ifndef IMG_INT_H
#define IMG_INT_H

#include <gelf.h>
#include <libelf.h>

#include "img.h"

struct img_symtab_data {
	struct img_symbol *syms;
	size_t nsyms;
	char *versioned; /* pool of the "name@@VER" strings */
};

struct img {
	char *path;
	uint8_t *image; /* the whole file */
	size_t image_size;
	int64_t mtime_ns;
	Elf *elf;
	unsigned int type;
	unsigned int machine;
	uint64_t entry;
	struct img_segment *segs; /* PT_LOAD */
	size_t nsegs;
	char *interp; /* PT_INTERP, NUL-terminated copy, or NULL */
	uint64_t dyn_va;
	bool has_dyn;
	const uint8_t *build_id; /* points into image */
	size_t build_id_len;
	struct img_section *secs; /* index i holds section header i + 1 */
	size_t nsecs;
	struct img_symtab_data tab[2]; /* [IMG_SYMTAB], [IMG_DYNSYM] */
	bool from_symtab; /* the primary table is .symtab */
	const struct img_symbol **funcs;
	size_t nfuncs;
	struct img_symbol *plt; /* the PLT slots "name@plt", by address (img_plt.c) */
	size_t nplt;
	char *plt_names; /* pool of their names */
};

/* Loaders run in this order by img_open; each returns 0 or a -Exxx with err filled. */
int img_load_phdrs(struct img *im, struct ax_error *err); /* img_phdr.c */
int img_load_sections(struct img *im, struct ax_error *err); /* img_sec.c */
int img_load_build_id(struct img *im); /* img_note.c */
int img_load_symbols(struct img *im, struct ax_error *err); /* img_sym.c */
int img_load_functions(struct img *im, struct ax_error *err); /* img_func.c */
int img_load_plt(struct img *im, struct ax_error *err); /* img_plt.c */
void img_free_symbols(struct img *im);

static inline bool img_range_ok(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

#endif /* IMG_INT_H */
