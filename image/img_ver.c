/* image/img_ver.c - GNU symbol versions: names of .dynsym versions, as binutils prints them. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "img_ver.h"

/*
 * Versions (the LSB "Symbol Versioning" section, as binutils' bfd/elf.c interprets it):
 * .gnu.version holds one 16-bit index per .dynsym entry (bit 15: hidden); an index names a
 * definition in .gnu.version_d (this file's versions) or a need in .gnu.version_r (a
 * version required from another file). Damaged chains end the walk; names stay unknown.
 */

static int vertab_grow(struct img_vertab *vt, size_t idx)
{
	const char **nn;
	bool *nd;
	size_t n = idx + 1;

	if (idx < vt->n)
		return 0;
	nn = realloc(vt->name, n * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	vt->name = nn;
	nd = realloc(vt->need, n * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	vt->need = nd;
	for (size_t i = vt->n; i < n; i++) {
		vt->name[i] = NULL;
		vt->need[i] = false;
	}
	vt->n = n;
	return 0;
}

void img_vertab_free(struct img_vertab *vt)
{
	free(vt->name);
	free(vt->need);
}

static Elf_Data *section_data(const struct img *im, const struct img_section *s)
{
	Elf_Scn *scn = elf_getscn(im->elf, s->index);

	return scn ? elf_getdata(scn, NULL) : NULL;
}

static int load_verdefs(const struct img *im, const struct img_section *s, struct img_vertab *vt)
{
	Elf_Data *d = section_data(im, s);
	size_t off = 0;

	if (!d)
		return 0;
	for (unsigned int n = 0; n < 0x8000 && off < d->d_size; n++) {
		GElf_Verdef vd;
		GElf_Verdaux va;
		unsigned int ndx;

		if (!gelf_getverdef(d, (int)off, &vd))
			break;
		ndx = vd.vd_ndx & 0x7fff;
		if (vertab_grow(vt, ndx))
			return -ENOMEM;
		if (ndx > vt->ndefs)
			vt->ndefs = ndx;
		if (ndx == 1)
			vt->base_is_file = (vd.vd_flags & VER_FLG_BASE) != 0;
		if (vd.vd_cnt && vd.vd_aux < d->d_size - off &&
		    gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
			vt->name[ndx] = elf_strptr(im->elf, s->link, va.vda_name);
		if (vd.vd_next == 0 || vd.vd_next >= d->d_size - off)
			break;
		off += vd.vd_next;
	}
	return 0;
}

/* The auxiliary entries of one need; *budget bounds the total work on a looping chain. */
static int load_vernaux(const struct img *im, const struct img_section *s, Elf_Data *d, size_t aoff,
			unsigned int cnt, unsigned int *budget, struct img_vertab *vt)
{
	for (unsigned int j = 0; j < cnt && *budget; j++, (*budget)--) {
		GElf_Vernaux va;
		unsigned int ndx;

		if (aoff >= d->d_size || !gelf_getvernaux(d, (int)aoff, &va))
			break;
		ndx = va.vna_other & 0x7fff;
		if (vertab_grow(vt, ndx))
			return -ENOMEM;
		if (ndx > vt->ndefs && !vt->name[ndx]) {
			vt->name[ndx] = elf_strptr(im->elf, s->link, va.vna_name);
			vt->need[ndx] = true;
		}
		if (va.vna_next == 0)
			break;
		aoff += va.vna_next;
	}
	return 0;
}

static int load_verneeds(const struct img *im, const struct img_section *s, struct img_vertab *vt)
{
	Elf_Data *d = section_data(im, s);
	size_t off = 0;
	unsigned int budget = 0x10000;

	if (!d)
		return 0;
	while (off < d->d_size && budget) {
		GElf_Verneed vn;

		if (!gelf_getverneed(d, (int)off, &vn))
			break;
		if (load_vernaux(im, s, d, off + vn.vn_aux, vn.vn_cnt, &budget, vt))
			return -ENOMEM;
		if (vn.vn_next == 0 || vn.vn_next >= d->d_size - off)
			break;
		off += vn.vn_next;
		budget--;
	}
	return 0;
}

static const struct img_section *first_of_type(const struct img *im, uint32_t type)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (im->secs[i].type == type)
			return &im->secs[i];
	return NULL;
}

int img_vertab_load(const struct img *im, size_t nsyms, struct img_vertab *vt)
{
	const struct img_section *vdef = first_of_type(im, SHT_GNU_verdef);
	const struct img_section *vneed = first_of_type(im, SHT_GNU_verneed);
	const struct img_section *versym = first_of_type(im, SHT_GNU_versym);
	int ret = 0;

	if (!versym || (!vdef && !vneed))
		return 0;
	vt->versym = section_data(im, versym);
	if (vt->versym && vt->versym->d_size / 2 < nsyms)
		vt->versym = NULL; /* damaged: print no versions */
	if (!vt->versym)
		return 0;
	if (vdef)
		ret = load_verdefs(im, vdef, vt);
	if (vneed && !ret)
		ret = load_verneeds(im, vneed, vt);
	return ret;
}

/*
 * The version binutils prints after a dynamic symbol's name (bfd/elf.c,
 * _bfd_elf_get_symbol_version_string with base_p, as objdump calls it): none for index 0,
 * "Base" for index 1 when that is the file's own base definition, a definition's name, or a
 * need's name (then always "@").
 */
void img_vertab_apply(const struct img_vertab *vt, size_t i, struct img_symbol *sym)
{
	GElf_Versym vs;
	unsigned int v;

	if (!vt->versym || !gelf_getversym(vt->versym, (int)i, &vs))
		return;
	v = vs & 0x7fff;
	sym->version_hidden = (vs & 0x8000) != 0;
	if (v == 0)
		return;
	if (v == 1 && (v > vt->ndefs || vt->base_is_file)) {
		sym->version = "Base";
		sym->version_base = true;
		return;
	}
	if (v < vt->n && vt->name[v]) {
		sym->version = vt->name[v];
		if (vt->need[v])
			sym->version_hidden = true;
		return;
	}
	sym->version = "<corrupt>";
}
