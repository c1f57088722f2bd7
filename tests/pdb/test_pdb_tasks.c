/* tests/pdb/test_pdb_tasks.c - tasks.prof: samples per (pid, offset, event), file, merge, damage. */
#include "pdb_test.h"

#include <errno.h>
#include <zlib.h>

static void test_tasks_add_rules(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	struct pdb_task *t;
	size_t n;

	(void)state;
	assert_int_equal(pdb_prof_add_task(p, 1000, 0x40, PDB_EV_MAX, 1), -EINVAL);
	assert_int_equal(pdb_prof_add_task(p, 1000, 0x40, PDB_EV_CYCLES, 0), 0); /* no row */
	assert_true(pdb_prof_is_empty(p));
	assert_int_equal(pdb_prof_add_task(p, 1001, 0x40, PDB_EV_CYCLES, 2), 0);
	assert_int_equal(pdb_prof_add_task(p, 1000, 0x40, PDB_EV_CYCLES, 3), 0);
	assert_int_equal(pdb_prof_add_task(p, 1000, 0x40, PDB_EV_CYCLES, 4), 0);
	assert_int_equal(pdb_prof_add_task(p, 1000, 0x40, PDB_EV_IMISS, 1), 0);
	assert_int_equal(pdb_prof_tasks(p, &t, &n), 0);
	assert_int_equal(n, 3); /* sorted by (pid, offset, event) */
	assert_int_equal(t[0].pid, 1000);
	assert_int_equal(t[0].event, PDB_EV_CYCLES);
	assert_int_equal(t[0].count, 7);
	assert_int_equal(t[1].pid, 1000);
	assert_int_equal(t[1].event, PDB_EV_IMISS);
	assert_int_equal(t[2].pid, 1001);
	assert_int_equal(t[2].offset, 0x40);
	assert_int_equal(t[2].count, 2);
	free(t);
	pdb_prof_free(p);
}

static void test_tasks_file_round_trip_and_merge(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct ax_error err;
	struct pdb_task *t;
	size_t len, n;
	void *buf;

	(void)state;
	for (uint32_t pid = 1000; pid < 1003; pid++)
		for (uint64_t off = 0; off < 0x400; off += 4)
			assert_int_equal(pdb_prof_add_task(p, pid, off, PDB_EV_CYCLES, pid + off),
					 0);
	assert_int_equal(pdb_encode(p, PDB_FT_TASKS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "tasks.prof", q, &err), 0);
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_tasks(q, &t, &n), 0);
	assert_int_equal(n, 3 * 256);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t[i].pid, 1000 + i / 256);
		assert_int_equal(t[i].offset, 4 * (i % 256));
		assert_int_equal(t[i].count, 2 * (t[i].pid + t[i].offset));
	}
	free(t);
	/* File types beyond this version's are not tasks.prof nor anything. */
	for (unsigned int type = PDB_FT_NR; type <= PDB_FT_NR + 1; type++) {
		uint8_t *b = buf;

		b[6] = (uint8_t)type;
		b[7] = 0;
		{
			uint32_t c = (uint32_t)crc32(0, b, 44);

			b[44] = (uint8_t)c, b[45] = (uint8_t)(c >> 8), b[46] = (uint8_t)(c >> 16),
			b[47] = (uint8_t)(c >> 24);
		}
		pdb_prof_clear(q);
		assert_int_not_equal(pdb_parse(buf, len, "tasks.prof", q, &err), 0);
		assert_non_null(strstr(err.msg, "file type"));
	}
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* Stored, listed in the manifest, read back, clean under fsck, merged into another database. */
static void test_tasks_in_a_database(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *r;
	struct db_trip trip;
	struct pdb_task *t;
	size_t n;

	(void)state;
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x80, 5), 0);
	assert_int_equal(pdb_prof_add_task(p, 1000, 0x80, PDB_EV_CYCLES, 3), 0);
	assert_int_equal(pdb_prof_add_task(p, 1001, 0x80, PDB_EV_CYCLES, 2), 0);
	trip_store(&trip, p, "b-0123abcd", "epoch-1/b-0123abcd/tasks.prof");
	r = trip_merge_twice(&trip, p, "b-0123abcd");
	assert_int_equal(pdb_prof_tasks(r, &t, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].count, 6);
	assert_int_equal(t[1].count, 4);
	free(t);
	pdb_prof_free(r);
	trip_end_missing(&trip, "b-0123abcd", "epoch-1/b-0123abcd/tasks.prof");
	pdb_prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tasks_add_rules),
		cmocka_unit_test(test_tasks_file_round_trip_and_merge),
		cmocka_unit_test(test_tasks_in_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
