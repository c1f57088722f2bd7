/* pdb/pdb_tx.c - database transactions: staged files, the redo journal, recovery (pdb.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pdb_int.h"

struct pdb_tx {
	struct pdb_db *db;
	struct pdb_jop *ops; /* absolute paths while in memory */
	size_t nops, cap;
	char **dirs; /* directories the transaction made, removed (when empty) by an abort */
	size_t ndirs;
	int err; /* sticky: the first failure */
};

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The directory of path into buf[PATH_MAX]. */
static void dir_of(const char *path, char *buf)
{
	const char *s = strrchr(path, '/');
	size_t n = s ? (size_t)(s - path) : 0;

	if (!n) {
		strcpy(buf, s ? "/" : ".");
		return;
	}
	memcpy(buf, path, n);
	buf[n] = 0;
}

static struct pdb_jop *find_op(struct pdb_tx *tx, const char *path)
{
	size_t i;

	for (i = tx->nops; i-- > 0;)
		if (!tx->ops[i].dead && !strcmp(tx->ops[i].path, path))
			return &tx->ops[i];
	return NULL;
}

/* Forget the staged operation on path, if any (its temporary file goes). */
static void drop_op(struct pdb_tx *tx, const char *path)
{
	struct pdb_jop *op = find_op(tx, path);

	if (!op)
		return;
	if (op->kind == PDB_J_RENAME)
		unlink(op->tmp);
	op->dead = true;
}

int pdb_tx_fail(struct pdb_db *db, int err)
{
	if (err && db->tx && !db->tx->err)
		db->tx->err = err;
	return err;
}

static int add_op(struct pdb_db *db, unsigned int kind, const char *path, const char *tmp)
{
	struct pdb_tx *tx = db->tx;
	struct pdb_jop *op;

	if (strncmp(path, db->dir, strlen(db->dir)) || path[strlen(db->dir)] != '/')
		return ax_fail(&db->err, -EINVAL, "%s: not inside %s", path, db->dir);
	if (tx->nops == tx->cap) {
		size_t cap = tx->cap ? 2 * tx->cap : 16;

		op = pdb_realloc(tx->ops, cap * sizeof(*op));
		if (!op)
			return ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
		tx->ops = op;
		tx->cap = cap;
	}
	op = &tx->ops[tx->nops];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->path = pdb_strdup(path);
	op->tmp = tmp ? pdb_strdup(tmp) : NULL;
	if (!op->path || (tmp && !op->tmp)) {
		free(op->path);
		free(op->tmp);
		return ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
	}
	drop_op(tx, path);
	tx->nops++;
	return 0;
}

static int no_tx(struct pdb_db *db)
{
	return ax_fail(&db->err, -EINVAL, "%s: no transaction in progress", db->dir);
}

int pdb_tx_stage(struct pdb_db *db, const char *path, const void *buf, size_t len)
{
	char tmp[PATH_MAX];
	int err;

	if (!db->tx)
		return no_tx(db);
	if (db->tx->err)
		return db->tx->err;
	err = pdb_write_temp(path, buf, len, tmp, &db->err);
	if (!err) {
		err = add_op(db, PDB_J_RENAME, path, tmp);
		if (err)
			unlink(tmp);
	}
	return pdb_tx_fail(db, err);
}

int pdb_tx_unlink(struct pdb_db *db, const char *path)
{
	if (!db->tx)
		return no_tx(db);
	if (db->tx->err)
		return db->tx->err;
	drop_op(db->tx, path);
	if (!exists(path))
		return 0;
	return pdb_tx_fail(db, add_op(db, PDB_J_UNLINK, path, NULL));
}

int pdb_tx_mkdir(struct pdb_db *db, const char *path)
{
	struct pdb_tx *tx = db->tx;
	bool made;
	char **d;
	int err;

	if (!tx)
		return no_tx(db);
	if (tx->err)
		return tx->err;
	made = !is_dir(path);
	err = pdb_mkdir(path, &db->err);
	if (made && is_dir(path)) { /* made, even when the fsync of its parent failed */
		d = pdb_realloc(tx->dirs, (tx->ndirs + 1) * sizeof(*d));
		if (d) {
			tx->dirs = d;
			d[tx->ndirs] = pdb_strdup(path);
		}
		if (d && d[tx->ndirs]) {
			tx->ndirs++;
		} else {
			rmdir(path);
			if (!err)
				err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", path);
		}
	}
	return pdb_tx_fail(db, err);
}

int pdb_db_read(struct pdb_db *db, const char *path, void **buf, size_t *len)
{
	struct pdb_jop *op = db->tx ? find_op(db->tx, path) : NULL;

	if (op && op->kind == PDB_J_UNLINK) {
		*buf = NULL;
		*len = 0;
		return ax_syserr(&db->err, -ENOENT, path, "open");
	}
	return pdb_read_file(op ? op->tmp : path, buf, len, &db->err);
}

bool pdb_tx_staged(struct pdb_db *db, const char *path)
{
	return db->tx && find_op(db->tx, path);
}

bool pdb_db_exists(struct pdb_db *db, const char *path)
{
	struct pdb_jop *op = db->tx ? find_op(db->tx, path) : NULL;

	if (op)
		return op->kind == PDB_J_RENAME;
	return exists(path) || (errno != ENOENT && errno != ENOTDIR);
}

struct pdb_db *pdb_tx_db(struct pdb_tx *tx)
{
	return tx->db;
}

int pdb_tx_status(const struct pdb_db *db)
{
	return db->tx ? db->tx->err : 0;
}

int pdb_tx_begin(struct pdb_db *db, struct pdb_tx **txp)
{
	struct pdb_tx *tx;
	int err;

	*txp = NULL;
	db->committed = false;
	if (db->tx)
		return ax_fail(&db->err, -EBUSY, "%s: a transaction is already in progress",
			       db->dir);
	tx = pdb_calloc(1, sizeof(*tx));
	if (!tx)
		return ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
	err = pdb_lock(db);
	if (err) {
		free(tx);
		return err;
	}
	tx->db = db;
	db->tx = tx;
	*txp = tx;
	return 0;
}

static void tx_end(struct pdb_tx *tx)
{
	size_t i;

	tx->db->tx = NULL;
	pdb_unlock(tx->db);
	pdb_jops_free(tx->ops, tx->nops);
	for (i = 0; i < tx->ndirs; i++)
		free(tx->dirs[i]);
	free(tx->dirs);
	free(tx);
}

void pdb_tx_abort(struct pdb_tx *tx)
{
	size_t i;

	if (!tx)
		return;
	for (i = 0; i < tx->nops; i++)
		if (!tx->ops[i].dead && tx->ops[i].kind == PDB_J_RENAME)
			unlink(tx->ops[i].tmp);
	for (i = tx->ndirs; i-- > 0;)
		rmdir(tx->dirs[i]); /* fails, as it should, when not empty */
	tx_end(tx);
}

/* fsync the directory of every live operation once. */
static int fsync_dirs(struct pdb_db *db, const struct pdb_jop *v, size_t n)
{
	char d[PATH_MAX], e[PATH_MAX];
	size_t i, j;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		if (v[i].dead)
			continue;
		dir_of(v[i].path, d);
		for (j = 0; j < i; j++) {
			if (v[j].dead)
				continue;
			dir_of(v[j].path, e);
			if (!strcmp(d, e))
				break;
		}
		if (j == i)
			err = pdb_fsync_dir(d, &db->err);
	}
	return err;
}

/*
 * Apply v (absolute paths), idempotently: a rename whose temporary file is gone was done
 * (its destination is there); a removal of a missing file was done.
 */
static int apply_ops(struct pdb_db *db, const struct pdb_jop *v, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		if (v[i].dead)
			continue;
		if (v[i].kind == PDB_J_UNLINK)
			err = pdb_unlink(v[i].path, &db->err);
		else if (exists(v[i].tmp))
			err = pdb_rename(v[i].tmp, v[i].path, &db->err);
		else if (!exists(v[i].path))
			err = ax_fail(
				&db->err, -ENOENT,
				"%s/journal: cannot finish the interrupted update: neither %s "
				"nor its new version %s is there (removed by hand?)",
				db->dir, v[i].path, v[i].tmp);
	}
	if (!err)
		err = fsync_dirs(db, v, n);
	return err;
}

static void journal_path(const struct pdb_db *db, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/journal", db->dir);
}

/* Remove the journal of an applied transaction (the end of its recovery). */
static int journal_done(struct pdb_db *db)
{
	char path[PATH_MAX];
	int err;

	journal_path(db, path);
	err = pdb_unlink(path, &db->err);
	if (!err)
		err = pdb_fsync_dir(db->dir, &db->err);
	return err;
}

/* Write the journal of tx's live operations and rename it into place: the commit point. */
static int journal_write(struct pdb_tx *tx, bool *committed)
{
	struct pdb_db *db = tx->db;
	size_t skip = strlen(db->dir) + 1, i, len;
	char path[PATH_MAX], tmp[PATH_MAX];
	struct pdb_jop *rel;
	void *buf;
	int err;

	rel = pdb_calloc(tx->nops, sizeof(*rel));
	if (!rel)
		return ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
	for (i = 0; i < tx->nops; i++) {
		rel[i] = tx->ops[i];
		rel[i].path += skip;
		if (rel[i].tmp)
			rel[i].tmp += skip;
	}
	journal_path(db, path);
	err = pdb_encode_journal(rel, tx->nops, &buf, &len);
	free(rel);
	if (err)
		return ax_fail(&db->err, err, "%s: cannot encode: %s", path, strerror(-err));
	err = pdb_write_temp(path, buf, len, tmp, &db->err);
	free(buf);
	if (err)
		return err;
	err = pdb_rename(tmp, path, &db->err);
	if (err) {
		unlink(tmp);
		return err;
	}
	*committed = true;
	return pdb_fsync_dir(db->dir, &db->err);
}

static int committed_error(struct pdb_db *db, int err)
{
	char msg[AX_ERROR_MAX];

	snprintf(msg, sizeof(msg), "%s", db->err.msg);
	return ax_fail(&db->err, err,
		       "%s (the update is committed in %s/journal: the next writer or reader, or "
		       "`axprof fsck -d %s --repair`, finishes it)",
		       msg, db->dir, db->dir);
}

int pdb_tx_commit(struct pdb_tx *tx)
{
	struct pdb_db *db = tx->db;
	struct pdb_jop *one = NULL;
	bool committed = false;
	size_t live = 0, i;
	int err = tx->err;

	db->committed = false;
	if (err) {
		pdb_tx_abort(tx);
		return err;
	}
	for (i = 0; i < tx->nops; i++)
		if (!tx->ops[i].dead) {
			live++;
			one = &tx->ops[i];
		}
	if (live == 0) {
		tx_end(tx);
		return 0;
	}
	if (live == 1) {
		/* One file: its own rename (or removal) is the commit point. */
		err = apply_ops(db, one, 1);
		/* Done when the file was renamed (removed), even if the fsync after it failed. */
		db->committed = !err || (one->kind == PDB_J_RENAME ? !exists(one->tmp) :
								     !exists(one->path));
		if (err && !db->committed)
			unlink(one->tmp);
		tx_end(tx);
		return err;
	}
	err = journal_write(tx, &committed);
	db->committed = committed;
	if (err && !committed) {
		pdb_tx_abort(tx);
		return err;
	}
	if (!err)
		err = apply_ops(db, tx->ops, tx->nops);
	if (!err)
		err = journal_done(db);
	if (err)
		committed_error(db, err);
	tx_end(tx); /* the temporary files stay for the recovery */
	return err;
}

bool pdb_tx_committed(const struct pdb_db *db)
{
	return db->committed;
}

int pdb_recover_locked(struct pdb_db *db)
{
	char path[PATH_MAX], msg[AX_ERROR_MAX];
	size_t len, n, i, dl = strlen(db->dir);
	struct pdb_jop *v;
	struct ax_error e;
	void *buf;
	int err;

	journal_path(db, path);
	err = pdb_read_file(path, &buf, &len, &e);
	if (err == -ENOENT)
		return 0;
	if (err) {
		db->err = e;
		return err;
	}
	err = pdb_parse_journal(buf, len, path, &v, &n, &db->err);
	free(buf);
	if (err == -EBADMSG) {
		snprintf(msg, sizeof(msg), "%s", db->err.msg);
		return ax_fail(&db->err, err,
			       "%s: the journal of an interrupted update is damaged, nothing was "
			       "applied; run `axprof fsck -d %s --repair`",
			       msg, db->dir);
	}
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		char *p = pdb_malloc(dl + strlen(v[i].path) + 2);
		char *t = v[i].tmp ? pdb_malloc(dl + strlen(v[i].tmp) + 2) : NULL;

		if (!p || (v[i].tmp && !t)) {
			free(p);
			free(t);
			err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", path);
			break;
		}
		sprintf(p, "%s/%s", db->dir, v[i].path);
		free(v[i].path);
		v[i].path = p;
		if (t) {
			sprintf(t, "%s/%s", db->dir, v[i].tmp);
			free(v[i].tmp);
			v[i].tmp = t;
		}
	}
	if (!err)
		err = apply_ops(db, v, n);
	if (!err)
		err = journal_done(db);
	pdb_jops_free(v, n);
	return err;
}

int pdb_recover(struct pdb_db *db)
{
	int err = pdb_lock(db); /* the first exclusive lock recovers */

	if (!err)
		pdb_unlock(db);
	return err;
}
