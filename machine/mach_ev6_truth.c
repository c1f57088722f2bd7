/* machine/mach_ev6_truth.c - EV6 ground truth: per-PC counters, replay causes, the file. */
/*
 * The records both models share (exec, head cycles, events, edges: mach_trec.h) are kept by
 * pc in an ev5_truth; the EV6 counters (enum ev6_tc) live in an array parallel to its records
 * (same index), and the replay traps in an open-addressing hash keyed by (pc, cause, kind). The
 * file format (sections 5 and 6, summary words at 208) is documented in mach_truth.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mach_coh.h"
#include "mach_ev6_model.h"

int ev6_truth_new(struct mach_ev6 *m)
{
	if (ev5_truth_new(&m->truth))
		return -ENOMEM;
	m->tx_cap = 1024;
	m->tx = calloc(m->tx_cap, sizeof(*m->tx));
	m->rp_mask = 256 - 1;
	m->rp = calloc(m->rp_mask + 1, sizeof(*m->rp));
	if (!m->tx || !m->rp || ev6_waste_new(m)) {
		ev6_truth_free(m);
		return -ENOMEM;
	}
	return 0;
}

void ev6_truth_free(struct mach_ev6 *m)
{
	ev5_truth_free(m->truth);
	free(m->tx);
	free(m->rp);
	ev6_waste_free(m);
	free(m->pt_rec);
	m->pt_rec = NULL;
	m->pt_nrec = m->pt_cap = 0;
	m->truth = NULL;
	m->tx = NULL;
	m->rp = NULL;
}

void ev6_truth_transfer(struct mach_ev6 *m, uint64_t from, uint64_t to)
{
	unsigned int k = m->pt_n++ % MACH_TRUTH_PATH_DECS;

	m->pt_from[k] = from;
	m->pt_to[k] = to;
}

void ev6_truth_path(struct mach_ev6 *m, uint64_t pc, uint16_t history, uint64_t dist,
		    const struct mach_pme *first)
{
	unsigned int n =
		m->pt_n < MACH_TRUTH_PATH_DECS ? (unsigned int)m->pt_n : MACH_TRUTH_PATH_DECS;
	uint8_t *p;

	if (m->pt_nrec == m->pt_cap) {
		size_t cap = m->pt_cap ? 2 * m->pt_cap : 1024;
		uint8_t *v = realloc(m->pt_rec, cap * MACH_TRUTH_PATH_SIZE);

		if (!v) {
			m->tx_failed = true;
			return;
		}
		m->pt_rec = v;
		m->pt_cap = cap;
	}
	p = m->pt_rec + m->pt_nrec++ * MACH_TRUTH_PATH_SIZE;
	memset(p, 0, MACH_TRUTH_PATH_SIZE);
	mach_put64(p, pc);
	mach_put64(p + 8, first && first->status == MACH_PME_RETIRED ? first->pc : 0);
	p[16] = (uint8_t)history;
	p[17] = (uint8_t)(history >> 8);
	p[18] = (uint8_t)dist;
	p[19] = (uint8_t)(dist >> 8);
	p[20] = (uint8_t)n;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int k = (unsigned int)((m->pt_n - 1 - i) % MACH_TRUTH_PATH_DECS);

		mach_put64(p + 24 + 16 * i, m->pt_from[k]);
		mach_put64(p + 32 + 16 * i, m->pt_to[k]);
	}
}

static struct ev6_trec scratch; /* where counts go after an allocation failure */

struct ev6_trec *ev6_truth_rec(struct mach_ev6 *m, uint64_t pc)
{
	struct ev5_trec *r = ev5_truth_rec(m->truth, pc);
	size_t i;

	if (!r) {
		m->tx_failed = true;
		return &scratch;
	}
	i = (size_t)(r - m->truth->recs);
	if (i >= m->tx_cap) {
		size_t ncap = m->tx_cap * 2;
		struct ev6_trec *n = realloc(m->tx, ncap * sizeof(*n));

		if (!n) {
			m->tx_failed = true;
			return &scratch;
		}
		memset(n + m->tx_cap, 0, (ncap - m->tx_cap) * sizeof(*n));
		m->tx = n;
		m->tx_cap = ncap;
	}
	return &m->tx[i];
}

static inline size_t rp_hash(uint64_t pc, uint64_t cause, uint32_t kind)
{
	return (size_t)((((pc >> 2) * 0x9e3779b97f4a7c15ull) ^
			 ((cause >> 2) * 0xc2b2ae3d27d4eb4full) ^ kind) >>
			24);
}

static int rp_grow(struct mach_ev6 *m)
{
	size_t nmask = m->rp_mask * 2 + 1;
	struct ev6_rp_slot *n = calloc(nmask + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= m->rp_mask; i++) {
		struct ev6_rp_slot *o = &m->rp[i];
		size_t h;

		if (!o->count)
			continue;
		for (h = rp_hash(o->pc, o->cause, o->kind) & nmask; n[h].count; h = (h + 1) & nmask)
			;
		n[h] = *o;
	}
	free(m->rp);
	m->rp = n;
	m->rp_mask = nmask;
	return 0;
}

void ev6_truth_replay(struct mach_ev6 *m, uint64_t pc, uint64_t cause, enum ev6_replay kind)
{
	size_t h;

	if (2 * (m->rp_used + 1) > m->rp_mask + 1 && rp_grow(m)) {
		m->tx_failed = true;
		return;
	}
	for (h = rp_hash(pc, cause, kind) & m->rp_mask; m->rp[h].count; h = (h + 1) & m->rp_mask) {
		struct ev6_rp_slot *s = &m->rp[h];

		if (s->pc == pc && s->cause == cause && s->kind == (uint32_t)kind) {
			s->count++;
			return;
		}
	}
	m->rp[h] = (struct ev6_rp_slot){ .pc = pc, .cause = cause, .kind = kind, .count = 1 };
	m->rp_used++;
}

bool mach_ev6_truth_get(const struct mach_ev6 *m, uint64_t pc, struct ev6_trec *out)
{
	if (!m->truth)
		return false;
	for (size_t i = 0; i < m->truth->nrecs; i++) {
		if (m->truth->recs[i].pc == pc) {
			*out = m->tx[i];
			return true;
		}
	}
	return false;
}

uint64_t mach_ev6_replay_count(const struct mach_ev6 *m, uint64_t pc, uint64_t cause,
			       enum ev6_replay kind)
{
	if (!m->rp)
		return 0;
	for (size_t h = rp_hash(pc, cause, kind) & m->rp_mask; m->rp[h].count;
	     h = (h + 1) & m->rp_mask)
		if (m->rp[h].pc == pc && m->rp[h].cause == cause && m->rp[h].kind == (uint32_t)kind)
			return m->rp[h].count;
	return 0;
}

/* ---- the file ---- */

static const struct mach_ev6 *sort_m; /* qsort has no context argument */

static int cmp_idx(const void *a, const void *b)
{
	uint64_t x = sort_m->truth->recs[*(const size_t *)a].pc;
	uint64_t y = sort_m->truth->recs[*(const size_t *)b].pc;

	return x < y ? -1 : x > y;
}

static int cmp_rp(const void *a, const void *b)
{
	const struct ev6_rp_slot *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* Sections 5 (EV6 per-PC counters) and 6 (replay traps), encoded. */
static int encode(const struct mach_ev6 *m, uint8_t **pcs, uint8_t **rps, size_t *nrp)
{
	size_t n = m->truth->nrecs, k = 0, *idx = malloc((n ? n : 1) * sizeof(*idx));
	struct ev6_rp_slot *rp = malloc((m->rp_used ? m->rp_used : 1) * sizeof(*rp));

	*pcs = calloc(n ? n : 1, MACH_TRUTH_EV6PC_SIZE);
	*rps = calloc(m->rp_used ? m->rp_used : 1, MACH_TRUTH_REPLAY_SIZE);
	if (!idx || !rp || !*pcs || !*rps) {
		free(idx);
		free(rp);
		free(*pcs);
		free(*rps);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	sort_m = m;
	qsort(idx, n, sizeof(*idx), cmp_idx);
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = *pcs + i * MACH_TRUTH_EV6PC_SIZE;

		mach_put64(p, m->truth->recs[idx[i]].pc);
		for (unsigned int c = 0; c < EV6_TC_NR; c++)
			mach_put64(p + 8 + 8 * c, m->tx[idx[i]].c[c]);
	}
	for (size_t h = 0; h <= m->rp_mask; h++)
		if (m->rp[h].count)
			rp[k++] = m->rp[h];
	qsort(rp, k, sizeof(*rp), cmp_rp);
	for (size_t i = 0; i < k; i++) {
		uint8_t *p = *rps + i * MACH_TRUTH_REPLAY_SIZE;

		mach_put64(p, rp[i].pc);
		mach_put64(p + 8, rp[i].cause);
		mach_put32(p + 16, rp[i].kind);
		mach_put64(p + 24, rp[i].count);
	}
	*nrp = k;
	free(idx);
	free(rp);
	return 0;
}

/* What a truth file's summary adds up: one CPU's, or the sum of a --cpus N run's. */
struct ev6_sum {
	uint64_t r_t, seq, kcycles, fetched, aborted, badpath;
	uint64_t count[MACH_EV_NR];
};

static void sum_add(struct ev6_sum *s, const struct mach_ev6 *m)
{
	s->r_t += m->r_t;
	s->seq += m->seq;
	s->kcycles += m->kcycles;
	s->fetched += m->fetched;
	s->aborted += m->aborted;
	s->badpath += m->badpath;
	for (unsigned int e = 0; e < MACH_EV_NR; e++)
		s->count[e] += m->count[e];
}

/* The encoded sections of one CPU, or of all (merged by sum_sorted), and where they go. */
struct ev6_secs {
	uint8_t *pcs, *rps, *ws, *pt;
	size_t npcs, nrp, nws, npt;
};

static void secs_free(struct ev6_secs *x)
{
	free(x->pcs);
	free(x->rps);
	free(x->ws);
	free(x->pt);
}

/* Write the file: params and the coherence section from m, the rest from s, t and x. */
static int write_file(const struct mach_ev6 *m, const struct ev6_sum *s, const struct ev5_truth *t,
		      const struct ev6_secs *x, const char *path)
{
	uint64_t stall[MACH_STALL_NR] = { 0 };
	struct mach_truth_out o = { .t = t, .stall = stall, .events = s->count };
	int err;

	o.cycles = s->r_t;
	o.insns = s->seq;
	stall[MACH_STALL_STATIC] = s->r_t - s->kcycles; /* not split by cause; no kernel time */
	o.param[MACH_TP_DCACHE_LAT] = m->p.dcache_lat;
	o.param[MACH_TP_BCACHE_LAT] = m->p.bcache_lat;
	o.param[MACH_TP_MEM_LAT] = m->p.mem_lat;
	o.param[MACH_TP_MEM_OCCUPANCY] = m->p.mem_occupancy;
	o.param[MACH_TP_BCACHE_KB] = m->p.bcache_kb;
	o.param[MACH_TP_MISPREDICT] = m->p.mispredict;
	o.param[MACH_TP_ITB_MISS] = m->p.itb_miss;
	o.param[MACH_TP_DTB_MISS] = m->p.dtb_miss;
	o.param[MACH_TP_REPLAY] = m->p.order_trap;
	o.ext[MACH_TX_BCMISS] = s->count[MACH_EV_BCMISS];
	o.ext[MACH_TX_REPLAY] = s->count[MACH_EV_REPLAY];
	o.ext[MACH_TX_FETCHED] = s->fetched;
	o.ext[MACH_TX_ABORTED] = s->aborted;
	o.ext[MACH_TX_BADPATH] = s->badpath;
	o.ext[MACH_TX_CPU] = 6;
	o.xsec[0] = (struct mach_truth_xsec){ MACH_TRUTH_SEC_EV6PCS, MACH_TRUTH_EV6PC_SIZE, x->npcs,
					      x->pcs };
	o.xsec[1] = (struct mach_truth_xsec){ MACH_TRUTH_SEC_REPLAYS, MACH_TRUTH_REPLAY_SIZE,
					      x->nrp, x->rps };
	o.nxsec = 2;
	if (x->ws) /* section 7: wasted issue slots (mach_ev6_waste.c) */
		o.xsec[o.nxsec++] =
			(struct mach_truth_xsec){ MACH_TRUTH_SEC_WASTED, MACH_TRUTH_WASTE_SIZE,
						  x->nws, x->ws };
	if (x->npt)
		o.xsec[o.nxsec++] = (struct mach_truth_xsec){ MACH_TRUTH_SEC_PATHS,
							      MACH_TRUTH_PATH_SIZE, x->npt, x->pt };
	err = m->coh ? mach_coh_truth_xsec(m->coh, &o.xsec[o.nxsec]) : 0; /* section 9 */
	if (m->coh && !err)
		o.nxsec++;
	if (!err)
		err = mach_truth_out_write(&o, path);
	return err;
}

/* One CPU's sections 5, 6 and 7 (its paths stay in m). */
static int encode_cpu(struct mach_ev6 *m, struct ev6_secs *x)
{
	int err;

	memset(x, 0, sizeof(*x));
	if (!m->truth)
		return -EINVAL;
	if (m->tx_failed || m->truth->failed)
		return -ENOMEM;
	err = encode(m, &x->pcs, &x->rps, &x->nrp);
	x->npcs = m->truth->nrecs;
	if (!err)
		err = ev6_waste_encode(m, &x->ws, &x->nws);
	if (err)
		secs_free(x);
	return err;
}

int mach_ev6_truth_write(struct mach_ev6 *m, const char *path)
{
	struct ev6_sum s = { 0 };
	struct ev6_secs x;
	int err = encode_cpu(m, &x);

	if (err)
		return err;
	sum_add(&s, m);
	x.pt = m->pt_rec;
	x.npt = m->pt_nrec;
	err = write_file(m, &s, m->truth, &x, path);
	x.pt = NULL;
	secs_free(&x);
	return err;
}

/* ---- --cpus N: one file for all CPUs ---- */

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Records sorted by their key: u64 words at key[0..nkey) (byte offsets), compared in order. */
static const unsigned int *sort_key;
static unsigned int sort_nkey;

static int cmp_key(const void *a, const void *b)
{
	for (unsigned int i = 0; i < sort_nkey; i++) {
		uint64_t x = get64((const uint8_t *)a + sort_key[i]);
		uint64_t y = get64((const uint8_t *)b + sort_key[i]);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/*
 * Sort n records of rsz bytes at v by key (nkey u64 words at the offsets key[]) and fold those
 * of one key into one, adding their u64 words at [sum, rsz); the count left into *n.
 */
static void sum_sorted(uint8_t *v, size_t *n, size_t rsz, const unsigned int *key,
		       unsigned int nkey, size_t sum)
{
	size_t k = 0;

	sort_key = key;
	sort_nkey = nkey;
	qsort(v, *n, rsz, cmp_key);
	for (size_t i = 0; i < *n; i++) {
		uint8_t *r = v + i * rsz, *o = v + (k - 1) * rsz;

		if (k && !cmp_key(o, r)) {
			for (size_t b = sum; b < rsz; b += 8)
				mach_put64(o + b, get64(o + b) + get64(r + b));
			continue;
		}
		if (k != i)
			memmove(v + k * rsz, r, rsz);
		k++;
	}
	*n = k;
}

/* Append n records of rsz bytes at src to *dst (holding *ndst). */
static int append(uint8_t **dst, size_t *ndst, const uint8_t *src, size_t n, size_t rsz)
{
	uint8_t *v;

	if (!n)
		return 0;
	v = realloc(*dst, (*ndst + n) * rsz);
	if (!v)
		return -ENOMEM;
	memcpy(v + *ndst * rsz, src, n * rsz);
	*dst = v;
	*ndst += n;
	return 0;
}

int mach_ev6_truth_write_cpus(struct mach_ev6 *const *v, unsigned int n, const char *path)
{
	static const unsigned int pc_key[] = { 0 }, rp_key[] = { 0, 8, 16 };
	struct ev6_secs all = { 0 }, x;
	struct ev6_sum s = { 0 };
	struct ev5_truth *t;
	bool waste = false;
	int err;

	if (n == 1)
		return mach_ev6_truth_write(v[0], path);
	err = ev5_truth_new(&t);
	for (unsigned int i = 0; !err && i < n; i++) {
		err = encode_cpu(v[i], &x);
		if (err)
			break;
		waste |= x.ws != NULL;
		sum_add(&s, v[i]);
		err = ev5_truth_absorb(t, v[i]->truth);
		if (!err)
			err = append(&all.pcs, &all.npcs, x.pcs, x.npcs, MACH_TRUTH_EV6PC_SIZE);
		if (!err)
			err = append(&all.rps, &all.nrp, x.rps, x.nrp, MACH_TRUTH_REPLAY_SIZE);
		if (!err)
			err = append(&all.ws, &all.nws, x.ws, x.nws, MACH_TRUTH_WASTE_SIZE);
		if (!err) /* path records: CPU by CPU, each in its sampling order */
			err = append(&all.pt, &all.npt, v[i]->pt_rec, v[i]->pt_nrec,
				     MACH_TRUTH_PATH_SIZE);
		secs_free(&x);
	}
	if (!err && waste && !all.ws) { /* the section with no record (as one CPU writes it) */
		all.ws = calloc(1, MACH_TRUTH_WASTE_SIZE);
		err = all.ws ? 0 : -ENOMEM;
	}
	if (!err) {
		/* sections 5, 6 and 7: one record per key, the CPUs' counts added */
		sum_sorted(all.pcs, &all.npcs, MACH_TRUTH_EV6PC_SIZE, pc_key, 1, 8);
		sum_sorted(all.rps, &all.nrp, MACH_TRUTH_REPLAY_SIZE, rp_key, 3, 24);
		if (all.ws)
			sum_sorted(all.ws, &all.nws, MACH_TRUTH_WASTE_SIZE, pc_key, 1, 8);
		err = all.npcs == t->nrecs ? write_file(v[0], &s, t, &all, path) : -EINVAL;
	}
	secs_free(&all);
	ev5_truth_free(t);
	return err;
}

_Static_assert((int)EV6_TC_NR == (int)MACH_T6_NR && MACH_TRUTH_EV6PC_SIZE == 8 + 8 * MACH_T6_NR,
	       "the EV6 truth counters and the file's record (mach_truth.h) must agree");
