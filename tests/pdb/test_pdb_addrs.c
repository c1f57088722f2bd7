/* tests/pdb/test_pdb_addrs.c - addrs.prof: per-load address and stride hotlists, file, merge. */
#include "pdb_test.h"

#include <errno.h>
#include <zlib.h>

/* A hotlist of n insertions: value v0 f times, then n - f distinct others from 1000. */
static struct hotlist hl(uint64_t v0, unsigned int f, unsigned int n, uint64_t seed)
{
	struct hotlist_rng rng;
	struct hotlist h;

	hotlist_rng_seed(&rng, seed);
	hotlist_init(&h, 16);
	for (unsigned int i = 0; i < n; i++)
		hotlist_insert(&h, i < f ? v0 : 1000 + i, &rng);
	return h;
}

/* The same counting sample: n, tau and every used entry (slots past used are not stored). */
static void same_hotlist(const struct hotlist *a, const struct hotlist *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->tau, b->tau);
	assert_int_equal(a->used, b->used);
	for (uint32_t i = 0; i < a->used; i++) {
		assert_int_equal(a->value[i], b->value[i]);
		assert_int_equal(a->count[i], b->count[i]);
	}
}

static void test_addrs_rules(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	struct hotlist h = hl(0x2000, 10, 10, 1), bad;

	(void)state;
	assert_true(pdb_addr_kind_ok(PDB_ADDR_EA));
	assert_true(pdb_addr_kind_ok(PDB_ADDR_STRIDE));
	assert_false(pdb_addr_kind_ok(0));
	assert_false(pdb_addr_kind_ok(3));
	assert_int_equal(pdb_prof_add_addr(p, 0x100, 3, &h), -EINVAL);
	bad = h;
	bad.n = 0; /* counts above n */
	assert_int_equal(pdb_prof_add_addr(p, 0x100, PDB_ADDR_EA, &bad), -EINVAL);
	assert_true(pdb_prof_is_empty(p));
	pdb_prof_free(p);
}

/* Encode, parse: the same hotlists (a negative stride too); merges merge; damage refused. */
static void test_addrs_file_round_trip_and_merge(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct hotlist ea = hl(0x120010000ull, 180, 200, 1), st = hl((uint64_t)-24, 190, 190, 2);
	struct hotlist ea2 = hl(0x7fff0000ull, 20, 200, 3);
	struct hotlist_item top[1];
	struct ax_error err;
	struct pdb_addr *t;
	size_t len, n;
	void *buf;

	(void)state;
	assert_int_equal(pdb_prof_add_addr(p, 0x120, PDB_ADDR_STRIDE, &st), 0);
	assert_int_equal(pdb_prof_add_addr(p, 0x120, PDB_ADDR_EA, &ea), 0);
	assert_int_equal(pdb_prof_add_addr(p, 0x80, PDB_ADDR_EA, &ea2), 0);
	assert_int_equal(pdb_encode(p, PDB_FT_ADDRS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "addrs.prof", q, &err), 0);
	assert_int_equal(pdb_prof_addrs(q, &t, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t[0].offset, 0x80);
	same_hotlist(&t[0].h, &ea2);
	assert_int_equal(t[1].offset, 0x120);
	assert_int_equal(t[1].kind, PDB_ADDR_EA);
	same_hotlist(&t[1].h, &ea);
	assert_int_equal(t[2].kind, PDB_ADDR_STRIDE);
	assert_int_equal(hotlist_top(&t[2].h, top, 1), 1);
	assert_int_equal(top[0].value, (uint64_t)-24);
	free(t);
	/* merge p into q: n adds */
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_addrs(q, &t, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t[1].h.n, 400);
	assert_int_equal(t[2].h.n, 380);
	assert_int_equal(hotlist_top(&t[2].h, top, 1), 1);
	assert_int_equal(top[0].count, 380);
	free(t);
	assert_flip_refused(buf, len, "addrs.prof");
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* A stored (uncompressed) addrs.prof of records (offset 0x10 + 4 i, kind[i], h) by hand; type
 * is the header's file type. */
static size_t craft(uint8_t *b, unsigned int type, const unsigned int *kind, unsigned int nrec,
		    const uint64_t *offs, const struct hotlist *h)
{
	uint8_t *pl = b + PDB_HEADER_SIZE;
	size_t plen = 0;
	unsigned int i;

	for (i = 0; i < nrec; i++) /* offsets, delta, scaled (small: one byte each) */
		pl[plen++] = (uint8_t)((offs[i] - (i ? offs[i - 1] : 0)) / 4);
	for (i = 0; i < nrec; i++)
		pl[plen++] = (uint8_t)kind[i];
	for (i = 0; i < nrec; i++)
		plen += (size_t)hotlist_pack(h, pl + plen, HOTLIST_PACKED_MAX);
	return put_header(b, type, PDB_FL_ALIGN4, nrec, plen);
}

/* A bad kind, records out of order or repeated, a type of no table: damage, named. */
static void test_addrs_damage_refused(void **state)
{
	uint8_t buf[PDB_HEADER_SIZE + 8 + 2 * HOTLIST_PACKED_MAX];
	struct hotlist h = hl(3, 5, 5, 4);
	struct pdb_prof *q = pdb_prof_new();
	const uint64_t same[2] = { 0x10, 0x10 }, two[2] = { 0x10, 0x20 };
	const unsigned int ea_st[2] = { 1, 2 }, st_ea[2] = { 2, 1 }, bad[2] = { 3, 1 };
	struct ax_error err;
	size_t len;

	(void)state;
	len = craft(buf, PDB_FT_ADDRS, ea_st, 2, same, &h); /* the crafting is right */
	assert_int_equal(pdb_parse(buf, len, "addrs.prof", q, &err), 0);
	assert_false(pdb_prof_is_empty(q));
	pdb_prof_clear(q);
	len = craft(buf, PDB_FT_ADDRS, st_ea, 2, two, &h); /* other offsets: any kind order */
	assert_int_equal(pdb_parse(buf, len, "addrs.prof", q, &err), 0);
	pdb_prof_clear(q);
	len = craft(buf, PDB_FT_ADDRS, st_ea, 2, same, &h);
	assert_int_not_equal(pdb_parse(buf, len, "addrs.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "out of order"));
	len = craft(buf, PDB_FT_ADDRS, bad, 2, two, &h);
	assert_int_not_equal(pdb_parse(buf, len, "addrs.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "kind 3"));
	/* a file type beyond this version's tables: never read as one */
	pdb_prof_clear(q);
	len = craft(buf, PDB_FT_NR, ea_st, 2, two, &h);
	assert_int_not_equal(pdb_parse(buf, len, "x.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "file type"));
	assert_true(pdb_prof_is_empty(q));
	pdb_prof_free(q);
}

/* Through a database: stored, listed in the manifest, read back, clean under fsck, merged. */
static void test_addrs_in_a_database(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *r;
	struct hotlist ea = hl(0x140001000ull, 90, 100, 9), st = hl(24, 80, 80, 10);
	struct db_trip trip;
	struct pdb_addr *t;
	size_t n;

	(void)state;
	assert_int_equal(pdb_prof_add_addr(p, 0x200, PDB_ADDR_EA, &ea), 0);
	assert_int_equal(pdb_prof_add_addr(p, 0x200, PDB_ADDR_STRIDE, &st), 0);
	trip_store(&trip, p, "b-0123abcd", "epoch-1/b-0123abcd/addrs.prof");
	r = trip_merge_twice(&trip, p, "b-0123abcd");
	assert_int_equal(pdb_prof_addrs(r, &t, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].h.n, 200);
	assert_int_equal(t[1].h.n, 160);
	free(t);
	pdb_prof_free(r);
	trip_end_missing(&trip, "b-0123abcd", "epoch-1/b-0123abcd/addrs.prof");
	pdb_prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addrs_rules),
		cmocka_unit_test(test_addrs_file_round_trip_and_merge),
		cmocka_unit_test(test_addrs_damage_refused),
		cmocka_unit_test(test_addrs_in_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
