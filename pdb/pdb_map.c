/* pdb/pdb_map.c - open-addressing hash map with fixed-size entries for in-memory profiles. */
#include <stdlib.h>

#include "pdb_int.h"

#define MAP_MIN_CAP 16

void pdb_map_init(struct pdb_map *m, uint32_t ksize, uint32_t esize)
{
	memset(m, 0, sizeof(*m));
	m->ksize = ksize;
	m->esize = esize;
}

void pdb_map_exit(struct pdb_map *m)
{
	free(m->slot);
	free(m->full);
	pdb_map_init(m, m->ksize, m->esize);
}

void pdb_map_clear(struct pdb_map *m)
{
	if (m->full)
		memset(m->full, 0, m->cap);
	m->n = 0;
}

/* The key is ksize / 8 words; mix each with splitmix64's finaliser. */
static uint64_t hash_key(const struct pdb_map *m, const void *key)
{
	const uint8_t *k = key;
	uint64_t h = 0x9e3779b97f4a7c15ull;
	uint32_t i;

	for (i = 0; i < m->ksize; i += 8) {
		uint64_t w;

		memcpy(&w, k + i, 8);
		h ^= w;
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
		h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
		h ^= h >> 31;
	}
	return h;
}

static bool key_equal(const struct pdb_map *m, const uint8_t *e, const void *key)
{
	uint64_t a, b, c, d;

	if (m->ksize == 16) { /* (offset, kind, reg): procs.prof, addrs.prof */
		memcpy(&a, e, 8);
		memcpy(&b, key, 8);
		memcpy(&c, e + 8, 8);
		memcpy(&d, (const uint8_t *)key + 8, 8);
		return a == b && c == d;
	}
	if (m->ksize != 8)
		return !memcmp(e, key, m->ksize);
	/* Most tables are keyed by one offset: compare it as a word. */
	memcpy(&a, e, 8);
	memcpy(&b, key, 8);
	return a == b;
}

static size_t probe(const struct pdb_map *m, const void *key, bool *found)
{
	size_t mask = m->cap - 1;
	size_t i;

	if (m->ksize == 8) {
		uint64_t k;

		memcpy(&k, key, 8);
		return pdb_map_probe_word(m, k, found);
	}
	i = (size_t)hash_key(m, key) & mask;
	for (;;) {
		if (!m->full[i]) {
			*found = false;
			return i;
		}
		if (key_equal(m, m->slot + i * m->esize, key)) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
}

static int resize(struct pdb_map *m, size_t cap)
{
	struct pdb_map old = *m;
	size_t i;

	m->slot = pdb_malloc(cap * m->esize);
	m->full = pdb_calloc(cap, 1);
	if (!m->slot || !m->full) {
		free(m->slot);
		free(m->full);
		m->slot = old.slot;
		m->full = old.full;
		return -ENOMEM;
	}
	m->cap = cap;
	for (i = 0; i < old.cap; i++) {
		const uint8_t *e = old.slot + i * m->esize;
		bool found;
		size_t j;

		if (!old.full[i])
			continue;
		j = probe(m, e, &found);
		memcpy(m->slot + j * m->esize, e, m->esize);
		m->full[j] = 1;
	}
	free(old.slot);
	free(old.full);
	return 0;
}

int pdb_map_reserve(struct pdb_map *m, size_t n)
{
	size_t cap = m->cap ? m->cap : MAP_MIN_CAP;

	if (n > SIZE_MAX / 16 / m->esize)
		return -ENOMEM;
	while (n * 10 > cap * 7)
		cap *= 2;
	if (cap == m->cap)
		return 0;
	return resize(m, cap);
}

void *pdb_map_find(const struct pdb_map *m, const void *key)
{
	bool found;
	size_t i;

	if (!m->n)
		return NULL;
	i = probe(m, key, &found);
	return found ? m->slot + i * m->esize : NULL;
}

int pdb_map_get(struct pdb_map *m, const void *key, void **entry)
{
	bool found = false;
	uint8_t *e;
	size_t i;

	if (m->ksize == 8 && m->cap) { /* one offset, present: the daemon's commonest case */
		uint64_t k;

		memcpy(&k, key, 8);
		i = pdb_map_probe_word(m, k, &found);
		if (found) {
			*entry = m->slot + i * m->esize;
			return 0;
		}
	} else if (m->cap) {
		i = probe(m, key, &found);
		if (found) {
			*entry = m->slot + i * m->esize;
			return 0;
		}
	}
	if ((m->n + 1) * 10 > m->cap * 7) {
		int err = pdb_map_reserve(m, m->n + 1);

		if (err)
			return err;
	}
	i = probe(m, key, &found);
	e = m->slot + i * m->esize;
	memset(e, 0, m->esize);
	memcpy(e, key, m->ksize);
	m->full[i] = 1;
	m->n++;
	*entry = e;
	return 1;
}

void *pdb_map_next(const struct pdb_map *m, size_t *i)
{
	while (*i < m->cap) {
		size_t j = (*i)++;

		if (m->full[j])
			return m->slot + j * m->esize;
	}
	return NULL;
}

struct keyed {
	uint64_t key;
	const void *e;
};

/*
 * LSD radix sort of entries keyed by a leading u64 (the offset tables): 16-bit digits, passes
 * whose digit is the same for every entry skipped. Several times faster than qsort() at 10^5.
 */
static int sort_u64(const struct pdb_map *m, const void **v)
{
	struct keyed *a, *b, *t;
	size_t i, n = m->n, k = 0;
	uint64_t all_or = 0, all_and = UINT64_MAX;
	unsigned int shift;
	size_t *count;
	void *e;

	a = pdb_malloc(n * sizeof(*a));
	b = pdb_malloc(n * sizeof(*b));
	count = pdb_malloc(65536 * sizeof(*count));
	if (!a || !b || !count) {
		free(a);
		free(b);
		free(count);
		return -ENOMEM;
	}
	i = 0;
	while ((e = pdb_map_next(m, &i))) {
		memcpy(&a[k].key, e, 8);
		a[k].e = e;
		all_or |= a[k].key;
		all_and &= a[k].key;
		k++;
	}
	for (shift = 0; shift < 64; shift += 16) {
		size_t sum = 0, d;

		if (!(((all_or ^ all_and) >> shift) & 0xffff))
			continue; /* every key has the same digit here */
		memset(count, 0, 65536 * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(a[i].key >> shift) & 0xffff]++;
		for (d = 0; d < 65536; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[(a[i].key >> shift) & 0xffff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i++)
		v[i] = a[i].e;
	free(a);
	free(b);
	free(count);
	return 0;
}

int pdb_map_sorted(const struct pdb_map *m, int (*cmp)(const void *, const void *),
		   const void ***out)
{
	const void **v;
	size_t i = 0, k = 0;
	void *e;

	*out = NULL;
	if (!m->n)
		return 0;
	v = pdb_malloc(m->n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (cmp == pdb_cmp_off && m->n > 64) {
		int err = sort_u64(m, v);

		if (err) {
			free(v);
			return err;
		}
		*out = v;
		return 0;
	}
	while ((e = pdb_map_next(m, &i)))
		v[k++] = e;
	if (cmp)
		qsort(v, k, sizeof(*v), cmp);
	*out = v;
	return 0;
}

int pdb_map_copy_sorted(const struct pdb_map *m, size_t size,
			int (*cmp)(const void *, const void *),
			void (*fill)(void *dst, const void *e), void **out, size_t *n)
{
	const void **v;
	uint8_t *a;
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	err = pdb_map_sorted(m, cmp, &v);
	if (err || !v)
		return err;
	a = pdb_calloc(m->n, size);
	if (!a) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < m->n; i++)
		fill(a + i * size, v[i]);
	free(v);
	*out = a;
	*n = m->n;
	return 0;
}
