/* tests/pdb/test_pdb.c - profile database: names, keys, round trips, merges, epochs, index. */
#include "pdb_test.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

static struct pdb_db *open_new(const char *d)
{
	struct pdb_db *db;
	struct ax_error err;

	assert_int_equal(pdb_open(d, true, &db, &err), 0);
	return db;
}

/* ---------------------------------------------------------------- names and keys */

static void test_pdb_event_names_round_trip(void **state)
{
	static const char *const fixed[PDB_EV_NAMED] = {
		"CYCLES",  "RETIRED",  "IMISS",	 "DMISS", "DTBMISS",
		"ITBMISS", "BRANCHMP", "REPLAY", "INVAL", "INTERV",
	};
	unsigned int e;

	(void)state;
	/* The on-disk ids are a contract: check the named ones by value. */
	for (e = 0; e < PDB_EV_NAMED; e++) {
		assert_string_equal(pdb_event_name(e), fixed[e]);
		assert_int_equal(pdb_event_id(fixed[e]), e);
	}
	for (e = 0; e < PDB_EV_MAX; e++)
		assert_int_equal(pdb_event_id(pdb_event_name(e)), e);
	assert_string_equal(pdb_event_name(12), "EV12");
	assert_null(pdb_event_name(PDB_EV_MAX));
	assert_int_equal(pdb_event_id("cycles"), -EINVAL);
	assert_int_equal(pdb_event_id("EV32"), -EINVAL);
	assert_int_equal(pdb_event_id(""), -EINVAL);
}

static void test_pdb_key_rules(void **state)
{
	static const uint8_t bid[4] = { 0x01, 0xab, 0x00, 0xff };
	char k1[PDB_KEY_MAX + 1], k2[PDB_KEY_MAX + 1], long_key[PDB_KEY_MAX + 2];

	(void)state;
	assert_int_equal(pdb_image_key(k1, bid, sizeof(bid), "/bin/x", 10, 5), 0);
	assert_string_equal(k1, "b-01ab00ff");
	assert_true(pdb_key_is_valid(k1));

	/* Path keys: the same file (mtime within the same second) keeps its key. */
	assert_int_equal(pdb_image_key(k1, NULL, 0, "/usr/bin/gzip", 12345, 1700000000123456789),
			 0);
	assert_int_equal(pdb_image_key(k2, NULL, 0, "/usr/bin/gzip", 12345, 1700000000999999999),
			 0);
	assert_string_equal(k1, k2);
	assert_int_equal(strncmp(k1, "h-", 2), 0);
	assert_int_equal(strlen(k1), 18);
	assert_true(pdb_key_is_valid(k1));
	assert_int_equal(pdb_image_key(k2, NULL, 0, "/usr/bin/gzip", 12345, 1700000001000000000),
			 0);
	assert_string_not_equal(k1, k2);
	assert_int_equal(pdb_image_key(k2, NULL, 0, "/usr/bin/gzip", 12346, 1700000000123456789),
			 0);
	assert_string_not_equal(k1, k2);
	assert_int_equal(pdb_image_key(k2, NULL, 0, "/usr/bin/gzi", 12345, 1700000000123456789), 0);
	assert_string_not_equal(k1, k2);
	/* Negative mtimes round down to whole seconds too. */
	assert_int_equal(pdb_image_key(k1, NULL, 0, "/a", 1, -1), 0);
	assert_int_equal(pdb_image_key(k2, NULL, 0, "/a", 1, -999999999), 0);
	assert_string_equal(k1, k2);
	assert_int_equal(pdb_image_key(k1, bid, PDB_BUILD_ID_MAX + 1, NULL, 0, 0), -EINVAL);

	assert_false(pdb_key_is_valid(""));
	assert_false(pdb_key_is_valid(PDB_KEY_UNKNOWN));
	assert_false(pdb_key_is_valid(".hidden"));
	assert_false(pdb_key_is_valid("-x"));
	assert_false(pdb_key_is_valid("a/b"));
	assert_false(pdb_key_is_valid(".."));
	assert_false(pdb_key_is_valid("a b"));
	assert_true(pdb_key_is_valid("libc.so.6"));
	memset(long_key, 'a', PDB_KEY_MAX);
	long_key[PDB_KEY_MAX] = 0;
	assert_true(pdb_key_is_valid(long_key));
	long_key[PDB_KEY_MAX] = 'a';
	long_key[PDB_KEY_MAX + 1] = 0;
	assert_false(pdb_key_is_valid(long_key));
}

static void test_pdb_describe_elf_and_other(void **state)
{
	struct pdb_image img;
	struct ax_error err;
	char *d = tdir_new();
	char self[4096];
	ssize_t n;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	assert_int_equal(pdb_image_describe(self, &img, &err), 0);
	assert_true(img.text_size > 0);
	assert_true(img.size > img.text_size);
	/* Debian's gcc links with --build-id: the key comes from it. */
	assert_true(img.build_id_len >= 8);
	assert_int_equal(strncmp(img.key, "b-", 2), 0);
	assert_int_equal(strlen(img.key), 2 + 2 * img.build_id_len);

	spit(tpath(d, "plain"), "not an ELF file", 15);
	assert_int_equal(pdb_image_describe(tpath(d, "plain"), &img, &err), 0);
	assert_int_equal(img.size, 15);
	assert_int_equal(img.text_size, 0);
	assert_int_equal(img.build_id_len, 0);
	assert_int_equal(strncmp(img.key, "h-", 2), 0);

	assert_int_equal(pdb_image_describe(tpath(d, "missing"), &img, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "missing"));
	tdir_free(d);
}

/* ---------------------------------------------------------------- in-memory profiles */

static void test_pdb_prof_add_and_lookup(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	struct pdb_latency lat;
	struct pdb_count *c;
	size_t n;

	(void)state;
	assert_non_null(p);
	assert_true(pdb_prof_is_empty(p));
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x40, 3), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x40, 4), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x10, 1), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x20, 0), 0); /* no-op */
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_MAX, 0x20, 1), -EINVAL);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_IMISS, 0x40, UINT64_MAX), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_IMISS, 0x40, 5), 0); /* saturates */
	assert_false(pdb_prof_is_empty(p));
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, 0x40), 7);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, 0x20), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_IMISS, 0x40), UINT64_MAX);
	assert_int_equal(pdb_prof_total(p, PDB_EV_CYCLES), 8);
	assert_int_equal(pdb_prof_distinct(p, PDB_EV_CYCLES), 2);
	assert_int_equal(pdb_prof_events(p), (1u << PDB_EV_CYCLES) | (1u << PDB_EV_IMISS));

	assert_int_equal(pdb_prof_samples(p, PDB_EV_CYCLES, &c, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].offset, 0x10);
	assert_int_equal(c[0].count, 1);
	assert_int_equal(c[1].offset, 0x40);
	assert_int_equal(c[1].count, 7);
	free(c);
	assert_int_equal(pdb_prof_samples(p, PDB_EV_DMISS, &c, &n), 0);
	assert_int_equal(n, 0);
	assert_null(c);

	/* Latency entries must balance. */
	memset(&lat, 0, sizeof(lat));
	assert_int_equal(pdb_prof_add_latency(p, 8, &lat), -EINVAL);
	lat.level[1] = 2;
	lat.hist[2] = 1;
	assert_int_equal(pdb_prof_add_latency(p, 8, &lat), -EINVAL);
	lat.hist[3] = 1;
	lat.latency_sum = 6;
	assert_int_equal(pdb_prof_add_latency(p, 8, &lat), 0);
	lat.level[1] = UINT64_MAX - 1;
	lat.hist[2] = UINT64_MAX - 2;
	assert_int_equal(pdb_prof_add_latency(p, 8, &lat), -EOVERFLOW);

	/* Conflicts: the smaller distance stays, counts add; bad arguments are refused. */
	assert_int_equal(
		pdb_prof_add_conflict(p, 0x40, "libc.so.6", 0x100, PDB_CNF_STORE_LOAD, 2, 9), 0);
	assert_int_equal(
		pdb_prof_add_conflict(p, 0x40, "libc.so.6", 0x100, PDB_CNF_STORE_LOAD, 3, 4), 0);
	assert_int_equal(pdb_prof_add_conflict(p, 0x40, "a/b", 0x100, PDB_CNF_STORE_LOAD, 3, 4),
			 -EINVAL);
	assert_int_equal(pdb_prof_add_conflict(p, 0x40, "", 0x100, 3, 3, 4), -EINVAL);
	assert_int_equal(pdb_prof_add_conflict(p, 0x40, "", 0x100, PDB_CNF_LOAD_LOAD, 3, 0),
			 -EINVAL);
	{
		struct pdb_conflict *x;

		assert_int_equal(pdb_prof_conflicts(p, &x, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(x[0].prior_key, "libc.so.6");
		assert_int_equal(x[0].count, 5);
		assert_int_equal(x[0].dist_min, 4);
		free(x);
	}
	assert_int_equal(pdb_prof_add_unknown(p, 1, 2, PDB_EV_MAX, 1), -EINVAL);

	pdb_prof_clear(p);
	assert_true(pdb_prof_is_empty(p));
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0x40, 1), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, 0x40), 1);
	pdb_prof_free(p);
}

static void test_pdb_prof_merge_hotlists(void **state)
{
	struct pdb_prof *a = pdb_prof_new(), *b = pdb_prof_new(), *c = pdb_prof_new();
	struct hotlist h1, h2;
	struct hotlist_rng r;
	struct pdb_value *v;
	size_t n;

	(void)state;
	hotlist_rng_seed(&r, 7);
	gen_hotlist(&h1, &r, false);
	gen_hotlist(&h2, &r, false);
	h1.m = HOTLIST_MAX_M + 1; /* invalid */
	assert_int_equal(pdb_prof_add_hotlist(a, 4, 1, &h1), -EINVAL);
	h1.m = 8;
	assert_int_equal(pdb_prof_add_hotlist(a, 4, 64, &h1), -EINVAL);
	assert_int_equal(pdb_prof_add_hotlist(a, 4, 3, &h1), 0);
	assert_int_equal(pdb_prof_add_hotlist(b, 4, 3, &h2), 0);
	/* Other offsets present in a different order must not change offset 4's result. */
	assert_int_equal(pdb_prof_add_hotlist(c, 8, 3, &h2), 0);
	assert_int_equal(pdb_prof_add_hotlist(c, 4, 3, &h1), 0);
	assert_int_equal(pdb_prof_merge(a, b), 0);
	assert_int_equal(pdb_prof_merge(c, b), 0);
	assert_int_equal(pdb_prof_merge(a, a), -EINVAL);
	assert_int_equal(pdb_prof_values(a, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].h.n, h1.n + h2.n);
	assert_int_equal(hotlist_validate(&v[0].h, NULL), 0);
	{
		struct pdb_value *w;
		size_t m;

		assert_int_equal(pdb_prof_values(c, &w, &m), 0);
		assert_int_equal(m, 2);
		assert_hotlist_equal(&v[0].h, &w[0].h); /* offset 4: same coins */
		free(w);
	}
	free(v);
	pdb_prof_free(a);
	pdb_prof_free(b);
	pdb_prof_free(c);
}

/* ---------------------------------------------------------------- encode / parse */

/* Encode every table of p, parse each file into q: q must equal p. */
static void round_trip(const struct pdb_prof *p)
{
	struct pdb_prof *q = pdb_prof_new();
	struct ax_error err;
	unsigned int type, ev;
	void *buf;
	size_t len;

	for (type = PDB_FT_SAMPLES; type <= PDB_FT_UNKNOWN; type++) {
		for (ev = 0; ev < (type == PDB_FT_SAMPLES ? PDB_EV_MAX : 1u); ev++) {
			int r = pdb_encode(p, type, ev, &buf, &len);

			if (r == -ENODATA)
				continue;
			assert_int_equal(r, 0);
			assert_int_equal(pdb_parse(buf, len, "mem", q, &err), 0);
			free(buf);
		}
	}
	assert_prof_equal(p, q);
	pdb_prof_free(q);
}

static void test_pdb_round_trip_every_table(void **state)
{
	struct hotlist_rng r;
	unsigned int seed;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		struct pdb_prof *p = pdb_prof_new();

		hotlist_rng_seed(&r, seed);
		gen_prof(p, &r, 1 + (unsigned int)rnd(&r, 400), 1 + rnd(&r, 5000), seed & 1);
		gen_unknown(p, &r, (unsigned int)rnd(&r, 50));
		round_trip(p);
		pdb_prof_free(p);
	}
}

static void test_pdb_round_trip_extremes(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	struct pdb_latency lat;
	unsigned int i;

	(void)state;
	/* Offsets and counts at the edges of 64 bits, aligned and not. */
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 0, 1), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, UINT64_MAX, UINT64_MAX), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_IMISS, UINT64_MAX - 3, 1), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_IMISS, 0, 1), 0);
	assert_int_equal(pdb_prof_add_sample(p, 31, 4, 1), 0);
	assert_int_equal(pdb_prof_add_vcount(p, UINT64_MAX - 3, UINT64_MAX), 0);
	memset(&lat, 0, sizeof(lat));
	lat.level[4] = UINT64_MAX;
	lat.hist[15] = UINT64_MAX;
	lat.latency_sum = UINT64_MAX;
	assert_int_equal(pdb_prof_add_latency(p, UINT64_MAX, &lat), 0);
	assert_int_equal(pdb_prof_add_conflict(p, UINT64_MAX, "", UINT64_MAX, PDB_CNF_LOAD_LOAD,
					       UINT64_MAX, UINT32_MAX),
			 0);
	assert_int_equal(pdb_prof_add_unknown(p, UINT32_MAX, UINT64_MAX, 31, UINT64_MAX), 0);
	assert_int_equal(pdb_prof_add_unknown(p, 0, 0, 0, 1), 0);
	for (i = 0; i < 70; i++) /* many keys */
	{
		char key[16];

		snprintf(key, sizeof(key), "k%u", i);
		assert_int_equal(pdb_prof_add_conflict(p, 8, key, i, PDB_CNF_STORE_LOAD, 1, 1), 0);
	}
	round_trip(p);
	pdb_prof_free(p);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted views of big tables (radix-sorted inside) over the whole 64-bit range. */
static void test_pdb_sorted_views_large(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	struct hotlist_rng r;
	uint64_t *want = malloc(20000 * sizeof(*want));
	struct pdb_count *c;
	size_t n, i, k = 0;

	(void)state;
	hotlist_rng_seed(&r, 77);
	for (i = 0; i < 20000; i++) {
		uint64_t off = hotlist_rng_next(&r) >> (rnd(&r, 4) * 16);

		if (i < 4)
			off = i < 2 ? i : UINT64_MAX - i;
		if (pdb_prof_count(p, PDB_EV_CYCLES, off) == 0)
			want[k++] = off;
		assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, off, 1 + i % 5), 0);
	}
	qsort(want, k, sizeof(*want), cmp_u64);
	assert_int_equal(pdb_prof_samples(p, PDB_EV_CYCLES, &c, &n), 0);
	assert_int_equal(n, k);
	for (i = 0; i < n; i++)
		assert_int_equal(c[i].offset, want[i]);
	free(c);
	round_trip(p);
	free(want);
	pdb_prof_free(p);
}

/* Two processes merging into one image at once: the lock keeps every increment. */
static void test_pdb_concurrent_writers(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct pdb_prof *p = pdb_prof_new(), *q;
	struct hotlist_rng r;
	pid_t pid;
	int i, status;

	(void)state;
	hotlist_rng_seed(&r, 31);
	gen_prof(p, &r, 200, 300, true);
	db = open_new(d);
	pdb_close(db);
	pid = fork();
	assert_true(pid >= 0);
	/* Each process opens its own handle (its own lock file description). */
	assert_int_equal(pdb_open(d, false, &db, NULL), 0);
	for (i = 0; i < 15; i++)
		if (pdb_merge_store(db, 1, "b-shared", p))
			break;
	if (pid == 0)
		_exit(i == 15 ? 0 : 1);
	assert_int_equal(i, 15);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(pdb_load(db, 1, "b-shared", &q), 0);
	assert_int_equal(pdb_prof_total(q, PDB_EV_CYCLES), 30 * pdb_prof_total(p, PDB_EV_CYCLES));
	{
		struct pdb_count *a, *b;
		size_t na, nb, j;

		assert_int_equal(pdb_prof_vcounts(q, &a, &na), 0);
		assert_int_equal(pdb_prof_vcounts(p, &b, &nb), 0);
		assert_int_equal(na, nb);
		for (j = 0; j < na; j++)
			assert_int_equal(a[j].count, 30 * b[j].count);
		free(a);
		free(b);
	}
	pdb_prof_free(q);
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

static void test_pdb_encode_empty_and_bad(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	void *buf;
	size_t len;

	(void)state;
	assert_int_equal(pdb_encode(p, PDB_FT_SAMPLES, 0, &buf, &len), -ENODATA);
	assert_int_equal(pdb_encode(p, PDB_FT_SAMPLES, PDB_EV_MAX, &buf, &len), -EINVAL);
	assert_int_equal(pdb_encode(p, PDB_FT_INDEX, 0, &buf, &len), -EINVAL);
	assert_int_equal(pdb_encode(p, 0, 0, &buf, &len), -EINVAL);
	assert_int_equal(pdb_encode_index(NULL, 0, &buf, &len), -ENODATA);
	pdb_prof_free(p);
}

/* Header fields of an encoded file, as the format table of pdb.h says. */
static void test_pdb_header_layout(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	uint8_t *b;
	size_t len, i;

	(void)state;
	for (i = 0; i < 1000; i++)
		assert_int_equal(pdb_prof_add_sample(p, PDB_EV_DMISS, 0x1000 + 4 * i, 1 + i % 3),
				 0);
	assert_int_equal(pdb_encode(p, PDB_FT_SAMPLES, PDB_EV_DMISS, (void **)&b, &len), 0);
	assert_memory_equal(b, "AXPD", 4);
	assert_int_equal(b[4] | b[5] << 8, PDB_FORMAT_VERSION);
	assert_int_equal(b[6] | b[7] << 8, PDB_FT_SAMPLES);
	assert_int_equal(b[8], PDB_FL_ZLIB | PDB_FL_ALIGN4);
	assert_int_equal(b[12], PDB_EV_DMISS);
	assert_int_equal(b[16] | b[17] << 8, 1000);
	/* The first offset (0x1000 / 4) takes 2 bytes, then 999 one-byte deltas, 1000 counts, and
	 * the period record (0, 0: none known). */
	assert_int_equal(b[24] | b[25] << 8, 2003);
	assert_int_equal(b[32] | b[33] << 8 | b[34] << 16, len - PDB_HEADER_SIZE);
	assert_int_equal(b[40] | b[41] << 8 | b[42] << 16 | (uint32_t)b[43] << 24,
			 crc32(0, b + 48, (uInt)(len - 48)));
	assert_int_equal(b[44] | b[45] << 8 | b[46] << 16 | (uint32_t)b[47] << 24, crc32(0, b, 44));
	/* Regular offsets compress well below a byte each. */
	assert_true(len < PDB_HEADER_SIZE + 200);
	free(b);
	pdb_prof_free(p);
}

/* ---------------------------------------------------------------- the database */

static void test_pdb_open_and_epochs(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db;
	struct ax_error err;
	uint32_t e, *v;
	size_t n;

	(void)state;
	/* Not a database: no epoch. */
	assert_int_equal(pdb_open(d, false, &db, &err), -ENOENT);
	assert_null(db);
	assert_non_null(strstr(err.msg, d));
	assert_int_equal(pdb_open(tpath(d, "no/such"), true, &db, &err), -ENOENT);

	db = open_new(tpath(d, "db"));
	assert_int_equal(pdb_epoch_current(db, &e), 0);
	assert_int_equal(e, 1);
	assert_true(file_exists(tpath(d, "db/epoch-1")));
	assert_true(file_exists(tpath(d, "db/current")));
	assert_int_equal(pdb_epoch_new(db, &e), 0);
	assert_int_equal(e, 2);
	assert_int_equal(pdb_epoch_current(db, &e), 0);
	assert_int_equal(e, 2);
	pdb_close(db);

	/* Reopening (either way) keeps the epochs. */
	assert_int_equal(pdb_open(tpath(d, "db"), false, &db, &err), 0);
	assert_int_equal(pdb_epoch_current(db, &e), 0);
	assert_int_equal(e, 2);
	/* Foreign names are not epochs. */
	assert_int_equal(mkdir(tpath(d, "db/epoch-07"), 0755), 0);
	assert_int_equal(mkdir(tpath(d, "db/epoch-x"), 0755), 0);
	spit(tpath(d, "db/epoch-9"), "", 0); /* a file, not a directory */
	assert_int_equal(pdb_epoch_list(db, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	free(v);

	/* Without DIR/current, the highest epoch is current. */
	assert_int_equal(mkdir(tpath(d, "db/epoch-10"), 0755), 0);
	assert_int_equal(unlink(tpath(d, "db/current")), 0);
	assert_int_equal(pdb_epoch_current(db, &e), 0);
	assert_int_equal(e, 10);
	assert_int_equal(pdb_epoch_new(db, &e), 0);
	assert_int_equal(e, 11);

	/* A damaged DIR/current is refused with its name. */
	spit(tpath(d, "db/current"), "11", 2);
	assert_int_equal(pdb_epoch_current(db, &e), -EBADMSG);
	assert_non_null(strstr(pdb_errmsg(db), "current"));
	spit(tpath(d, "db/current"), "011\n", 4);
	assert_int_equal(pdb_epoch_current(db, &e), -EBADMSG);
	spit(tpath(d, "db/current"), "12\n", 3); /* names no epoch */
	assert_int_equal(pdb_epoch_current(db, &e), -ENOENT);
	spit(tpath(d, "db/current"), "3\n", 2);
	assert_int_equal(mkdir(tpath(d, "db/epoch-3"), 0755), 0);
	assert_int_equal(pdb_epoch_current(db, &e), 0);
	assert_int_equal(e, 3);
	pdb_close(db);
	tdir_free(d);
}

static void test_pdb_store_load_every_table(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = open_new(d);
	struct pdb_prof *p = pdb_prof_new(), *q, *u = pdb_prof_new();
	struct hotlist_rng r;

	(void)state;
	hotlist_rng_seed(&r, 42);
	gen_prof(p, &r, 3000, 20000, false);
	assert_int_equal(pdb_store(db, 1, "b-00112233", p), 0);
	assert_true(file_exists(tpath(d, "epoch-1/b-00112233/CYCLES.prof")));
	assert_true(file_exists(tpath(d, "epoch-1/b-00112233/DTBMISS.prof")));
	assert_true(file_exists(tpath(d, "epoch-1/b-00112233/values.prof")));
	assert_true(file_exists(tpath(d, "epoch-1/b-00112233/latency.prof")));
	assert_true(file_exists(tpath(d, "epoch-1/b-00112233/conflicts.prof")));
	assert_true(file_exists(tpath(d, "epoch-1/b-00112233/vcount.prof")));
	assert_false(file_exists(tpath(d, "epoch-1/b-00112233/RETIRED.prof")));
	assert_int_equal(pdb_load(db, 1, "b-00112233", &q), 0);
	assert_prof_equal(p, q);
	pdb_prof_free(q);

	/* Store replaces: a table now empty loses its file. */
	pdb_prof_clear(p);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_RETIRED, 4, 9), 0);
	assert_int_equal(pdb_store(db, 1, "b-00112233", p), 0);
	assert_false(file_exists(tpath(d, "epoch-1/b-00112233/CYCLES.prof")));
	assert_false(file_exists(tpath(d, "epoch-1/b-00112233/values.prof")));
	assert_int_equal(pdb_load(db, 1, "b-00112233", &q), 0);
	assert_prof_equal(p, q);
	pdb_prof_free(q);

	/* Missing image, epoch, bad keys. */
	assert_int_equal(pdb_load(db, 1, "b-99", &q), -ENOENT);
	assert_null(q);
	assert_int_equal(pdb_load(db, 5, "b-00112233", &q), -ENOENT);
	assert_int_equal(pdb_load(db, 1, "../x", &q), -EINVAL);
	assert_int_equal(pdb_store(db, 5, "b-00112233", p), -ENOENT);
	assert_int_equal(pdb_store(db, 1, "a/b", p), -EINVAL);
	/* Unknown samples belong to the unknown profile only, and the other way round. */
	assert_int_equal(pdb_prof_add_unknown(u, 7, 0x1000, PDB_EV_CYCLES, 2), 0);
	assert_int_equal(pdb_store(db, 1, "b-00112233", u), -EINVAL);
	assert_int_equal(pdb_store(db, 1, PDB_KEY_UNKNOWN, p), -EINVAL);
	assert_int_equal(pdb_merge_store(db, 1, PDB_KEY_UNKNOWN, p), -EINVAL);
	pdb_prof_free(u);
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

static void test_pdb_unknown_profile(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = open_new(d);
	struct pdb_prof *u = pdb_prof_new(), *q;
	struct pdb_unknown *x;
	size_t n;

	(void)state;
	/* An epoch without unknown samples has an empty unknown profile. */
	assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &q), 0);
	assert_true(pdb_prof_is_empty(q));
	pdb_prof_free(q);

	assert_int_equal(pdb_prof_add_unknown(u, 7, 0x1000, PDB_EV_CYCLES, 2), 0);
	assert_int_equal(pdb_prof_add_unknown(u, 7, 0x1000, PDB_EV_IMISS, 1), 0);
	assert_int_equal(pdb_prof_add_unknown(u, 3, 0x1002, PDB_EV_CYCLES, 5), 0);
	assert_int_equal(pdb_merge_store(db, 1, PDB_KEY_UNKNOWN, u), 0);
	assert_int_equal(pdb_merge_store(db, 1, PDB_KEY_UNKNOWN, u), 0);
	assert_true(file_exists(tpath(d, "epoch-1/unknown.prof")));
	assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &q), 0);
	assert_int_equal(pdb_prof_unknowns(q, &x, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(x[0].pid, 3);
	assert_int_equal(x[0].pc, 0x1002);
	assert_int_equal(x[0].count, 10);
	assert_int_equal(x[1].pid, 7);
	assert_int_equal(x[1].event, PDB_EV_CYCLES);
	assert_int_equal(x[1].count, 4);
	assert_int_equal(x[2].event, PDB_EV_IMISS);
	assert_int_equal(x[2].count, 2);
	free(x);
	pdb_prof_free(q);
	pdb_prof_free(u);
	pdb_close(db);
	tdir_free(d);
}

static void test_pdb_merge_store_adds(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = open_new(d);
	struct pdb_prof *a = pdb_prof_new(), *b = pdb_prof_new(), *sum = pdb_prof_new(), *q;
	struct hotlist_rng r;
	struct stat st1, st2;

	(void)state;
	hotlist_rng_seed(&r, 3);
	gen_prof(a, &r, 500, 800, true);
	gen_prof(b, &r, 500, 800, true);
	/* b has no vcount: its merge must leave vcount.prof alone. */
	pdb_prof_clear(b);
	assert_int_equal(pdb_prof_add_sample(b, PDB_EV_CYCLES, 16, 5), 0);
	assert_int_equal(pdb_prof_merge(sum, a), 0);
	assert_int_equal(pdb_prof_merge(sum, b), 0);
	assert_int_equal(pdb_merge_store(db, 1, "k1", a), 0);
	assert_int_equal(stat(tpath(d, "epoch-1/k1/vcount.prof"), &st1), 0);
	assert_int_equal(pdb_merge_store(db, 1, "k1", b), 0);
	assert_int_equal(stat(tpath(d, "epoch-1/k1/vcount.prof"), &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(pdb_load(db, 1, "k1", &q), 0);
	assert_prof_equal(sum, q);
	pdb_prof_free(q);
	/* An empty increment writes nothing and succeeds. */
	pdb_prof_clear(b);
	assert_int_equal(pdb_merge_store(db, 1, "k1", b), 0);
	pdb_prof_free(a);
	pdb_prof_free(b);
	pdb_prof_free(sum);
	pdb_close(db);
	tdir_free(d);
}

/*
 * The merge property: for random sample sets A and B, merging epoch A and epoch B into a third
 * equals storing both sets, in pieces, into one epoch. Exact for every table; hotlists too when
 * their merges draw no coin (odd seeds), else in n (hotlist merges are not associative).
 */
static void test_pdb_merge_epochs_equals_one_epoch(void **state)
{
	unsigned int seed;

	(void)state;
	for (seed = 1; seed <= 8; seed++) {
		char *d = tdir_new(), *d2 = tdir_new();
		struct pdb_db *db = open_new(d), *other = open_new(d2);
		static const char *const keys[] = { "b-aa", "b-bb", "h-0123456789abcdef" };
		struct hotlist_rng r;
		uint32_t e;
		unsigned int k, part;

		hotlist_rng_seed(&r, seed * 1000);
		/* epoch 1 gets A, epoch 2 gets B, epoch 3 gets A then B; all in pieces. */
		assert_int_equal(pdb_epoch_new(db, &e), 0);
		assert_int_equal(pdb_epoch_new(db, &e), 0);
		for (k = 0; k < 3; k++) {
			for (part = 0; part < 2 * 3; part++) {
				struct pdb_prof *p = pdb_prof_new();
				uint32_t epoch = part < 3 ? 1 : 2;

				gen_prof(p, &r, 1 + (unsigned int)rnd(&r, 300), 1000, seed & 1);
				assert_int_equal(pdb_merge_store(db, epoch, keys[k], p), 0);
				assert_int_equal(pdb_merge_store(db, 3, keys[k], p), 0);
				pdb_prof_free(p);
			}
		}
		for (part = 0; part < 2; part++) {
			struct pdb_prof *u = pdb_prof_new();

			gen_unknown(u, &r, 40);
			assert_int_equal(pdb_merge_store(db, 1 + part, PDB_KEY_UNKNOWN, u), 0);
			assert_int_equal(pdb_merge_store(db, 3, PDB_KEY_UNKNOWN, u), 0);
			pdb_prof_free(u);
		}
		/* Into another database's epoch 1, then epoch 4 of the same one. */
		assert_int_equal(pdb_merge_db(other, 1, db, 1, 0), 0);
		assert_int_equal(pdb_merge_db(other, 1, db, 2, 0), 0);
		assert_int_equal(pdb_merge_db(db, 4, db, 1, 0), 0);
		assert_int_equal(pdb_merge_db(db, 4, db, 2, 0), 0);
		for (k = 0; k <= 3; k++) {
			const char *key = k < 3 ? keys[k] : PDB_KEY_UNKNOWN;
			struct pdb_prof *x, *y, *z;

			assert_int_equal(pdb_load(db, 3, key, &x), 0);
			assert_int_equal(pdb_load(other, 1, key, &y), 0);
			assert_int_equal(pdb_load(db, 4, key, &z), 0);
			assert_false(pdb_prof_is_empty(x));
			assert_prof_equal_hot(x, y, seed & 1);
			assert_prof_equal_hot(x, z, seed & 1);
			pdb_prof_free(x);
			pdb_prof_free(y);
			pdb_prof_free(z);
		}
		/* Merging an epoch into itself would double it. */
		assert_int_equal(pdb_merge_db(db, 1, db, 1, 0), -EINVAL);
		assert_int_equal(pdb_merge_db(db, 1, db, 9, 0), -ENOENT);
		pdb_close(db);
		pdb_close(other);
		tdir_free(d);
		tdir_free(d2);
	}
}

static void fill_image(struct pdb_image *im, const char *key, const char *path, uint64_t size)
{
	memset(im, 0, sizeof(*im));
	snprintf(im->key, sizeof(im->key), "%s", key);
	im->path = path;
	im->size = size;
	im->mtime_ns = -1234567890123;
	im->text_size = size / 2;
	im->build_id_len = 3;
	im->build_id[0] = 0;
	im->build_id[1] = 0xff;
	im->build_id[2] = 7;
}

static void test_pdb_index(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = open_new(d), *db2 = open_new(tpath(d, "two"));
	struct pdb_image im, *list;
	struct pdb_prof *p = pdb_prof_new();
	struct stat st1, st2;
	size_t n;

	(void)state;
	assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
	assert_int_equal(n, 0);
	fill_image(&im, "b-02", "/usr/lib/libc.so.6", 1000);
	assert_int_equal(pdb_image_add(db, 1, &im), 0);
	fill_image(&im, "b-01", "/bin/ls", 500);
	assert_int_equal(pdb_image_add(db, 1, &im), 0);
	assert_int_equal(stat(tpath(d, "epoch-1/index"), &st1), 0);
	/* The same entry again: nothing written. */
	assert_int_equal(pdb_image_add(db, 1, &im), 0);
	assert_int_equal(stat(tpath(d, "epoch-1/index"), &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	/* A profile directory without an index entry is listed too. */
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 4, 1), 0);
	assert_int_equal(pdb_merge_store(db, 1, "b-01", p), 0);
	assert_int_equal(pdb_merge_store(db, 1, "h-00", p), 0);
	assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(list[0].key, "b-01");
	assert_string_equal(list[0].path, "/bin/ls");
	assert_int_equal(list[0].flags, PDB_IMG_INDEXED | PDB_IMG_HAS_DIR);
	assert_int_equal(list[0].size, 500);
	assert_int_equal(list[0].text_size, 250);
	assert_int_equal(list[0].mtime_ns, -1234567890123);
	assert_int_equal(list[0].build_id_len, 3);
	assert_int_equal(list[0].build_id[1], 0xff);
	assert_string_equal(list[1].key, "b-02");
	assert_int_equal(list[1].flags, PDB_IMG_INDEXED);
	assert_string_equal(list[2].key, "h-00");
	assert_string_equal(list[2].path, "");
	assert_int_equal(list[2].flags, PDB_IMG_HAS_DIR);
	pdb_image_list_free(list, n);

	/* Replace an entry. */
	fill_image(&im, "b-01", "/usr/bin/ls", 501);
	assert_int_equal(pdb_image_add(db, 1, &im), 0);
	assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
	assert_string_equal(list[0].path, "/usr/bin/ls");
	pdb_image_list_free(list, n);

	/* Merging databases: dst keeps its own entries, gains the others. */
	fill_image(&im, "b-01", "/elsewhere/ls", 501);
	assert_int_equal(pdb_image_add(db2, 1, &im), 0);
	assert_int_equal(pdb_merge_db(db2, 1, db, 1, 0), 0);
	assert_int_equal(pdb_image_list(db2, 1, &list, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(list[0].path, "/elsewhere/ls");
	assert_string_equal(list[1].path, "/usr/lib/libc.so.6");
	assert_string_equal(list[2].key, "h-00");
	pdb_image_list_free(list, n);

	/* Bad entries. */
	fill_image(&im, "x/y", "/a", 1);
	assert_int_equal(pdb_image_add(db, 1, &im), -EINVAL);
	fill_image(&im, "b-03", "/a", 1);
	im.build_id_len = PDB_BUILD_ID_MAX + 1;
	assert_int_equal(pdb_image_add(db, 1, &im), -EINVAL);
	fill_image(&im, "b-03", "/a", 1);
	assert_int_equal(pdb_image_add(db, 7, &im), -ENOENT);
	assert_int_equal(pdb_image_list(db, 7, &list, &n), -ENOENT);
	pdb_prof_free(p);
	pdb_close(db);
	pdb_close(db2);
	tdir_free(d);
}

static void test_pdb_open_sweeps_temporaries(void **state)
{
	char *d = tdir_new();
	struct pdb_db *db = open_new(d);
	struct pdb_prof *p = pdb_prof_new(), *q;

	(void)state;
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 4, 1), 0);
	assert_int_equal(pdb_store(db, 1, "k", p), 0);
	/* What a writer killed mid-update leaves. */
	spit(tpath(d, "epoch-1/k/.CYCLES.prof.tmp.abc123"), "junk", 4);
	spit(tpath(d, "epoch-1/.index.tmp.000001"), "junk", 4);
	spit(tpath(d, ".current.tmp.0a0a0a"), "junk", 4);
	spit(tpath(d, "epoch-1/k/.keep"), "mine", 4);
	/* Readers do not see them. */
	assert_int_equal(pdb_load(db, 1, "k", &q), 0);
	assert_prof_equal(p, q);
	pdb_prof_free(q);
	pdb_close(db);
	db = open_new(d);
	assert_false(file_exists(tpath(d, "epoch-1/k/.CYCLES.prof.tmp.abc123")));
	assert_false(file_exists(tpath(d, "epoch-1/.index.tmp.000001")));
	assert_false(file_exists(tpath(d, ".current.tmp.0a0a0a")));
	assert_true(file_exists(tpath(d, "epoch-1/k/.keep")));
	assert_true(file_exists(tpath(d, "epoch-1/k/CYCLES.prof")));
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(d);
}

/* DCPI §4.3: profiles are an order of magnitude smaller than their images. */
static void test_pdb_files_are_compact(void **state)
{
	struct pdb_prof *p = pdb_prof_new();
	struct hotlist_rng r;
	unsigned int i;
	void *buf;
	size_t len;

	(void)state;
	hotlist_rng_seed(&r, 11);
	/* 10^4 distinct offsets of 4-byte instructions spread over a 160 KB text, skewed counts. */
	for (i = 0; i < 10000; i++) {
		uint64_t c = 1 + rnd(&r, 4);

		if (rnd(&r, 20) == 0)
			c += rnd(&r, 5000);
		assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, 4 * (i * 4 + rnd(&r, 4)), c),
				 0);
	}
	assert_int_equal(pdb_encode(p, PDB_FT_SAMPLES, PDB_EV_CYCLES, &buf, &len), 0);
	/* Well under 3 bytes an offset, against 16 for a raw (offset, count) pair. */
	assert_true(len < 30000);
	free(buf);
	pdb_prof_free(p);
}

/* A profile of one image: CYCLES samples at period [lo, hi], IMISS at a tenth of it. */
static struct pdb_prof *period_prof(uint64_t scale, uint32_t lo, uint32_t hi)
{
	struct pdb_prof *p = pdb_prof_new();

	assert_non_null(p);
	for (uint64_t a = 0x1000; a < 0x1040; a += 4)
		assert_int_equal(pdb_prof_add_sample(p, PDB_EV_CYCLES, a, scale * (a & 0xff)), 0);
	assert_int_equal(
		pdb_prof_add_period(p, PDB_EV_CYCLES, pdb_prof_total(p, PDB_EV_CYCLES), lo, hi), 0);
	assert_int_equal(pdb_prof_add_sample(p, PDB_EV_IMISS, 0x1008, 3 * scale), 0);
	assert_int_equal(pdb_prof_add_period(p, PDB_EV_IMISS, 3 * scale, lo / 10, hi / 10), 0);
	return p;
}

/* Stored periods come back; pdb_merge_store and pdb_prof_merge add them; bad ones are refused. */
static void test_pdb_periods_round_trip(void **state)
{
	struct pdb_prof *p = period_prof(1, 6000, 6400), *q = period_prof(1, 60000, 64000), *x;
	char *d = tdir_new();
	struct pdb_period pr;
	struct pdb_db *db;
	uint64_t n;
	double m;

	(void)state;
	n = pdb_prof_total(p, PDB_EV_CYCLES);
	assert_true(pdb_prof_mean_period(p, PDB_EV_CYCLES, &m) && m == 6200);
	assert_int_equal(pdb_open(d, true, &db, NULL), 0);
	assert_int_equal(pdb_store(db, 1, "b-01", p), 0);
	assert_int_equal(pdb_load(db, 1, "b-01", &x), 0);
	assert_true(pdb_prof_mean_period(x, PDB_EV_CYCLES, &m) && m == 6200);
	assert_true(pdb_prof_mean_period(x, PDB_EV_IMISS, &m) && m == 620);
	assert_false(pdb_prof_mean_period(x, PDB_EV_DMISS, &m));
	pdb_prof_free(x);
	/* A second run at ten times the period: the events add, the mean is their ratio. */
	assert_int_equal(pdb_merge_store(db, 1, "b-01", q), 0);
	assert_int_equal(pdb_load(db, 1, "b-01", &x), 0);
	pdb_prof_period(x, PDB_EV_CYCLES, &pr);
	assert_int_equal(pr.samples, 2 * n);
	assert_int_equal(pr.events2, n * 12400 + n * 124000);
	assert_true(pdb_prof_mean_period(x, PDB_EV_CYCLES, &m) && m == (6200.0 + 62000.0) / 2);
	pdb_prof_free(x);
	assert_int_equal(pdb_prof_merge(p, q), 0);
	pdb_prof_period(p, PDB_EV_CYCLES, &pr);
	assert_int_equal(pr.events2, n * 12400 + n * 124000);
	/* Bad periods and events. */
	assert_int_equal(pdb_prof_add_period(p, PDB_EV_CYCLES, 1, 0, 5), -EINVAL);
	assert_int_equal(pdb_prof_add_period(p, PDB_EV_CYCLES, 1, 6, 5), -EINVAL);
	assert_int_equal(pdb_prof_add_period(p, PDB_EV_MAX, 1, 5, 5), -EINVAL);
	pdb_prof_clear(p);
	assert_false(pdb_prof_mean_period(p, PDB_EV_CYCLES, &m));
	pdb_prof_free(p);
	pdb_prof_free(q);
	pdb_close(db);
	tdir_free(d);
}

/* Merged databases keep the events each run represents. */
static void test_pdb_periods_merge_db(void **state)
{
	struct pdb_prof *p = period_prof(10, 6000, 6400), *q = period_prof(1, 60000, 64000), *x;
	char *d1 = tdir_new(), *d2 = tdir_new(), *d3 = tdir_new();
	struct pdb_db *a, *b, *c;
	struct pdb_period pr;
	uint64_t np, nq;

	(void)state;
	np = pdb_prof_total(p, PDB_EV_CYCLES);
	nq = pdb_prof_total(q, PDB_EV_CYCLES);
	assert_int_equal(pdb_open(d1, true, &a, NULL), 0);
	assert_int_equal(pdb_open(d2, true, &b, NULL), 0);
	assert_int_equal(pdb_open(d3, true, &c, NULL), 0);
	assert_int_equal(pdb_merge_store(a, 1, "b-01", p), 0);
	assert_int_equal(pdb_merge_store(b, 1, "b-01", q), 0);
	assert_int_equal(pdb_merge_db(c, 1, a, 1, 0), 0);
	assert_int_equal(pdb_merge_db(c, 1, b, 1, 0), 0);
	assert_int_equal(pdb_load(c, 1, "b-01", &x), 0);
	pdb_prof_period(x, PDB_EV_CYCLES, &pr);
	assert_int_equal(pr.samples, np + nq);
	/* Both runs represent the same events: the merged estimate is twice either's. */
	assert_int_equal(pr.events2, np * 12400 + nq * 124000);
	assert_true(np * 6200 == nq * 62000);
	pdb_prof_free(x);
	pdb_prof_free(p);
	pdb_prof_free(q);
	pdb_close(a);
	pdb_close(b);
	pdb_close(c);
	tdir_free(d1);
	tdir_free(d2);
	tdir_free(d3);
}

/* A repeated merge is refused, directly, back, and through a third epoch; --force merges. */
static void test_pdb_merge_repeated(void **state)
{
	struct pdb_prof *p = period_prof(1, 6000, 6400), *x;
	char *d1 = tdir_new(), *d2 = tdir_new();
	struct pdb_origin *o;
	struct pdb_db *a, *b;
	uint64_t ida, ida2, idb, n1;
	uint32_t e;
	size_t n;

	(void)state;
	assert_int_equal(pdb_open(d1, true, &a, NULL), 0);
	assert_int_equal(pdb_open(d2, true, &b, NULL), 0);
	assert_true(file_exists(tpath(d1, "id")));
	assert_int_equal(pdb_identity(a, &ida), 0);
	assert_int_equal(pdb_identity(b, &idb), 0);
	assert_true(ida != idb);
	assert_int_equal(pdb_merge_store(a, 1, "b-01", p), 0);
	n1 = pdb_prof_total(p, PDB_EV_CYCLES);
	assert_int_equal(pdb_merge_db(b, 1, a, 1, 0), 0);
	assert_int_equal(pdb_origins(b, 1, &o, &n), 0);
	assert_int_equal(n, 1);
	assert_true(o[0].id == ida && o[0].epoch == 1);
	free(o);
	/* Again: refused, naming the source, nothing added. */
	assert_int_equal(pdb_merge_db(b, 1, a, 1, 0), -EALREADY);
	assert_non_null(strstr(pdb_errmsg(b), d1));
	assert_non_null(strstr(pdb_errmsg(b), "already merged"));
	assert_int_equal(pdb_load(b, 1, "b-01", &x), 0);
	assert_int_equal(pdb_prof_total(x, PDB_EV_CYCLES), n1);
	pdb_prof_free(x);
	/* Back: b's epoch 1 holds a's epoch 1. */
	assert_int_equal(pdb_merge_db(a, 1, b, 1, 0), -EALREADY);
	/* Through a third epoch: a's epoch 2 gets a's epoch 1, then b's epoch 1 would double it. */
	assert_int_equal(pdb_epoch_new(a, &e), 0);
	assert_int_equal(pdb_merge_db(a, 2, a, 1, 0), 0);
	assert_int_equal(pdb_merge_db(a, 2, b, 1, 0), -EALREADY);
	assert_non_null(strstr(pdb_errmsg(a), "both hold"));
	assert_int_equal(pdb_merge_db(b, 1, a, 2, 0), -EALREADY);
	/* Forced: added again, and recorded. */
	assert_int_equal(pdb_merge_db(b, 1, a, 1, PDB_MERGE_FORCE), 0);
	assert_int_equal(pdb_load(b, 1, "b-01", &x), 0);
	assert_int_equal(pdb_prof_total(x, PDB_EV_CYCLES), 2 * n1);
	pdb_prof_free(x);
	/* The identity stays; a database without one (older) gets one at its first merge. */
	pdb_close(a);
	assert_int_equal(pdb_open(d1, false, &a, NULL), 0);
	assert_int_equal(pdb_identity(a, &ida2), 0);
	assert_true(ida2 == ida);
	assert_int_equal(unlink(tpath(d2, "id")), 0);
	assert_int_equal(pdb_merge_db(a, 2, b, 1, 0), -EALREADY); /* (a, 1) in both records */
	assert_true(file_exists(tpath(d2, "id")));
	spit(tpath(d2, "id"), "123\n", 4);
	assert_int_equal(pdb_identity(b, &idb), -EBADMSG);
	pdb_prof_free(p);
	pdb_close(a);
	pdb_close(b);
	tdir_free(d1);
	tdir_free(d2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdb_event_names_round_trip),
		cmocka_unit_test(test_pdb_key_rules),
		cmocka_unit_test(test_pdb_describe_elf_and_other),
		cmocka_unit_test(test_pdb_prof_add_and_lookup),
		cmocka_unit_test(test_pdb_prof_merge_hotlists),
		cmocka_unit_test(test_pdb_round_trip_every_table),
		cmocka_unit_test(test_pdb_round_trip_extremes),
		cmocka_unit_test(test_pdb_sorted_views_large),
		cmocka_unit_test(test_pdb_encode_empty_and_bad),
		cmocka_unit_test(test_pdb_header_layout),
		cmocka_unit_test(test_pdb_open_and_epochs),
		cmocka_unit_test(test_pdb_store_load_every_table),
		cmocka_unit_test(test_pdb_unknown_profile),
		cmocka_unit_test(test_pdb_merge_store_adds),
		cmocka_unit_test(test_pdb_merge_epochs_equals_one_epoch),
		cmocka_unit_test(test_pdb_index),
		cmocka_unit_test(test_pdb_open_sweeps_temporaries),
		cmocka_unit_test(test_pdb_concurrent_writers),
		cmocka_unit_test(test_pdb_files_are_compact),
		cmocka_unit_test(test_pdb_periods_round_trip),
		cmocka_unit_test(test_pdb_periods_merge_db),
		cmocka_unit_test(test_pdb_merge_repeated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
