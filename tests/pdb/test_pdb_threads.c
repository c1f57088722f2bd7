/* tests/pdb/test_pdb_threads.c - threads.prof and per-thread tasks rows: file, merge, bounds, damage. */
#include "pdb_test.h"

#include <errno.h>
#include <zlib.h>

static void add(struct pdb_prof *p, uint32_t pid, uint32_t tid, const char *name)
{
	assert_int_equal(pdb_prof_add_thread(p, pid, tid, name, strlen(name)), 0);
}

/* The names of thread (pid, tid) of p, oldest first, joined by ',' ("" when not kept). */
static const char *names(const struct pdb_prof *p, uint32_t pid, uint32_t tid, uint32_t *flags)
{
	static char buf[PDB_THR_NAMES * (PDB_COMM_MAX + 1) + 1];
	struct pdb_thread *t;
	size_t n;

	buf[0] = 0;
	assert_int_equal(pdb_prof_threads(p, &t, &n), 0);
	for (size_t i = 0; i < n; i++) {
		if (t[i].pid != pid || t[i].tid != tid)
			continue;
		for (uint32_t k = 0; k < t[i].nnames; k++) {
			strcat(buf, k ? "," : "");
			strcat(buf, t[i].name[k]);
		}
		if (flags)
			*flags = t[i].flags;
	}
	free(t);
	return buf;
}

static void test_threads_add_rules(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	uint32_t flags = 99;
	char nm[16];

	(void)state;
	assert_int_equal(pdb_prof_add_thread(p, 1, 1, "", 0), -EINVAL);
	assert_int_equal(pdb_prof_add_thread(p, 1, 1, "0123456789abcdef", 16), -EINVAL);
	assert_int_equal(pdb_prof_add_thread(p, 1, 1, "a\0b", 3), -EINVAL);
	assert_true(pdb_prof_is_empty(p));
	add(p, 1000, 1001, "forkexec");
	add(p, 1000, 1001, "forkexec"); /* the same name again: nothing new */
	add(p, 1000, 1001, "execworker");
	assert_string_equal(names(p, 1000, 1001, &flags), "forkexec,execworker");
	assert_int_equal(flags, 0);
	add(p, 1000, 1001, "forkexec"); /* an old name again becomes the current one */
	assert_string_equal(names(p, 1000, 1001, NULL), "execworker,forkexec");
	/* past PDB_THR_NAMES names the oldest goes, and the thread says so */
	for (int i = 0; i < PDB_THR_NAMES; i++) {
		snprintf(nm, sizeof(nm), "n%d", i);
		add(p, 7, 8, nm);
	}
	assert_string_equal(names(p, 7, 8, &flags), "n0,n1,n2,n3,n4,n5,n6,n7");
	assert_int_equal(flags, 0);
	add(p, 7, 8, "n8");
	assert_string_equal(names(p, 7, 8, &flags), "n1,n2,n3,n4,n5,n6,n7,n8");
	assert_int_equal(flags, PDB_THR_FORGOT);
	assert_int_equal(pdb_prof_threads_lost(p), 0);
	pdb_prof_free(p);
}

/* Encode, parse: the same threads, names and order; merges apply the source's names in order. */
static void test_threads_file_and_merge(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new(), *s = pdb_prof_new();
	struct ax_error err;
	uint32_t flags;
	size_t len, len2;
	void *buf, *buf2;

	(void)state;
	add(p, 1000, 1000, "forkexec");
	add(p, 1001, 1001, "forkexec");
	add(p, 1001, 1001, "execworker");
	add(p, 1000, 4194305, "worker");
	assert_int_equal(pdb_encode(p, PDB_FT_THREADS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "threads.prof", q, &err), 0);
	assert_string_equal(names(q, 1001, 1001, NULL), "forkexec,execworker");
	assert_string_equal(names(q, 1000, 4194305, NULL), "worker");
	assert_int_equal(pdb_encode(q, PDB_FT_THREADS, 0, &buf2, &len2), 0);
	assert_int_equal(len2, len);
	assert_memory_equal(buf, buf2, len);
	free(buf2);
	/* merge: a source that renamed 1000 to "sh" and knows a new thread */
	add(s, 1000, 1000, "sh");
	add(s, 1000, 1000, "forkexec");
	add(s, 2000, 2000, "other");
	assert_int_equal(pdb_prof_merge(q, s), 0);
	assert_string_equal(names(q, 1000, 1000, &flags), "sh,forkexec");
	assert_int_equal(flags, 0);
	assert_string_equal(names(q, 2000, 2000, NULL), "other");
	assert_string_equal(names(q, 1001, 1001, NULL), "forkexec,execworker");
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
	pdb_prof_free(s);
}

/* PDB_THR_MAX threads are kept; the next are counted as lost, in files and merges too. */
static void test_threads_bound(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct ax_error err;
	size_t len, n;
	struct pdb_thread *t;
	void *buf;

	(void)state;
	for (uint32_t i = 0; i < PDB_THR_MAX; i++)
		add(p, 1 + i / 4, 1 + i, "w");
	add(p, 1, 1, "x"); /* a kept thread still takes names */
	add(p, 99999, 99999, "late");
	add(p, 99999, 99999, "later");
	assert_int_equal(pdb_prof_threads_lost(p), 2);
	assert_string_equal(names(p, 1, 1, NULL), "w,x");
	assert_int_equal(pdb_encode(p, PDB_FT_THREADS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "threads.prof", q, &err), 0);
	assert_int_equal(pdb_prof_threads_lost(q), 2);
	assert_int_equal(pdb_prof_threads(q, &t, &n), 0);
	assert_int_equal(n, PDB_THR_MAX);
	free(t);
	/* merging a full table into a full one: each new thread is one more lost */
	pdb_prof_clear(p);
	add(p, 99999, 99999, "a");
	add(p, 99999, 99999, "b");
	add(p, 1, 1, "y");
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_threads_lost(q), 3);
	assert_string_equal(names(q, 1, 1, NULL), "w,x,y");
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* tasks.prof rows by thread: a tid column only when needed, so pid-only files read as tid = pid. */
static void test_tasks_by_thread(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct pdb_task *t;
	struct pdb_unknown *u;
	struct ax_error err;
	size_t len, n;
	uint8_t *buf;

	(void)state;
	assert_int_equal(pdb_prof_add_task_tid(p, 1000, 1000, 0x40, PDB_EV_CYCLES, 3), 0);
	assert_int_equal(pdb_prof_add_task(p, 1001, 0x40, PDB_EV_CYCLES, 2), 0);
	assert_int_equal(pdb_encode(p, PDB_FT_TASKS, 0, (void **)&buf, &len), 0);
	assert_int_equal(buf[8] & PDB_FL_TID, 0); /* every tid its pid: the old layout */
	free(buf);
	assert_int_equal(pdb_prof_add_task_tid(p, 1000, 4194305, 0x40, PDB_EV_CYCLES, 5), 0);
	assert_int_equal(pdb_prof_add_task_tid(p, 1000, 4194305, 0x44, PDB_EV_CYCLES, 1), 0);
	assert_int_equal(pdb_prof_add_task_tid(p, 1000, 4194305, 0x40, PDB_EV_CYCLES, 1), 0);
	assert_int_equal(pdb_encode(p, PDB_FT_TASKS, 0, (void **)&buf, &len), 0);
	assert_int_not_equal(buf[8] & PDB_FL_TID, 0);
	assert_int_equal(pdb_parse(buf, len, "tasks.prof", q, &err), 0);
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_tasks(q, &t, &n), 0);
	assert_int_equal(n, 4); /* sorted by (pid, tid, offset, event) */
	assert_int_equal(t[0].tid, 1000);
	assert_int_equal(t[0].count, 6);
	assert_int_equal(t[1].tid, 4194305);
	assert_int_equal(t[1].offset, 0x40);
	assert_int_equal(t[1].count, 12);
	assert_int_equal(t[2].tid, 4194305);
	assert_int_equal(t[2].offset, 0x44);
	assert_int_equal(t[3].pid, 1001);
	assert_int_equal(t[3].tid, 1001);
	free(t);
	free(buf);
	/* unknown.prof the same way */
	assert_int_equal(pdb_prof_add_unknown_tid(p, 1000, 4194306, 0x20001000, PDB_EV_CYCLES, 4),
			 0);
	assert_int_equal(pdb_prof_add_unknown(p, 1000, 0x20001000, PDB_EV_CYCLES, 1), 0);
	assert_int_equal(pdb_encode(p, PDB_FT_UNKNOWN, 0, (void **)&buf, &len), 0);
	pdb_prof_clear(q);
	assert_int_equal(pdb_parse(buf, len, "unknown.prof", q, &err), 0);
	assert_int_equal(pdb_prof_unknowns(q, &u, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(u[0].tid, 1000);
	assert_int_equal(u[0].count, 1);
	assert_int_equal(u[1].tid, 4194306);
	assert_int_equal(u[1].count, 4);
	free(u);
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* Rows of PDB_THR_MAX threads are kept; a new thread's go to tid 0 of its process, exactly. */
static void test_tasks_thread_bound(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *q = pdb_prof_new();
	struct ax_error err;
	struct pdb_task *t;
	size_t len, n;
	uint64_t sum7 = 0;
	void *buf;

	(void)state;
	for (uint32_t i = 0; i < PDB_THR_MAX; i++)
		assert_int_equal(pdb_prof_add_task_tid(p, 1 + i / 1024, 1 + i, 0x40, 0, 1), 0);
	assert_int_equal(pdb_prof_add_task_tid(p, 1, 1, 0x40, 0, 2), 0); /* known: kept */
	assert_int_equal(pdb_prof_add_task_tid(p, 7, 999999, 0x40, 0, 3), 0); /* new: tid 0 */
	assert_int_equal(pdb_prof_add_task_tid(p, 7, 999998, 0x44, 0, 4), 0);
	assert_int_equal(pdb_prof_tasks(p, &t, &n), 0);
	assert_int_equal(n, PDB_THR_MAX + 2);
	for (size_t i = 0; i < n; i++) {
		assert_true(t[i].tid != 999999 && t[i].tid != 999998);
		if (t[i].pid == 7)
			sum7 += t[i].count;
	}
	assert_int_equal(t[0].count, 3); /* (1, 1) */
	assert_int_equal(sum7, 1024 + 3 + 4);
	free(t);
	/* a file of them reads back the same, and a merge keeps the bound */
	assert_int_equal(pdb_encode(p, PDB_FT_TASKS, 0, &buf, &len), 0);
	assert_int_equal(pdb_parse(buf, len, "tasks.prof", q, &err), 0);
	assert_int_equal(pdb_prof_add_task_tid(q, 8, 888888, 0x40, 0, 5), 0);
	assert_int_equal(pdb_prof_merge(q, p), 0);
	assert_int_equal(pdb_prof_tasks(q, &t, &n), 0);
	assert_int_equal(n, PDB_THR_MAX + 3); /* 888888 went to (8, 0) too */
	free(t);
	free(buf);
	pdb_prof_free(p);
	pdb_prof_free(q);
}

/* A stored file of type and flags with the payload pl[0..plen) of nrec records. */
static size_t craft(uint8_t *b, unsigned int type, uint32_t flags, const uint8_t *pl, size_t plen,
		    uint64_t nrec)
{
	memcpy(b + PDB_HEADER_SIZE, pl, plen);
	return put_header(b, type, flags, nrec, plen);
}

/* Hand-made files: a good one reads; each broken rule is damage, named. */
static void test_threads_damage_refused(void **state)
{
	/* threads: columns pid (delta), tid, flags, names; names (length, bytes); lost */
	static const struct {
		unsigned int type;
		uint32_t flags;
		uint8_t pl[40];
		size_t len;
		uint64_t nrec;
		const char *why; /* NULL: reads */
	} v[] = {
		{ PDB_FT_THREADS,
		  0,
		  { 5, 0, 5, 6, 0, 0, 1, 2, 1, 'a', 1, 'b', 1, 'c', 0 },
		  15,
		  2,
		  NULL },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 1, 1, 'a', 0, 1, 'b' }, 9, 1, "after the last" },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 1, 1, 'a' }, 6, 1, "not kept" },
		{ PDB_FT_THREADS, 0, { 5, 6, 2, 1, 1, 'a', 0 }, 7, 1, "flags" },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 0, 0 }, 5, 1, "name count" },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 9, 1, 'a', 0 }, 7, 1, "name count" },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 1, 0, 0 }, 6, 1, "bad name" },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 1, 2, 'a', 0, 0 }, 8, 1, "bad name" },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 1, 16, 'a', 0 }, 7, 1, "bad name" },
		{ PDB_FT_THREADS, 0, { 5, 6, 0, 2, 1, 'a', 1, 'a', 0 }, 9, 1, "repeats" },
		{ PDB_FT_THREADS,
		  0,
		  { 5, 0, 6, 6, 0, 0, 1, 1, 1, 'a', 1, 'b', 0 },
		  13,
		  2,
		  "out of order" },
		/* tasks: pid, [tid,] offset, event, count */
		{ PDB_FT_TASKS, PDB_FL_TID, { 5, 0, 5, 6, 1, 1, 0, 0, 1, 1 }, 10, 2, NULL },
		{ PDB_FT_TASKS,
		  PDB_FL_TID,
		  { 5, 0, 6, 5, 1, 1, 0, 0, 1, 1 },
		  10,
		  2,
		  "out of order" },
		{ PDB_FT_TASKS, 0, { 5, 0, 1, 0, 0, 0, 1, 1 }, 8, 2, "out of order" },
		{ PDB_FT_TASKS, 0, { 5, 0, 1, 2, 0, 0, 1, 1 }, 8, 2, NULL },
		{ PDB_FT_TASKS, PDB_FL_TID, { 5, 6, 1, 0, 0 }, 5, 1, "count" },
		{ PDB_FT_VCOUNT, PDB_FL_TID, { 1, 1 }, 2, 1, "flags" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t buf[PDB_HEADER_SIZE + 40];
		size_t len = craft(buf, v[i].type, v[i].flags, v[i].pl, v[i].len, v[i].nrec);

		assert_parse_case(i, buf, len, "x.prof", v[i].why);
	}
	/* more records than the bound: refused before reading them */
	{
		size_t plen = PDB_THR_MAX + 100;
		uint8_t *pl = calloc(1, plen), *buf = malloc(PDB_HEADER_SIZE + plen);
		struct pdb_prof *q = pdb_prof_new();
		struct ax_error err = { 0 };
		size_t len;

		assert_non_null(pl);
		assert_non_null(buf);
		len = craft(buf, PDB_FT_THREADS, 0, pl, plen, PDB_THR_MAX + 1ull);
		assert_int_equal(pdb_parse(buf, len, "threads.prof", q, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "more than the table keeps"));
		pdb_prof_free(q);
		free(buf);
		free(pl);
	}
}

/* Stored with the unknown profile: in the epoch directory, listed (bit 43), fsck-clean, merged. */
static void test_threads_in_a_database(void **state)
{
	struct pdb_prof *p = pdb_prof_new(), *r;
	struct db_trip trip;

	(void)state;
	add(p, 1001, 1001, "forkexec");
	add(p, 1001, 1001, "execworker");
	trip_store(&trip, p, PDB_KEY_UNKNOWN, "epoch-1/threads.prof");
	assert_false(file_exists(tpath(trip.dir, "epoch-1/unknown.prof")));
	/* the second database has a name of its own first: the merge keeps it first */
	pdb_prof_clear(p);
	add(p, 1001, 1001, "sh");
	assert_int_equal(pdb_store(trip.db2, 1, PDB_KEY_UNKNOWN, p), 0);
	assert_int_equal(pdb_merge_db(trip.db2, 1, trip.db, 1, 0), 0);
	assert_int_equal(pdb_load(trip.db2, 1, PDB_KEY_UNKNOWN, &r), 0);
	assert_string_equal(names(r, 1001, 1001, NULL), "sh,forkexec,execworker");
	pdb_prof_free(r);
	trip_end_missing(&trip, PDB_KEY_UNKNOWN, "epoch-1/threads.prof");
	pdb_prof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_add_rules),
		cmocka_unit_test(test_threads_file_and_merge),
		cmocka_unit_test(test_threads_bound),
		cmocka_unit_test(test_tasks_by_thread),
		cmocka_unit_test(test_tasks_thread_bound),
		cmocka_unit_test(test_threads_damage_refused),
		cmocka_unit_test(test_threads_in_a_database),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
