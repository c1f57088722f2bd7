/* image/img_sec.c - sections: the table, lookups by name, index and address, code words. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "img_int.h"

static const char *str_at(Elf *elf, size_t strndx, size_t off)
{
	const char *s = elf_strptr(elf, strndx, off);

	return s ? s : "";
}

static int fill_section(struct img *im, size_t i, size_t shstrndx, size_t shnum,
			struct ax_error *err)
{
	struct img_section *s = &im->secs[i - 1];
	Elf_Scn *scn = elf_getscn(im->elf, i);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return AX_CORRUPT(err, im->path, 0, "damaged section header %zu: %s", i,
				  elf_errmsg(-1));
	*s = (struct img_section){
		.name = shstrndx < shnum ? str_at(im->elf, shstrndx, sh.sh_name) : "",
		.addr = sh.sh_addr,
		.size = sh.sh_size,
		.offset = sh.sh_offset,
		.flags = sh.sh_flags,
		.type = sh.sh_type,
		.link = sh.sh_link,
		.info = sh.sh_info,
		.entsize = sh.sh_entsize,
		.addralign = sh.sh_addralign,
		.index = (unsigned int)i,
	};
	if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL || !sh.sh_size)
		return 0;
	if (!img_range_ok(sh.sh_offset, sh.sh_size, im->image_size))
		return AX_CORRUPT(
			err, im->path, sh.sh_offset,
			"truncated: section %s (%#llx bytes at offset %#llx) extends past "
			"the end of the file (%zu bytes)",
			*s->name ? s->name : "(unnamed)", (unsigned long long)sh.sh_size,
			(unsigned long long)sh.sh_offset, im->image_size);
	s->data = im->image + sh.sh_offset;
	return 0;
}

int img_load_sections(struct img *im, struct ax_error *err)
{
	size_t shnum, shstrndx;
	int ret = 0;

	if (elf_getshdrnum(im->elf, &shnum) != 0 || elf_getshdrstrndx(im->elf, &shstrndx) != 0)
		return AX_CORRUPT(err, im->path, 0, "damaged section header table: %s",
				  elf_errmsg(-1));
	if (shnum <= 1)
		return 0;
	im->secs = calloc(shnum - 1, sizeof(*im->secs));
	if (!im->secs)
		return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
	for (size_t i = 1; i < shnum && !ret; i++)
		ret = fill_section(im, i, shstrndx, shnum, err);
	if (!ret)
		im->nsecs = shnum - 1;
	return ret;
}

size_t img_nsections(const struct img *im)
{
	return im->nsecs;
}

const struct img_section *img_section(const struct img *im, size_t i)
{
	return i < im->nsecs ? &im->secs[i] : NULL;
}

const struct img_section *img_section_by_name(const struct img *im, const char *name)
{
	for (size_t i = 0; i < im->nsecs; i++)
		if (!strcmp(im->secs[i].name, name))
			return &im->secs[i];
	return NULL;
}

const struct img_section *img_section_by_index(const struct img *im, unsigned int shndx)
{
	if (shndx == 0 || shndx > im->nsecs)
		return NULL;
	return &im->secs[shndx - 1];
}

const struct img_section *img_section_at(const struct img *im, uint64_t addr)
{
	for (size_t i = 0; i < im->nsecs; i++) {
		const struct img_section *s = &im->secs[i];

		if ((s->flags & SHF_ALLOC) && addr >= s->addr && addr - s->addr < s->size)
			return s;
	}
	return NULL;
}

bool img_section_is_code(const struct img_section *s)
{
	return (s->flags & SHF_EXECINSTR) && s->type != SHT_NOBITS && s->type != SHT_NULL &&
	       s->data != NULL;
}

size_t img_ncode_sections(const struct img *im)
{
	size_t n = 0;

	for (size_t i = 0; i < im->nsecs; i++)
		n += img_section_is_code(&im->secs[i]);
	return n;
}

uint64_t img_text_size(const struct img *im)
{
	uint64_t n = 0;

	for (size_t i = 0; i < im->nsecs; i++)
		if ((im->secs[i].flags & SHF_EXECINSTR) && im->secs[i].type != SHT_NOBITS)
			n += im->secs[i].size;
	return n;
}

int img_read32(const struct img *im, uint64_t addr, uint32_t *word)
{
	for (size_t i = 0; i < im->nsecs; i++) {
		const struct img_section *s = &im->secs[i];
		const uint8_t *p;

		if (!s->data || addr < s->addr || addr - s->addr >= s->size ||
		    s->size - (addr - s->addr) < 4)
			continue;
		p = s->data + (addr - s->addr);
		*word = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			(uint32_t)p[3] << 24;
		return 0;
	}
	return -EFAULT;
}
