/* pdb/pdb_skip.c - reading an epoch around damaged files (--skip-damaged): what reads is used. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pdb_int.h"

void pdb_skips_free(struct pdb_skips *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].file);
		free(s->v[i].why);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

int pdb_skips_add(struct pdb_skips *s, const char *file, const char *why)
{
	struct pdb_skip *v;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].file, file))
			return 0; /* one entry per file: the manifest is read for every image */
	v = pdb_realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	v[s->n].file = pdb_strdup(file);
	v[s->n].why = pdb_strdup(why);
	if (!v[s->n].file || !v[s->n].why) {
		free(v[s->n].file);
		free(v[s->n].why);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

/* Record the file db's last error reports when it is damaged or unreadable; other errors stay. */
static int skip_damage(struct pdb_db *db, struct pdb_skips *s, const char *file, int ret)
{
	if (!pdb_err_skippable(ret))
		return ret;
	if (pdb_skips_add(s, file, pdb_errmsg(db)))
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", pdb_dir(db));
	ax_error_clear(pdb_db_err(db));
	return 0;
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

/* dir/name into buf[PATH_MAX] (the callers' names are short: the database path is checked). */
static void join(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		buf[PATH_MAX - 1] = 0;
}

static int epoch_dir(struct pdb_db *db, uint32_t epoch, char *buf)
{
	if (epoch == 0 || epoch > PDB_EPOCH_MAX)
		return ax_fail(pdb_db_err(db), -EINVAL, "bad epoch %u", epoch);
	snprintf(buf, PATH_MAX, "%s/epoch-%u", pdb_dir(db), epoch);
	if (!is_dir(buf))
		return ax_fail(pdb_db_err(db), -ENOENT, "%s: no epoch %u in this database", buf,
			       epoch);
	return 0;
}

/* The key's manifest entry, or 0 (the manifest's damage recorded). */
static int listed_tables(struct pdb_db *db, uint32_t epoch, const char *key, struct pdb_skips *s,
			 uint64_t *tables)
{
	char path[PATH_MAX];
	struct pdb_mf *mf;
	size_t n;
	bool have;
	int err;

	*tables = 0;
	err = pdb_mf_read(db, epoch, &mf, &n, &have);
	if (err) {
		snprintf(path, sizeof(path), "%s/epoch-%u/manifest", pdb_dir(db), epoch);
		return skip_damage(db, s, path, err);
	}
	*tables = pdb_mf_tables(mf, n, key);
	free(mf);
	return 0;
}

/* Record each table the manifest lists for key that kdir lacks (read twice, as pdb_mf_check). */
static int skip_missing(struct pdb_db *db, uint32_t epoch, const char *key, const char *kdir,
			struct pdb_skips *s)
{
	uint64_t tables, again;
	char path[PATH_MAX], name[32];
	int err;

	err = listed_tables(db, epoch, key, s, &tables);
	for (unsigned int t = 0; !err && t < PDB_T_NR; t++) {
		if (!(tables & PDB_T_BIT(t)))
			continue;
		join(path, kdir, pdb_table_file(t, name));
		if (exists(path))
			continue;
		err = listed_tables(db, epoch, key, s,
				    &again); /* a store may have just dropped it */
		if (err || !(again & PDB_T_BIT(t)) || exists(path))
			continue;
		err = skip_damage(db, s, path,
				  AX_CORRUPT(pdb_db_err(db), path, 0,
					     "missing: image %s: %s listed in epoch-%u/manifest "
					     "but not there (deleted or moved?)",
					     key, name, epoch));
	}
	return err;
}

/* Read one table file into a profile of its own, merged into p when the whole file reads. */
static int load_table(struct pdb_db *db, uint32_t epoch, const char *key, const char *kdir,
		      unsigned int t, struct pdb_prof *p, struct pdb_skips *s)
{
	struct pdb_ident id = { .epoch = epoch };
	char path[PATH_MAX], name[32];
	struct pdb_prof *one;
	size_t len;
	void *buf;
	int err;

	snprintf(id.key, sizeof(id.key), "%s", key);
	join(path, kdir, pdb_table_file(t, name));
	err = pdb_read_file(path, &buf, &len, pdb_db_err(db));
	if (err == -ENOENT)
		return 0;
	if (err)
		return skip_damage(db, s, path, err);
	one = pdb_prof_new();
	if (!one) {
		free(buf);
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", path);
	}
	err = pdb_parse_table(buf, len, path, (int)t, &id, one, pdb_db_err(db));
	free(buf);
	if (!err && pdb_prof_merge_tables(p, one, PDB_T_BIT(t)))
		err = ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", path);
	pdb_prof_free(one);
	return skip_damage(db, s, path, err);
}

int pdb_load_opt(struct pdb_db *db, uint32_t epoch, const char *key, unsigned int flags,
		 struct pdb_prof **profp, struct pdb_skips *skipped)
{
	char kdir[PATH_MAX];
	struct pdb_prof *p;
	uint64_t mask;
	int err;

	if (!(flags & PDB_LOAD_SKIP_DAMAGED) || !skipped)
		return pdb_load(db, epoch, key, profp);
	*profp = NULL;
	if (!key || (!pdb_key_is_valid(key) && strcmp(key, PDB_KEY_UNKNOWN)))
		return ax_fail(pdb_db_err(db), -EINVAL, "bad image key \"%.*s\"", PDB_KEY_MAX,
			       key ? key : "(null)");
	err = epoch_dir(db, epoch, kdir);
	if (err)
		return err;
	if (strcmp(key, PDB_KEY_UNKNOWN))
		snprintf(kdir, sizeof(kdir), "%s/epoch-%u/%s", pdb_dir(db), epoch, key);
	err = skip_missing(db, epoch, key, kdir, skipped);
	if (err)
		return err;
	if (!is_dir(kdir))
		return ax_fail(pdb_db_err(db), -ENOENT, "%s: no profile for image %s", kdir, key);
	p = pdb_prof_new();
	if (!p)
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", kdir);
	mask = pdb_key_tables(key);
	for (unsigned int t = 0; !err && t < PDB_T_NR; t++)
		if (mask & PDB_T_BIT(t))
			err = load_table(db, epoch, key, kdir, t, p, skipped);
	if (err) {
		pdb_prof_free(p);
		return err;
	}
	*profp = p;
	return 0;
}

static int cmp_image(const void *a, const void *b)
{
	return strcmp(((const struct pdb_image *)a)->key, ((const struct pdb_image *)b)->key);
}

/* Add key to list[0..*n) with flags, or set the flags on its entry. */
static int list_add(struct pdb_db *db, struct pdb_image **list, size_t *n, const char *key,
		    uint32_t flags)
{
	struct pdb_image *l;

	for (size_t i = 0; i < *n; i++) {
		if (!strcmp((*list)[i].key, key)) {
			(*list)[i].flags |= flags;
			return 0;
		}
	}
	l = pdb_realloc(*list, (*n + 1) * sizeof(*l));
	if (!l)
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", pdb_dir(db));
	*list = l;
	memset(&l[*n], 0, sizeof(l[*n]));
	snprintf(l[*n].key, sizeof(l[*n].key), "%s", key);
	l[*n].flags = flags;
	l[*n].path = pdb_strdup("");
	if (!l[*n].path)
		return ax_fail(pdb_db_err(db), -ENOMEM, "%s: out of memory", pdb_dir(db));
	(*n)++;
	return 0;
}

/*
 * pdb_image_list() without what is damaged: the index's entries when it reads, every image
 * directory, every image a readable manifest lists (as pdb_image_list does).
 */
static int list_around(struct pdb_db *db, uint32_t epoch, struct pdb_image *idx, size_t nidx,
		       bool mf_ok, struct pdb_image **listp, size_t *np)
{
	struct pdb_image *list = idx;
	size_t n = nidx;
	char edir[PATH_MAX], sub[PATH_MAX];
	struct pdb_mf *mf = NULL;
	struct dirent *d;
	size_t nmf = 0;
	bool have;
	DIR *dir;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		list[i].flags = PDB_IMG_INDEXED;
	snprintf(edir, sizeof(edir), "%s/epoch-%u", pdb_dir(db), epoch);
	dir = opendir(edir);
	if (!dir) {
		err = ax_syserr(pdb_db_err(db), -errno, edir, "opendir");
		goto out;
	}
	while (!err && (d = readdir(dir))) {
		if (!pdb_key_is_valid(d->d_name) ||
		    snprintf(sub, sizeof(sub), "%s/%s", edir, d->d_name) >= (int)sizeof(sub) ||
		    !is_dir(sub))
			continue;
		err = list_add(db, &list, &n, d->d_name, PDB_IMG_HAS_DIR);
	}
	closedir(dir);
	if (!err && mf_ok)
		err = pdb_mf_read(db, epoch, &mf, &nmf, &have);
	for (size_t i = 0; !err && i < nmf; i++)
		if (pdb_key_is_valid(mf[i].key))
			err = list_add(db, &list, &n, mf[i].key, 0);
	free(mf);
out:
	if (err) {
		pdb_image_list_free(list, n);
		return err;
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), cmp_image);
	*listp = list;
	*np = n;
	return 0;
}

int pdb_image_list_opt(struct pdb_db *db, uint32_t epoch, unsigned int flags,
		       struct pdb_image **listp, size_t *np, struct pdb_skips *skipped)
{
	struct pdb_ident id = { .epoch = epoch };
	char path[PATH_MAX];
	struct pdb_image *idx = NULL;
	struct pdb_mf *mf;
	size_t nidx = 0, nmf, len;
	bool have, idx_ok = true, mf_ok = true;
	void *buf;
	int err;

	if (!(flags & PDB_LOAD_SKIP_DAMAGED) || !skipped)
		return pdb_image_list(db, epoch, listp, np);
	*listp = NULL;
	*np = 0;
	err = epoch_dir(db, epoch, path);
	if (err)
		return err;
	strncat(path, "/index", sizeof(path) - strlen(path) - 1);
	err = pdb_read_file(path, &buf, &len, pdb_db_err(db));
	if (!err) {
		err = pdb_parse_index_id(buf, len, path, &id, &idx, &nidx, pdb_db_err(db));
		free(buf);
	}
	if (err == -ENOENT)
		err = 0;
	if (pdb_err_skippable(err))
		idx_ok = false;
	err = skip_damage(db, skipped, path, err);
	if (err)
		return err;
	err = pdb_mf_read(db, epoch, &mf, &nmf, &have);
	free(mf);
	if (pdb_err_skippable(err))
		mf_ok = false;
	snprintf(path, sizeof(path), "%s/epoch-%u/manifest", pdb_dir(db), epoch);
	err = skip_damage(db, skipped, path, err);
	if (err) {
		pdb_image_list_free(idx, nidx);
		return err;
	}
	if (idx_ok && mf_ok) {
		pdb_image_list_free(idx, nidx);
		return pdb_image_list(db, epoch, listp, np);
	}
	return list_around(db, epoch, idx, nidx, mf_ok, listp, np);
}
