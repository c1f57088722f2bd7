/* tools/lib/tl_pprof.c - pprof's profile.proto, written by a small encoder and gzipped (zlib). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tl_pprof.h"
#include "tl_sym.h"

/* Wire types (protobuf encoding): 0 varint, 2 length-delimited. */
#define WT_VARINT 0
#define WT_LEN 2

struct buf {
	uint8_t *b;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t ncap = 2 * b->cap + n + 256;
		uint8_t *nb = realloc(b->b, ncap);

		if (!nb) {
			b->oom = true;
			return;
		}
		b->b = nb;
		b->cap = ncap;
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	put(b, t, n);
}

static void key(struct buf *b, unsigned int field, unsigned int wt)
{
	varint(b, (uint64_t)field << 3 | wt);
}

/* A varint field (uint64, or int64 as its two's complement); proto3 leaves out zeros. */
static void field_u(struct buf *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	key(b, field, WT_VARINT);
	varint(b, v);
}

static void field_bytes(struct buf *b, unsigned int field, const void *p, size_t n)
{
	key(b, field, WT_LEN);
	varint(b, n);
	put(b, p, n);
}

static void field_msg(struct buf *b, unsigned int field, struct buf *m)
{
	if (m->oom)
		b->oom = true;
	field_bytes(b, field, m->b, m->n);
	free(m->b);
	memset(m, 0, sizeof(*m));
}

/* Strings: interned in a hash table; index 0 is "". */
struct tl_pprof {
	struct buf body; /* samples, mappings, locations, functions, comments as they come */
	size_t ntypes;
	uint64_t types[8][2]; /* string indices of each sample type's name and unit */
	char **str;
	size_t nstr, capstr;
	uint32_t *hash; /* open addressing: string index + 1, 0 empty */
	size_t hcap;
	struct fn {
		int64_t name, file;
	} * fn;
	size_t nfn, capfn;
	uint64_t nmap, nloc;
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

static int rehash(struct tl_pprof *p, size_t ncap)
{
	uint32_t *h = calloc(ncap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < p->nstr; i++) {
		size_t k = fnv(p->str[i]) & (ncap - 1);

		while (h[k])
			k = (k + 1) & (ncap - 1);
		h[k] = (uint32_t)i + 1;
	}
	free(p->hash);
	p->hash = h;
	p->hcap = ncap;
	return 0;
}

/* The string table index of s (added when new); -1 when out of memory. */
static int64_t intern(struct tl_pprof *p, const char *s)
{
	size_t k;
	char *c;

	if (!s)
		s = "";
	if (2 * (p->nstr + 1) > p->hcap && rehash(p, p->hcap ? 2 * p->hcap : 1024))
		return -1;
	for (k = fnv(s) & (p->hcap - 1); p->hash[k]; k = (k + 1) & (p->hcap - 1))
		if (!strcmp(p->str[p->hash[k] - 1], s))
			return p->hash[k] - 1;
	if (p->nstr == p->capstr) {
		size_t ncap = p->capstr ? 2 * p->capstr : 256;
		char **ns = realloc(p->str, ncap * sizeof(*ns));

		if (!ns)
			return -1;
		p->str = ns;
		p->capstr = ncap;
	}
	c = strdup(s);
	if (!c)
		return -1;
	p->str[p->nstr] = c;
	p->hash[k] = (uint32_t)++p->nstr;
	return (int64_t)p->nstr - 1;
}

struct tl_pprof *tl_pprof_new(const char *const *names, size_t ntypes, const char *unit)
{
	struct tl_pprof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (ntypes > 8 || intern(p, "") != 0)
		goto fail;
	p->ntypes = ntypes;
	for (size_t i = 0; i < ntypes; i++) {
		int64_t a = intern(p, names[i]), b = intern(p, unit);

		if (a < 0 || b < 0)
			goto fail;
		p->types[i][0] = (uint64_t)a;
		p->types[i][1] = (uint64_t)b;
	}
	return p;
fail:
	tl_pprof_free(p);
	return NULL;
}

void tl_pprof_free(struct tl_pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstr; i++)
		free(p->str[i]);
	free(p->str);
	free(p->hash);
	free(p->fn);
	free(p->body.b);
	free(p);
}

uint64_t tl_pprof_mapping(struct tl_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			  const char *file, const char *build_id, int has_lines)
{
	struct buf m = { 0 };
	int64_t f = intern(p, file), b = intern(p, build_id);

	if (f < 0 || b < 0)
		return 0;
	field_u(&m, TL_PB_MAPPING_ID, ++p->nmap);
	field_u(&m, TL_PB_MAPPING_MEMORY_START, start);
	field_u(&m, TL_PB_MAPPING_MEMORY_LIMIT, limit);
	field_u(&m, TL_PB_MAPPING_FILE_OFFSET, offset);
	field_u(&m, TL_PB_MAPPING_FILENAME, (uint64_t)f);
	field_u(&m, TL_PB_MAPPING_BUILD_ID, (uint64_t)b);
	field_u(&m, TL_PB_MAPPING_HAS_FUNCTIONS, 1);
	field_u(&m, TL_PB_MAPPING_HAS_FILENAMES, has_lines != 0);
	field_u(&m, TL_PB_MAPPING_HAS_LINE_NUMBERS, has_lines != 0);
	field_u(&m, TL_PB_MAPPING_HAS_INLINE_FRAMES, has_lines != 0);
	field_msg(&p->body, TL_PB_PROFILE_MAPPING, &m);
	return p->body.oom ? 0 : p->nmap;
}

uint64_t tl_pprof_function(struct tl_pprof *p, const char *name, const char *file)
{
	struct buf m = { 0 };
	const char *raw = name ? tl_sym_mangled(name) : NULL; /* a demangled C++ name's symbol */
	int64_t n = intern(p, name), f = intern(p, file), sys = raw ? intern(p, raw) : n;

	if (n < 0 || f < 0 || sys < 0)
		return 0;
	/* Linear search: a profile has hundreds of functions, not millions. */
	for (size_t i = 0; i < p->nfn; i++)
		if (p->fn[i].name == n && p->fn[i].file == f)
			return i + 1;
	if (p->nfn == p->capfn) {
		size_t ncap = p->capfn ? 2 * p->capfn : 64;
		struct fn *nf = realloc(p->fn, ncap * sizeof(*nf));

		if (!nf)
			return 0;
		p->fn = nf;
		p->capfn = ncap;
	}
	p->fn[p->nfn++] = (struct fn){ n, f };
	field_u(&m, TL_PB_FUNCTION_ID, p->nfn);
	field_u(&m, TL_PB_FUNCTION_NAME, (uint64_t)n);
	field_u(&m, TL_PB_FUNCTION_SYSTEM_NAME, (uint64_t)sys);
	field_u(&m, TL_PB_FUNCTION_FILENAME, (uint64_t)f);
	field_msg(&p->body, TL_PB_PROFILE_FUNCTION, &m);
	return p->body.oom ? 0 : p->nfn;
}

uint64_t tl_pprof_location(struct tl_pprof *p, uint64_t mapping, uint64_t address,
			   const struct tl_pprof_line *lines, size_t n)
{
	struct buf m = { 0 };

	field_u(&m, TL_PB_LOCATION_ID, ++p->nloc);
	field_u(&m, TL_PB_LOCATION_MAPPING_ID, mapping);
	field_u(&m, TL_PB_LOCATION_ADDRESS, address);
	for (size_t i = 0; i < n; i++) {
		struct buf l = { 0 };

		field_u(&l, TL_PB_LINE_FUNCTION_ID, lines[i].function);
		field_u(&l, TL_PB_LINE_LINE, (uint64_t)lines[i].line);
		field_msg(&m, TL_PB_LOCATION_LINE, &l);
	}
	field_msg(&p->body, TL_PB_PROFILE_LOCATION, &m);
	return p->body.oom ? 0 : p->nloc;
}

/* A packed repeated varint field. */
static void packed(struct buf *b, unsigned int field, const uint64_t *v, size_t n)
{
	struct buf m = { 0 };

	for (size_t i = 0; i < n; i++)
		varint(&m, v[i]);
	field_msg(b, field, &m);
}

int tl_pprof_sample(struct tl_pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values)
{
	struct buf m = { 0 };
	uint64_t v[8];

	for (size_t i = 0; i < p->ntypes; i++)
		v[i] = (uint64_t)values[i];
	packed(&m, TL_PB_SAMPLE_LOCATION_ID, locs, nlocs);
	packed(&m, TL_PB_SAMPLE_VALUE, v, p->ntypes);
	field_msg(&p->body, TL_PB_PROFILE_SAMPLE, &m);
	return p->body.oom ? -ENOMEM : 0;
}

int tl_pprof_comment(struct tl_pprof *p, const char *text)
{
	int64_t s = intern(p, text);

	if (s < 0)
		return -ENOMEM;
	key(&p->body, TL_PB_PROFILE_COMMENT, WT_VARINT);
	varint(&p->body, (uint64_t)s);
	return p->body.oom ? -ENOMEM : 0;
}

static int gzip(const struct buf *in, uint8_t **out, size_t *len)
{
	z_stream z = { 0 };
	uLong cap;
	uint8_t *o;
	int ret;

	/* windowBits 15 + 16: a gzip wrapper (RFC 1952) instead of zlib's (zlib manual). */
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -EIO;
	cap = deflateBound(&z, (uLong)in->n) + 32;
	o = malloc(cap);
	if (!o) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = in->b;
	z.avail_in = (uInt)in->n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	ret = deflate(&z, Z_FINISH);
	*len = z.total_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END) {
		free(o);
		return -EIO;
	}
	*out = o;
	return 0;
}

int tl_pprof_encode(struct tl_pprof *p, uint8_t **out, size_t *len)
{
	struct buf all = { 0 };
	int ret;

	*out = NULL;
	*len = 0;
	for (size_t i = 0; i < p->ntypes; i++) {
		struct buf m = { 0 };

		field_u(&m, TL_PB_VALUETYPE_TYPE, p->types[i][0]);
		field_u(&m, TL_PB_VALUETYPE_UNIT, p->types[i][1]);
		field_msg(&all, TL_PB_PROFILE_SAMPLE_TYPE, &m);
	}
	put(&all, p->body.b, p->body.n);
	for (size_t i = 0; i < p->nstr; i++)
		field_bytes(&all, TL_PB_PROFILE_STRING_TABLE, p->str[i], strlen(p->str[i]));
	if (p->ntypes)
		field_u(&all, TL_PB_PROFILE_DEFAULT_SAMPLE_TYPE, p->types[0][0]);
	if (all.oom || p->body.oom) {
		free(all.b);
		return -ENOMEM;
	}
	if (all.n > UINT32_MAX) {
		free(all.b);
		return -EFBIG;
	}
	ret = gzip(&all, out, len);
	free(all.b);
	return ret;
}
