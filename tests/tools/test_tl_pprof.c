/* tests/tools/test_tl_pprof.c - the pprof encoder (tl_pprof): what it writes, gunzipped and decoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "tl_pprof.h"

/*
 * An independent reader of protobuf's wire format (varints, tags, length-delimited fields,
 * packed varints) decodes the gunzipped profile back into the few tables the test checks.
 */

struct rd {
	const uint8_t *p, *end;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;

	for (int sh = 0; sh < 64; sh += 7) {
		assert_true(r->p < r->end);
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("varint longer than 10 bytes");
	return 0;
}

/* The next field: its number, wire type, a varint value or a sub-reader. false at the end. */
static int rd_field(struct rd *r, unsigned int *field, uint64_t *v, struct rd *sub)
{
	uint64_t k, len;

	if (r->p == r->end)
		return 0;
	k = rd_varint(r);
	*field = (unsigned int)(k >> 3);
	switch (k & 7) {
	case 0:
		*v = rd_varint(r);
		return 1;
	case 2:
		len = rd_varint(r);
		assert_true(len <= (uint64_t)(r->end - r->p));
		sub->p = r->p;
		sub->end = r->p + len;
		r->p += len;
		return 2;
	default:
		fail_msg("wire type %u is not written by the encoder", (unsigned int)(k & 7));
		return 0;
	}
}

#define MAXN 64

struct decoded {
	char str[MAXN][64];
	size_t nstr;
	uint64_t type[MAXN][2];
	size_t ntypes;
	uint64_t sample_loc[MAXN][4], sample_val[MAXN][4];
	size_t sample_nloc[MAXN], sample_nval[MAXN], nsamples;
	uint64_t loc_id[MAXN], loc_map[MAXN], loc_addr[MAXN], loc_fn[MAXN][4], loc_line[MAXN][4];
	size_t loc_nlines[MAXN], nloc;
	uint64_t fn_id[MAXN], fn_name[MAXN], fn_file[MAXN];
	size_t nfn;
	uint64_t map_id[MAXN], map_start[MAXN], map_limit[MAXN], map_file[MAXN];
	size_t nmap;
	uint64_t comment[MAXN];
	size_t ncomment;
	uint64_t default_type;
};

static void packed(struct rd *r, uint64_t *out, size_t *n)
{
	while (r->p < r->end) {
		assert_true(*n < 4);
		out[(*n)++] = rd_varint(r);
	}
}

static void decode(const uint8_t *b, size_t len, struct decoded *d)
{
	struct rd r = { b, b + len }, s, t;
	unsigned int f, g, h;
	uint64_t v;
	int kind;

	memset(d, 0, sizeof(*d));
	while ((kind = rd_field(&r, &f, &v, &s))) {
		if (f == TL_PB_PROFILE_STRING_TABLE) {
			assert_int_equal(kind, 2);
			assert_true(s.end - s.p < 64 && d->nstr < MAXN);
			memcpy(d->str[d->nstr], s.p, (size_t)(s.end - s.p));
			d->nstr++;
		} else if (f == TL_PB_PROFILE_SAMPLE_TYPE) {
			while (rd_field(&s, &g, &v, &t))
				d->type[d->ntypes][g - 1] = v;
			d->ntypes++;
		} else if (f == TL_PB_PROFILE_SAMPLE) {
			size_t i = d->nsamples++;

			while (rd_field(&s, &g, &v, &t)) {
				if (g == TL_PB_SAMPLE_LOCATION_ID)
					packed(&t, d->sample_loc[i], &d->sample_nloc[i]);
				else if (g == TL_PB_SAMPLE_VALUE)
					packed(&t, d->sample_val[i], &d->sample_nval[i]);
			}
		} else if (f == TL_PB_PROFILE_LOCATION) {
			size_t i = d->nloc++;

			while ((kind = rd_field(&s, &g, &v, &t))) {
				if (g == TL_PB_LOCATION_ID)
					d->loc_id[i] = v;
				else if (g == TL_PB_LOCATION_MAPPING_ID)
					d->loc_map[i] = v;
				else if (g == TL_PB_LOCATION_ADDRESS)
					d->loc_addr[i] = v;
				else if (g == TL_PB_LOCATION_LINE) {
					struct rd u;
					size_t k = d->loc_nlines[i]++;

					while (rd_field(&t, &h, &v, &u))
						(h == TL_PB_LINE_FUNCTION_ID ? d->loc_fn :
									       d->loc_line)[i][k] =
							v;
				}
			}
		} else if (f == TL_PB_PROFILE_FUNCTION) {
			size_t i = d->nfn++;

			while (rd_field(&s, &g, &v, &t)) {
				if (g == TL_PB_FUNCTION_ID)
					d->fn_id[i] = v;
				else if (g == TL_PB_FUNCTION_NAME)
					d->fn_name[i] = v;
				else if (g == TL_PB_FUNCTION_FILENAME)
					d->fn_file[i] = v;
			}
		} else if (f == TL_PB_PROFILE_MAPPING) {
			size_t i = d->nmap++;

			while (rd_field(&s, &g, &v, &t)) {
				if (g == TL_PB_MAPPING_ID)
					d->map_id[i] = v;
				else if (g == TL_PB_MAPPING_MEMORY_START)
					d->map_start[i] = v;
				else if (g == TL_PB_MAPPING_MEMORY_LIMIT)
					d->map_limit[i] = v;
				else if (g == TL_PB_MAPPING_FILENAME)
					d->map_file[i] = v;
			}
		} else if (f == TL_PB_PROFILE_COMMENT) {
			d->comment[d->ncomment++] = v;
		} else if (f == TL_PB_PROFILE_DEFAULT_SAMPLE_TYPE) {
			d->default_type = v;
		}
	}
}

/* gunzip (zlib, windowBits 15 + 16: gzip only). */
static uint8_t *gunzip(const uint8_t *in, size_t n, size_t *outn)
{
	z_stream z = { 0 };
	size_t cap = 1 << 20;
	uint8_t *o = malloc(cap);

	assert_non_null(o);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)in;
	z.avail_in = (uInt)n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	*outn = z.total_out;
	inflateEnd(&z);
	return o;
}

static const char *S(const struct decoded *d, uint64_t i)
{
	assert_true(i < d->nstr);
	return d->str[i];
}

static void test_pprof_roundtrip(void **state)
{
	const char *types[] = { "cycles", "dmiss" };
	struct tl_pprof *p = tl_pprof_new(types, 2, "samples");
	struct decoded *d = calloc(1, sizeof(*d));
	uint8_t *gz, *raw;
	size_t gzn, rawn;

	(void)state;
	assert_non_null(p);
	assert_non_null(d);
	uint64_t m = tl_pprof_mapping(p, 0x120000000, 0x120010000, 0, "/bin/prog", "b-1234", 1);
	uint64_t fmix = tl_pprof_function(p, "hs_mix", "prog.c");
	uint64_t fstep = tl_pprof_function(p, "hs_step", "prog.c");

	assert_int_equal(m, 1);
	assert_int_equal(fmix, 1);
	assert_int_equal(fstep, 2);
	/* the same (name, file) is the same function; another file is another */
	assert_int_equal(tl_pprof_function(p, "hs_mix", "prog.c"), fmix);
	assert_int_equal(tl_pprof_function(p, "hs_mix", "other.c"), 3);
	struct tl_pprof_line inl[2] = { { fstep, 26 }, { fmix, 34 } }, one = { fmix, 31 };
	uint64_t l1 = tl_pprof_location(p, m, 0x1200009f8, inl, 2);
	uint64_t l2 = tl_pprof_location(p, m, 0x1200009c8, &one, 1);
	/* a value past 2^32 and a zero: varints of every length */
	int64_t v1[2] = { 173, 5000000000 }, v2[2] = { 0, 3 };

	assert_int_equal(tl_pprof_sample(p, &l1, 1, v1), 0);
	assert_int_equal(tl_pprof_sample(p, &l2, 1, v2), 0);
	assert_int_equal(tl_pprof_comment(p, "made by the test"), 0);
	assert_int_equal(tl_pprof_encode(p, &gz, &gzn), 0);
	tl_pprof_free(p);
	assert_true(gzn > 18 && gz[0] == 0x1f && gz[1] == 0x8b); /* gzip magic, RFC 1952 */
	raw = gunzip(gz, gzn, &rawn);
	decode(raw, rawn, d);

	assert_string_equal(d->str[0], ""); /* string_table[0] must be "" */
	assert_int_equal(d->ntypes, 2);
	assert_string_equal(S(d, d->type[0][0]), "cycles");
	assert_string_equal(S(d, d->type[1][0]), "dmiss");
	assert_string_equal(S(d, d->type[1][1]), "samples");
	assert_string_equal(S(d, d->default_type), "cycles");
	assert_int_equal(d->nmap, 1);
	assert_int_equal(d->map_start[0], 0x120000000);
	assert_int_equal(d->map_limit[0], 0x120010000);
	assert_string_equal(S(d, d->map_file[0]), "/bin/prog");
	assert_int_equal(d->nfn, 3);
	assert_string_equal(S(d, d->fn_name[1]), "hs_step");
	assert_string_equal(S(d, d->fn_file[2]), "other.c");
	assert_int_equal(d->nloc, 2);
	assert_int_equal(d->loc_addr[0], 0x1200009f8);
	assert_int_equal(d->loc_map[0], 1);
	assert_int_equal(d->loc_nlines[0], 2);
	assert_int_equal(d->loc_fn[0][0], fstep); /* innermost first, the caller last */
	assert_int_equal(d->loc_line[0][0], 26);
	assert_int_equal(d->loc_fn[0][1], fmix);
	assert_int_equal(d->loc_line[0][1], 34);
	assert_int_equal(d->nsamples, 2);
	assert_int_equal(d->sample_nloc[0], 1);
	assert_int_equal(d->sample_loc[0][0], l1);
	assert_int_equal(d->sample_nval[0], 2);
	assert_int_equal(d->sample_val[0][0], 173);
	assert_int_equal(d->sample_val[0][1], 5000000000);
	assert_int_equal(d->sample_nval[1], 2); /* a zero is written inside a packed field */
	assert_int_equal(d->sample_val[1][0], 0);
	assert_int_equal(d->sample_val[1][1], 3);
	assert_int_equal(d->ncomment, 1);
	assert_string_equal(S(d, d->comment[0]), "made by the test");
	free(raw);
	free(gz);
	free(d);
}

/* Interning survives the hash table's growth: many strings, each once. */
static void test_pprof_many_strings(void **state)
{
	const char *types[] = { "cycles" };
	struct tl_pprof *p = tl_pprof_new(types, 1, "samples");
	char name[32];

	(void)state;
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(tl_pprof_function(p, name, "x.c"), (uint64_t)i + 1);
	}
	snprintf(name, sizeof(name), "f%d", 1234);
	assert_int_equal(tl_pprof_function(p, name, "x.c"), 1235);
	tl_pprof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof_roundtrip),
		cmocka_unit_test(test_pprof_many_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
