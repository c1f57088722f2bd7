/* pdb/pdb_int.h - internals shared by the pdb_*.c files (not for other directories). */
#ifndef PDB_INT_H
#define PDB_INT_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "pdb.h"

/* --- allocation and fault injection (pdb_util.c) --- */

/* 0, or -errno when the fault hook fails op. */
int pdb_fault(enum pdb_op op, const char *what);
void *pdb_malloc(size_t n); /* NULL on failure (real or injected) */
void *pdb_calloc(size_t n, size_t size);
void *pdb_realloc(void *p, size_t n);
char *pdb_strdup(const char *s);

/* --- growable byte buffer and varints --- */

struct pdb_wbuf {
	uint8_t *p;
	size_t len;
	size_t cap;
	int err; /* sticky: -ENOMEM after a failed growth */
};

int pdb_wbuf_grow(struct pdb_wbuf *b, size_t more);

static inline void pdb_wbuf_bytes(struct pdb_wbuf *b, const void *src, size_t n)
{
	if (!n || (b->cap - b->len < n && pdb_wbuf_grow(b, n)))
		return;
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static inline void pdb_wbuf_varint(struct pdb_wbuf *b, uint64_t v)
{
	if (b->cap - b->len < 10 && pdb_wbuf_grow(b, 10))
		return;
	while (v >= 0x80) {
		b->p[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (uint8_t)v;
}

/*
 * Read one varint from p[*pos .. len). 0, or -1 when it runs past len, is longer than 10 bytes
 * or does not fit 64 bits (*pos unchanged then).
 */
static inline int pdb_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = *pos;
	unsigned int shift = 0;

	for (;;) {
		uint8_t c;

		if (i >= len || shift > 63)
			return -1;
		c = p[i++];
		if (shift == 63 && (c & 0x7e))
			return -1; /* bits beyond 64 */
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		shift += 7;
	}
	*pos = i;
	*v = x;
	return 0;
}

static inline void pdb_put_le(uint8_t *p, uint64_t x, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(x >> (8 * i));
}

static inline uint64_t pdb_get_le(const uint8_t *p, unsigned int size)
{
	uint64_t x = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		x |= (uint64_t)p[i] << (8 * i);
	return x;
}

static inline uint64_t pdb_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* --- open-addressing hash map with fixed-size entries (pdb_map.c) --- */

/*
 * An entry is ksize key bytes (a multiple of 8, padding zeroed by the caller) followed by the
 * value. Linear probing, power-of-two capacity, at most 70% full, no deletion.
 */
struct pdb_map {
	uint8_t *slot; /* cap * esize bytes */
	uint8_t *full; /* cap flags */
	size_t cap;
	size_t n; /* entries */
	uint32_t ksize;
	uint32_t esize;
};

void pdb_map_init(struct pdb_map *m, uint32_t ksize, uint32_t esize);
void pdb_map_exit(struct pdb_map *m);
void pdb_map_clear(struct pdb_map *m);
void *pdb_map_find(const struct pdb_map *m, const void *key);
/* Find or insert key (value zeroed): 1 inserted, 0 found, -ENOMEM. *entry points at it. */
int pdb_map_get(struct pdb_map *m, const void *key, void **entry);
/* Make room for n entries in all. 0 or -ENOMEM. */
int pdb_map_reserve(struct pdb_map *m, size_t n);

/* The hash of an 8-byte key (most tables: one offset): pdb_map.c's hash_key() without its loop. */
static inline uint64_t pdb_map_hash_word(uint64_t w)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ w;

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* The slot of 8-byte key k in m (m->ksize 8, m->cap > 0), or of the free slot it would take. */
static inline size_t pdb_map_probe_word(const struct pdb_map *m, uint64_t k, bool *found)
{
	size_t mask = m->cap - 1, esize = m->esize;
	size_t i = (size_t)pdb_map_hash_word(k) & mask;

	for (;;) {
		uint64_t e;

		if (!m->full[i]) {
			*found = false;
			return i;
		}
		memcpy(&e, m->slot + i * esize, 8);
		if (e == k) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
}

/*
 * The entry of 8-byte key k when m (m->ksize 8) holds it, else NULL: pdb_map_get()'s commonest
 * case without a call (the daemon's merge adds to an existing entry nearly every time).
 */
static inline void *pdb_map_find_word(const struct pdb_map *m, uint64_t k)
{
	bool found;
	size_t i;

	if (!m->n)
		return NULL;
	i = pdb_map_probe_word(m, k, &found);
	return found ? m->slot + i * m->esize : NULL;
}
/* Entries in slot order: start with *i = 0; NULL at the end. */
void *pdb_map_next(const struct pdb_map *m, size_t *i);
/* malloc'd array of the m->n entry pointers sorted by cmp (NULL when empty). 0 or -ENOMEM. */
int pdb_map_sorted(const struct pdb_map *m, int (*cmp)(const void *, const void *),
		   const void ***out);
/* The entries sorted by cmp, copied out as a malloc'd array of *n `size`-byte records that
 * fill() builds from each entry (NULL and 0 when empty). 0 or -ENOMEM. */
int pdb_map_copy_sorted(const struct pdb_map *m, size_t size,
			int (*cmp)(const void *, const void *),
			void (*fill)(void *dst, const void *e), void **out, size_t *n);

/* --- profiles (pdb_prof.c) --- */

/* Tables of a profile: ids 0 .. PDB_EV_MAX-1 are the events, then these. */
enum pdb_table {
	PDB_T_VALUES = PDB_EV_MAX,
	PDB_T_LATENCY,
	PDB_T_CONFLICTS,
	PDB_T_VCOUNT,
	PDB_T_UNKNOWN,
	PDB_T_PROFILEME, /* after UNKNOWN: manifest bits are table ids (pdb.h MANIFEST) */
	PDB_T_PROCS,
	PDB_T_PMPATHS,
	PDB_T_ADDRS,
	PDB_T_TASKS,
	PDB_T_STACKS, /* PDB_EV_MAX + 10: manifest bit 42 */
	PDB_T_THREADS, /* PDB_EV_MAX + 11: manifest bit 43, the unknown key's (epoch-N/threads.prof) */
	PDB_T_NR,
};
#define PDB_T_BIT(t) (1ull << (t))
/* The tables of the unknown key (the epoch directory's files). */
#define PDB_T_EPOCH_MASK (PDB_T_BIT(PDB_T_UNKNOWN) | PDB_T_BIT(PDB_T_THREADS))
/* Every table but those. */
#define PDB_T_IMAGE_MASK ((PDB_T_BIT(PDB_T_NR) - 1) & ~PDB_T_EPOCH_MASK)

/* Map entries. The key is the first ksize bytes. */
struct pdb_e_count { /* samples of one event, vcount */
	uint64_t off;
	uint64_t count;
};
struct pdb_e_value {
	uint64_t off;
	uint32_t dest;
	uint32_t pad;
	struct hotlist h;
};
struct pdb_e_lat {
	uint64_t off;
	struct pdb_latency lat;
};
struct pdb_e_pme {
	uint64_t off;
	struct pdb_profileme pme;
};
struct pdb_e_proc { /* key: off, kind, reg (16 bytes) */
	uint64_t off;
	uint32_t kind;
	uint32_t reg;
	struct hotlist h;
};
struct pdb_e_pmp {
	uint64_t off;
	struct pdb_pmpath pp;
};
struct pdb_e_addr { /* key: off, kind, pad (16 bytes) */
	uint64_t off;
	uint32_t kind;
	uint32_t pad;
	struct hotlist h;
};
struct pdb_e_stk { /* key: event, flags, depth, frames (8 + 8 * PDB_STK_DEPTH_MAX bytes) */
	uint32_t event;
	uint16_t flags;
	uint16_t depth; /* 0: the event's samples of stacks not kept */
	uint64_t frame[PDB_STK_DEPTH_MAX]; /* (key id + 1) << 48 | offset; 0 past depth */
	uint64_t count;
};
#define PDB_STK_KEY_SHIFT 48
#define PDB_STK_KSIZE (8 + 8 * PDB_STK_DEPTH_MAX)
struct pdb_e_cnf { /* key: load_off, prior_off, keyid, kind (24 bytes) */
	uint64_t load_off;
	uint64_t prior_off;
	uint32_t keyid; /* index in the profile's key table */
	uint32_t kind;
	uint64_t count;
	uint64_t dist_min;
};
struct pdb_e_unk { /* key: pid, event, pc, tid, pad (24 bytes) */
	uint32_t pid;
	uint32_t event;
	uint64_t pc;
	uint32_t tid; /* the thread (= pid in files without PDB_FL_TID) */
	uint32_t pad;
	uint64_t count;
};
struct pdb_e_thr { /* key: pid, tid (8 bytes) */
	uint32_t pid;
	uint32_t tid;
	uint32_t flags; /* PDB_THR_* */
	uint32_t nnames; /* 1 .. PDB_THR_NAMES */
	char name[PDB_THR_NAMES][PDB_COMM_MAX + 1]; /* oldest first, NUL-terminated */
};
struct pdb_e_keyhash { /* key: FNV-1a-64 of an interned prior key */
	uint64_t hash;
	uint32_t id;
	uint32_t pad;
};

struct pdb_prof {
	struct pdb_map t[PDB_T_NR]; /* one per table */
	struct pdb_period period[PDB_EV_MAX]; /* per event: what its samples' periods were */
	char **keys; /* interned prior-image keys of conflicts ("" allowed) */
	uint32_t nkeys;
	uint32_t capkeys;
	struct pdb_map keyhash; /* hash -> first id with that hash */
	size_t nstk; /* stacks table rows of depth >= 1 (PDB_STK_MAX bounds them) */
	uint64_t thr_lost; /* threads not kept: the threads table was full (PDB_THR_MAX) */
	struct pdb_map tids[2]; /* the (pid, tid) of unknown [0] and tasks [1] rows, tid != 0:
				 * PDB_THR_MAX bounds them (pdb.h PDB_FT_TASKS) */
	struct hotlist_rng rng; /* hotlist merges, reseeded for each (pdb_prof.c) */
};

uint64_t pdb_prof_tables(const struct pdb_prof *p); /* PDB_T_BIT(t) for each non-empty table */
/* dst += src, each sum saturating at UINT64_MAX. */
void pdb_period_add(struct pdb_period *dst, const struct pdb_period *src);
/* 0 when pr is a possible period record of a table holding `samples` samples (PERIODS). */
int pdb_period_check(const struct pdb_period *pr, uint64_t samples, const char **why);
/* dst += src for the tables in mask. */
int pdb_prof_merge_tables(struct pdb_prof *dst, const struct pdb_prof *src, uint64_t mask);
/* Intern key (any string of at most PDB_KEY_MAX characters): 0 and *id, or -ENOMEM. */
int pdb_prof_intern(struct pdb_prof *p, const char *key, uint32_t *id);
/* Add one conflict with an interned key id. */
int pdb_prof_add_cnf_id(struct pdb_prof *p, uint64_t load_off, uint32_t keyid, uint64_t prior_off,
			unsigned int kind, uint64_t count, uint64_t dist_min);
int pdb_latency_check(const struct pdb_latency *lat, uint64_t *loads);
/* Comparators on map entries (for pdb_map_sorted). */
int pdb_cmp_off(const void *a, const void *b); /* entries starting with a u64 offset */
int pdb_cmp_unk(const void *a, const void *b); /* (pid, tid, pc, event) */
/* pdb_thread.c: the threads table (PDB_FT_THREADS). */
int pdb_thr_merge(struct pdb_prof *dst, const struct pdb_e_thr *e);
/* Add name nm[0..len) to the thread (pid, tid) as pdb_prof_add_thread, OR flags into it. */
int pdb_thr_name(struct pdb_prof *p, uint32_t pid, uint32_t tid, uint32_t flags, const char *nm,
		 size_t len);
int pdb_cmp_thr(const void *a, const void *b); /* (pid, tid) */
int pdb_cmp_proc(const void *a, const void *b); /* (off, kind, reg) */
int pdb_cmp_addr(const void *a, const void *b); /* (off, kind) */
/* Rewrite the key ids of CALLER values: id -> map[id] (ids < nmap, else -EINVAL). */
int pdb_proc_remap(struct hotlist *h, const uint32_t *map, uint32_t nmap);
/* Add a stack whose frames hold p's key ids (pdb_e_stk.frame); checks as pdb_prof_add_stack. */
int pdb_prof_add_stk_ids(struct pdb_prof *p, unsigned int event, unsigned int flags,
			 const uint64_t *frame, unsigned int depth, uint64_t count);
/* Stacks in file order; rank[id]: the place of key id in byte order (malloc'd, nkeys + 1). */
int pdb_prof_sorted_stk(const struct pdb_prof *p, const struct pdb_e_stk ***out, uint32_t **rank);
/* Conflicts sorted by (load_off, key string, prior_off, kind). */
int pdb_prof_sorted_cnf(const struct pdb_prof *p, const struct pdb_e_cnf ***out);

/* --- tables and file names (pdb_name.c) --- */

/* File name of table t ("CYCLES.prof", "values.prof", ...) into buf[32]; NULL if t is bad. */
const char *pdb_table_file(unsigned int t, char *buf);
/* Table of a file name, or -1 when the name is not a table's. */
int pdb_table_of_file(const char *name);
/* File type and event of table t. */
unsigned int pdb_table_type(unsigned int t, unsigned int *event);
uint64_t pdb_fnv64(uint64_t h, const void *buf, size_t len);
#define PDB_FNV64_INIT 0xcbf29ce484222325ull

/* --- files (pdb_file.c) --- */

/* What a file belongs to (IDENTITY in pdb.h): key "" for the epoch's own files. */
struct pdb_ident {
	uint32_t epoch;
	char key[PDB_KEY_MAX + 1];
};

/* One row of an epoch's manifest: the table files (PDB_T_BIT) a key has. */
struct pdb_mf {
	char key[PDB_KEY_MAX + 1];
	uint64_t tables;
};

/*
 * The encoders write id's identity record (none when id is NULL); the parsers check a file's
 * identity record against id (when both are there) and report a mismatch as damage.
 */
int pdb_encode_table(const struct pdb_prof *p, unsigned int t, const struct pdb_ident *id,
		     void **buf, size_t *len);
/* Parse a file that must hold table want (or any profile table when want < 0) into p. */
int pdb_parse_table(const void *buf, size_t len, const char *name, int want,
		    const struct pdb_ident *id, struct pdb_prof *p, struct ax_error *err);
int pdb_encode_index_id(const struct pdb_image *list, size_t n, const struct pdb_ident *id,
			void **buf, size_t *len);
int pdb_parse_index_id(const void *buf, size_t len, const char *name, const struct pdb_ident *id,
		       struct pdb_image **list, size_t *n, struct ax_error *err);
int pdb_encode_origins_id(const struct pdb_origin *v, size_t n, const struct pdb_ident *id,
			  void **buf, size_t *len);
int pdb_parse_origins_id(const void *buf, size_t len, const char *name, const struct pdb_ident *id,
			 struct pdb_origin **list, size_t *n, struct ax_error *err);
/* A manifest (v sorted by key, strictly, n >= 1); parse one (free() the list). */
int pdb_encode_manifest(const struct pdb_mf *v, size_t n, const struct pdb_ident *id, void **buf,
			size_t *len);
int pdb_parse_manifest(const void *buf, size_t len, const char *name, const struct pdb_ident *id,
		       struct pdb_mf **list, size_t *n, struct ax_error *err);
/* The tables a key may hold (PDB_T_BIT): the unknown one for PDB_KEY_UNKNOWN, else the others. */
uint64_t pdb_key_tables(const char *key);

/* --- manifests (pdb_manifest.c); db is struct pdb_db, errors go to its message --- */

struct pdb_db;
/*
 * Read the epoch's manifest into a sorted list (free()). *have false (and no list) when the epoch
 * has no manifest (a database written before version 3).
 */
int pdb_mf_read(struct pdb_db *db, uint32_t epoch, struct pdb_mf **list, size_t *n, bool *have);
/* The manifest's table set of key (0 when not listed). */
uint64_t pdb_mf_tables(const struct pdb_mf *list, size_t n, const char *key);
/*
 * Stage key's table set (set & keep) | add in the epoch's manifest into db's transaction (lock
 * held): a new manifest is staged only when the set changes, its removal when it becomes empty.
 * A missing manifest is first rebuilt from the epoch's files (a database older than version 3).
 */
int pdb_mf_prepare(struct pdb_db *db, uint32_t epoch, const char *key, uint64_t keep, uint64_t add);
/* Damage when the manifest lists for key a table whose file is not in kdir. */
int pdb_mf_check(struct pdb_db *db, uint32_t epoch, const char *key, const char *kdir);
/* For pdb_db.c and pdb_manifest.c: the error of db, its directory. */
struct ax_error *pdb_db_err(struct pdb_db *db);

/* --- the database handle (pdb_db.c) and its transactions (pdb_tx.c) --- */

struct pdb_db {
	char *dir;
	int lockfd; /* DIR/lock: -1 until the first lock (none on a read-only medium) */
	int depth; /* nesting of the exclusive lock (lock_db) */
	bool shared; /* a reader's handle: LOCK_SH held from pdb_open to pdb_close */
	bool mf_required; /* DIR/format says every epoch with files has a manifest */
	bool committed; /* the last pdb_tx_commit passed its commit point */
	struct pdb_tx *tx; /* the transaction in progress, or NULL */
	struct ax_error err; /* the last failure */
};

/* Take and release DIR/lock exclusively (nested calls count); the first take recovers. */
int pdb_lock(struct pdb_db *db);
void pdb_unlock(struct pdb_db *db);

/* Journal operations (PDB_FT_JOURNAL); paths relative to DIR. */
enum { PDB_J_RENAME = 1, PDB_J_UNLINK = 2 };
struct pdb_jop {
	unsigned int kind; /* PDB_J_* */
	char *path; /* the final file */
	char *tmp; /* PDB_J_RENAME: its new version, a temporary file in the same directory */
	bool dead; /* superseded by a later operation on path (never encoded) */
};
int pdb_encode_journal(const struct pdb_jop *v, size_t n, void **buf, size_t *len);
/* Parse and check a journal: relative paths, no "." or ".." component, tmp beside path. */
int pdb_parse_journal(const void *buf, size_t len, const char *name, struct pdb_jop **list,
		      size_t *n, struct ax_error *err);
void pdb_jops_free(struct pdb_jop *v, size_t n);

/*
 * Inside a transaction (db->tx): stage path's new content (a fsynced temporary file, renamed at
 * commit), stage its removal, make a directory (removed again, when empty, by an abort). A
 * failure poisons the transaction: it can only be aborted.
 */
int pdb_tx_stage(struct pdb_db *db, const char *path, const void *buf, size_t len);
int pdb_tx_unlink(struct pdb_db *db, const char *path);
int pdb_tx_mkdir(struct pdb_db *db, const char *path);
/* Mark db's transaction failed with err (when one is in progress); returns err. */
int pdb_tx_fail(struct pdb_db *db, int err);
/*
 * Reads through the transaction: what path holds once it commits (the staged temporary file,
 * or nothing when its removal is staged).
 */
int pdb_db_read(struct pdb_db *db, const char *path, void **buf, size_t *len);
bool pdb_db_exists(struct pdb_db *db, const char *path);
bool pdb_tx_staged(struct pdb_db *db, const char *path); /* a new version or removal staged */
/*
 * For a merge (pdb_kimg.c): the index entries list[0..n) of src whose path is src's own
 * DIR/kernel/KEY/FILE get a copy in dst's DIR/kernel (staged in dst's transaction) and that
 * copy's absolute path. 0 or -Exxx (message in dst->err).
 */
int pdb_kimg_adopt(struct pdb_db *dst, struct pdb_db *src, struct pdb_image *list, size_t n);
/* Finish an interrupted transaction (DIR/journal) with the exclusive lock held. */
int pdb_recover_locked(struct pdb_db *db);
struct pdb_db *pdb_tx_db(struct pdb_tx *tx);
int pdb_tx_status(const struct pdb_db *db); /* the transaction's failure, 0 when none */

/*
 * A file that cannot be used as it is (--skip-damaged skips it, pdb_fsck lists it): damage, or
 * a read refused or failed by the system (a bad sector, a file made unreadable). Running out of
 * memory is not.
 */
static inline bool pdb_err_skippable(int err)
{
	return err == -EBADMSG || err == -EIO || err == -EACCES || err == -EPERM;
}

/* --- I/O (pdb_io.c); every function fills err on failure --- */

int pdb_read_file(const char *path, void **buf, size_t *len, struct ax_error *err);
/* Write buf to a new temporary file next to path and fsync it; its name into tmp[PATH_MAX]. */
int pdb_write_temp(const char *path, const void *buf, size_t len, char *tmp, struct ax_error *err);
int pdb_rename(const char *from, const char *to, struct ax_error *err);
int pdb_unlink(const char *path, struct ax_error *err);
int pdb_fsync_dir(const char *path, struct ax_error *err);
/* mkdir path (0 if it already exists as a directory); fsync its parent when it was made. */
int pdb_mkdir(const char *path, struct ax_error *err);
/* Atomically replace path by buf (write temp, fsync, rename, fsync the directory). */
int pdb_replace_file(const char *path, const void *buf, size_t len, struct ax_error *err);
/* True for a writer's temporary file name (".NAME.tmp.XXXXXX"). */
bool pdb_is_temp_name(const char *name);

#endif /* PDB_INT_H */
