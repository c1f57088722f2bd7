/* pdb/pdb_manifest.c - an epoch's manifest: which table files each image has (pdb.h MANIFEST). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pdb_int.h"

static void mf_path(struct pdb_db *db, uint32_t epoch, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/epoch-%u/manifest", pdb_dir(db), epoch);
}

static int cmp_mf(const void *a, const void *b)
{
	return strcmp(((const struct pdb_mf *)a)->key, ((const struct pdb_mf *)b)->key);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int mf_scan(struct pdb_db *db, uint32_t epoch, struct pdb_mf **list, size_t *n);

/*
 * A database made by version 3 or later (DIR/format) keeps a manifest in every epoch that has
 * files: one missing there was deleted, and what it listed cannot be checked (MANIFEST).
 */
static int mf_required(struct pdb_db *db, uint32_t epoch, const char *path)
{
	struct pdb_tx *tx = db->tx;
	struct pdb_mf *list = NULL;
	size_t n = 0;
	int err;

	if (pdb_tx_staged(db, path))
		return 0; /* the transaction removes it: the epoch becomes empty */
	db->tx = NULL; /* the files the database holds, not the staged ones */
	err = mf_scan(db, epoch, &list, &n);
	db->tx = tx;
	free(list);
	if (err == -ENOENT)
		return 0; /* no epoch directory: nothing to list */
	if (err || !n)
		return err;
	return AX_CORRUPT(
		pdb_db_err(db), path, 0,
		"missing: epoch %u has profile files but no manifest, which this database "
		"(%s/format) requires (deleted by hand?)",
		epoch, pdb_dir(db));
}

int pdb_mf_read(struct pdb_db *db, uint32_t epoch, struct pdb_mf **list, size_t *n, bool *have)
{
	struct pdb_ident id = { .epoch = epoch };
	char path[PATH_MAX];
	size_t len;
	void *buf;
	int err;

	*list = NULL;
	*n = 0;
	*have = false;
	mf_path(db, epoch, path);
	err = pdb_db_read(db, path, &buf, &len);
	if (err == -ENOENT)
		return db->mf_required ? mf_required(db, epoch, path) : 0;
	if (err)
		return err;
	err = pdb_parse_manifest(buf, len, path, &id, list, n, pdb_db_err(db));
	free(buf);
	*have = !err;
	return err;
}

uint64_t pdb_mf_tables(const struct pdb_mf *list, size_t n, const char *key)
{
	struct pdb_mf k, *e;

	if (!n)
		return 0;
	snprintf(k.key, sizeof(k.key), "%s", key);
	e = bsearch(&k, list, n, sizeof(*list), cmp_mf);
	return e ? e->tables : 0;
}

/* The table files of key present in kdir. */
static uint64_t tables_on_disk(struct pdb_db *db, const char *kdir, const char *key)
{
	uint64_t mask = pdb_key_tables(key), have = 0;
	char path[PATH_MAX], name[32];
	unsigned int t;

	for (t = 0; t < PDB_T_NR; t++) {
		if (!(mask & PDB_T_BIT(t)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", kdir, pdb_table_file(t, name));
		if (pdb_db_exists(db, path))
			have |= PDB_T_BIT(t);
	}
	return have;
}

/* Append (key, tables) to *list unless tables is 0. */
static int mf_append(struct pdb_db *db, struct pdb_mf **list, size_t *n, const char *key,
		     uint64_t tables)
{
	struct pdb_mf *l;

	if (!tables)
		return 0;
	l = pdb_realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", pdb_dir(db));
	*list = l;
	snprintf(l[*n].key, sizeof(l[*n].key), "%s", key);
	l[*n].tables = tables;
	(*n)++;
	return 0;
}

/* The manifest a database older than version 3 would have: from the epoch's files. */
static int mf_scan(struct pdb_db *db, uint32_t epoch, struct pdb_mf **list, size_t *n)
{
	char edir[PATH_MAX], kdir[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int err;

	snprintf(edir, sizeof(edir), "%s/epoch-%u", pdb_dir(db), epoch);
	err = mf_append(db, list, n, PDB_KEY_UNKNOWN, tables_on_disk(db, edir, PDB_KEY_UNKNOWN));
	dir = opendir(edir);
	if (!dir)
		return err ? err : ax_syserr(pdb_db_err(db), -errno, edir, "opendir");
	while (!err && (d = readdir(dir))) {
		if (!pdb_key_is_valid(d->d_name))
			continue;
		if (snprintf(kdir, sizeof(kdir), "%s/%s", edir, d->d_name) >= (int)sizeof(kdir) ||
		    !is_dir(kdir))
			continue;
		err = mf_append(db, list, n, d->d_name, tables_on_disk(db, kdir, d->d_name));
	}
	closedir(dir);
	if (!err && *n)
		qsort(*list, *n, sizeof(**list), cmp_mf);
	return err;
}

/* Write list to a temporary file, or plan the manifest's removal when the list is empty. */
static int mf_stage(struct pdb_db *db, uint32_t epoch, const struct pdb_mf *list, size_t n)
{
	struct pdb_ident id = { .epoch = epoch };
	char path[PATH_MAX];
	size_t len;
	void *buf;
	int err;

	mf_path(db, epoch, path);
	if (!n)
		return pdb_tx_unlink(db, path);
	err = pdb_encode_manifest(list, n, &id, &buf, &len);
	if (err)
		return ax_fail(pdb_db_err(db), err, "%s: cannot encode: %s", path, strerror(-err));
	err = pdb_tx_stage(db, path, buf, len);
	free(buf);
	return err;
}

int pdb_mf_prepare(struct pdb_db *db, uint32_t epoch, const char *key, uint64_t keep, uint64_t add)
{
	struct pdb_mf *list, *e = NULL;
	uint64_t tables;
	size_t n, i;
	bool have;
	int err;

	err = pdb_mf_read(db, epoch, &list, &n, &have);
	if (!err && !have)
		err = mf_scan(db, epoch, &list, &n);
	for (i = 0; !err && i < n && !e; i++)
		if (!strcmp(list[i].key, key))
			e = &list[i];
	tables = ((e ? e->tables : 0) & keep) | add;
	if (err || (have && (e ? e->tables : 0) == tables))
		goto out_free;
	if (e && tables) {
		e->tables = tables;
	} else if (e) {
		memmove(e, e + 1, (size_t)(list + n - (e + 1)) * sizeof(*e));
		n--;
	} else {
		err = mf_append(db, &list, &n, key, tables);
		if (!err && n)
			qsort(list, n, sizeof(*list), cmp_mf);
	}
	if (!err && (have || n))
		err = mf_stage(db, epoch, list, n);
out_free:
	free(list);
	return err;
}

/* The first table of key the manifest lists that kdir lacks (its file into path), or -1. */
static int mf_first_missing(struct pdb_db *db, uint32_t epoch, const char *key, const char *kdir,
			    char *path, int *err)
{
	struct pdb_mf *list;
	uint64_t tables;
	unsigned int t;
	char buf[32];
	size_t n;
	bool have;

	*err = pdb_mf_read(db, epoch, &list, &n, &have);
	if (*err || !have)
		return -1;
	tables = pdb_mf_tables(list, n, key);
	free(list);
	for (t = 0; t < PDB_T_NR; t++) {
		if (!(tables & PDB_T_BIT(t)))
			continue;
		snprintf(path, PATH_MAX, "%s/%s", kdir, pdb_table_file(t, buf));
		if (!pdb_db_exists(db, path))
			return (int)t;
	}
	return -1;
}

int pdb_mf_check(struct pdb_db *db, uint32_t epoch, const char *key, const char *kdir)
{
	char path[PATH_MAX], buf[32];
	int err, t;

	t = mf_first_missing(db, epoch, key, kdir, path, &err);
	if (t < 0)
		return err;
	/*
	 * A pdb_store that drops a table renames the manifest before it removes the file: read
	 * the manifest again before calling the file missing.
	 */
	t = mf_first_missing(db, epoch, key, kdir, path, &err);
	if (t < 0)
		return err;
	return AX_CORRUPT(pdb_db_err(db), path, 0,
			  "missing: image %s: %s listed in epoch-%u/manifest but not there "
			  "(deleted or moved?)",
			  key, pdb_table_file((unsigned int)t, buf), epoch);
}
