/* image/img_sym.c - symbols: .symtab and .dynsym, with the versioned names of dynamic ones. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "img_ver.h"

static const char *str_at(Elf *elf, size_t strndx, size_t off)
{
	const char *s = elf_strptr(elf, strndx, off);

	return s ? s : "";
}

static const struct img_section *first_of_type(const struct img *im, uint32_t type)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (im->secs[i].type == type)
			return &im->secs[i];
	return NULL;
}

static int check_table(const struct img *im, const struct img_section *tab, Elf_Data **d,
		       struct ax_error *err)
{
	Elf_Scn *scn;

	*d = NULL;
	if (tab->size == 0)
		return 0;
	if (tab->entsize != sizeof(Elf64_Sym) || tab->size % sizeof(Elf64_Sym))
		return AX_CORRUPT(err, im->path, tab->offset,
				  "damaged symbol table %s (entry size %llu)", tab->name,
				  (unsigned long long)tab->entsize);
	if (tab->link >= im->nsecs + 1)
		return AX_CORRUPT(err, im->path, tab->offset,
				  "damaged symbol table %s (string table %u)", tab->name,
				  tab->link);
	scn = elf_getscn(im->elf, tab->index);
	*d = scn ? elf_getdata(scn, NULL) : NULL;
	if ((!*d || (*d)->d_size < tab->size))
		return AX_CORRUPT(err, im->path, tab->offset, "cannot read symbol table %s: %s",
				  tab->name, elf_errmsg(-1));
	return 0;
}

/* Symbol i of table tab into sym; false when libelf cannot read it. */
static bool fill_symbol(const struct img *im, const struct img_section *tab, Elf_Data *d, size_t i,
			struct img_symbol *sym)
{
	const struct img_section *sec = NULL;
	GElf_Sym gs;

	if (!gelf_getsym(d, (int)i, &gs))
		return false;
	sym->name = str_at(im->elf, tab->link, gs.st_name);
	sym->type = GELF_ST_TYPE(gs.st_info);
	sym->bind = GELF_ST_BIND(gs.st_info);
	sym->size = gs.st_size;
	sym->value = gs.st_value;
	sym->dynamic = tab->type == SHT_DYNSYM;
	if (gs.st_shndx == SHN_UNDEF || gs.st_shndx == SHN_ABS || gs.st_shndx == SHN_COMMON) {
		sym->shndx = gs.st_shndx;
	} else {
		sec = img_section_by_index(im, gs.st_shndx);
		/* binutils puts symbols of unknown sections in the absolute section */
		sym->shndx = sec ? gs.st_shndx : IMG_SHN_ABS;
	}
	if (sec && im->type == ET_REL)
		sym->value += sec->addr;
	if (sym->type == STT_SECTION && !*sym->name && sec)
		sym->name = sec->name;
	return true;
}

/* "name@@VER" / "name@VER" for every versioned symbol, in one pool. */
static int make_versioned(struct img_symtab_data *t)
{
	size_t total = 0, at = 0;

	for (size_t i = 0; i < t->nsyms; i++) {
		t->syms[i].versioned = t->syms[i].name;
		if (t->syms[i].version && !t->syms[i].version_base)
			total += strlen(t->syms[i].name) + strlen(t->syms[i].version) + 3;
	}
	if (!total)
		return 0;
	t->versioned = malloc(total);
	if (!t->versioned)
		return -ENOMEM;
	for (size_t i = 0; i < t->nsyms; i++) {
		struct img_symbol *s = &t->syms[i];
		int n;

		if (!s->version || s->version_base)
			continue;
		n = snprintf(t->versioned + at, total - at, "%s%s%s", s->name,
			     s->version_hidden ? "@" : "@@", s->version);
		s->versioned = t->versioned + at;
		at += (size_t)n + 1;
	}
	return 0;
}

static int load_table(struct img *im, const struct img_section *tab, struct img_symtab_data *t,
		      struct ax_error *err)
{
	struct img_vertab vt = { 0 };
	Elf_Data *d;
	size_t n;
	int ret;

	ret = check_table(im, tab, &d, err);
	n = tab->size / sizeof(Elf64_Sym);
	if (ret || n <= 1)
		return ret;
	if (tab->type == SHT_DYNSYM && img_vertab_load(im, n, &vt))
		goto out_nomem;
	t->syms = calloc(n - 1, sizeof(*t->syms));
	if (!t->syms)
		goto out_nomem;
	for (size_t i = 1; i < n; i++) {
		struct img_symbol *sym = &t->syms[t->nsyms];

		if (!fill_symbol(im, tab, d, i, sym))
			continue;
		img_vertab_apply(&vt, i, sym);
		t->nsyms++;
	}
	/* Version names point into the file's string table; the table itself can go. */
	img_vertab_free(&vt);
	if (make_versioned(t))
		return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
	return 0;

out_nomem:
	img_vertab_free(&vt);
	return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
}

int img_load_symbols(struct img *im, struct ax_error *err)
{
	const struct img_section *symtab = first_of_type(im, SHT_SYMTAB);
	const struct img_section *dynsym = first_of_type(im, SHT_DYNSYM);
	int ret = 0;

	if (symtab)
		ret = load_table(im, symtab, &im->tab[IMG_SYMTAB], err);
	if (dynsym && !ret)
		ret = load_table(im, dynsym, &im->tab[IMG_DYNSYM], err);
	/* objdump's choice: .symtab when it has a symbol besides the null one */
	im->from_symtab = symtab && symtab->size > sizeof(Elf64_Sym);
	return ret;
}

void img_free_symbols(struct img *im)
{
	for (size_t i = 0; i < 2; i++) {
		free(im->tab[i].syms);
		free(im->tab[i].versioned);
	}
}

size_t img_nsyms(const struct img *im, enum img_symtab t)
{
	return t <= IMG_DYNSYM ? im->tab[t].nsyms : 0;
}

const struct img_symbol *img_sym(const struct img *im, enum img_symtab t, size_t i)
{
	return i < img_nsyms(im, t) ? &im->tab[t].syms[i] : NULL;
}

size_t img_nsymbols(const struct img *im)
{
	return img_nsyms(im, im->from_symtab ? IMG_SYMTAB : IMG_DYNSYM);
}

const struct img_symbol *img_symbol(const struct img *im, size_t i)
{
	return img_sym(im, im->from_symtab ? IMG_SYMTAB : IMG_DYNSYM, i);
}

bool img_has_symtab(const struct img *im)
{
	return im->from_symtab;
}

const struct img_symbol *img_symbol_by_name(const struct img *im, const char *name)
{
	for (int t = IMG_SYMTAB; t <= IMG_DYNSYM; t++)
		for (size_t i = 0; i < im->tab[t].nsyms; i++) {
			const struct img_symbol *s = &im->tab[t].syms[i];

			if (s->shndx != IMG_SHN_UNDEF && !strcmp(s->name, name))
				return s;
		}
	return NULL;
}
