/* bench/bench_pdb.c - profile database figures: merge throughput and file size per offset. */
#define _GNU_SOURCE /* nftw */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pdb.h"

/*
 * A realistic daemon load (DCPI §4.3): an image whose profile has 10^5 distinct offsets out of a
 * text of TEXT_INSNS instructions, sample counts skewed (a few hot loops, a long tail), and
 * flushes of FLUSH_SAMPLES samples each (CYCLES 70%, IMISS 15%, DMISS 15%) merged with
 * pdb_merge_store() into a database on disk (fsync included). Prints:
 *   - samples/s through pdb_merge_store (first flush: empty file; steady state: merging into
 *     files that already hold every offset), and the same for in-memory aggregation;
 *   - bytes per distinct offset of each event file, and the whole profile against the text.
 * Usage: bench_pdb [DIR [FLUSHES]]   (DIR defaults to a new directory under $TMPDIR or /tmp)
 */

#define DISTINCT 100000u
#define TEXT_INSNS 500000u /* a 2 MB text: 1 in 5 instructions ever sampled */
#define FLUSH_SAMPLES 1000000u

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t *offsets; /* the DISTINCT sampled offsets */
static uint32_t text_insns; /* the text they lie in, about TEXT_INSNS */
static uint32_t *cum; /* cumulative weights for drawing an offset */

static void make_image(struct hotlist_rng *r)
{
	uint64_t total = 0;
	uint32_t i, k = 0;

	offsets = malloc(DISTINCT * sizeof(*offsets));
	cum = malloc(DISTINCT * sizeof(*cum));
	if (!offsets || !cum)
		exit(1);
	/* Executed code comes in basic blocks: one block in five ever runs, all of it. */
	for (i = 0; k < DISTINCT;) {
		uint32_t len = 1 + (uint32_t)hotlist_rng_below(r, 12), j;
		bool runs = hotlist_rng_below(r, TEXT_INSNS) < DISTINCT;

		for (j = 0; runs && j < len && k < DISTINCT; j++)
			offsets[k++] = 4ull * (i + j);
		i += len;
	}
	text_insns = i;
	/* Weights: Zipf-like over a random ranking, so hot spots are scattered. */
	for (i = 0; i < DISTINCT; i++) {
		uint32_t rank = 1 + (uint32_t)hotlist_rng_below(r, DISTINCT);

		total += 1 + 4000000u / rank;
		cum[i] = (uint32_t)total;
	}
}

static uint64_t draw(struct hotlist_rng *r)
{
	uint32_t x = (uint32_t)hotlist_rng_below(r, cum[DISTINCT - 1]);
	uint32_t lo = 0, hi = DISTINCT - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (cum[mid] > x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return offsets[lo];
}

static void flush_profile(struct pdb_prof *p, struct hotlist_rng *r)
{
	uint32_t i;

	pdb_prof_clear(p);
	for (i = 0; i < FLUSH_SAMPLES; i++) {
		uint64_t e = hotlist_rng_below(r, 100);
		unsigned int ev = e < 70 ? PDB_EV_CYCLES : e < 85 ? PDB_EV_IMISS : PDB_EV_DMISS;

		pdb_prof_add_sample(p, ev, draw(r), 1);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

int main(int argc, char **argv)
{
	char tmpl[512], path[1024];
	const char *dir;
	struct pdb_db *db;
	struct ax_error err;
	struct pdb_prof *p, *whole;
	struct hotlist_rng r;
	unsigned int flushes = argc > 2 ? (unsigned int)atoi(argv[2]) : 12, f, ev;
	double t0, t_add = 0, t_first = 0, t_steady = 0, t_load;
	uint64_t total_bytes = 0;
	bool own = argc < 2;

	if (own) {
		const char *base = getenv("TMPDIR");

		snprintf(tmpl, sizeof(tmpl), "%s/benchpdb.XXXXXX", base && *base ? base : "/tmp");
		dir = mkdtemp(tmpl);
		if (!dir)
			return 1;
	} else {
		dir = argv[1];
	}
	if (flushes < 2)
		flushes = 2;
	if (pdb_open(dir, true, &db, &err)) {
		fprintf(stderr, "bench_pdb: %s\n", err.msg);
		return 1;
	}
	hotlist_rng_seed(&r, 1997);
	make_image(&r);
	p = pdb_prof_new();
	whole = pdb_prof_new();
	for (f = 0; f < flushes; f++) {
		double t;

		t0 = now();
		flush_profile(p, &r);
		t_add += now() - t0;
		pdb_prof_merge(whole, p);
		t = now();
		if (pdb_merge_store(db, 1, "b-bench", p)) {
			fprintf(stderr, "bench_pdb: %s\n", pdb_errmsg(db));
			return 1;
		}
		t = now() - t;
		if (f == 0)
			t_first = t;
		else
			t_steady += t;
	}
	t0 = now();
	{
		struct pdb_prof *q;

		if (pdb_load(db, 1, "b-bench", &q)) {
			fprintf(stderr, "bench_pdb: %s\n", pdb_errmsg(db));
			return 1;
		}
		pdb_prof_free(q);
	}
	t_load = now() - t0;

	printf("bench_pdb: %u flushes of %u samples, %u distinct offsets in a %u KB text\n",
	       flushes, FLUSH_SAMPLES, DISTINCT, text_insns * 4 / 1024);
	printf("  in-memory aggregation (pdb_prof_add_sample)   %8.2f M samples/s\n",
	       flushes * (double)FLUSH_SAMPLES / t_add / 1e6);
	printf("  pdb_merge_store, first flush (new files)      %8.2f M samples/s  (%.1f ms)\n",
	       FLUSH_SAMPLES / t_first / 1e6, t_first * 1e3);
	printf("  pdb_merge_store, steady state (load+merge+store, fsync)  %8.2f M samples/s  "
	       "(%.1f ms a flush)\n",
	       (flushes - 1) * (double)FLUSH_SAMPLES / t_steady / 1e6,
	       t_steady * 1e3 / (flushes - 1));
	printf("  pdb_load of the whole profile                 %8.1f ms\n", t_load * 1e3);
	for (ev = 0; ev < PDB_EV_MAX; ev++) {
		size_t n = pdb_prof_distinct(whole, ev);
		uint64_t size;

		if (!n)
			continue;
		snprintf(path, sizeof(path), "%s/epoch-1/b-bench/%s.prof", dir, pdb_event_name(ev));
		size = file_size(path);
		total_bytes += size;
		printf("  %-8s %6zu offsets, %9llu samples: %8llu bytes, %.2f bytes/offset "
		       "(raw pairs: 16)\n",
		       pdb_event_name(ev), n, (unsigned long long)pdb_prof_total(whole, ev),
		       (unsigned long long)size, (double)size / (double)n);
	}
	printf("  profile %llu bytes for a %u-byte text: %.1fx smaller (DCPI: ~10x)\n",
	       (unsigned long long)total_bytes, text_insns * 4,
	       (double)text_insns * 4 / (double)total_bytes);
	pdb_prof_free(p);
	pdb_prof_free(whole);
	pdb_close(db);
	if (own)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(offsets);
	free(cum);
	return 0;
}
