/* daemon/dmn_merge.c - the daemon library: merge drained records into profiles, flush them. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmn_int.h"
#include "dmn_opts.h"

/* Sampler events -> database events (pdb.h: stable on-disk ids). */
unsigned int dmn_pdb_event(unsigned int vs_event)
{
	static const unsigned int map[VS_EVENT_NR] = {
		[VS_EV_CYCLES] = PDB_EV_CYCLES,	 [VS_EV_IMISS] = PDB_EV_IMISS,
		[VS_EV_DMISS] = PDB_EV_DMISS,	 [VS_EV_BRANCHMP] = PDB_EV_BRANCHMP,
		[VS_EV_REPLAYS] = PDB_EV_REPLAY, [VS_EV_INSNS] = PDB_EV_RETIRED,
		[VS_EV_USER6] = PDB_EV_INVAL,	 [VS_EV_USER7] = PDB_EV_INTERV,
	};

	return vs_event < VS_EVENT_NR ? map[vs_event] :
					PDB_EV_NAMED; /* 10, as before 8 and 9 were named */
}

int dmn_new(struct dmn **out, const struct dmn_opts *opts, struct ax_error *err)
{
	struct dmn *d;
	int ret;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->opts = *opts;
	d->proc_root = strdup(opts->proc_root ? opts->proc_root : "/proc");
	d->sysroot = strdup(opts->sysroot ? opts->sysroot : "");
	d->unknown = pdb_prof_new();
	if (!d->proc_root || !d->sysroot || !d->unknown) {
		ret = -ENOMEM;
		goto out_free;
	}
	d->opts.proc_root = d->proc_root;
	d->opts.sysroot = d->sysroot;
	d->opts.db_dir = NULL;
	d->opts.cfg = NULL;
	if (opts->cfg) {
		memcpy(d->period, opts->cfg->period, sizeof(d->period));
		for (unsigned int e = 0; e < VS_EVENT_NR; e++)
			if (opts->cfg->period_prime & (1u << e))
				dmn_prime_period(&d->period[e]);
	}
	if (opts->cfg && opts->cfg->mode == VS_MODE_PROFILEME) {
		d->pme_period = opts->cfg->pme_period;
		d->pme_window = opts->cfg->pme_window;
	}
	ret = pdb_open(opts->db_dir, true, &d->db, err);
	if (ret)
		goto out_free;
	ret = dmn_kern_load(d);
	if (ret) {
		if (err)
			*err = d->err;
		dmn_free(d);
		return ret;
	}
	/* the caller's strings: read, not kept */
	d->opts.kallsyms = d->opts.modules = d->opts.vmlinux = NULL;
	d->opts.system_map = d->opts.kernel_notes = NULL;
	*out = d;
	return 0;

out_free:
	pdb_prof_free(d->unknown);
	free(d->sysroot);
	free(d->proc_root);
	free(d);
	return ret;
}

void dmn_free(struct dmn *d)
{
	if (!d)
		return;
	dmn_maps_free(d);
	dmn_tasks_reset(d);
	pdb_prof_free(d->unknown);
	pdb_close(d->db);
	free(d->sysroot);
	free(d->kern_ksyms_path);
	free(d->kern_mods_path);
	free(d->proc_root);
	free(d);
}

struct pdb_db *dmn_db(struct dmn *d)
{
	return d->db;
}

const char *dmn_errmsg(const struct dmn *d)
{
	return d->err.msg;
}

const struct ax_error *dmn_last_error(const struct dmn *d)
{
	return &d->err;
}

/* ---- records ---- */

static void merged(struct dmn *d, int ret)
{
	if (ret)
		d->st.merge_errors++;
}

/* The image's samples so far were all one thread's: make its tasks.prof rows from them. */
static int tasks_of_sole(struct dmn_image *im)
{
	int ret = 0;

	for (unsigned int e = 0; e < PDB_EV_MAX && !ret; e++) {
		struct pdb_count *cs = NULL;
		size_t n = 0;

		ret = pdb_prof_samples(im->prof, e, &cs, &n);
		for (size_t i = 0; !ret && i < n; i++)
			ret = pdb_prof_add_task_tid(im->prof, im->sole_pid, im->sole_tid,
						    cs[i].offset, e, cs[i].count);
		free(cs);
	}
	im->pids = 2;
	return ret;
}

/*
 * Per process and thread too (tasks.prof; issue 17: report --pid, --tid), deferred while one
 * thread has them all.
 */
static void task_sample(struct dmn *d, struct dmn_image *im, uint32_t pid, uint32_t tid,
			unsigned int ev, uint64_t off, uint64_t count)
{
	if (im->pids == 0) {
		im->pids = 1;
		im->sole_pid = pid;
		im->sole_tid = tid;
	} else if (im->pids == 1 && (pid != im->sole_pid || tid != im->sole_tid)) {
		merged(d, tasks_of_sole(im));
	}
	if (im->pids == 2)
		merged(d, pdb_prof_add_task_tid(im->prof, pid, tid, off, ev, count));
}

static void do_sample(struct dmn *d, const struct vs_rec_sample *r)
{
	unsigned int ev = dmn_pdb_event(r->event);
	struct dmn_image *im = NULL;
	uint32_t pid, tid = r->pid;
	uint64_t off = 0;

	d->st.samples += r->count;
	/* ABI 5: r->pid is the thread's; its time in the kernel is the thread's too */
	pid = dmn_task_sample(d, r->pid, r->count);
	if (r->flags & VS_SF_KERNEL) {
		d->st.samples_kernel += r->count;
		im = dmn_kern_lookup(d, r->pc, &off);
		if (!im && dmn_kern_reread(d)) /* a module loaded since */
			im = dmn_kern_lookup(d, r->pc, &off);
		if (!im)
			d->st.samples_kernel_unknown += r->count;
	} else {
		im = dmn_lookup_hot(d, pid, r->pc, &off);
	}
	if (im) {
		const struct vs_period *pr = &d->period[r->event];

		task_sample(d, im, pid, tid, ev, off, r->count);
		merged(d, pdb_prof_add_sample(im->prof, ev, off, r->count));
		if (pr->lo)
			merged(d, pdb_prof_add_period(im->prof, ev, r->count, pr->lo, pr->hi));
	} else {
		d->st.samples_unknown += r->count;
		merged(d, pdb_prof_add_unknown_tid(d->unknown, pid, tid, r->pc, ev, r->count));
	}
}

struct dmn_image *dmn_lookup_any(struct dmn *d, uint32_t pid, uint64_t pc, uint64_t *off)
{
	struct dmn_image *im = dmn_lookup(d, pid, pc, off);

	return im ? im : dmn_kern_lookup(d, pc, off);
}

static inline __attribute__((__always_inline__)) struct dmn_image *
obs_lookup(struct dmn *d, uint32_t pid, uint64_t pc, uint64_t *off)
{
	struct dmn_image *im = dmn_lookup_hot(d, pid, pc, off); /* dmn_lookup_any() */

	if (!im)
		im = dmn_kern_lookup(d, pc, off);
	if (!im)
		d->st.obs_unknown++;
	return im;
}

/* h: the record's hotlist, unpacked when dmn_feed checked the record (one decode; so for
 * VS_REC_PROC and VS_REC_ADDR). */
static void do_hotlist(struct dmn *d, const uint8_t *p, const struct hotlist *h)
{
	struct vs_rec_hotlist r;
	struct dmn_image *im;
	uint64_t off;

	memcpy(&r, p, sizeof(r));
	im = obs_lookup(d, r.pid, r.pc, &off);
	if (!im)
		return;
	merged(d, pdb_prof_add_hotlist_valid(im->prof, off, r.dest, h)); /* unpacked: valid */
}

static void do_latency(struct dmn *d, const struct vs_rec_latency *r)
{
	struct pdb_latency lat;
	struct dmn_image *im;
	uint64_t off;
	unsigned int i;

	im = obs_lookup(d, r->pid, r->pc, &off);
	if (!im)
		return;
	for (i = 0; i < PDB_LAT_LEVELS; i++)
		lat.level[i] = r->level[i];
	lat.latency_sum = r->latency_sum;
	for (i = 0; i < PDB_LAT_BUCKETS; i++)
		lat.hist[i] = r->hist[i];
	merged(d, pdb_prof_add_latency(im->prof, off, &lat));
}

static void do_conflict(struct dmn *d, const struct vs_rec_conflict *r)
{
	struct dmn_image *im, *prior;
	uint64_t off, poff = 0;

	im = obs_lookup(d, r->pid, r->pc, &off);
	if (!im)
		return;
	prior = dmn_lookup(d, r->pid, r->prior_pc, &poff);
	if (!prior)
		poff = r->prior_pc;
	merged(d, pdb_prof_add_conflict(im->prof, off, prior ? prior->desc.key : "", poff, r->kind,
					r->count, r->dist_min));
}

static void do_vcount(struct dmn *d, const struct vs_rec_vcount *r)
{
	struct dmn_image *im;
	uint64_t off;

	im = obs_lookup(d, r->pid, r->pc, &off);
	if (im)
		merged(d, pdb_prof_add_vcount(im->prof, off, r->count));
}

static void do_stats(struct dmn *d, const struct vs_rec_stats *r)
{
	uint32_t c = r->cpu < DMN_MAX_CPUS ? r->cpu : DMN_MAX_CPUS - 1;

	d->cpu[c] = r->st;
	d->has_cpu[c] = true;
}

static void do_record(struct dmn *d, const uint8_t *p, unsigned int type, struct hotlist *h)
{
	union {
		struct vs_rec_sample s;
		struct vs_rec_latency l;
		struct vs_rec_conflict c;
		struct vs_rec_vcount v;
		struct vs_rec_stats st;
		struct vs_rec_profileme pm;
		struct vs_rec_task t;
	} u;

	switch (type) {
	case VS_REC_SAMPLE:
		memcpy(&u.s, p, sizeof(u.s));
		do_sample(d, &u.s);
		break;
	case VS_REC_HOTLIST:
		do_hotlist(d, p, h);
		break;
	case VS_REC_LATENCY:
		memcpy(&u.l, p, sizeof(u.l));
		do_latency(d, &u.l);
		break;
	case VS_REC_CONFLICT:
		memcpy(&u.c, p, sizeof(u.c));
		do_conflict(d, &u.c);
		break;
	case VS_REC_VCOUNT:
		memcpy(&u.v, p, sizeof(u.v));
		do_vcount(d, &u.v);
		break;
	case VS_REC_STATS:
		memcpy(&u.st, p, sizeof(u.st));
		do_stats(d, &u.st);
		break;
	case VS_REC_PROFILEME:
		memcpy(&u.pm, p, sizeof(u.pm));
		dmn_do_profileme(d, &u.pm);
		break;
	case VS_REC_PROC:
		dmn_do_proc(d, p, h);
		break;
	case VS_REC_ADDR:
		dmn_do_addr(d, p, h);
		break;
	case VS_REC_STACK:
		dmn_do_stack(d, p);
		break;
	case VS_REC_TASK:
		memcpy(&u.t, p, sizeof(u.t));
		dmn_do_task(d, &u.t);
		break;
	default:
		break; /* a later version's record: skipped */
	}
}

long dmn_feed(struct dmn *d, const void *buf, size_t len, bool eof)
{
	const uint8_t *p = buf;
	struct hotlist h; /* a hotlist record's, as its check unpacked it */
	size_t off = 0;

	while (len - off >= sizeof(struct vs_rec_hdr)) {
		unsigned int type = p[off] | p[off + 1] << 8;
		int ret = vs_abi_check_record_hotlist(p + off, len - off, &h, NULL);

		if (ret < 0) {
			/* A record that runs past the data fails its check: look at the length
			 * only then (the common case is one whole, well-formed record). */
			unsigned int rlen = p[off + 2] | p[off + 3] << 8;
			bool plausible =
				rlen >= 8 && rlen % VS_REC_ALIGN == 0 && rlen <= VS_REC_MAX;
			size_t skip;

			if (plausible && rlen > len - off) {
				if (!eof)
					break; /* the rest of this record comes with the next bytes */
				break; /* truncated at the end: one damaged record, below */
			}
			/* Damaged: skip it whole when its length can be believed, else resync at
			 * the next 8-byte boundary (records start on one). */
			skip = plausible && rlen <= len - off ? rlen : VS_REC_ALIGN;
			if (skip > len - off)
				skip = len - off;
			d->st.damaged++;
			d->st.damaged_bytes += skip;
			off += skip;
			continue;
		}
		d->st.records[type < VS_REC_NR ? type : 0]++;
		do_record(d, p + off, type, &h);
		off += (size_t)ret;
	}
	if (eof && off < len) {
		d->st.damaged++;
		d->st.damaged_bytes += len - off;
		off = len;
	}
	d->st.bytes += off;
	return (long)off;
}

/* ---- flushing ---- */

/* The images with something to store and their samples (for the message of a failure). */
static void count_pending(const struct dmn *d, size_t *nimg, uint64_t *nsamples)
{
	*nimg = 0;
	*nsamples = 0;
	for (size_t i = 0; i < d->nimg; i++) {
		if (pdb_prof_is_empty(d->img[i]->prof))
			continue;
		(*nimg)++;
		for (unsigned int e = 0; e < PDB_EV_MAX; e++)
			*nsamples += pdb_prof_total(d->img[i]->prof, e);
	}
}

/* Stage every non-empty profile (and its index entry) into the open transaction. */
static int stage_all(struct dmn *d, uint32_t epoch)
{
	int ret = 0;

	for (size_t i = 0; i < d->nimg && !ret; i++) {
		struct dmn_image *im = d->img[i];

		if (pdb_prof_is_empty(im->prof))
			continue;
		if (im->pids == 1)
			ret = tasks_of_sole(im);
		if (!ret && im->indexed_epoch != epoch)
			ret = pdb_image_add(d->db, epoch, &im->desc);
		if (!ret)
			ret = pdb_merge_store(d->db, epoch, im->desc.key, im->prof);
	}
	if (!ret && !pdb_prof_is_empty(d->unknown))
		ret = pdb_merge_store(d->db, epoch, PDB_KEY_UNKNOWN, d->unknown);
	return ret;
}

static int flush_failed(struct dmn *d, int ret)
{
	uint64_t nsamples;
	size_t nimg, len;

	count_pending(d, &nimg, &nsamples);
	d->st.flush_errors++;
	dmn_fail_with(d, ret, pdb_last_error(d->db));
	len = strlen(d->err.msg);
	snprintf(
		d->err.msg + len, sizeof(d->err.msg) - len,
		" (nothing was stored: the profiles of %zu image(s), %llu samples, and the unknown "
		"samples were not written)",
		nimg, (unsigned long long)nsamples);
	return ret;
}

/*
 * One transaction (pdb.h UPDATES): every image's profile, its index entry and the unknown
 * profile are stored together or not at all. On failure nothing is stored and the profiles stay
 * in memory (a later flush stores them); the message says what was not stored.
 */
int dmn_flush(struct dmn *d)
{
	struct pdb_tx *tx;
	uint32_t epoch;
	int ret;

	ret = pdb_epoch_current(d->db, &epoch);
	if (!ret)
		ret = pdb_tx_begin(d->db, &tx);
	if (ret)
		return flush_failed(d, ret);
	ret = stage_all(d, epoch);
	if (ret)
		pdb_tx_abort(tx);
	else
		ret = pdb_tx_commit(tx);
	/* A failure after the commit point stored it all: storing it again would count twice. */
	if (ret && !pdb_tx_committed(d->db))
		return flush_failed(d, ret);
	for (size_t i = 0; i < d->nimg; i++) {
		struct dmn_image *im = d->img[i];

		if (pdb_prof_is_empty(im->prof))
			continue;
		im->indexed_epoch = epoch;
		pdb_prof_clear(im->prof);
		im->pids = 0;
		d->st.images_flushed++;
	}
	if (!pdb_prof_is_empty(d->unknown)) {
		pdb_prof_clear(d->unknown);
		d->st.images_flushed++;
	}
	d->st.last_epoch = epoch;
	d->st.flushes++;
	return 0;
}

void dmn_discard(struct dmn *d)
{
	for (size_t i = 0; i < d->nimg; i++) {
		pdb_prof_clear(d->img[i]->prof);
		d->img[i]->pids = 0;
	}
	pdb_prof_clear(d->unknown);
	dmn_tasks_reset(d); /* a forked child: the parent's threads */
}

void dmn_set_kernel_values(struct dmn *d, const uint64_t kv[DMN_KV_NR])
{
	memcpy(d->st.kvals, kv, sizeof(d->st.kvals));
	d->st.has_kvals = true;
}

void dmn_get_stats(const struct dmn *d, struct dmn_stats *st)
{
	*st = d->st;
	memset(&st->vs, 0, sizeof(st->vs));
	st->stats_cpus = 0;
	for (unsigned int c = 0; c < DMN_MAX_CPUS; c++) {
		const uint64_t *src = (const uint64_t *)&d->cpu[c];
		uint64_t *dst = (uint64_t *)&st->vs;

		if (!d->has_cpu[c])
			continue;
		st->stats_cpus++;
		for (size_t k = 0; k < sizeof(st->vs) / sizeof(uint64_t); k++)
			dst[k] += src[k];
	}
}
