/* tests/pdb/test_pdb_damage.c - profile database readers against damaged and hostile files. */
#include "pdb_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#define NAME "mem-file"

/* ---------------------------------------------------------------- building files by hand */

struct bytes {
	uint8_t b[1 << 16];
	size_t n;
};

static void put_varint(struct bytes *o, uint64_t v)
{
	while (v >= 0x80) {
		o->b[o->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	o->b[o->n++] = (uint8_t)v;
}

static void put_raw(struct bytes *o, const void *p, size_t n)
{
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void le(uint8_t *p, uint64_t x, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(x >> (8 * i));
}

static uint64_t get(const uint8_t *p, unsigned int size)
{
	uint64_t x = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		x |= (uint64_t)p[i] << (8 * i);
	return x;
}

static void fix_hcrc(uint8_t *f)
{
	le(f + 44, crc32(0, f, 44), 4);
}

static void fix_crcs(uint8_t *f, size_t len)
{
	le(f + 40, crc32(0, f + 48, (uInt)(len - 48)), 4);
	fix_hcrc(f);
}

/* The format version wrap() writes. */
static unsigned int wrap_version = PDB_FORMAT_VERSION;

/* A whole, valid-looking file around payload p (compressed when zlib and it shrinks). malloc'd. */
static uint8_t *wrap(unsigned int type, unsigned int event, unsigned int flags, uint64_t n,
		     const uint8_t *p, size_t plen, size_t *len)
{
	uLongf slen = compressBound((uLong)plen);
	uint8_t *f = malloc(48 + slen + plen);

	assert_non_null(f);
	/* As the writer does: a payload that does not shrink is stored as it is. */
	if (!(flags & PDB_FL_ZLIB) || compress(f + 48, &slen, p, (uLong)plen) != Z_OK ||
	    slen >= plen) {
		flags &= ~PDB_FL_ZLIB;
		memcpy(f + 48, p, plen);
		slen = plen;
	}
	memcpy(f, "AXPD", 4);
	le(f + 4, wrap_version, 2);
	le(f + 6, type, 2);
	le(f + 8, flags, 4);
	le(f + 12, event, 4);
	le(f + 16, n, 8);
	le(f + 24, plen, 8);
	le(f + 32, slen, 8);
	*len = 48 + slen;
	fix_crcs(f, *len);
	return f;
}

/* Parse f as a profile file (or as an index when index), into a fresh profile. */
static int parse(const uint8_t *f, size_t len, bool index, struct ax_error *err)
{
	int r;

	memset(err, 0, sizeof(*err));
	if (index) {
		struct pdb_image *list;
		size_t n;

		r = pdb_parse_index(f, len, NAME, &list, &n, err);
		if (!r)
			pdb_image_list_free(list, n);
	} else {
		struct pdb_prof *p = pdb_prof_new();

		assert_non_null(p);
		r = pdb_parse(f, len, NAME, p, err);
		pdb_prof_free(p);
	}
	if (r) {
		/* Every refusal names the file and says where. */
		assert_int_equal(r, -EBADMSG);
		assert_int_equal(err->code, -EBADMSG);
		assert_non_null(strstr(err->msg, NAME));
		assert_non_null(strstr(err->msg, "offset"));
		assert_true(err->line > 0);
	}
	return r;
}

/* Expect refusal with the damage reported at file offset off. */
static void expect_bad_at(const uint8_t *f, size_t len, bool index, uint64_t off)
{
	struct ax_error err;
	char want[64];

	assert_int_equal(parse(f, len, index, &err), -EBADMSG);
	if (err.offset != off || err.in_payload)
		fail_msg("expected offset %llu, got: %s", (unsigned long long)off, err.msg);
	snprintf(want, sizeof(want), "offset %llu:", (unsigned long long)off);
	assert_non_null(strstr(err.msg, want));
}

/* ---------------------------------------------------------------- sample files */

enum {
	KIND_SAMPLES,
	KIND_VALUES,
	KIND_LATENCY,
	KIND_CONFLICTS,
	KIND_VCOUNT,
	KIND_UNKNOWN,
	KIND_INDEX,
	KIND_NR
};

/* A small valid file of each kind (n records). */
static uint8_t *sample_file(unsigned int kind, unsigned int n, uint64_t seed, size_t *len)
{
	struct pdb_prof *p = pdb_prof_new();
	struct hotlist_rng r;
	void *buf = NULL;
	unsigned int i;

	hotlist_rng_seed(&r, seed);
	if (kind == KIND_INDEX) {
		struct pdb_image im[8];

		memset(im, 0, sizeof(im));
		for (i = 0; i < n && i < 8; i++) {
			snprintf(im[i].key, sizeof(im[i].key), "b-%02x", i);
			im[i].path = i & 1 ? "/usr/lib/alpha-linux-gnu/libc.so.6.1" : "";
			im[i].build_id_len = i;
			memset(im[i].build_id, 0xa0 + (int)i, i);
			im[i].size = 1000 * i;
			im[i].mtime_ns = (int64_t)i * 1000000007 - 5;
			im[i].text_size = 300 * i;
		}
		assert_int_equal(pdb_encode_index(im, i, &buf, len), 0);
		pdb_prof_free(p);
		return buf;
	}
	for (i = 0; i < n; i++) {
		uint64_t off = 0x1200 + 4 * rnd(&r, 64);
		struct pdb_latency lat;
		struct hotlist h;

		switch (kind) {
		case KIND_SAMPLES:
			assert_int_equal(
				pdb_prof_add_sample(p, PDB_EV_IMISS, off, 1 + rnd(&r, 300)), 0);
			break;
		case KIND_VALUES:
			gen_hotlist(&h, &r, i & 1);
			assert_int_equal(pdb_prof_add_hotlist(p, off, 5, &h), 0);
			break;
		case KIND_LATENCY:
			gen_latency(&lat, &r);
			assert_int_equal(pdb_prof_add_latency(p, off, &lat), 0);
			break;
		case KIND_CONFLICTS:
			assert_int_equal(pdb_prof_add_conflict(
						 p, off, gen_keys[rnd(&r, 4)], off - 8 * rnd(&r, 4),
						 1, 1 + rnd(&r, 3), 1 + (uint32_t)rnd(&r, 9)),
					 0);
			break;
		case KIND_VCOUNT:
			assert_int_equal(pdb_prof_add_vcount(p, off, 1 + rnd(&r, 1000)), 0);
			break;
		default:
			assert_int_equal(pdb_prof_add_unknown(p, (uint32_t)rnd(&r, 3), off,
							      (unsigned int)rnd(&r, 3),
							      1 + rnd(&r, 9)),
					 0);
		}
	}
	{
		static const unsigned int type[] = { PDB_FT_SAMPLES, PDB_FT_VALUES,
						     PDB_FT_LATENCY, PDB_FT_CONFLICTS,
						     PDB_FT_VCOUNT,  PDB_FT_UNKNOWN };

		assert_int_equal(pdb_encode(p, type[kind], PDB_EV_IMISS, &buf, len), 0);
	}
	pdb_prof_free(p);
	return buf;
}

/* ---------------------------------------------------------------- tests */

static void test_pdb_damage_truncated_every_length(void **state)
{
	unsigned int kind;

	(void)state;
	for (kind = 0; kind < KIND_NR; kind++) {
		size_t len, cut;
		uint8_t *f = sample_file(kind, 6, kind, &len);
		struct ax_error err;

		assert_int_equal(parse(f, len, kind == KIND_INDEX, &err), 0);
		for (cut = 0; cut < len; cut++) {
			uint8_t *t = malloc(cut ? cut : 1); /* exact size: ASan sees any overread */

			memcpy(t, f, cut);
			expect_bad_at(t, cut, kind == KIND_INDEX, cut < 48 ? cut : 32);
			free(t);
		}
		/* One byte too many is damage too. */
		f = realloc(f, len + 1);
		f[len] = 0;
		expect_bad_at(f, len + 1, kind == KIND_INDEX, 32);
		free(f);
	}
}

struct field_case {
	unsigned int at; /* byte offset of the field */
	unsigned int size;
	uint64_t value; /* written there */
	bool fix_crc; /* recompute the header CRC (else it catches the change) */
	uint64_t bad_at; /* the offset the reader must report */
};

static void test_pdb_damage_header_fields(void **state)
{
	size_t len;
	uint8_t *f = sample_file(KIND_SAMPLES, 20, 1, &len), *t;
	uint64_t slen = len - 48, ulen = get(f + 24, 8), n = get(f + 16, 8);
	const struct field_case cases[] = {
		{ 0, 1, 'B', false, 0 }, /* magic */
		{ 3, 1, 'x', true, 0 },
		{ 4, 2, PDB_FORMAT_VERSION + 1, false, 4 }, /* a future version, before its CRC */
		{ 4, 2, 0, true, 4 },
		{ 4, 2, 0xffff, true, 4 },
		{ 6, 2, 0, true, 6 }, /* type */
		{ 6, 2, PDB_FT_NR, true, 6 },
		{ 6, 2, PDB_FT_INDEX, true, 6 },
		{ 6, 2, 0x100 | PDB_FT_SAMPLES, true, 6 },
		{ 8, 4, PDB_FL_ZLIB | PDB_FL_ALIGN4 | 0x10, true, 8 }, /* flags */
		{ 8, 4, 0x80000000u | PDB_FL_ZLIB, true, 8 },
		{ 12, 4, PDB_EV_MAX, true, 12 }, /* event */
		{ 12, 4, 0xffffffffu, true, 12 },
		{ 16, 8, 0, true, 16 }, /* record count */
		{ 16, 8, ulen + 1, true, 16 },
		{ 16, 8, 1ull << 63, true, 16 },
		{ 16, 8, UINT64_MAX, true, 16 },
		{ 24, 8, 0, true, 24 }, /* decompressed length */
		{ 24, 8, PDB_PAYLOAD_MAX + 1, true, 24 },
		{ 24, 8, 1ull << 40, true, 24 },
		{ 24, 8, UINT64_MAX, true, 24 },
		{ 24, 8, slen * PDB_ZLIB_RATIO_MAX + PDB_ZLIB_RATIO_MAX, true, 24 },
		{ 32, 8, slen + 1, true, 32 }, /* stored length */
		{ 32, 8, slen - 1, true, 32 },
		{ 32, 8, UINT64_MAX, true, 32 },
		{ 32, 8, 0, true, 32 },
		{ 40, 4, 0x12345678, false, 44 }, /* payload CRC: the header CRC covers it */
		{ 40, 4, 0x12345678, true, 40 },
		{ 44, 4, 0, false, 44 }, /* header CRC */
	};
	unsigned int i, b;

	(void)state;
	(void)n;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct field_case *c = &cases[i];

		t = malloc(len);
		memcpy(t, f, len);
		le(t + c->at, c->value, c->size);
		if (c->fix_crc)
			fix_hcrc(t);
		assert_memory_not_equal(t, f, len);
		expect_bad_at(t, len, false, c->bad_at);
		free(t);
	}
	/* Any single flipped bit in the header is caught, at or before its field. */
	for (b = 0; b < 48 * 8; b++) {
		struct ax_error err;

		t = malloc(len);
		memcpy(t, f, len);
		t[b / 8] ^= (uint8_t)(1u << (b % 8));
		assert_int_equal(parse(t, len, false, &err), -EBADMSG);
		assert_true(err.offset <= 44);
		free(t);
	}
	/* The future version says so. */
	{
		struct ax_error err;

		t = malloc(len);
		memcpy(t, f, len);
		le(t + 4, PDB_FORMAT_VERSION + 1, 2);
		assert_int_equal(parse(t, len, false, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "newer"));
		free(t);
	}
	free(f);
}

static void test_pdb_damage_payload_checksum(void **state)
{
	unsigned int kind;

	(void)state;
	for (kind = 0; kind < KIND_NR; kind++) {
		size_t len, i;
		uint8_t *f = sample_file(kind, 10, 7 + kind, &len);

		/* Every payload byte flipped: the payload CRC (offset 40) catches it. */
		for (i = 48; i < len; i++) {
			f[i] ^= 0x5a;
			expect_bad_at(f, len, kind == KIND_INDEX, 40);
			f[i] ^= 0x5a;
		}
		free(f);
	}
}

static void test_pdb_damage_garbage_compressed_payload(void **state)
{
	struct hotlist_rng r;
	uint8_t payload[256], *f;
	size_t len, i;
	unsigned int trial;

	(void)state;
	hotlist_rng_seed(&r, 99);
	/* Random bytes announced as a zlib stream, checksums right: refused past the header. */
	for (trial = 0; trial < 200; trial++) {
		size_t plen = 1 + rnd(&r, sizeof(payload));

		for (i = 0; i < plen; i++)
			payload[i] = (uint8_t)rnd(&r, 256);
		f = wrap(PDB_FT_SAMPLES, 0, 0, 1, payload, plen, &len);
		le(f + 8, PDB_FL_ZLIB, 4);
		le(f + 24, 1 + rnd(&r, 5000), 8);
		fix_hcrc(f);
		{
			struct ax_error err;

			assert_int_equal(parse(f, len, false, &err), -EBADMSG);
			assert_true(err.offset >= 16); /* n, lengths or the payload itself */
		}
		free(f);
	}
	/* A good stream announced one byte short, one byte long; with bytes after its end. */
	{
		uint8_t p[64];
		struct ax_error err;

		memset(p, 0, sizeof(p));
		p[0] = 1; /* one record: offset 1, count 0? no: offset 1 then count below */
		f = wrap(PDB_FT_SAMPLES, 0, PDB_FL_ZLIB, 1, p, sizeof(p), &len);
		le(f + 24, sizeof(p) - 1, 8);
		fix_hcrc(f);
		assert_int_equal(parse(f, len, false, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "more than"));
		le(f + 24, sizeof(p) + 1, 8);
		fix_hcrc(f);
		assert_int_equal(parse(f, len, false, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "decompresses to 64"));
		free(f);

		f = wrap(PDB_FT_SAMPLES, 0, PDB_FL_ZLIB, 1, p, sizeof(p), &len);
		f = realloc(f, len + 3);
		memset(f + len, 0, 3);
		len += 3;
		le(f + 32, len - 48, 8);
		fix_crcs(f, len);
		assert_int_equal(parse(f, len, false, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "after the end"));
		free(f);
	}
}

/* Hand-made payloads with right checksums: the record checks. */
static void expect_payload_bad(unsigned int type, unsigned int event, uint64_t n,
			       const struct bytes *p, const char *why)
{
	size_t len;
	unsigned int z;

	for (z = 0; z < 2; z++) { /* stored and compressed */
		uint8_t *f = wrap(type, event, z ? PDB_FL_ZLIB : 0, n, p->b, p->n, &len);
		struct ax_error err;

		bool compressed = get(f + 8, 4) & PDB_FL_ZLIB;

		assert_int_equal(parse(f, len, type == PDB_FT_INDEX, &err), -EBADMSG);
		if (!strstr(err.msg, why))
			fail_msg("expected \"%s\", got: %s", why, err.msg);
		assert_true(err.in_payload == compressed);
		assert_true(compressed || err.offset >= 48);
		free(f);
	}
}

static void expect_payload_ok(unsigned int type, unsigned int event, uint64_t n,
			      const struct bytes *p)
{
	size_t len;
	uint8_t *f = wrap(type, event, 0, n, p->b, p->n, &len);
	struct ax_error err;

	if (parse(f, len, type == PDB_FT_INDEX, &err))
		fail_msg("refused: %s", err.msg);
	free(f);
}

static void test_pdb_damage_bad_records(void **state)
{
	struct bytes p;
	unsigned int i;

	(void)state;
	/* Version-1 files: the columns are read the same in every version (the period record of
	 * version 2's samples files has its own test below). */
	wrap_version = 1;
	/* samples: offsets 8, 9 (strict deltas), counts 1, 2 */
	p.n = 0;
	put_varint(&p, 8);
	put_varint(&p, 0);
	put_varint(&p, 1);
	put_varint(&p, 2);
	expect_payload_ok(PDB_FT_SAMPLES, 3, 2, &p);
	p.b[3] = 0; /* count 0 */
	expect_payload_bad(PDB_FT_SAMPLES, 3, 2, &p, "count 0");
	p.b[3] = 2;
	p.b[p.n++] = 0; /* a byte too many */
	expect_payload_bad(PDB_FT_SAMPLES, 3, 2, &p, "after the last record");
	expect_payload_bad(PDB_FT_SAMPLES, 3, 3, &p, "cannot fit");
	/* a varint longer than 10 bytes, and one past 64 bits */
	p.n = 0;
	for (i = 0; i < 11; i++)
		p.b[p.n++] = 0xff;
	p.b[p.n++] = 1;
	put_varint(&p, 1);
	expect_payload_bad(PDB_FT_SAMPLES, 0, 1, &p, "bad varint");
	p.n = 0;
	for (i = 0; i < 9; i++)
		p.b[p.n++] = 0xff;
	p.b[p.n++] = 0x02; /* bit 64 */
	put_varint(&p, 1);
	expect_payload_bad(PDB_FT_SAMPLES, 0, 1, &p, "bad varint");
	/* offsets that overflow 64 bits, directly and through ALIGN4 scaling */
	p.n = 0;
	put_varint(&p, UINT64_MAX);
	put_varint(&p, 0);
	put_varint(&p, 1);
	put_varint(&p, 1);
	expect_payload_bad(PDB_FT_SAMPLES, 0, 2, &p, "overflow");
	{
		size_t len;
		uint8_t *f;
		struct ax_error err;

		p.n = 0;
		put_varint(&p, 1ull << 62);
		put_varint(&p, 1);
		f = wrap(PDB_FT_VCOUNT, 0, PDB_FL_ALIGN4, 1, p.b, p.n, &len);
		assert_int_equal(parse(f, len, false, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "overflow"));
		free(f);
	}

	/* latency: levels and histogram must agree */
	p.n = 0;
	put_varint(&p, 4);
	for (i = 0; i < PDB_LAT_LEVELS; i++)
		put_varint(&p, i == 1);
	put_varint(&p, 3);
	for (i = 0; i < PDB_LAT_BUCKETS; i++)
		put_varint(&p, i == 2);
	expect_payload_ok(PDB_FT_LATENCY, 0, 1, &p);
	p.b[p.n - 1] = 1; /* hist[15] = 1 too */
	expect_payload_bad(PDB_FT_LATENCY, 0, 1, &p, "disagree");

	/* values: dest 64; a hotlist with a broken checksum */
	{
		struct hotlist h;
		uint8_t packed[HOTLIST_PACKED_MAX];
		int plen;

		assert_int_equal(hotlist_init(&h, 4), 0);
		h.n = 3;
		h.used = 1;
		h.value[0] = 77;
		h.count[0] = 3;
		plen = hotlist_pack(&h, packed, sizeof(packed));
		assert_true(plen > 0);
		p.n = 0;
		put_varint(&p, 16);
		put_varint(&p, 4);
		put_raw(&p, packed, (size_t)plen);
		expect_payload_ok(PDB_FT_VALUES, 0, 1, &p);
		p.b[1] = 64;
		expect_payload_bad(PDB_FT_VALUES, 0, 1, &p, "destination register 64");
		p.b[1] = 4;
		p.b[p.n - 1] ^= 1;
		expect_payload_bad(PDB_FT_VALUES, 0, 1, &p, "hotlist of record 0");
		p.b[p.n - 1] ^= 1;
		p.n -= 1; /* cut inside the hotlist */
		expect_payload_bad(PDB_FT_VALUES, 0, 1, &p, "hotlist");
	}

	/* conflicts: key table order, key index, kind, distance, record order */
	{
		static const struct {
			const char *k1, *k2;
			uint64_t idx, kind, dist, load2, why_i;
		} c[] = {
			{ "", "b-1", 1, 1, 1, 0, 0 }, /* valid */
			{ "b-1", "", 1, 1, 1, 0, 1 }, /* keys out of order */
			{ "b-1", "b-1", 1, 1, 1, 0, 1 }, /* duplicate key */
			{ "", "a/b", 1, 1, 1, 0, 1 }, /* invalid key */
			{ "", "b-1", 2, 1, 1, 0, 2 }, /* index past the table */
			{ "", "b-1", 1, 3, 1, 0, 3 }, /* kind */
			{ "", "b-1", 1, 1, 0, 0, 4 }, /* distance 0 */
			{ "", "b-1", 1, 1, 1ull << 32, 0, 4 }, /* distance past 32 bits */
		};
		static const char *const why[] = { "", "invalid or out of order", "key index",
						   "kind", "distance" };

		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			p.n = 0;
			put_varint(&p, 2);
			put_varint(&p, strlen(c[i].k1));
			put_raw(&p, c[i].k1, strlen(c[i].k1));
			put_varint(&p, strlen(c[i].k2));
			put_raw(&p, c[i].k2, strlen(c[i].k2));
			put_varint(&p, 40); /* load offsets 40, 40 */
			put_varint(&p, c[i].load2);
			put_varint(&p, 0); /* key indexes 0, idx */
			put_varint(&p, c[i].idx);
			put_varint(&p, 8); /* prior offsets */
			put_varint(&p, 8);
			put_varint(&p, 1); /* kinds */
			put_varint(&p, c[i].kind);
			put_varint(&p, 5); /* counts */
			put_varint(&p, 6);
			put_varint(&p, 1); /* distances */
			put_varint(&p, c[i].dist);
			if (c[i].why_i == 0)
				expect_payload_ok(PDB_FT_CONFLICTS, 0, 2, &p);
			else
				expect_payload_bad(PDB_FT_CONFLICTS, 0, 2, &p, why[c[i].why_i]);
		}
		/* the same record twice */
		p.n = 0;
		put_varint(&p, 1);
		put_varint(&p, 0);
		for (i = 0; i < 6; i++) {
			put_varint(&p, i == 0 ? 40 : i == 1 ? 0 : i == 2 ? 0 : 1);
			put_varint(&p, i == 0 ? 0 : i == 1 ? 0 : i == 2 ? 0 : 1);
		}
		expect_payload_bad(PDB_FT_CONFLICTS, 0, 2, &p, "out of order");
		/* no key table at all */
		p.n = 0;
		put_varint(&p, 0);
		expect_payload_bad(PDB_FT_CONFLICTS, 0, 1, &p, "key count");
	}

	/* unknown: event range, pid range, order */
	p.n = 0;
	put_varint(&p, 5); /* pids 5, 5 */
	put_varint(&p, 0);
	put_varint(&p, 100); /* pcs */
	put_varint(&p, 100);
	put_varint(&p, 0); /* events */
	put_varint(&p, 1);
	put_varint(&p, 1); /* counts */
	put_varint(&p, 1);
	expect_payload_ok(PDB_FT_UNKNOWN, 0, 2, &p);
	p.b[5] = 0; /* event 1 -> 0: the same key twice */
	expect_payload_bad(PDB_FT_UNKNOWN, 0, 2, &p, "out of order");
	p.b[5] = PDB_EV_MAX;
	expect_payload_bad(PDB_FT_UNKNOWN, 0, 2, &p, "event");
	p.n = 0;
	put_varint(&p, 1ull << 32);
	put_varint(&p, 4);
	put_varint(&p, 0);
	put_varint(&p, 1);
	expect_payload_bad(PDB_FT_UNKNOWN, 0, 1, &p, "pid");

	/* index: key, path, build-id, flags */
	{
		static const struct {
			const char *key, *path;
			uint64_t bidlen, flags;
			const char *why;
		} c[] = {
			{ "b-1", "/bin/ls", 2, 0, NULL },
			{ "b/1", "/bin/ls", 2, 0, "invalid" },
			{ "unknown", "/bin/ls", 2, 0, "invalid" },
			{ "b-1", "/bin/ls", PDB_BUILD_ID_MAX + 1, 0, "build-id length" },
			{ "b-1", "/bin/ls", 2, 1, "flags" },
		};

		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			p.n = 0;
			put_varint(&p, strlen(c[i].key));
			put_raw(&p, c[i].key, strlen(c[i].key));
			put_varint(&p, strlen(c[i].path));
			put_raw(&p, c[i].path, strlen(c[i].path));
			put_varint(&p, c[i].bidlen);
			memset(p.b + p.n, 0, c[i].bidlen);
			p.n += c[i].bidlen;
			put_varint(&p, 100);
			put_varint(&p, 3);
			put_varint(&p, 50);
			put_varint(&p, c[i].flags);
			if (!c[i].why)
				expect_payload_ok(PDB_FT_INDEX, 0, 1, &p);
			else
				expect_payload_bad(PDB_FT_INDEX, 0, 1, &p, c[i].why);
		}
		/* a NUL inside a path; rows out of order */
		p.n = 0;
		put_varint(&p, 3);
		put_raw(&p, "b-1", 3);
		put_varint(&p, 3);
		put_raw(&p, "a\0b", 3);
		for (i = 0; i < 5; i++)
			put_varint(&p, 0);
		expect_payload_bad(PDB_FT_INDEX, 0, 1, &p, "NUL");
		p.n = 0;
		for (i = 0; i < 2; i++) {
			put_varint(&p, 3);
			put_raw(&p, i ? "b-1" : "b-2", 3);
			put_varint(&p, 0);
			put_varint(&p, 0);
			put_varint(&p, 0);
			put_varint(&p, 0);
			put_varint(&p, 0);
			put_varint(&p, 0);
		}
		expect_payload_bad(PDB_FT_INDEX, 0, 2, &p, "out of order");
		expect_payload_bad(PDB_FT_INDEX, 0, 3, &p, "cannot fit");
	}
	wrap_version = PDB_FORMAT_VERSION;
}

/* Mutate b[0..len) in place (and maybe its length): flips, stores, cuts, growth. */
static size_t mutate(uint8_t *b, size_t len, size_t cap, struct hotlist_rng *r)
{
	unsigned int k, nmut = 1 + (unsigned int)rnd(r, 4);

	for (k = 0; k < nmut && len; k++) {
		size_t at = (size_t)rnd(r, len);

		switch (rnd(r, 6)) {
		case 0:
			b[at] ^= (uint8_t)(1u << rnd(r, 8));
			break;
		case 1:
			b[at] = (uint8_t)rnd(r, 256);
			break;
		case 2:
			b[at] = rnd(r, 2) ? 0xff : 0;
			break;
		case 3:
			len = at; /* cut */
			break;
		case 4:
			if (len < cap) /* insert a byte */
			{
				memmove(b + at + 1, b + at, len - at);
				b[at] = (uint8_t)rnd(r, 256);
				len++;
			}
			break;
		default:
			if (len > 1) { /* delete a byte */
				memmove(b + at, b + at + 1, len - at - 1);
				len--;
			}
		}
	}
	return len;
}

/*
 * Thousands of mutated valid files, raw (mostly stopped by the checksums) and with the envelope
 * rebuilt around a mutated payload (so the record parsers see the damage): every read returns 0
 * or -EBADMSG, and whatever is accepted re-encodes to a file that reads back the same.
 */
static void test_pdb_damage_mutation_loop(void **state)
{
	struct hotlist_rng r;
	unsigned int kind, trial, accepted = 0, refused = 0;

	(void)state;
	hotlist_rng_seed(&r, 2024);
	for (kind = 0; kind < KIND_NR; kind++) {
		size_t flen;
		uint8_t *f = sample_file(kind, 12, 100 + kind, &flen);
		uint8_t *payload = malloc(1 << 16);
		uLongf plen = 1 << 16;
		unsigned int type = (unsigned int)get(f + 6, 2),
			     event = (unsigned int)get(f + 12, 4);
		uint32_t flags = (uint32_t)get(f + 8, 4);

		if (flags & PDB_FL_ZLIB) {
			assert_int_equal(uncompress(payload, &plen, f + 48, (uLong)(flen - 48)),
					 Z_OK);
		} else {
			plen = flen - 48;
			memcpy(payload, f + 48, plen);
		}
		for (trial = 0; trial < 1500; trial++) {
			uint8_t buf[1 << 12], *m;
			size_t len, mlen;
			struct ax_error err;
			bool raw = trial & 1;
			int ret;

			if (raw) {
				assert_true(flen <= sizeof(buf));
				memcpy(buf, f, flen);
				len = mutate(buf, flen, sizeof(buf), &r);
				m = malloc(len ? len : 1);
				memcpy(m, buf, len);
				mlen = len;
			} else {
				uint64_t n = get(f + 16, 8);

				assert_true(plen <= sizeof(buf));
				memcpy(buf, payload, plen);
				len = mutate(buf, plen, sizeof(buf), &r);
				if (rnd(&r, 4) == 0)
					n = rnd(&r, 2 * n + 2);
				m = wrap(type, event,
					 (flags & PDB_FL_ALIGN4) | (rnd(&r, 2) ? PDB_FL_ZLIB : 0),
					 n, buf, len, &mlen);
			}
			ret = parse(m, mlen, kind == KIND_INDEX, &err);
			if (ret) {
				refused++;
			} else {
				accepted++;
				if (kind != KIND_INDEX) {
					/* Accepted input is a valid profile: it survives a round trip. */
					struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
					unsigned int t, ev;

					assert_int_equal(pdb_parse(m, mlen, NAME, p, &err), 0);
					for (t = PDB_FT_SAMPLES; t <= PDB_FT_UNKNOWN; t++)
						for (ev = 0; ev < PDB_EV_MAX; ev++) {
							void *e;
							size_t elen;

							if (pdb_encode(p, t, ev, &e, &elen))
								continue;
							assert_int_equal(
								pdb_parse(e, elen, NAME, q, &err),
								0);
							free(e);
							if (t != PDB_FT_SAMPLES)
								break;
						}
					assert_prof_equal(p, q);
					pdb_prof_free(p);
					pdb_prof_free(q);
				}
			}
			free(m);
		}
		free(payload);
		free(f);
	}
	/* Both outcomes must occur, or the loop tests nothing. */
	assert_true(refused > 1000);
	assert_true(accepted > 100);
	print_message("mutations: %u refused, %u accepted\n", refused, accepted);
}

/* Damage met through the database: the message names the file's path. */
static void test_pdb_damage_through_db(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct ax_error e;
	struct pdb_prof *p = pdb_prof_new(), *q;
	struct pdb_image *list;
	uint8_t *before, *after;
	size_t blen, alen, n;
	char path[4096];
	int fd;

	(void)state;
	assert_int_equal(pdb_open(d, true, &db, &e), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x100, 5), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_IMISS, 0x100, 5), 0);
	assert_int_equal(pdb_store(db, 1, "b-77", p), 0);
	snprintf(path, sizeof(path), "%s", tpath(d, "epoch-1/b-77/CYCLES.prof"));
	before = slurp(path, &blen);
	before[blen - 1] ^= 1;
	spit(path, before, blen);
	assert_int_equal(pdb_load(db, 1, "b-77", &q), -EBADMSG);
	assert_null(q);
	assert_non_null(strstr(pdb_errmsg(db), path));
	assert_non_null(strstr(pdb_errmsg(db), "offset 40"));
	assert_int_equal(pdb_last_error(db)->offset, 40);
	/* A merge into a damaged file fails and leaves it as it was. */
	assert_int_equal(pdb_merge_store(db, 1, "b-77", p), -EBADMSG);
	after = slurp(path, &alen);
	assert_int_equal(alen, blen);
	assert_memory_equal(before, after, blen);
	free(after);
	free(before);

	/* A file where another table's name belongs: the type must match the name. */
	before = slurp(tpath(d, "epoch-1/b-77/IMISS.prof"), &blen);
	spit(path, before, blen);
	free(before);
	assert_int_equal(pdb_load(db, 1, "b-77", &q), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(db), "offset 12"));

	/* A directory where a file should be. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(pdb_load(db, 1, "b-77", &q), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(db), "not a regular file"));
	assert_int_equal(rmdir(path), 0);

	/* A huge (sparse) file is refused before anything is allocated for it. */
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)PDB_PAYLOAD_MAX + 4096), 0);
	close(fd);
	assert_int_equal(pdb_load(db, 1, "b-77", &q), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(db), "larger"));
	assert_int_equal(unlink(path), 0);

	/* A damaged index. */
	{
		struct pdb_image im;

		memset(&im, 0, sizeof(im));
		strcpy(im.key, "b-77");
		im.path = "/bin/true";
		assert_int_equal(pdb_image_add(db, 1, &im), 0);
	}
	snprintf(path, sizeof(path), "%s", tpath(d, "epoch-1/index"));
	before = slurp(path, &blen);
	spit(path, before, blen - 1);
	free(before);
	assert_int_equal(pdb_image_list(db, 1, &list, &n), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(db), "index"));
	assert_non_null(strstr(pdb_errmsg(db), "offset 32"));
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

/* Samples at offsets 8 and 12 (counts 1, 2), then a period record unless samples_p is ~0. */
static void samples_payload(struct bytes *p, uint64_t samples_p, uint64_t events2)
{
	p->n = 0;
	put_varint(p, 8);
	put_varint(p, 3);
	put_varint(p, 1);
	put_varint(p, 2);
	if (samples_p != UINT64_MAX) {
		put_varint(p, samples_p);
		put_varint(p, events2);
	}
}

/* Version 2's period record: round trip, every bad value refused; version 1 has none. */
static void test_pdb_damage_periods(void **state)
{
	static const struct {
		uint64_t samples_p, events2;
		const char *why;
	} bad[] = {
		{ 4, 4 * 12400, "more samples with a period than samples" },
		{ 1, 0, "without" },
		{ 0, 5, "without" },
		{ 2, 3, "below 1" },
		{ 1, 2 * 4294967296ull, "above 2^32 - 1" },
		{ UINT64_MAX, 0, "missing period record" },
	};
	struct pdb_period pr;
	struct ax_error err;
	struct pdb_prof *p;
	struct bytes b;
	double mean;
	uint8_t *f;
	size_t len;

	(void)state;
	samples_payload(&b, 3, 3 * 12400);
	expect_payload_ok(PDB_FT_SAMPLES, PDB_EV_IMISS, 2, &b);
	f = wrap(PDB_FT_SAMPLES, PDB_EV_IMISS, 0, 2, b.b, b.n, &len);
	p = pdb_prof_new();
	assert_int_equal(pdb_parse(f, len, NAME, p, &err), 0);
	assert_true(pdb_prof_mean_period(p, PDB_EV_IMISS, &mean));
	assert_true(mean == 6200);
	assert_false(pdb_prof_mean_period(p, PDB_EV_CYCLES, &mean));
	/* Parsed twice: the records add up like the counts. */
	assert_int_equal(pdb_parse(f, len, NAME, p, &err), 0);
	pdb_prof_period(p, PDB_EV_IMISS, &pr);
	assert_int_equal(pr.samples, 6);
	assert_int_equal(pr.events2, 6 * 12400);
	pdb_prof_free(p);
	free(f);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		samples_payload(&b, bad[i].samples_p, bad[i].events2);
		expect_payload_bad(PDB_FT_SAMPLES, PDB_EV_IMISS, 2, &b, bad[i].why);
	}
	/* Version 1: no record (one is damage), and the profile knows no period. */
	wrap_version = 1;
	samples_payload(&b, 3, 3 * 12400);
	expect_payload_bad(PDB_FT_SAMPLES, PDB_EV_IMISS, 2, &b, "after the last record");
	samples_payload(&b, UINT64_MAX, 0);
	f = wrap(PDB_FT_SAMPLES, PDB_EV_IMISS, 0, 2, b.b, b.n, &len);
	p = pdb_prof_new();
	assert_int_equal(pdb_parse(f, len, NAME, p, &err), 0);
	assert_int_equal(pdb_prof_total(p, PDB_EV_IMISS), 3);
	assert_false(pdb_prof_mean_period(p, PDB_EV_IMISS, &mean));
	pdb_prof_free(p);
	free(f);
	wrap_version = PDB_FORMAT_VERSION;
}

/* Merge records: order, epochs, and no such file type in version 1. */
static void test_pdb_damage_origins(void **state)
{
	struct pdb_origin o[2] = { { 5, 1 }, { 5, 2 } }, *v;
	struct ax_error err;
	struct bytes b;
	uint8_t *f;
	size_t len, n;

	(void)state;
	assert_int_equal(pdb_encode_origins(o, 2, (void **)&f, &len), 0);
	assert_int_equal(pdb_parse_origins(f, len, NAME, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(v, o, sizeof(o));
	free(v);
	free(f);
	o[1].epoch = 1; /* not strictly increasing */
	assert_int_equal(pdb_encode_origins(o, 2, (void **)&f, &len), -EINVAL);
	b.n = 0;
	put_varint(&b, 5);
	put_varint(&b, 0);
	put_varint(&b, 2);
	put_varint(&b, 1);
	f = wrap(PDB_FT_ORIGINS, 0, 0, 2, b.b, b.n, &len);
	assert_int_equal(pdb_parse_origins(f, len, NAME, &v, &n, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "out of order"));
	free(f);
	b.b[3] = 0; /* epoch 0 */
	f = wrap(PDB_FT_ORIGINS, 0, 0, 2, b.b, b.n, &len);
	assert_int_equal(pdb_parse_origins(f, len, NAME, &v, &n, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "epoch 0"));
	free(f);
	b.b[3] = 3;
	wrap_version = 1;
	f = wrap(PDB_FT_ORIGINS, 0, 0, 2, b.b, b.n, &len);
	assert_int_equal(pdb_parse_origins(f, len, NAME, &v, &n, &err), -EBADMSG);
	assert_non_null(strstr(err.msg, "version 1"));
	free(f);
	wrap_version = PDB_FORMAT_VERSION;
	/* A profile reader does not take a merge record. */
	b.b[3] = 3;
	f = wrap(PDB_FT_ORIGINS, 0, 0, 2, b.b, b.n, &len);
	assert_int_equal(parse(f, len, false, &err), -EBADMSG);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdb_damage_truncated_every_length),
		cmocka_unit_test(test_pdb_damage_header_fields),
		cmocka_unit_test(test_pdb_damage_payload_checksum),
		cmocka_unit_test(test_pdb_damage_garbage_compressed_payload),
		cmocka_unit_test(test_pdb_damage_bad_records),
		cmocka_unit_test(test_pdb_damage_periods),
		cmocka_unit_test(test_pdb_damage_origins),
		cmocka_unit_test(test_pdb_damage_mutation_loop),
		cmocka_unit_test(test_pdb_damage_through_db),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
