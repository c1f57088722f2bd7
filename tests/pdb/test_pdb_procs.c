/* tests/pdb/test_pdb_procs.c - procs.prof: argument/return/caller hotlists, file, merge, damage. */
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

/* A caller hotlist over p's encoding: calls from (k1, o1) f times, (k2, o2) n - f times. */
static struct hotlist callers(struct pdb_prof *p, const char *k1, uint64_t o1, const char *k2,
			      uint64_t o2, unsigned int f, unsigned int n)
{
	struct hotlist_rng rng;
	struct hotlist h;
	uint64_t v1, v2;

	assert_int_equal(pdb_prof_caller_value(p, k1, o1, &v1), 0);
	assert_int_equal(pdb_prof_caller_value(p, k2, o2, &v2), 0);
	hotlist_rng_seed(&rng, 7);
	hotlist_init(&h, 16);
	for (unsigned int i = 0; i < n; i++)
		hotlist_insert(&h, i < f ? v1 : v2, &rng);
	return h;
}

static void test_procs_rules(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	struct hotlist h = hl(0, 10, 10, 1), bad;
	uint64_t v;

	(void)state;
	assert_true(pdb_proc_reg_ok(PDB_PROC_ARG, 16));
	assert_true(pdb_proc_reg_ok(PDB_PROC_ARG, 53));
	assert_false(pdb_proc_reg_ok(PDB_PROC_ARG, 22));
	assert_false(pdb_proc_reg_ok(PDB_PROC_ARG, 26));
	assert_true(pdb_proc_reg_ok(PDB_PROC_RET, 32));
	assert_false(pdb_proc_reg_ok(PDB_PROC_RET, 1));
	assert_true(pdb_proc_reg_ok(PDB_PROC_CALLER, 26));
	assert_false(pdb_proc_reg_ok(4, 0));
	assert_int_equal(pdb_prof_add_proc(p, 0x100, PDB_PROC_ARG, 22, &h), -EINVAL);
	/* a CALLER value whose key id the profile does not have */
	assert_int_equal(pdb_prof_add_proc(p, 0x100, PDB_PROC_CALLER, 26, &h), -EINVAL);
	bad = h;
	bad.n = 0; /* counts above n */
	assert_int_equal(pdb_prof_add_proc(p, 0x100, PDB_PROC_ARG, 16, &bad), -EINVAL);
	assert_int_equal(pdb_prof_caller_value(p, "b-12", 1ull << 48, &v), -ERANGE);
	assert_int_equal(pdb_prof_caller_value(p, "bad key/", 4, &v), -EINVAL);
	assert_true(pdb_prof_is_empty(p));
	pdb_prof_free(p);
}

/* Encode, parse: the same hotlists, callers decoded to the same images and offsets (whatever
 * the key ids of the reading profile); merges merge the hotlists; damage is refused. */
static void test_procs_file_round_trip_and_merge(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct hotlist a0 = hl(0, 200, 200, 1), a1 = hl(7, 180, 200, 2), ret = hl(42, 150, 200, 3);
	struct hotlist c;
	struct hotlist_item top[2];
	struct ax_error err;
	struct pdb_proc *t;
	const char *key;
	uint64_t off;
	size_t len, n;
	void *buf;

	(void)state;
	/* q interns another key first: its ids differ from p's */
	assert_int_equal(pdb_prof_add_conflict(q, 4, "b-ffff", 8, PDB_CNF_STORE_LOAD, 1, 1), 0);
	c = callers(p, "b-00aa", 0x40, "", 0x20001000, 140, 200);
	assert_int_equal(pdb_prof_add_proc(p, 0x120, PDB_PROC_ARG, 16, &a0), 0);
	assert_int_equal(pdb_prof_add_proc(p, 0x120, PDB_PROC_ARG, 17, &a1), 0);
	assert_int_equal(pdb_prof_add_proc(p, 0x120, PDB_PROC_CALLER, 26, &c), 0);
	assert_int_equal(pdb_prof_add_proc(p, 0x180, PDB_PROC_RET, 0, &ret), 0);
	assert_int_equal(pdb_encode(p, PDB_FT_PROCS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "procs.prof", q, &err), 0);
	assert_int_equal(pdb_prof_procs(q, &t, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(t[0].offset, 0x120);
	assert_int_equal(t[0].kind, PDB_PROC_ARG);
	assert_int_equal(t[0].reg, 16);
	assert_memory_equal(&t[0].h, &a0, sizeof(a0));
	assert_int_equal(t[1].reg, 17);
	assert_int_equal(t[2].kind, PDB_PROC_CALLER);
	assert_int_equal(t[2].h.n, 200);
	assert_int_equal(hotlist_top(&t[2].h, top, 2), 2);
	assert_int_equal(pdb_prof_caller_decode(q, top[0].value, &key, &off), 0);
	assert_string_equal(key, "b-00aa");
	assert_int_equal(off, 0x40);
	assert_int_equal(top[0].count, 140);
	assert_int_equal(pdb_prof_caller_decode(q, top[1].value, &key, &off), 0);
	assert_string_equal(key, "");
	assert_int_equal(off, 0x20001000);
	assert_int_equal(t[3].offset, 0x180);
	assert_int_equal(t[3].kind, PDB_PROC_RET);
	free(t);
	/* merge p into q: the lists merge (n adds), callers keep their images */
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_procs(q, &t, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(t[0].h.n, 400);
	assert_int_equal(t[2].h.n, 400);
	assert_int_equal(hotlist_top(&t[2].h, top, 1), 1);
	assert_int_equal(pdb_prof_caller_decode(q, top[0].value, &key, &off), 0);
	assert_string_equal(key, "b-00aa");
	assert_int_equal(top[0].count, 280);
	free(t);
	assert_flip_refused(buf, len, "procs.prof");
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* A stored (uncompressed) procs.prof of one record (offset 0x10, kind, reg, h) made by hand. */
static size_t craft(uint8_t *b, unsigned int kind, unsigned int reg, const struct hotlist *h)
{
	uint8_t *pl = b + PDB_HEADER_SIZE;
	int hl = hotlist_pack(h, pl + 4, HOTLIST_PACKED_MAX);
	size_t plen = 4 + (size_t)hl;

	pl[0] = 0; /* no keys */
	pl[1] = 4; /* offset 0x10, scaled */
	pl[2] = (uint8_t)kind;
	pl[3] = (uint8_t)reg;
	return put_header(b, PDB_FT_PROCS, PDB_FL_ALIGN4, 1, plen);
}

/* A record with a register its kind cannot have, or a bad kind: damage, named. */
static void test_procs_bad_register_refused(void **state)
{
	uint8_t buf[PDB_HEADER_SIZE + 4 + HOTLIST_PACKED_MAX];
	struct hotlist h = hl(3, 5, 5, 4);
	struct pdb_prof *q = pdb_prof_new();
	struct ax_error err;
	size_t len;

	(void)state;
	len = craft(buf, PDB_PROC_RET, 32, &h); /* the crafting is right: this one reads */
	assert_int_equal(pdb_parse(buf, len, "procs.prof", q, &err), 0);
	assert_false(pdb_prof_is_empty(q));
	pdb_prof_clear(q);
	len = craft(buf, PDB_PROC_RET, 33, &h);
	assert_int_not_equal(pdb_parse(buf, len, "procs.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "register 33"));
	len = craft(buf, 4, 0, &h);
	assert_int_not_equal(pdb_parse(buf, len, "procs.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "kind 4"));
	/* a caller list whose value names key 1 of a file with no keys */
	h.value[0] = 1ull << PDB_PROC_KEY_SHIFT | 0x40;
	len = craft(buf, PDB_PROC_CALLER, 26, &h);
	assert_int_not_equal(pdb_parse(buf, len, "procs.prof", q, &err), 0);
	assert_non_null(strstr(err.msg, "key index"));
	pdb_prof_free(q);
}

/* Through a database: stored, listed in the manifest, read back, clean under fsck, merged into
 * another database. */
static void test_procs_in_a_database(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *r;
	struct hotlist a0 = hl(5, 90, 100, 9), c;
	struct hotlist_item top[1];
	struct db_trip trip;
	struct pdb_proc *t;
	const char *key;
	uint64_t off;
	size_t n;

	(void)state;
	c = callers(p, "b-0123abcd", 0x88, "b-77", 0x10, 70, 100);
	assert_int_equal(pdb_prof_add_proc(p, 0x200, PDB_PROC_ARG, 18, &a0), 0);
	assert_int_equal(pdb_prof_add_proc(p, 0x200, PDB_PROC_CALLER, 26, &c), 0);
	trip_store(&trip, p, "b-0123abcd", "epoch-1/b-0123abcd/procs.prof");
	r = trip_merge_twice(&trip, p, "b-0123abcd");
	assert_int_equal(pdb_prof_procs(r, &t, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].h.n, 200);
	assert_int_equal(t[1].h.n, 200);
	assert_int_equal(hotlist_top(&t[1].h, top, 1), 1);
	assert_int_equal(pdb_prof_caller_decode(r, top[0].value, &key, &off), 0);
	assert_string_equal(key, "b-0123abcd");
	assert_int_equal(off, 0x88);
	free(t);
	pdb_prof_free(r);
	trip_end_missing(&trip, "b-0123abcd", "epoch-1/b-0123abcd/procs.prof");
	pdb_prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_procs_rules),
		cmocka_unit_test(test_procs_file_round_trip_and_merge),
		cmocka_unit_test(test_procs_bad_register_refused),
		cmocka_unit_test(test_procs_in_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
