/* tests/pdb/test_pdb_profileme.c - the ProfileMe table: rules, file round trip, merge, damage. */
#include "pdb_test.h"

#include <errno.h>

/* A valid aggregate of k samples (r of them retired), with pairs and a known interval. */
static struct pdb_profileme pme(uint64_t k, uint64_t r)
{
	struct pdb_profileme p;

	memset(&p, 0, sizeof(p));
	p.status[0] = r;
	p.status[1] = k - r;
	p.events[2] = r / 2; /* D-cache misses */
	p.events[3] = r / 4; /* of which B-cache misses */
	for (int i = 0; i < PDB_PME_LATS; i++)
		p.lat_sum[i] = r * (uint64_t)(i + 1);
	p.retire_delay_sum = r;
	p.hist[3] = r;
	p.pair_samples = k;
	p.useful = k / 3;
	p.inprog_sum = 10 * k;
	p.wsum = 50 * k;
	p.samples_p = k;
	p.events2 = 1100 * k;
	return p;
}

static void test_pme_rules(void **state)
{
	struct pdb_profileme p = pme(10, 7), b;
	const char *why;
	uint64_t n;

	(void)state;
	assert_int_equal(pdb_profileme_check(&p, &n, &why), 0);
	assert_int_equal(n, 10);
#define BAD(stmt)                                                             \
	do {                                                                  \
		b = p;                                                        \
		stmt;                                                         \
		why = NULL;                                                   \
		assert_int_equal(pdb_profileme_check(&b, &n, &why), -EINVAL); \
		assert_non_null(why);                                         \
	} while (0)
	BAD(memset(b.status, 0, sizeof(b.status)));
	BAD(b.events[6] = 11);
	BAD(b.events[3] = b.events[2] + 1);
	BAD(b.hist[0] = 1);
	BAD(b.useful = b.pair_samples + 1);
	BAD(b.pair_samples = 11);
	BAD(b.wsum = b.pair_samples - 1);
	BAD(b.samples_p = 11);
	BAD(b.events2 = 0);
	BAD((b.samples_p = 0, b.events2 = 5));
#undef BAD
}

/* Encode, parse: the same table; adding adds every column; a bad one is refused whole. */
static void test_pme_file_round_trip_and_merge(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct pdb_profileme a = pme(10, 7), b = pme(4, 4), bad = pme(3, 3);
	struct ax_error err;
	struct pdb_pme *t;
	size_t len, n;
	void *buf;

	(void)state;
	assert_non_null(p);
	assert_non_null(q);
	assert_int_equal(pdb_prof_add_profileme(p, 0x120000010, &a), 0);
	assert_int_equal(pdb_prof_add_profileme(p, 0x120000040, &b), 0);
	assert_int_equal(pdb_prof_add_profileme(p, 0x120000010, &b), 0); /* adds up */
	bad.hist[3] = 2;
	assert_int_equal(pdb_prof_add_profileme(p, 0x120000010, &bad), -EINVAL);
	assert_int_equal(pdb_encode(p, PDB_FT_PROFILEME, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "profileme.prof", q, &err), 0);
	assert_int_equal(pdb_prof_profileme(q, &t, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].offset, 0x120000010);
	assert_int_equal(t[0].pme.status[0], 11);
	assert_int_equal(t[0].pme.status[1], 3);
	assert_int_equal(t[0].pme.lat_sum[4], 55);
	assert_int_equal(t[0].pme.events2, 1100 * 14);
	assert_int_equal(t[0].pme.hist[3], 11);
	assert_memory_equal(&t[1].pme, &b, sizeof(b));
	free(t);
	assert_flip_refused(buf, len, "profileme.prof");
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* Through a database: stored in a transaction, listed in the manifest, read back, clean under
 * fsck, and merged into another database (added). */
static void test_pme_in_a_database(void **state)
{
	struct pdb_profileme a = pme(6, 5);
	struct pdb_prof *p = pdb_prof_new(), *r;
	struct db_trip trip;
	struct pdb_pme *t;
	size_t n;

	(void)state;
	assert_int_equal(pdb_prof_add_profileme(p, 0x120000020, &a), 0);
	trip_store(&trip, p, "b-0123abcd", "epoch-1/b-0123abcd/profileme.prof");
	assert_int_equal(pdb_load(trip.db, 1, "b-0123abcd", &r), 0);
	assert_int_equal(pdb_prof_profileme(r, &t, &n), 0);
	assert_int_equal(n, 1);
	assert_memory_equal(&t[0].pme, &a, sizeof(a));
	free(t);
	pdb_prof_free(r);
	assert_int_equal(pdb_merge_db(trip.db2, 1, trip.db, 1, 0), 0);
	assert_int_equal(pdb_load(trip.db2, 1, "b-0123abcd", &r), 0);
	assert_int_equal(pdb_prof_profileme(r, &t, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(t[0].pme.status[0], 5);
	free(t);
	pdb_prof_free(r);
	trip_end_missing(&trip, "b-0123abcd", "epoch-1/b-0123abcd/profileme.prof");
	pdb_prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pme_rules),
		cmocka_unit_test(test_pme_file_round_trip_and_merge),
		cmocka_unit_test(test_pme_in_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
