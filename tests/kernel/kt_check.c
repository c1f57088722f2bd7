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
 *    in its .text, and VS_REC_TASK records (ABI 5) name its pids with its name as comm;
 *  - vprof: hotlist records exist; vreplay: conflict records exist;
 *  - SMP (issue 17): runs.txt's "cpus" lines show, for each multi-threaded workload (falseshare,
 *    prodcons) in every mode, user samples on every online CPU, and in vprof interpretations
 *    of falseshare on every CPU;
 *  - callargs' planted arguments, return values and callers in records-procs.bin (kt_procs.c).
 * Then prints, per mode and workload, the run time with sampling on against sampling off (the
 * minimum of the repetitions of each, run interleaved) beside the floor's (the same interrupts
 * doing nothing, AXPROF_DRV_FLOOR) and the published slowdowns, the interrupt rate actually
 * reached, and the driver's callback cycles per interrupt and per interpretation. Exit 0 when every check passed, 1 otherwise, 2 on usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_procs.h"
#include "vs_abi.h"

#define MAX_WL 24
#define MAX_PIDS 16
#define NMODES 4
#define KERNEL_PC 0xfffffc0000000000ull /* Alpha Linux's PAGE_OFFSET: kernel addresses above */
#define MAX_CPUS 8

/* kvals: vprof with --kernel-values (issue 21); the slides publish no kernel figure, so its
 * "published" and target columns are vprof's (the user-mode part it shares). */
static const char *const modes[NMODES] = { "cycles", "vprof", "vreplay", "kvals" };
static const double published[NMODES] = { 3.9, 10.7, 5.9, 10.7 }; /* SPEC CPU2000 int, slide 21 */

struct wl {
	char name[32];
	uint64_t start, end; /* .text */
	int npids[NMODES];
	uint32_t pids[NMODES][MAX_PIDS];
	int64_t off_min[NMODES], on_min[NMODES];
	int64_t floor_off_min, floor_on_min; /* the floor (AXPROF_DRV_FLOOR): interrupts only */
	uint64_t text_samples[NMODES], samples[NMODES], hot[NMODES], cnf[NMODES];
	/* VS_REC_TASK of its pids: comm its executable's, init's (the fork before the execve),
	 * anything else */
	uint64_t named[NMODES], preexec[NMODES], misnamed[NMODES];
	/* "cpus" lines: user samples and interpretations on each CPU during its sampled runs */
	uint64_t cpu_user[NMODES][MAX_CPUS], cpu_interp[NMODES][MAX_CPUS];
};

static struct wl wls[MAX_WL];
static int nwl, nfail, ncpus; /* ncpus: "cpus_online" of runs.txt */
static uint64_t ticks[NMODES];
static int64_t sampled_ns[NMODES];

/* "cost" lines of runs.txt: interrupts and RPCC cycles in the driver's callbacks, per mode. */
struct cost {
	int seen;
	unsigned long long ticks, tick_cycles, works, work_cycles;
};
static struct cost costs[NMODES], floor_cost;
static uint64_t floor_ticks;
static int64_t floor_ns;

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
	wls[nwl].floor_off_min = wls[nwl].floor_on_min = INT64_MAX;
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

static void read_cost(const char *line)
{
	struct cost c = { 1, 0, 0, 0, 0 };
	char m[32];
	int mi, off;

	if (sscanf(line, "cost %31s ticks %llu tick_cycles %llu works %llu work_cycles %llu", m,
		   &c.ticks, &c.tick_cycles, &c.works, &c.work_cycles) != 5)
		return;
	mi = mode_index(m, &off);
	if (mi >= 0 && !off)
		costs[mi] = c;
	else if (!strcmp(m, "floor"))
		floor_cost = c;
}

/* "cpus <mode> <workload> <rep> <user>/<interp> ...": one field per CPU. */
static void read_cpus(const char *line)
{
	unsigned long long u, n;
	char m[32], name[64];
	int mi, off, rep, pos, c;
	struct wl *w;

	if (sscanf(line, "cpus %31s %63s %d%n", m, name, &rep, &pos) != 3)
		return;
	mi = mode_index(m, &off);
	w = find_wl(name, 0);
	if (mi < 0 || off || !w)
		return;
	line += pos;
	for (c = 0; c < MAX_CPUS && sscanf(line, " %llu/%llu%n", &u, &n, &pos) == 2; c++) {
		w->cpu_user[mi][c] += u;
		w->cpu_interp[mi][c] += n;
		line += pos;
	}
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
			} else if (!strcmp(m, "floor")) {
				floor_ticks = (uint64_t)n;
				floor_ns = ns;
			}
			continue;
		}
		if (!strncmp(line, "cost ", 5)) {
			read_cost(line);
			continue;
		}
		if (sscanf(line, "cpus_online %d", &ncpus) == 1)
			continue;
		if (!strncmp(line, "cpus ", 5)) {
			read_cpus(line);
			continue;
		}
		if (sscanf(line, "%31s %63s %d %d %d %lld", m, name, &rep, &pid, &st, &ns) != 6)
			continue;
		mi = mode_index(m, &off);
		w = find_wl(name, 0);
		if (w && (!strcmp(m, "floor") || !strcmp(m, "floor-off"))) {
			int64_t *min = m[5] ? &w->floor_off_min : &w->floor_on_min;

			if (ns < *min)
				*min = ns;
			continue;
		}
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

/*
 * comm is a or b, or a byte-wise mix of the two: the driver reads comm without the task lock
 * (vs_drv_source.c), so a sample during execve's rename can see "fnit" between "init" and
 * "fpkernel" (the kernel test saw exactly that).
 */
static int torn_between(const char *comm, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;

	for (i = 0; i < VS_COMM_LEN; i++) {
		char ca = i < la ? a[i] : 0, cb = i < lb ? b[i] : 0;

		if (comm[i] != ca && comm[i] != cb)
			return 0;
	}
	return 1;
}

/* VS_REC_TASK's thread -> process map (samples carry the thread id since ABI 5). */
#define MAX_THREADS 4096
static uint32_t thr_tid[MAX_THREADS], thr_pid[MAX_THREADS];
static unsigned int nthr;

static void remember_thread(uint32_t tid, uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < nthr; i++)
		if (thr_tid[i] == tid) {
			thr_pid[i] = pid;
			return;
		}
	if (nthr < MAX_THREADS) {
		thr_tid[nthr] = tid;
		thr_pid[nthr++] = pid;
	}
}

static uint32_t process_of(uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < nthr; i++)
		if (thr_tid[i] == tid)
			return thr_pid[i];
	return tid;
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
	uint64_t khot = 0; /* hotlist records of kernel instructions */
	uint64_t cpu_samples[MAX_CPUS] = { 0 }; /* VS_REC_STATS: samples offered, per CPU */
	int cpu_stats[MAX_CPUS] = { 0 }, c, nbad;
	size_t pl;
	char path[512], name[64], per[MAX_CPUS * 32];
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
			w = owner(mi, process_of(s.pid), s.pc, &in_text);
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
			khot += h.type == VS_REC_HOTLIST && pc >= KERNEL_PC;
			w = owner(mi, pid, pc, &in_text);
			if (w && h.type == VS_REC_HOTLIST)
				w->hot[mi]++;
			else if (w)
				w->cnf[mi]++;
		} else if (h.type == VS_REC_TASK) {
			struct vs_rec_task t;

			/* ABI 5: comm is the executed file's basename, for the process and its
			 * threads (falseshare, prodcons): the workload's name, or its start up
			 * to a '-' (regcheck-sig runs /wl/regcheck); before its execve the
			 * forked child is still "init". Samples name the thread: remember its
			 * process. */
			size_t n;

			memcpy(&t, p + off, sizeof(t));
			remember_thread(t.tid, t.pid);
			w = owner(mi, t.pid, 0, &in_text);
			n = strnlen(t.comm, VS_COMM_LEN);
			if (!w)
				;
			else if (!strncmp(t.comm, w->name, n) && (!w->name[n] || w->name[n] == '-'))
				w->named[mi]++;
			else if (t.tid == t.pid && torn_between(t.comm, "init", w->name))
				w->preexec[mi]++; /* "init", or torn by the execve's rename */
			else
				w->misnamed[mi]++;
		} else if (h.type == VS_REC_STATS) {
			struct vs_rec_stats st;
			int d;

			memcpy(&st, p + off, sizeof(st));
			for (d = 0; d < VS_DROP_NR; d++)
				drops += st.st.drops[d];
			interp += st.st.interp_started;
			if (st.cpu < MAX_CPUS) {
				cpu_stats[st.cpu]++;
				cpu_samples[st.cpu] += st.st.samples;
			}
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
	/* Every online CPU sampled (issue 17, item 7): its STATS record (one per CPU at the end of
	 * the drained records) counts the samples it offered during the whole mode. */
	per[0] = 0;
	for (c = 0, nbad = 0, pl = 0; c < ncpus && c < MAX_CPUS; c++) {
		pl += (size_t)snprintf(per + pl, sizeof(per) - pl, " cpu%d %" PRIu64, c,
				       cpu_samples[c]);
		nbad += !cpu_stats[c] || !cpu_samples[c];
	}
	printf("records %-8s samples per CPU (STATS records):%s\n", modes[mi], per);
	snprintf(name, sizeof(name), "records.%s.every_cpu", modes[mi]);
	check(ncpus > 0 && !nbad, name, "%d of %d CPUs without a STATS record or a sample:%s", nbad,
	      ncpus, per);
	if (mi == 1 || mi == 3) {
		snprintf(name, sizeof(name), "records.%s.hotlists", modes[mi]);
		check(types[VS_REC_HOTLIST] > 0, name, "no hotlist record");
		printf("records %-8s %" PRIu64 " hotlists of kernel instructions\n", modes[mi],
		       khot);
		/* Without --kernel-values no kernel instruction is interpreted; with it some are. */
		snprintf(name, sizeof(name), "records.%s.kernel_hotlists", modes[mi]);
		check(mi == 3 ? khot > 0 : khot == 0, name, "%" PRIu64 " kernel hotlists", khot);
	} else if (mi == 2) {
		check(types[VS_REC_CONFLICT] > 0, "records.vreplay.conflicts",
		      "no conflict record");
	}
	free(p);
}

static int is_compute(const struct wl *w)
{
	return strcmp(w->name, "syscalls") && strcmp(w->name, "exitcode") &&
	       strcmp(w->name, "prodcons");
}

/* The multi-threaded workloads (issue 17): every CPU must sample and interpret them. They stay
 * out of the overhead means, which compare with the single-threaded figures of issue 18. */
static int is_threaded(const struct wl *w)
{
	return !strcmp(w->name, "falseshare") || !strcmp(w->name, "prodcons");
}

/*
 * Every CPU's samples present (issue 17, item 7): during the runs of each multi-threaded
 * workload, in every mode, each online CPU took user samples; in vprof each CPU interpreted
 * falseshare (the task work runs on whichever CPU the thread returns to user on). vreplay
 * interprets too rarely for that (falseshare: 1 interpretation in 2 runs on one CPU) and
 * prodcons mostly waits: their interpretations per CPU are printed, not asked. The interpretations
 * are asked only of a multi-CPU boot, where init.c runs vprof at the slides' 1 sample in 2: on the
 * one-CPU boot vprof's default (1 in 32, issue 18) gave falseshare 13 interpretations in three
 * runs and 0 in one run of a rehearsal with KT_REPS=1, and records.vprof.hotlists covers it.
 */
static void check_cpus(void)
{
	char name[96], per[8 * 48];
	int i, mi, c, bad, want_interp;
	size_t n;

	check(ncpus >= 1 && ncpus <= MAX_CPUS, "smp.cpus", "cpus_online %d in runs.txt", ncpus);
	for (i = 0; i < nwl; i++) {
		struct wl *w = &wls[i];

		if (!is_threaded(w) || !w->npids[0])
			continue;
		for (mi = 0; mi < NMODES; mi++) {
			want_interp = mi == 1 && ncpus > 1 && !strcmp(w->name, "falseshare");
			n = 0;
			bad = -1;
			for (c = 0; c < ncpus && c < MAX_CPUS; c++) {
				n += (size_t)snprintf(per + n, sizeof(per) - n,
						      " cpu%d %" PRIu64 "/%" PRIu64, c,
						      w->cpu_user[mi][c], w->cpu_interp[mi][c]);
				if (bad < 0 &&
				    (!w->cpu_user[mi][c] || (want_interp && !w->cpu_interp[mi][c])))
					bad = c;
			}
			printf("per-CPU %-8s %-12s user samples/interpretations:%s\n", modes[mi],
			       w->name, per);
			snprintf(name, sizeof(name), "smp.%.16s.%.32s.every_cpu", modes[mi],
				 w->name);
			check(bad < 0, name, "cpu%d has no user sample%s (%s)", bad,
			      want_interp ? " or no interpretation" : "", per + 1);
		}
	}
}

/* Slowdown in percent, or a negative number below -1000 when a run is missing. */
static double slowdown(int64_t off, int64_t on)
{
	if (off == INT64_MAX || on == INT64_MAX || off <= 0)
		return -1e9;
	return 100.0 * ((double)on / (double)off - 1);
}

static double per(unsigned long long a, unsigned long long b)
{
	return b ? (double)a / (double)b : 0.0;
}

static const char *met(int ok)
{
	return ok ? "met" : "NOT met";
}

/*
 * The overhead table: per workload the floor (the same interrupts doing nothing: the kernel's
 * own cost) and each mode's slowdown with, in brackets, its increment over the floor (axprof's
 * own cost); the mean over the compute workloads; the issue-18 targets; the rates; the
 * callbacks' cycles per interrupt and per interpretation. Printed, never asserted: under
 * QEMU -icount these are instruction counts, but they are still measurements.
 */
static void print_overhead(void)
{
	double sum[NMODES] = { 0 }, inc[NMODES] = { 0 }, fsum = 0, v, fl;
	static const double target[NMODES] = { 2.0, 5.0, 3.0, 5.0 }; /* issue 18, "Done when" */
	int nsum[NMODES] = { 0 }, ninc[NMODES] = { 0 }, nf = 0, i, mi;

	printf("\nOverhead: run time with sampling on against off (min of the repetitions, ms);\n"
	       "floor: the same interrupts doing nothing else (the kernel's own cost); (+x.x):\n"
	       "the mode's increment over the floor (axprof's own cost)\n");
	printf("%-12s %21s", "workload", "floor");
	for (mi = 0; mi < NMODES; mi++)
		printf(" %21s", modes[mi]);
	putchar('\n');
	for (i = 0; i < nwl; i++) {
		struct wl *w = &wls[i];

		if (!w->npids[0])
			continue;
		printf("%-12s", w->name);
		fl = slowdown(w->floor_off_min, w->floor_on_min);
		if (fl < -1000)
			printf(" %21s", "-");
		else
			printf(" %6.1f/%6.1f %+6.1f%%", (double)w->floor_off_min / 1e6,
			       (double)w->floor_on_min / 1e6, fl);
		if (fl >= -1000 && is_compute(w) && !is_threaded(w)) {
			fsum += fl;
			nf++;
		}
		for (mi = 0; mi < NMODES; mi++) {
			v = slowdown(w->off_min[mi], w->on_min[mi]);
			if (v < -1000) {
				printf(" %21s", "-");
				continue;
			}
			if (fl >= -1000)
				printf(" %6.0f %+6.1f%% (%+5.1f)", (double)w->on_min[mi] / 1e6, v,
				       v - fl);
			else
				printf(" %6.0f %+6.1f%%        ", (double)w->on_min[mi] / 1e6, v);
			if (!is_compute(w) || is_threaded(w))
				continue;
			sum[mi] += v;
			nsum[mi]++;
			if (fl >= -1000) {
				inc[mi] += v - fl;
				ninc[mi]++;
			}
		}
		putchar('\n');
	}
	printf("%-12s %13s%+6.1f%%", "mean", "", nf ? fsum / nf : 0.0);
	for (mi = 0; mi < NMODES; mi++)
		printf(" %6s %+6.1f%% (%+5.1f)", "", nsum[mi] ? sum[mi] / nsum[mi] : 0.0,
		       ninc[mi] ? inc[mi] / ninc[mi] : 0.0);
	printf("\n%-12s %21s", "target", "");
	for (mi = 0; mi < NMODES; mi++)
		printf(" %6s %6s<=%.1f%%%s", "", "", target[mi], mi ? "        " : " (<=1.0)");
	printf("\n%-12s %21s", "published", "");
	for (mi = 0; mi < NMODES; mi++)
		printf(" %6s %+6.1f%%        ", "", published[mi]);
	printf("\n%-12s %21.0f", "rate (/s)",
	       floor_ns > 0 ? 1e9 * (double)floor_ticks / (double)floor_ns : 0.0);
	for (mi = 0; mi < NMODES; mi++)
		printf(" %21.0f",
		       sampled_ns[mi] > 0 ? 1e9 * (double)ticks[mi] / (double)sampled_ns[mi] : 0.0);
	if (ncpus > 1) {
		/* SMP: every online CPU takes the sampling interrupts, the busy one and the idle
		 * ones (issue 17); the driver's ticks are their sum. */
		printf("\n%-12s %21.0f", "per CPU",
		       floor_ns > 0 ? 1e9 * (double)floor_ticks / (double)floor_ns / ncpus : 0.0);
		for (mi = 0; mi < NMODES; mi++)
			printf(" %21.0f",
			       sampled_ns[mi] > 0 ?
				       1e9 * (double)ticks[mi] / (double)sampled_ns[mi] / ncpus :
				       0.0);
		printf("\n(%d CPUs: \"rate\" sums the interrupts of every CPU, idle ones included; "
		       "\"per CPU\" divides it by %d)",
		       ncpus, ncpus);
	}
	printf("\n(mean over the single-threaded compute workloads; published: value-sampling slides, SPEC CPU2000 "
	       "integer on Alpha hardware; here: qemu-system-alpha software emulation, hrtimer "
	       "source)\n");
	if (ncpus > 1) /* SMP boots run without -icount (kernel-test.sh): wall-clock figures */
		printf("targets (issue 18): not judged on a %d-CPU wall-clock boot (the one-CPU "
		       "-icount boot judges them)",
		       ncpus);
	else
		printf("targets (issue 18):");
	for (mi = 0; ncpus <= 1 && mi < NMODES; mi++) {
		v = nsum[mi] ? sum[mi] / nsum[mi] : 0.0;
		printf(" %s %+.1f%% <= %.1f%% %s;", modes[mi], v, target[mi], met(v <= target[mi]));
		if (mi == 0 && ninc[0])
			printf(" cycles over the floor %+.1f <= 1.0 %s;", inc[0] / ninc[0],
			       met(inc[0] / ninc[0] <= 1.0));
	}
	printf("\nCallback cycles (RPCC inside the driver's callbacks; QEMU -icount: instructions):\n");
	if (floor_cost.seen)
		printf("  floor    %8llu interrupts %7.0f per interrupt\n", floor_cost.ticks,
		       per(floor_cost.tick_cycles, floor_cost.ticks));
	for (mi = 0; mi < NMODES; mi++) {
		const struct cost *c = &costs[mi];

		if (!c->seen)
			continue;
		printf("  %-8s %8llu interrupts %7.0f per interrupt (%+.0f over the floor's); "
		       "%llu interpretations %7.0f each\n",
		       modes[mi], c->ticks, per(c->tick_cycles, c->ticks),
		       per(c->tick_cycles, c->ticks) -
			       per(floor_cost.tick_cycles, floor_cost.ticks),
		       c->works, per(c->work_cycles, c->works));
	}
}

int main(int argc, char **argv)
{
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
		printf("workload %-12s task records (cycles): %" PRIu64 " with its comm, %" PRIu64
		       " with init's before the execve\n",
		       w->name, w->named[0], w->preexec[0]);
		if (!is_compute(w))
			continue;
		for (mi = 0; mi < NMODES; mi++) {
			snprintf(name, sizeof(name), "samples.%.16s.%.32s", modes[mi], w->name);
			check(w->text_samples[mi] > 0, name,
			      "no user sample in its .text (%" PRIu64 " user samples of its pids)",
			      w->samples[mi]);
			snprintf(name, sizeof(name), "tasks.%.16s.%.32s", modes[mi], w->name);
			check(w->named[mi] > 0 && !w->misnamed[mi], name,
			      "%" PRIu64 " task records name its pids with its comm (%" PRIu64
			      " as init before the execve), %" PRIu64 " otherwise",
			      w->named[mi], w->preexec[mi], w->misnamed[mi]);
		}
	}

	check_cpus();
	print_overhead();
	nfail += kt_check_procs(argv[1]);
	printf("kt_check: %d checks failed\n", nfail);
	return nfail ? 1 : 0;
}
