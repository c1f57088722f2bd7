/* analysis/an_reloc.c - code addresses an image keeps in data: dynamic relocations, GOT, tables. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an_reloc.h"

#define RELA_SIZE 24u /* sizeof(Elf64_Rela) */

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

struct vec {
	uint64_t *v;
	size_t n, cap;
};

static int vec_push(struct vec *a, uint64_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		uint64_t *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return (a > b) - (a < b);
}

/* A relocated word: its address and value side by side, for one sort. */
struct pair {
	uint64_t at, val;
};

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;

	return (a->at > b->at) - (a->at < b->at);
}

static bool in_code(const struct img *e, uint64_t a)
{
	const struct img_section *s;

	if (a & 3)
		return false;
	s = img_section_at(e, a);
	return s && img_section_is_code(s);
}

/* The value a REFQUAD/GLOB_DAT to .dynsym symbol k gives, when this image defines it. */
static bool sym_value(const struct img *e, uint64_t k, uint64_t *v)
{
	const struct img_symbol *s;

	if (!k || k > img_nsyms(e, IMG_DYNSYM))
		return false;
	s = img_sym(e, IMG_DYNSYM, (size_t)(k - 1));
	if (s->shndx == IMG_SHN_UNDEF || s->shndx == IMG_SHN_COMMON)
		return false;
	*v = s->value;
	return true;
}

/* The relocations of one SHT_RELA section that write a known 8-byte value. */
static int read_rela(const struct img *e, const struct img_section *s, struct pair **pv, size_t *n,
		     size_t *cap)
{
	for (uint64_t off = 0; off + RELA_SIZE <= s->size; off += RELA_SIZE) {
		const uint8_t *r = s->data + off;
		uint64_t info = le64(r + 8), add = le64(r + 16), v;
		uint32_t type = (uint32_t)info;

		if (type == R_ALPHA_RELATIVE)
			v = add;
		else if ((type == R_ALPHA_REFQUAD || type == R_ALPHA_GLOB_DAT) &&
			 sym_value(e, info >> 32, &v))
			v += add;
		else
			continue;
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 256;
			struct pair *x = realloc(*pv, c * sizeof(*x));

			if (!x)
				return -ENOMEM;
			*pv = x;
			*cap = c;
		}
		(*pv)[(*n)++] = (struct pair){ le64(r), v };
	}
	return 0;
}

/* Aligned 8-byte words of an allocated data section that point into code. */
static int scan_data(const struct img *e, const struct img_section *s, struct vec *taken)
{
	uint64_t first = (s->addr + 7) & ~(uint64_t)7;

	if (s->type != SHT_PROGBITS || !(s->flags & SHF_ALLOC) || (s->flags & SHF_EXECINSTR) ||
	    !s->data || !strncmp(s->name, ".eh_frame", 9))
		return 0;
	for (uint64_t a = first; a + 8 <= s->addr + s->size; a += 8) {
		uint64_t v = le64(s->data + (a - s->addr));

		if (in_code(e, v) && vec_push(taken, v))
			return -ENOMEM;
	}
	return 0;
}

int an_relocs_init(struct an_relocs *r, const struct img *e)
{
	struct pair *pv = NULL;
	struct vec taken = { 0 };
	size_t n = 0, cap = 0, ns = img_nsections(e);
	int ret = 0;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < ns && !ret; i++) {
		const struct img_section *s = img_section(e, i);

		if (s->type == SHT_RELA && s->data && (s->flags & SHF_ALLOC))
			ret = read_rela(e, s, &pv, &n, &cap);
		else
			ret = scan_data(e, s, &taken);
	}
	if (ret)
		goto out_free;
	if (n > 1)
		qsort(pv, n, sizeof(*pv), cmp_pair);
	if (n) {
		r->at = malloc(n * sizeof(*r->at));
		r->val = malloc(n * sizeof(*r->val));
		if (!r->at || !r->val) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	for (size_t i = 0; i < n; i++) {
		r->at[i] = pv[i].at;
		r->val[i] = pv[i].val;
		if (in_code(e, pv[i].val) && vec_push(&taken, pv[i].val)) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	r->n = n;
	if (taken.n > 1)
		qsort(taken.v, taken.n, sizeof(*taken.v), cmp_u64);
	for (size_t i = 0; i < taken.n; i++)
		if (!r->ntaken || taken.v[i] != taken.v[r->ntaken - 1])
			taken.v[r->ntaken++] = taken.v[i];
	r->taken = taken.v;
	free(pv);
	return 0;

out_free:
	free(pv);
	free(taken.v);
	an_relocs_exit(r);
	return ret;
}

void an_relocs_exit(struct an_relocs *r)
{
	free(r->at);
	free(r->val);
	free(r->taken);
	memset(r, 0, sizeof(*r));
}

bool an_relocs_value(const struct an_relocs *r, uint64_t addr, uint64_t *val)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->at[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->n || r->at[lo] != addr)
		return false;
	*val = r->val[lo];
	return true;
}

size_t an_relocs_taken_from(const struct an_relocs *r, uint64_t addr)
{
	size_t lo = 0, hi = r->ntaken;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->taken[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
