/* image/img_plt.c - PLT slots named name@plt, from .rela.plt (R_ALPHA_JMP_SLOT). */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "img_int.h"

/*
 * The Alpha PLT (binutils' elf64-alpha.c layout; glibc's dl-machine.h for Alpha resolves it):
 * .rela.plt holds one R_ALPHA_JMP_SLOT per slot, in slot order, each naming its .dynsym
 * symbol. Two layouts:
 *   - the secure PLT (read-only .plt; -msecure-plt, the default of current toolchains): a
 *     36-byte header, then one 4-byte entry per slot (a BR to the header); relocation i
 *     patches a GOT word (r_offset outside .plt) and its entry is at .plt + 36 + 4 i. The GOT
 *     word's link-time value is that entry's address (lazy binding), which the test checks.
 *   - the old PLT (writable .plt): r_offset is the 12-byte entry itself, patched in place.
 * Damaged tables are not an error: the slots simply have no names.
 */
#define PLT_NEW_HEADER 36u
#define PLT_NEW_ENTRY 4u
#define PLT_OLD_ENTRY 12u
#define RELA_SIZE 24u

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

static int cmp_plt(const void *pa, const void *pb)
{
	const struct img_symbol *a = pa, *b = pb;

	return (a->value > b->value) - (a->value < b->value);
}

/* The .dynsym symbol with ELF index k (the tables leave out the null symbol), or NULL. */
static const struct img_symbol *dynsym(const struct img *im, uint64_t k)
{
	if (!k || k > img_nsyms(im, IMG_DYNSYM))
		return NULL;
	return img_sym(im, IMG_DYNSYM, (size_t)(k - 1));
}

int img_load_plt(struct img *im, struct ax_error *err)
{
	const struct img_section *rel = img_section_by_name(im, ".rela.plt");
	const struct img_section *plt = img_section_by_name(im, ".plt");
	size_t n, pool = 0, used = 0, k = 0;

	if (!rel || !plt || !rel->data || rel->type != SHT_RELA || !plt->size)
		return 0;
	n = (size_t)(rel->size / RELA_SIZE);
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct img_symbol *s = dynsym(im, le64(rel->data + i * RELA_SIZE + 8) >> 32);

		if (s)
			pool += strlen(s->name) + sizeof("@plt");
	}
	im->plt = calloc(n, sizeof(*im->plt));
	im->plt_names = malloc(pool ? pool : 1);
	if (!im->plt || !im->plt_names) {
		free(im->plt);
		free(im->plt_names);
		im->plt = NULL;
		im->plt_names = NULL;
		return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *r = rel->data + i * RELA_SIZE;
		const struct img_symbol *s = dynsym(im, le64(r + 8) >> 32);
		uint64_t off = le64(r), at, size;
		struct img_symbol *p;
		size_t len;

		if (!s || (uint32_t)le64(r + 8) != R_ALPHA_JMP_SLOT)
			continue;
		if (off >= plt->addr && off - plt->addr < plt->size) {
			at = off;
			size = PLT_OLD_ENTRY;
		} else {
			at = plt->addr + PLT_NEW_HEADER + PLT_NEW_ENTRY * i;
			size = PLT_NEW_ENTRY;
		}
		if (!img_range_ok(at - plt->addr, size, plt->size))
			continue;
		len = strlen(s->name);
		p = &im->plt[k++];
		p->name = p->versioned = im->plt_names + used;
		memcpy(im->plt_names + used, s->name, len);
		memcpy(im->plt_names + used + len, "@plt", sizeof("@plt"));
		used += len + sizeof("@plt");
		p->type = STT_FUNC;
		p->bind = STB_GLOBAL;
		p->shndx = plt->index;
		p->value = at;
		p->size = size;
	}
	im->nplt = k;
	if (k > 1)
		qsort(im->plt, k, sizeof(*im->plt), cmp_plt);
	return 0;
}

size_t img_nplt(const struct img *im)
{
	return im->nplt;
}

const struct img_symbol *img_plt(const struct img *im, size_t i)
{
	return i < im->nplt ? &im->plt[i] : NULL;
}

const struct img_symbol *img_plt_at(const struct img *im, uint64_t addr)
{
	size_t lo = 0, hi = im->nplt;

	while (lo < hi) { /* first slot starting after addr */
		size_t mid = lo + (hi - lo) / 2;

		if (im->plt[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - im->plt[lo - 1].value >= im->plt[lo - 1].size)
		return NULL;
	return &im->plt[lo - 1];
}
