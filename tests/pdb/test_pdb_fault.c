/* tests/pdb/test_pdb_fault.c - profile database under injected I/O and allocation failures. */
#include "pdb_test.h"

#include <dirent.h>

/* The file of table (type, event) of p, encoded (NULL when the table is empty). */
static uint8_t *table_bytes(const struct pdb_prof *p, unsigned int type, unsigned int ev,
			    size_t *len)
{
	void *buf;
	int r = pdb_encode(p, type, ev, &buf, len);

	if (r == -ENODATA)
		return NULL;
	assert_int_equal(r, 0);
	return buf;
}

static bool table_same(const struct pdb_prof *a, const struct pdb_prof *b, unsigned int type,
		       unsigned int ev)
{
	size_t la = 0, lb = 0;
	uint8_t *x = table_bytes(a, type, ev, &la), *y = table_bytes(b, type, ev, &lb);
	bool same = la == lb && (!la || !memcmp(x, y, la));

	free(x);
	free(y);
	return same;
}

/* Every table of got equals old's or new's; all old's when all_old. */
static void assert_old_or_new(const struct pdb_prof *got, const struct pdb_prof *old,
			      const struct pdb_prof *new, bool all_old)
{
	unsigned int type, ev;

	for (type = PDB_FT_SAMPLES; type <= PDB_FT_UNKNOWN; type++)
		for (ev = 0; ev < (type == PDB_FT_SAMPLES ? PDB_EV_MAX : 1u); ev++) {
			bool o = table_same(got, old, type, ev);

			if (all_old)
				assert_true(o);
			else
				assert_true(o || table_same(got, new, type, ev));
		}
}

static unsigned int count_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp."))
			n++;
	closedir(d);
	return n;
}

static const struct {
	enum pdb_op op;
	int err;
	bool before_rename; /* every failure of this op happens before the first rename */
} ops[] = {
	{ PDB_OP_ALLOC, ENOMEM, true }, { PDB_OP_OPEN, EMFILE, true },
	{ PDB_OP_READ, EIO, true },	{ PDB_OP_WRITE, ENOSPC, true },
	{ PDB_OP_FSYNC, EIO, false },	{ PDB_OP_RENAME, EIO, false },
	{ PDB_OP_MKDIR, ENOSPC, true },
};

/*
 * pdb_merge_store with the nth call of each operation failing, for every n until the store gets
 * through: the error comes back, no temporary file stays, and each file is old or new — all old
 * when the failure came before the renames.
 */
static void test_pdb_fault_merge_store_keeps_old_files(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct ax_error e;
	struct pdb_prof *p0 = pdb_prof_new(), *inc = pdb_prof_new(), *sum = pdb_prof_new();
	struct hotlist_rng r;
	unsigned int i, failures = 0;

	(void)state;
	hotlist_rng_seed(&r, 5);
	gen_prof(p0, &r, 300, 400, false);
	gen_prof(inc, &r, 300, 400, false);
	assert_int_equal(pdb_prof_merge(sum, p0), 0);
	assert_int_equal(pdb_prof_merge(sum, inc), 0);
	assert_int_equal(pdb_open(d, true, &db, &e), 0);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int nth;

		for (nth = 1;; nth++) {
			struct fault_plan plan = { ops[i].op, nth, ops[i].err, 0, 0 };
			struct pdb_prof *got;
			int ret;

			/* A fresh start: the image directory itself may not exist (MKDIR). */
			assert_int_equal(pdb_store(db, 1, "k", p0), 0);
			pdb_set_fault_hook(fault_cb, &plan);
			ret = pdb_merge_store(db, 1, ops[i].op == PDB_OP_MKDIR ? "k2" : "k", inc);
			pdb_set_fault_hook(NULL, NULL);
			if (!plan.fired) {
				assert_int_equal(ret, 0);
				break;
			}
			failures++;
			assert_int_equal(ret, -ops[i].err);
			assert_true(strlen(pdb_errmsg(db)) > 0);
			if (ops[i].op == PDB_OP_MKDIR) {
				assert_int_equal(pdb_load(db, 1, "k2", &got), -ENOENT);
				continue;
			}
			/* A failure after the commit point leaves the journal: recovery ends it. */
			assert_int_equal(pdb_recover(db), 0);
			assert_int_equal(count_temps(tpath(d, "epoch-1/k")), 0);
			assert_int_equal(pdb_load(db, 1, "k", &got), 0);
			assert_old_or_new(got, p0, sum, ops[i].before_rename);
			pdb_prof_free(got);
		}
		print_message("%-2u: failed at %d points\n", ops[i].op, nth - 1);
		/* After the run that got through, the merge is all there. */
		{
			struct pdb_prof *got;

			assert_int_equal(
				pdb_load(db, 1, ops[i].op == PDB_OP_MKDIR ? "k2" : "k", &got), 0);
			assert_prof_equal(got, ops[i].op == PDB_OP_MKDIR ? inc : sum);
			pdb_prof_free(got);
		}
	}
	/* Every operation was failed at least once, allocation many times. */
	assert_true(failures > 50);
	pdb_prof_free(p0);
	pdb_prof_free(inc);
	pdb_prof_free(sum);
	pdb_close(db);
	tdir_free(d);
}

/* Index, epoch and unknown-profile updates under failures: old content or the error. */
static void test_pdb_fault_index_and_epochs(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct ax_error e;
	struct pdb_image im, *list;
	size_t n;
	unsigned int i;
	int nth;

	(void)state;
	assert_int_equal(pdb_open(d, true, &db, &e), 0);
	memset(&im, 0, sizeof(im));
	strcpy(im.key, "b-01");
	im.path = "/bin/one";
	assert_int_equal(pdb_image_add(db, 1, &im), 0);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (nth = 1;; nth++) {
			struct fault_plan plan = { ops[i].op, nth, ops[i].err, 0, 0 };
			uint32_t epoch = 0, cur;
			int ret;

			strcpy(im.key, "b-02");
			im.path = "/bin/two";
			pdb_set_fault_hook(fault_cb, &plan);
			ret = pdb_image_add(db, 1, &im);
			if (!ret)
				ret = pdb_epoch_new(db, &epoch);
			pdb_set_fault_hook(NULL, NULL);
			assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
			if (!plan.fired) {
				assert_int_equal(ret, 0);
				assert_int_equal(n, 2);
				assert_int_equal(pdb_epoch_current(db, &cur), 0);
				assert_int_equal(cur, epoch);
				pdb_image_list_free(list, n);
				break;
			}
			assert_int_equal(ret, -ops[i].err);
			/* The index is one version or the other, whole. */
			assert_true(n == 1 || n == 2);
			assert_string_equal(list[0].path, "/bin/one");
			pdb_image_list_free(list, n);
			assert_int_equal(count_temps(d), 0);
			assert_int_equal(count_temps(tpath(d, "epoch-1")), 0);
			/* DIR/current names an existing epoch either way. */
			assert_int_equal(pdb_epoch_current(db, &cur), 0);
			/* Back to one image for the next round. */
			strcpy(im.key, "b-01");
			im.path = "/bin/one";
			assert_int_equal(unlink(tpath(d, "epoch-1/index")), 0);
			assert_int_equal(pdb_image_add(db, 1, &im), 0);
		}
		strcpy(im.key, "b-01");
		im.path = "/bin/one";
		assert_int_equal(unlink(tpath(d, "epoch-1/index")), 0);
		assert_int_equal(pdb_image_add(db, 1, &im), 0);
	}
	pdb_close(db);
	tdir_free(d);
}

/* The epochs (as numbers, ascending) and the current one, as one comparable value. */
static void epochs_state(struct pdb_db *db, uint32_t *max, size_t *n, uint32_t *cur)
{
	uint32_t *ep;

	assert_int_equal(pdb_epoch_list(db, &ep, n), 0);
	*max = *n ? ep[*n - 1] : 0;
	free(ep);
	assert_int_equal(pdb_epoch_current(db, cur), 0);
}

/*
 * pdb_epoch_new with each operation failing at each point (issue 12, defect 7): the error, and
 * the epochs and DIR/current as they were (no empty epoch left behind), unless DIR/current was
 * already replaced (only its directory's fsync failed): then the epoch is whole. Either way the
 * next epoch gets the next number; an empty epoch a crash left above the current one is reused.
 */
static void test_pdb_fault_epoch_new_all_or_nothing(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct ax_error e;
	uint32_t want = 2, got, max, cur;
	unsigned int i, failures = 0;
	size_t n;

	(void)state;
	assert_int_equal(pdb_open(d, true, &db, &e), 0);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (int nth = 1;; nth++) {
			struct fault_plan plan = { ops[i].op, nth, ops[i].err, 0, 0 };
			int ret;

			pdb_set_fault_hook(fault_cb, &plan);
			ret = pdb_epoch_new(db, &got);
			pdb_set_fault_hook(NULL, NULL);
			epochs_state(db, &max, &n, &cur);
			if (!ret) {
				assert_int_equal(got, want);
				assert_int_equal(cur, want);
				assert_int_equal(max, want);
				assert_int_equal(n, want);
				want++;
				if (!plan.fired)
					break;
				continue;
			}
			failures++;
			assert_int_equal(ret, -ops[i].err);
			assert_int_equal(count_temps(d), 0);
			if (cur == want) { /* only the fsync after the rename failed */
				assert_int_equal(ops[i].op, PDB_OP_FSYNC);
				assert_int_equal(max, want);
				want++;
				continue;
			}
			assert_int_equal(cur, want - 1);
			assert_int_equal(max, want - 1);
			assert_int_equal(n, want - 1);
		}
	}
	assert_true(failures >= 6);
	/* A crash between the mkdir and DIR/current: the empty epoch is the next one. */
	assert_int_equal(mkdir(tpath(d, "epoch-50"), 0755), 0); /* a merge --into's, not empty */
	assert_int_equal(mkdir(tpath(d, "epoch-50/k"), 0755), 0);
	assert_int_equal(pdb_epoch_new(db, &got), 0);
	assert_int_equal(got, 51);
	assert_int_equal(mkdir(tpath(d, "epoch-52"), 0755), 0);
	assert_int_equal(pdb_epoch_new(db, &got), 0);
	assert_int_equal(got, 52);
	assert_int_equal(pdb_epoch_new(db, &got), 0);
	assert_int_equal(got, 53);
	pdb_close(db);
	tdir_free(d);
}

/* Allocation failures anywhere in load and in profile building: -ENOMEM, nothing leaked. */
static void test_pdb_fault_alloc_everywhere(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct ax_error e;
	struct pdb_prof *p = pdb_prof_new(), *got;
	struct hotlist_rng r;
	unsigned int nomem = 0;
	int nth;

	(void)state;
	hotlist_rng_seed(&r, 8);
	gen_prof(p, &r, 200, 300, false);
	assert_int_equal(pdb_open(d, true, &db, &e), 0);
	assert_int_equal(pdb_store(db, 1, "k", p), 0);
	for (nth = 1;; nth++) {
		struct fault_plan plan = { PDB_OP_ALLOC, nth, ENOMEM, 0, 0 };
		int ret;

		pdb_set_fault_hook(fault_cb, &plan);
		ret = pdb_load(db, 1, "k", &got);
		pdb_set_fault_hook(NULL, NULL);
		if (!plan.fired) {
			assert_int_equal(ret, 0);
			assert_prof_equal(got, p);
			pdb_prof_free(got);
			break;
		}
		assert_int_equal(ret, -ENOMEM);
		assert_null(got);
		nomem++;
	}
	assert_true(nomem > 10);

	/* Building a profile: a failed add leaves it usable. */
	for (nth = 1; nth < 40; nth++) {
		struct fault_plan plan = { PDB_OP_ALLOC, nth, ENOMEM, 0, 0 };
		struct pdb_prof *q;
		struct hotlist_rng r2;
		unsigned int k;
		bool failed = false;

		hotlist_rng_seed(&r2, 1);
		pdb_set_fault_hook(fault_cb, &plan);
		q = pdb_prof_new();
		for (k = 0; q && k < 200; k++) {
			int ret =
				pdb_prof_add_conflict(q, 4 * k, k & 1 ? "b-1" : "b-2", 8, 1, 1, 1);

			if (ret) {
				assert_int_equal(ret, -ENOMEM);
				failed = true;
			}
			ret = pdb_prof_add_sample(q, k % 3, 4 * k, 1);
			if (ret) {
				assert_int_equal(ret, -ENOMEM);
				failed = true;
			}
		}
		pdb_set_fault_hook(NULL, NULL);
		assert_true(!q || failed || !plan.fired);
		if (q) {
			assert_int_equal(pdb_prof_add_sample(q, 0, 12345, 1), 0);
			assert_int_equal(pdb_prof_count(q, 0, 12345), 1);
		}
		pdb_prof_free(q);
	}
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

static void test_pdb_fault_open_create(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct ax_error e;
	struct fault_plan plan = { PDB_OP_MKDIR, 1, EACCES, 0, 0 };

	(void)state;
	pdb_set_fault_hook(fault_cb, &plan);
	assert_int_equal(pdb_open(tpath(d, "db"), true, &db, &e), -EACCES);
	pdb_set_fault_hook(NULL, NULL);
	assert_null(db);
	assert_non_null(strstr(e.msg, "mkdir"));
	assert_non_null(strstr(e.msg, "db"));
	/* The epoch's directory fails: the database directory is there, no epoch yet. */
	plan.seen = 0;
	plan.nth = 2;
	pdb_set_fault_hook(fault_cb, &plan);
	assert_int_equal(pdb_open(tpath(d, "db"), true, &db, &e), -EACCES);
	pdb_set_fault_hook(NULL, NULL);
	assert_non_null(strstr(e.msg, "epoch-1"));
	assert_int_equal(pdb_open(tpath(d, "db"), false, &db, &e), -ENOENT);
	assert_int_equal(pdb_open(tpath(d, "db"), true, &db, &e), 0);
	pdb_close(db);
	tdir_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdb_fault_merge_store_keeps_old_files),
		cmocka_unit_test(test_pdb_fault_index_and_epochs),
		cmocka_unit_test(test_pdb_fault_epoch_new_all_or_nothing),
		cmocka_unit_test(test_pdb_fault_alloc_everywhere),
		cmocka_unit_test(test_pdb_fault_open_create),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
