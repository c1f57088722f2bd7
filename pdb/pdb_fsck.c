/* pdb/pdb_fsck.c - check every file of a database and quarantine the damaged ones (axprof fsck). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pdb_int.h"

/* One epoch being checked: its directory and what its manifest and files say. */
struct fk_epoch {
	uint32_t epoch;
	char dir[PATH_MAX];
	bool has_mf; /* a manifest file is there */
	bool mf_bad; /* ... and damaged */
	bool mf_stale; /* the manifest disagrees with the files (or must go) */
	bool mf_missing; /* none, where the database requires one (DIR/format) */
	struct pdb_mf *mf; /* the manifest when it reads */
	size_t nmf;
	struct pdb_image *idx; /* the index when it reads */
	size_t nidx;
};

static void path_join(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		buf[PATH_MAX - 1] = 0;
}

/* dir += "/" + name */
static void path_push(char *dir, const char *name)
{
	size_t n = strlen(dir);

	if (snprintf(dir + n, PATH_MAX - n, "/%s", name) >= (int)(PATH_MAX - n))
		dir[PATH_MAX - 1] = 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st) || (errno != ENOENT && errno != ENOTDIR);
}

/* The message without a leading "FILE: ". */
static const char *strip_file(const char *why, const char *file)
{
	size_t n = strlen(file);

	if (!strncmp(why, file, n) && !strncmp(why + n, ": ", 2))
		return why + n + 2;
	return why;
}

static int add(struct pdb_db *db, struct pdb_fsck *r, enum pdb_fsck_kind kind, uint32_t epoch,
	       const char *key, const char *file, const char *why)
{
	struct pdb_problem *v, *p;

	v = pdb_realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!v)
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", pdb_dir(db));
	r->v = v;
	p = &v[r->n];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->epoch = epoch;
	snprintf(p->key, sizeof(p->key), "%s", key ? key : "");
	p->file = pdb_strdup(file);
	p->why = pdb_strdup(strip_file(why, file));
	if (!p->file || !p->why) {
		free(p->file);
		free(p->why);
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", pdb_dir(db));
	}
	r->n++;
	if (kind != PDB_FSCK_NOTE)
		r->damaged++;
	return 0;
}

/* The result of a parse: damage becomes a problem (db's message), other errors fail. */
static int judged(struct pdb_db *db, struct pdb_fsck *r, uint32_t epoch, const char *key,
		  const char *file, int err)
{
	if (!pdb_err_skippable(err))
		return err;
	err = add(db, r, PDB_FSCK_DAMAGED, epoch, key, file, pdb_errmsg(db));
	ax_error_clear(pdb_db_err(db));
	return err;
}

/* Read file (-ENOENT when absent: nothing to check). */
static int read_counted(struct pdb_db *db, struct pdb_fsck *r, const char *file, void **buf,
			size_t *len)
{
	int err = pdb_read_file(file, buf, len, pdb_db_err(db));

	if (err != -ENOENT)
		r->files++;
	return err;
}

static int check_table(struct pdb_db *db, struct pdb_fsck *r, uint32_t epoch, const char *key,
		       const char *file, unsigned int t)
{
	struct pdb_ident id = { .epoch = epoch };
	struct pdb_prof *p;
	size_t len;
	void *buf;
	int err;

	snprintf(id.key, sizeof(id.key), "%s", key);
	err = read_counted(db, r, file, &buf, &len);
	if (err == -ENOENT)
		return 0;
	if (!err) {
		p = pdb_prof_new();
		if (!p)
			err = ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", file);
		else
			err = pdb_parse_table(buf, len, file, (int)t, &id, p, pdb_db_err(db));
		pdb_prof_free(p);
		free(buf);
	}
	return judged(db, r, epoch, key, file, err);
}

/*
 * No manifest: damage when the database requires one (DIR/format, pdb.h MANIFEST) and the
 * epoch has files; repair makes it again from the files.
 */
static int check_mf_required(struct pdb_db *db, struct pdb_fsck *r, struct fk_epoch *e,
			     const char *path)
{
	struct pdb_mf *list = NULL;
	size_t n = 0;
	bool have;
	int err;

	err = pdb_mf_read(db, e->epoch, &list, &n, &have);
	free(list);
	if (err != -EBADMSG)
		return err;
	e->mf_missing = true;
	err = add(db, r, PDB_FSCK_MISSING, e->epoch, "", path, pdb_errmsg(db));
	ax_error_clear(pdb_db_err(db));
	return err;
}

/* The epoch's own files: index, merged, manifest (kept in e for the checks that follow). */
static int check_epoch_files(struct pdb_db *db, struct pdb_fsck *r, struct fk_epoch *e)
{
	struct pdb_ident id = { .epoch = e->epoch };
	struct pdb_origin *o = NULL;
	char path[PATH_MAX];
	size_t len, no = 0;
	void *buf;
	int err;

	path_join(path, e->dir, "index");
	err = read_counted(db, r, path, &buf, &len);
	if (!err) {
		err = pdb_parse_index_id(buf, len, path, &id, &e->idx, &e->nidx, pdb_db_err(db));
		free(buf);
	}
	err = judged(db, r, e->epoch, "", path, err == -ENOENT ? 0 : err);
	if (err)
		return err;
	path_join(path, e->dir, "merged");
	err = read_counted(db, r, path, &buf, &len);
	if (!err) {
		err = pdb_parse_origins_id(buf, len, path, &id, &o, &no, pdb_db_err(db));
		free(o);
		free(buf);
	}
	err = judged(db, r, e->epoch, "", path, err == -ENOENT ? 0 : err);
	if (err)
		return err;
	path_join(path, e->dir, "manifest");
	err = read_counted(db, r, path, &buf, &len);
	e->has_mf = err != -ENOENT;
	if (!err) {
		err = pdb_parse_manifest(buf, len, path, &id, &e->mf, &e->nmf, pdb_db_err(db));
		free(buf);
	}
	e->mf_bad = pdb_err_skippable(err);
	if (err == -ENOENT)
		return check_mf_required(db, r, e, path);
	return judged(db, r, e->epoch, "", path, err);
}

/* An image directory, or (key PDB_KEY_UNKNOWN) the unknown profile in the epoch directory. */
static int check_key_dir(struct pdb_db *db, struct pdb_fsck *r, struct fk_epoch *e, const char *key,
			 const char *kdir)
{
	uint64_t mask = pdb_key_tables(key), listed, have = 0;
	char path[PATH_MAX], name[32], why[PATH_MAX + 128];
	bool unknown = !strcmp(key, PDB_KEY_UNKNOWN);
	struct dirent *d;
	DIR *dir;
	int err = 0, t;

	dir = unknown ? NULL : opendir(kdir);
	if (!unknown && !dir)
		return ax_syserr(pdb_db_err(db), -errno, kdir, "opendir");
	while (dir && !err && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		path_join(path, kdir, d->d_name);
		t = pdb_table_of_file(d->d_name);
		if (pdb_is_temp_name(d->d_name))
			err = add(db, r, PDB_FSCK_STRAY, e->epoch, key, path,
				  "a writer's temporary file left by a crash");
		else if (t < 0 || !(mask & PDB_T_BIT(t)))
			err = add(db, r, PDB_FSCK_NOTE, e->epoch, key, path,
				  "unknown name (readers ignore it: a later version's table?)");
	}
	if (dir)
		closedir(dir);
	for (t = 0; !err && t < PDB_T_NR; t++) {
		if (!(mask & PDB_T_BIT(t)))
			continue;
		path_join(path, kdir, pdb_table_file((unsigned int)t, name));
		if (exists(path))
			have |= PDB_T_BIT(t);
		err = check_table(db, r, e->epoch, key, path, (unsigned int)t);
	}
	listed = pdb_mf_tables(e->mf, e->nmf, key);
	for (t = 0; !err && e->has_mf && !e->mf_bad && t < PDB_T_NR; t++) {
		if (!((listed ^ have) & PDB_T_BIT(t)))
			continue;
		e->mf_stale = true;
		path_join(path, kdir, pdb_table_file((unsigned int)t, name));
		if (listed & PDB_T_BIT(t)) {
			snprintf(why, sizeof(why),
				 "missing: image %s: %s listed in epoch-%u/manifest but not there",
				 key, name, e->epoch);
			err = add(db, r, PDB_FSCK_MISSING, e->epoch, key, path, why);
		} else {
			err = add(db, r, PDB_FSCK_NOTE, e->epoch, key, path,
				  "not listed in the manifest (a store interrupted between its "
				  "renames; readers read it)");
		}
	}
	return err;
}

static bool indexed(const struct fk_epoch *e, const char *key)
{
	for (size_t i = 0; i < e->nidx; i++)
		if (!strcmp(e->idx[i].key, key))
			return true;
	return false;
}

static bool epoch_file_name(const char *name)
{
	return !strcmp(name, "index") || !strcmp(name, "merged") || !strcmp(name, "manifest") ||
	       !strcmp(name, "unknown.prof") || !strcmp(name, "threads.prof");
}

static int check_epoch(struct pdb_db *db, struct pdb_fsck *r, struct fk_epoch *e)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int err;

	err = check_epoch_files(db, r, e);
	if (!err)
		err = check_key_dir(db, r, e, PDB_KEY_UNKNOWN, e->dir);
	if (err)
		return err;
	dir = opendir(e->dir);
	if (!dir)
		return ax_syserr(pdb_db_err(db), -errno, e->dir, "opendir");
	while (!err && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    epoch_file_name(d->d_name))
			continue;
		path_join(path, e->dir, d->d_name);
		if (pdb_is_temp_name(d->d_name)) {
			err = add(db, r, PDB_FSCK_STRAY, e->epoch, "", path,
				  "a writer's temporary file left by a crash");
		} else if (!pdb_key_is_valid(d->d_name) || !is_dir(path)) {
			err = add(db, r, PDB_FSCK_NOTE, e->epoch, "", path,
				  "unknown name (readers ignore it)");
		} else {
			err = check_key_dir(db, r, e, d->d_name, path);
			if (!err && e->nidx && !indexed(e, d->d_name))
				err = add(db, r, PDB_FSCK_NOTE, e->epoch, d->d_name, path,
					  "image directory not in the index (its path is not "
					  "known)");
		}
	}
	closedir(dir);
	/* Images the manifest lists whose directory is gone. */
	for (size_t i = 0; !err && i < e->nmf; i++) {
		if (!strcmp(e->mf[i].key, PDB_KEY_UNKNOWN))
			continue;
		path_join(path, e->dir, e->mf[i].key);
		if (!is_dir(path)) {
			e->mf_stale = true;
			err = add(db, r, PDB_FSCK_MISSING, e->epoch, e->mf[i].key, path,
				  "missing: image directory listed in the manifest but not there");
		}
	}
	return err;
}

/* DIR/id, DIR/current and the names in DIR. */
static int check_top(struct pdb_db *db, struct pdb_fsck *r)
{
	char path[PATH_MAX];
	struct dirent *d;
	uint32_t cur;
	size_t len, i;
	void *buf;
	DIR *dir;
	int err;

	path_join(path, pdb_dir(db), "id");
	err = read_counted(db, r, path, &buf, &len);
	if (!err) {
		const char *s = buf;

		for (i = 0; i < len && i < 16 &&
			    ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'));
		     i++)
			;
		if (i != 16 || len != 17 || s[16] != '\n')
			err = AX_CORRUPT(pdb_db_err(db), path, i,
					 "not 16 lower-case hex digits and a newline");
		free(buf);
	}
	err = judged(db, r, 0, "", path, err == -ENOENT ? 0 : err);
	if (err)
		return err;
	path_join(path, pdb_dir(db), "current");
	if (exists(path)) {
		r->files++;
		err = pdb_epoch_current(db, &cur);
		if (err == -ENOENT) /* it names an epoch that is not there */
			err = AX_CORRUPT(pdb_db_err(db), path, 0, "names a missing epoch");
		err = judged(db, r, 0, "", path, err);
		if (err)
			return err;
	}
	dir = opendir(pdb_dir(db));
	if (!dir)
		return ax_syserr(pdb_db_err(db), -errno, pdb_dir(db), "opendir");
	while (!err && (d = readdir(dir))) {
		const char *n = d->d_name;

		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "lock") || !strcmp(n, "id") ||
		    !strcmp(n, "format") || !strcmp(n, "current") || !strcmp(n, "quarantine") ||
		    !strcmp(n, "kernel") || !strncmp(n, "epoch-", 6))
			continue;
		path_join(path, pdb_dir(db), n);
		if (pdb_is_temp_name(n))
			err = add(db, r, PDB_FSCK_STRAY, 0, "", path,
				  "a writer's temporary file left by a crash");
		else if (!strcmp(n, "journal"))
			/*
			 * JOURNAL: an interrupted transaction (pdb.h TRANSACTIONS). Every writer,
			 * and every reader that can write, finishes it when it opens the database;
			 * --repair takes the lock, which finishes it before the epochs are checked.
			 * Still here: the database could not be written (or the journal is damaged).
			 */
			err = add(db, r, PDB_FSCK_NOTE, 0, "", path,
				  "the journal of an interrupted update: the next writer (or "
				  "axprof fsck --repair) finishes it");
		else
			err = add(db, r, PDB_FSCK_NOTE, 0, "", path,
				  "unknown name (readers ignore it)");
	}
	closedir(dir);
	return err;
}

/* --- repair --- */

/* Move file into DIR/quarantine/[epoch-N/[KEY/]]NAME (".N" added when taken), a reason beside. */
static int quarantine(struct pdb_db *db, struct pdb_problem *p)
{
	char qdir[PATH_MAX], dst[PATH_MAX], why[PATH_MAX], sub[64], srcdir[PATH_MAX];
	const char *base = strrchr(p->file, '/');
	struct ax_error *e = pdb_db_err(db);
	char *text;
	int err, k;

	base = base ? base + 1 : p->file;
	path_join(qdir, pdb_dir(db), "quarantine");
	err = pdb_mkdir(qdir, e);
	if (!err && p->epoch) {
		snprintf(sub, sizeof(sub), "epoch-%u", p->epoch);
		path_push(qdir, sub);
		err = pdb_mkdir(qdir, e);
	}
	if (!err && p->key[0] && strcmp(p->key, PDB_KEY_UNKNOWN)) {
		path_push(qdir, p->key);
		err = pdb_mkdir(qdir, e);
	}
	if (err)
		return err;
	path_join(dst, qdir, base);
	for (k = 2; exists(dst) && k < 1000; k++)
		if (snprintf(dst, sizeof(dst), "%s/%s.%d", qdir, base, k) >= (int)sizeof(dst))
			return ax_fail(e, -ENAMETOOLONG, "%s: path too long", qdir);
	if (snprintf(why, sizeof(why), "%s.reason", dst) >= (int)sizeof(why))
		return ax_fail(e, -ENAMETOOLONG, "%s: path too long", dst);
	if (asprintf(&text, "%s\n%s\n", p->file, p->why) < 0)
		return ax_fail(e, -ENOMEM, "%s: out of memory", why);
	/* The reason first: a crash after it leaves the file in place, found again next time. */
	err = pdb_replace_file(why, text, strlen(text), e);
	free(text);
	if (!err)
		err = pdb_rename(p->file, dst, e);
	if (!err)
		err = pdb_fsync_dir(qdir, e);
	snprintf(srcdir, sizeof(srcdir), "%s", p->file);
	if (strrchr(srcdir, '/'))
		*strrchr(srcdir, '/') = 0;
	if (!err)
		err = pdb_fsync_dir(srcdir, e);
	if (!err) {
		p->moved_to = pdb_strdup(dst);
		if (!p->moved_to)
			err = ax_fail(e, -ENOMEM, "%s: out of memory", dst);
	}
	return err;
}

/* The epoch's manifest made again from the table files there now (lock held). */
static int rewrite_manifest(struct pdb_db *db, struct fk_epoch *e)
{
	struct pdb_ident id = { .epoch = e->epoch };
	char path[PATH_MAX], kdir[PATH_MAX], name[32];
	struct pdb_mf *v = NULL, *nv;
	size_t n = 0, len;
	struct dirent *d;
	void *buf;
	DIR *dir;
	int err = 0;

	dir = opendir(e->dir);
	if (!dir)
		return ax_syserr(pdb_db_err(db), -errno, e->dir, "opendir");
	/* "unknown" sorts among the keys: every entry is appended, then sorted. */
	for (bool first = true; !err; first = false) {
		const char *key;
		uint64_t have = 0, mask;

		if (first) {
			key = PDB_KEY_UNKNOWN;
			snprintf(kdir, sizeof(kdir), "%s", e->dir);
		} else {
			d = readdir(dir);
			if (!d)
				break;
			key = d->d_name;
			path_join(kdir, e->dir, key);
			if (!pdb_key_is_valid(key) || !is_dir(kdir))
				continue;
		}
		mask = pdb_key_tables(key);
		for (unsigned int t = 0; t < PDB_T_NR; t++) {
			if (!(mask & PDB_T_BIT(t)))
				continue;
			path_join(path, kdir, pdb_table_file(t, name));
			if (exists(path))
				have |= PDB_T_BIT(t);
		}
		if (!have)
			continue;
		nv = pdb_realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			err = ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", e->dir);
			break;
		}
		v = nv;
		memset(v[n].key, 0, sizeof(v[n].key));
		memcpy(v[n].key, key, strlen(key)); /* a valid key or "unknown": it fits */
		v[n++].tables = have;
	}
	closedir(dir);
	path_join(path, e->dir, "manifest");
	if (!err && n) {
		for (size_t i = 1; i < n; i++) /* insertion sort: few keys */
			for (size_t j = i; j > 0 && strcmp(v[j - 1].key, v[j].key) > 0; j--) {
				struct pdb_mf x = v[j];

				v[j] = v[j - 1];
				v[j - 1] = x;
			}
		err = pdb_encode_manifest(v, n, &id, &buf, &len);
		if (err) {
			ax_fail(pdb_db_err(db), err, "%s: cannot encode: %s", path, strerror(-err));
		} else {
			err = pdb_replace_file(path, buf, len, pdb_db_err(db));
			free(buf);
		}
	} else if (!err) {
		err = pdb_unlink(path, pdb_db_err(db));
		if (err == -ENOENT)
			err = 0;
		if (!err)
			err = pdb_fsync_dir(e->dir, pdb_db_err(db));
	}
	free(v);
	return err;
}

/* --- the whole --- */

void pdb_fsck_free(struct pdb_fsck *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].file);
		free(r->v[i].why);
		free(r->v[i].moved_to);
	}
	free(r->v);
	free(r->epochs);
	memset(r, 0, sizeof(*r));
}

/* Quarantine p's file when it is damaged or stray; note in e what the epoch's manifest needs. */
static int repair_file(struct pdb_db *db, struct pdb_problem *p, struct fk_epoch *e)
{
	const char *base = strrchr(p->file, '/');
	int err;

	if (p->kind != PDB_FSCK_DAMAGED && p->kind != PDB_FSCK_STRAY)
		return 0;
	base = base ? base + 1 : p->file;
	err = quarantine(db, p);
	if (e && !strcmp(base, "manifest") && !p->key[0])
		e->mf_bad = true;
	else if (e && pdb_table_of_file(base) >= 0)
		e->mf_stale = true;
	p->repaired = !err;
	return err;
}

static int check_all(struct pdb_db *db, uint32_t only, struct pdb_fsck *r, bool repair)
{
	uint32_t *ep = NULL;
	size_t nep = 0, first;
	int err;

	err = check_top(db, r);
	for (size_t k = 0; !err && repair && k < r->n; k++)
		err = repair_file(db, &r->v[k], NULL);
	if (!err)
		err = pdb_epoch_list(db, &ep, &nep);
	if (err)
		return err;
	if (only) {
		size_t i;

		for (i = 0; i < nep && ep[i] != only; i++)
			;
		if (i == nep) {
			free(ep);
			return ax_fail(pdb_db_err(db), -ENOENT, "%s: no epoch %u", pdb_dir(db),
				       only);
		}
		ep[0] = only;
		nep = 1;
	}
	r->epochs = ep;
	r->nepochs = nep;
	for (size_t i = 0; !err && i < nep; i++) {
		struct fk_epoch e = { .epoch = ep[i] };

		snprintf(e.dir, sizeof(e.dir), "%s/epoch-%u", pdb_dir(db), ep[i]);
		first = r->n;
		err = check_epoch(db, r, &e);
		for (size_t k = first; !err && repair && k < r->n; k++)
			err = repair_file(db, &r->v[k], &e);
		if (!err && repair && (e.mf_bad || e.mf_missing || (e.has_mf && e.mf_stale))) {
			err = rewrite_manifest(db, &e);
			for (size_t k = first; !err && k < r->n; k++)
				if (r->v[k].kind == PDB_FSCK_MISSING)
					r->v[k].repaired = true;
			r->manifests_rewritten += !err;
		}
		free(e.mf);
		pdb_image_list_free(e.idx, e.nidx);
	}
	return err;
}

int pdb_fsck(struct pdb_db *db, uint32_t epoch, unsigned int flags, struct pdb_fsck *r)
{
	int err;

	memset(r, 0, sizeof(*r));
	if (!(flags & PDB_FSCK_REPAIR))
		return check_all(db, epoch, r, false);
	/* The writers' lock, through the handle (its first take finishes a journal). */
	err = pdb_lock(db);
	if (err)
		return err;
	err = check_all(db, epoch, r, true);
	pdb_unlock(db);
	return err;
}
