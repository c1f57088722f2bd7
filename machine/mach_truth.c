/* machine/mach_truth.c - ground truth: per-PC map, truth file writer and reader (both models). */
/*
 * In memory: an open-addressing hash (pc -> index) over a growable array of records; the last
 * record looked up is cached (mach_ev5_retire() touches one PC several times). Each record holds
 * the counts of its first non-fall-through successor and, for conditional branches, of the
 * fall-through, so direct branches never touch the separate (from, to) edge hash that indirect
 * jumps with several targets need. The file format is documented in mach_truth.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ax_err.h"
#include "mach_coh.h"
#include "mach_ev5_model.h"
#include "mach_trec.h"

#define TRUTH_NSEC 11 /* section types 0..10 */

const char *const mach_stall_name[MACH_STALL_NR] = {
	[MACH_STALL_STATIC] = "static",	  [MACH_STALL_IMISS] = "imiss",
	[MACH_STALL_DMISS] = "dmiss",	  [MACH_STALL_ITBMISS] = "itbmiss",
	[MACH_STALL_DTBMISS] = "dtbmiss", [MACH_STALL_BRANCHMP] = "branchmp",
	[MACH_STALL_WBFULL] = "wbfull",	  [MACH_STALL_UNIT] = "unit",
	[MACH_STALL_OTHER] = "other",
};

/* ------------------------------------------------------------------------------------------ */
/* In-memory map. */

static inline size_t hash_pc(uint64_t pc)
{
	return (size_t)(((pc >> 2) * 0x9e3779b97f4a7c15ull) >> 20);
}

static inline size_t hash_edge(uint64_t from, uint64_t to)
{
	return (size_t)((((from >> 2) * 0x9e3779b97f4a7c15ull) ^
			 ((to >> 2) * 0xc2b2ae3d27d4eb4full)) >>
			20);
}

int ev5_truth_new(struct ev5_truth **out)
{
	struct ev5_truth *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->tab_mask = 4096 - 1;
	t->tab = calloc(t->tab_mask + 1, sizeof(*t->tab));
	t->cap = 1024;
	t->recs = malloc(t->cap * sizeof(*t->recs));
	t->etab_mask = 256 - 1;
	t->etab = calloc(t->etab_mask + 1, sizeof(*t->etab));
	if (!t->tab || !t->recs || !t->etab) {
		ev5_truth_free(t);
		return -ENOMEM;
	}
	t->last_pc = UINT64_MAX;
	*out = t;
	return 0;
}

void ev5_truth_free(struct ev5_truth *t)
{
	if (!t)
		return;
	free(t->tab);
	free(t->recs);
	free(t->etab);
	free(t);
}

static int grow_tab(struct ev5_truth *t)
{
	size_t nmask = t->tab_mask * 2 + 1;
	struct ev5_slot *n = calloc(nmask + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= t->tab_mask; i++) {
		size_t h;

		if (!t->tab[i].key)
			continue;
		for (h = hash_pc(t->tab[i].key - 1) & nmask; n[h].key; h = (h + 1) & nmask)
			;
		n[h] = t->tab[i];
	}
	free(t->tab);
	t->tab = n;
	t->tab_mask = nmask;
	return 0;
}

struct ev5_trec *ev5_truth_rec_slow(struct ev5_truth *t, uint64_t pc)
{
	size_t h;
	struct ev5_trec *r;

	for (h = hash_pc(pc) & t->tab_mask; t->tab[h].key; h = (h + 1) & t->tab_mask) {
		if (t->tab[h].key == pc + 1) {
			t->last_pc = pc;
			t->last_idx = t->tab[h].val;
			return &t->recs[t->last_idx];
		}
	}
	/* new PC */
	if (t->nrecs == t->cap) {
		struct ev5_trec *n = realloc(t->recs, 2 * t->cap * sizeof(*n));

		if (!n) {
			t->failed = true;
			return NULL;
		}
		t->recs = n;
		t->cap *= 2;
	}
	if (2 * (t->tab_used + 1) > t->tab_mask + 1) {
		if (grow_tab(t)) {
			t->failed = true;
			return NULL;
		}
		for (h = hash_pc(pc) & t->tab_mask; t->tab[h].key; h = (h + 1) & t->tab_mask)
			;
	}
	t->tab[h].key = pc + 1;
	t->tab[h].val = t->nrecs;
	t->tab_used++;
	r = &t->recs[t->nrecs];
	memset(r, 0, sizeof(*r));
	r->pc = pc;
	t->last_pc = pc;
	t->last_idx = t->nrecs++;
	return r;
}

static int grow_etab(struct ev5_truth *t)
{
	size_t nmask = t->etab_mask * 2 + 1;
	struct ev5_slot *n = calloc(nmask + 1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i <= t->etab_mask; i++) {
		size_t h;
		struct ev5_slot *s = &t->etab[i];

		if (!s->key)
			continue;
		for (h = hash_edge(s->key - 1, s->aux) & nmask; n[h].key; h = (h + 1) & nmask)
			;
		n[h] = *s;
	}
	free(t->etab);
	t->etab = n;
	t->etab_mask = nmask;
	return 0;
}

/* Count the transfer from -> to n times (r: from's record). */
static void edge_add(struct ev5_truth *t, struct ev5_trec *r, uint64_t from, uint64_t to, bool cond,
		     uint64_t n)
{
	size_t h;

	if (cond && to == from + 4) {
		r->f_n += n;
		return;
	}
	if (!r->e_n || r->e_to == to) {
		r->e_to = to;
		r->e_n += n;
		return;
	}
	for (h = hash_edge(from, to) & t->etab_mask; t->etab[h].key; h = (h + 1) & t->etab_mask) {
		if (t->etab[h].key == from + 1 && t->etab[h].aux == to) {
			t->etab[h].val += n;
			return;
		}
	}
	if (2 * (t->etab_used + 1) > t->etab_mask + 1) {
		if (grow_etab(t)) {
			t->failed = true;
			return;
		}
		for (h = hash_edge(from, to) & t->etab_mask; t->etab[h].key;
		     h = (h + 1) & t->etab_mask)
			;
	}
	t->etab[h].key = from + 1;
	t->etab[h].aux = to;
	t->etab[h].val = n;
	t->etab_used++;
}

void ev5_truth_edge(struct ev5_truth *t, struct ev5_trec *r, uint64_t from, uint64_t to, bool cond)
{
	edge_add(t, r, from, to, cond, 1);
}

int ev5_truth_absorb(struct ev5_truth *t, const struct ev5_truth *src)
{
	struct ev5_trec *r;

	if (src->failed)
		t->failed = true;
	for (size_t i = 0; i < src->nrecs && !t->failed; i++) {
		const struct ev5_trec *s = &src->recs[i];

		r = ev5_truth_rec(t, s->pc);
		if (!r)
			break;
		r->exec += s->exec;
		r->head += s->head;
		for (unsigned int c = 0; c < MACH_STALL_NR; c++)
			r->stall[c] += s->stall[c];
		for (unsigned int e = 0; e < MACH_TEV_NR; e++)
			r->ev[e] += s->ev[e];
		if (s->f_n)
			edge_add(t, r, s->pc, s->pc + 4, true, s->f_n);
		if (s->e_n)
			edge_add(t, r, s->pc, s->e_to, false, s->e_n);
	}
	for (size_t i = 0; i <= src->etab_mask && !t->failed; i++) {
		const struct ev5_slot *e = &src->etab[i];

		if (!e->key)
			continue;
		r = ev5_truth_rec(t, e->key - 1);
		if (r)
			edge_add(t, r, e->key - 1, e->aux, false, e->val);
	}
	for (unsigned int nr = 0; nr < MACH_KERN_NR; nr++) {
		t->kcalls[nr] += src->kcalls[nr];
		t->kcycles[nr] += src->kcycles[nr];
	}
	return t->failed ? -ENOMEM : 0;
}

bool mach_ev5_truth_get(const struct mach_ev5 *m, uint64_t pc, struct mach_truth_pc *out)
{
	const struct ev5_truth *t = m->truth;

	if (!t)
		return false;
	for (size_t h = hash_pc(pc) & t->tab_mask; t->tab[h].key; h = (h + 1) & t->tab_mask) {
		if (t->tab[h].key == pc + 1) {
			const struct ev5_trec *r = &t->recs[t->tab[h].val];

			out->pc = r->pc;
			out->exec = r->exec;
			out->head = r->head;
			memcpy(out->stall, r->stall, sizeof(out->stall));
			memcpy(out->ev, r->ev, sizeof(out->ev));
			return true;
		}
	}
	return false;
}

/* ------------------------------------------------------------------------------------------ */
/* Little-endian encoding. */

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void mach_put32(uint8_t *p, uint32_t v)
{
	put32(p, v);
}

void mach_put64(uint8_t *p, uint64_t v)
{
	put64(p, v);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t crc_buf(const uint8_t *buf, size_t len)
{
	uLong c = crc32(0L, Z_NULL, 0);
	static const uint8_t zero[4];

	/* zlib takes uInt lengths: feed large buffers in pieces; the CRC field counts as zero */
	c = crc32(c, buf, 32);
	c = crc32(c, zero, 4);
	for (size_t off = 36; off < len;) {
		size_t n = len - off > (1u << 30) ? (1u << 30) : len - off;

		c = crc32(c, buf + off, (uInt)n);
		off += n;
	}
	return (uint32_t)c;
}

/* ------------------------------------------------------------------------------------------ */
/* Writer. */

static int cmp_pc(const void *a, const void *b)
{
	const struct ev5_trec *x = *(const struct ev5_trec *const *)a;
	const struct ev5_trec *y = *(const struct ev5_trec *const *)b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct mach_truth_edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static void ev5_params(uint32_t *v, const struct mach_ev5_params *q)
{
	memset(v, 0, MACH_TP_NR * sizeof(*v));
	v[MACH_TP_DCACHE_LAT] = q->dcache_lat;
	v[MACH_TP_SCACHE_LAT] = q->scache_lat;
	v[MACH_TP_BCACHE_LAT] = q->bcache_lat;
	v[MACH_TP_MEM_LAT] = q->mem_lat;
	v[MACH_TP_MEM_OCCUPANCY] = q->mem_occupancy;
	v[MACH_TP_BCACHE_KB] = q->bcache_kb;
	v[MACH_TP_MISPREDICT] = q->mispredict;
	v[MACH_TP_ITB_MISS] = q->itb_miss;
	v[MACH_TP_DTB_MISS] = q->dtb_miss;
	v[MACH_TP_WB_SCACHE] = q->wb_scache;
	v[MACH_TP_WB_TIMEOUT] = q->wb_timeout;
	v[MACH_TP_PAL_CYCLES] = q->pal_cycles;
	v[MACH_TP_REPLAY] = q->replay;
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Serialise `o` into a new buffer. */
/* Section 10: the kernel time of each system call number that ran. */
static void encode_syscalls(const struct ev5_truth *t, uint8_t *p)
{
	for (unsigned int nr = 0; nr < MACH_KERN_NR; nr++) {
		if (!t->kcalls[nr])
			continue;
		put32(p, nr);
		put64(p + 8, t->kcalls[nr]);
		put64(p + 16, t->kcycles[nr]);
		mach_kern_name(nr, (char *)p + 24, MACH_TRUTH_SYSCALL_NAME);
		p += MACH_TRUTH_SYSCALL_SIZE;
	}
}

static int truth_encode(const struct mach_truth_out *o, uint8_t **out, size_t *outlen)
{
	const struct ev5_truth *t = o->t;
	const struct ev5_trec **order = NULL;
	struct mach_truth_edge *edges = NULL;
	size_t nedges = 0, maxedges, off, len, npcs = t->nrecs;
	size_t sum_off, pcs_off, edg_off, xoff[MACH_TREC_XSEC_MAX] = { 0 }, nsec = 3 + o->nxsec;
	size_t nsys = 0, sys_off;
	uint8_t *buf, *p;
	int err = -ENOMEM;

	if (o->nxsec > MACH_TREC_XSEC_MAX)
		return -EINVAL;
	order = malloc((npcs ? npcs : 1) * sizeof(*order));
	maxedges = 2 * npcs + t->etab_used + 1;
	edges = malloc(maxedges * sizeof(*edges));
	if (!order || !edges)
		goto out_free;
	for (size_t i = 0; i < npcs; i++) {
		const struct ev5_trec *r = &t->recs[i];

		order[i] = r;
		if (r->e_n)
			edges[nedges++] = (struct mach_truth_edge){ r->pc, r->e_to, r->e_n };
		if (r->f_n)
			edges[nedges++] = (struct mach_truth_edge){ r->pc, r->pc + 4, r->f_n };
	}
	for (size_t i = 0; i <= t->etab_mask; i++)
		if (t->etab[i].key)
			edges[nedges++] =
				(struct mach_truth_edge){ t->etab[i].key - 1, t->etab[i].aux,
							  t->etab[i].val };
	for (unsigned int nr = 0; nr < MACH_KERN_NR; nr++)
		nsys += t->kcalls[nr] != 0;
	if (nsys)
		nsec++;
	qsort(order, npcs, sizeof(*order), cmp_pc);
	qsort(edges, nedges, sizeof(*edges), cmp_edge);

	sum_off = MACH_TRUTH_HDR_SIZE + nsec * MACH_TRUTH_SECENT_SIZE;
	pcs_off = sum_off + MACH_TRUTH_SUMMARY_SIZE;
	edg_off = pcs_off + npcs * MACH_TRUTH_PC_SIZE;
	len = edg_off + nedges * MACH_TRUTH_EDGE_SIZE;
	for (unsigned int i = 0; i < o->nxsec; i++) {
		xoff[i] = len;
		len += (size_t)o->xsec[i].n * o->xsec[i].rsz; /* record sizes are multiples of 8 */
	}
	sys_off = len;
	len += nsys * MACH_TRUTH_SYSCALL_SIZE;
	buf = calloc(1, len);
	if (!buf)
		goto out_free;

	memcpy(buf, MACH_TRUTH_MAGIC, 8);
	put32(buf + 8, MACH_TRUTH_VERSION);
	put32(buf + 12, MACH_TRUTH_BOM);
	put32(buf + 16, MACH_TRUTH_HDR_SIZE);
	put32(buf + 20, (uint32_t)nsec);
	put64(buf + 24, len);

	p = buf + MACH_TRUTH_HDR_SIZE;
	put32(p, MACH_TRUTH_SEC_SUMMARY);
	put32(p + 4, MACH_TRUTH_SUMMARY_SIZE);
	put64(p + 8, sum_off);
	put64(p + 16, 1);
	p += MACH_TRUTH_SECENT_SIZE;
	put32(p, MACH_TRUTH_SEC_PCS);
	put32(p + 4, MACH_TRUTH_PC_SIZE);
	put64(p + 8, pcs_off);
	put64(p + 16, npcs);
	p += MACH_TRUTH_SECENT_SIZE;
	put32(p, MACH_TRUTH_SEC_EDGES);
	put32(p + 4, MACH_TRUTH_EDGE_SIZE);
	put64(p + 8, edg_off);
	put64(p + 16, nedges);
	for (unsigned int i = 0; i < o->nxsec; i++) {
		p += MACH_TRUTH_SECENT_SIZE;
		put32(p, o->xsec[i].type);
		put32(p + 4, o->xsec[i].rsz);
		put64(p + 8, xoff[i]);
		put64(p + 16, o->xsec[i].n);
		if (o->xsec[i].n)
			memcpy(buf + xoff[i], o->xsec[i].data,
			       (size_t)o->xsec[i].n * o->xsec[i].rsz);
	}
	if (nsys) {
		p += MACH_TRUTH_SECENT_SIZE;
		put32(p, MACH_TRUTH_SEC_SYSCALLS);
		put32(p + 4, MACH_TRUTH_SYSCALL_SIZE);
		put64(p + 8, sys_off);
		put64(p + 16, nsys);
		encode_syscalls(t, buf + sys_off);
	}

	p = buf + sum_off;
	put64(p, o->cycles);
	put64(p + 8, o->insns);
	for (unsigned int c = 0; c < MACH_STALL_NR; c++)
		put64(p + 16 + 8 * c, o->stall[c]);
	for (unsigned int e = 0; e < MACH_TRUTH_NEVENTS; e++)
		put64(p + 88 + 8 * e, o->events[e]);
	for (unsigned int i = 0; i < MACH_TP_NR; i++)
		put32(p + 144 + 4 * i, o->param[i]);
	for (unsigned int i = 0; i < MACH_TRUTH_NEXT; i++)
		put64(p + 208 + 8 * i, o->ext[i]);

	off = pcs_off;
	for (size_t i = 0; i < npcs; i++, off += MACH_TRUTH_PC_SIZE) {
		const struct ev5_trec *r = order[i];

		p = buf + off;
		put64(p, r->pc);
		put64(p + 8, r->exec);
		put64(p + 16, r->head);
		for (unsigned int c = 0; c < MACH_STALL_NR; c++)
			put64(p + 24 + 8 * c, r->stall[c]);
		for (unsigned int e = 0; e < MACH_TEV_NR; e++)
			put64(p + 96 + 8 * e, r->ev[e]);
	}
	off = edg_off;
	for (size_t i = 0; i < nedges; i++, off += MACH_TRUTH_EDGE_SIZE) {
		put64(buf + off, edges[i].from);
		put64(buf + off + 8, edges[i].to);
		put64(buf + off + 16, edges[i].count);
	}
	put32(buf + 32, crc_buf(buf, len));
	*out = buf;
	*outlen = len;
	err = 0;
out_free:
	free(order);
	free(edges);
	return err;
}

int mach_truth_out_write(const struct mach_truth_out *o, const char *path)
{
	uint8_t *buf;
	size_t len, plen = strlen(path);
	char *tmp;
	int fd, err;

	if (o->t->failed)
		return -ENOMEM;
	err = truth_encode(o, &buf, &len);
	if (err)
		return err;
	tmp = malloc(plen + 16);
	if (!tmp) {
		err = -ENOMEM;
		goto out_free_buf;
	}
	snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out_free_tmp;
	}
	err = fchmod(fd, 0644) ? -errno : 0; /* mkstemp() makes it 0600 */
	if (!err)
		err = write_all(fd, buf, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out_free_tmp:
	free(tmp);
out_free_buf:
	free(buf);
	return err;
}

/* The EV5 model's truth file (version 2 layout; the EV6 words and sections absent). */
int ev5_truth_write(const struct mach_ev5 *m, const char *path)
{
	struct mach_truth_out o = {
		.t = m->truth,
		.cycles = m->cur,
		.insns = m->insns,
		.stall = m->stall,
		.events = m->count,
	};

	ev5_params(o.param, &m->p);
	if (m->coh) { /* section 9: coherence, all CPUs (mach_coh.h) */
		int err = mach_coh_truth_xsec(m->coh, &o.xsec[o.nxsec]);

		if (err)
			return err;
		o.nxsec++;
	}
	return mach_truth_out_write(&o, path);
}

int ev5_truth_write_cpus(struct mach_ev5 *const *v, unsigned int n, const char *path)
{
	uint64_t stall[MACH_STALL_NR] = { 0 }, count[MACH_EV_NR] = { 0 };
	struct mach_truth_out o = { .stall = stall, .events = count };
	struct ev5_truth *t;
	int err;

	if (n == 1)
		return ev5_truth_write(v[0], path);
	err = ev5_truth_new(&t);
	for (unsigned int i = 0; !err && i < n; i++) {
		err = v[i]->truth ? ev5_truth_absorb(t, v[i]->truth) : -EINVAL;
		o.cycles += v[i]->cur;
		o.insns += v[i]->insns;
		for (unsigned int c = 0; c < MACH_STALL_NR; c++)
			stall[c] += v[i]->stall[c];
		for (unsigned int e = 0; e < MACH_EV_NR; e++)
			count[e] += v[i]->count[e];
	}
	o.t = t;
	if (!err) {
		ev5_params(o.param, &v[0]->p);
		if (v[0]->coh) /* section 9: coherence, all CPUs (mach_coh.h) */
			err = mach_coh_truth_xsec(v[0]->coh, &o.xsec[o.nxsec++]);
	}
	if (!err)
		err = mach_truth_out_write(&o, path);
	ev5_truth_free(t);
	return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Reader: every check of a damaged file is an AX_CORRUPT() naming the file and the offset. */

/* The header's checks; *tab_end gets the end of the section table. */
static int parse_header(const uint8_t *buf, size_t len, const char *name, struct mach_truth *t,
			uint32_t *nsec, uint64_t *tab_end, struct ax_error *err)
{
	uint64_t size;

	if (len < MACH_TRUTH_HDR_SIZE)
		return AX_CORRUPT(err, name, len, "shorter than the %d-byte header",
				  MACH_TRUTH_HDR_SIZE);
	if (memcmp(buf, MACH_TRUTH_MAGIC, 8))
		return AX_CORRUPT(err, name, 0, "not a truth file (bad magic)");
	t->version = get32(buf + 8);
	if (t->version == 0 || t->version > MACH_TRUTH_VERSION)
		return AX_CORRUPT(err, name, 8, "format version %u (this reader knows 1..%d)",
				  t->version, MACH_TRUTH_VERSION);
	if (get32(buf + 12) != MACH_TRUTH_BOM)
		return AX_CORRUPT(err, name, 12, "bad byte-order mark");
	if (get32(buf + 16) != MACH_TRUTH_HDR_SIZE)
		return AX_CORRUPT(err, name, 16, "header size %u, not %d", get32(buf + 16),
				  MACH_TRUTH_HDR_SIZE);
	*nsec = get32(buf + 20);
	if (*nsec == 0 || *nsec > MACH_TRUTH_MAX_SECTIONS)
		return AX_CORRUPT(err, name, 20, "%u sections (1..%d)", *nsec,
				  MACH_TRUTH_MAX_SECTIONS);
	size = get64(buf + 24);
	if (size != len)
		return AX_CORRUPT(err, name, size > len ? len : 24,
				  "the header says %llu bytes, the file has %zu (truncated?)",
				  (unsigned long long)size, len);
	*tab_end = MACH_TRUTH_HDR_SIZE + (uint64_t)*nsec * MACH_TRUTH_SECENT_SIZE;
	if (*tab_end > len)
		return AX_CORRUPT(err, name, len, "the section table runs past the end");
	if (get32(buf + 32) != crc_buf(buf, len))
		return AX_CORRUPT(err, name, 32, "checksum mismatch");
	return 0;
}

/* One section-table entry: its bounds, and which known section it is (sec[type]). */
static int parse_secent(const uint8_t *buf, size_t len, const char *name, uint32_t i,
			uint64_t tab_end, const uint8_t *sec[TRUTH_NSEC], struct ax_error *err)
{
	static const uint32_t minsz[TRUTH_NSEC] = {
		0,
		MACH_TRUTH_SUMMARY_SIZE,
		MACH_TRUTH_PC_SIZE,
		MACH_TRUTH_EDGE_SIZE,
		0,
		MACH_TRUTH_EV6PC_SIZE,
		MACH_TRUTH_REPLAY_SIZE,
		MACH_TRUTH_WASTE_SIZE,
		MACH_TRUTH_PATH_SIZE,
		MACH_TRUTH_COH_SIZE,
		MACH_TRUTH_SYSCALL_SIZE,
	};
	const uint8_t *e = buf + MACH_TRUTH_HDR_SIZE + (size_t)i * MACH_TRUTH_SECENT_SIZE;
	uint64_t eoff = (uint64_t)(e - buf), off = get64(e + 8), cnt = get64(e + 16);
	uint32_t type = get32(e), rsz = get32(e + 4);

	if (!rsz)
		return AX_CORRUPT(err, name, eoff + 4, "section %u: record size 0", i);
	if (off % 8 || off < tab_end || off > len)
		return AX_CORRUPT(err, name, eoff + 8, "section %u: data offset %llu out of bounds",
				  i, (unsigned long long)off);
	if (cnt > (len - off) / rsz)
		return AX_CORRUPT(err, name, eoff + 16, "section %u: %llu records run past the end",
				  i, (unsigned long long)cnt);
	if (type < MACH_TRUTH_SEC_SUMMARY || type >= TRUTH_NSEC || type == MACH_TRUTH_SEC_VALUES)
		return 0; /* a section this reader does not know */
	if (type == MACH_TRUTH_SEC_SUMMARY && cnt != 1)
		return AX_CORRUPT(err, name, eoff + 16, "%llu summary records, not 1",
				  (unsigned long long)cnt);
	if (rsz < minsz[type])
		return AX_CORRUPT(err, name, eoff + 4, "section %u: record size %u, less than %u",
				  i, rsz, minsz[type]);
	if (sec[type])
		return AX_CORRUPT(err, name, eoff, "section type %u appears twice", type);
	sec[type] = e;
	return 0;
}

static int parse_sections(const uint8_t *buf, size_t len, const char *name, uint32_t nsec,
			  uint64_t tab_end, const uint8_t *sec[TRUTH_NSEC], struct ax_error *err)
{
	int ret;

	for (uint32_t i = 0; i < nsec; i++) {
		ret = parse_secent(buf, len, name, i, tab_end, sec, err);
		if (ret)
			return ret;
	}
	for (unsigned int type = MACH_TRUTH_SEC_SUMMARY; type <= MACH_TRUTH_SEC_EDGES; type++)
		if (!sec[type])
			return AX_CORRUPT(err, name, MACH_TRUTH_HDR_SIZE,
					  "section type %u (summary, pcs, edges) missing", type);
	return 0;
}

static void parse_summary(const uint8_t *buf, const uint8_t *ent, struct mach_truth *t)
{
	const uint8_t *p = buf + get64(ent + 8);

	t->sum.cycles = get64(p);
	t->sum.insns = get64(p + 8);
	for (unsigned int c = 0; c < MACH_STALL_NR; c++)
		t->sum.stall[c] = get64(p + 16 + 8 * c);
	for (unsigned int e = 0; e < MACH_TRUTH_NEVENTS; e++)
		t->sum.events[e] = get64(p + 88 + 8 * e);
	for (unsigned int i = 0; i < MACH_TP_NR; i++)
		t->sum.param[i] = get32(p + 144 + 4 * i);
	for (unsigned int i = 0; i < MACH_TRUTH_NEXT; i++)
		t->sum.ext[i] = get64(p + 208 + 8 * i);
}

static int parse_ev6(const uint8_t *buf, const char *name, const uint8_t *ent, struct mach_truth *t,
		     struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->nev6 = get64(ent + 16);
	t->ev6 = calloc(t->nev6 ? t->nev6 : 1, sizeof(*t->ev6));
	if (!t->ev6)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu EV6 records", name,
			       t->nev6);
	for (size_t i = 0; i < t->nev6; i++, off += rsz) {
		struct mach_truth_ev6pc *r = &t->ev6[i];

		r->pc = get64(buf + off);
		if (i && r->pc <= t->ev6[i - 1].pc)
			return AX_CORRUPT(err, name, off, "EV6 pc records not in increasing order");
		for (unsigned int c = 0; c < MACH_T6_NR; c++)
			r->c[c] = get64(buf + off + 8 + 8 * c);
		if (r->c[MACH_T6_FETCH] !=
		    r->c[MACH_T6_RETIRE] + r->c[MACH_T6_AB_REPLAY] + r->c[MACH_T6_AB_YOUNGER])
			return AX_CORRUPT(err, name, off + 8,
					  "pc 0x%llx: fetches are not retires plus aborts",
					  (unsigned long long)r->pc);
	}
	return 0;
}

static int cmp_replay(const struct mach_truth_replay *x, const struct mach_truth_replay *y)
{
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int parse_replays(const uint8_t *buf, const char *name, const uint8_t *ent,
			 struct mach_truth *t, struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->nreplays = get64(ent + 16);
	t->replays = calloc(t->nreplays ? t->nreplays : 1, sizeof(*t->replays));
	if (!t->replays)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu replay records", name,
			       t->nreplays);
	for (size_t i = 0; i < t->nreplays; i++, off += rsz) {
		struct mach_truth_replay *r = &t->replays[i];

		r->pc = get64(buf + off);
		r->cause = get64(buf + off + 8);
		r->kind = get32(buf + off + 16);
		r->count = get64(buf + off + 24);
		if (r->kind > 2)
			return AX_CORRUPT(err, name, off + 16, "replay kind %u (0..2)", r->kind);
		if (i && cmp_replay(&r[-1], r) >= 0)
			return AX_CORRUPT(err, name, off, "replay records not in increasing order");
	}
	return 0;
}

static int parse_waste(const uint8_t *buf, const char *name, const uint8_t *ent,
		       struct mach_truth *t, struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->nwaste = get64(ent + 16);
	t->waste = calloc(t->nwaste ? t->nwaste : 1, sizeof(*t->waste));
	if (!t->waste)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu wasted-slot records", name,
			       t->nwaste);
	for (size_t i = 0; i < t->nwaste; i++, off += rsz) {
		struct mach_truth_waste *r = &t->waste[i];

		r->pc = get64(buf + off);
		r->windows = get64(buf + off + 8);
		r->cycles = get64(buf + off + 16);
		r->slots = get64(buf + off + 24);
		r->useful = get64(buf + off + 32);
		if (!r->windows)
			return AX_CORRUPT(err, name, off + 8, "wasted-slot record with no window");
		if (i && r[-1].pc >= r->pc)
			return AX_CORRUPT(err, name, off,
					  "wasted-slot records not in increasing order");
	}
	return 0;
}

static int parse_paths(const uint8_t *buf, const char *name, const uint8_t *ent,
		       struct mach_truth *t, struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->npaths = get64(ent + 16);
	t->paths = calloc(t->npaths ? t->npaths : 1, sizeof(*t->paths));
	if (!t->paths)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu path records", name,
			       t->npaths);
	for (size_t i = 0; i < t->npaths; i++, off += rsz) {
		struct mach_truth_path *r = &t->paths[i];
		const uint8_t *p = buf + off;

		r->pc = get64(p);
		r->partner = get64(p + 8);
		r->history = (uint16_t)get16(p + 16);
		r->dist = (uint16_t)get16(p + 18);
		r->ndec = (uint16_t)get16(p + 20);
		if (r->ndec > MACH_TRUTH_PATH_DECS)
			return AX_CORRUPT(err, name, off + 20,
					  "path record: %u decisions (at most %u)", r->ndec,
					  MACH_TRUTH_PATH_DECS);
		if (r->history >> 12)
			return AX_CORRUPT(err, name, off + 16,
					  "path record: history 0x%x (12 bits)", r->history);
		for (unsigned int k = 0; k < MACH_TRUTH_PATH_DECS; k++) {
			r->from[k] = get64(p + 24 + 16 * k);
			r->to[k] = get64(p + 32 + 16 * k);
		}
	}
	return 0;
}

static int parse_coh(const uint8_t *buf, const char *name, const uint8_t *ent, struct mach_truth *t,
		     struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->ncoh = get64(ent + 16);
	t->coh = calloc(t->ncoh ? t->ncoh : 1, sizeof(*t->coh));
	if (!t->coh)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu coherence records", name,
			       t->ncoh);
	for (size_t i = 0; i < t->ncoh; i++, off += rsz) {
		struct mach_truth_coh *r = &t->coh[i];

		r->pc = get64(buf + off);
		r->inval = get64(buf + off + 8);
		r->interv = get64(buf + off + 16);
		r->shstores = get64(buf + off + 24);
		if (i && r[-1].pc >= r->pc)
			return AX_CORRUPT(err, name, off,
					  "coherence records not in increasing order");
		if (r->shstores > r->inval)
			return AX_CORRUPT(
				err, name, off + 24,
				"pc 0x%llx: more stores to shared blocks than invalidations",
				(unsigned long long)r->pc);
	}
	return 0;
}

static int parse_pcs(const uint8_t *buf, const char *name, const uint8_t *ent, struct mach_truth *t,
		     struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->npcs = get64(ent + 16);
	t->pcs = calloc(t->npcs ? t->npcs : 1, sizeof(*t->pcs));
	if (!t->pcs)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu pc records", name, t->npcs);
	for (size_t i = 0; i < t->npcs; i++, off += rsz) {
		const uint8_t *p = buf + off;
		struct mach_truth_pc *r = &t->pcs[i];
		uint64_t sum = 0;

		r->pc = get64(p);
		if (i && r->pc <= t->pcs[i - 1].pc)
			return AX_CORRUPT(err, name, off, "pc records not in increasing order");
		r->exec = get64(p + 8);
		r->head = get64(p + 16);
		for (unsigned int c = 0; c < MACH_STALL_NR; c++) {
			r->stall[c] = get64(p + 24 + 8 * c);
			sum += r->stall[c];
		}
		if (sum != r->head)
			return AX_CORRUPT(err, name, off + 16,
					  "pc 0x%llx: stall causes do not add up to its cycles",
					  (unsigned long long)r->pc);
		for (unsigned int e = 0; e < MACH_TEV_NR; e++)
			r->ev[e] = get64(p + 96 + 8 * e);
	}
	return 0;
}

static int parse_edges(const uint8_t *buf, const char *name, const uint8_t *ent,
		       struct mach_truth *t, struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->nedges = get64(ent + 16);
	t->edges = calloc(t->nedges ? t->nedges : 1, sizeof(*t->edges));
	if (!t->edges)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu edges", name, t->nedges);
	for (size_t i = 0; i < t->nedges; i++, off += rsz) {
		struct mach_truth_edge *e = &t->edges[i];

		e->from = get64(buf + off);
		e->to = get64(buf + off + 8);
		e->count = get64(buf + off + 16);
		if (i && cmp_edge(&e[-1], e) >= 0)
			return AX_CORRUPT(err, name, off, "edge records not in increasing order");
	}
	return 0;
}

static int parse_syscalls(const uint8_t *buf, const char *name, const uint8_t *ent,
			  struct mach_truth *t, struct ax_error *err)
{
	uint32_t rsz = get32(ent + 4);
	uint64_t off = get64(ent + 8);

	t->nsyscalls = get64(ent + 16);
	t->syscalls = calloc(t->nsyscalls ? t->nsyscalls : 1, sizeof(*t->syscalls));
	if (!t->syscalls)
		return ax_fail(err, -ENOMEM, "%s: out of memory for %zu system-call records", name,
			       t->nsyscalls);
	for (size_t i = 0; i < t->nsyscalls; i++, off += rsz) {
		struct mach_truth_syscall *r = &t->syscalls[i];
		const uint8_t *nm = buf + off + 24;

		r->nr = get32(buf + off);
		if (i && r->nr <= t->syscalls[i - 1].nr)
			return AX_CORRUPT(err, name, off,
					  "system-call records not in increasing order");
		r->calls = get64(buf + off + 8);
		r->cycles = get64(buf + off + 16);
		if (!nm[0] || nm[MACH_TRUTH_SYSCALL_NAME - 1])
			return AX_CORRUPT(err, name, off + 24,
					  "system call %u: name empty or not NUL-terminated",
					  r->nr);
		memcpy(r->name, nm, MACH_TRUTH_SYSCALL_NAME);
		if (r->cycles > t->sum.cycles - t->kernel_cycles)
			return AX_CORRUPT(err, name, off + 16,
					  "system calls' cycles exceed the run's cycles");
		t->kernel_cycles += r->cycles;
	}
	return 0;
}

int mach_truth_parse(const void *buf_, size_t len, const char *name, struct mach_truth **out,
		     struct ax_error *err)
{
	const uint8_t *buf = buf_, *sec[TRUTH_NSEC] = { NULL };
	struct mach_truth *t;
	uint64_t tab_end = 0;
	uint32_t nsec = 0;
	int ret;

	*out = NULL;
	ax_error_clear(err);
	t = calloc(1, sizeof(*t));
	if (!t)
		return ax_fail(err, -ENOMEM, "%s: out of memory", name);
	ret = parse_header(buf, len, name, t, &nsec, &tab_end, err);
	if (!ret)
		ret = parse_sections(buf, len, name, nsec, tab_end, sec, err);
	if (!ret) {
		parse_summary(buf, sec[MACH_TRUTH_SEC_SUMMARY], t);
		ret = parse_pcs(buf, name, sec[MACH_TRUTH_SEC_PCS], t, err);
	}
	if (!ret)
		ret = parse_edges(buf, name, sec[MACH_TRUTH_SEC_EDGES], t, err);
	if (!ret && sec[MACH_TRUTH_SEC_EV6PCS])
		ret = parse_ev6(buf, name, sec[MACH_TRUTH_SEC_EV6PCS], t, err);
	if (!ret && sec[MACH_TRUTH_SEC_REPLAYS])
		ret = parse_replays(buf, name, sec[MACH_TRUTH_SEC_REPLAYS], t, err);
	if (!ret && sec[MACH_TRUTH_SEC_WASTED])
		ret = parse_waste(buf, name, sec[MACH_TRUTH_SEC_WASTED], t, err);
	if (!ret && sec[MACH_TRUTH_SEC_PATHS])
		ret = parse_paths(buf, name, sec[MACH_TRUTH_SEC_PATHS], t, err);
	if (!ret && sec[MACH_TRUTH_SEC_COHERENCE])
		ret = parse_coh(buf, name, sec[MACH_TRUTH_SEC_COHERENCE], t, err);
	if (!ret && sec[MACH_TRUTH_SEC_SYSCALLS])
		ret = parse_syscalls(buf, name, sec[MACH_TRUTH_SEC_SYSCALLS], t, err);
	if (ret) {
		if (getenv("AXPROF_DEBUG") && err)
			fprintf(stderr, "mach_truth: %s\n", err->msg);
		mach_truth_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

/* The whole file into *buf (*len bytes; a file that shrank under us: what is there). */
static int read_whole(const char *path, uint8_t **buf, size_t *len, struct ax_error *err)
{
	struct stat st;
	size_t got = 0;
	int fd, ret = 0;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ax_syserr(err, -errno, path, "open");
	if (fstat(fd, &st)) {
		ret = ax_syserr(err, -errno, path, "stat");
		goto out;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > (1ull << 40)) {
		ret = ax_fail(err, -EFBIG, "%s: too large for a truth file", path);
		goto out;
	}
	*buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!*buf) {
		ret = ax_fail(err, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = ax_syserr(err, -errno, path, "read");
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	*len = got;
out:
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	return ret;
}

int mach_truth_read(const char *path, struct mach_truth **out, struct ax_error *err)
{
	uint8_t *buf;
	size_t len = 0;
	int ret;

	*out = NULL;
	ax_error_clear(err);
	ret = read_whole(path, &buf, &len, err);
	if (ret)
		return ret;
	ret = mach_truth_parse(buf, len, path, out, err);
	free(buf);
	return ret;
}

void mach_truth_free(struct mach_truth *t)
{
	if (!t)
		return;
	free(t->pcs);
	free(t->edges);
	free(t->ev6);
	free(t->replays);
	free(t->waste);
	free(t->paths);
	free(t->coh);
	free(t->syscalls);
	free(t);
}

const struct mach_truth_waste *mach_truth_find_waste(const struct mach_truth *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nwaste;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->waste[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nwaste && t->waste[lo].pc == pc ? &t->waste[lo] : NULL;
}

const struct mach_truth_ev6pc *mach_truth_find_ev6(const struct mach_truth *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nev6;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ev6[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nev6 && t->ev6[lo].pc == pc ? &t->ev6[lo] : NULL;
}

const struct mach_truth_pc *mach_truth_find(const struct mach_truth *t, uint64_t pc)
{
	size_t lo = 0, hi = t->npcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->pcs[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->npcs && t->pcs[lo].pc == pc ? &t->pcs[lo] : NULL;
}

uint64_t mach_truth_edge_count(const struct mach_truth *t, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = t->nedges;
	struct mach_truth_edge key = { from, to, 0 };

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_edge(&t->edges[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->nedges && t->edges[lo].from == from && t->edges[lo].to == to)
		return t->edges[lo].count;
	return 0;
}
