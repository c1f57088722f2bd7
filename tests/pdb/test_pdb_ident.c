/* tests/pdb/test_pdb_ident.c - profile files name their image and epoch; the epoch manifest. */
#include "pdb_test.h"

#include <sys/stat.h>
#include <zlib.h>

#define K0 "b-00112233"
#define K1 "b-44556677"

/* A database with images K0 and K1 (different samples) in epochs 1 and 2. */
static struct pdb_db *two_images(const char *d)
{
	struct pdb_prof *p = pdb_prof_new();
	struct pdb_db *db;
	uint32_t e;
	int i;

	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	assert_int_equal(pdb_epoch_new(db, &e), 0);
	assert_int_equal(e, 2);
	for (i = 0; i < 4; i++) {
		pdb_prof_clear(p);
		assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x100 * (i + 1), 7 + i), 0);
		assert_int_equal(pdb_prof_add_vcount(p, 0x100, 3), 0);
		assert_int_equal(pdb_merge_store(db, 1 + i / 2, i % 2 ? K1 : K0, p), 0);
	}
	pdb_prof_clear(p);
	assert_int_equal(pdb_prof_add_unknown(p, 5, 0x1234, PDB_EV_CYCLES, 2), 0);
	assert_int_equal(pdb_merge_store(db, 1, PDB_KEY_UNKNOWN, p), 0);
	pdb_prof_free(p);
	return db;
}

static void assert_load_damaged(struct pdb_db *db, uint32_t epoch, const char *key,
				const char *file, const char *what)
{
	struct pdb_prof *p = (struct pdb_prof *)1;

	assert_int_equal(pdb_load(db, epoch, key, &p), -EBADMSG);
	assert_null(p);
	assert_non_null(strstr(pdb_errmsg(db), file));
	assert_non_null(strstr(pdb_errmsg(db), what));
}

static void test_pdb_ident_swapped_files_are_damage(void **state)
{
	char *d = tdir_new(), a[4096], b[4096], t[4096];
	struct pdb_db *db = two_images(d);
	struct pdb_prof *p;

	(void)state;
	assert_int_equal(pdb_load(db, 1, K0, &p), 0);
	pdb_prof_free(p);
	snprintf(a, sizeof(a), "%s", tpath(d, "epoch-1/" K0 "/CYCLES.prof"));
	snprintf(b, sizeof(b), "%s", tpath(d, "epoch-1/" K1 "/CYCLES.prof"));
	snprintf(t, sizeof(t), "%s", tpath(d, "swap"));
	assert_int_equal(rename(a, t), 0);
	assert_int_equal(rename(b, a), 0);
	assert_int_equal(rename(t, b), 0);
	assert_load_damaged(db, 1, K0, K0 "/CYCLES.prof", "claims image " K1 ", epoch 1");
	assert_load_damaged(db, 1, K1, K1 "/CYCLES.prof", "but lies in image " K1);
	/* A merge into it, and a merge of it elsewhere, fail as well. */
	p = pdb_prof_new();
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x100, 1), 0);
	assert_int_equal(pdb_merge_store(db, 1, K0, p), -EBADMSG);
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

static void test_pdb_ident_deleted_file_is_damage(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = two_images(d), *dst;
	char *d2 = tdir_new();
	struct pdb_image *list;
	struct pdb_prof *p;
	size_t n;

	(void)state;
	assert_int_equal(unlink(tpath(d, "epoch-1/" K1 "/vcount.prof")), 0);
	assert_load_damaged(db, 1, K1, K1 "/vcount.prof",
			    "image " K1 ": vcount.prof listed in epoch-1/manifest");
	assert_int_equal(pdb_load(db, 1, K0, &p), 0);
	pdb_prof_free(p);
	/* The unknown profile, and a whole image directory. */
	assert_int_equal(unlink(tpath(d, "epoch-1/unknown.prof")), 0);
	assert_load_damaged(db, 1, PDB_KEY_UNKNOWN, "unknown.prof", "listed in epoch-1/manifest");
	assert_int_equal(unlink(tpath(d, "epoch-2/" K0 "/CYCLES.prof")), 0);
	assert_int_equal(unlink(tpath(d, "epoch-2/" K0 "/vcount.prof")), 0);
	assert_int_equal(rmdir(tpath(d, "epoch-2/" K0)), 0);
	assert_int_equal(pdb_image_list(db, 2, &list, &n), 0);
	assert_int_equal(n, 2); /* K0 is still listed: its loss is noticed, not silent */
	assert_string_equal(list[0].key, K0);
	pdb_image_list_free(list, n);
	assert_load_damaged(db, 2, K0, K0 "/CYCLES.prof", "listed in epoch-2/manifest");
	/* A merge of a damaged epoch fails before it records anything. */
	assert_int_equal(pdb_open(d2, true, &dst, NULL), 0);
	assert_int_equal(pdb_merge_db(dst, 1, db, 2, 0), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(dst), "listed in epoch-2/manifest"));
	assert_false(file_exists(tpath(d2, "epoch-1/merged")));
	pdb_close(dst);
	tdir_free(d2);
	pdb_close(db);
	tdir_free(d);
}

static void copy_file(const char *from, const char *to)
{
	uint8_t *b;
	size_t len;

	b = slurp(from, &len);
	spit(to, b, len);
	free(b);
}

static void test_pdb_ident_other_epoch_is_damage(void **state)
{
	char *d = tdir_new(), from[4096];
	struct pdb_db *db = two_images(d);
	struct pdb_image *list;
	size_t n;

	(void)state;
	snprintf(from, sizeof(from), "%s", tpath(d, "epoch-2/" K0 "/CYCLES.prof"));
	copy_file(from, tpath(d, "epoch-1/" K0 "/CYCLES.prof"));
	assert_load_damaged(db, 1, K0, "epoch-1/" K0 "/CYCLES.prof",
			    "claims image " K0 ", epoch 2, but lies in image " K0 ", epoch 1");
	/* The epoch's own files: the manifest (and the index, the merge record) name the epoch. */
	snprintf(from, sizeof(from), "%s", tpath(d, "epoch-2/manifest"));
	copy_file(from, tpath(d, "epoch-1/manifest"));
	assert_int_equal(pdb_image_list(db, 1, &list, &n), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(db), "epoch-1/manifest"));
	assert_non_null(strstr(pdb_errmsg(db), "epoch 2, but lies in the database's epoch 1"));
	pdb_close(db);
	tdir_free(d);
}

/* Rewrite file as its writer before version 3 did: version 2, no identity record. */
static void make_version2(const char *path, const struct pdb_prof *p, unsigned int type,
			  unsigned int ev)
{
	uint8_t *b;
	size_t len;

	assert_int_equal(pdb_encode(p, type, ev, (void **)&b, &len), 0);
	assert_int_equal(b[8] & PDB_FL_IDENT, 0);
	b[4] = 2;
	b[5] = 0;
	b[44] = (uint8_t)crc32(0, b, 44);
	b[45] = (uint8_t)(crc32(0, b, 44) >> 8);
	b[46] = (uint8_t)(crc32(0, b, 44) >> 16);
	b[47] = (uint8_t)(crc32(0, b, 44) >> 24);
	spit(path, b, len);
	free(b);
}

static void test_pdb_ident_version2_database_reads_and_upgrades(void **state)
{
	char *d = tdir_new();
	struct pdb_prof *p = pdb_prof_new(), *q;
	struct pdb_db *db;

	(void)state;
	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x40, 9), 0);
	assert_int_equal(pdb_prof_add_vcount(p, 0x40, 2), 0);
	assert_int_equal(pdb_store(db, 1, K0, p), 0);
	assert_int_equal(pdb_store(db, 1, K1, p), 0);
	/* What a version-2 writer left: files without identity, no manifest. */
	make_version2(tpath(d, "epoch-1/" K0 "/CYCLES.prof"), p, PDB_FT_SAMPLES, PDB_EV_CYCLES);
	make_version2(tpath(d, "epoch-1/" K0 "/vcount.prof"), p, PDB_FT_VCOUNT, 0);
	make_version2(tpath(d, "epoch-1/" K1 "/CYCLES.prof"), p, PDB_FT_SAMPLES, PDB_EV_CYCLES);
	assert_int_equal(unlink(tpath(d, "epoch-1/manifest")), 0);
	/* A version-2 database has no DIR/format: a missing manifest is not damage there. */
	assert_int_equal(pdb_load(db, 1, K0, &q), -EBADMSG);
	assert_true(strstr(pdb_errmsg(db), "no manifest") != NULL);
	assert_int_equal(unlink(tpath(d, "format")), 0);
	pdb_close(db);
	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	assert_int_equal(pdb_load(db, 1, K0, &q), 0);
	assert_int_equal(pdb_prof_count(q, PDB_EV_CYCLES, 0x40), 9);
	pdb_prof_free(q);
	/* Without a manifest a missing file cannot be told from an empty table. */
	assert_int_equal(unlink(tpath(d, "epoch-1/" K1 "/vcount.prof")), 0);
	assert_int_equal(pdb_load(db, 1, K1, &q), 0);
	pdb_prof_free(q);
	/* The next store writes the manifest from the epoch's files: K0's losses show from then. */
	assert_int_equal(pdb_merge_store(db, 1, K1, p), 0);
	assert_true(file_exists(tpath(d, "epoch-1/manifest")));
	assert_int_equal(pdb_load(db, 1, K0, &q), 0);
	assert_int_equal(pdb_prof_count(q, PDB_EV_CYCLES, 0x40), 9);
	pdb_prof_free(q);
	assert_int_equal(unlink(tpath(d, "epoch-1/" K0 "/vcount.prof")), 0);
	assert_load_damaged(db, 1, K0, K0 "/vcount.prof", "listed in epoch-1/manifest");
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

/* pdb_store of fewer tables drops the others from the manifest: nothing is reported missing. */
static void test_pdb_ident_store_fewer_tables_keeps_manifest_right(void **state)
{
	char *d = tdir_new();
	struct pdb_prof *p = pdb_prof_new(), *q;
	struct pdb_db *db;

	(void)state;
	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x40, 9), 0);
	assert_int_equal(pdb_prof_add_vcount(p, 0x40, 2), 0);
	assert_int_equal(pdb_store(db, 1, K0, p), 0);
	pdb_prof_clear(p);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_IMISS, 0x40, 1), 0);
	assert_int_equal(pdb_store(db, 1, K0, p), 0);
	assert_false(file_exists(tpath(d, "epoch-1/" K0 "/CYCLES.prof")));
	assert_int_equal(pdb_load(db, 1, K0, &q), 0);
	assert_int_equal(pdb_prof_total(q, PDB_EV_IMISS), 1);
	pdb_prof_free(q);
	assert_int_equal(unlink(tpath(d, "epoch-1/" K0 "/IMISS.prof")), 0);
	assert_load_damaged(db, 1, K0, K0 "/IMISS.prof", "listed in epoch-1/manifest");
	pdb_prof_clear(p);
	assert_int_equal(pdb_store(db, 1, K0, p), 0); /* empty: the manifest goes */
	assert_false(file_exists(tpath(d, "epoch-1/manifest")));
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

/* The index path of key in db's epoch 1 (strdup'd), or NULL. */
static char *indexed_path(struct pdb_db *db, const char *key)
{
	struct pdb_image *list;
	char *path = NULL;
	size_t n;

	assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i].key, key))
			path = strdup(list[i].path);
	pdb_image_list_free(list, n);
	return path;
}

/*
 * A merge copies the source's DIR/kernel/KEY/FILE symbol images it indexes into the destination
 * and indexes the copies (the source may go); an image the user named elsewhere keeps its path.
 */
static void test_pdb_ident_merge_copies_kernel_images(void **state)
{
	char *ds = tdir_new(), *dd = tdir_new(), *dabs, *got, want[4096], own[4096], *buf;
	struct pdb_image im = { .key = K0 }, user = { .key = K1 };
	struct pdb_db *src, *dst;
	FILE *f;
	size_t len;

	(void)state;
	src = two_images(ds);
	mkdir(tpath(ds, "kernel"), 0777);
	mkdir(tpath(ds, "kernel/" K0), 0777);
	f = fopen(tpath(ds, "kernel/" K0 "/[kernel]"), "w");
	assert_non_null(f);
	fputs("symbols of the hosted kernel", f);
	fclose(f);
	snprintf(own, sizeof(own), "%s/kernel/" K0 "/[kernel]", ds);
	im.path = own;
	user.path = "/nonexistent/kernel/" K1 "/vmlinux";
	assert_int_equal(pdb_image_add(src, 1, &im), 0);
	assert_int_equal(pdb_image_add(src, 1, &user), 0);
	assert_int_equal(pdb_open(dd, true, &dst, NULL), 0);
	assert_int_equal(pdb_merge_db(dst, 1, src, 1, 0), 0);
	pdb_close(src);
	tdir_free(ds); /* the source is gone */

	dabs = realpath(dd, NULL);
	assert_non_null(dabs);
	snprintf(want, sizeof(want), "%s/kernel/" K0 "/[kernel]", dabs);
	got = indexed_path(dst, K0);
	assert_string_equal(got, want);
	free(got);
	got = indexed_path(dst, K1);
	assert_string_equal(got, "/nonexistent/kernel/" K1 "/vmlinux");
	free(got);
	f = fopen(want, "r");
	assert_non_null(f);
	buf = calloc(1, 64);
	len = fread(buf, 1, 63, f);
	fclose(f);
	assert_int_equal(len, strlen("symbols of the hosted kernel"));
	assert_string_equal(buf, "symbols of the hosted kernel");
	free(buf);
	free(dabs);
	pdb_close(dst);
	tdir_free(dd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdb_ident_swapped_files_are_damage),
		cmocka_unit_test(test_pdb_ident_deleted_file_is_damage),
		cmocka_unit_test(test_pdb_ident_other_epoch_is_damage),
		cmocka_unit_test(test_pdb_ident_version2_database_reads_and_upgrades),
		cmocka_unit_test(test_pdb_ident_store_fewer_tables_keeps_manifest_right),
		cmocka_unit_test(test_pdb_ident_merge_copies_kernel_images),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
