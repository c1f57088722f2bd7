/* tools/lib/tl_pcname.c - naming a running program's PCs by symbol (axprof run --stats). */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_codesym.h"
#include "tl_pcname.h"
#include "tl_sym.h"

void tl_pcname_init(struct tl_pcname *t)
{
	memset(t, 0, sizeof(*t));
}

static void map_free(struct tl_pcname_map *mp)
{
	img_close(mp->elf);
	free(mp->path);
}

void tl_pcname_exit(struct tl_pcname *t)
{
	for (size_t i = 0; i < t->n; i++)
		map_free(&t->v[i]);
	free(t->v);
	tl_pcname_init(t);
}

static int grow(struct tl_pcname *t)
{
	size_t cap = t->cap ? 2 * t->cap : 16;
	struct tl_pcname_map *v;

	if (t->n < t->cap)
		return 0;
	v = realloc(t->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

/* A copy of mp's [start, end) piece (path duplicated, image not shared): 0 or -ENOMEM. */
static int add_piece(struct tl_pcname *t, const struct tl_pcname_map *mp, uint64_t start,
		     uint64_t end)
{
	char *path;

	if (grow(t))
		return -ENOMEM;
	path = strdup(mp->path);
	if (!path)
		return -ENOMEM;
	t->v[t->n++] = (struct tl_pcname_map){
		.start = start, .end = end, .off = mp->off + (start - mp->start), .path = path
	};
	return 0;
}

void tl_pcname_unmap(struct tl_pcname *t, uint64_t start, uint64_t len)
{
	uint64_t end = start + len < start ? UINT64_MAX : start + len;
	size_t n0 = t->n, k = 0;

	for (size_t i = 0; i < n0; i++) {
		struct tl_pcname_map old = t->v[i];

		if (old.end <= start || old.start >= end)
			continue;
		/* The pieces outside [start, end) stay, as new entries (on -ENOMEM they are lost,
		 * so a PC there is only left unnamed). */
		if (old.start < start)
			add_piece(t, &old, old.start, start);
		if (old.end > end)
			add_piece(t, &old, end, old.end);
		map_free(&t->v[i]);
		t->v[i].path = NULL;
		t->v[i].elf = NULL;
		t->v[i].end = t->v[i].start; /* empty: dropped below */
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].start < t->v[i].end)
			t->v[k++] = t->v[i];
	t->n = k;
}

int tl_pcname_map(struct tl_pcname *t, uint64_t start, uint64_t len, uint64_t off, const char *path,
		  bool exec)
{
	struct tl_pcname_map mp = { .start = start, .end = start + len, .off = off };

	tl_pcname_unmap(t, start, len);
	if (!path || !exec || !len || mp.end < start)
		return 0;
	mp.path = (char *)path;
	return add_piece(t, &mp, start, mp.end);
}

/* The ELF address of file offset fo in im: the PT_LOAD holding it, executable ones first. */
static bool file_to_vaddr(const struct img *im, uint64_t fo, uint64_t *va)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < img_nsegments(im); i++) {
			const struct img_segment *sg = img_segment(im, i);

			if (!pass && !(sg->flags & PF_X))
				continue;
			if (fo >= sg->offset && fo - sg->offset < sg->filesz) {
				*va = sg->vaddr + (fo - sg->offset);
				return true;
			}
		}
	return false;
}

bool tl_pcname_name(struct tl_pcname *t, uint64_t pc, char *buf, size_t size, const char **image,
		    uint64_t *addr)
{
	const struct img_symbol *s;
	struct tl_pcname_map *mp = NULL;
	uint64_t va;

	buf[0] = '\0';
	if (image)
		*image = NULL;
	if (addr)
		*addr = pc;
	for (size_t i = 0; i < t->n && !mp; i++)
		if (pc >= t->v[i].start && pc < t->v[i].end)
			mp = &t->v[i];
	if (!mp)
		return false;
	if (image)
		*image = mp->path;
	if (!mp->tried) {
		mp->tried = true;
		if (img_open(mp->path, 0, &mp->elf, NULL))
			mp->elf = NULL;
	}
	if (!mp->elf || !file_to_vaddr(mp->elf, pc - mp->start + mp->off, &va))
		return false;
	if (addr)
		*addr = va;
	s = img_plt_at(mp->elf, va);
	if (!s)
		s = img_function_at(mp->elf, va);
	if (!s)
		s = tl_code_sym_at(mp->elf, va);
	if (!s)
		return false;
	if (va == s->value)
		snprintf(buf, size, "%s", tl_sym_name(s->name));
	else
		snprintf(buf, size, "%s+0x%" PRIx64, tl_sym_name(s->name), va - s->value);
	return true;
}
