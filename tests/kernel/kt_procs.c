/* tests/kernel/kt_procs.c - kt_check's procedure-observer checks: callargs' planted values, callers. */
/*
 * RESULTS_DIR/records-procs.bin (tests/kernel/init.c test_procs): VS_REC_PROC records of callargs
 * run under the driver with +args,callers; procs-runs.txt its runs; procs.callargs.out its output
 * (the exact shares it planted: "ninety 7: N (share)", "site_a: N (share)"); callargs-syms.txt
 * its text symbols ("name 0xaddr", from nm). The hotlists of the runs' pids are merged per (pc,
 * kind, reg) as the daemon would, each given to the symbol holding its pc, and checked as
 * tests/tools/check-planted-args.sh does on the hosted machine: ca_zero's a0 0x0 and v0 0xb at
 * >= 98%, ca_ninety's a0 0x7 within 2 points of its exact share, ca_callee's callers ca_site_a
 * and ca_site_b within 3 points, each procedure with >= 200 interpreted entries. Then the
 * overhead of the extra observers: run times off, with vprof's default observers, with
 * +args,callers (minimum over the repetitions).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_procs.h"
#include "vs_abi.h"

#define MAX_SYMS 512
#define MAX_KEYS 1024
#define MAX_RUN_PIDS 16
#define MIN_ENTRIES 200

struct sym {
	char name[64];
	uint64_t addr;
};

struct key {
	uint64_t pc;
	unsigned int kind, reg;
	struct hotlist h;
};

static struct sym syms[MAX_SYMS];
static int nsyms, fails;
static struct key keys[MAX_KEYS];
static int nkeys;

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("CHECK %s ok\n", name);
		return;
	}
	fails++;
	printf("CHECK %s FAIL: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The symbol holding pc (the greatest address at or below it), or NULL. */
static const char *sym_of(uint64_t pc)
{
	const char *best = NULL;

	for (int i = 0; i < nsyms && syms[i].addr <= pc; i++)
		best = syms[i].name;
	return best;
}

static uint64_t sym_addr(const char *name)
{
	for (int i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].addr;
	return 0;
}

/* The merged hotlist of (kind, reg) at an entry or ret inside procedure name (NULL: none). */
static const struct hotlist *find(const char *name, unsigned int kind, unsigned int reg)
{
	for (int i = 0; i < nkeys; i++) {
		const char *s = sym_of(keys[i].pc);

		if (s && !strcmp(s, name) && keys[i].kind == kind && keys[i].reg == reg)
			return &keys[i].h;
	}
	return NULL;
}

static void add(uint64_t pc, unsigned int kind, unsigned int reg, const struct hotlist *h,
		struct hotlist_rng *rng)
{
	for (int i = 0; i < nkeys; i++)
		if (keys[i].pc == pc && keys[i].kind == kind && keys[i].reg == reg) {
			hotlist_merge(&keys[i].h, h, rng);
			return;
		}
	if (nkeys == MAX_KEYS)
		return;
	keys[nkeys] = (struct key){ .pc = pc, .kind = kind, .reg = reg, .h = *h };
	nkeys++;
}

static double share_of(const struct hotlist *h, uint64_t value)
{
	struct hotlist_item it[HOTLIST_MAX_M];
	unsigned int k = hotlist_top(h, it, HOTLIST_MAX_M);

	for (unsigned int i = 0; i < k; i++)
		if (it[i].value == value)
			return it[i].share_ppm / 1e6;
	return 0;
}

/* One register's top value against the planted one. */
static void check_value(const char *proc, unsigned int kind, unsigned int reg, const char *rn,
			uint64_t want, double want_share, double tol)
{
	const struct hotlist *h = find(proc, kind, reg);
	struct hotlist_item it;
	char name[96];

	snprintf(name, sizeof(name), "procs.%s.%s", proc, rn);
	if (!h || !hotlist_top(h, &it, 1)) {
		check(0, name, "no record");
		return;
	}
	check(h->n >= MIN_ENTRIES && it.value == want && it.share_ppm / 1e6 >= want_share - tol &&
		      it.share_ppm / 1e6 <= want_share + tol,
	      name, "top 0x%" PRIx64 " %.2f%% n %" PRIu64 ", planted 0x%" PRIx64 " %.2f%% (+-%.0f)",
	      it.value, it.share_ppm / 1e4, h->n, want, 100 * want_share, 100 * tol);
	printf("procs %-10s %-3s top 0x%" PRIx64 " %.2f%% n %" PRIu64 " (planted 0x%" PRIx64
	       " %.2f%%)\n",
	       proc, rn, it.value, it.share_ppm / 1e4, h->n, want, 100 * want_share);
}

static int read_text(const char *dir, const char *file, char **out)
{
	char path[512];
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	*out = NULL;
	if (!f)
		return -errno;
	*out = calloc(1, 1 << 16);
	n = *out ? (long)fread(*out, 1, (1 << 16) - 1, f) : 0;
	fclose(f);
	return n > 0 ? 0 : -EIO;
}

int kt_check_procs(const char *dir)
{
	uint32_t pids[MAX_RUN_PIDS];
	int64_t tmin[3] = { INT64_MAX, INT64_MAX, INT64_MAX };
	static const char *const tags[3] = { "procs-off", "procs-vprof", "procs-args" };
	double nine = -1, site_a = -1;
	int npids = 0;
	char *txt, *p, tag[32], line[256], path[512];
	struct hotlist_rng rng;
	unsigned char *rec;
	size_t len, off = 0;
	long long ns;
	int rep, pid, st;
	FILE *f;

	if (read_text(dir, "procs-runs.txt", &txt)) {
		printf("procs: no procs-runs.txt (callargs not in the initramfs): skipped\n");
		return 0;
	}
	for (p = txt; sscanf(p, "%31s callargs %d %d %d %lld", tag, &rep, &pid, &st, &ns) == 5;) {
		for (int k = 0; k < 3; k++)
			if (!strcmp(tag, tags[k]) && ns < tmin[k])
				tmin[k] = ns;
		if (!strcmp(tag, "procs-args") && npids < MAX_RUN_PIDS)
			pids[npids++] = (uint32_t)pid;
		p = strchr(p, '\n');
		if (!p++)
			break;
	}
	free(txt);
	if (!read_text(dir, "procs.callargs.out", &txt)) {
		p = strstr(txt, "ninety 7:");
		if (p)
			sscanf(p, "ninety 7: %*d (%lf)", &nine);
		p = strstr(txt, "site_a:");
		if (p)
			sscanf(p, "site_a: %*d (%lf)", &site_a);
	}
	free(txt);
	snprintf(path, sizeof(path), "%s/callargs-syms.txt", dir);
	f = fopen(path, "r");
	while (f && nsyms < MAX_SYMS && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %" SCNx64, syms[nsyms].name, &syms[nsyms].addr) == 2)
			nsyms++;
	if (f)
		fclose(f);
	qsort(syms, (size_t)nsyms, sizeof(syms[0]), sym_cmp);
	check(nine > 0 && site_a > 0 && nsyms > 4 && npids > 0, "procs.inputs",
	      "callargs output, symbols or runs missing (%d symbols, %d runs)", nsyms, npids);
	snprintf(path, sizeof(path), "%s/records-procs.bin", dir);
	f = fopen(path, "rb");
	rec = f ? malloc(64 << 20) : NULL;
	len = rec ? fread(rec, 1, 64 << 20, f) : 0;
	if (f)
		fclose(f);
	hotlist_rng_seed(&rng, 19);
	while (off < len) {
		int r = vs_abi_check_record(rec + off, len - off, NULL);
		struct vs_rec_proc pr;
		struct hotlist h;

		if (r <= 0)
			break;
		memcpy(&pr, rec + off, sizeof(pr));
		if (pr.h.type == VS_REC_PROC &&
		    hotlist_unpack(&h, rec + off + sizeof(pr), pr.packed_len) >= 0)
			for (int i = 0; i < npids; i++)
				if (pids[i] == pr.pid)
					add(pr.pc, pr.kind, pr.reg, &h, &rng);
		off += (size_t)r;
	}
	free(rec);
	check(nkeys > 0, "procs.records", "no VS_REC_PROC record of callargs' runs");
	if (nkeys && nine > 0) {
		const struct hotlist *h = find("ca_callee", VS_PROC_CALLER, 26);
		struct hotlist_item it[2];
		uint64_t a = sym_addr("ca_site_a"), b = sym_addr("ca_site_b");
		unsigned int k = h ? hotlist_top(h, it, 2) : 0;

		check_value("ca_zero", VS_PROC_ARG, 16, "a0", 0, 1.0, 0.02);
		check_value("ca_zero", VS_PROC_RET, 0, "v0", 0xb, 1.0, 0.02);
		check_value("ca_ninety", VS_PROC_ARG, 16, "a0", 7, nine, 0.02);
		check_value("ca_ninety", VS_PROC_RET, 0, "v0", 14, nine, 0.02);
		check(k == 2 && h->n >= MIN_ENTRIES && sym_of(it[0].value) && sym_of(it[1].value) &&
			      !strcmp(sym_of(it[0].value), "ca_site_a") &&
			      !strcmp(sym_of(it[1].value), "ca_site_b") &&
			      it[0].share_ppm / 1e6 >= site_a - 0.03 &&
			      it[0].share_ppm / 1e6 <= site_a + 0.03,
		      "procs.ca_callee.callers",
		      "%u callers, n %" PRIu64 ", top %s %.2f%% (planted ca_site_a %.2f%%)", k,
		      h ? h->n : 0, k ? sym_of(it[0].value) : "-", k ? it[0].share_ppm / 1e4 : 0,
		      100 * site_a);
		if (k == 2)
			printf("procs ca_callee callers: %s+0x%" PRIx64 " %.2f%%, %s+0x%" PRIx64
			       " %.2f%% n %" PRIu64
			       " (planted ca_site_a %.2f%%; shares of a: %.2f%%)\n",
			       sym_of(it[0].value), it[0].value - a, it[0].share_ppm / 1e4,
			       sym_of(it[1].value), it[1].value - b, it[1].share_ppm / 1e4, h->n,
			       100 * site_a, 100 * share_of(h, it[0].value));
	}
	if (tmin[0] != INT64_MAX && tmin[1] != INT64_MAX && tmin[2] != INT64_MAX)
		printf("procs overhead (callargs, min ms): off %.1f, vprof %.1f (%+.1f%%), "
		       "vprof+args,callers %.1f (%+.1f%%; the extra observers %+.1f%% over vprof)\n",
		       tmin[0] / 1e6, tmin[1] / 1e6, 100.0 * ((double)tmin[1] / tmin[0] - 1),
		       tmin[2] / 1e6, 100.0 * ((double)tmin[2] / tmin[0] - 1),
		       100.0 * ((double)tmin[2] / tmin[1] - 1));
	return fails;
}
