/* bench/bench_daemon.c - the daemon library's merge throughput (samples/s) and flush cost. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dmn_lib.h"
#include "hotlist.h"
#include "vs_abi.h"

/*
 * Usage: bench_daemon [--records FILE --maps FILE] [--seconds S | --passes N] DBDIR
 * Feeds a record stream to dmn_feed() over and over for S seconds (default 1), or exactly N times
 * (a fixed amount of work, for callgrind: host instructions per merged sample), and prints records
 * and samples merged per second, samples per CPU-second of this process (what a shared machine
 * disturbs least), then the time dmn_flush() takes to store the result. The stream is FILE
 * (`axprof record --save-records`, with its image-map events), or else a synthetic one: SAMPLE
 * records (aggregated counts 1..40, DCPI's hash reduction) at 20,000 distinct pcs of this
 * program's own text, and a hotlist record for every 50th pc. Prints figures only.
 */

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* This process's CPU time: the figure a shared machine disturbs least (bench_daemon.sh). */
static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		b = malloc((size_t)n);
		if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return b;
}

#define SYNTH_BASE 0x10000000ull

/* A synthetic stream for pid 1, pcs at text + 4 * (0 .. 19999). */
static uint8_t *synth(size_t *len, uint64_t text)
{
	size_t cap = 4u << 20, n = 0;
	uint8_t *b = malloc(cap);
	struct hotlist_rng r;
	struct hotlist h;

	if (!b)
		return NULL;
	hotlist_rng_seed(&r, 42);
	for (unsigned int i = 0; n + VS_REC_HOTLIST_MAX < cap; i++) {
		uint64_t pc = text + 4 * hotlist_rng_below(&r, 20000);
		struct vs_rec_sample s = { { VS_REC_SAMPLE, sizeof(s) },
					   1,
					   pc,
					   1 + (uint32_t)hotlist_rng_below(&r, 40),
					   VS_EV_CYCLES,
					   VS_SF_USER,
					   0 };

		memcpy(b + n, &s, sizeof(s));
		n += sizeof(s);
		if (i % 50 == 0) {
			struct vs_rec_hotlist hr = { { VS_REC_HOTLIST, 0 }, 1, pc, 0, 1, { 0 } };
			int k;

			hotlist_init(&h, 8);
			for (int j = 0; j < 200; j++)
				hotlist_insert(&h,
					       hotlist_rng_below(&r, 4) ? 7 :
									  hotlist_rng_below(&r, 99),
					       &r);
			memset(b + n, 0, VS_REC_HOTLIST_MAX);
			k = hotlist_pack(&h, b + n + sizeof(hr), VS_REC_HOTLIST_MAX - sizeof(hr));
			if (k < 0)
				break;
			hr.packed_len = (uint32_t)k;
			hr.h.len = (uint16_t)VS_REC_HOTLIST_SIZE((size_t)k);
			memcpy(b + n, &hr, sizeof(hr));
			n += hr.h.len;
		}
		if (n > cap / 16)
			break;
	}
	*len = n;
	return b;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "records", required_argument, NULL, 'r' },
		{ "maps", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{ "passes", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *records = NULL, *maps = NULL;
	double seconds = 1, t0, t, tf, c0, cpu_s;
	struct dmn_opts o = { 0 };
	struct ax_error perr;
	struct dmn_stats st;
	struct dmn *d;
	uint8_t *buf;
	size_t len = 0;
	uint64_t passes = 0, npasses = 0;
	char exe[4096];
	ssize_t n;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			records = optarg;
			break;
		case 'm':
			maps = optarg;
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'p':
			npasses = strtoull(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr,
				"usage: bench_daemon [--records F --maps F] [--seconds S | --passes N] DB\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr,
			"usage: bench_daemon [--records F --maps F] [--seconds S | --passes N] DB\n");
		return 2;
	}
	o.db_dir = argv[optind];
	if (dmn_new(&d, &o, &perr)) {
		fprintf(stderr, "bench_daemon: %s\n", perr.msg);
		return 1;
	}
	if (records) {
		buf = slurp(records, &len);
		if (!buf || (maps && dmn_load_events(d, maps))) {
			fprintf(stderr, "bench_daemon: cannot read %s / %s\n", records,
				maps ? maps : "-");
			return 1;
		}
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return 1;
		exe[n] = 0;
		/* This program's first megabyte mapped at SYNTH_BASE: every synthetic pc is in it. */
		if (dmn_mmap(d, 1, SYNTH_BASE, 1u << 20, 0, exe)) {
			fprintf(stderr, "bench_daemon: %s\n", dmn_errmsg(d));
			return 1;
		}
		buf = synth(&len, SYNTH_BASE);
	}
	if (!buf || !len)
		return 1;
	t0 = now();
	c0 = cpu_now();
	do {
		dmn_feed(d, buf, len, true);
		passes++;
		t = now();
	} while (npasses ? passes < npasses : t - t0 < seconds);
	cpu_s = cpu_now() - c0;
	dmn_get_stats(d, &st);
	tf = now();
	if (dmn_flush(d)) {
		fprintf(stderr, "bench_daemon: %s\n", dmn_errmsg(d));
		return 1;
	}
	tf = now() - tf;
	printf("daemon merge: %s stream of %zu bytes x %" PRIu64 " in %.2f s: %.0f records/s, "
	       "%.3g samples/s (%.1f MB/s); %" PRIu64 " samples, %" PRIu64 " unknown, %" PRIu64
	       " damaged\n",
	       records ? "recorded" : "synthetic", len, passes, t - t0,
	       (double)(st.records[VS_REC_SAMPLE] + st.records[VS_REC_HOTLIST] +
			st.records[VS_REC_LATENCY] + st.records[VS_REC_CONFLICT] +
			st.records[VS_REC_VCOUNT]) /
		       (t - t0),
	       (double)st.samples / (t - t0), (double)st.bytes / (t - t0) / 1e6, st.samples,
	       st.samples_unknown, st.damaged);
	dmn_get_stats(d, &st);
	printf("daemon merge CPU time: %.2f s: %.3g samples/CPU-s\n", cpu_s,
	       cpu_s > 0 ? (double)st.samples / cpu_s : 0.0);
	printf("daemon flush: %" PRIu64 " profiles stored in %.3f s\n", st.images_flushed, tf);
	free(buf);
	dmn_free(d);
	return 0;
}
