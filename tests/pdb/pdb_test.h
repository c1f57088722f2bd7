/* tests/pdb/pdb_test.h - helpers for the profile database tests: temp dirs, random profiles. */
#ifndef PDB_TEST_H
#define PDB_TEST_H

#define _GNU_SOURCE /* nftw */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pdb.h"

/* --- temporary directories --- */

/* Under $PDB_TEST_DIR, else /dev/shm (tmpfs: fsync costs nothing there), else $TMPDIR or /tmp. */
static inline char *tdir_new(void)
{
	const char *base = getenv("PDB_TEST_DIR");
	char tmpl[512];
	char *d;

	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	snprintf(tmpl, sizeof(tmpl), "%s/pdbtest.XXXXXX", base && *base ? base : "/tmp");
	d = mkdtemp(tmpl);
	assert_non_null(d);
	return strdup(d);
}

static inline int tdir_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static inline void tdir_free(char *d)
{
	nftw(d, tdir_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

/* A path below d (static buffer: one at a time). */
static inline const char *tpath(const char *d, const char *fmt, ...)
{
	static char buf[4096];
	char rel[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "%s/%s", d, rel);
	return buf;
}

static inline bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Read a whole file (malloc'd). */
static inline uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(n ? (size_t)n : 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static inline void spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* --- random profiles --- */

static inline uint64_t rnd(struct hotlist_rng *r, uint64_t n)
{
	return hotlist_rng_below(r, n);
}

/* A hotlist of n insertions. exact: tau stays 1 (few distinct values), so merges draw no coin. */
static inline void gen_hotlist(struct hotlist *h, struct hotlist_rng *r, bool exact)
{
	unsigned int i, n = 1 + (unsigned int)rnd(r, exact ? 20 : 400);

	assert_int_equal(hotlist_init(h, exact ? 32 : 8), 0);
	for (i = 0; i < n; i++) {
		uint64_t v = exact     ? rnd(r, 8) * 0x100000001ull :
			     rnd(r, 3) ? rnd(r, 4) :
					 rnd(r, 1000);

		hotlist_insert(h, v, r);
	}
}

static inline void gen_latency(struct pdb_latency *lat, struct hotlist_rng *r)
{
	unsigned int i, loads = 1 + (unsigned int)rnd(r, 50);

	memset(lat, 0, sizeof(*lat));
	for (i = 0; i < loads; i++) {
		unsigned int b = (unsigned int)rnd(r, PDB_LAT_BUCKETS);

		lat->level[rnd(r, PDB_LAT_LEVELS)]++;
		lat->hist[b]++;
		lat->latency_sum += b ? 1ull << (b - 1) : 0;
	}
}

static const char *const gen_keys[] = { "", "b-0123abcd", "h-00ff00ff00ff00ff", "libc.so.6" };

/*
 * Add random records to p: n offsets per table drawn from a text of `span` instructions (so two
 * profiles share offsets), every table of an image; odd offsets now and then (no ALIGN4).
 * exact_hot: hotlists merge without coins (see gen_hotlist).
 */
static inline void gen_prof(struct pdb_prof *p, struct hotlist_rng *r, unsigned int n,
			    uint64_t span, bool exact_hot)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t off = rnd(r, span) * 4 + (rnd(r, 50) == 0 ? 1 : 0);
		unsigned int ev =
			(unsigned int)rnd(r, 4) * 2; /* CYCLES, IMISS, DTBMISS, BRANCHMP */
		uint64_t count = 1 + rnd(r, rnd(r, 10) ? 5 : 100000);
		struct pdb_latency lat;
		struct hotlist h;

		assert_int_equal(pdb_prof_add_sample(p, ev, off, count), 0);
		if (rnd(r, 2)) { /* half of them with a period (PERIODS) */
			uint32_t lo = 1 + (uint32_t)rnd(r, 100000);

			assert_int_equal(
				pdb_prof_add_period(p, ev, count, lo, lo + (uint32_t)rnd(r, 5000)),
				0);
		}
		if (rnd(r, 3) == 0)
			assert_int_equal(pdb_prof_add_vcount(p, off, 1 + rnd(r, 300)), 0);
		if (rnd(r, 4) == 0) {
			gen_hotlist(&h, r, exact_hot);
			assert_int_equal(pdb_prof_add_hotlist(p, off, (unsigned int)rnd(r, 64), &h),
					 0);
		}
		if (rnd(r, 4) == 0) {
			gen_latency(&lat, r);
			assert_int_equal(pdb_prof_add_latency(p, off, &lat), 0);
		}
		if (rnd(r, 5) == 0)
			assert_int_equal(
				pdb_prof_add_conflict(p, off, gen_keys[rnd(r, 4)], rnd(r, span) * 4,
						      1 + (unsigned int)rnd(r, 2), 1 + rnd(r, 9),
						      1 + (uint32_t)rnd(r, 200)),
				0);
	}
}

static inline void gen_unknown(struct pdb_prof *p, struct hotlist_rng *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		assert_int_equal(pdb_prof_add_unknown(p, 100 + (uint32_t)rnd(r, 5),
						      0x120000000ull + rnd(r, 1000) * 4,
						      (unsigned int)rnd(r, 3), 1 + rnd(r, 9)),
				 0);
}

/* --- comparing profiles through the public iterators --- */

static inline void assert_counts_equal(const struct pdb_count *a, size_t na,
				       const struct pdb_count *b, size_t nb)
{
	assert_int_equal(na, nb);
	if (na)
		assert_memory_equal(a, b, na * sizeof(*a));
}

static inline void assert_hotlist_equal(const struct hotlist *a, const struct hotlist *b)
{
	unsigned int i, j;

	assert_int_equal(a->tau, b->tau);
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->m, b->m);
	assert_int_equal(a->used, b->used);
	for (i = 0; i < a->used; i++) { /* entries in any order */
		for (j = 0; j < b->used; j++)
			if (b->value[j] == a->value[i])
				break;
		assert_true(j < b->used);
		assert_int_equal(a->count[i], b->count[j]);
	}
}

/* hot_exact false: hotlists must agree in offset, dest and n only (merges draw coins). */
static inline void assert_prof_equal_hot(const struct pdb_prof *a, const struct pdb_prof *b,
					 bool hot_exact)
{
	struct pdb_count *ca, *cb;
	struct pdb_value *va, *vb;
	struct pdb_lat *la, *lb;
	struct pdb_conflict *xa, *xb;
	struct pdb_unknown *ua, *ub;
	size_t na, nb, i;
	unsigned int e;

	for (e = 0; e < PDB_EV_MAX; e++) {
		struct pdb_period pa, pb;

		assert_int_equal(pdb_prof_samples(a, e, &ca, &na), 0);
		assert_int_equal(pdb_prof_samples(b, e, &cb, &nb), 0);
		assert_counts_equal(ca, na, cb, nb);
		free(ca);
		free(cb);
		pdb_prof_period(a, e, &pa);
		pdb_prof_period(b, e, &pb);
		assert_int_equal(pa.samples, pb.samples);
		assert_int_equal(pa.events2, pb.events2);
	}
	assert_int_equal(pdb_prof_vcounts(a, &ca, &na), 0);
	assert_int_equal(pdb_prof_vcounts(b, &cb, &nb), 0);
	assert_counts_equal(ca, na, cb, nb);
	free(ca);
	free(cb);

	assert_int_equal(pdb_prof_values(a, &va, &na), 0);
	assert_int_equal(pdb_prof_values(b, &vb, &nb), 0);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_int_equal(va[i].offset, vb[i].offset);
		assert_int_equal(va[i].dest, vb[i].dest);
		assert_int_equal(va[i].h.n, vb[i].h.n);
		assert_int_equal(hotlist_validate(&va[i].h, NULL), 0);
		assert_int_equal(hotlist_validate(&vb[i].h, NULL), 0);
		if (hot_exact)
			assert_hotlist_equal(&va[i].h, &vb[i].h);
	}
	free(va);
	free(vb);

	assert_int_equal(pdb_prof_latencies(a, &la, &na), 0);
	assert_int_equal(pdb_prof_latencies(b, &lb, &nb), 0);
	assert_int_equal(na, nb);
	if (na)
		assert_memory_equal(la, lb, na * sizeof(*la));
	free(la);
	free(lb);

	assert_int_equal(pdb_prof_conflicts(a, &xa, &na), 0);
	assert_int_equal(pdb_prof_conflicts(b, &xb, &nb), 0);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_int_equal(xa[i].load_offset, xb[i].load_offset);
		assert_string_equal(xa[i].prior_key, xb[i].prior_key);
		assert_int_equal(xa[i].prior_offset, xb[i].prior_offset);
		assert_int_equal(xa[i].kind, xb[i].kind);
		assert_int_equal(xa[i].count, xb[i].count);
		assert_int_equal(xa[i].dist_min, xb[i].dist_min);
	}
	free(xa);
	free(xb);

	assert_int_equal(pdb_prof_unknowns(a, &ua, &na), 0);
	assert_int_equal(pdb_prof_unknowns(b, &ub, &nb), 0);
	assert_int_equal(na, nb);
	if (na)
		assert_memory_equal(ua, ub, na * sizeof(*ua));
	free(ua);
	free(ub);
}

static inline void assert_prof_equal(const struct pdb_prof *a, const struct pdb_prof *b)
{
	assert_prof_equal_hot(a, b, true);
}

/* --- files made by hand --- */

static inline void put_le(uint8_t *p, uint64_t x, unsigned int size)
{
	for (unsigned int i = 0; i < size; i++)
		p[i] = (uint8_t)(x >> (8 * i));
}

/*
 * The stored (uncompressed) file's header before its payload, which is already at
 * b + PDB_HEADER_SIZE, plen bytes of nrec records: magic, version, type, flags, sizes and both
 * CRCs (pdb/FORMAT.md). Returns the file's length.
 */
static inline size_t put_header(uint8_t *b, unsigned int type, uint32_t flags, uint64_t nrec,
				size_t plen)
{
	memcpy(b, "AXPD", 4);
	put_le(b + 4, PDB_FORMAT_VERSION, 2);
	put_le(b + 6, type, 2);
	put_le(b + 8, flags, 4);
	put_le(b + 12, 0, 4);
	put_le(b + 16, nrec, 8);
	put_le(b + 24, plen, 8);
	put_le(b + 32, plen, 8);
	put_le(b + 40, crc32(0, b + PDB_HEADER_SIZE, (uInt)plen), 4);
	put_le(b + 44, crc32(0, b, 44), 4);
	return PDB_HEADER_SIZE + plen;
}

/* One flipped byte near the end of a file's payload: the parser refuses it, naming the file. */
static inline void assert_flip_refused(uint8_t *buf, size_t len, const char *name)
{
	struct pdb_prof *q = pdb_prof_new();
	struct ax_error err;

	buf[len - 3] ^= 0x40;
	assert_int_not_equal(pdb_parse(buf, len, name, q, &err), 0);
	assert_non_null(strstr(err.msg, name));
	buf[len - 3] ^= 0x40;
	pdb_prof_free(q);
}

/* Case i of a table of hand-made files: read cleanly when why is NULL, else refused as damage
 * (-EBADMSG) with a message that contains why. */
static inline void assert_parse_case(size_t i, const uint8_t *buf, size_t len, const char *name,
				     const char *why)
{
	struct pdb_prof *q = pdb_prof_new();
	struct ax_error err = { 0 };
	int r = pdb_parse(buf, len, name, q, &err);

	if (!why) {
		if (r)
			fail_msg("case %zu: %s", i, err.msg);
	} else {
		assert_int_equal(r, -EBADMSG);
		if (!strstr(err.msg, why))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, why);
	}
	pdb_prof_free(q);
}

/* --- one table's trip through databases: stored, listed, read back, merged, removed --- */

struct db_trip {
	char *dir, *dir2;
	struct pdb_db *db, *db2;
};

/*
 * Store p in a new database as (epoch 1, key): the table's file (`file`, relative to the
 * database) exists and fsck finds no damage. A second, empty database is opened beside it.
 */
static inline void trip_store(struct db_trip *t, struct pdb_prof *p, const char *key,
			      const char *file)
{
	struct ax_error err;
	struct pdb_fsck fk;

	t->dir = tdir_new();
	t->dir2 = tdir_new();
	assert_int_equal(pdb_open(t->dir, true, &t->db, &err), 0);
	assert_int_equal(pdb_store(t->db, 1, key, p), 0);
	assert_true(file_exists(tpath(t->dir, "%s", file)));
	assert_int_equal(pdb_fsck(t->db, 0, 0, &fk), 0);
	assert_int_equal(fk.damaged, 0);
	pdb_fsck_free(&fk);
	assert_int_equal(pdb_open(t->dir2, true, &t->db2, &err), 0);
}

/* Merge the first database into the second, store p there once more (a second run of the same
 * image) and load the result: every count of p twice. */
static inline struct pdb_prof *trip_merge_twice(struct db_trip *t, struct pdb_prof *p,
						const char *key)
{
	struct pdb_prof *r;

	assert_int_equal(pdb_merge_db(t->db2, 1, t->db, 1, 0), 0);
	assert_int_equal(pdb_merge_store(t->db2, 1, key, p), 0);
	assert_int_equal(pdb_load(t->db2, 1, key, &r), 0);
	return r;
}

/* The manifest lists the file: removed by hand, the reader refuses the image as damaged
 * (-EBADMSG, not a missing image) and names the file, and fsck counts it damaged. Then both
 * databases are closed and removed. */
static inline void trip_end_missing(struct db_trip *t, const char *key, const char *file)
{
	struct pdb_prof *r;
	struct pdb_fsck fk;
	const char *base = strrchr(file, '/');

	assert_int_equal(unlink(tpath(t->dir, "%s", file)), 0);
	assert_int_equal(pdb_load(t->db, 1, key, &r), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(t->db), base ? base + 1 : file));
	assert_int_equal(pdb_fsck(t->db, 0, 0, &fk), 0);
	assert_int_equal(fk.damaged, 1);
	pdb_fsck_free(&fk);
	pdb_close(t->db2);
	pdb_close(t->db);
	tdir_free(t->dir);
	tdir_free(t->dir2);
}

/* --- fault injection: fail the nth call of one operation --- */

struct fault_plan {
	enum pdb_op op;
	int nth; /* fail when the count of op reaches this (1-based); 0: never */
	int err; /* errno to fail with */
	int seen; /* calls of op so far */
	int fired;
};

static inline int fault_cb(void *arg, enum pdb_op op, const char *what)
{
	struct fault_plan *f = arg;

	(void)what;
	if (op != f->op)
		return 0;
	if (++f->seen == f->nth) {
		f->fired++;
		return f->err;
	}
	return 0;
}

#endif /* PDB_TEST_H */
