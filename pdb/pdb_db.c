/* pdb/pdb_db.c - the profile database directory: epochs, index, load, store and merges. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pdb_int.h"

/* Room left in a PATH_MAX buffer after the database directory: epoch, key and file names. */
#define DIR_MAX (PATH_MAX - 256)

const char *pdb_errmsg(const struct pdb_db *db)
{
	return db->err.msg;
}

const struct ax_error *pdb_last_error(const struct pdb_db *db)
{
	return &db->err;
}

const char *pdb_dir(const struct pdb_db *db)
{
	return db->dir;
}

struct ax_error *pdb_db_err(struct pdb_db *db)
{
	return &db->err;
}

/* The identity files of key (PDB_KEY_UNKNOWN, "" for the epoch's own) in epoch carry. */
static void ident_of(struct pdb_ident *id, uint32_t epoch, const char *key)
{
	id->epoch = epoch;
	snprintf(id->key, sizeof(id->key), "%s", key);
}

/* --- paths --- */

static void epoch_path(const struct pdb_db *db, uint32_t epoch, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/epoch-%u", db->dir, epoch);
}

/* The directory of key's tables: the epoch itself for the unknown profile. */
static void key_path(const struct pdb_db *db, uint32_t epoch, const char *key, char *buf)
{
	if (!strcmp(key, PDB_KEY_UNKNOWN))
		epoch_path(db, epoch, buf);
	else
		snprintf(buf, PATH_MAX, "%s/epoch-%u/%s", db->dir, epoch, key);
}

static void table_path(const char *kdir, unsigned int t, char *buf)
{
	char name[32];

	snprintf(buf, PATH_MAX, "%s/%s", kdir, pdb_table_file(t, name));
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* "epoch-N", N without leading zeros, 1 .. PDB_EPOCH_MAX: N, else 0. */
static uint32_t parse_epoch_name(const char *name)
{
	uint64_t n = 0;
	const char *s;

	if (strncmp(name, "epoch-", 6) || name[6] < '1' || name[6] > '9')
		return 0;
	for (s = name + 6; *s; s++) {
		if (*s < '0' || *s > '9' || s - name > 16)
			return 0;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	return n <= PDB_EPOCH_MAX ? (uint32_t)n : 0;
}

static bool entry_is_dir(const char *parent, const struct dirent *d)
{
	char path[PATH_MAX];

	if (d->d_type == DT_DIR)
		return true;
	if (d->d_type != DT_UNKNOWN)
		return false;
	if (snprintf(path, sizeof(path), "%s/%s", parent, d->d_name) >= (int)sizeof(path))
		return false;
	return is_dir(path);
}

/* --- lock (pdb.h UPDATES: writers LOCK_EX for a transaction, readers LOCK_SH while open) --- */

/*
 * The handles this process has open: a process's exclusive lock must not wait for its own
 * readers' shared locks (another description of the same file), so it suspends them.
 */
static struct pdb_db **open_dbs;
static size_t nopen;

static bool same_db(const struct pdb_db *a, const struct pdb_db *b)
{
	struct stat sa, sb;

	return !stat(a->dir, &sa) && !stat(b->dir, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Release (or take again) the shared locks of this process's other readers of db. */
static void suspend_readers(struct pdb_db *db, bool suspend)
{
	size_t i;

	for (i = 0; i < nopen; i++) {
		struct pdb_db *o = open_dbs[i];

		if (o == db || !o->shared || o->lockfd < 0 || !same_db(o, db))
			continue;
		while (flock(o->lockfd, suspend ? LOCK_UN : LOCK_SH) && errno == EINTR)
			;
	}
}

static int lock_fd(struct pdb_db *db, int op)
{
	char path[PATH_MAX];

	if (db->lockfd < 0) {
		snprintf(path, sizeof(path), "%s/lock", db->dir);
		db->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (db->lockfd < 0 && op == LOCK_SH)
			db->lockfd = open(path, O_RDONLY | O_CLOEXEC);
		if (db->lockfd < 0)
			return ax_syserr(&db->err, -errno, path, "open");
	}
	while (flock(db->lockfd, op))
		if (errno != EINTR)
			return ax_fail(&db->err, -errno, "%s/lock: flock: %s", db->dir,
				       strerror(errno));
	return 0;
}

int pdb_lock(struct pdb_db *db)
{
	int err;

	if (db->depth++)
		return 0;
	suspend_readers(db, true);
	err = lock_fd(db, LOCK_EX);
	if (!err)
		err = pdb_recover_locked(db);
	if (err) {
		db->depth = 1;
		pdb_unlock(db);
	}
	return err;
}

/*
 * A handle that wrote is a writer from then on: it releases the lock between its transactions
 * rather than going back to a shared lock, which would make other processes' writers wait for
 * it to close (a process waiting for another writer while holding one deadlocks otherwise).
 */
void pdb_unlock(struct pdb_db *db)
{
	if (!db->depth || --db->depth)
		return;
	db->shared = false;
	if (db->lockfd >= 0)
		while (flock(db->lockfd, LOCK_UN) && errno == EINTR)
			;
	suspend_readers(db, false);
}

#define lock_db pdb_lock
#define unlock_db pdb_unlock

/* --- epochs --- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int pdb_epoch_list(struct pdb_db *db, uint32_t **epochs, size_t *n)
{
	uint32_t *v = NULL;
	size_t k = 0, cap = 0;
	struct dirent *d;
	DIR *dir;

	*epochs = NULL;
	*n = 0;
	dir = opendir(db->dir);
	if (!dir)
		return ax_syserr(&db->err, -errno, db->dir, "opendir");
	while ((d = readdir(dir))) {
		uint32_t e = parse_epoch_name(d->d_name);

		if (!e || !entry_is_dir(db->dir, d))
			continue;
		if (k == cap) {
			uint32_t *nv;

			cap = cap ? cap * 2 : 16;
			nv = pdb_realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(dir);
				return ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
			}
			v = nv;
		}
		v[k++] = e;
	}
	closedir(dir);
	if (k)
		qsort(v, k, sizeof(*v), cmp_u32);
	*epochs = v;
	*n = k;
	return 0;
}

static int epoch_max(struct pdb_db *db, uint32_t *max)
{
	uint32_t *v;
	size_t n;
	int err = pdb_epoch_list(db, &v, &n);

	if (err)
		return err;
	*max = n ? v[n - 1] : 0;
	free(v);
	return 0;
}

static int epoch_check(struct pdb_db *db, uint32_t epoch)
{
	char path[PATH_MAX];

	epoch_path(db, epoch, path);
	if (epoch == 0 || epoch > PDB_EPOCH_MAX || !is_dir(path))
		return ax_fail(&db->err, -ENOENT, "%s: no such epoch", path);
	return 0;
}

int pdb_epoch_current(struct pdb_db *db, uint32_t *epoch)
{
	char path[PATH_MAX];
	struct ax_error e;
	uint64_t n = 0;
	size_t len, i;
	void *buf;
	int err;

	snprintf(path, sizeof(path), "%s/current", db->dir);
	err = pdb_read_file(path, &buf, &len, &e);
	if (err == -ENOENT) {
		err = epoch_max(db, epoch);
		if (!err && !*epoch)
			err = ax_fail(&db->err, -ENOENT, "%s: no epoch", db->dir);
		return err;
	}
	if (err) {
		db->err = e;
		return err;
	}
	/* "N\n": decimal, no leading zero. */
	for (i = 0; i < len && i < 10; i++) {
		char c = ((const char *)buf)[i];

		if (c < '0' || c > '9' || (i == 0 && c == '0'))
			break;
		n = n * 10 + (uint64_t)(c - '0');
	}
	if (i == 0 || i + 1 != len || ((const char *)buf)[i] != '\n' || n > PDB_EPOCH_MAX) {
		free(buf);
		return AX_CORRUPT(&db->err, path, i, "not an epoch number and a newline");
	}
	free(buf);
	*epoch = (uint32_t)n;
	return epoch_check(db, *epoch);
}

/* Is the directory at path empty (false when unreadable)? */
static bool dir_empty(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *d;
	bool empty = true;

	if (!dir)
		return false;
	while (empty && (d = readdir(dir)))
		empty = !strcmp(d->d_name, ".") || !strcmp(d->d_name, "..");
	closedir(dir);
	return empty;
}

/*
 * The number of the next epoch: max + 1, or max itself when epoch-max is an empty directory
 * above the current epoch, left by an epoch_new_locked() that a crash stopped between its
 * mkdir and its write of DIR/current (reused: numbers are not skipped).
 */
static int epoch_next(struct pdb_db *db, uint32_t *next)
{
	char path[PATH_MAX];
	struct ax_error keep = db->err;
	uint32_t max, cur;
	int err;

	err = epoch_max(db, &max);
	if (err)
		return err;
	epoch_path(db, max, path);
	if (max && dir_empty(path)) {
		err = pdb_epoch_current(db, &cur);
		if (!err && cur < max) {
			*next = max;
			return 0;
		}
		/* No current epoch, or a damaged DIR/current, is not this call's error: it is
		 * replaced. Failing to read it is. */
		if (err && err != -ENOENT && err != -EBADMSG)
			return err;
		db->err = keep;
	}
	if (max >= PDB_EPOCH_MAX)
		return ax_fail(&db->err, -EOVERFLOW, "%s: no epoch number left", db->dir);
	*next = max + 1;
	return 0;
}

/* Does DIR/current name epoch? db->err is kept. */
static bool current_is(struct pdb_db *db, uint32_t epoch)
{
	struct ax_error keep = db->err;
	uint32_t cur;
	bool is = !pdb_epoch_current(db, &cur) && cur == epoch;

	db->err = keep;
	return is;
}

/*
 * All or nothing: the new directory goes again when DIR/current could not be made to name it.
 * (When only the directory's fsync after the rename failed, current names it: the epoch stays,
 * and the error is returned all the same.)
 */
static int epoch_new_locked(struct pdb_db *db, uint32_t *epoch)
{
	char dir[PATH_MAX], path[PATH_MAX], text[16];
	uint32_t next = 0;
	bool made;
	int err;

	err = epoch_next(db, &next);
	if (err)
		return err;
	epoch_path(db, next, dir);
	made = !is_dir(dir);
	err = pdb_mkdir(dir, &db->err);
	if (!err) {
		snprintf(path, sizeof(path), "%s/current", db->dir);
		snprintf(text, sizeof(text), "%u\n", next);
		err = pdb_replace_file(path, text, strlen(text), &db->err);
	}
	if (err && made && !current_is(db, next))
		rmdir(dir); /* still empty: made under the lock */
	if (!err)
		*epoch = next;
	return err;
}

int pdb_epoch_new(struct pdb_db *db, uint32_t *epoch)
{
	int err = lock_db(db);

	if (err)
		return err;
	err = epoch_new_locked(db, epoch);
	unlock_db(db);
	return err;
}

/* --- identity --- */

#define ID_LEN 17 /* 16 hex digits and a newline */

static int read_identity(struct pdb_db *db, uint64_t *id)
{
	char path[PATH_MAX];
	uint64_t x = 0;
	size_t len, i;
	void *buf;
	int err;

	snprintf(path, sizeof(path), "%s/id", db->dir);
	err = pdb_read_file(path, &buf, &len, &db->err);
	if (err)
		return err;
	for (i = 0; i < len && i < ID_LEN - 1; i++) {
		char c = ((const char *)buf)[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			break;
		x = x << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	if (i != ID_LEN - 1 || len != ID_LEN || ((const char *)buf)[i] != '\n') {
		free(buf);
		return AX_CORRUPT(&db->err, path, i, "not 16 lower-case hex digits and a newline");
	}
	free(buf);
	*id = x;
	return 0;
}

/* 64 random bits: the kernel's, else a hash of the time, the pid and the directory. */
static uint64_t random_id(const char *dir)
{
	struct timespec ts;
	uint64_t x, w[3];

	if (getrandom(&x, sizeof(x), GRND_NONBLOCK) == (ssize_t)sizeof(x))
		return x;
	clock_gettime(CLOCK_REALTIME, &ts);
	w[0] = (uint64_t)ts.tv_sec;
	w[1] = (uint64_t)ts.tv_nsec;
	w[2] = (uint64_t)getpid();
	return pdb_fnv64(pdb_fnv64(PDB_FNV64_INIT, w, sizeof(w)), dir, strlen(dir));
}

/* Read DIR/id, making it when missing (lock held). */
static int identity_locked(struct pdb_db *db, uint64_t *id)
{
	char path[PATH_MAX], text[ID_LEN + 1];
	int err = read_identity(db, id);

	if (err != -ENOENT)
		return err;
	*id = random_id(db->dir);
	snprintf(path, sizeof(path), "%s/id", db->dir);
	snprintf(text, sizeof(text), "%016llx\n", (unsigned long long)*id);
	return pdb_replace_file(path, text, ID_LEN, &db->err);
}

int pdb_identity(struct pdb_db *db, uint64_t *id)
{
	int err = read_identity(db, id);

	if (err != -ENOENT)
		return err;
	err = lock_db(db);
	if (err)
		return err;
	err = identity_locked(db, id);
	unlock_db(db);
	return err;
}

/* --- open, close, sweep --- */

/*
 * Remove writers' temporary files in path and, depth levels down, in epoch and image dirs, and
 * in DIR/kernel/KEY (a merge's copies, pdb_kimg.c; its directories stay: the daemon makes them
 * outside transactions).
 */
static void sweep(const char *path, int depth)
{
	char sub[PATH_MAX];
	struct dirent *d;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		bool kern = depth == 2 && !strcmp(d->d_name, "kernel");
		bool descend = depth == 2 ? parse_epoch_name(d->d_name) != 0 || kern :
					    depth == 1 && pdb_key_is_valid(d->d_name);

		if (snprintf(sub, sizeof(sub), "%s/%s", path, d->d_name) >= (int)sizeof(sub))
			continue;
		if (pdb_is_temp_name(d->d_name)) {
			unlink(sub);
		} else if (descend && entry_is_dir(path, d)) {
			sweep(sub, depth - 1);
			/* An empty image directory: made by a transaction that did not commit. */
			if (depth == 1 &&
			    strcmp(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, "kernel"))
				rmdir(sub);
		}
	}
	closedir(dir);
}

/* DIR/format: "N\n", the format version that made the database (MANIFEST); 0 when absent. */
static int read_format(struct pdb_db *db, unsigned int *version)
{
	char path[PATH_MAX];
	struct ax_error e;
	size_t len, i;
	void *buf;
	int err;

	*version = 0;
	snprintf(path, sizeof(path), "%s/format", db->dir);
	err = pdb_read_file(path, &buf, &len, &e);
	if (err == -ENOENT)
		return 0;
	if (err) {
		db->err = e;
		return err;
	}
	for (i = 0; i + 1 < len && i < 4 && ((char *)buf)[i] >= '0' && ((char *)buf)[i] <= '9'; i++)
		*version = *version * 10 + (unsigned int)(((char *)buf)[i] - '0');
	if (i == 0 || i + 1 != len || ((char *)buf)[i] != '\n' || *version < 3) {
		free(buf);
		return AX_CORRUPT(&db->err, path, i,
				  "not a format version (3 or more) and a newline");
	}
	free(buf);
	if (*version > PDB_FORMAT_VERSION)
		return AX_CORRUPT(&db->err, path, 0,
				  "format version %u is newer than this reader's (%d): use a newer "
				  "axprof",
				  *version, PDB_FORMAT_VERSION);
	return 0;
}

static int write_format(struct pdb_db *db)
{
	char path[PATH_MAX], text[16];

	snprintf(path, sizeof(path), "%s/format", db->dir);
	snprintf(text, sizeof(text), "%d\n", PDB_FORMAT_VERSION);
	return pdb_replace_file(path, text, strlen(text), &db->err);
}

/* A reader's shared lock, after finishing an interrupted update (the journal) if there is one. */
static int open_shared(struct pdb_db *db)
{
	char path[PATH_MAX], msg[AX_ERROR_MAX];
	struct stat st;
	int err;

	/* This process updating the database now: the shared lock comes when it ends. */
	for (size_t i = 0; i < nopen; i++)
		if (open_dbs[i] != db && open_dbs[i]->depth && same_db(open_dbs[i], db)) {
			db->shared = true;
			return lock_fd(db, LOCK_UN);
		}
	snprintf(path, sizeof(path), "%s/lock", db->dir);
	err = lock_fd(db, LOCK_SH);
	if (err && stat(path, &st) && errno == ENOENT)
		return 0; /* a read-only copy that nobody can write: nothing to lock */
	if (err)
		return err;
	db->shared = true;
	snprintf(path, sizeof(path), "%s/journal", db->dir);
	if (stat(path, &st))
		return 0;
	err = pdb_lock(db);
	if (!err) {
		pdb_unlock(db);
		return open_shared(db); /* a reader again, the journal finished */
	}
	snprintf(msg, sizeof(msg), "%s", db->err.msg);
	return ax_fail(&db->err, err,
		       "%s: an interrupted update must be finished before the database is read, "
		       "and this failed: %s; run `axprof fsck -d %s --repair` as a user who may "
		       "write it",
		       path, msg, db->dir);
}

static int register_db(struct pdb_db *db)
{
	struct pdb_db **v = pdb_realloc(open_dbs, (nopen + 1) * sizeof(*v));

	if (!v)
		return ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
	open_dbs = v;
	open_dbs[nopen++] = db;
	return 0;
}

static void unregister_db(struct pdb_db *db)
{
	size_t i;

	for (i = 0; i < nopen; i++)
		if (open_dbs[i] == db) {
			open_dbs[i] = open_dbs[--nopen];
			break;
		}
	if (!nopen) {
		free(open_dbs);
		open_dbs = NULL;
	}
}

int pdb_open(const char *dir, bool create, struct pdb_db **dbp, struct ax_error *err)
{
	struct pdb_db *db;
	unsigned int version;
	uint32_t max, e;
	uint64_t id;
	int ret;

	*dbp = NULL;
	ax_error_clear(err);
	if (strlen(dir) >= DIR_MAX)
		return ax_fail(err, -ENAMETOOLONG, "%s: path too long", dir);
	if (create) {
		ret = pdb_mkdir(dir, err);
		if (ret)
			return ret;
	}
	if (!is_dir(dir))
		return ax_fail(err, -ENOENT, "%s: no profile database here", dir);
	db = pdb_calloc(1, sizeof(*db));
	if (!db)
		return ax_fail(err, -ENOMEM, "%s: out of memory", dir);
	db->lockfd = -1;
	db->dir = pdb_strdup(dir);
	if (!db->dir) {
		free(db);
		return ax_fail(err, -ENOMEM, "%s: out of memory", dir);
	}
	ret = register_db(db);
	if (ret)
		goto out_err;
	if (create) {
		ret = lock_db(db); /* finishes an interrupted update */
		if (ret)
			goto out_err;
		sweep(db->dir, 2);
		ret = epoch_max(db, &max);
		if (!ret && !max)
			ret = write_format(db);
		if (!ret && !max)
			ret = epoch_new_locked(db, &e);
		if (!ret && !max)
			ret = identity_locked(db, &id);
		unlock_db(db);
	} else {
		ret = epoch_max(db, &max);
		if (!ret && !max)
			ret = ax_fail(&db->err, -ENOENT,
				      "%s: not a profile database (no epoch-N directory)", dir);
		if (!ret)
			ret = open_shared(db);
	}
	if (!ret)
		ret = read_format(db, &version);
	if (ret)
		goto out_err;
	db->mf_required = version >= 3;
	*dbp = db;
	return 0;
out_err:
	if (err)
		*err = db->err;
	pdb_close(db);
	return ret;
}

void pdb_close(struct pdb_db *db)
{
	if (!db)
		return;
	if (db->tx)
		pdb_tx_abort(db->tx);
	unregister_db(db);
	if (db->lockfd >= 0)
		close(db->lockfd);
	free(db->dir);
	free(db);
}

/* --- transactions of one call --- */

/* Join db's transaction, or begin one of our own (*own). */
static int tx_enter(struct pdb_db *db, struct pdb_tx **own)
{
	*own = NULL;
	if (db->tx)
		return pdb_tx_status(db);
	return pdb_tx_begin(db, own);
}

/* Commit (or abort after err) our own transaction; poison a joined one after err. */
static int tx_leave(struct pdb_db *db, struct pdb_tx *own, int err)
{
	if (!own)
		return pdb_tx_fail(db, err);
	if (err) {
		pdb_tx_abort(own);
		return err;
	}
	return pdb_tx_commit(own);
}

/* --- index --- */

static int read_index(struct pdb_db *db, uint32_t epoch, struct pdb_image **list, size_t *n)
{
	struct pdb_ident id;
	char path[PATH_MAX];
	size_t len;
	void *buf;
	int err;

	*list = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "%s/epoch-%u/index", db->dir, epoch);
	err = pdb_db_read(db, path, &buf, &len);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	ident_of(&id, epoch, "");
	err = pdb_parse_index_id(buf, len, path, &id, list, n, &db->err);
	free(buf);
	return err;
}

static int cmp_image(const void *a, const void *b)
{
	return strcmp(((const struct pdb_image *)a)->key, ((const struct pdb_image *)b)->key);
}

static struct pdb_image *find_image(struct pdb_image *list, size_t n, const char *key)
{
	struct pdb_image k;

	if (!n)
		return NULL;
	memset(&k, 0, sizeof(k));
	snprintf(k.key, sizeof(k.key), "%s", key);
	return bsearch(&k, list, n, sizeof(*list), cmp_image);
}

static bool same_image(const struct pdb_image *a, const struct pdb_image *b)
{
	return !strcmp(a->path ? a->path : "", b->path ? b->path : "") &&
	       a->build_id_len == b->build_id_len &&
	       !memcmp(a->build_id, b->build_id, a->build_id_len) && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->text_size == b->text_size;
}

static int check_image(struct pdb_db *db, const struct pdb_image *img)
{
	if (!pdb_key_is_valid(img->key) || img->build_id_len > PDB_BUILD_ID_MAX ||
	    (img->path && strlen(img->path) > PDB_PATH_MAX))
		return ax_fail(&db->err, -EINVAL, "bad index entry for key \"%.*s\"", PDB_KEY_MAX,
			       img->key);
	return 0;
}

/*
 * Add add[0..nadd) to the epoch's index (lock held). An entry whose key is already there replaces
 * it when replace, else the index's entry stays; of keys repeated in add the first counts. Writes
 * only when something changed.
 */
static int index_update(struct pdb_db *db, uint32_t epoch, const struct pdb_image *add, size_t nadd,
			bool replace)
{
	struct pdb_image *list, *l, *old;
	struct pdb_ident id;
	char path[PATH_MAX];
	size_t n, k, i, j, len;
	bool changed = false;
	void *buf;
	int err;

	err = read_index(db, epoch, &list, &n);
	if (err)
		return err;
	k = n; /* list[0..n) sorted (from the file), list[n..k) appended */
	l = pdb_realloc(list, (n + nadd) * sizeof(*l));
	if (!l) {
		err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
		goto out_free;
	}
	list = l;
	for (i = 0; i < nadd; i++) {
		const struct pdb_image *a = &add[i];
		char *p;

		old = find_image(list, n, a->key);
		for (j = n; !old && j < k; j++)
			if (!strcmp(list[j].key, a->key))
				old = &list[j];
		if (old && (!replace || old >= list + n || same_image(old, a)))
			continue;
		p = pdb_strdup(a->path ? a->path : "");
		if (!p) {
			err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
			goto out_free;
		}
		if (old) {
			free((char *)old->path);
		} else {
			old = &list[k++];
		}
		*old = *a;
		old->path = p;
		old->flags = PDB_IMG_INDEXED;
		changed = true;
	}
	if (!changed)
		goto out_free;
	ident_of(&id, epoch, "");
	err = pdb_encode_index_id(list, k, &id, &buf, &len);
	if (err) {
		ax_fail(&db->err, err, "%s/epoch-%u/index: cannot encode: %s", db->dir, epoch,
			strerror(-err));
		goto out_free;
	}
	snprintf(path, sizeof(path), "%s/epoch-%u/index", db->dir, epoch);
	err = pdb_tx_stage(db, path, buf, len);
	free(buf);
out_free:
	pdb_image_list_free(list, k);
	return err;
}

int pdb_image_add(struct pdb_db *db, uint32_t epoch, const struct pdb_image *img)
{
	int err;

	struct pdb_tx *own;

	err = check_image(db, img);
	if (err)
		return pdb_tx_fail(db, err);
	err = tx_enter(db, &own);
	if (err)
		return err;
	err = epoch_check(db, epoch);
	if (!err)
		err = index_update(db, epoch, img, 1, true);
	return tx_leave(db, own, err);
}

/*
 * Append to list[0..*k) the images the epoch's manifest lists that are neither indexed nor have
 * a directory (flags 0), so that readers find them missing (pdb_load) instead of never asking.
 */
static int add_manifest_keys(struct pdb_db *db, uint32_t epoch, struct pdb_image **list, size_t *k)
{
	struct pdb_image *l, *im;
	struct pdb_mf *mf;
	size_t n, i, j;
	bool have;
	int err;

	err = pdb_mf_read(db, epoch, &mf, &n, &have);
	for (i = 0; !err && i < n; i++) {
		for (j = 0; j < *k && strcmp((*list)[j].key, mf[i].key); j++)
			;
		if (j < *k || !pdb_key_is_valid(mf[i].key))
			continue;
		l = pdb_realloc(*list, (*k + 1) * sizeof(*l));
		if (!l) {
			err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
			break;
		}
		*list = l;
		im = &l[*k];
		memset(im, 0, sizeof(*im));
		memcpy(im->key, mf[i].key, sizeof(im->key));
		im->path = pdb_strdup("");
		if (!im->path) {
			err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", db->dir);
			break;
		}
		(*k)++;
	}
	free(mf);
	return err;
}

int pdb_image_list(struct pdb_db *db, uint32_t epoch, struct pdb_image **listp, size_t *np)
{
	struct pdb_image *list, *l, *im;
	char path[PATH_MAX];
	struct dirent *d;
	size_t n, k;
	DIR *dir;
	int err;

	*listp = NULL;
	*np = 0;
	err = epoch_check(db, epoch);
	if (err)
		return err;
	err = read_index(db, epoch, &list, &n);
	if (err)
		return err;
	epoch_path(db, epoch, path);
	dir = opendir(path);
	if (!dir) {
		err = ax_syserr(&db->err, -errno, path, "opendir");
		goto out_free;
	}
	k = n;
	while ((d = readdir(dir))) {
		if (!pdb_key_is_valid(d->d_name) || !entry_is_dir(path, d))
			continue;
		im = find_image(list, n, d->d_name);
		if (im) {
			im->flags |= PDB_IMG_HAS_DIR;
			continue;
		}
		l = pdb_realloc(list, (k + 1) * sizeof(*l));
		if (!l) {
			err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", path);
			break;
		}
		list = l;
		im = &list[k++];
		memset(im, 0, sizeof(*im));
		memcpy(im->key, d->d_name, strlen(d->d_name) + 1); /* a valid key: it fits */
		im->flags = PDB_IMG_HAS_DIR;
		im->path = pdb_strdup("");
		if (!im->path) {
			err = ax_fail(&db->err, -ENOMEM, "%s: out of memory", path);
			break;
		}
	}
	closedir(dir);
	if (!err)
		err = add_manifest_keys(db, epoch, &list, &k);
	n = k;
	if (err)
		goto out_free;
	if (n)
		qsort(list, n, sizeof(*list), cmp_image);
	*listp = list;
	*np = n;
	return 0;
out_free:
	pdb_image_list_free(list, n);
	return err;
}

/* --- load and store --- */

static int check_key(struct pdb_db *db, const char *key)
{
	if (!key || (!pdb_key_is_valid(key) && strcmp(key, PDB_KEY_UNKNOWN)))
		return ax_fail(&db->err, -EINVAL, "bad image key \"%.*s\"", PDB_KEY_MAX,
			       key ? key : "(null)");
	return 0;
}

#define key_tables pdb_key_tables

/*
 * Read the files of the tables in mask from kdir, key's directory in epoch, into p (missing
 * files are empty tables; pdb_mf_check tells which must be there). Each file's identity must
 * be (epoch, key).
 */
static int load_tables(struct pdb_db *db, uint32_t epoch, const char *key, const char *kdir,
		       uint64_t mask, struct pdb_prof *p)
{
	struct pdb_ident id;
	char path[PATH_MAX];
	unsigned int t;
	size_t len;
	void *buf;
	int err;

	for (t = 0; t < PDB_T_NR; t++) {
		if (!(mask & PDB_T_BIT(t)))
			continue;
		table_path(kdir, t, path);
		err = pdb_db_read(db, path, &buf, &len);
		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		ident_of(&id, epoch, key);
		err = pdb_parse_table(buf, len, path, (int)t, &id, p, &db->err);
		free(buf);
		if (err)
			return err;
	}
	return 0;
}

int pdb_load(struct pdb_db *db, uint32_t epoch, const char *key, struct pdb_prof **profp)
{
	char kdir[PATH_MAX];
	struct pdb_prof *p;
	int err;

	*profp = NULL;
	err = check_key(db, key);
	if (!err)
		err = epoch_check(db, epoch);
	if (err)
		return err;
	key_path(db, epoch, key, kdir);
	err = pdb_mf_check(db, epoch, key, kdir);
	if (err)
		return err;
	if (!is_dir(kdir))
		return ax_fail(&db->err, -ENOENT, "%s: no profile for image %s", kdir, key);
	p = pdb_prof_new();
	if (!p)
		return ax_fail(&db->err, -ENOMEM, "%s: out of memory", kdir);
	err = load_tables(db, epoch, key, kdir, key_tables(key), p);
	if (err) {
		pdb_prof_free(p);
		return err;
	}
	*profp = p;
	return 0;
}

/*
 * Stage the files of the tables in mask (p's) and the removal of those in del into db's
 * transaction; key's manifest entry becomes (entry & keep) | mask.
 */
static int write_tables(struct pdb_db *db, uint32_t epoch, const char *key, const char *kdir,
			const struct pdb_prof *p, uint64_t mask, uint64_t del, uint64_t keep)
{
	struct pdb_ident id;
	char path[PATH_MAX];
	unsigned int t;
	int err = 0;

	ident_of(&id, epoch, key);
	for (t = 0; t < PDB_T_NR && !err; t++) {
		size_t len;
		void *buf;

		table_path(kdir, t, path);
		if (mask & PDB_T_BIT(t)) {
			err = pdb_encode_table(p, t, &id, &buf, &len);
			if (err) {
				ax_fail(&db->err, err, "%s: cannot encode: %s", path,
					strerror(-err));
				break;
			}
			err = pdb_tx_stage(db, path, buf, len);
			free(buf);
		} else if (del & PDB_T_BIT(t)) {
			err = pdb_tx_unlink(db, path);
		}
	}
	if (!err)
		err = pdb_mf_prepare(db, epoch, key, keep, mask);
	return pdb_tx_fail(db, err);
}

/* Check key and prof's tables against each other; make the image directory (lock held). */
static int prepare(struct pdb_db *db, uint32_t epoch, const char *key, const struct pdb_prof *p,
		   char *kdir)
{
	int err;

	if (pdb_prof_tables(p) & ~key_tables(key))
		return ax_fail(&db->err, -EINVAL,
			       "%s: the profile has tables that do not belong to this key", key);
	err = epoch_check(db, epoch);
	if (err)
		return err;
	key_path(db, epoch, key, kdir);
	return pdb_tx_mkdir(db, kdir);
}

int pdb_store(struct pdb_db *db, uint32_t epoch, const char *key, const struct pdb_prof *prof)
{
	struct pdb_tx *own;
	char kdir[PATH_MAX];
	uint64_t mask;
	int err;

	err = check_key(db, key);
	if (err)
		return pdb_tx_fail(db, err);
	err = tx_enter(db, &own);
	if (err)
		return err;
	err = prepare(db, epoch, key, prof, kdir);
	mask = pdb_prof_tables(prof);
	if (!err)
		err = write_tables(db, epoch, key, kdir, prof, mask, key_tables(key) & ~mask, mask);
	return tx_leave(db, own, err);
}

int pdb_merge_store(struct pdb_db *db, uint32_t epoch, const char *key, const struct pdb_prof *prof)
{
	struct pdb_tx *own;
	char kdir[PATH_MAX];
	struct pdb_prof *sum;
	uint64_t mask;
	int err;

	err = check_key(db, key);
	if (err)
		return pdb_tx_fail(db, err);
	mask = pdb_prof_tables(prof);
	if (!mask)
		return 0;
	sum = pdb_prof_new();
	if (!sum)
		return pdb_tx_fail(db, ax_fail(&db->err, -ENOMEM, "out of memory"));
	err = tx_enter(db, &own);
	if (err)
		goto out_free;
	err = prepare(db, epoch, key, prof, kdir);
	if (!err)
		err = pdb_mf_check(db, epoch, key, kdir);
	if (!err)
		err = load_tables(db, epoch, key, kdir, mask, sum);
	if (!err) {
		err = pdb_prof_merge_tables(sum, prof, mask);
		if (err)
			ax_fail(&db->err, err, "%s: cannot merge: %s", kdir, strerror(-err));
	}
	if (!err)
		err = write_tables(db, epoch, key, kdir, sum, mask, 0, ~0ull);
	err = tx_leave(db, own, err);
out_free:
	pdb_prof_free(sum);
	return err;
}

int pdb_tx_store(struct pdb_tx *tx, uint32_t epoch, const char *key, const struct pdb_prof *prof)
{
	return pdb_store(pdb_tx_db(tx), epoch, key, prof);
}

int pdb_tx_merge_store(struct pdb_tx *tx, uint32_t epoch, const char *key,
		       const struct pdb_prof *prof)
{
	return pdb_merge_store(pdb_tx_db(tx), epoch, key, prof);
}

int pdb_tx_image_add(struct pdb_tx *tx, uint32_t epoch, const struct pdb_image *img)
{
	return pdb_image_add(pdb_tx_db(tx), epoch, img);
}

/* --- merging databases --- */

static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int from_src(struct pdb_db *dst, struct pdb_db *src, int err)
{
	if (err)
		dst->err = src->err;
	return err;
}

/* Merge key's profile; with sk (--skip-damaged) what reads of it, its damage appended to sk. */
static int merge_one(struct pdb_db *dst, uint32_t de, struct pdb_db *src, uint32_t se,
		     const char *key, struct pdb_skips *sk)
{
	struct pdb_prof *p;
	int err;

	err = pdb_load_opt(src, se, key, sk ? PDB_LOAD_SKIP_DAMAGED : 0, &p, sk);
	if (sk && err == -ENOENT)
		return 0; /* a listed image without a directory: its files are in sk */
	err = from_src(dst, src, err);
	if (err)
		return err;
	err = pdb_merge_store(dst, de, key, p);
	pdb_prof_free(p);
	return err;
}

/* --- merge records --- */

static void origins_path(const struct pdb_db *db, uint32_t epoch, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/epoch-%u/merged", db->dir, epoch);
}

int pdb_origins(struct pdb_db *db, uint32_t epoch, struct pdb_origin **list, size_t *n)
{
	struct pdb_ident id;
	char path[PATH_MAX];
	size_t len;
	void *buf;
	int err;

	*list = NULL;
	*n = 0;
	err = epoch_check(db, epoch);
	if (err)
		return err;
	origins_path(db, epoch, path);
	err = pdb_db_read(db, path, &buf, &len);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	ident_of(&id, epoch, "");
	err = pdb_parse_origins_id(buf, len, path, &id, list, n, &db->err);
	free(buf);
	return err;
}

static bool has_origin(const struct pdb_origin *v, size_t n, uint64_t id, uint32_t epoch)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].id == id && v[i].epoch == epoch)
			return true;
	return false;
}

static int cmp_origin_q(const void *a, const void *b)
{
	const struct pdb_origin *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->epoch < y->epoch ? -1 : x->epoch > y->epoch;
}

/* Whose samples the source and the destination epochs hold (MERGES). */
struct lineage {
	uint64_t src_id, dst_id;
	uint32_t src_epoch, dst_epoch;
	struct pdb_origin *s, *d; /* their merge records */
	size_t ns, nd;
};

/* -EALREADY with a message when merging would count samples twice. */
static int check_lineage(struct pdb_db *dst, struct pdb_db *src, const struct lineage *l)
{
	if (has_origin(l->d, l->nd, l->src_id, l->src_epoch))
		return ax_fail(&dst->err, -EALREADY,
			       "%s epoch %u was already merged into %s epoch %u (again would count "
			       "its samples twice)",
			       src->dir, l->src_epoch, dst->dir, l->dst_epoch);
	if (has_origin(l->s, l->ns, l->dst_id, l->dst_epoch))
		return ax_fail(&dst->err, -EALREADY,
			       "%s epoch %u was merged into %s epoch %u before (merging back would "
			       "count its samples twice)",
			       dst->dir, l->dst_epoch, src->dir, l->src_epoch);
	for (size_t i = 0; i < l->ns; i++)
		if (has_origin(l->d, l->nd, l->s[i].id, l->s[i].epoch))
			return ax_fail(
				&dst->err, -EALREADY,
				"%s epoch %u and %s epoch %u both hold the samples of database "
				"%016llx epoch %u (merged into each before): merging would count "
				"them twice",
				src->dir, l->src_epoch, dst->dir, l->dst_epoch,
				(unsigned long long)l->s[i].id, l->s[i].epoch);
	return 0;
}

/* The destination's record + the source + the source's record, sorted, no duplicates. */
static int write_lineage(struct pdb_db *dst, const struct lineage *l)
{
	struct pdb_origin *v;
	struct pdb_ident id;
	char path[PATH_MAX];
	size_t n = 0, k = 0, len;
	void *buf;
	int err;

	v = pdb_malloc((l->nd + l->ns + 1) * sizeof(*v));
	if (!v)
		return ax_fail(&dst->err, -ENOMEM, "%s: out of memory", dst->dir);
	if (l->nd)
		memcpy(v, l->d, l->nd * sizeof(*v));
	if (l->ns)
		memcpy(v + l->nd, l->s, l->ns * sizeof(*v));
	n = l->nd + l->ns;
	v[n++] = (struct pdb_origin){ l->src_id, l->src_epoch };
	qsort(v, n, sizeof(*v), cmp_origin_q);
	for (size_t i = 0; i < n; i++)
		if (!k || cmp_origin_q(&v[k - 1], &v[i]))
			v[k++] = v[i];
	origins_path(dst, l->dst_epoch, path);
	ident_of(&id, l->dst_epoch, "");
	err = pdb_encode_origins_id(v, k, &id, &buf, &len);
	free(v);
	if (err)
		return ax_fail(&dst->err, err, "%s: cannot encode: %s", path, strerror(-err));
	err = pdb_tx_stage(dst, path, buf, len);
	free(buf);
	return err;
}

/*
 * Make dst_epoch, check and extend its merge record (dst's lock held). The identities are read
 * before: src may be dst, whose lock is not taken twice.
 */
static int record_merge_locked(struct pdb_db *dst, struct pdb_db *src, struct lineage *l,
			       unsigned int flags)
{
	char path[PATH_MAX];
	int err;

	epoch_path(dst, l->dst_epoch, path);
	err = pdb_tx_mkdir(dst, path);
	if (!err)
		err = from_src(dst, src, pdb_origins(src, l->src_epoch, &l->s, &l->ns));
	if (!err)
		err = pdb_origins(dst, l->dst_epoch, &l->d, &l->nd);
	if (!err && !(flags & PDB_MERGE_FORCE))
		err = check_lineage(dst, src, l);
	if (!err)
		err = write_lineage(dst, l);
	return err;
}

/* Check and extend dst_epoch's merge record in dst's transaction. */
static int record_merge(struct pdb_db *dst, uint32_t dst_epoch, struct pdb_db *src,
			uint32_t src_epoch, unsigned int flags)
{
	struct lineage l = { .src_epoch = src_epoch, .dst_epoch = dst_epoch };
	int err;

	err = from_src(dst, src, pdb_identity(src, &l.src_id));
	if (!err)
		err = pdb_identity(dst, &l.dst_id);
	if (!err)
		err = record_merge_locked(dst, src, &l, flags);
	free(l.s);
	free(l.d);
	return err;
}

/* Damage (on src) when src's manifest lists a file that is missing, checked before any write. */
static int check_listed(struct pdb_db *src, uint32_t epoch, const struct pdb_image *list, size_t n)
{
	char kdir[PATH_MAX];
	size_t i;
	int err = 0;

	for (i = 0; !err && i <= n; i++) {
		const char *key = i < n ? list[i].key : PDB_KEY_UNKNOWN;

		key_path(src, epoch, key, kdir);
		err = pdb_mf_check(src, epoch, key, kdir);
	}
	return err;
}

int pdb_merge_db(struct pdb_db *dst, uint32_t dst_epoch, struct pdb_db *src, uint32_t src_epoch,
		 unsigned int flags)
{
	return pdb_merge_db_opt(dst, dst_epoch, src, src_epoch, flags & ~PDB_MERGE_SKIP_DAMAGED,
				NULL);
}

int pdb_merge_db_opt(struct pdb_db *dst, uint32_t dst_epoch, struct pdb_db *src, uint32_t src_epoch,
		     unsigned int flags, struct pdb_skips *skipped)
{
	struct pdb_skips *sk = (flags & PDB_MERGE_SKIP_DAMAGED) ? skipped : NULL;
	struct pdb_image *list = NULL;
	struct pdb_tx *tx;
	size_t n = 0, i, k;
	int err;

	if (dst_epoch == src_epoch && same_dir(dst->dir, src->dir))
		return ax_fail(&dst->err, -EINVAL, "%s: cannot merge epoch %u into itself",
			       dst->dir, dst_epoch);
	err = from_src(
		dst, src,
		pdb_image_list_opt(src, src_epoch, sk ? PDB_LOAD_SKIP_DAMAGED : 0, &list, &n, sk));
	if (err)
		return err;
	if (!sk) /* with sk, merge_one skips what is missing */
		err = from_src(dst, src, check_listed(src, src_epoch, list, n));
	if (err)
		goto out_free;
	if (dst_epoch == 0 || dst_epoch > PDB_EPOCH_MAX) {
		err = ax_fail(&dst->err, -EINVAL, "bad epoch %u", dst_epoch);
		goto out_free;
	}
	/* One transaction: the record, every image, the index and the unknown profile. */
	err = pdb_tx_begin(dst, &tx);
	if (err)
		goto out_free;
	err = record_merge(dst, dst_epoch, src, src_epoch, flags);
	for (i = 0; !err && i < n; i++)
		if ((list[i].flags & PDB_IMG_HAS_DIR) || sk)
			err = merge_one(dst, dst_epoch, src, src_epoch, list[i].key, sk);
	if (!err) {
		/* Index entries: those of src that dst lacks (dst's own stay). */
		for (i = 0, k = 0; i < n; i++) {
			if (list[i].flags & PDB_IMG_INDEXED)
				list[k++] = list[i];
			else
				free((char *)list[i].path);
		}
		n = k;
		if (k)
			err = pdb_kimg_adopt(dst, src, list, k);
		if (k && !err)
			err = index_update(dst, dst_epoch, list, k, false);
	}
	if (!err)
		err = merge_one(dst, dst_epoch, src, src_epoch, PDB_KEY_UNKNOWN, sk);
	if (err)
		pdb_tx_abort(tx);
	else
		err = pdb_tx_commit(tx);
out_free:
	pdb_image_list_free(list, n);
	return err;
}
