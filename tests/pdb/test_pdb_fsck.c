/* tests/pdb/test_pdb_fsck.c - pdb_fsck lists and quarantines damage; pdb_load_opt reads around it. */
#include "pdb_test.h"

#define K0 "b-00112233"
#define K1 "b-44556677"

/* Epochs 1 and 2; images K0 and K1 in epoch 1 (CYCLES and vcount), K0 in 2, unknown in 1. */
static struct pdb_db *fixture(const char *d)
{
	struct pdb_prof *p = pdb_prof_new();
	struct pdb_image img;
	struct pdb_db *db;
	uint32_t e;

	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	assert_int_equal(pdb_epoch_new(db, &e), 0);
	for (int i = 0; i < 3; i++) {
		const char *key = i == 1 ? K1 : K0;

		pdb_prof_clear(p);
		assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x100 * (i + 1), 7 + i), 0);
		assert_int_equal(pdb_prof_add_vcount(p, 0x100, 3 + i), 0);
		assert_int_equal(pdb_merge_store(db, i < 2 ? 1 : 2, key, p), 0);
		memset(&img, 0, sizeof(img));
		snprintf(img.key, sizeof(img.key), "%s", key);
		img.path = "/bin/x";
		assert_int_equal(pdb_image_add(db, i < 2 ? 1 : 2, &img), 0);
	}
	pdb_prof_clear(p);
	assert_int_equal(pdb_prof_add_unknown(p, 5, 0x1234, PDB_EV_CYCLES, 2), 0);
	assert_int_equal(pdb_merge_store(db, 1, PDB_KEY_UNKNOWN, p), 0);
	pdb_prof_free(p);
	return db;
}

/* The problem whose file ends with suffix, or NULL. */
static const struct pdb_problem *find(const struct pdb_fsck *r, const char *suffix)
{
	for (size_t i = 0; i < r->n; i++) {
		size_t a = strlen(r->v[i].file), b = strlen(suffix);

		if (a >= b && !strcmp(r->v[i].file + a - b, suffix))
			return &r->v[i];
	}
	return NULL;
}

static void test_pdb_fsck_clean_database(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = fixture(d);
	struct pdb_fsck r;

	(void)state;
	assert_int_equal(pdb_fsck(db, 0, 0, &r), 0);
	assert_int_equal(r.damaged, 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.nepochs, 2);
	/* id, current; epoch 1: index, manifest, unknown.prof, 2 x 2 tables; epoch 2: 4 files. */
	assert_int_equal(r.files, 2 + 7 + 4);
	pdb_fsck_free(&r);
	pdb_close(db);
	tdir_free(d);
}

static void test_pdb_fsck_lists_and_repairs(void **state)
{
	char *d = tdir_new(), c0[4096];
	struct pdb_db *db = fixture(d);
	struct pdb_skips sk = { 0 };
	const struct pdb_problem *p;
	struct pdb_prof *prof;
	struct pdb_fsck r;
	uint8_t *bytes, *q;
	size_t len, qlen;

	(void)state;
	/* Damage: a flipped payload byte, a listed file deleted, a garbage merge record, a stray
	 * temporary file; and a name fsck only notes. */
	snprintf(c0, sizeof(c0), "%s", tpath(d, "epoch-1/" K0 "/CYCLES.prof"));
	bytes = slurp(c0, &len);
	bytes[len - 1] ^= 0x40;
	spit(c0, bytes, len);
	assert_int_equal(unlink(tpath(d, "epoch-1/" K1 "/vcount.prof")), 0);
	spit(tpath(d, "epoch-2/merged"), "garbage", 7);
	spit(tpath(d, "epoch-1/" K0 "/.vcount.prof.tmp.a1b2c3"), "x", 1);
	spit(tpath(d, "epoch-1/README"), "hello", 5);

	/* Strict readers fail; with PDB_LOAD_SKIP_DAMAGED K0 keeps its vcount, CYCLES named. */
	assert_int_equal(pdb_load(db, 1, K0, &prof), -EBADMSG);
	assert_int_equal(pdb_load_opt(db, 1, K0, PDB_LOAD_SKIP_DAMAGED, &prof, &sk), 0);
	assert_int_equal(sk.n, 1);
	assert_string_equal(sk.v[0].file, c0);
	assert_non_null(strstr(sk.v[0].why, "checksum"));
	assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 0);
	assert_int_equal(pdb_prof_count(prof, PDB_EV_CYCLES, 0x100), 0);
	pdb_prof_free(prof);
	pdb_skips_free(&sk);
	assert_int_equal(pdb_load_opt(db, 1, K1, PDB_LOAD_SKIP_DAMAGED, &prof, &sk), 0);
	assert_int_equal(sk.n, 1);
	assert_non_null(strstr(sk.v[0].file, K1 "/vcount.prof"));
	assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 8);
	pdb_prof_free(prof);
	pdb_skips_free(&sk);

	/* fsck lists exactly these. */
	assert_int_equal(pdb_fsck(db, 0, 0, &r), 0);
	assert_int_equal(r.damaged, 4);
	assert_int_equal(r.n, 5);
	p = find(&r, K0 "/CYCLES.prof");
	assert_non_null(p);
	assert_int_equal(p->kind, PDB_FSCK_DAMAGED);
	assert_int_equal(p->epoch, 1);
	assert_string_equal(p->key, K0);
	assert_non_null(find(&r, K1 "/vcount.prof"));
	assert_int_equal(find(&r, K1 "/vcount.prof")->kind, PDB_FSCK_MISSING);
	assert_int_equal(find(&r, "epoch-2/merged")->kind, PDB_FSCK_DAMAGED);
	assert_int_equal(find(&r, ".vcount.prof.tmp.a1b2c3")->kind, PDB_FSCK_STRAY);
	assert_int_equal(find(&r, "epoch-1/README")->kind, PDB_FSCK_NOTE);
	assert_null(r.v[0].moved_to);
	pdb_fsck_free(&r);
	assert_true(file_exists(c0)); /* checking moves nothing */

	/* One epoch only. */
	assert_int_equal(pdb_fsck(db, 2, 0, &r), 0);
	assert_int_equal(r.damaged, 1);
	assert_non_null(find(&r, "epoch-2/merged"));
	pdb_fsck_free(&r);
	assert_int_equal(pdb_fsck(db, 3, 0, &r), -ENOENT);
	pdb_fsck_free(&r);

	/* Repair: quarantined byte for byte with a reason; then clean, and strict loads work. */
	assert_int_equal(pdb_fsck(db, 0, PDB_FSCK_REPAIR, &r), 0);
	assert_int_equal(r.damaged, 4);
	p = find(&r, K0 "/CYCLES.prof");
	assert_true(p->repaired);
	assert_non_null(p->moved_to);
	assert_non_null(strstr(p->moved_to, "/quarantine/epoch-1/" K0 "/CYCLES.prof"));
	assert_true(find(&r, K1 "/vcount.prof")->repaired);
	assert_null(find(&r, "epoch-1/README")->moved_to);
	assert_int_equal(r.manifests_rewritten, 1);
	pdb_fsck_free(&r);
	assert_false(file_exists(c0));
	q = slurp(tpath(d, "quarantine/epoch-1/" K0 "/CYCLES.prof"), &qlen);
	assert_int_equal(qlen, len);
	assert_memory_equal(q, bytes, len);
	free(q);
	q = slurp(tpath(d, "quarantine/epoch-1/" K0 "/CYCLES.prof.reason"), &qlen);
	assert_non_null(memmem(q, qlen, "checksum", 8));
	free(q);
	assert_true(file_exists(tpath(d, "quarantine/epoch-2/merged")));
	assert_true(file_exists(tpath(d, "epoch-1/README")));

	assert_int_equal(pdb_fsck(db, 0, 0, &r), 0);
	assert_int_equal(r.damaged, 0);
	assert_int_equal(r.n, 1); /* the README note */
	pdb_fsck_free(&r);
	assert_int_equal(pdb_load(db, 1, K0, &prof), 0);
	assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 0);
	assert_int_equal(pdb_prof_count(prof, PDB_EV_CYCLES, 0), 0);
	pdb_prof_free(prof);
	assert_int_equal(pdb_load(db, 1, K1, &prof), 0);
	assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 8);
	pdb_prof_free(prof);
	assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &prof), 0);
	pdb_prof_free(prof);
	free(bytes);
	pdb_close(db);
	tdir_free(d);
}

/* A damaged index: the images come from the directories; the manifest's still count. */
static void test_pdb_image_list_opt_around_a_damaged_index(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = fixture(d);
	struct pdb_skips sk = { 0 };
	struct pdb_image *list;
	size_t n;

	(void)state;
	spit(tpath(d, "epoch-1/index"), "AXPD", 4);
	assert_int_equal(pdb_image_list(db, 1, &list, &n), -EBADMSG);
	assert_int_equal(pdb_image_list_opt(db, 1, PDB_LOAD_SKIP_DAMAGED, &list, &n, &sk), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].key, K0);
	assert_string_equal(list[1].key, K1);
	assert_string_equal(list[0].path, "");
	assert_int_equal(list[0].flags, PDB_IMG_HAS_DIR);
	assert_int_equal(sk.n, 1);
	assert_non_null(strstr(sk.v[0].file, "epoch-1/index"));
	pdb_image_list_free(list, n);
	pdb_skips_free(&sk);
	/* Without the flag the _opt functions are the strict ones. */
	assert_int_equal(pdb_image_list_opt(db, 1, 0, &list, &n, &sk), -EBADMSG);
	assert_int_equal(sk.n, 0);
	pdb_close(db);
	tdir_free(d);
}

/* Reads of files whose path contains the hook's argument fail with EIO. */
static int fail_read(void *arg, enum pdb_op op, const char *what)
{
	return op == PDB_OP_READ && strstr(what, arg) ? EIO : 0;
}

static int fail_alloc(void *arg, enum pdb_op op, const char *what)
{
	(void)arg;
	(void)what;
	return op == PDB_OP_ALLOC ? ENOMEM : 0;
}

/* A file the system cannot read (a bad sector) is skipped and listed like a damaged one. */
static void test_pdb_unreadable_file_is_skipped_and_listed(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = fixture(d);
	struct pdb_skips sk = { 0 };
	struct pdb_prof *prof;
	static char bad_file[] = K1 "/CYCLES.prof";
	struct pdb_fsck r;

	(void)state;
	pdb_set_fault_hook(fail_read, bad_file);
	assert_int_equal(pdb_load(db, 1, K1, &prof), -EIO);
	assert_int_equal(pdb_load_opt(db, 1, K1, PDB_LOAD_SKIP_DAMAGED, &prof, &sk), 0);
	assert_int_equal(sk.n, 1);
	assert_non_null(strstr(sk.v[0].why, "Input/output error"));
	assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 0);
	assert_int_equal(pdb_prof_count(prof, PDB_EV_CYCLES, 0x100), 0);
	pdb_prof_free(prof);
	pdb_skips_free(&sk);
	assert_int_equal(pdb_fsck(db, 0, 0, &r), 0);
	pdb_set_fault_hook(NULL, NULL);
	assert_int_equal(r.damaged, 1);
	assert_int_equal(find(&r, K1 "/CYCLES.prof")->kind, PDB_FSCK_DAMAGED);
	pdb_fsck_free(&r);
	/* Out of memory is not damage: it still fails, nothing skipped. */
	pdb_set_fault_hook(fail_alloc, NULL);
	assert_int_equal(pdb_load_opt(db, 1, K1, PDB_LOAD_SKIP_DAMAGED, &prof, &sk), -ENOMEM);
	pdb_set_fault_hook(NULL, NULL);
	assert_null(prof);
	assert_int_equal(sk.n, 0);
	pdb_close(db);
	tdir_free(d);
}

/* A damaged unknown profile is skipped like an image's file and quarantined under the epoch. */
static void test_pdb_fsck_damaged_unknown_profile(void **state)
{
	char *d = tdir_new(), u[4096];
	struct pdb_db *db = fixture(d);
	struct pdb_skips sk = { 0 };
	struct pdb_prof *prof;
	struct pdb_fsck r;
	uint8_t *bytes;
	size_t len;

	(void)state;
	snprintf(u, sizeof(u), "%s", tpath(d, "epoch-1/unknown.prof"));
	bytes = slurp(u, &len);
	spit(u, bytes, len - 1); /* truncated */
	free(bytes);
	assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &prof), -EBADMSG);
	assert_int_equal(pdb_load_opt(db, 1, PDB_KEY_UNKNOWN, PDB_LOAD_SKIP_DAMAGED, &prof, &sk),
			 0);
	assert_true(pdb_prof_is_empty(prof));
	assert_int_equal(sk.n, 1);
	assert_string_equal(sk.v[0].file, u);
	pdb_prof_free(prof);
	pdb_skips_free(&sk);
	assert_int_equal(pdb_fsck(db, 1, PDB_FSCK_REPAIR, &r), 0);
	assert_int_equal(r.damaged, 1);
	assert_string_equal(r.v[0].key, PDB_KEY_UNKNOWN);
	assert_non_null(strstr(r.v[0].moved_to, "/quarantine/epoch-1/unknown.prof"));
	pdb_fsck_free(&r);
	assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &prof), 0);
	assert_true(pdb_prof_is_empty(prof));
	pdb_prof_free(prof);
	assert_int_equal(pdb_load(db, 1, K0, &prof), 0);
	assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 7);
	pdb_prof_free(prof);
	pdb_close(db);
	tdir_free(d);
}

/* Fail the nth write-side operation (write, fsync, rename, mkdir, unlink) with EIO. */
struct nth_fault {
	int nth;
	int seen;
};

static int fail_nth(void *arg, enum pdb_op op, const char *what)
{
	struct nth_fault *f = arg;

	(void)what;
	if (op != PDB_OP_WRITE && op != PDB_OP_FSYNC && op != PDB_OP_RENAME && op != PDB_OP_MKDIR &&
	    op != PDB_OP_UNLINK)
		return 0;
	return f->seen++ == f->nth ? EIO : 0;
}

/*
 * A repair that fails at any step (as a crash would stop it) leaves a database that a second
 * repair makes clean, with the damaged file quarantined intact and every other sample kept.
 */
static void test_pdb_fsck_repair_failing_at_each_step_is_finished_by_a_rerun(void **state)
{
	struct nth_fault f = { 0, 0 };
	int steps = 0;

	(void)state;
	for (f.nth = 0; f.nth < 64; f.nth++) {
		char *d = tdir_new(), c0[4096];
		struct pdb_db *db = fixture(d);
		struct pdb_prof *prof;
		struct pdb_fsck r;
		uint8_t *bytes, *q;
		size_t len, qlen;
		int ret;

		snprintf(c0, sizeof(c0), "%s", tpath(d, "epoch-1/" K0 "/CYCLES.prof"));
		bytes = slurp(c0, &len);
		bytes[len - 1] ^= 0x40;
		spit(c0, bytes, len);
		spit(tpath(d, "epoch-2/manifest"), "junk", 4);
		f.seen = 0;
		pdb_set_fault_hook(fail_nth, &f);
		ret = pdb_fsck(db, 0, PDB_FSCK_REPAIR, &r);
		pdb_set_fault_hook(NULL, NULL);
		pdb_fsck_free(&r);
		if (f.seen <= f.nth) { /* no fault hit: every step was tried */
			assert_int_equal(ret, 0);
			steps = f.nth;
		} else {
			assert_int_not_equal(ret, 0);
			assert_int_equal(pdb_fsck(db, 0, PDB_FSCK_REPAIR, &r), 0);
			pdb_fsck_free(&r);
		}
		assert_int_equal(pdb_fsck(db, 0, 0, &r), 0);
		assert_int_equal(r.damaged, 0);
		pdb_fsck_free(&r);
		q = slurp(tpath(d, "quarantine/epoch-1/" K0 "/CYCLES.prof"), &qlen);
		assert_int_equal(qlen, len);
		assert_memory_equal(q, bytes, len);
		free(q);
		assert_int_equal(pdb_load(db, 1, K1, &prof), 0);
		assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 8);
		pdb_prof_free(prof);
		assert_int_equal(pdb_load(db, 2, K0, &prof), 0);
		assert_int_equal(pdb_prof_total(prof, PDB_EV_CYCLES), 9);
		pdb_prof_free(prof);
		free(bytes);
		pdb_close(db);
		tdir_free(d);
		if (steps)
			break;
	}
	/* Every write, fsync, rename and mkdir of the repair (31 of them) was failed once. */
	assert_true(steps >= 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdb_fsck_clean_database),
		cmocka_unit_test(test_pdb_fsck_lists_and_repairs),
		cmocka_unit_test(test_pdb_image_list_opt_around_a_damaged_index),
		cmocka_unit_test(test_pdb_unreadable_file_is_skipped_and_listed),
		cmocka_unit_test(test_pdb_fsck_damaged_unknown_profile),
		cmocka_unit_test(test_pdb_fsck_repair_failing_at_each_step_is_finished_by_a_rerun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
