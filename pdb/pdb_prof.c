/* pdb/pdb_prof.c - in-memory profiles: tables of counts, hotlists, latencies, conflicts. */
#include <stdlib.h>

#include "pdb_int.h"

/*
 * Hotlist merges draw their coins from a generator seeded by what is merged (offset, both n and
 * tau), so a merge gives the same result whatever the order of the other offsets: merging two
 * epochs and storing both sets into one agree bit for bit.
 */
#define PROF_RNG_SEED 0x7064622d686f746cull

/* One step of merge_seed(): multiply by the 64-bit golden ratio, fold the high half down. */
static inline uint64_t seed_step(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t merge_seed(uint64_t offset, const struct hotlist *a, const struct hotlist *b)
{
	/* A word at a time (each merge pays for this; byte-wise FNV was 9% of the daemon's
	 * merge), written out (the loop over an array of the five was 50 host instructions) */
	uint64_t h = seed_step(PROF_RNG_SEED, offset);

	h = seed_step(h, a->n);
	h = seed_step(h, a->tau);
	h = seed_step(h, b->n);
	return seed_step(h, b->tau);
}

struct pdb_prof *pdb_prof_new(void)
{
	struct pdb_prof *p = pdb_calloc(1, sizeof(*p));
	unsigned int t;

	if (!p)
		return NULL;
	for (t = 0; t < PDB_EV_MAX; t++)
		pdb_map_init(&p->t[t], 8, sizeof(struct pdb_e_count));
	pdb_map_init(&p->t[PDB_T_VALUES], 8, sizeof(struct pdb_e_value));
	pdb_map_init(&p->t[PDB_T_LATENCY], 8, sizeof(struct pdb_e_lat));
	pdb_map_init(&p->t[PDB_T_CONFLICTS], 24, sizeof(struct pdb_e_cnf));
	pdb_map_init(&p->t[PDB_T_VCOUNT], 8, sizeof(struct pdb_e_count));
	pdb_map_init(&p->t[PDB_T_UNKNOWN], 24, sizeof(struct pdb_e_unk));
	pdb_map_init(&p->t[PDB_T_PROFILEME], 8, sizeof(struct pdb_e_pme));
	pdb_map_init(&p->t[PDB_T_PROCS], 16, sizeof(struct pdb_e_proc));
	pdb_map_init(&p->t[PDB_T_PMPATHS], 8, sizeof(struct pdb_e_pmp));
	pdb_map_init(&p->t[PDB_T_ADDRS], 16, sizeof(struct pdb_e_addr));
	pdb_map_init(&p->t[PDB_T_TASKS], 24, sizeof(struct pdb_e_unk));
	pdb_map_init(&p->t[PDB_T_THREADS], 8, sizeof(struct pdb_e_thr));
	pdb_map_init(&p->t[PDB_T_STACKS], PDB_STK_KSIZE, sizeof(struct pdb_e_stk));
	pdb_map_init(&p->keyhash, 8, sizeof(struct pdb_e_keyhash));
	pdb_map_init(&p->tids[0], 8, 8);
	pdb_map_init(&p->tids[1], 8, 8);
	hotlist_rng_seed(&p->rng, PROF_RNG_SEED);
	return p;
}

static void free_keys(struct pdb_prof *p)
{
	uint32_t i;

	for (i = 0; i < p->nkeys; i++)
		free(p->keys[i]);
	p->nkeys = 0;
	pdb_map_clear(&p->keyhash);
}

void pdb_prof_free(struct pdb_prof *p)
{
	unsigned int t;

	if (!p)
		return;
	for (t = 0; t < PDB_T_NR; t++)
		pdb_map_exit(&p->t[t]);
	free_keys(p);
	free(p->keys);
	pdb_map_exit(&p->keyhash);
	pdb_map_exit(&p->tids[0]);
	pdb_map_exit(&p->tids[1]);
	free(p);
}

void pdb_prof_clear(struct pdb_prof *p)
{
	unsigned int t;

	for (t = 0; t < PDB_T_NR; t++)
		pdb_map_clear(&p->t[t]);
	memset(p->period, 0, sizeof(p->period));
	p->nstk = 0;
	p->thr_lost = 0;
	pdb_map_clear(&p->tids[0]);
	pdb_map_clear(&p->tids[1]);
	free_keys(p);
}

uint64_t pdb_prof_tables(const struct pdb_prof *p)
{
	uint64_t mask = 0;
	unsigned int t;

	for (t = 0; t < PDB_T_NR; t++)
		if (p->t[t].n)
			mask |= PDB_T_BIT(t);
	return mask;
}

bool pdb_prof_is_empty(const struct pdb_prof *p)
{
	return pdb_prof_tables(p) == 0;
}

static int add_count(struct pdb_map *m, uint64_t off, uint64_t count)
{
	struct pdb_e_count *e;
	int err;

	if (!count)
		return 0;
	e = pdb_map_find_word(m, off);
	if (!e) {
		err = pdb_map_get(m, &off, (void **)&e);
		if (err < 0)
			return err;
	}
	e->count = pdb_add_sat(e->count, count);
	return 0;
}

int pdb_prof_add_sample(struct pdb_prof *p, unsigned int event, uint64_t offset, uint64_t count)
{
	if (event >= PDB_EV_MAX)
		return -EINVAL;
	return add_count(&p->t[event], offset, count);
}

void pdb_period_add(struct pdb_period *dst, const struct pdb_period *src)
{
	dst->samples = pdb_add_sat(dst->samples, src->samples);
	dst->events2 = pdb_add_sat(dst->events2, src->events2);
}

int pdb_period_check(const struct pdb_period *pr, uint64_t samples, const char **why)
{
	const uint64_t max2 = 2 * (uint64_t)UINT32_MAX; /* lo + hi of the longest period */

	if (pr->samples > samples)
		*why = "more samples with a period than samples";
	else if (!pr->samples != !pr->events2)
		*why = "events without samples or samples without events";
	else if (pr->samples <= UINT64_MAX / 2 && pr->events2 < 2 * pr->samples)
		*why = "a mean period below 1";
	else if (pr->samples <= UINT64_MAX / max2 && pr->events2 > pr->samples * max2)
		*why = "a mean period above 2^32 - 1";
	else
		return 0;
	return -EINVAL;
}

int pdb_prof_add_period(struct pdb_prof *p, unsigned int event, uint64_t samples, uint32_t lo,
			uint32_t hi)
{
	struct pdb_period add;
	uint64_t sum = (uint64_t)lo + hi;

	if (event >= PDB_EV_MAX || lo == 0 || lo > hi)
		return -EINVAL;
	add.samples = samples;
	add.events2 = samples > UINT64_MAX / sum ? UINT64_MAX : samples * sum;
	pdb_period_add(&p->period[event], &add);
	return 0;
}

void pdb_prof_period(const struct pdb_prof *p, unsigned int event, struct pdb_period *out)
{
	static const struct pdb_period none;

	*out = event < PDB_EV_MAX ? p->period[event] : none;
}

bool pdb_prof_mean_period(const struct pdb_prof *p, unsigned int event, double *mean)
{
	struct pdb_period pr;

	pdb_prof_period(p, event, &pr);
	if (!pr.samples)
		return false;
	*mean = (double)pr.events2 / (2.0 * (double)pr.samples);
	return true;
}

int pdb_prof_add_vcount(struct pdb_prof *p, uint64_t offset, uint64_t count)
{
	return add_count(&p->t[PDB_T_VCOUNT], offset, count);
}

int pdb_prof_add_hotlist(struct pdb_prof *p, uint64_t offset, unsigned int dest,
			 const struct hotlist *h)
{
	if (hotlist_validate(h, NULL))
		return -EINVAL;
	return pdb_prof_add_hotlist_valid(p, offset, dest, h);
}

int pdb_prof_add_hotlist_valid(struct pdb_prof *p, uint64_t offset, unsigned int dest,
			       const struct hotlist *h)
{
	struct pdb_e_value *e;
	int err;

	if (dest > 63)
		return -EINVAL;
	e = pdb_map_find_word(&p->t[PDB_T_VALUES], offset);
	err = e ? 0 : pdb_map_get(&p->t[PDB_T_VALUES], &offset, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1) {
		/* A new entry: the copy is exact (merging into an empty list would draw coins). */
		e->dest = dest;
		e->h = *h;
		return 0;
	}
	/* One pc writes one register; a different dest is kept as first recorded. */
	hotlist_rng_seed(&p->rng, merge_seed(offset, &e->h, h));
	hotlist_merge(&e->h, h, &p->rng);
	return 0;
}

/* Loads counted by lat: 0 when the levels and the histogram agree (and sum >= 1). */
int pdb_latency_check(const struct pdb_latency *lat, uint64_t *loads)
{
	uint64_t a = 0, b = 0;
	unsigned int i;

	for (i = 0; i < PDB_LAT_LEVELS; i++) {
		if (lat->level[i] > UINT64_MAX - a)
			return -EOVERFLOW;
		a += lat->level[i];
	}
	for (i = 0; i < PDB_LAT_BUCKETS; i++) {
		if (lat->hist[i] > UINT64_MAX - b)
			return -EOVERFLOW;
		b += lat->hist[i];
	}
	if (a != b || a == 0)
		return -EINVAL;
	*loads = a;
	return 0;
}

int pdb_prof_add_latency(struct pdb_prof *p, uint64_t offset, const struct pdb_latency *lat)
{
	struct pdb_latency sum;
	struct pdb_e_lat *e;
	uint64_t loads, old;
	unsigned int i;
	int err;

	err = pdb_latency_check(lat, &loads);
	if (err)
		return err;
	e = pdb_map_find_word(&p->t[PDB_T_LATENCY], offset);
	err = e ? 0 : pdb_map_get(&p->t[PDB_T_LATENCY], &offset, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1) {
		e->lat = *lat;
		return 0;
	}
	/* Every entry is made here, from checked sums: it balances, and its loads are its levels'
	 * sum (no second pdb_latency_check: a quarter of the daemon's cost of a latency record).
	 * The summed entry must still balance: refuse a sum past 2^64 rather than saturate. */
	old = 0;
	for (i = 0; i < PDB_LAT_LEVELS; i++)
		old += e->lat.level[i];
	if (loads > UINT64_MAX - old || lat->latency_sum > UINT64_MAX - e->lat.latency_sum)
		return -EOVERFLOW;
	for (i = 0; i < PDB_LAT_LEVELS; i++)
		sum.level[i] = e->lat.level[i] + lat->level[i];
	for (i = 0; i < PDB_LAT_BUCKETS; i++)
		sum.hist[i] = e->lat.hist[i] + lat->hist[i];
	sum.latency_sum = e->lat.latency_sum + lat->latency_sum;
	e->lat = sum;
	return 0;
}

int pdb_profileme_check(const struct pdb_profileme *m, uint64_t *samples, const char **why)
{
	uint64_t n = 0, h = 0;
	unsigned int i;

	for (i = 0; i < PDB_PME_STATUS; i++) {
		if (m->status[i] > UINT64_MAX - n)
			return (*why = "status counts overflow"), -EINVAL;
		n += m->status[i];
	}
	for (i = 0; i < PDB_PME_BUCKETS; i++) {
		if (m->hist[i] > UINT64_MAX - h)
			return (*why = "histogram overflows"), -EINVAL;
		h += m->hist[i];
	}
	if (!n)
		return (*why = "no samples"), -EINVAL;
	for (i = 0; i < PDB_PME_EVENTS; i++)
		if (m->events[i] > n)
			return (*why = "an event count exceeds the samples"), -EINVAL;
	if (m->events[3] > m->events[2])
		return (*why = "more B-cache than D-cache misses"), -EINVAL;
	if (h != m->status[0])
		return (*why = "the latency histogram does not sum to the retired samples"),
		       -EINVAL;
	if (m->useful > m->pair_samples || m->pair_samples > n || m->wsum < m->pair_samples)
		return (*why = "pair counts out of order (useful <= pairs <= samples, W >= 1)"),
		       -EINVAL;
	if (m->samples_p > n || !m->samples_p != !m->events2 ||
	    (m->samples_p && m->events2 / 2 < m->samples_p))
		return (*why = "interval record: samples_p, events2 disagree"), -EINVAL;
	*samples = n;
	return 0;
}

int pdb_prof_add_profileme(struct pdb_prof *p, uint64_t offset, const struct pdb_profileme *pme)
{
	const uint64_t *a = (const uint64_t *)pme;
	struct pdb_profileme sum;
	struct pdb_e_pme *e;
	const char *why;
	uint64_t n, *s = (uint64_t *)&sum;
	const uint64_t *b;
	int err;

	_Static_assert(sizeof(struct pdb_profileme) == (PDB_PME_COLS - 1) * 8,
		       "pdb_profileme is its columns");
	if (pdb_profileme_check(pme, &n, &why))
		return -EINVAL;
	err = pdb_map_get(&p->t[PDB_T_PROFILEME], &offset, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1) {
		e->pme = *pme;
		return 0;
	}
	b = (const uint64_t *)&e->pme;
	for (unsigned int i = 0; i < PDB_PME_COLS - 1; i++) {
		if (a[i] > UINT64_MAX - b[i])
			return -EOVERFLOW;
		s[i] = a[i] + b[i];
	}
	if (pdb_profileme_check(&sum, &n, &why))
		return -EOVERFLOW;
	e->pme = sum;
	return 0;
}

int pdb_prof_intern(struct pdb_prof *p, const char *key, uint32_t *id)
{
	size_t len = strlen(key);
	struct pdb_e_keyhash *e;
	uint64_t h;
	uint32_t i;
	int err;

	if (len > PDB_KEY_MAX)
		return -EINVAL;
	h = pdb_fnv64(PDB_FNV64_INIT, key, len);
	e = pdb_map_find(&p->keyhash, &h);
	if (e && !strcmp(p->keys[e->id], key)) {
		*id = e->id;
		return 0;
	}
	if (e) /* two keys with one hash: never in practice, but stay correct */
		for (i = 0; i < p->nkeys; i++)
			if (!strcmp(p->keys[i], key)) {
				*id = i;
				return 0;
			}
	if (p->nkeys == p->capkeys) {
		uint32_t cap = p->capkeys ? p->capkeys * 2 : 8;
		char **k = pdb_realloc(p->keys, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		p->keys = k;
		p->capkeys = cap;
	}
	p->keys[p->nkeys] = pdb_strdup(key);
	if (!p->keys[p->nkeys])
		return -ENOMEM;
	if (!e) {
		err = pdb_map_get(&p->keyhash, &h, (void **)&e);
		if (err < 0) {
			free(p->keys[p->nkeys]);
			return err;
		}
		e->id = p->nkeys;
	}
	*id = p->nkeys++;
	return 0;
}

int pdb_prof_add_cnf_id(struct pdb_prof *p, uint64_t load_off, uint32_t keyid, uint64_t prior_off,
			unsigned int kind, uint64_t count, uint64_t dist_min)
{
	struct pdb_e_cnf key, *e;
	int err;

	if (kind != PDB_CNF_STORE_LOAD && kind != PDB_CNF_LOAD_LOAD)
		return -EINVAL;
	if (dist_min == 0 || dist_min > UINT32_MAX || keyid >= p->nkeys)
		return -EINVAL;
	if (!count)
		return 0;
	memset(&key, 0, sizeof(key));
	key.load_off = load_off;
	key.prior_off = prior_off;
	key.keyid = keyid;
	key.kind = kind;
	err = pdb_map_get(&p->t[PDB_T_CONFLICTS], &key, (void **)&e);
	if (err < 0)
		return err;
	if (err == 1 || dist_min < e->dist_min)
		e->dist_min = dist_min;
	e->count = pdb_add_sat(e->count, count);
	return 0;
}

int pdb_prof_add_conflict(struct pdb_prof *p, uint64_t load_offset, const char *prior_key,
			  uint64_t prior_offset, unsigned int kind, uint64_t count,
			  uint32_t dist_min)
{
	uint32_t id;
	int err;

	if (!prior_key || (*prior_key && !pdb_key_is_valid(prior_key)))
		return -EINVAL;
	if (kind != PDB_CNF_STORE_LOAD && kind != PDB_CNF_LOAD_LOAD)
		return -EINVAL;
	if (dist_min == 0)
		return -EINVAL;
	if (!count)
		return 0;
	err = pdb_prof_intern(p, prior_key, &id);
	if (err)
		return err;
	return pdb_prof_add_cnf_id(p, load_offset, id, prior_offset, kind, count, dist_min);
}

/*
 * A (pid, tid, pc or offset, event) -> count table: unknown.prof, tasks.prof. A thread new to a
 * table that has rows of PDB_THR_MAX threads (tid != 0) is counted under tid 0 of its process.
 */
static int add_pid_row(struct pdb_prof *p, unsigned int t, uint32_t pid, uint32_t tid, uint64_t pc,
		       unsigned int event, uint64_t count)
{
	struct pdb_map *m = &p->t[t], *tids = &p->tids[t == PDB_T_TASKS];
	uint32_t thr[2] = { pid, tid };
	struct pdb_e_unk key, *e;
	void *seen;
	int err;

	if (event >= PDB_EV_MAX)
		return -EINVAL;
	if (!count)
		return 0;
	if (tid && !pdb_map_find(tids, thr)) {
		if (tids->n >= PDB_THR_MAX) {
			tid = 0;
		} else {
			err = pdb_map_get(tids, thr, &seen);
			if (err < 0)
				return err;
		}
	}
	memset(&key, 0, sizeof(key));
	key.pid = pid;
	key.tid = tid;
	key.event = event;
	key.pc = pc;
	err = pdb_map_get(m, &key, (void **)&e);
	if (err < 0)
		return err;
	e->count = pdb_add_sat(e->count, count);
	return 0;
}

int pdb_prof_add_unknown(struct pdb_prof *p, uint32_t pid, uint64_t pc, unsigned int event,
			 uint64_t count)
{
	return add_pid_row(p, PDB_T_UNKNOWN, pid, pid, pc, event, count);
}

int pdb_prof_add_unknown_tid(struct pdb_prof *p, uint32_t pid, uint32_t tid, uint64_t pc,
			     unsigned int event, uint64_t count)
{
	return add_pid_row(p, PDB_T_UNKNOWN, pid, tid, pc, event, count);
}

/* Issue 17 item 5: the samples of each process and thread (PDB_FT_TASKS). */
int pdb_prof_add_task(struct pdb_prof *p, uint32_t pid, uint64_t offset, unsigned int event,
		      uint64_t count)
{
	return add_pid_row(p, PDB_T_TASKS, pid, pid, offset, event, count);
}

int pdb_prof_add_task_tid(struct pdb_prof *p, uint32_t pid, uint32_t tid, uint64_t offset,
			  unsigned int event, uint64_t count)
{
	return add_pid_row(p, PDB_T_TASKS, pid, tid, offset, event, count);
}

/* One procs entry of src into dst: CALLER values re-keyed to dst's key ids. */
static int merge_proc(struct pdb_prof *dst, const struct pdb_prof *src, const struct pdb_e_proc *e)
{
	struct hotlist h = e->h;
	uint32_t i, id;
	int err;

	for (i = 0; e->kind == PDB_PROC_CALLER && i < h.used; i++) {
		uint64_t sid = h.value[i] >> PDB_PROC_KEY_SHIFT;

		if (sid == 0 || sid > src->nkeys)
			return -EINVAL;
		err = pdb_prof_intern(dst, src->keys[sid - 1], &id);
		if (err)
			return err;
		h.value[i] =
			(uint64_t)(id + 1) << PDB_PROC_KEY_SHIFT | (h.value[i] & PDB_PROC_OFF_MAX);
	}
	return pdb_prof_add_proc(dst, e->off, e->kind, e->reg, &h);
}

/* One stack of src into dst: frames re-keyed to dst's key ids. */
static int merge_stk(struct pdb_prof *dst, const struct pdb_prof *src, const struct pdb_e_stk *e)
{
	uint64_t frame[PDB_STK_DEPTH_MAX];
	uint32_t i, id;
	int err;

	for (i = 0; i < e->depth; i++) {
		uint64_t sid = e->frame[i] >> PDB_STK_KEY_SHIFT;

		if (sid == 0 || sid > src->nkeys)
			return -EINVAL;
		err = pdb_prof_intern(dst, src->keys[sid - 1], &id);
		if (err)
			return err;
		frame[i] =
			(uint64_t)(id + 1) << PDB_STK_KEY_SHIFT | (e->frame[i] & PDB_STK_OFF_MAX);
	}
	return pdb_prof_add_stk_ids(dst, e->event, e->flags, frame, e->depth, e->count);
}

static int merge_table(struct pdb_prof *dst, const struct pdb_prof *src, unsigned int t)
{
	const struct pdb_map *m = &src->t[t];
	size_t i = 0;
	void *v;
	int err;

	if (t < PDB_EV_MAX)
		pdb_period_add(&dst->period[t], &src->period[t]);
	if (t == PDB_T_THREADS)
		dst->thr_lost = pdb_add_sat(dst->thr_lost, src->thr_lost);
	if (!m->n)
		return 0;
	err = pdb_map_reserve(&dst->t[t], dst->t[t].n + m->n);
	if (err)
		return err;
	while ((v = pdb_map_next(m, &i))) {
		if (t < PDB_EV_MAX || t == PDB_T_VCOUNT) {
			const struct pdb_e_count *e = v;

			err = add_count(&dst->t[t], e->off, e->count);
		} else if (t == PDB_T_VALUES) {
			const struct pdb_e_value *e = v;

			err = pdb_prof_add_hotlist(dst, e->off, e->dest, &e->h);
		} else if (t == PDB_T_LATENCY) {
			const struct pdb_e_lat *e = v;

			err = pdb_prof_add_latency(dst, e->off, &e->lat);
		} else if (t == PDB_T_PROFILEME) {
			const struct pdb_e_pme *e = v;

			err = pdb_prof_add_profileme(dst, e->off, &e->pme);
		} else if (t == PDB_T_PROCS) {
			err = merge_proc(dst, src, v);
		} else if (t == PDB_T_PMPATHS) {
			const struct pdb_e_pmp *e = v;

			err = pdb_prof_add_pmpath(dst, e->off, &e->pp);
		} else if (t == PDB_T_ADDRS) {
			const struct pdb_e_addr *e = v;

			err = pdb_prof_add_addr(dst, e->off, e->kind, &e->h);
		} else if (t == PDB_T_CONFLICTS) {
			const struct pdb_e_cnf *e = v;
			uint32_t id;

			err = pdb_prof_intern(dst, src->keys[e->keyid], &id);
			if (!err)
				err = pdb_prof_add_cnf_id(dst, e->load_off, id, e->prior_off,
							  e->kind, e->count, e->dist_min);
		} else if (t == PDB_T_STACKS) {
			err = merge_stk(dst, src, v);
		} else if (t == PDB_T_TASKS) {
			const struct pdb_e_unk *e = v;

			err = pdb_prof_add_task_tid(dst, e->pid, e->tid, e->pc, e->event, e->count);
		} else if (t == PDB_T_UNKNOWN) {
			const struct pdb_e_unk *e = v;

			err = pdb_prof_add_unknown_tid(dst, e->pid, e->tid, e->pc, e->event,
						       e->count);
		} else if (t == PDB_T_THREADS) {
			err = pdb_thr_merge(dst, v);
		}
		if (err)
			return err;
	}
	return 0;
}

int pdb_prof_merge_tables(struct pdb_prof *dst, const struct pdb_prof *src, uint64_t mask)
{
	unsigned int t;
	int err;

	if (dst == src)
		return -EINVAL;
	for (t = 0; t < PDB_T_NR; t++) {
		if (!(mask & PDB_T_BIT(t)))
			continue;
		err = merge_table(dst, src, t);
		if (err)
			return err;
	}
	return 0;
}

int pdb_prof_merge(struct pdb_prof *dst, const struct pdb_prof *src)
{
	return pdb_prof_merge_tables(dst, src, ~0ull);
}

uint64_t pdb_prof_count(const struct pdb_prof *p, unsigned int event, uint64_t offset)
{
	const struct pdb_e_count *e;

	if (event >= PDB_EV_MAX)
		return 0;
	e = pdb_map_find(&p->t[event], &offset);
	return e ? e->count : 0;
}

uint64_t pdb_prof_total(const struct pdb_prof *p, unsigned int event)
{
	const struct pdb_e_count *e;
	uint64_t sum = 0;
	size_t i = 0;

	if (event >= PDB_EV_MAX)
		return 0;
	while ((e = pdb_map_next(&p->t[event], &i)))
		sum = pdb_add_sat(sum, e->count);
	return sum;
}

uint32_t pdb_prof_events(const struct pdb_prof *p)
{
	return (uint32_t)(pdb_prof_tables(p) & 0xffffffffu);
}

size_t pdb_prof_distinct(const struct pdb_prof *p, unsigned int event)
{
	return event < PDB_EV_MAX ? p->t[event].n : 0;
}

/* --- sorted views --- */

int pdb_cmp_off(const void *a, const void *b)
{
	uint64_t x = **(const uint64_t *const *)a, y = **(const uint64_t *const *)b;

	return x < y ? -1 : x > y;
}

int pdb_cmp_unk(const void *a, const void *b)
{
	const struct pdb_e_unk *x = *(const struct pdb_e_unk *const *)a;
	const struct pdb_e_unk *y = *(const struct pdb_e_unk *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

struct cnf_sort {
	uint64_t load_off;
	uint64_t prior_off;
	uint32_t rank; /* of the key string */
	uint32_t kind;
	const struct pdb_e_cnf *e;
};

static int cmp_cnf_sort(const void *a, const void *b)
{
	const struct cnf_sort *x = a, *y = b;

	if (x->load_off != y->load_off)
		return x->load_off < y->load_off ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->prior_off != y->prior_off)
		return x->prior_off < y->prior_off ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

struct key_rank {
	const char *key;
	uint32_t id;
};

static int cmp_key_rank(const void *a, const void *b)
{
	return strcmp(((const struct key_rank *)a)->key, ((const struct key_rank *)b)->key);
}

int pdb_prof_sorted_cnf(const struct pdb_prof *p, const struct pdb_e_cnf ***out)
{
	const struct pdb_map *m = &p->t[PDB_T_CONFLICTS];
	const struct pdb_e_cnf **v = NULL;
	struct cnf_sort *s = NULL;
	struct key_rank *order = NULL;
	uint32_t *rank = NULL, i;
	const struct pdb_e_cnf *e;
	size_t j = 0, k = 0;
	int err = -ENOMEM;

	*out = NULL;
	if (!m->n)
		return 0;
	order = pdb_malloc((p->nkeys + 1) * sizeof(*order));
	rank = pdb_malloc((p->nkeys + 1) * sizeof(*rank));
	s = pdb_malloc(m->n * sizeof(*s));
	v = pdb_malloc(m->n * sizeof(*v));
	if (!order || !rank || !s || !v)
		goto out_free;
	for (i = 0; i < p->nkeys; i++) {
		order[i].key = p->keys[i];
		order[i].id = i;
	}
	qsort(order, p->nkeys, sizeof(*order), cmp_key_rank);
	for (i = 0; i < p->nkeys; i++)
		rank[order[i].id] = i;
	while ((e = pdb_map_next(m, &j))) {
		s[k].load_off = e->load_off;
		s[k].prior_off = e->prior_off;
		s[k].rank = rank[e->keyid];
		s[k].kind = e->kind;
		s[k].e = e;
		k++;
	}
	qsort(s, k, sizeof(*s), cmp_cnf_sort);
	for (j = 0; j < k; j++)
		v[j] = s[j].e;
	*out = v;
	v = NULL;
	err = 0;
out_free:
	free(v);
	free(s);
	free(rank);
	free(order);
	return err;
}

static void fill_count(void *dst, const void *e)
{
	const struct pdb_e_count *c = e;
	struct pdb_count *d = dst;

	d->offset = c->off;
	d->count = c->count;
}

static void fill_value(void *dst, const void *e)
{
	const struct pdb_e_value *c = e;
	struct pdb_value *d = dst;

	d->offset = c->off;
	d->dest = c->dest;
	d->h = c->h;
}

static void fill_lat(void *dst, const void *e)
{
	const struct pdb_e_lat *c = e;
	struct pdb_lat *d = dst;

	d->offset = c->off;
	d->lat = c->lat;
}

static void fill_pme(void *dst, const void *e)
{
	const struct pdb_e_pme *c = e;
	struct pdb_pme *d = dst;

	d->offset = c->off;
	d->pme = c->pme;
}

static void fill_unk(void *dst, const void *e)
{
	const struct pdb_e_unk *c = e;
	struct pdb_unknown *d = dst;

	d->pid = c->pid;
	d->tid = c->tid;
	d->event = c->event;
	d->pc = c->pc;
	d->count = c->count;
}

int pdb_prof_samples(const struct pdb_prof *p, unsigned int event, struct pdb_count **out,
		     size_t *n)
{
	if (event >= PDB_EV_MAX)
		return -EINVAL;
	return pdb_map_copy_sorted(&p->t[event], sizeof(**out), pdb_cmp_off, fill_count,
				   (void **)out, n);
}

int pdb_prof_vcounts(const struct pdb_prof *p, struct pdb_count **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_VCOUNT], sizeof(**out), pdb_cmp_off, fill_count,
				   (void **)out, n);
}

int pdb_prof_values(const struct pdb_prof *p, struct pdb_value **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_VALUES], sizeof(**out), pdb_cmp_off, fill_value,
				   (void **)out, n);
}

int pdb_prof_latencies(const struct pdb_prof *p, struct pdb_lat **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_LATENCY], sizeof(**out), pdb_cmp_off, fill_lat,
				   (void **)out, n);
}

int pdb_prof_profileme(const struct pdb_prof *p, struct pdb_pme **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_PROFILEME], sizeof(**out), pdb_cmp_off, fill_pme,
				   (void **)out, n);
}

int pdb_prof_unknowns(const struct pdb_prof *p, struct pdb_unknown **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_UNKNOWN], sizeof(**out), pdb_cmp_unk, fill_unk,
				   (void **)out, n);
}

static void fill_task(void *dst, const void *e)
{
	const struct pdb_e_unk *c = e;
	struct pdb_task *d = dst;

	d->pid = c->pid;
	d->tid = c->tid;
	d->event = c->event;
	d->offset = c->pc;
	d->count = c->count;
}

int pdb_prof_tasks(const struct pdb_prof *p, struct pdb_task **out, size_t *n)
{
	return pdb_map_copy_sorted(&p->t[PDB_T_TASKS], sizeof(**out), pdb_cmp_unk, fill_task,
				   (void **)out, n);
}

int pdb_prof_conflicts(const struct pdb_prof *p, struct pdb_conflict **out, size_t *n)
{
	const struct pdb_e_cnf **v;
	struct pdb_conflict *a;
	size_t i, cnt = p->t[PDB_T_CONFLICTS].n;
	int err;

	*out = NULL;
	*n = 0;
	err = pdb_prof_sorted_cnf(p, &v);
	if (err || !v)
		return err;
	a = pdb_calloc(cnt, sizeof(*a));
	if (!a) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < cnt; i++) {
		a[i].load_offset = v[i]->load_off;
		a[i].prior_key = p->keys[v[i]->keyid];
		a[i].prior_offset = v[i]->prior_off;
		a[i].count = v[i]->count;
		a[i].kind = v[i]->kind;
		a[i].dist_min = (uint32_t)v[i]->dist_min;
	}
	free(v);
	*out = a;
	*n = cnt;
	return 0;
}
