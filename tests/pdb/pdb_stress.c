/* tests/pdb/pdb_stress.c - crash-safety helper: a writer of known increments and its checker. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "pdb.h"

/*
 * pdb_stress write DIR
 *	Merge the same increment into images A and B and the unknown profile of DIR's current epoch,
 *	forever, each round one transaction (a daemon's flush). After each flush (committed) write
 *	"K\n" (K = flushes done by this process) to stdout, unbuffered.
 * pdb_stress check DIR STATE ACKED
 *	Read every table of DIR's current epoch. Each must hold exactly k increments for one whole
 *	k (no torn merge: every record k times its increment), and k must be the table's k in the
 *	file STATE (0 when absent) plus ACKED, or one more (a flush in progress when the writer was
 *	killed), the same one for every table (a flush is all or nothing). STATE is rewritten with
 *	the new values. Prints "KMIN KMAX PARTIAL": the smallest and largest k and how many tables
 *	got the unacknowledged flush (all or none). Exit 0 when consistent.
 * pdb_stress fill DIR SEED IMAGES OFFSETS
 *	Make a database of IMAGES indexed images with OFFSETS random offsets each, and an unknown
 *	profile (the source and destination of the merge campaign, pdb_tx_crash.sh).
 * pdb_stress dump DIR
 *	Print the whole database as canonical text (epochs, current, merge records, index, every
 *	table of every image and the unknown profile): two databases in the same state print the
 *	same. Images without samples and empty epochs above the current one print nothing.
 * pdb_stress open DIR
 *	pdb_open(DIR, create) and close: removes the temporary files killed writers left.
 * pdb_stress corpus DIR
 *	Write one valid file of every type into DIR (a seed corpus for the fuzzer).
 */

#define OFFSETS 400
static const char *const keys[] = { "b-a11ce", "b-b0b", PDB_KEY_UNKNOWN };

static void die(const char *what, int err, struct pdb_db *db)
{
	fprintf(stderr, "pdb_stress: %s: %s%s%s\n", what, strerror(-err), db ? ": " : "",
		db ? pdb_errmsg(db) : "");
	exit(2);
}

/* The increment of one image (or of the unknown profile when k == 2). */
static struct pdb_prof *increment(unsigned int k)
{
	struct pdb_prof *p = pdb_prof_new();
	unsigned int i;

	if (!p)
		die("out of memory", -ENOMEM, NULL);
	if (k == 2) {
		for (i = 0; i < 20; i++)
			pdb_prof_add_unknown(p, 100 + i % 3, 0x120000000ull + 4 * i, i % 2,
					     1 + i % 4);
		return p;
	}
	for (i = 0; i < OFFSETS; i++) {
		uint64_t off = 0x1000 + 4 * i + 8 * k;

		pdb_prof_add_sample(p, PDB_EV_CYCLES, off, 1 + i % 7);
		if (i % 3 == 0)
			pdb_prof_add_sample(p, PDB_EV_IMISS, off, 1 + i % 2);
		pdb_prof_add_vcount(p, off, 2);
		if (i % 8 == 0) {
			struct pdb_latency lat;

			memset(&lat, 0, sizeof(lat));
			lat.level[1] = 2;
			lat.level[4] = 1;
			lat.hist[2] = 2;
			lat.hist[7] = 1;
			lat.latency_sum = 2 * 3 + 100;
			pdb_prof_add_latency(p, off, &lat);
		}
		if (i % 16 == 0)
			pdb_prof_add_conflict(p, off, keys[!k], off - 64, PDB_CNF_STORE_LOAD, 3,
					      5 + i % 4);
		if (i % 32 == 0) {
			/* Three values, tau stays 1: merges add exactly. */
			struct hotlist h;
			struct hotlist_rng r;
			unsigned int j;

			hotlist_init(&h, 8);
			hotlist_rng_seed(&r, i);
			for (j = 0; j < 6; j++)
				hotlist_insert(&h, j < 1 ? 7 : j < 3 ? 8 : 9, &r);
			pdb_prof_add_hotlist(p, off, 3, &h);
		}
	}
	return p;
}

static int cmd_write(const char *dir)
{
	struct pdb_prof *inc[3];
	struct ax_error err;
	struct pdb_db *db;
	struct pdb_image im;
	uint32_t epoch;
	unsigned int k;
	uint64_t n;
	int ret;

	ret = pdb_open(dir, true, &db, &err);
	if (ret) {
		fprintf(stderr, "pdb_stress: %s\n", err.msg);
		return 2;
	}
	ret = pdb_epoch_current(db, &epoch);
	if (ret)
		die("epoch", ret, db);
	for (k = 0; k < 3; k++)
		inc[k] = increment(k);
	memset(&im, 0, sizeof(im));
	for (k = 0; k < 2; k++) {
		snprintf(im.key, sizeof(im.key), "%s", keys[k]);
		im.path = k ? "/lib/b.so" : "/bin/a";
		im.size = 1000 + k;
		ret = pdb_image_add(db, epoch, &im);
		if (ret)
			die("index", ret, db);
	}
	for (n = 1;; n++) {
		struct pdb_tx *tx;
		char line[32];
		int len;

		ret = pdb_tx_begin(db, &tx);
		if (ret)
			die("begin", ret, db);
		for (k = 0; k < 3; k++) {
			ret = pdb_tx_merge_store(tx, epoch, keys[k], inc[k]);
			if (ret)
				die("merge", ret, db);
		}
		ret = pdb_tx_commit(tx);
		if (ret)
			die("commit", ret, db);
		len = snprintf(line, sizeof(line), "%llu\n", (unsigned long long)n);
		if (write(1, line, (size_t)len) != len)
			die("ack", -errno, NULL);
	}
}

/* --- check --- */

static const char *bad_what;

/* The k of every table, in a fixed order (the increments never change). */
#define MAX_TABLES 64
static int64_t table_k[MAX_TABLES];
static unsigned int ntables;

static void track(int64_t k, const char *what)
{
	if (k < 0 && !bad_what)
		bad_what = what;
	if (ntables < MAX_TABLES)
		table_k[ntables++] = k;
}

/* k for which got == k * inc over arrays of (offset, count); -1 if none. */
static int64_t k_counts(const struct pdb_count *g, size_t ng, const struct pdb_count *c, size_t nc)
{
	int64_t k;
	size_t i;

	if (ng == 0)
		return 0;
	if (ng != nc)
		return -1;
	k = (int64_t)(g[0].count / c[0].count);
	for (i = 0; i < ng; i++)
		if (g[i].offset != c[i].offset || g[i].count != (uint64_t)k * c[i].count)
			return -1;
	return k;
}

static void check_prof(const struct pdb_prof *got, const struct pdb_prof *inc)
{
	struct pdb_count *g, *c;
	size_t ng, nc, i, j;
	unsigned int e;
	int64_t k;

	for (e = 0; e < PDB_EV_MAX; e++) {
		pdb_prof_samples(got, e, &g, &ng);
		pdb_prof_samples(inc, e, &c, &nc);
		if (nc || ng)
			track(k_counts(g, ng, c, nc), "samples");
		free(g);
		free(c);
	}
	pdb_prof_vcounts(got, &g, &ng);
	pdb_prof_vcounts(inc, &c, &nc);
	if (nc || ng)
		track(k_counts(g, ng, c, nc), "vcount");
	free(g);
	free(c);
	{
		struct pdb_lat *lg, *lc;

		pdb_prof_latencies(got, &lg, &ng);
		pdb_prof_latencies(inc, &lc, &nc);
		k = ng ? (int64_t)(lg[0].lat.level[1] / lc[0].lat.level[1]) : 0;
		if (ng && (ng != nc || k == 0))
			k = -1;
		for (i = 0; k > 0 && i < ng; i++) {
			const uint64_t *a = (const uint64_t *)&lg[i].lat,
				       *b = (const uint64_t *)&lc[i].lat;

			if (lg[i].offset != lc[i].offset)
				k = -1;
			for (j = 0; k > 0 && j < sizeof(lg[i].lat) / 8; j++)
				if (a[j] != (uint64_t)k * b[j])
					k = -1;
		}
		if (nc || ng)
			track(k, "latency");
		free(lg);
		free(lc);
	}
	{
		struct pdb_conflict *xg, *xc;

		pdb_prof_conflicts(got, &xg, &ng);
		pdb_prof_conflicts(inc, &xc, &nc);
		k = ng ? (int64_t)(xg[0].count / xc[0].count) : 0;
		if (ng && (ng != nc || k == 0))
			k = -1;
		for (i = 0; k > 0 && i < ng; i++)
			if (xg[i].load_offset != xc[i].load_offset ||
			    strcmp(xg[i].prior_key, xc[i].prior_key) ||
			    xg[i].prior_offset != xc[i].prior_offset ||
			    xg[i].count != (uint64_t)k * xc[i].count ||
			    xg[i].dist_min != xc[i].dist_min)
				k = -1;
		if (nc || ng)
			track(k, "conflicts");
		free(xg);
		free(xc);
	}
	{
		struct pdb_value *vg, *vc;

		pdb_prof_values(got, &vg, &ng);
		pdb_prof_values(inc, &vc, &nc);
		k = ng ? (int64_t)(vg[0].h.n / vc[0].h.n) : 0;
		if (ng && (ng != nc || k == 0))
			k = -1;
		for (i = 0; k > 0 && i < ng; i++) {
			if (vg[i].offset != vc[i].offset || vg[i].h.n != (uint64_t)k * vc[i].h.n ||
			    vg[i].h.used != vc[i].h.used || vg[i].h.tau != 1)
				k = -1;
			for (j = 0; k > 0 && j < vg[i].h.used; j++) {
				unsigned int m;

				for (m = 0; m < vc[i].h.used; m++)
					if (vc[i].h.value[m] == vg[i].h.value[j])
						break;
				if (m == vc[i].h.used ||
				    vg[i].h.count[j] != (uint64_t)k * vc[i].h.count[m])
					k = -1;
			}
		}
		if (nc || ng)
			track(k, "values");
		free(vg);
		free(vc);
	}
	{
		struct pdb_unknown *ug, *uc;

		pdb_prof_unknowns(got, &ug, &ng);
		pdb_prof_unknowns(inc, &uc, &nc);
		k = ng ? (int64_t)(ug[0].count / uc[0].count) : 0;
		if (ng && (ng != nc || k == 0))
			k = -1;
		for (i = 0; k > 0 && i < ng; i++)
			if (ug[i].pid != uc[i].pid || ug[i].pc != uc[i].pc ||
			    ug[i].event != uc[i].event || ug[i].count != (uint64_t)k * uc[i].count)
				k = -1;
		if (nc || ng)
			track(k, "unknown");
		free(ug);
		free(uc);
	}
}

static int cmd_check(const char *dir, const char *state, int64_t acked)
{
	int64_t kmin = INT64_MAX, kmax = INT64_MIN, prev[MAX_TABLES] = { 0 };
	unsigned int k, partial = 0;
	struct ax_error err;
	struct pdb_db *db;
	uint32_t epoch;
	FILE *f;
	int ret;

	f = fopen(state, "r");
	for (k = 0; f && k < MAX_TABLES; k++) {
		long long x;

		if (fscanf(f, "%lld", &x) != 1)
			break;
		prev[k] = x;
	}
	if (f)
		fclose(f);
	ret = pdb_open(dir, false, &db, &err);
	if (ret == -ENOENT && acked == 0) { /* killed before the first epoch existed */
		printf("0 0 0\n");
		return 0;
	}
	if (ret) {
		fprintf(stderr, "pdb_stress check: %s\n", err.msg);
		return 1;
	}
	ret = pdb_epoch_current(db, &epoch);
	if (ret) {
		fprintf(stderr, "pdb_stress check: %s\n", pdb_errmsg(db));
		return 1;
	}
	for (k = 0; k < 3; k++) {
		struct pdb_prof *got, *inc = increment(k);

		ret = pdb_load(db, epoch, keys[k], &got);
		if (ret == -ENOENT) {
			got = pdb_prof_new();
		} else if (ret) {
			fprintf(stderr, "pdb_stress check: unreadable: %s\n", pdb_errmsg(db));
			return 1;
		}
		check_prof(got, inc);
		pdb_prof_free(got);
		pdb_prof_free(inc);
	}
	pdb_close(db);
	if (bad_what) {
		fprintf(stderr, "pdb_stress check: torn %s table (not a whole number of flushes)\n",
			bad_what);
		return 1;
	}
	for (k = 0; k < ntables; k++) {
		/* Every acked flush is in every table; the one in progress may be in some. */
		if (table_k[k] != prev[k] + acked && table_k[k] != prev[k] + acked + 1) {
			fprintf(stderr,
				"pdb_stress check: table %u holds %lld flushes, expected %lld or %lld\n",
				k, (long long)table_k[k], (long long)(prev[k] + acked),
				(long long)(prev[k] + acked + 1));
			return 1;
		}
		partial += table_k[k] == prev[k] + acked + 1;
		if (table_k[k] < kmin)
			kmin = table_k[k];
		if (table_k[k] > kmax)
			kmax = table_k[k];
	}
	if (kmin != kmax) {
		fprintf(stderr, "pdb_stress check: a mix of flushes: tables hold %lld to %lld\n",
			(long long)kmin, (long long)kmax);
		return 1;
	}
	f = fopen(state, "w");
	for (k = 0; f && k < ntables; k++)
		fprintf(f, "%lld\n", (long long)table_k[k]);
	if (!f || fclose(f)) {
		fprintf(stderr, "pdb_stress check: cannot write %s\n", state);
		return 1;
	}
	printf("%lld %lld %u\n", (long long)kmin, (long long)kmax, partial);
	return 0;
}

/* --- fill and dump --- */

static int cmd_fill(const char *dir, unsigned int seed, unsigned int nimg, unsigned int noff)
{
	struct pdb_prof *p = pdb_prof_new(), *u = pdb_prof_new();
	struct ax_error err;
	struct pdb_image im;
	struct pdb_db *db;
	unsigned int i, j;
	uint32_t epoch;
	int ret;

	if (!p || !u)
		die("out of memory", -ENOMEM, NULL);
	srand(seed);
	ret = pdb_open(dir, true, &db, &err);
	if (ret) {
		fprintf(stderr, "pdb_stress: %s\n", err.msg);
		return 2;
	}
	ret = pdb_epoch_current(db, &epoch);
	for (i = 0; !ret && i < nimg; i++) {
		memset(&im, 0, sizeof(im));
		snprintf(im.key, sizeof(im.key), "b-%04x", 0x100 + i);
		im.path = i % 2 ? "/lib/lib.so" : "/bin/prog";
		im.size = 4096 + i;
		pdb_prof_clear(p);
		for (j = 0; j < noff; j++) {
			uint64_t off = 4 * (uint64_t)(rand() % (int)(8 * noff));

			pdb_prof_add_sample(p, PDB_EV_CYCLES, off, 1 + (uint64_t)(rand() % 50));
			if (j % 4 == 0)
				pdb_prof_add_sample(p, PDB_EV_IMISS, off, 1);
			if (j % 3 == 0)
				pdb_prof_add_vcount(p, off, 1 + (uint64_t)(rand() % 9));
		}
		pdb_prof_add_period(p, PDB_EV_CYCLES, pdb_prof_total(p, PDB_EV_CYCLES), 900, 1100);
		ret = pdb_image_add(db, epoch, &im);
		if (!ret)
			ret = pdb_merge_store(db, epoch, im.key, p);
		pdb_prof_add_unknown(u, 100 + i, 0x120000000ull + 4 * (uint64_t)(rand() % 1000), 0,
				     1 + (uint64_t)(rand() % 5));
	}
	if (!ret)
		ret = pdb_merge_store(db, epoch, PDB_KEY_UNKNOWN, u);
	if (ret)
		die("fill", ret, db);
	pdb_close(db);
	pdb_prof_free(p);
	pdb_prof_free(u);
	return 0;
}

static void dump_counts(const char *what, struct pdb_count *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("  %s %llx %llu\n", what, (unsigned long long)v[i].offset,
		       (unsigned long long)v[i].count);
	free(v);
}

static void dump_prof(const struct pdb_prof *p)
{
	struct pdb_count *c;
	struct pdb_lat *l;
	struct pdb_conflict *x;
	struct pdb_value *v;
	struct pdb_unknown *u;
	struct pdb_period pr;
	size_t n, i, j;

	for (unsigned int e = 0; e < PDB_EV_MAX; e++) {
		pdb_prof_period(p, e, &pr);
		if (pr.samples)
			printf("  period %u %llu %llu\n", e, (unsigned long long)pr.samples,
			       (unsigned long long)pr.events2);
		if (!pdb_prof_samples(p, e, &c, &n))
			dump_counts(pdb_event_name(e), c, n);
	}
	if (!pdb_prof_vcounts(p, &c, &n))
		dump_counts("vcount", c, n);
	if (!pdb_prof_latencies(p, &l, &n)) {
		for (i = 0; i < n; i++) {
			const uint64_t *w = (const uint64_t *)&l[i].lat;

			printf("  lat %llx", (unsigned long long)l[i].offset);
			for (j = 0; j < sizeof(l[i].lat) / 8; j++)
				printf(" %llu", (unsigned long long)w[j]);
			printf("\n");
		}
		free(l);
	}
	if (!pdb_prof_conflicts(p, &x, &n)) {
		for (i = 0; i < n; i++)
			printf("  cnf %llx %s %llx %u %llu %u\n",
			       (unsigned long long)x[i].load_offset, x[i].prior_key,
			       (unsigned long long)x[i].prior_offset, x[i].kind,
			       (unsigned long long)x[i].count, x[i].dist_min);
		free(x);
	}
	if (!pdb_prof_values(p, &v, &n)) {
		for (i = 0; i < n; i++) {
			printf("  val %llx %u n=%llu", (unsigned long long)v[i].offset, v[i].dest,
			       (unsigned long long)v[i].h.n);
			for (j = 0; j < v[i].h.used; j++)
				printf(" %llx:%llu", (unsigned long long)v[i].h.value[j],
				       (unsigned long long)v[i].h.count[j]);
			printf("\n");
		}
		free(v);
	}
	if (!pdb_prof_unknowns(p, &u, &n)) {
		for (i = 0; i < n; i++)
			printf("  unk %u %llx %u %llu\n", u[i].pid, (unsigned long long)u[i].pc,
			       u[i].event, (unsigned long long)u[i].count);
		free(u);
	}
}

static int dump_fail(struct pdb_db *db, int ret)
{
	fprintf(stderr, "pdb_stress dump: %s\n", pdb_errmsg(db));
	pdb_close(db);
	return ret ? 1 : 0;
}

static int cmd_dump(const char *dir)
{
	struct pdb_image *list;
	struct pdb_origin *o;
	struct ax_error err;
	struct pdb_prof *p;
	struct pdb_db *db;
	uint32_t *ep, cur;
	size_t ne, n, no, i, j;
	int ret;

	ret = pdb_open(dir, false, &db, &err);
	if (ret) {
		fprintf(stderr, "pdb_stress dump: %s\n", err.msg);
		return 1;
	}
	ret = pdb_epoch_current(db, &cur);
	if (!ret)
		ret = pdb_epoch_list(db, &ep, &ne);
	if (ret)
		return dump_fail(db, ret);
	printf("current %u\n", cur);
	for (i = 0; i < ne; i++) {
		ret = pdb_image_list(db, ep[i], &list, &n);
		if (!ret)
			ret = pdb_origins(db, ep[i], &o, &no);
		if (ret)
			return dump_fail(db, ret);
		if (ep[i] > cur && !n && !no) {
			free(o);
			continue; /* an empty epoch a killed `axprof epoch` left: reused next */
		}
		printf("epoch %u\n", ep[i]);
		for (j = 0; j < no; j++)
			printf(" merged %016llx %u\n", (unsigned long long)o[j].id, o[j].epoch);
		free(o);
		for (j = 0; j <= n; j++) {
			const char *key = j < n ? list[j].key : PDB_KEY_UNKNOWN;

			if (j < n && (list[j].flags & PDB_IMG_INDEXED))
				printf(" index %s %s %u %llu %lld %llu\n", key, list[j].path,
				       list[j].build_id_len, (unsigned long long)list[j].size,
				       (long long)list[j].mtime_ns,
				       (unsigned long long)list[j].text_size);
			ret = pdb_load(db, ep[i], key, &p);
			if (ret == -ENOENT)
				continue;
			if (ret)
				return dump_fail(db, ret);
			if (!pdb_prof_is_empty(p)) {
				printf(" image %s\n", key);
				dump_prof(p);
			}
			pdb_prof_free(p);
		}
		pdb_image_list_free(list, n);
	}
	free(ep);
	pdb_close(db);
	return fflush(stdout) ? 1 : 0;
}

/* --- corpus --- */

static void put_file(const char *dir, const char *name, const uint8_t *head, size_t hlen,
		     const void *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(head, 1, hlen, f) != hlen || fwrite(buf, 1, len, f) != len || fclose(f))
		die(path, -EIO, NULL);
}

/* A pmpaths.prof seed: two instructions' history and partner lists (pdb.h PDB_FT_PMPATHS). */
static int corpus_pmpaths(const char *dir)
{
	struct pdb_partner pt = { .offset = 0x120, .dist = 7 };
	struct pdb_prof *p = pdb_prof_new();
	uint8_t head = 0, *f;
	size_t len;
	int ret, i;

	if (!p)
		die("out of memory", -ENOMEM, NULL);
	for (i = 0; i < 40; i++) {
		ret = pdb_prof_pmp_sample(p, 0x100, (uint32_t)(i % 5) * 0x111, i % 2,
					  i % 4 == 1 ? &pt : NULL);
		if (!ret)
			ret = pdb_prof_pmp_sample(p, 0x1f0, 0xfff, false, NULL);
		if (ret)
			die("pmpaths", ret, NULL);
	}
	ret = pdb_encode(p, PDB_FT_PMPATHS, 0, (void **)&f, &len);
	if (ret)
		die("encode", ret, NULL);
	put_file(dir, "file-pmpaths", &head, 1, f, len);
	free(f);
	pdb_prof_free(p);
	return 0;
}

/* A stacks.prof seed: two events' stacks across two images and a raw pc (PDB_FT_STACKS). */
static int corpus_stacks(const char *dir)
{
	const struct pdb_frame f[3] = { { "b-01", 0x120 }, { "b-01", 0x300 }, { "", 0x20001000 } };
	struct pdb_prof *p = pdb_prof_new();
	uint8_t head = 0, *buf;
	size_t len;
	int ret;

	if (!p)
		die("out of memory", -ENOMEM, NULL);
	ret = pdb_prof_add_stack(p, PDB_EV_CYCLES, 0, f, 3, 5);
	if (!ret)
		ret = pdb_prof_add_stack(p, PDB_EV_CYCLES, PDB_STK_TRUNCATED, f, 2, 2);
	if (!ret)
		ret = pdb_prof_add_stack(p, PDB_EV_DMISS, 0, f, 1, 1);
	if (!ret)
		ret = pdb_prof_add_stack(p, PDB_EV_DMISS, 0, NULL, 0, 3);
	if (!ret)
		ret = pdb_encode(p, PDB_FT_STACKS, 0, (void **)&buf, &len);
	if (ret)
		die("stacks", ret, NULL);
	put_file(dir, "file-stacks", &head, 1, buf, len);
	free(buf);
	pdb_prof_free(p);
	return 0;
}

/*
 * threads.prof and a tasks.prof with thread ids (PDB_FT_THREADS, PDB_FL_TID): two processes,
 * one thread renamed by an execve.
 */
static int corpus_threads(const char *dir)
{
	struct pdb_prof *p = pdb_prof_new();
	uint8_t head = 0, *buf;
	size_t len;
	int ret;

	if (!p)
		die("out of memory", -ENOMEM, NULL);
	ret = pdb_prof_add_thread(p, 1000, 1000, "forkexec", 8);
	if (!ret)
		ret = pdb_prof_add_thread(p, 1000, 4194305, "worker", 6);
	if (!ret)
		ret = pdb_prof_add_thread(p, 1001, 1001, "forkexec", 8);
	if (!ret)
		ret = pdb_prof_add_thread(p, 1001, 1001, "execworker", 10);
	if (!ret)
		ret = pdb_encode(p, PDB_FT_THREADS, 0, (void **)&buf, &len);
	if (ret)
		die("threads", ret, NULL);
	put_file(dir, "file-threads", &head, 1, buf, len);
	free(buf);
	ret = pdb_prof_add_task_tid(p, 1000, 4194305, 0x120, PDB_EV_CYCLES, 3);
	if (!ret)
		ret = pdb_prof_add_task_tid(p, 1000, 1000, 0x124, PDB_EV_CYCLES, 2);
	if (!ret)
		ret = pdb_prof_add_task(p, 1001, 0x40, PDB_EV_DMISS, 1);
	if (!ret)
		ret = pdb_encode(p, PDB_FT_TASKS, 0, (void **)&buf, &len);
	if (ret)
		die("tasks", ret, NULL);
	put_file(dir, "file-tasks-tid", &head, 1, buf, len);
	free(buf);
	pdb_prof_free(p);
	return 0;
}

/*
 * Seeds for tests/pdb/fuzz_pdb_read.c: every file type as a whole file (mode byte 0 or 64)
 * and as a bare payload (mode byte >= 128 naming type and flags, then the record count).
 */
static int cmd_corpus(const char *dir)
{
	struct pdb_prof *p = increment(0), *u = increment(2);
	struct pdb_image im[2];
	static const unsigned int types[] = { PDB_FT_SAMPLES, PDB_FT_VALUES, PDB_FT_LATENCY,
					      PDB_FT_CONFLICTS, PDB_FT_VCOUNT };
	char name[64];
	unsigned int i;

	memset(im, 0, sizeof(im));
	strcpy(im[0].key, "b-01");
	im[0].path = "/bin/a";
	im[0].build_id_len = 4;
	strcpy(im[1].key, "h-0123456789abcdef");
	im[1].path = "/lib/b.so";
	for (i = 0; i < 7; i++) {
		uint8_t head[3], *f, *payload;
		uLongf plen;
		unsigned int type, b;
		uint32_t flags;
		size_t len;
		int ret = i < 5	 ? pdb_encode(p, types[i], PDB_EV_CYCLES, (void **)&f, &len) :
			  i == 5 ? pdb_encode(u, PDB_FT_UNKNOWN, 0, (void **)&f, &len) :
				   pdb_encode_index(im, 2, (void **)&f, &len);

		if (ret)
			die("encode", ret, NULL);
		head[0] = i == 6 ? 64 : 0;
		snprintf(name, sizeof(name), "file-%u", i);
		put_file(dir, name, head, 1, f, len);

		type = f[6];
		flags = f[8];
		plen = (uLongf)f[24] | (uLongf)f[25] << 8 | (uLongf)f[26] << 16;
		payload = malloc(plen);
		if (!payload)
			die("out of memory", -ENOMEM, NULL);
		if (flags & PDB_FL_ZLIB) {
			if (uncompress(payload, &plen, f + 48, (uLong)(len - 48)) != Z_OK)
				die("uncompress", -EINVAL, NULL);
		} else {
			memcpy(payload, f + 48, plen);
		}
		for (b = 128; b < 256; b++)
			if (b % 7 == type - 1 && !!(b & 8) == !!(flags & PDB_FL_ALIGN4) && (b & 16))
				break;
		head[0] = (uint8_t)b;
		head[1] = f[16];
		head[2] = f[17];
		snprintf(name, sizeof(name), "payload-%u", i);
		put_file(dir, name, head, 3, payload, plen);
		free(payload);
		free(f);
	}
	pdb_prof_free(p);
	pdb_prof_free(u);
	return corpus_pmpaths(dir) || corpus_stacks(dir) || corpus_threads(dir);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "check"))
		return cmd_check(argv[2], argv[3], atoll(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "open")) {
		struct ax_error err;
		struct pdb_db *db;

		if (pdb_open(argv[2], true, &db, &err)) {
			fprintf(stderr, "pdb_stress: %s\n", err.msg);
			return 1;
		}
		pdb_close(db);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "corpus"))
		return cmd_corpus(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return cmd_dump(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "fill"))
		return cmd_fill(argv[2], (unsigned int)atoi(argv[3]), (unsigned int)atoi(argv[4]),
				(unsigned int)atoi(argv[5]));
	fprintf(stderr, "usage: pdb_stress write DIR | check DIR STATE ACKED | open DIR | corpus "
			"DIR | fill DIR SEED IMAGES OFFSETS | dump DIR\n");
	return 2;
}
