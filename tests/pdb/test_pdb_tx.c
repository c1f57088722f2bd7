/* tests/pdb/test_pdb_tx.c - database transactions: commit, abort, faults, journal recovery. */
#include "pdb_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>

static const char *const keys[] = { "b-01", "b-02", "b-03" };
#define NKEYS 3

/* Temporary files anywhere under dir (one level of epochs and images). */
static unsigned int count_temps(const char *dir, int depth)
{
	char sub[4096];
	struct dirent *e;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp."))
			n++;
		else if (depth && e->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
			n += count_temps(sub, depth - 1);
		}
	}
	closedir(d);
	return n;
}

static void image_of(struct pdb_image *im, const char *key)
{
	memset(im, 0, sizeof(*im));
	snprintf(im->key, sizeof(im->key), "%s", key);
	im->path = "/bin/x";
	im->size = 100;
}

/* The profiles of the test: base[k] stored first, inc[k] merged by the transaction. */
struct fixture {
	struct pdb_prof *base[NKEYS], *inc[NKEYS], *sum[NKEYS];
	struct pdb_prof *ubase, *uinc, *usum;
};

static void fixture_init(struct fixture *f)
{
	struct hotlist_rng r;
	unsigned int k;

	hotlist_rng_seed(&r, 77);
	for (k = 0; k < NKEYS; k++) {
		f->base[k] = pdb_prof_new();
		f->inc[k] = pdb_prof_new();
		f->sum[k] = pdb_prof_new();
		gen_prof(f->base[k], &r, 30, 100, true);
		gen_prof(f->inc[k], &r, 30, 100, true);
		assert_int_equal(pdb_prof_merge(f->sum[k], f->base[k]), 0);
		assert_int_equal(pdb_prof_merge(f->sum[k], f->inc[k]), 0);
	}
	f->ubase = pdb_prof_new();
	f->uinc = pdb_prof_new();
	f->usum = pdb_prof_new();
	assert_int_equal(pdb_prof_add_unknown(f->ubase, 10, 0x1000, 0, 3), 0);
	assert_int_equal(pdb_prof_add_unknown(f->uinc, 10, 0x1000, 0, 4), 0);
	assert_int_equal(pdb_prof_add_unknown(f->uinc, 11, 0x2000, 1, 5), 0);
	assert_int_equal(pdb_prof_merge(f->usum, f->ubase), 0);
	assert_int_equal(pdb_prof_merge(f->usum, f->uinc), 0);
}

static void fixture_exit(struct fixture *f)
{
	for (unsigned int k = 0; k < NKEYS; k++) {
		pdb_prof_free(f->base[k]);
		pdb_prof_free(f->inc[k]);
		pdb_prof_free(f->sum[k]);
	}
	pdb_prof_free(f->ubase);
	pdb_prof_free(f->uinc);
	pdb_prof_free(f->usum);
}

/* A database holding the base profiles of keys 0 and 1 (key 2 is new to the transaction). */
static struct pdb_db *base_db(const char *d, const struct fixture *f)
{
	struct pdb_image im;
	struct pdb_db *db;

	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	for (unsigned int k = 0; k < 2; k++) {
		image_of(&im, keys[k]);
		assert_int_equal(pdb_image_add(db, 1, &im), 0);
		assert_int_equal(pdb_store(db, 1, keys[k], f->base[k]), 0);
	}
	assert_int_equal(pdb_store(db, 1, PDB_KEY_UNKNOWN, f->ubase), 0);
	return db;
}

/* Merge every increment, index key 2, in one transaction: 0 or the first failure. */
static int run_tx(struct pdb_db *db, const struct fixture *f, bool commit)
{
	struct pdb_image im;
	struct pdb_tx *tx;
	int err;

	err = pdb_tx_begin(db, &tx);
	if (err)
		return err;
	image_of(&im, keys[2]);
	err = pdb_tx_image_add(tx, 1, &im);
	for (unsigned int k = 0; !err && k < NKEYS; k++)
		err = pdb_tx_merge_store(tx, 1, keys[k], f->inc[k]);
	if (!err)
		err = pdb_tx_merge_store(tx, 1, PDB_KEY_UNKNOWN, f->uinc);
	if (!commit) {
		pdb_tx_abort(tx);
		return err;
	}
	return err ? (pdb_tx_abort(tx), err) : pdb_tx_commit(tx);
}

/* 0: the database is exactly as before the transaction, 1: exactly as after; fails on a mix. */
static int which_state(const char *d, const struct fixture *f)
{
	struct pdb_image *list;
	struct pdb_prof *p;
	struct pdb_db *db;
	size_t n;
	int state;

	assert_int_equal(pdb_open(d, false, &db, NULL), 0);
	assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
	state = n == 3 && (list[2].flags & PDB_IMG_INDEXED);
	if (!state)
		assert_int_equal(n, 2);
	pdb_image_list_free(list, n);
	for (unsigned int k = 0; k < NKEYS; k++) {
		if (k == 2 && !state) {
			assert_int_equal(pdb_load(db, 1, keys[k], &p), -ENOENT);
			continue;
		}
		assert_int_equal(pdb_load(db, 1, keys[k], &p), 0);
		assert_prof_equal(p, k == 2 ? f->inc[k] : state ? f->sum[k] : f->base[k]);
		pdb_prof_free(p);
	}
	assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &p), 0);
	assert_prof_equal(p, state ? f->usum : f->ubase);
	pdb_prof_free(p);
	pdb_close(db);
	return state;
}

static void test_pdb_tx_commit_applies_all(void **state)
{
	char *d = tdir_new();
	struct fixture f;
	struct pdb_prof *p;
	struct pdb_tx *tx;
	struct pdb_db *db;

	(void)state;
	fixture_init(&f);
	db = base_db(d, &f);
	assert_int_equal(which_state(d, &f), 0);
	/* Inside the transaction its reads see what it staged; the files are still the old ones. */
	assert_int_equal(pdb_tx_begin(db, &tx), 0);
	{
		struct pdb_tx *tx2;

		assert_int_equal(pdb_tx_begin(db, &tx2), -EBUSY);
		assert_null(tx2);
	}
	assert_int_equal(pdb_tx_merge_store(tx, 1, keys[0], f.inc[0]), 0);
	assert_int_equal(pdb_tx_merge_store(tx, 1, keys[0], f.inc[0]), 0);
	assert_int_equal(pdb_load(db, 1, keys[0], &p), 0);
	assert_int_equal(pdb_prof_total(p, PDB_EV_CYCLES),
			 pdb_prof_total(f.base[0], PDB_EV_CYCLES) +
				 2 * pdb_prof_total(f.inc[0], PDB_EV_CYCLES));
	pdb_prof_free(p);
	assert_int_equal(pdb_tx_merge_store(tx, 1, keys[2], f.inc[2]), 0);
	assert_false(file_exists(tpath(d, "epoch-1/%s/CYCLES.prof", keys[2])));
	pdb_tx_abort(tx);
	assert_int_equal(which_state(d, &f), 0);
	assert_int_equal(run_tx(db, &f, true), 0);
	assert_int_equal(which_state(d, &f), 1);
	assert_false(file_exists(tpath(d, "journal")));
	assert_int_equal(count_temps(d, 2), 0);
	pdb_close(db);
	fixture_exit(&f);
	tdir_free(d);
}

static void test_pdb_tx_abort_applies_none(void **state)
{
	char *d = tdir_new();
	struct fixture f;
	struct pdb_db *db;

	(void)state;
	fixture_init(&f);
	db = base_db(d, &f);
	assert_int_equal(run_tx(db, &f, false), 0);
	assert_int_equal(which_state(d, &f), 0);
	assert_int_equal(count_temps(d, 2), 0);
	/* The image directory the transaction made went with it. */
	assert_false(file_exists(tpath(d, "epoch-1/%s", keys[2])));
	/* A failed operation poisons the transaction: the commit returns it, applies nothing. */
	{
		struct pdb_prof *bad = pdb_prof_new();
		struct pdb_tx *tx;

		assert_int_equal(pdb_prof_add_unknown(bad, 1, 4, 0, 1), 0);
		assert_int_equal(pdb_tx_begin(db, &tx), 0);
		assert_int_equal(pdb_tx_merge_store(tx, 1, keys[0], f.inc[0]), 0);
		assert_int_equal(pdb_tx_store(tx, 1, keys[1], bad), -EINVAL);
		assert_int_equal(pdb_tx_merge_store(tx, 1, keys[1], f.inc[1]), -EINVAL);
		assert_int_equal(pdb_tx_commit(tx), -EINVAL);
		pdb_prof_free(bad);
	}
	assert_int_equal(which_state(d, &f), 0);
	assert_int_equal(count_temps(d, 2), 0);
	pdb_close(db);
	fixture_exit(&f);
	tdir_free(d);
}

/*
 * The nth call of every operation fails, for every n until the transaction gets through: the
 * database (after recovery by the next opener) is exactly before or exactly after, no temporary
 * file stays, and the state is "after" exactly when the commit point (the journal) was passed.
 */
static void test_pdb_tx_fault_every_step(void **state)
{
	static const struct {
		enum pdb_op op;
		int err;
	} ops[] = {
		{ PDB_OP_ALLOC, ENOMEM }, { PDB_OP_OPEN, EMFILE }, { PDB_OP_READ, EIO },
		{ PDB_OP_WRITE, ENOSPC }, { PDB_OP_FSYNC, EIO },   { PDB_OP_RENAME, EIO },
		{ PDB_OP_MKDIR, ENOSPC }, { PDB_OP_UNLINK, EIO },
	};
	unsigned int befores = 0, afters = 0;
	struct fixture f;

	(void)state;
	fixture_init(&f);
	for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int nth;

		/* Every point; every third allocation (there are hundreds: keep make check fast). */
		for (nth = 1;; nth += ops[i].op == PDB_OP_ALLOC ? 3 : 1) {
			struct fault_plan plan = { ops[i].op, nth, ops[i].err, 0, 0 };
			char *d = tdir_new();
			struct pdb_db *db = base_db(d, &f);
			bool journal, committed;
			int ret, st;

			pdb_set_fault_hook(fault_cb, &plan);
			ret = run_tx(db, &f, true);
			pdb_set_fault_hook(NULL, NULL);
			journal = file_exists(tpath(d, "journal"));
			committed = pdb_tx_committed(db);
			pdb_close(db);
			if (!plan.fired) {
				assert_int_equal(ret, 0);
				assert_int_equal(which_state(d, &f), 1);
				tdir_free(d);
				break;
			}
			assert_int_equal(ret, -ops[i].err);
			/* A reader finishes a committed transaction; an uncommitted one is gone. */
			st = which_state(d, &f);
			assert_false(file_exists(tpath(d, "journal")));
			if (journal)
				assert_int_equal(st, 1);
			/* pdb_tx_committed() tells which: a retry knows whether to redo it. */
			assert_int_equal(st, committed);
			st ? afters++ : befores++;
			/* A writer's open removes what an uncommitted transaction left. */
			assert_int_equal(pdb_open(d, true, &db, NULL), 0);
			pdb_close(db);
			assert_int_equal(count_temps(d, 2), 0);
			assert_int_equal(which_state(d, &f), st);
			tdir_free(d);
		}
		print_message("op %u: failed up to point %d\n", ops[i].op, nth - 1);
	}
	print_message("%u failures left the state before, %u after (committed)\n", befores, afters);
	assert_true(befores > 100);
	assert_true(afters > 0);
	fixture_exit(&f);
}

/* Make d hold a committed, unapplied transaction: the commit's second rename fails. */
static void crash_after_commit(const char *d, const struct fixture *f)
{
	struct fault_plan plan = { PDB_OP_RENAME, 2, EIO, 0, 0 };
	struct pdb_db *db = base_db(d, f);

	pdb_set_fault_hook(fault_cb, &plan);
	assert_int_equal(run_tx(db, f, true), -EIO);
	pdb_set_fault_hook(NULL, NULL);
	assert_non_null(strstr(pdb_errmsg(db), "committed"));
	pdb_close(db);
	assert_true(file_exists(tpath(d, "journal")));
}

static void test_pdb_tx_recovery_idempotent(void **state)
{
	char *d = tdir_new(), *d2 = tdir_new(), cmd[8192];
	struct fixture f;
	struct pdb_db *db;

	(void)state;
	fixture_init(&f);
	crash_after_commit(d, &f);
	snprintf(cmd, sizeof(cmd), "cp -a %s/. %s/", d, d2);
	assert_int_equal(system(cmd), 0);
	/* Recovery interrupted at each of its renames, then run again: always the same end. */
	for (int nth = 1; nth < 20; nth++) {
		struct fault_plan plan = { PDB_OP_RENAME, nth, EIO, 0, 0 };
		char *e = tdir_new();
		int ret;

		snprintf(cmd, sizeof(cmd), "cp -a %s/. %s/", d2, e);
		assert_int_equal(system(cmd), 0);
		pdb_set_fault_hook(fault_cb, &plan);
		ret = pdb_open(e, true, &db, NULL);
		pdb_set_fault_hook(NULL, NULL);
		if (!ret)
			pdb_close(db);
		assert_true(ret == 0 || ret == -EIO);
		if (ret)
			assert_true(file_exists(tpath(e, "journal")));
		assert_int_equal(which_state(e, &f), 1);
		assert_int_equal(count_temps(e, 2), 0);
		tdir_free(e);
		if (!plan.fired)
			break;
	}
	/* Applying the journal twice (it is still there the second time) changes nothing. */
	snprintf(cmd, sizeof(cmd), "cp %s/journal %s/journal.keep", d, d);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	assert_int_equal(pdb_recover(db), 0);
	pdb_close(db);
	assert_int_equal(rename(tpath(d, "journal.keep"), tpath(d, "journal")), 0);
	assert_int_equal(pdb_open(d, false, &db, NULL), 0);
	pdb_close(db);
	assert_false(file_exists(tpath(d, "journal")));
	assert_int_equal(which_state(d, &f), 1);
	fixture_exit(&f);
	tdir_free(d);
	tdir_free(d2);
}

static void test_pdb_tx_damaged_journal(void **state)
{
	char *d = tdir_new();
	struct fixture f;
	struct pdb_db *db;
	struct ax_error e;
	uint8_t *b;
	size_t len;

	(void)state;
	fixture_init(&f);
	crash_after_commit(d, &f);
	b = slurp(tpath(d, "journal"), &len);
	b[len - 1] ^= 0x40;
	spit(tpath(d, "journal"), b, len);
	free(b);
	assert_int_equal(pdb_open(d, true, &db, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "journal"));
	assert_non_null(strstr(e.msg, "checksum"));
	assert_non_null(strstr(e.msg, "fsck"));
	assert_int_equal(pdb_open(d, false, &db, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "fsck"));
	/* Nothing was applied or removed. */
	assert_true(file_exists(tpath(d, "journal")));
	assert_true(count_temps(d, 2) > 0);
	assert_int_equal(unlink(tpath(d, "journal")), 0);
	fixture_exit(&f);
	tdir_free(d);
}

/* pdb_merge_db under faults: the destination before or after; a retry merges or is refused. */
static void test_pdb_tx_merge_db_all_or_nothing(void **state)
{
	char *s = tdir_new();
	struct fixture f;
	struct pdb_db *src;
	unsigned int refused = 0, merged = 0;

	(void)state;
	fixture_init(&f);
	/* The source holds the increments; the destination the base profiles. */
	assert_int_equal(pdb_open(s, true, &src, NULL), 0);
	for (unsigned int k = 0; k < NKEYS; k++) {
		struct pdb_image im;

		image_of(&im, keys[k]);
		assert_int_equal(pdb_image_add(src, 1, &im), 0);
		assert_int_equal(pdb_store(src, 1, keys[k], f.inc[k]), 0);
	}
	assert_int_equal(pdb_store(src, 1, PDB_KEY_UNKNOWN, f.uinc), 0);
	for (int nth = 1;; nth++) {
		struct fault_plan plan = { nth % 2 ? PDB_OP_RENAME : PDB_OP_WRITE, (nth + 1) / 2,
					   EIO, 0, 0 };
		char *d = tdir_new();
		struct pdb_db *db = base_db(d, &f);
		int ret, st;

		pdb_set_fault_hook(fault_cb, &plan);
		ret = pdb_merge_db(db, 1, src, 1, 0);
		pdb_set_fault_hook(NULL, NULL);
		pdb_close(db);
		st = which_state(d, &f);
		assert_true(plan.fired ? ret == -EIO : ret == 0);
		/* The retry: merges from "before", is refused at "after"; either way "after". */
		assert_int_equal(pdb_open(d, true, &db, NULL), 0);
		ret = pdb_merge_db(db, 1, src, 1, 0);
		assert_int_equal(ret, st ? -EALREADY : 0);
		st ? refused++ : merged++;
		pdb_close(db);
		assert_int_equal(which_state(d, &f), 1);
		tdir_free(d);
		if (!plan.fired && nth > 40)
			break;
	}
	print_message("retries: %u merged, %u refused as already merged\n", merged, refused);
	assert_true(merged > 0 && refused > 0);
	pdb_close(src);
	fixture_exit(&f);
	tdir_free(s);
}

/* Readers hold the lock shared; this process's own writes do not wait for its readers. */
static void test_pdb_tx_readers_lock(void **state)
{
	char *d = tdir_new();
	struct fixture f;
	struct pdb_db *db, *rd;
	int fd;

	(void)state;
	fixture_init(&f);
	db = base_db(d, &f);
	assert_int_equal(pdb_open(d, false, &rd, NULL), 0);
	fd = open(tpath(d, "lock"), O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	assert_int_equal(flock(fd, LOCK_SH | LOCK_NB), 0); /* readers share it */
	assert_int_equal(flock(fd, LOCK_UN), 0);
	assert_int_equal(run_tx(db, &f, true), 0);
	/* The reader has its shared lock back after the write. */
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
	pdb_close(rd);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	close(fd);
	pdb_close(db);
	fixture_exit(&f);
	tdir_free(d);
}

/* A database made by this version requires its manifests: one deleted by hand is damage. */
static void test_pdb_tx_deleted_manifest_is_damage(void **state)
{
	char *d = tdir_new();
	struct fixture f;
	struct pdb_db *db;
	struct pdb_prof *p;

	(void)state;
	fixture_init(&f);
	db = base_db(d, &f);
	assert_true(file_exists(tpath(d, "format")));
	assert_int_equal(unlink(tpath(d, "epoch-1/manifest")), 0);
	assert_int_equal(pdb_load(db, 1, keys[0], &p), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(db), "no manifest"));
	assert_int_equal(pdb_merge_store(db, 1, keys[0], f.inc[0]), -EBADMSG);
	/* A new epoch has no files: no manifest needed. */
	{
		uint32_t e;

		assert_int_equal(pdb_epoch_new(db, &e), 0);
		assert_int_equal(pdb_load(db, e, PDB_KEY_UNKNOWN, &p), 0);
		pdb_prof_free(p);
	}
	pdb_close(db);
	fixture_exit(&f);
	tdir_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdb_tx_commit_applies_all),
		cmocka_unit_test(test_pdb_tx_abort_applies_none),
		cmocka_unit_test(test_pdb_tx_fault_every_step),
		cmocka_unit_test(test_pdb_tx_recovery_idempotent),
		cmocka_unit_test(test_pdb_tx_damaged_journal),
		cmocka_unit_test(test_pdb_tx_merge_db_all_or_nothing),
		cmocka_unit_test(test_pdb_tx_readers_lock),
		cmocka_unit_test(test_pdb_tx_deleted_manifest_is_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
