/* tests/pdb/test_pdb_pmpaths.c - pmpaths.prof: history and partner hotlists, file, merge, damage. */
#include "pdb_test.h"

#include <errno.h>
#include <zlib.h>

/* The estimate of value v in h (0 when absent). */
static uint64_t est(const struct hotlist *h, uint64_t v)
{
	for (unsigned int i = 0; i < h->used; i++)
		if (h->value[i] == v)
			return hotlist_estimate(h, i);
	return 0;
}

/* n samples of offset: history 0x5a5 3 times in 4 else 0x0f0; every other one paired with a
 * partner 12 instructions earlier at 0x400, one pair in 5 with another image. */
static void fill(struct pdb_prof *p, uint64_t offset, unsigned int n)
{
	struct pdb_partner pt = { .offset = 0x400, .dist = 12 };

	for (unsigned int i = 0; i < n; i++) {
		bool paired = i % 2 == 0;
		const struct pdb_partner *x = paired && i % 10 != 0 ? &pt : NULL;

		assert_int_equal(pdb_prof_pmp_sample(p, offset, i % 4 ? 0x5a5 : 0x0f0, paired, x),
				 0);
	}
}

static void test_pmpaths_sample_and_rules(void **state)
{
	struct pdb_partner pt = { .offset = 0x40, .dist = 3, .later = true }, d;
	struct pdb_prof *p = pdb_prof_new();
	struct pdb_pmp *t;
	const char *why = "";
	uint64_t v;
	size_t n;

	(void)state;
	/* partner values round-trip; distance 0 in instructions and huge offsets are refused */
	assert_int_equal(pdb_pmp_partner(&pt, &v), 0);
	assert_int_equal(pdb_pmp_partner_decode(v, &d), 0);
	assert_int_equal(d.offset, 0x40);
	assert_int_equal(d.dist, 3);
	assert_true(d.later);
	assert_false(d.cycles);
	pt.dist = 0;
	assert_int_equal(pdb_pmp_partner(&pt, &v), -EINVAL);
	pt.cycles = true; /* 0 cycles apart is possible */
	assert_int_equal(pdb_pmp_partner(&pt, &v), 0);
	pt.dist = 1u << 20; /* saturates */
	assert_int_equal(pdb_pmp_partner(&pt, &v), 0);
	assert_int_equal(pdb_pmp_partner_decode(v, &d), 0);
	assert_int_equal(d.dist, PDB_PMP_DIST_MAX);
	pt.offset = PDB_PMP_OFF_MAX + 1;
	assert_int_equal(pdb_pmp_partner(&pt, &v), -EINVAL);
	/* a 13-bit history, a partner without a pair: refused, nothing added */
	assert_int_equal(pdb_prof_pmp_sample(p, 0x100, 1u << 12, false, NULL), -EINVAL);
	pt.offset = 8;
	assert_int_equal(pdb_prof_pmp_sample(p, 0x100, 1, false, &pt), -EINVAL);
	assert_true(pdb_prof_is_empty(p));

	fill(p, 0x100, 400);
	assert_int_equal(pdb_prof_pmpaths(p, &t, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].offset, 0x100);
	assert_int_equal(t[0].pp.hist.n, 400);
	/* two values fit the list: counted exactly */
	assert_int_equal(est(&t[0].pp.hist, 0x5a5), 300);
	assert_int_equal(est(&t[0].pp.hist, 0x0f0), 100);
	assert_int_equal(t[0].pp.other, 40);
	assert_int_equal(t[0].pp.partners.n, 160);
	pt = (struct pdb_partner){ .offset = 0x400, .dist = 12 };
	assert_int_equal(pdb_pmp_partner(&pt, &v), 0);
	assert_int_equal(est(&t[0].pp.partners, v), 160);
	assert_int_equal(pdb_pmpath_check(&t[0].pp, &why), 0);
	/* the rules: a wide history value, more pairs than samples, no sample */
	t[0].pp.hist.value[0] |= 1u << 12;
	assert_int_equal(pdb_pmpath_check(&t[0].pp, &why), -EINVAL);
	assert_non_null(strstr(why, "12 bits"));
	t[0].pp.hist.value[0] &= 0xfff;
	t[0].pp.other = 241;
	assert_int_equal(pdb_pmpath_check(&t[0].pp, &why), -EINVAL);
	assert_non_null(strstr(why, "paired"));
	assert_int_equal(pdb_prof_add_pmpath(p, 0x200, &t[0].pp), -EINVAL);
	free(t);
	pdb_prof_free(p);
}

/* Encode, parse: the same lists; a merge adds n and other, keeps the shares; damage refused. */
static void test_pmpaths_file_round_trip_and_merge(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct pdb_pmp *a, *b;
	struct ax_error err;
	size_t len, n, m;
	void *buf;

	(void)state;
	fill(p, 0x100, 400);
	fill(p, 0x1f0, 8);
	assert_int_equal(pdb_encode(p, PDB_FT_PMPATHS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "pmpaths.prof", q, &err), 0);
	assert_int_equal(pdb_prof_pmpaths(p, &a, &n), 0);
	assert_int_equal(pdb_prof_pmpaths(q, &b, &m), 0);
	assert_int_equal(n, 2);
	assert_int_equal(m, 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].offset, b[i].offset);
		assert_int_equal(a[i].pp.other, b[i].pp.other);
		assert_memory_equal(&a[i].pp.hist, &b[i].pp.hist, sizeof(a[i].pp.hist));
		assert_memory_equal(&a[i].pp.partners, &b[i].pp.partners, sizeof(a[i].pp.partners));
	}
	free(b);
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_pmpaths(q, &b, &m), 0);
	assert_int_equal(b[0].pp.hist.n, 800);
	assert_int_equal(b[0].pp.other, 80);
	assert_int_equal(b[0].pp.partners.n, 320);
	assert_int_equal(est(&b[0].pp.hist, 0x5a5), 600);
	assert_int_equal(b[1].pp.hist.n, 16);
	free(a);
	free(b);
	assert_flip_refused(buf, len, "pmpaths.prof");
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* A stored (uncompressed) pmpaths.prof of one record (offset 0x10, other, hist, partners). */
static size_t craft(uint8_t *b, uint8_t other, const struct hotlist *hist,
		    const struct hotlist *partners)
{
	uint8_t *pl = b + PDB_HEADER_SIZE;
	int h1 = hotlist_pack(hist, pl + 2, HOTLIST_PACKED_MAX);
	int h2 = hotlist_pack(partners, pl + 2 + h1, HOTLIST_PACKED_MAX);
	size_t plen = 2 + (size_t)h1 + (size_t)h2;

	pl[0] = 4; /* offset 0x10, scaled */
	pl[1] = other;
	return put_header(b, PDB_FT_PMPATHS, PDB_FL_ALIGN4, 1, plen);
}

/* Records that break a rule, each with a valid checksum: damage, named. */
static void test_pmpaths_damage_refused(void **state)
{
	uint8_t buf[PDB_HEADER_SIZE + 2 + 2 * HOTLIST_PACKED_MAX];
	struct pdb_prof *q = pdb_prof_new();
	struct hotlist_rng rng;
	struct hotlist h, pt, empty;
	struct ax_error err;
	size_t len;

	(void)state;
	hotlist_rng_seed(&rng, 3);
	hotlist_init(&h, 16);
	hotlist_init(&pt, 16);
	hotlist_init(&empty, 16);
	for (unsigned int i = 0; i < 10; i++)
		hotlist_insert(&h, 0x123, &rng);
	for (unsigned int i = 0; i < 4; i++)
		hotlist_insert(&pt, 5ull << PDB_PMP_DIST_SHIFT | 0x80, &rng);
	len = craft(buf, 6, &h, &pt); /* the crafting is right: this one reads */
	assert_int_equal(pdb_parse(buf, len, "pmpaths.prof", q, &err), 0);
	assert_false(pdb_prof_is_empty(q));
	pdb_prof_clear(q);
	len = craft(buf, 7, &h, &pt); /* 7 + 4 pairs of 10 samples */
	assert_int_not_equal(pdb_parse(buf, len, "pmpaths.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "paired samples"));
	len = craft(buf, 0, &empty, &empty); /* no sample */
	assert_int_not_equal(pdb_parse(buf, len, "pmpaths.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "no sample"));
	pt.value[0] = 0x80; /* distance 0 instructions */
	len = craft(buf, 0, &h, &pt);
	assert_int_not_equal(pdb_parse(buf, len, "pmpaths.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "distance 0"));
	h.value[0] = 0x1123; /* 13 bits */
	len = craft(buf, 0, &h, &empty);
	assert_int_not_equal(pdb_parse(buf, len, "pmpaths.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "12 bits"));
	/* truncated: the second hotlist is cut */
	h.value[0] = 0x123;
	len = craft(buf, 0, &h, &empty);
	put_le(buf + 24, len - PDB_HEADER_SIZE - 5, 8);
	put_le(buf + 32, len - PDB_HEADER_SIZE - 5, 8);
	put_le(buf + 40, crc32(0, buf + PDB_HEADER_SIZE, (uInt)(len - PDB_HEADER_SIZE - 5)), 4);
	put_le(buf + 44, crc32(0, buf, 44), 4);
	assert_int_not_equal(pdb_parse(buf, len - 5, "pmpaths.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "pmpaths.prof"));
	pdb_prof_free(q);
}

/* Through a database: stored, in the manifest, read back, clean under fsck, merged across
 * databases, and in a transaction. */
static void test_pmpaths_in_a_database(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *r;
	struct db_trip trip;
	struct pdb_tx *tx;
	struct pdb_pmp *t;
	size_t n;

	(void)state;
	fill(p, 0x200, 100);
	trip_store(&trip, p, "b-0123abcd", "epoch-1/b-0123abcd/pmpaths.prof");
	/* the second store through a transaction */
	assert_int_equal(pdb_merge_db(trip.db2, 1, trip.db, 1, 0), 0);
	assert_int_equal(pdb_tx_begin(trip.db2, &tx), 0);
	assert_int_equal(pdb_tx_merge_store(tx, 1, "b-0123abcd", p), 0);
	assert_int_equal(pdb_tx_commit(tx), 0);
	assert_int_equal(pdb_load(trip.db2, 1, "b-0123abcd", &r), 0);
	assert_int_equal(pdb_prof_pmpaths(r, &t, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].pp.hist.n, 200);
	assert_int_equal(t[0].pp.other, 20);
	assert_int_equal(est(&t[0].pp.hist, 0x5a5), 150);
	free(t);
	pdb_prof_free(r);
	trip_end_missing(&trip, "b-0123abcd", "epoch-1/b-0123abcd/pmpaths.prof");
	pdb_prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmpaths_sample_and_rules),
		cmocka_unit_test(test_pmpaths_file_round_trip_and_merge),
		cmocka_unit_test(test_pmpaths_damage_refused),
		cmocka_unit_test(test_pmpaths_in_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
