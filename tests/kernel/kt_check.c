/* tests/kernel/kt_check.c - host side of the kernel test: records, samples per workload, overhead. */
/*
 * Usage: kt_check RESULTS_DIR TEXT_RANGES
 *   RESULTS_DIR  what the guest's /init wrote (tests/kernel/init.c): runs.txt and
 *                records-{cycles,vprof,vreplay}.bin
 *   TEXT_RANGES  lines "<workload> <start> <end>": the .text of each workload binary (hex)
 *
 * Checks, each printed as "CHECK <name> ok|FAIL: why":
 *  - every record of every records-<mode>.bin passes vs_abi_check_record() and the file is a
 *    whole number of records;
 *  - in every mode, each compute workload (all but syscalls and exitcode, which are mostly
 *    ld.so and glibc start-up) has user samples whose pid is one of its runs and whose pc lies
 *    in its .text;
 *  - vprof: hotlist records exist; vreplay: conflict records exist;
 *  - callargs' planted arguments, return values and callers in records-procs.bin (kt_procs.c).
 * Then prints, per mode and workload, the run time with sampling on against sampling off (the
 * minimum of the repetitions of each, run interleaved) next to the published slowdowns, and the
 * interrupt rate actually reached. Exit 0 when every check passed, 1 otherwise, 2 on usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_procs.h"
#include "vs_abi.h"

#define MAX_WL 16
#define MAX_PIDS 16
#define NMODES 3

static const char *const modes[NMODES] = { "cycles", "vprof", "vreplay" };
static const double published[NMODES] = { 3.9, 10.7, 5.9 }; /* SPEC CPU2000 int, slide 21 */

struct wl {
	char name[32];
	uint64_t start, end; /* .text */
	int npids[NMODES];
	uint32_t pids[NMODES][MAX_PIDS];
	int64_t off_min[NMODES], on_min[NMODES];
	uint64_t text_samples[NMODES], samples[NMODES], hot[NMODES], cnf[NMODES];
};

static struct wl wls[MAX_WL];
static int nwl, nfail;
static uint64_t ticks[NMODES];
static int64_t sampled_ns[NMODES];

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("CHECK %s ok\n", name);
		return;
	}
	nfail++;
	printf("CHECK %s FAIL: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static struct wl *find_wl(const char *name, int create)
{
	int i;

	for (i = 0; i < nwl; i++)
		if (!strcmp(wls[i].name, name))
			return &wls[i];
	if (!create || nwl == MAX_WL)
		return NULL;
	snprintf(wls[nwl].name, sizeof(wls[nwl].name), "%.31s", name);
	for (i = 0; i < NMODES; i++)
		wls[nwl].off_min[i] = wls[nwl].on_min[i] = INT64_MAX;
	return &wls[nwl++];
}

static int mode_index(const char *m, int *off)
{
	size_t n;
	int i;

	*off = 0;
	for (i = 0; i < NMODES; i++) {
		n = strlen(modes[i]);
		if (!strncmp(m, modes[i], n) && (!m[n] || !strcmp(m + n, "-off"))) {
			*off = m[n] != 0;
			return i;
		}
	}
	return -1;
}

static int read_ranges(const char *path)
{
	char name[64];
	unsigned long long a, b;
	FILE *f = fopen(path, "r");
	struct wl *w;

	if (!f) {
		fprintf(stderr, "kt_check: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fscanf(f, "%63s %llx %llx", name, &a, &b) == 3) {
		w = find_wl(name, 1);
		if (w) {
			w->start = a;
			w->end = b;
		}
	}
	fclose(f);
	return 0;
}

static int read_runs(const char *dir)
{
	char path[512], line[256], m[32], name[64];
	long long ns, n;
	int rep, pid, st, mi, off;
	struct wl *w;
	FILE *f;

	snprintf(path, sizeof(path), "%s/runs.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kt_check: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "rate %31s ticks %lld sampled_ns %lld", m, &n, &ns) == 3) {
			mi = mode_index(m, &off);
			if (mi >= 0) {
				ticks[mi] = (uint64_t)n;
				sampled_ns[mi] = ns;
			}
			continue;
		}
		if (sscanf(line, "%31s %63s %d %d %d %lld", m, name, &rep, &pid, &st, &ns) != 6)
			continue;
		mi = mode_index(m, &off);
		w = find_wl(name, 0);
		if (mi < 0 || !w)
			continue;
		if (off) {
			if (ns < w->off_min[mi])
				w->off_min[mi] = ns;
			continue;
		}
		if (ns < w->on_min[mi])
			w->on_min[mi] = ns;
		if (w->npids[mi] < MAX_PIDS)
			w->pids[mi][w->npids[mi]++] = (uint32_t)pid;
	}
	fclose(f);
	return 0;
}

static struct wl *owner(int mi, uint32_t pid, uint64_t pc, int *in_text)
{
	int i, j;

	for (i = 0; i < nwl; i++) {
		for (j = 0; j < wls[i].npids[mi]; j++) {
			if (wls[i].pids[mi][j] == pid) {
				*in_text = pc >= wls[i].start && pc < wls[i].end;
				return &wls[i];
			}
		}
	}
	return NULL;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	size_t cap = 0, n = 0, r;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (n == cap) {
			unsigned char *q = realloc(p, cap = cap ? 2 * cap : 1 << 20);

			if (!q) {
				free(p);
				fclose(f);
				return NULL;
			}
			p = q;
		}
		r = fread(p + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return p;
}

static void scan_records(const char *dir, int mi)
{
	uint64_t types[VS_REC_SLOTS] = { 0 }, drops = 0, interp = 0, user = 0, kernel = 0;
	char path[512], name[64];
	const char *why = "";
	size_t len, off = 0;
	unsigned char *p;
	struct wl *w;
	int r = 0, in_text;

	snprintf(path, sizeof(path), "%s/records-%s.bin", dir, modes[mi]);
	p = slurp(path, &len);
	snprintf(name, sizeof(name), "records.%s.valid", modes[mi]);
	if (!p || !len) {
		check(0, name, "%s is missing or empty", path);
		free(p);
		return;
	}
	while (off < len) {
		struct vs_rec_hdr h;

		r = vs_abi_check_record(p + off, len - off, &why);
		if (r <= 0)
			break;
		memcpy(&h, p + off, sizeof(h));
		types[h.type < VS_REC_SLOTS ? h.type : 0]++;
		if (h.type == VS_REC_SAMPLE) {
			struct vs_rec_sample s;

			memcpy(&s, p + off, sizeof(s));
			if (s.flags & VS_SF_USER)
				user += s.count;
			else
				kernel += s.count;
			w = owner(mi, s.pid, s.pc, &in_text);
			if (w && (s.flags & VS_SF_USER)) {
				w->samples[mi] += s.count;
				if (in_text)
					w->text_samples[mi] += s.count;
			}
		} else if (h.type == VS_REC_HOTLIST || h.type == VS_REC_CONFLICT) {
			uint32_t pid;
			uint64_t pc;

			memcpy(&pid, p + off + 4, 4);
			memcpy(&pc, p + off + 8, 8);
			w = owner(mi, pid, pc, &in_text);
			if (w && h.type == VS_REC_HOTLIST)
				w->hot[mi]++;
			else if (w)
				w->cnf[mi]++;
		} else if (h.type == VS_REC_STATS) {
			struct vs_rec_stats st;
			int d;

			memcpy(&st, p + off, sizeof(st));
			for (d = 0; d < VS_DROP_NR; d++)
				drops += st.st.drops[d];
			interp += st.st.interp_started;
		}
		off += (size_t)r;
	}
	check(off == len, name, "%s: record at offset %zu: %s", path, off, why);
	printf("records %-8s %zu bytes: %" PRIu64 " sample (%" PRIu64 " user, %" PRIu64
	       " kernel samples), %" PRIu64 " hotlist, %" PRIu64 " latency, %" PRIu64
	       " conflict, %" PRIu64 " vcount, %" PRIu64 " stats; %" PRIu64
	       " interpretations, %" PRIu64 " drops\n",
	       modes[mi], len, types[VS_REC_SAMPLE], user, kernel, types[VS_REC_HOTLIST],
	       types[VS_REC_LATENCY], types[VS_REC_CONFLICT], types[VS_REC_VCOUNT],
	       types[VS_REC_STATS], interp, drops);
	if (mi == 1) {
		check(types[VS_REC_HOTLIST] > 0, "records.vprof.hotlists", "no hotlist record");
	} else if (mi == 2) {
		check(types[VS_REC_CONFLICT] > 0, "records.vreplay.conflicts",
		      "no conflict record");
	}
	free(p);
}

static int is_compute(const struct wl *w)
{
	return strcmp(w->name, "syscalls") && strcmp(w->name, "exitcode");
}

int main(int argc, char **argv)
{
	double sum[NMODES] = { 0 };
	int nsum[NMODES] = { 0 };
	char name[96];
	int i, mi;

	if (argc != 3) {
		fprintf(stderr, "usage: kt_check RESULTS_DIR TEXT_RANGES\n");
		return 2;
	}
	if (read_ranges(argv[2]) || read_runs(argv[1]))
		return 1;
	for (mi = 0; mi < NMODES; mi++)
		scan_records(argv[1], mi);
	for (i = 0; i < nwl; i++) {
		struct wl *w = &wls[i];

		if (!w->npids[0])
			continue;
		printf("workload %-12s text %#" PRIx64 "-%#" PRIx64, w->name, w->start, w->end);
		for (mi = 0; mi < NMODES; mi++)
			printf("  %s: %" PRIu64 "/%" PRIu64 " samples in text, %" PRIu64
			       " hotlists, %" PRIu64 " conflicts",
			       modes[mi], w->text_samples[mi], w->samples[mi], w->hot[mi],
			       w->cnf[mi]);
		putchar('\n');
		if (!is_compute(w))
			continue;
		for (mi = 0; mi < NMODES; mi++) {
			snprintf(name, sizeof(name), "samples.%.16s.%.32s", modes[mi], w->name);
			check(w->text_samples[mi] > 0, name,
			      "no user sample in its .text (%" PRIu64 " user samples of its pids)",
			      w->samples[mi]);
		}
	}

	printf("\nOverhead: run time with sampling on against off (min of the repetitions, ms)\n");
	printf("%-12s", "workload");
	for (mi = 0; mi < NMODES; mi++)
		printf(" %21s", modes[mi]);
	putchar('\n');
	for (i = 0; i < nwl; i++) {
		struct wl *w = &wls[i];

		if (!w->npids[0])
			continue;
		printf("%-12s", w->name);
		for (mi = 0; mi < NMODES; mi++) {
			double off = (double)w->off_min[mi], on = (double)w->on_min[mi];

			if (w->off_min[mi] == INT64_MAX || w->on_min[mi] == INT64_MAX || off <= 0) {
				printf(" %21s", "-");
				continue;
			}
			printf(" %6.1f/%6.1f %+6.1f%%", off / 1e6, on / 1e6,
			       100.0 * (on / off - 1));
			if (is_compute(w)) {
				sum[mi] += 100.0 * (on / off - 1);
				nsum[mi]++;
			}
		}
		putchar('\n');
	}
	printf("%-12s", "mean");
	for (mi = 0; mi < NMODES; mi++)
		printf(" %13s%+6.1f%%", "", nsum[mi] ? sum[mi] / nsum[mi] : 0.0);
	printf("\n%-12s", "published");
	for (mi = 0; mi < NMODES; mi++)
		printf(" %13s%+6.1f%%", "", published[mi]);
	printf("\n%-12s", "rate (/s)");
	for (mi = 0; mi < NMODES; mi++)
		printf(" %21.0f",
		       sampled_ns[mi] > 0 ? 1e9 * (double)ticks[mi] / (double)sampled_ns[mi] : 0.0);
	printf("\n(mean over the compute workloads; published: value-sampling slides, SPEC CPU2000 "
	       "integer on Alpha hardware; here: qemu-system-alpha software emulation, hrtimer "
	       "source)\n");
	nfail += kt_check_procs(argv[1]);
	printf("kt_check: %d checks failed\n", nfail);
	return nfail ? 1 : 0;
}
