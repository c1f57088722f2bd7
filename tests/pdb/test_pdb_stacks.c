/* tests/pdb/test_pdb_stacks.c - stacks.prof: sampled call stacks, file, merge, bound, damage. */
#include "pdb_test.h"

#include <errno.h>
#include <zlib.h>

static const struct pdb_frame fa[3] = { { "b-01", 0x120 }, { "b-01", 0x300 }, { "", 0x2000 } };
static const struct pdb_frame fb[2] = { { "b-01", 0x120 }, { "h-0123456789abcdef", 0x44 } };

static void test_stacks_add_rules(void **state)
{
	struct pdb_frame big[1] = { { "b-01", PDB_STK_OFF_MAX + 1 } }, badkey[1] = { { "a/b", 4 } };
	struct pdb_prof *p = pdb_prof_new();

	(void)state;
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_MAX, 0, fa, 3, 1), -EINVAL);
	assert_int_equal(pdb_prof_add_stack(p, 0, 2, fa, 3, 1), -EINVAL); /* unknown flag */
	assert_int_equal(pdb_prof_add_stack(p, 0, 0, fa, PDB_STK_DEPTH_MAX + 1, 1), -EINVAL);
	assert_int_equal(pdb_prof_add_stack(p, 0, PDB_STK_TRUNCATED, NULL, 0, 1), -EINVAL);
	assert_int_equal(pdb_prof_add_stack(p, 0, 0, big, 1, 1), -ERANGE);
	assert_int_equal(pdb_prof_add_stack(p, 0, 0, badkey, 1, 1), -EINVAL);
	assert_int_equal(pdb_prof_add_stack(p, 0, 0, fa, 3, 0), 0); /* count 0: nothing */
	assert_true(pdb_prof_is_empty(p));
	pdb_prof_free(p);
}

/* Encode, parse: the same stacks in file order; merges add counts exactly; damage refused. */
static void test_stacks_file_round_trip_and_merge(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct ax_error err;
	struct pdb_stack *t;
	size_t len, n;
	void *buf;

	(void)state;
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_DMISS, 0, fa, 1, 4), 0);
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_CYCLES, 0, fb, 2, 2), 0);
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_CYCLES, 0, fa, 3, 5), 0);
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_CYCLES, 0, fa, 3, 1), 0); /* adds */
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_CYCLES, PDB_STK_TRUNCATED, fa, 2, 7), 0);
	assert_int_equal(pdb_encode(p, PDB_FT_STACKS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "stacks.prof", q, &err), 0);
	assert_int_equal(pdb_prof_stacks(q, &t, &n), 0);
	assert_int_equal(n, 4);
	/* (event, flags, depth, frames by (key, offset)): fb (2 frames) before fa (3 frames) */
	assert_int_equal(t[0].event, PDB_EV_CYCLES);
	assert_int_equal(t[0].depth, 2);
	assert_int_equal(t[0].flags, 0);
	assert_string_equal(t[0].frame[1].key, "h-0123456789abcdef");
	assert_int_equal(t[0].frame[1].offset, 0x44);
	assert_int_equal(t[1].depth, 3);
	assert_int_equal(t[1].count, 6);
	assert_string_equal(t[1].frame[2].key, "");
	assert_int_equal(t[1].frame[2].offset, 0x2000);
	assert_int_equal(t[2].flags, PDB_STK_TRUNCATED);
	assert_int_equal(t[2].count, 7);
	assert_int_equal(t[3].event, PDB_EV_DMISS);
	assert_int_equal(t[3].count, 4);
	free(t);
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_stacks(q, &t, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(t[1].count, 12);
	assert_int_equal(t[2].count, 14);
	free(t);
	assert_flip_refused(buf, len, "stacks.prof");
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* Past PDB_STK_MAX records a new stack's samples go to the depth-0 record: totals stay exact. */
static void test_stacks_bound_keeps_totals(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct ax_error err;
	size_t len;
	void *buf;
	struct pdb_frame f[1] = { { "b-01", 0 } };
	struct pdb_stack *t;
	uint64_t total = 0;
	size_t n;

	(void)state;
	for (unsigned int i = 0; i < PDB_STK_MAX + 100; i++) {
		f[0].offset = 4 * (uint64_t)i;
		assert_int_equal(pdb_prof_add_stack(p, PDB_EV_CYCLES, 0, f, 1, 2), 0);
	}
	f[0].offset = 0; /* kept before the table filled: still counted in its record */
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_CYCLES, 0, f, 1, 1), 0);
	assert_int_equal(pdb_prof_stacks(p, &t, &n), 0);
	assert_int_equal(n, PDB_STK_MAX + 1);
	assert_int_equal(t[0].depth, 0); /* the depth-0 record sorts first */
	assert_int_equal(t[0].count, 2 * 100);
	assert_int_equal(t[1].frame[0].offset, 0);
	assert_int_equal(t[1].count, 3);
	for (size_t i = 0; i < n; i++)
		total += t[i].count;
	assert_int_equal(total, 2 * (PDB_STK_MAX + 100) + 1);
	free(t);
	/* Written and read back (the depth-0 record first): every kept stack is kept again. */
	assert_int_equal(pdb_encode(p, PDB_FT_STACKS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "stacks.prof", q, &err), 0);
	assert_int_equal(pdb_prof_stacks(q, &t, &n), 0);
	assert_int_equal(n, PDB_STK_MAX + 1);
	assert_int_equal(t[0].count, 2 * 100);
	free(t);
	free(buf);
	pdb_prof_free(q);
	pdb_prof_free(p);
}

/* A stored stacks.prof of the payload pl[0..plen) with nrec records. */
static size_t craft(uint8_t *b, const uint8_t *pl, size_t plen, unsigned int nrec)
{
	memcpy(b + PDB_HEADER_SIZE, pl, plen);
	return put_header(b, PDB_FT_STACKS, 0, nrec, plen);
}

/* Hand-made payloads: a good one reads; each broken rule is damage, named. */
static void test_stacks_damage_refused(void **state)
{
	/* keys: 1 ("b-01"); columns event, flags, depth, count; frames (key index, offset) */
	static const struct {
		uint8_t pl[32];
		size_t len;
		unsigned int nrec;
		const char *why; /* NULL: reads */
	} v[] = {
		{ { 1, 4, 'b', '-', '0', '1', 0, 0, 0, 0, 1, 1, 1, 1, 0, 4, 0, 8 }, 18, 2, NULL },
		{ { 1, 4, 'b', '-', '0', '1', 0, 0, 1, 1, 1, 16 }, 12, 1, "bad frame" },
		{ { 1, 4, 'b', '-', '0', '1', 40, 0, 1, 1, 0, 16 }, 12, 1, "event" },
		{ { 1, 4, 'b', '-', '0', '1', 0, 2, 1, 1, 0, 16 }, 12, 1, "flags" },
		{ { 1, 4, 'b', '-', '0', '1', 0, 0, 63, 1, 0, 16 }, 12, 1, "depth" },
		{ { 1, 4, 'b', '-', '0', '1', 0, 0, 1, 0, 0, 16 }, 12, 1, "count" },
		{ { 1, 4, 'b', '-', '0', '1', 0, 1, 0, 1 }, 10, 1, "flags without frames" },
		{ { 1, 4, 'b', '-', '0', '1', 0, 0, 0, 0, 1, 1, 1, 1, 0, 8, 0, 8 },
		  18,
		  2,
		  "out of order" },
		{ { 1, 4, 'b', '-', '0', '1', 0, 0, 0, 0, 1, 1, 1, 1, 0, 8, 0, 4 },
		  18,
		  2,
		  "out of order" },
		{ { 1, 4, 'b', '-', '0', '1', 0, 0, 1, 1, 0, 16, 9 }, 13, 1, "after the last" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t buf[PDB_HEADER_SIZE + 32];
		size_t len = craft(buf, v[i].pl, v[i].len, v[i].nrec);

		assert_parse_case(i, buf, len, "stacks.prof", v[i].why);
	}
}

/* Stored, listed in the manifest, read back, clean under fsck, merged into another database. */
static void test_stacks_in_a_database(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *r;
	struct db_trip trip;
	struct pdb_stack *t;
	size_t n;

	(void)state;
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x120, 5), 0);
	assert_int_equal(pdb_prof_add_stack(p, PDB_EV_CYCLES, 0, fa, 3, 5), 0);
	trip_store(&trip, p, "b-01", "epoch-1/b-01/stacks.prof");
	r = trip_merge_twice(&trip, p, "b-01");
	assert_int_equal(pdb_prof_stacks(r, &t, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].count, 10);
	assert_int_equal(t[0].depth, 3);
	free(t);
	pdb_prof_free(r);
	trip_end_missing(&trip, "b-01", "epoch-1/b-01/stacks.prof");
	pdb_prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stacks_add_rules),
		cmocka_unit_test(test_stacks_file_round_trip_and_merge),
		cmocka_unit_test(test_stacks_bound_keeps_totals),
		cmocka_unit_test(test_stacks_damage_refused),
		cmocka_unit_test(test_stacks_in_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
