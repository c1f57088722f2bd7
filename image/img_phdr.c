/* image/img_phdr.c - program headers: PT_LOAD segments, PT_INTERP, PT_DYNAMIC. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "img_int.h"

/* The number of program headers: e_phnum, or section 0's sh_info when it is PN_XNUM. */
static uint64_t phdr_count(const struct img *im, const Elf64_Ehdr *eh)
{
	Elf64_Shdr sh0;

	if (eh->e_phnum != PN_XNUM || eh->e_shoff == 0)
		return eh->e_phnum;
	memcpy(&sh0, im->image + eh->e_shoff, sizeof(sh0)); /* checked by img_open */
	return sh0.sh_info;
}

static int check_table(const struct img *im, const Elf64_Ehdr *eh, uint64_t n, struct ax_error *err)
{
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return AX_CORRUPT(err, im->path, offsetof(Elf64_Ehdr, e_phentsize),
				  "damaged ELF header: program header size %u", eh->e_phentsize);
	if (n > im->image_size / sizeof(Elf64_Phdr) ||
	    !img_range_ok(eh->e_phoff, n * sizeof(Elf64_Phdr), im->image_size))
		return AX_CORRUPT(err, im->path, eh->e_phoff,
				  "truncated: %llu program headers at offset %#llx do not fit in "
				  "%zu bytes",
				  (unsigned long long)n, (unsigned long long)eh->e_phoff,
				  im->image_size);
	return 0;
}

static int add_load(struct img *im, const Elf64_Phdr *ph, uint64_t at, struct ax_error *err)
{
	if (ph->p_filesz > ph->p_memsz)
		return AX_CORRUPT(err, im->path, at,
				  "damaged PT_LOAD: file size %#llx above memory size %#llx",
				  (unsigned long long)ph->p_filesz,
				  (unsigned long long)ph->p_memsz);
	if (!img_range_ok(ph->p_offset, ph->p_filesz, im->image_size))
		return AX_CORRUPT(err, im->path, at,
				  "truncated: PT_LOAD (%#llx bytes at offset %#llx) extends past "
				  "the end of the file (%zu bytes)",
				  (unsigned long long)ph->p_filesz,
				  (unsigned long long)ph->p_offset, im->image_size);
	im->segs[im->nsegs++] = (struct img_segment){
		.vaddr = ph->p_vaddr,
		.memsz = ph->p_memsz,
		.offset = ph->p_offset,
		.filesz = ph->p_filesz,
		.flags = ph->p_flags,
	};
	return 0;
}

static int set_interp(struct img *im, const Elf64_Phdr *ph, uint64_t at, struct ax_error *err)
{
	const char *s = (const char *)im->image + ph->p_offset;
	size_t len;

	if (!img_range_ok(ph->p_offset, ph->p_filesz, im->image_size))
		return AX_CORRUPT(err, im->path, at,
				  "truncated: PT_INTERP (%#llx bytes at offset %#llx) extends past "
				  "the end of the file (%zu bytes)",
				  (unsigned long long)ph->p_filesz,
				  (unsigned long long)ph->p_offset, im->image_size);
	len = strnlen(s, ph->p_filesz);
	if (len == 0 || im->interp)
		return 0;
	im->interp = strndup(s, len);
	if (!im->interp)
		return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
	return 0;
}

static int add_phdr(struct img *im, const Elf64_Phdr *ph, uint64_t at, struct ax_error *err)
{
	switch (ph->p_type) {
	case PT_LOAD:
		return add_load(im, ph, at, err);
	case PT_INTERP:
		return set_interp(im, ph, at, err);
	case PT_DYNAMIC:
		if (!im->has_dyn) {
			im->has_dyn = true;
			im->dyn_va = ph->p_vaddr;
		}
		return 0;
	default:
		return 0;
	}
}

int img_load_phdrs(struct img *im, struct ax_error *err)
{
	Elf64_Ehdr eh;
	uint64_t n;
	int ret;

	memcpy(&eh, im->image, sizeof(eh));
	n = eh.e_phoff ? phdr_count(im, &eh) : 0;
	if (n == 0)
		return 0;
	ret = check_table(im, &eh, n, err);
	if (ret)
		return ret;
	im->segs = calloc(n, sizeof(*im->segs));
	if (!im->segs)
		return ax_fail(err, -ENOMEM, "%s: out of memory", im->path);
	for (uint64_t i = 0; i < n && !ret; i++) {
		uint64_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
		Elf64_Phdr ph;

		memcpy(&ph, im->image + at, sizeof(ph));
		ret = add_phdr(im, &ph, at, err);
	}
	return ret;
}

size_t img_nsegments(const struct img *im)
{
	return im->nsegs;
}

const struct img_segment *img_segment(const struct img *im, size_t i)
{
	return i < im->nsegs ? &im->segs[i] : NULL;
}

const char *img_interp(const struct img *im)
{
	return im->interp;
}

bool img_dynamic_vaddr(const struct img *im, uint64_t *va)
{
	*va = im->has_dyn ? im->dyn_va : 0;
	return im->has_dyn;
}
