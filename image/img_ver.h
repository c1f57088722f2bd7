/* image/img_ver.h - GNU symbol versions (private to image/): the version table of .dynsym. */
#ifndef IMG_VER_H
#define IMG_VER_H

#include "img_int.h"

/* Version names by version index (.gnu.version_d, then .gnu.version_r). */
struct img_vertab {
	Elf_Data *versym; /* .gnu.version, or NULL: no versions */
	const char **name; /* [index], pointing into the file's string table */
	bool *need; /* [index]: from a version need (objdump prints one '@') */
	size_t n; /* entries (max index + 1) */
	size_t ndefs; /* highest definition index (binutils' cverdefs) */
	bool base_is_file; /* definition 1 carries VER_FLG_BASE */
};

/* Read the versions of a .dynsym of nsyms entries (with the null one); 0 or -ENOMEM. */
int img_vertab_load(const struct img *im, size_t nsyms, struct img_vertab *vt);
/* Set sym->version and ->version_hidden from .gnu.version entry i. */
void img_vertab_apply(const struct img_vertab *vt, size_t i, struct img_symbol *sym);
void img_vertab_free(struct img_vertab *vt);

#endif /* IMG_VER_H */
