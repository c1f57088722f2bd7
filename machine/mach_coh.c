/* machine/mach_coh.c - snooping MESI coherence between the hosted machine's virtual CPUs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mach.h"
#include "mach_coh.h"

/*
 * The protocol (mach_coh.h; seeds/r10000-counters-perfex-speedshop.txt, "interventions and
 * invalidations"). Per block the table keeps the protocol's view: the CPUs that may hold it
 * (holders) and whether the one holder owns it exclusively (E) or Modified (M). A CPU's caches
 * may drop a clean block silently, or write a dirty one back, without telling the table, as
 * a snooping cache does; a snoop therefore asks the model (holds) before it counts a hit.
 */

struct coh_line {
	uint64_t key; /* block + 1 (0: empty) */
	uint8_t holders; /* bit c: CPU c holds it (M, E or S) */
	uint8_t excl; /* the one holder has it E or M */
	uint8_t dirty; /* ... M */
};

struct coh_pc {
	uint64_t key; /* pc + 1 (0: empty) */
	uint64_t inval, interv, shstores;
};

struct mach_coh {
	unsigned int ncpus;
	uint32_t c2c, inval_lat;
	struct mach_coh_cpu cpu[MACH_MAX_CPUS];
	struct coh_line *lines;
	size_t lmask, lused;
	bool truth;
	struct coh_pc *pcs;
	size_t pmask, pused;
	bool failed; /* an allocation failed: the truth (not the protocol) is incomplete */
	uint64_t inval, interv, shstores;
	uint8_t *enc; /* the encoded truth section */
};

#define LINES0 4096u
#define PCS0 256u

static inline size_t hash64(uint64_t k)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20);
}

int mach_coh_new(struct mach_coh **out, unsigned int ncpus, uint32_t c2c, uint32_t inval,
		 bool truth)
{
	struct mach_coh *c;

	*out = NULL;
	if (ncpus < 2 || ncpus > MACH_MAX_CPUS)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ncpus = ncpus;
	c->c2c = c2c ? c2c : MACH_COH_C2C_LAT;
	c->inval_lat = inval ? inval : MACH_COH_INVAL_LAT;
	c->truth = truth;
	c->lines = calloc(LINES0, sizeof(*c->lines));
	c->lmask = LINES0 - 1;
	if (truth) {
		c->pcs = calloc(PCS0, sizeof(*c->pcs));
		c->pmask = PCS0 - 1;
	}
	if (!c->lines || (truth && !c->pcs)) {
		mach_coh_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void mach_coh_free(struct mach_coh *c)
{
	if (!c)
		return;
	free(c->lines);
	free(c->pcs);
	free(c->enc);
	free(c);
}

void mach_coh_attach(struct mach_coh *c, unsigned int cpu, const struct mach_coh_cpu *ops)
{
	if (cpu < c->ncpus)
		c->cpu[cpu] = *ops;
}

uint32_t mach_coh_param(const struct mach_coh *c, bool c2c)
{
	return c2c ? c->c2c : c->inval_lat;
}

void mach_coh_totals(const struct mach_coh *c, uint64_t *inval, uint64_t *interv,
		     uint64_t *shstores)
{
	*inval = c->inval;
	*interv = c->interv;
	*shstores = c->shstores;
}

/* Double the block table (load factor at most 1/2). false: no memory (the caller's table is
 * still valid and has room: growth starts at half full). */
static bool lines_grow(struct mach_coh *c)
{
	size_t n = (c->lmask + 1) * 2;
	struct coh_line *t = calloc(n, sizeof(*t));

	if (!t)
		return false;
	for (size_t i = 0; i <= c->lmask; i++) {
		size_t j;

		if (!c->lines[i].key)
			continue;
		for (j = hash64(c->lines[i].key) & (n - 1); t[j].key; j = (j + 1) & (n - 1))
			;
		t[j] = c->lines[i];
	}
	free(c->lines);
	c->lines = t;
	c->lmask = n - 1;
	return true;
}

/* The block's entry, made empty (no holders) when new. */
static struct coh_line *line_get(struct mach_coh *c, uint64_t blk)
{
	uint64_t key = blk + 1;
	size_t i;

	for (i = hash64(key) & c->lmask; c->lines[i].key; i = (i + 1) & c->lmask)
		if (c->lines[i].key == key)
			return &c->lines[i];
	if (2 * (c->lused + 1) > c->lmask + 1 && lines_grow(c))
		for (i = hash64(key) & c->lmask; c->lines[i].key; i = (i + 1) & c->lmask)
			;
	c->lused++;
	c->lines[i] = (struct coh_line){ .key = key };
	return &c->lines[i];
}

static struct coh_pc *pc_get(struct mach_coh *c, uint64_t pc)
{
	uint64_t key = pc + 1;
	size_t i;

	for (i = hash64(key) & c->pmask; c->pcs[i].key; i = (i + 1) & c->pmask)
		if (c->pcs[i].key == key)
			return &c->pcs[i];
	if (2 * (c->pused + 1) > c->pmask + 1) {
		size_t n = (c->pmask + 1) * 2;
		struct coh_pc *t = calloc(n, sizeof(*t));

		if (!t) {
			c->failed = true;
			return NULL;
		}
		for (size_t k = 0; k <= c->pmask; k++) {
			size_t j;

			if (!c->pcs[k].key)
				continue;
			for (j = hash64(c->pcs[k].key) & (n - 1); t[j].key; j = (j + 1) & (n - 1))
				;
			t[j] = c->pcs[k];
		}
		free(c->pcs);
		c->pcs = t;
		c->pmask = n - 1;
		for (i = hash64(key) & c->pmask; c->pcs[i].key; i = (i + 1) & c->pmask)
			;
	}
	c->pused++;
	c->pcs[i].key = key;
	return &c->pcs[i];
}

static void account(struct mach_coh *c, uint64_t pc, const struct mach_coh_res *r, bool shared)
{
	struct coh_pc *p;

	c->inval += r->inval;
	c->interv += r->interv;
	c->shstores += shared;
	if (!c->truth)
		return;
	p = pc_get(c, pc);
	if (!p)
		return;
	p->inval += r->inval;
	p->interv += r->interv;
	p->shstores += shared;
}

static inline bool snoop(const struct mach_coh *c, unsigned int cpu, uint64_t blk)
{
	return c->cpu[cpu].holds && c->cpu[cpu].holds(c->cpu[cpu].model, blk);
}

static inline void drop(const struct mach_coh *c, unsigned int cpu, uint64_t blk)
{
	if (c->cpu[cpu].inval)
		c->cpu[cpu].inval(c->cpu[cpu].model, blk);
}

void mach_coh_load(struct mach_coh *c, unsigned int cpu, uint64_t ea, uint64_t pc,
		   struct mach_coh_res *r)
{
	const uint64_t blk = ea >> MACH_COH_SHIFT;
	struct coh_line *l = line_get(c, blk);
	const uint8_t me = (uint8_t)(1u << cpu);

	*r = (struct mach_coh_res){ 0 };
	if (l->holders & me)
		return; /* M, E or S here: no bus transaction */
	drop(c, cpu, blk); /* a stale copy the protocol does not know of */
	for (unsigned int o = 0; o < c->ncpus; o++) {
		if (!(l->holders & (1u << o)))
			continue;
		if (!snoop(c, o, blk)) { /* dropped silently (or written back) */
			l->holders &= (uint8_t) ~(1u << o);
			continue;
		}
		if (l->excl && l->dirty) { /* Modified there: intervention, M -> S */
			r->interv = true;
			r->lat = c->c2c;
		}
	}
	l->excl = l->holders == 0; /* E when no one else has it, else everyone S */
	l->dirty = 0;
	l->holders |= me;
	if (r->interv)
		account(c, pc, r, false);
}

void mach_coh_store(struct mach_coh *c, unsigned int cpu, uint64_t ea, uint64_t pc,
		    struct mach_coh_res *r)
{
	const uint64_t blk = ea >> MACH_COH_SHIFT;
	struct coh_line *l = line_get(c, blk);
	const uint8_t me = (uint8_t)(1u << cpu);
	bool shared;

	*r = (struct mach_coh_res){ 0 };
	if (l->holders == me && l->excl) {
		l->dirty = 1; /* M stays M, E becomes M silently */
		return;
	}
	shared = (l->holders & me) != 0; /* S here: an upgrade */
	if (!shared)
		drop(c, cpu, blk);
	for (unsigned int o = 0; o < c->ncpus; o++) {
		if (o == cpu || !(l->holders & (1u << o)))
			continue;
		if (snoop(c, o, blk)) {
			if (l->excl && l->dirty)
				r->interv = true; /* read-exclusive of a Modified block */
			r->inval++;
			drop(c, o, blk);
		}
	}
	l->holders = me;
	l->excl = 1;
	l->dirty = 1;
	r->lat = (r->inval ? c->inval_lat : 0) + (r->interv ? c->c2c : 0);
	if (r->inval || r->interv)
		account(c, pc, r, r->inval && shared);
}

static int cmp_pc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int mach_coh_truth_xsec(struct mach_coh *c, struct mach_truth_xsec *x)
{
	uint64_t *rec;
	size_t n = 0;

	if (!c->truth)
		return -EINVAL;
	free(c->enc);
	c->enc = malloc((c->pused ? c->pused : 1) * MACH_TRUTH_COH_SIZE);
	if (!c->enc)
		return -ENOMEM;
	rec = malloc((c->pused ? c->pused : 1) * 4 * sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	for (size_t i = 0; i <= c->pmask; i++) {
		const struct coh_pc *p = &c->pcs[i];

		if (!p->key)
			continue;
		rec[4 * n] = p->key - 1;
		rec[4 * n + 1] = p->inval;
		rec[4 * n + 2] = p->interv;
		rec[4 * n + 3] = p->shstores;
		n++;
	}
	qsort(rec, n, 4 * sizeof(*rec), cmp_pc);
	for (size_t i = 0; i < n; i++)
		for (unsigned int k = 0; k < 4; k++)
			mach_put64(c->enc + i * MACH_TRUTH_COH_SIZE + 8 * k, rec[4 * i + k]);
	free(rec);
	*x = (struct mach_truth_xsec){ MACH_TRUTH_SEC_COHERENCE, MACH_TRUTH_COH_SIZE, n, c->enc };
	return 0;
}
