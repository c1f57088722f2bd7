/* image/img_note.c - ELF notes: the GNU build-id. */
#include <elf.h>
#include <string.h>

#include "img_int.h"

/*
 * A note is a 12-byte header (namesz, descsz, type), the name and the descriptor, each ending
 * padded to the note alignment: 4, or 8 when the segment or section is 8-aligned (gABI "Note
 * Section"; GNU property notes use 8). Offsets are from the start of the notes, which is
 * aligned. The walk stops at the first note that does not fit.
 */

static uint64_t pad(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/* The build-id descriptor in [b, b + len), or NULL. */
static const uint8_t *find_in_notes(const uint8_t *b, uint64_t len, uint64_t align, size_t *idlen)
{
	uint64_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		uint64_t name_off, desc_off, next;

		memcpy(&nh, b + off, sizeof(nh));
		name_off = off + sizeof(nh);
		desc_off = pad(name_off + nh.n_namesz, align);
		if (desc_off > len || nh.n_descsz > len - desc_off)
			return NULL;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(b + name_off, "GNU", 4) && nh.n_descsz > 0) {
			*idlen = nh.n_descsz;
			return b + desc_off;
		}
		next = pad(desc_off + nh.n_descsz, align);
		if (next <= off || next > len)
			return NULL;
		off = next;
	}
	return NULL;
}

static bool from_segments(struct img *im)
{
	Elf64_Ehdr eh;

	memcpy(&eh, im->image, sizeof(eh));
	if (!eh.e_phoff || eh.e_phnum == 0 || eh.e_phnum == PN_XNUM)
		return false; /* PN_XNUM: rare enough to read the sections instead */
	/* img_load_phdrs checked the table */
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, im->image + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || !img_range_ok(ph.p_offset, ph.p_filesz, im->image_size))
			continue;
		im->build_id = find_in_notes(im->image + ph.p_offset, ph.p_filesz,
					     ph.p_align == 8 ? 8 : 4, &im->build_id_len);
		if (im->build_id)
			return true;
	}
	return false;
}

static void from_sections(struct img *im)
{
	for (size_t i = 0; i < im->nsecs && !im->build_id; i++) {
		const struct img_section *s = &im->secs[i];

		if (s->type != SHT_NOTE || !s->data)
			continue;
		im->build_id = find_in_notes(s->data, s->size, s->addralign == 8 ? 8 : 4,
					     &im->build_id_len);
	}
}

int img_load_build_id(struct img *im)
{
	if (!from_segments(im))
		from_sections(im);
	if (!im->build_id)
		im->build_id_len = 0;
	return 0;
}

const uint8_t *img_build_id(const struct img *im, size_t *len)
{
	*len = im->build_id_len;
	return im->build_id;
}
