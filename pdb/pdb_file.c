/* pdb/pdb_file.c - profile database files: encode and parse (format at the top of pdb.h). */
#include <stdlib.h>
#include <zlib.h>

#include "pdb_int.h"

#define ZLIB_LEVEL 6 /* on bench_pdb's CYCLES file level 9 saves 2.6% for 6.6x the time */
#define LAT_COLS (2 + PDB_LAT_LEVELS + PDB_LAT_BUCKETS) /* latency: offset, levels, sum, hist */
#define MAX_COLS PDB_PME_COLS /* profileme: offset and every field, the most columns */
#define WANT_ANY (-1) /* pdb_parse_table: any profile table */
#define WANT_INDEX (-2) /* an index file */
#define WANT_ORIGINS (-3) /* an epoch's merge record */
#define WANT_MANIFEST (-4) /* an epoch's manifest */
#define WANT_JOURNAL (-5) /* the database's journal */

/* zlib allocates through the library's allocator, so the fault hook reaches it too. */
static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	if (size && items > SIZE_MAX / size)
		return Z_NULL;
	return pdb_malloc((size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	free(p);
}

/* --- encoding --- */

struct enc {
	struct pdb_wbuf b; /* the payload, uncompressed */
	uint64_t n; /* records */
	uint32_t flags;
	uint32_t event;
	uint16_t type;
};

/* The identity record at the start of the payload (PDB_FL_IDENT); none when id is NULL. */
static void put_ident(struct enc *e, const struct pdb_ident *id)
{
	size_t klen;

	if (!id)
		return;
	klen = strlen(id->key);
	e->flags |= PDB_FL_IDENT;
	pdb_wbuf_varint(&e->b, id->epoch);
	pdb_wbuf_varint(&e->b, klen);
	pdb_wbuf_bytes(&e->b, id->key, klen);
}

static unsigned int shift_of(uint32_t flags)
{
	return (flags & PDB_FL_ALIGN4) ? 2 : 0;
}

/* A column of offsets: first, then deltas (minus one when strictly increasing). */
static void put_offsets(struct enc *e, const void *const *v, size_t n, size_t field, bool strict)
{
	unsigned int sh = shift_of(e->flags);
	uint64_t prev = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t o;

		memcpy(&o, (const uint8_t *)v[i] + field, 8);
		o >>= sh;
		pdb_wbuf_varint(&e->b, i == 0 ? o : o - prev - (strict ? 1 : 0));
		prev = o;
	}
}

static void put_column(struct enc *e, const void *const *v, size_t n, size_t field, size_t size,
		       unsigned int sh)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t x = 0;

		memcpy(&x, (const uint8_t *)v[i] + field, size);
		pdb_wbuf_varint(&e->b, x >> sh);
	}
}

static bool aligned4(const void *const *v, size_t n, size_t field)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t o;

		memcpy(&o, (const uint8_t *)v[i] + field, 8);
		if (o & 3)
			return false;
	}
	return true;
}

#define FIELD(type, f) offsetof(type, f)

/* The offset column of rows sorted by it: PDB_FL_ALIGN4 when every offset allows it, then the
 * column (put_offsets). */
static void put_offset_column(struct enc *e, const void *const *v, size_t n, size_t field,
			      bool strict)
{
	if (aligned4(v, n, field))
		e->flags |= PDB_FL_ALIGN4;
	put_offsets(e, v, n, field, strict);
}

/* One hotlist in hotlist_pack's format. */
static int put_hotlist(struct enc *e, const struct hotlist *h)
{
	uint8_t packed[HOTLIST_PACKED_MAX];
	int len = hotlist_pack(h, packed, sizeof(packed));

	if (len < 0)
		return -EINVAL;
	pdb_wbuf_bytes(&e->b, packed, (size_t)len);
	return 0;
}

/* pr: the period record that follows the columns of a samples file (NULL for vcount). */
static int enc_counts(struct enc *e, const struct pdb_map *m, const struct pdb_period *pr)
{
	const void **v;
	int err = pdb_map_sorted(m, pdb_cmp_off, &v);

	if (err)
		return err;
	put_offset_column(e, v, m->n, FIELD(struct pdb_e_count, off), true);
	put_column(e, v, m->n, FIELD(struct pdb_e_count, count), 8, 0);
	if (pr) {
		pdb_wbuf_varint(&e->b, pr->samples);
		pdb_wbuf_varint(&e->b, pr->events2);
	}
	e->n = m->n;
	free(v);
	return 0;
}

static int enc_latency(struct enc *e, const struct pdb_map *m)
{
	const void **v;
	unsigned int i;
	int err = pdb_map_sorted(m, pdb_cmp_off, &v);

	if (err)
		return err;
	put_offset_column(e, v, m->n, FIELD(struct pdb_e_lat, off), true);
	for (i = 0; i < PDB_LAT_LEVELS; i++)
		put_column(e, v, m->n, FIELD(struct pdb_e_lat, lat.level[i]), 8, 0);
	put_column(e, v, m->n, FIELD(struct pdb_e_lat, lat.latency_sum), 8, 0);
	for (i = 0; i < PDB_LAT_BUCKETS; i++)
		put_column(e, v, m->n, FIELD(struct pdb_e_lat, lat.hist[i]), 8, 0);
	e->n = m->n;
	free(v);
	return 0;
}

static int enc_profileme(struct enc *e, const struct pdb_map *m)
{
	const void **v;
	unsigned int i;
	int err = pdb_map_sorted(m, pdb_cmp_off, &v);

	if (err)
		return err;
	put_offset_column(e, v, m->n, FIELD(struct pdb_e_pme, off), true);
	for (i = 0; i < PDB_PME_COLS - 1; i++)
		put_column(e, v, m->n, FIELD(struct pdb_e_pme, pme) + 8 * i, 8, 0);
	e->n = m->n;
	free(v);
	return 0;
}

static int enc_values(struct enc *e, const struct pdb_map *m)
{
	const void **v;
	size_t i;
	int err = pdb_map_sorted(m, pdb_cmp_off, &v);

	if (err)
		return err;
	put_offset_column(e, v, m->n, FIELD(struct pdb_e_value, off), true);
	put_column(e, v, m->n, FIELD(struct pdb_e_value, dest), 4, 0);
	for (i = 0; !err && i < m->n; i++)
		err = put_hotlist(e, &((const struct pdb_e_value *)v[i])->h);
	e->n = m->n;
	free(v);
	return err;
}

struct key_order {
	const char *key;
	uint32_t id;
};

static int cmp_key_order(const void *a, const void *b)
{
	return strcmp(((const struct key_order *)a)->key, ((const struct key_order *)b)->key);
}

/* Key id used by a record: listed once in used[] (fidx[id] was UINT32_MAX for every id). */
static void use_key(const struct pdb_prof *p, uint32_t id, struct key_order *used, uint32_t *nused,
		    uint32_t *fidx)
{
	if (fidx[id] != UINT32_MAX)
		return;
	fidx[id] = 0;
	used[*nused].key = p->keys[id];
	used[(*nused)++].id = id;
}

/* The key table: the used keys in byte order; fidx[id] becomes each one's index in it. */
static void put_key_table(struct enc *e, struct key_order *used, uint32_t nused, uint32_t *fidx)
{
	uint32_t i;

	qsort(used, nused, sizeof(*used), cmp_key_order);
	pdb_wbuf_varint(&e->b, nused);
	for (i = 0; i < nused; i++) {
		size_t len = strlen(used[i].key);

		fidx[used[i].id] = i;
		pdb_wbuf_varint(&e->b, len);
		pdb_wbuf_bytes(&e->b, used[i].key, len);
	}
}

static int enc_conflicts(struct enc *e, const struct pdb_prof *p)
{
	const struct pdb_e_cnf **v;
	struct key_order *used = NULL;
	uint32_t *fidx = NULL, nused = 0, i;
	size_t j, n = p->t[PDB_T_CONFLICTS].n;
	int err;

	err = pdb_prof_sorted_cnf(p, &v);
	if (err)
		return err;
	err = -ENOMEM;
	used = pdb_calloc(p->nkeys + 1, sizeof(*used));
	fidx = pdb_calloc(p->nkeys + 1, sizeof(*fidx));
	if (!used || !fidx)
		goto out_free;
	/* The key table holds the keys the records use, in byte order. */
	for (i = 0; i < p->nkeys; i++)
		fidx[i] = UINT32_MAX;
	for (j = 0; j < n; j++)
		use_key(p, v[j]->keyid, used, &nused, fidx);
	put_key_table(e, used, nused, fidx);
	if (aligned4((const void *const *)v, n, FIELD(struct pdb_e_cnf, load_off)) &&
	    aligned4((const void *const *)v, n, FIELD(struct pdb_e_cnf, prior_off)))
		e->flags |= PDB_FL_ALIGN4;
	put_offsets(e, (const void *const *)v, n, FIELD(struct pdb_e_cnf, load_off), false);
	for (j = 0; j < n; j++)
		pdb_wbuf_varint(&e->b, fidx[v[j]->keyid]);
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_cnf, prior_off), 8,
		   shift_of(e->flags));
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_cnf, kind), 4, 0);
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_cnf, count), 8, 0);
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_cnf, dist_min), 8, 0);
	e->n = n;
	err = 0;
out_free:
	free(fidx);
	free(used);
	free(v);
	return err;
}

/* The key table of a procs file: the keys CALLER values use, in byte order (fidx: id -> index). */
static int enc_proc_keys(struct enc *e, const struct pdb_prof *p, const void *const *v, size_t n,
			 uint32_t *fidx)
{
	struct key_order *used = pdb_calloc(p->nkeys + 1, sizeof(*used));
	uint32_t nused = 0, i;
	size_t j;

	if (!used)
		return -ENOMEM;
	for (i = 0; i < p->nkeys; i++)
		fidx[i] = UINT32_MAX;
	for (j = 0; j < n; j++) {
		const struct pdb_e_proc *x = v[j];

		for (i = 0; x->kind == PDB_PROC_CALLER && i < x->h.used; i++)
			use_key(p, (uint32_t)(x->h.value[i] >> PDB_PROC_KEY_SHIFT) - 1, used,
				&nused, fidx);
	}
	put_key_table(e, used, nused, fidx);
	free(used);
	return 0;
}

static int enc_procs(struct enc *e, const struct pdb_prof *p)
{
	const struct pdb_map *m = &p->t[PDB_T_PROCS];
	uint32_t *fidx = NULL;
	const void **v;
	size_t j;
	int err = pdb_map_sorted(m, pdb_cmp_proc, &v);

	if (err)
		return err;
	fidx = pdb_calloc(p->nkeys + 1, sizeof(*fidx));
	err = fidx ? enc_proc_keys(e, p, v, m->n, fidx) : -ENOMEM;
	if (err)
		goto out_free;
	put_offset_column(e, v, m->n, FIELD(struct pdb_e_proc, off), false);
	put_column(e, v, m->n, FIELD(struct pdb_e_proc, kind), 4, 0);
	put_column(e, v, m->n, FIELD(struct pdb_e_proc, reg), 4, 0);
	for (j = 0; !err && j < m->n; j++) {
		const struct pdb_e_proc *x = v[j];
		struct hotlist h = x->h;

		if (x->kind == PDB_PROC_CALLER)
			pdb_proc_remap(&h, fidx, p->nkeys);
		err = put_hotlist(e, &h);
	}
	e->n = m->n;
out_free:
	free(fidx);
	free(v);
	return err;
}

static int enc_pmpaths(struct enc *e, const struct pdb_map *m)
{
	const void **v;
	size_t i;
	int err = pdb_map_sorted(m, pdb_cmp_off, &v);

	if (err)
		return err;
	put_offset_column(e, v, m->n, FIELD(struct pdb_e_pmp, off), true);
	put_column(e, v, m->n, FIELD(struct pdb_e_pmp, pp.other), 8, 0);
	for (i = 0; !err && i < 2 * m->n; i++) {
		const struct pdb_e_pmp *x = v[i / 2];

		err = put_hotlist(e, i % 2 ? &x->pp.partners : &x->pp.hist);
	}
	e->n = m->n;
	free(v);
	return err;
}

static int enc_addrs(struct enc *e, const struct pdb_map *m)
{
	const void **v;
	size_t j;
	int err = pdb_map_sorted(m, pdb_cmp_addr, &v);

	if (err)
		return err;
	put_offset_column(e, v, m->n, FIELD(struct pdb_e_addr, off), false);
	put_column(e, v, m->n, FIELD(struct pdb_e_addr, kind), 4, 0);
	for (j = 0; !err && j < m->n; j++)
		err = put_hotlist(e, &((const struct pdb_e_addr *)v[j])->h);
	e->n = m->n;
	free(v);
	return err;
}

/* stacks.prof (PDB_FT_STACKS): key table, columns, then each record's frames. */
static int enc_stacks(struct enc *e, const struct pdb_prof *p)
{
	size_t j, n = p->t[PDB_T_STACKS].n;
	const struct pdb_e_stk **v;
	uint32_t *rank, *fidx = NULL, *byrank = NULL, i, k = 0;
	int err = pdb_prof_sorted_stk(p, &v, &rank);

	if (err)
		return err;
	err = -ENOMEM;
	fidx = pdb_calloc(p->nkeys + 1, sizeof(*fidx));
	byrank = pdb_calloc(p->nkeys + 1, sizeof(*byrank));
	if (!fidx || !byrank)
		goto out_free;
	/* The key table holds the keys the frames use, in byte order (rank order). */
	e->flags |= PDB_FL_ALIGN4;
	for (i = 0; i < p->nkeys; i++) {
		fidx[i] = UINT32_MAX;
		byrank[rank[i]] = i;
	}
	for (j = 0; j < n; j++)
		for (i = 0; i < v[j]->depth; i++) {
			fidx[(v[j]->frame[i] >> PDB_STK_KEY_SHIFT) - 1] = 0;
			if (v[j]->frame[i] & 3)
				e->flags &= ~PDB_FL_ALIGN4;
		}
	for (i = 0; i < p->nkeys; i++)
		if (fidx[byrank[i]] != UINT32_MAX)
			k++;
	pdb_wbuf_varint(&e->b, k);
	for (i = 0, k = 0; i < p->nkeys; i++) {
		const char *key = p->keys[byrank[i]];
		size_t len = strlen(key);

		if (fidx[byrank[i]] == UINT32_MAX)
			continue;
		fidx[byrank[i]] = k++;
		pdb_wbuf_varint(&e->b, len);
		pdb_wbuf_bytes(&e->b, key, len);
	}
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_stk, event), 4, 0);
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_stk, flags), 2, 0);
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_stk, depth), 2, 0);
	put_column(e, (const void *const *)v, n, FIELD(struct pdb_e_stk, count), 8, 0);
	for (j = 0; j < n; j++)
		for (i = 0; i < v[j]->depth; i++) {
			uint64_t f = v[j]->frame[i];

			pdb_wbuf_varint(&e->b, fidx[(f >> PDB_STK_KEY_SHIFT) - 1]);
			pdb_wbuf_varint(&e->b, (f & PDB_STK_OFF_MAX) >> shift_of(e->flags));
		}
	e->n = n;
	err = 0;
out_free:
	free(byrank);
	free(fidx);
	free(rank);
	free(v);
	return err;
}

static int enc_unknown(struct enc *e, const struct pdb_map *m)
{
	const void **v;
	uint32_t prev = 0;
	size_t i;
	int err = pdb_map_sorted(m, pdb_cmp_unk, &v);

	if (err)
		return err;
	if (aligned4(v, m->n, FIELD(struct pdb_e_unk, pc)))
		e->flags |= PDB_FL_ALIGN4;
	for (i = 0; i < m->n; i++) {
		const struct pdb_e_unk *x = v[i];

		if (x->tid != x->pid)
			e->flags |= PDB_FL_TID;
		pdb_wbuf_varint(&e->b, x->pid - prev);
		prev = x->pid;
	}
	if (e->flags & PDB_FL_TID)
		put_column(e, v, m->n, FIELD(struct pdb_e_unk, tid), 4, 0);
	put_column(e, v, m->n, FIELD(struct pdb_e_unk, pc), 8, shift_of(e->flags));
	put_column(e, v, m->n, FIELD(struct pdb_e_unk, event), 4, 0);
	put_column(e, v, m->n, FIELD(struct pdb_e_unk, count), 8, 0);
	e->n = m->n;
	free(v);
	return 0;
}

/* Compress e's payload and put header + stored payload into a new buffer. */
/* The threads table (pdb.h PDB_FT_THREADS). */
static int enc_threads(struct enc *e, const struct pdb_prof *p)
{
	const struct pdb_map *m = &p->t[PDB_T_THREADS];
	const void **v;
	uint32_t prev = 0;
	size_t i;
	int err = pdb_map_sorted(m, pdb_cmp_thr, &v);

	if (err)
		return err;
	for (i = 0; i < m->n; i++) {
		const struct pdb_e_thr *x = v[i];

		pdb_wbuf_varint(&e->b, x->pid - prev);
		prev = x->pid;
	}
	put_column(e, v, m->n, FIELD(struct pdb_e_thr, tid), 4, 0);
	put_column(e, v, m->n, FIELD(struct pdb_e_thr, flags), 4, 0);
	put_column(e, v, m->n, FIELD(struct pdb_e_thr, nnames), 4, 0);
	for (i = 0; i < m->n; i++) {
		const struct pdb_e_thr *x = v[i];

		for (uint32_t k = 0; k < x->nnames; k++) {
			size_t len = strlen(x->name[k]);

			pdb_wbuf_varint(&e->b, len);
			pdb_wbuf_bytes(&e->b, x->name[k], len);
		}
	}
	pdb_wbuf_varint(&e->b, p->thr_lost);
	e->n = m->n;
	free(v);
	return 0;
}

static int finish(struct enc *e, void **buf, size_t *len)
{
	size_t ulen = e->b.len, slen;
	uint8_t *out, *h;
	z_stream z;
	int zr;

	if (e->b.err)
		return e->b.err;
	if (ulen == 0 || ulen > PDB_PAYLOAD_MAX)
		return -EFBIG;
	memset(&z, 0, sizeof(z));
	z.zalloc = z_alloc;
	z.zfree = z_free;
	zr = deflateInit(&z, ZLIB_LEVEL);
	if (zr != Z_OK)
		return zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	slen = deflateBound(&z, (uLong)ulen);
	if (slen < ulen)
		slen = ulen;
	out = pdb_malloc(PDB_HEADER_SIZE + slen);
	if (!out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = e->b.p;
	z.avail_in = (uInt)ulen;
	z.next_out = out + PDB_HEADER_SIZE;
	z.avail_out = (uInt)slen;
	zr = deflate(&z, Z_FINISH);
	if (zr == Z_STREAM_END && z.total_out < ulen) {
		e->flags |= PDB_FL_ZLIB;
		slen = z.total_out;
	} else {
		/* Incompressible (or tiny): store it as it is. */
		memcpy(out + PDB_HEADER_SIZE, e->b.p, ulen);
		slen = ulen;
	}
	deflateEnd(&z);
	h = out;
	memcpy(h, "AXPD", 4);
	pdb_put_le(h + 4, PDB_FORMAT_VERSION, 2);
	pdb_put_le(h + 6, e->type, 2);
	pdb_put_le(h + 8, e->flags, 4);
	pdb_put_le(h + 12, e->event, 4);
	pdb_put_le(h + 16, e->n, 8);
	pdb_put_le(h + 24, ulen, 8);
	pdb_put_le(h + 32, slen, 8);
	pdb_put_le(h + 40, crc32(0, out + PDB_HEADER_SIZE, (uInt)slen), 4);
	pdb_put_le(h + 44, crc32(0, h, 44), 4);
	*buf = out;
	*len = PDB_HEADER_SIZE + slen;
	return 0;
}

int pdb_encode_table(const struct pdb_prof *p, unsigned int t, const struct pdb_ident *id,
		     void **buf, size_t *len)
{
	struct enc e;
	unsigned int ev;
	int err;

	*buf = NULL;
	*len = 0;
	if (t >= PDB_T_NR)
		return -EINVAL;
	if (!p->t[t].n)
		return -ENODATA;
	memset(&e, 0, sizeof(e));
	e.type = (uint16_t)pdb_table_type(t, &ev);
	e.event = ev;
	put_ident(&e, id);
	if (t < PDB_EV_MAX)
		err = enc_counts(&e, &p->t[t], &p->period[t]);
	else if (t == PDB_T_VCOUNT)
		err = enc_counts(&e, &p->t[t], NULL);
	else if (t == PDB_T_VALUES)
		err = enc_values(&e, &p->t[t]);
	else if (t == PDB_T_LATENCY)
		err = enc_latency(&e, &p->t[t]);
	else if (t == PDB_T_PROFILEME)
		err = enc_profileme(&e, &p->t[t]);
	else if (t == PDB_T_PROCS)
		err = enc_procs(&e, p);
	else if (t == PDB_T_PMPATHS)
		err = enc_pmpaths(&e, &p->t[t]);
	else if (t == PDB_T_ADDRS)
		err = enc_addrs(&e, &p->t[t]);
	else if (t == PDB_T_CONFLICTS)
		err = enc_conflicts(&e, p);
	else if (t == PDB_T_STACKS)
		err = enc_stacks(&e, p);
	else if (t == PDB_T_THREADS)
		err = enc_threads(&e, p);
	else
		err = enc_unknown(&e, &p->t[t]);
	if (!err)
		err = finish(&e, buf, len);
	free(e.b.p);
	return err;
}

int pdb_encode(const struct pdb_prof *p, unsigned int type, unsigned int event, void **buf,
	       size_t *len)
{
	static const unsigned int table_of_type[PDB_FT_NR] = {
		[PDB_FT_VALUES] = PDB_T_VALUES,	      [PDB_FT_LATENCY] = PDB_T_LATENCY,
		[PDB_FT_CONFLICTS] = PDB_T_CONFLICTS, [PDB_FT_VCOUNT] = PDB_T_VCOUNT,
		[PDB_FT_UNKNOWN] = PDB_T_UNKNOWN,     [PDB_FT_PROFILEME] = PDB_T_PROFILEME,
		[PDB_FT_PROCS] = PDB_T_PROCS,	      [PDB_FT_PMPATHS] = PDB_T_PMPATHS,
		[PDB_FT_ADDRS] = PDB_T_ADDRS,	      [PDB_FT_TASKS] = PDB_T_TASKS,
		[PDB_FT_STACKS] = PDB_T_STACKS,	      [PDB_FT_THREADS] = PDB_T_THREADS,
	};

	if (type == PDB_FT_SAMPLES)
		return event < PDB_EV_MAX ? pdb_encode_table(p, event, NULL, buf, len) : -EINVAL;
	if ((type < PDB_FT_VALUES || type > PDB_FT_UNKNOWN) && type != PDB_FT_PROFILEME &&
	    type != PDB_FT_PROCS && type != PDB_FT_PMPATHS && type != PDB_FT_ADDRS &&
	    type != PDB_FT_TASKS && type != PDB_FT_STACKS && type != PDB_FT_THREADS)
		return -EINVAL;
	return pdb_encode_table(p, table_of_type[type], NULL, buf, len);
}

static int cmp_image_ptr(const void *a, const void *b)
{
	return strcmp((*(const struct pdb_image *const *)a)->key,
		      (*(const struct pdb_image *const *)b)->key);
}

int pdb_encode_index(const struct pdb_image *list, size_t n, void **buf, size_t *len)
{
	return pdb_encode_index_id(list, n, NULL, buf, len);
}

int pdb_encode_index_id(const struct pdb_image *list, size_t n, const struct pdb_ident *id,
			void **buf, size_t *len)
{
	const struct pdb_image **v;
	struct enc e;
	size_t i;
	int err = -EINVAL;

	*buf = NULL;
	*len = 0;
	if (!n)
		return -ENODATA;
	v = pdb_malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = &list[i];
	qsort(v, n, sizeof(*v), cmp_image_ptr);
	memset(&e, 0, sizeof(e));
	e.type = PDB_FT_INDEX;
	put_ident(&e, id);
	for (i = 0; i < n; i++) {
		const char *path = v[i]->path ? v[i]->path : "";
		size_t klen = strnlen(v[i]->key, PDB_KEY_MAX + 1), plen = strlen(path);
		uint64_t mt = (uint64_t)v[i]->mtime_ns;

		if (!pdb_key_is_valid(v[i]->key) || plen > PDB_PATH_MAX ||
		    v[i]->build_id_len > PDB_BUILD_ID_MAX)
			goto out_free;
		if (i && !strcmp(v[i - 1]->key, v[i]->key))
			goto out_free;
		pdb_wbuf_varint(&e.b, klen);
		pdb_wbuf_bytes(&e.b, v[i]->key, klen);
		pdb_wbuf_varint(&e.b, plen);
		pdb_wbuf_bytes(&e.b, path, plen);
		pdb_wbuf_varint(&e.b, v[i]->build_id_len);
		pdb_wbuf_bytes(&e.b, v[i]->build_id, v[i]->build_id_len);
		pdb_wbuf_varint(&e.b, v[i]->size);
		pdb_wbuf_varint(&e.b, (mt << 1) ^ (uint64_t)(v[i]->mtime_ns >> 63));
		pdb_wbuf_varint(&e.b, v[i]->text_size);
		pdb_wbuf_varint(&e.b, 0);
	}
	e.n = n;
	err = finish(&e, buf, len);
out_free:
	free(e.b.p);
	free(v);
	return err;
}

static int cmp_origin(const struct pdb_origin *a, const struct pdb_origin *b)
{
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->epoch < b->epoch ? -1 : a->epoch > b->epoch;
}

int pdb_encode_origins(const struct pdb_origin *v, size_t n, void **buf, size_t *len)
{
	return pdb_encode_origins_id(v, n, NULL, buf, len);
}

int pdb_encode_origins_id(const struct pdb_origin *v, size_t n, const struct pdb_ident *id,
			  void **buf, size_t *len)
{
	struct enc e;
	size_t i;
	int err;

	*buf = NULL;
	*len = 0;
	if (!n)
		return -ENODATA;
	for (i = 0; i < n; i++)
		if (v[i].epoch == 0 || v[i].epoch > PDB_EPOCH_MAX ||
		    (i && cmp_origin(&v[i - 1], &v[i]) >= 0))
			return -EINVAL;
	memset(&e, 0, sizeof(e));
	e.type = PDB_FT_ORIGINS;
	put_ident(&e, id);
	for (i = 0; i < n; i++)
		pdb_wbuf_varint(&e.b, i ? v[i].id - v[i - 1].id : v[i].id);
	for (i = 0; i < n; i++)
		pdb_wbuf_varint(&e.b, v[i].epoch);
	e.n = n;
	err = finish(&e, buf, len);
	free(e.b.p);
	return err;
}

/* --- parsing --- */

/* Where the reader is: the decompressed payload of one file. */
struct pctx {
	const char *name;
	struct ax_error *err;
	const uint8_t *p; /* payload */
	size_t len;
	size_t pos;
	bool zlib; /* offsets in p are payload offsets; else file offset - PDB_HEADER_SIZE */
	unsigned int shift; /* 2 with PDB_FL_ALIGN4 */
};

/* AX_CORRUPT for an offset in the payload (a file offset when it was stored uncompressed). */
#define PDB_CORRUPT_IN(c, off, ...)                                                            \
	ax_corrupt((c)->err, (c)->name, __FILE__, __LINE__,                                    \
		   (c)->zlib ? (uint64_t)(off) : PDB_HEADER_SIZE + (uint64_t)(off), (c)->zlib, \
		   __VA_ARGS__)

struct hdr {
	uint16_t version;
	uint16_t type;
	uint32_t flags;
	uint32_t event;
	uint64_t n;
	uint64_t ulen;
	uint64_t slen;
	int table; /* the profile table it holds (PDB_T_*), -1 for an index */
};

static int parse_header(const uint8_t *buf, size_t len, const char *name, int want, struct hdr *h,
			struct ax_error *err)
{
	static const int table_of_type[PDB_FT_NR] = {
		[PDB_FT_VALUES] = PDB_T_VALUES,
		[PDB_FT_LATENCY] = PDB_T_LATENCY,
		[PDB_FT_CONFLICTS] = PDB_T_CONFLICTS,
		[PDB_FT_VCOUNT] = PDB_T_VCOUNT,
		[PDB_FT_UNKNOWN] = PDB_T_UNKNOWN,
		[PDB_FT_PROFILEME] = PDB_T_PROFILEME,
		[PDB_FT_PROCS] = PDB_T_PROCS,
		[PDB_FT_PMPATHS] = PDB_T_PMPATHS,
		[PDB_FT_ADDRS] = PDB_T_ADDRS,
		[PDB_FT_TASKS] = PDB_T_TASKS,
		[PDB_FT_STACKS] = PDB_T_STACKS,
		[PDB_FT_THREADS] = PDB_T_THREADS,
		[PDB_FT_INDEX] = -1,
		[PDB_FT_ORIGINS] = -1,
		[PDB_FT_MANIFEST] = -1,
		[PDB_FT_JOURNAL] = -1,
	};
	unsigned int want_type = 0, want_event = 0, version;
	uint64_t slen;

	if (len < PDB_HEADER_SIZE)
		return AX_CORRUPT(err, name, len, "file truncated: %zu bytes, the header needs %d",
				  len, PDB_HEADER_SIZE);
	if (memcmp(buf, "AXPD", 4))
		return AX_CORRUPT(err, name, 0, "bad magic (not a profile database file)");
	version = (unsigned int)pdb_get_le(buf + 4, 2);
	if (version > PDB_FORMAT_VERSION)
		return AX_CORRUPT(err, name, 4,
				  "format version %u is newer than this reader's (%d): use a newer "
				  "axprof",
				  version, PDB_FORMAT_VERSION);
	if (version < PDB_FORMAT_OLDEST)
		return AX_CORRUPT(err, name, 4, "bad format version %u", version);
	h->version = (uint16_t)version;
	if (pdb_get_le(buf + 44, 4) != crc32(0, buf, 44))
		return AX_CORRUPT(err, name, 44, "header checksum mismatch");
	h->type = (uint16_t)pdb_get_le(buf + 6, 2);
	h->flags = (uint32_t)pdb_get_le(buf + 8, 4);
	h->event = (uint32_t)pdb_get_le(buf + 12, 4);
	h->n = pdb_get_le(buf + 16, 8);
	h->ulen = pdb_get_le(buf + 24, 8);
	h->slen = pdb_get_le(buf + 32, 8);
	if (want >= 0)
		want_type = pdb_table_type((unsigned int)want, &want_event);
	else if (want == WANT_INDEX)
		want_type = PDB_FT_INDEX;
	else if (want == WANT_ORIGINS)
		want_type = PDB_FT_ORIGINS;
	else if (want == WANT_MANIFEST)
		want_type = PDB_FT_MANIFEST;
	else if (want == WANT_JOURNAL)
		want_type = PDB_FT_JOURNAL;
	if (h->type < PDB_FT_SAMPLES || h->type >= PDB_FT_NR ||
	    (want == WANT_ANY && table_of_type[h->type] < 0) || (want_type && h->type != want_type))
		return AX_CORRUPT(err, name, 6, "file type %u where %s was expected", h->type,
				  want == WANT_INDEX	? "an index" :
				  want == WANT_ORIGINS	? "a merge record" :
				  want == WANT_MANIFEST ? "a manifest" :
				  want == WANT_JOURNAL	? "a journal" :
							  "a profile table");
	if ((h->type == PDB_FT_ORIGINS && version < 2) ||
	    ((h->type == PDB_FT_MANIFEST || h->type == PDB_FT_JOURNAL ||
	      h->type == PDB_FT_PROFILEME || h->type == PDB_FT_PROCS || h->type == PDB_FT_PMPATHS ||
	      h->type == PDB_FT_ADDRS || h->type == PDB_FT_TASKS || h->type == PDB_FT_STACKS ||
	      h->type == PDB_FT_THREADS) &&
	     version < 3))
		return AX_CORRUPT(err, name, 6, "file type %u in a version %u file", h->type,
				  version);
	if (h->flags & ~PDB_FL_KNOWN || ((h->flags & PDB_FL_IDENT) && version < 3) ||
	    ((h->flags & PDB_FL_TID) &&
	     ((h->type != PDB_FT_TASKS && h->type != PDB_FT_UNKNOWN) || version < 3)))
		return AX_CORRUPT(err, name, 8, "unknown flags 0x%x", h->flags);
	if (h->type == PDB_FT_SAMPLES) {
		if (h->event >= PDB_EV_MAX || (want >= 0 && h->event != want_event))
			return AX_CORRUPT(err, name, 12, "event %u does not match the file",
					  h->event);
		h->table = (int)h->event;
	} else {
		if (h->event != 0)
			return AX_CORRUPT(err, name, 12, "event %u in a file of type %u", h->event,
					  h->type);
		h->table = table_of_type[h->type];
	}
	slen = len - PDB_HEADER_SIZE;
	if (h->slen != slen)
		return AX_CORRUPT(err, name, 32,
				  "stored length %llu, but %llu bytes follow the "
				  "header (truncated or extended file)",
				  (unsigned long long)h->slen, (unsigned long long)slen);
	if (h->ulen == 0 || h->ulen > PDB_PAYLOAD_MAX || h->ulen < slen ||
	    (!(h->flags & PDB_FL_ZLIB) && h->ulen != slen) || h->ulen / PDB_ZLIB_RATIO_MAX > slen)
		return AX_CORRUPT(err, name, 24,
				  "payload length %llu impossible for %llu stored "
				  "bytes",
				  (unsigned long long)h->ulen, (unsigned long long)slen);
	if (h->n == 0 || h->n > h->ulen)
		return AX_CORRUPT(err, name, 16,
				  "record count %llu impossible for a %llu-byte "
				  "payload",
				  (unsigned long long)h->n, (unsigned long long)h->ulen);
	if (pdb_get_le(buf + 40, 4) != crc32(0, buf + PDB_HEADER_SIZE, (uInt)slen))
		return AX_CORRUPT(err, name, 40, "payload checksum mismatch");
	return 0;
}

/*
 * Decompress src[0..slen) into a new buffer (*out) of exactly ulen bytes. The buffer grows with
 * what the stream really produces, so a header announcing a huge payload costs nothing until
 * the compressed bytes deliver it.
 */
static int inflate_payload(const uint8_t *src, size_t slen, size_t ulen, uint8_t **out,
			   const char *name, struct ax_error *err)
{
	size_t cap = ulen < 65536 || ulen / 4 < slen ? ulen : (slen * 4 > 65536 ? slen * 4 : 65536);
	uint8_t *buf, *nb;
	z_stream z;
	int zr, ret = 0;

	*out = NULL;
	buf = pdb_malloc(cap);
	if (!buf)
		return ax_fail(err, -ENOMEM, "%s: out of memory for the payload", name);
	memset(&z, 0, sizeof(z));
	z.zalloc = z_alloc;
	z.zfree = z_free;
	zr = inflateInit(&z);
	if (zr != Z_OK) {
		free(buf);
		return ax_fail(err, -ENOMEM, "%s: out of memory for decompression", name);
	}
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)slen;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	for (;;) {
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			break;
		if (zr == Z_MEM_ERROR) {
			ret = ax_fail(err, -ENOMEM, "%s: out of memory for decompression", name);
			goto out_end;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			ret = AX_CORRUPT(err, name, PDB_HEADER_SIZE + z.total_in,
					 "bad compressed payload (zlib: %s)",
					 z.msg ? z.msg : "error");
			goto out_end;
		}
		if (z.avail_out == 0) {
			if (cap == ulen) {
				ret = AX_CORRUPT(err, name, PDB_HEADER_SIZE + z.total_in,
						 "payload decompresses to more than the %zu bytes "
						 "announced",
						 ulen);
				goto out_end;
			}
			cap = cap > ulen / 2 ? ulen : cap * 2;
			nb = pdb_realloc(buf, cap);
			if (!nb) {
				ret = ax_fail(err, -ENOMEM, "%s: out of memory for the payload",
					      name);
				goto out_end;
			}
			buf = nb;
			z.next_out = buf + z.total_out;
			z.avail_out = (uInt)(cap - z.total_out);
			continue;
		}
		/* Room left, but no more input: the stream stops short. */
		ret = AX_CORRUPT(err, name, PDB_HEADER_SIZE + z.total_in,
				 "compressed payload truncated");
		goto out_end;
	}
	if (z.total_out != ulen)
		ret = AX_CORRUPT(err, name, PDB_HEADER_SIZE + z.total_in,
				 "payload decompresses to %lu bytes, %zu announced", z.total_out,
				 ulen);
	else if (z.total_in != slen)
		ret = AX_CORRUPT(err, name, PDB_HEADER_SIZE + z.total_in,
				 "bytes after the end of the compressed payload");
out_end:
	inflateEnd(&z);
	if (ret)
		free(buf);
	else
		*out = buf;
	return ret;
}

/* The decoded columns of a table. v[j * n + i] is record i of column j. */
struct cols {
	uint64_t n;
	unsigned int ncols;
	uint64_t *v;
	size_t start[MAX_COLS]; /* payload offset of each column */
};

static int read_cols(struct pctx *c, uint64_t n, unsigned int ncols, struct cols *k)
{
	uint64_t i;
	unsigned int j;

	k->n = n;
	k->ncols = ncols;
	k->v = NULL;
	/* Every varint takes a byte: the count is capped by what is really there. */
	if (n > (c->len - c->pos) / ncols)
		return PDB_CORRUPT_IN(c, c->pos,
				      "%llu records of %u columns cannot fit the %zu bytes left",
				      (unsigned long long)n, ncols, c->len - c->pos);
	k->v = pdb_malloc((size_t)n * ncols * sizeof(uint64_t));
	if (!k->v)
		return ax_fail(c->err, -ENOMEM, "%s: out of memory for %llu records", c->name,
			       (unsigned long long)n);
	for (j = 0; j < ncols; j++) {
		k->start[j] = c->pos;
		for (i = 0; i < n; i++)
			if (pdb_varint(c->p, c->len, &c->pos, &k->v[j * n + i]))
				return PDB_CORRUPT_IN(c, c->pos,
						      "bad varint in column %u, record %llu", j,
						      (unsigned long long)i);
	}
	return 0;
}

/* Payload offset of record i in column j (for messages): walk the column again. */
static size_t col_pos(const struct pctx *c, const struct cols *k, unsigned int j, uint64_t i)
{
	size_t pos = k->start[j];
	uint64_t x;

	while (i-- && !pdb_varint(c->p, c->len, &pos, &x))
		;
	return pos;
}

/* Undo the delta coding of column j in place (strictly increasing or not); scale offsets. */
static int undelta(struct pctx *c, struct cols *k, unsigned int j, bool strict, bool offsets)
{
	uint64_t *v = k->v + j * k->n, prev = 0, i;
	unsigned int sh = offsets ? c->shift : 0;

	for (i = 0; i < k->n; i++) {
		uint64_t o = v[i];

		if (i > 0) {
			if (strict && o == UINT64_MAX)
				return PDB_CORRUPT_IN(c, col_pos(c, k, j, i), "offset overflow");
			o += strict;
			if (o > UINT64_MAX - prev)
				return PDB_CORRUPT_IN(c, col_pos(c, k, j, i), "offset overflow");
			o += prev;
		}
		prev = o;
		if (o > (UINT64_MAX >> sh))
			return PDB_CORRUPT_IN(c, col_pos(c, k, j, i), "offset overflow");
		v[i] = o << sh;
	}
	return 0;
}

static int scale(struct pctx *c, struct cols *k, unsigned int j)
{
	uint64_t *v = k->v + j * k->n, i;

	for (i = 0; i < k->n; i++) {
		if (v[i] > (UINT64_MAX >> c->shift))
			return PDB_CORRUPT_IN(c, col_pos(c, k, j, i), "offset overflow");
		v[i] <<= c->shift;
	}
	return 0;
}

/* Every value of column j within [lo, hi]. */
static int check_range(struct pctx *c, struct cols *k, unsigned int j, uint64_t lo, uint64_t hi,
		       const char *what)
{
	uint64_t *v = k->v + j * k->n, i;

	for (i = 0; i < k->n; i++)
		if (v[i] < lo || v[i] > hi)
			return PDB_CORRUPT_IN(c, col_pos(c, k, j, i),
					      "%s %llu of record %llu out of range %llu..%llu",
					      what, (unsigned long long)v[i], (unsigned long long)i,
					      (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

static int added(struct pctx *c, int err)
{
	if (err == -ENOMEM)
		return ax_fail(c->err, err, "%s: out of memory", c->name);
	if (err)
		return ax_fail(c->err, err, "%s: cannot add its records: %s", c->name,
			       strerror(-err));
	return 0;
}

/*
 * The period record after a samples file's columns (PERIODS; version 2 on, none before): added to
 * the event's record in p once checked against the file's total of samples.
 */
static int parse_period(struct pctx *c, const struct hdr *h, const struct cols *k,
			struct pdb_prof *p)
{
	struct pdb_period pr = { 0, 0 };
	uint64_t total = 0, i;
	const char *why = "?";
	size_t at = c->pos;

	if (h->version < 2)
		return 0;
	if (pdb_varint(c->p, c->len, &c->pos, &pr.samples) ||
	    pdb_varint(c->p, c->len, &c->pos, &pr.events2))
		return PDB_CORRUPT_IN(c, at, "bad or missing period record");
	for (i = 0; i < k->n; i++)
		total = pdb_add_sat(total, k->v[k->n + i]);
	if (pdb_period_check(&pr, total, &why))
		return PDB_CORRUPT_IN(c, at, "period record (%llu samples, %llu events x 2): %s",
				      (unsigned long long)pr.samples,
				      (unsigned long long)pr.events2, why);
	pdb_period_add(&p->period[h->table], &pr);
	return 0;
}

static int parse_counts(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	struct cols k;
	uint64_t i;
	int err;

	err = read_cols(c, h->n, 2, &k);
	if (!err)
		err = undelta(c, &k, 0, true, true);
	if (!err)
		err = check_range(c, &k, 1, 1, UINT64_MAX, "count");
	if (!err && h->table < PDB_EV_MAX)
		err = parse_period(c, h, &k, p);
	if (!err)
		err = added(c, pdb_map_reserve(&p->t[h->table], p->t[h->table].n + k.n));
	for (i = 0; !err && i < k.n; i++) {
		if (h->table == PDB_T_VCOUNT)
			err = pdb_prof_add_vcount(p, k.v[i], k.v[k.n + i]);
		else
			err = pdb_prof_add_sample(p, (unsigned int)h->table, k.v[i], k.v[k.n + i]);
		err = added(c, err);
	}
	free(k.v);
	return err;
}

static int parse_latency(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	struct pdb_latency lat;
	struct cols k;
	uint64_t i, loads;
	unsigned int j;
	int err;

	err = read_cols(c, h->n, LAT_COLS, &k);
	if (!err)
		err = undelta(c, &k, 0, true, true);
	for (i = 0; !err && i < k.n; i++) {
		for (j = 0; j < PDB_LAT_LEVELS; j++)
			lat.level[j] = k.v[(1 + j) * k.n + i];
		lat.latency_sum = k.v[(1 + PDB_LAT_LEVELS) * k.n + i];
		for (j = 0; j < PDB_LAT_BUCKETS; j++)
			lat.hist[j] = k.v[(2 + PDB_LAT_LEVELS + j) * k.n + i];
		if (pdb_latency_check(&lat, &loads)) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 1, i),
					     "record %llu: level counts and latency histogram "
					     "disagree",
					     (unsigned long long)i);
			break;
		}
		err = added(c, pdb_prof_add_latency(p, k.v[i], &lat));
	}
	free(k.v);
	return err;
}

static int parse_profileme(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	struct pdb_profileme pme;
	uint64_t *f = (uint64_t *)&pme, i, n;
	const char *why = "?";
	struct cols k;
	int err;

	err = read_cols(c, h->n, PDB_PME_COLS, &k);
	if (!err)
		err = undelta(c, &k, 0, true, true);
	for (i = 0; !err && i < k.n; i++) {
		for (unsigned int j = 0; j < PDB_PME_COLS - 1; j++)
			f[j] = k.v[(1 + j) * k.n + i];
		if (pdb_profileme_check(&pme, &n, &why)) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 1, i), "record %llu: %s",
					     (unsigned long long)i, why);
			break;
		}
		err = added(c, pdb_prof_add_profileme(p, k.v[i], &pme));
	}
	free(k.v);
	return err;
}

static int parse_values(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	struct hotlist hl;
	struct cols k;
	uint64_t i;
	int err;

	err = read_cols(c, h->n, 2, &k);
	if (!err)
		err = undelta(c, &k, 0, true, true);
	if (!err)
		err = check_range(c, &k, 1, 0, 63, "destination register");
	/* Each hotlist takes at least HOTLIST_PACKED_SIZE(0) bytes. */
	if (!err && k.n > (c->len - c->pos) / HOTLIST_PACKED_SIZE(0))
		err = PDB_CORRUPT_IN(c, c->pos, "%llu hotlists cannot fit the %zu bytes left",
				     (unsigned long long)k.n, c->len - c->pos);
	for (i = 0; !err && i < k.n; i++) {
		const char *why = "?";
		int r = hotlist_unpack_why(&hl, c->p + c->pos, c->len - c->pos, &why);

		if (r < 0) {
			err = PDB_CORRUPT_IN(c, c->pos, "hotlist of record %llu: %s",
					     (unsigned long long)i, why);
			break;
		}
		c->pos += (size_t)r;
		err = added(c, pdb_prof_add_hotlist(p, k.v[i], (unsigned int)k.v[k.n + i], &hl));
	}
	free(k.v);
	return err;
}

/* pmpaths.prof (PDB_FT_PMPATHS): offsets, other, then two hotlists a record. */
static int parse_pmpaths(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	struct pdb_pmpath pp;
	struct cols k;
	uint64_t i;
	int err;

	err = read_cols(c, h->n, 2, &k);
	if (!err)
		err = undelta(c, &k, 0, true, true);
	/* Each record's two hotlists take at least 2 HOTLIST_PACKED_SIZE(0) bytes. */
	if (!err && k.n > (c->len - c->pos) / (2 * HOTLIST_PACKED_SIZE(0)))
		err = PDB_CORRUPT_IN(c, c->pos, "%llu hotlist pairs cannot fit the %zu bytes left",
				     (unsigned long long)k.n, c->len - c->pos);
	for (i = 0; !err && i < k.n; i++) {
		size_t at = c->pos;
		const char *why = "?";
		int r = hotlist_unpack_why(&pp.hist, c->p + c->pos, c->len - c->pos, &why);

		if (r >= 0) {
			c->pos += (size_t)r;
			r = hotlist_unpack_why(&pp.partners, c->p + c->pos, c->len - c->pos, &why);
		}
		if (r < 0) {
			err = PDB_CORRUPT_IN(c, c->pos, "hotlist of record %llu: %s",
					     (unsigned long long)i, why);
			break;
		}
		c->pos += (size_t)r;
		pp.other = k.v[k.n + i];
		if (pdb_pmpath_check(&pp, &why)) {
			err = PDB_CORRUPT_IN(c, at, "record %llu: %s", (unsigned long long)i, why);
			break;
		}
		err = added(c, pdb_prof_add_pmpath(p, k.v[i], &pp));
	}
	free(k.v);
	return err;
}

/*
 * A key table (PDB_FT_CONFLICTS, PDB_FT_PROCS): varint k <= max, k keys strictly increasing,
 * each interned in p; *fidx (malloc'd, k + 1 entries) maps the file's index to p's key id.
 */
static int read_keys(struct pctx *c, uint64_t max, struct pdb_prof *p, uint32_t **fidxp,
		     uint64_t *nkeysp)
{
	char prev[PDB_KEY_MAX + 1] = "", key[PDB_KEY_MAX + 1];
	uint32_t *fidx;
	uint64_t nkeys, i;
	int err = 0;

	*fidxp = NULL;
	if (pdb_varint(c->p, c->len, &c->pos, &nkeys))
		return PDB_CORRUPT_IN(c, c->pos, "bad key count");
	if (nkeys > max)
		return PDB_CORRUPT_IN(c, 0, "key count %llu for %llu records",
				      (unsigned long long)nkeys, (unsigned long long)max);
	fidx = pdb_malloc((nkeys + 1) * sizeof(*fidx));
	if (!fidx)
		return ax_fail(c->err, -ENOMEM, "%s: out of memory", c->name);
	for (i = 0; i < nkeys; i++) {
		size_t at = c->pos;
		uint64_t len;

		if (pdb_varint(c->p, c->len, &c->pos, &len) || len > PDB_KEY_MAX ||
		    len > c->len - c->pos) {
			err = PDB_CORRUPT_IN(c, at, "bad length of key %llu",
					     (unsigned long long)i);
			break;
		}
		memcpy(key, c->p + c->pos, len);
		key[len] = 0;
		if ((len && !pdb_key_is_valid(key)) || (i > 0 && strcmp(prev, key) >= 0)) {
			err = PDB_CORRUPT_IN(c, c->pos, "key %llu invalid or out of order",
					     (unsigned long long)i);
			break;
		}
		c->pos += len;
		memcpy(prev, key, len + 1);
		err = added(c, pdb_prof_intern(p, key, &fidx[i]));
		if (err)
			break;
	}
	if (err) {
		free(fidx);
		return err;
	}
	*fidxp = fidx;
	*nkeysp = nkeys;
	return 0;
}

static int parse_procs(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	struct cols k = { 0 };
	uint32_t *fidx = NULL;
	struct hotlist hl;
	uint64_t nkeys, i;
	int err;

	err = read_keys(c, h->n, p, &fidx, &nkeys);
	if (!err)
		err = read_cols(c, h->n, 3, &k);
	if (!err)
		err = undelta(c, &k, 0, false, true);
	if (!err && k.n > (c->len - c->pos) / HOTLIST_PACKED_SIZE(0))
		err = PDB_CORRUPT_IN(c, c->pos, "%llu hotlists cannot fit the %zu bytes left",
				     (unsigned long long)k.n, c->len - c->pos);
	for (i = 0; !err && i < k.n; i++) {
		const uint64_t *a = k.v + i, n = k.n;
		const char *why = "?";
		int r;

		if (a[n] > 255 || a[2 * n] > 255 ||
		    !pdb_proc_reg_ok((unsigned int)a[n], (unsigned int)a[2 * n])) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 1, i),
					     "record %llu: kind %llu with register %llu",
					     (unsigned long long)i, (unsigned long long)a[n],
					     (unsigned long long)a[2 * n]);
			break;
		}
		/* Strictly increasing (offset, kind, reg). */
		if (i > 0 && a[0] == a[-1] &&
		    (a[n] < a[n - 1] || (a[n] == a[n - 1] && a[2 * n] <= a[2 * n - 1]))) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 0, i), "record %llu out of order",
					     (unsigned long long)i);
			break;
		}
		r = hotlist_unpack_why(&hl, c->p + c->pos, c->len - c->pos, &why);
		if (r >= 0 && a[n] == PDB_PROC_CALLER &&
		    (why = "a caller's key index is not in the key table",
		     pdb_proc_remap(&hl, fidx, (uint32_t)nkeys)))
			r = -EBADMSG;
		if (r < 0) {
			err = PDB_CORRUPT_IN(c, c->pos, "hotlist of record %llu: %s",
					     (unsigned long long)i, why);
			break;
		}
		c->pos += (size_t)r;
		err = added(c, pdb_prof_add_proc(p, a[0], (unsigned int)a[n],
						 (unsigned int)a[2 * n], &hl));
	}
	free(k.v);
	free(fidx);
	return err;
}

static int parse_addrs(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	struct cols k = { 0 };
	struct hotlist hl;
	uint64_t i;
	int err;

	err = read_cols(c, h->n, 2, &k);
	if (!err)
		err = undelta(c, &k, 0, false, true);
	if (!err && k.n > (c->len - c->pos) / HOTLIST_PACKED_SIZE(0))
		err = PDB_CORRUPT_IN(c, c->pos, "%llu hotlists cannot fit the %zu bytes left",
				     (unsigned long long)k.n, c->len - c->pos);
	for (i = 0; !err && i < k.n; i++) {
		const uint64_t *a = k.v + i, n = k.n;
		const char *why = "?";
		int r;

		if (a[n] > 255 || !pdb_addr_kind_ok((unsigned int)a[n])) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 1, i), "record %llu: kind %llu",
					     (unsigned long long)i, (unsigned long long)a[n]);
			break;
		}
		/* Strictly increasing (offset, kind). */
		if (i > 0 && a[0] == a[-1] && a[n] <= a[n - 1]) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 0, i), "record %llu out of order",
					     (unsigned long long)i);
			break;
		}
		r = hotlist_unpack_why(&hl, c->p + c->pos, c->len - c->pos, &why);
		if (r < 0) {
			err = PDB_CORRUPT_IN(c, c->pos, "hotlist of record %llu: %s",
					     (unsigned long long)i, why);
			break;
		}
		c->pos += (size_t)r;
		err = added(c, pdb_prof_add_addr(p, a[0], (unsigned int)a[n], &hl));
	}
	free(k.v);
	return err;
}

static int parse_conflicts(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	uint32_t *fidx = NULL;
	uint64_t nkeys, i;
	struct cols k = { 0 };
	int err = 0;

	err = read_keys(c, h->n, p, &fidx, &nkeys);
	if (!err && nkeys == 0)
		err = PDB_CORRUPT_IN(c, 0, "key count 0 for %llu records",
				     (unsigned long long)h->n);
	if (err)
		goto out_free;
	err = read_cols(c, h->n, 6, &k);
	if (!err)
		err = undelta(c, &k, 0, false, true);
	if (!err)
		err = scale(c, &k, 2);
	if (!err)
		err = check_range(c, &k, 1, 0, nkeys - 1, "key index");
	if (!err)
		err = check_range(c, &k, 3, PDB_CNF_STORE_LOAD, PDB_CNF_LOAD_LOAD, "kind");
	if (!err)
		err = check_range(c, &k, 4, 1, UINT64_MAX, "count");
	if (!err)
		err = check_range(c, &k, 5, 1, UINT32_MAX, "distance");
	for (i = 0; !err && i < k.n; i++) {
		const uint64_t *a = k.v + i, n = k.n;

		/* Strictly increasing (load offset, key, prior offset, kind). */
		if (i > 0 && a[0] == a[-1] &&
		    (a[n] < a[n - 1] || (a[n] == a[n - 1] && (a[2 * n] < a[2 * n - 1] ||
							      (a[2 * n] == a[2 * n - 1] &&
							       a[3 * n] <= a[3 * n - 1]))))) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 0, i), "record %llu out of order",
					     (unsigned long long)i);
			break;
		}
		err = added(c, pdb_prof_add_cnf_id(p, a[0], fidx[a[n]], a[2 * n],
						   (unsigned int)a[3 * n], a[4 * n], a[5 * n]));
	}
out_free:
	free(k.v);
	free(fidx);
	return err;
}

/* One record's frames (file key index, offset) into f[0..depth): -1 when they do not read. */
static int read_frames(struct pctx *c, uint64_t depth, uint64_t nkeys, uint64_t (*f)[2])
{
	for (uint64_t j = 0; j < depth; j++) {
		if (pdb_varint(c->p, c->len, &c->pos, &f[j][0]) || f[j][0] >= nkeys ||
		    pdb_varint(c->p, c->len, &c->pos, &f[j][1]) ||
		    f[j][1] > (PDB_STK_OFF_MAX >> c->shift))
			return -1;
		f[j][1] <<= c->shift;
	}
	return 0;
}

/* stacks.prof (PDB_FT_STACKS): key table, columns event, flags, depth, count, then frames. */
static int parse_stacks(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	uint64_t frames[2][PDB_STK_DEPTH_MAX][2], id[PDB_STK_DEPTH_MAX], nkeys, i;
	uint32_t *fidx = NULL;
	struct cols k = { 0 };
	int err;

	err = read_keys(c, h->n * PDB_STK_DEPTH_MAX, p, &fidx, &nkeys);
	if (!err)
		err = read_cols(c, h->n, 4, &k);
	if (!err)
		err = check_range(c, &k, 0, 0, PDB_EV_MAX - 1, "event");
	if (!err)
		err = check_range(c, &k, 1, 0, PDB_STK_TRUNCATED, "flags");
	if (!err)
		err = check_range(c, &k, 2, 0, PDB_STK_DEPTH_MAX, "depth");
	if (!err)
		err = check_range(c, &k, 3, 1, UINT64_MAX, "count");
	for (i = 0; !err && i < k.n; i++) {
		const uint64_t *a = k.v + i, n = k.n;
		uint64_t(*f)[2] = frames[i & 1], (*g)[2] = frames[!(i & 1)];
		size_t at = c->pos;
		int cmp = 0;

		if (read_frames(c, a[2 * n], nkeys, f)) {
			err = PDB_CORRUPT_IN(c, at, "bad frame in record %llu",
					     (unsigned long long)i);
			break;
		}
		if (!a[2 * n] && a[n]) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 1, i),
					     "record %llu: flags without frames",
					     (unsigned long long)i);
			break;
		}
		/* Strictly increasing (event, flags, depth, frames). */
		if (i > 0) {
			for (unsigned int j = 0; j < 3 && !cmp; j++)
				cmp = a[j * n] < a[j * n - 1] ? -1 : a[j * n] > a[j * n - 1];
			for (uint64_t j = 0; j < 2 * a[2 * n] && !cmp; j++)
				cmp = f[j / 2][j % 2] < g[j / 2][j % 2] ?
					      -1 :
					      f[j / 2][j % 2] > g[j / 2][j % 2];
		}
		if (i > 0 && cmp <= 0) {
			err = PDB_CORRUPT_IN(c, at, "record %llu out of order",
					     (unsigned long long)i);
			break;
		}
		for (uint64_t j = 0; j < a[2 * n]; j++)
			id[j] = (uint64_t)(fidx[f[j][0]] + 1) << PDB_STK_KEY_SHIFT | f[j][1];
		err = added(c, pdb_prof_add_stk_ids(p, (unsigned int)a[0], (unsigned int)a[n], id,
						    (unsigned int)a[2 * n], a[3 * n]));
	}
	free(k.v);
	free(fidx);
	return err;
}

/* Strictly increasing? The tuples a[0], a[n], a[2n], ... of ncols values against the last. */
static bool row_after(const uint64_t *a, uint64_t n, unsigned int ncols)
{
	for (unsigned int j = 0; j < ncols; j++)
		if (a[j * n] != a[j * n - 1])
			return a[j * n] > a[j * n - 1];
	return false;
}

/* unknown.prof, tasks.prof: pid, [tid (PDB_FL_TID),] pc, event, count. */
static int parse_unknown(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	unsigned int t = (h->flags & PDB_FL_TID) ? 1 : 0; /* the tid column, if any */
	struct cols k;
	uint64_t i;
	int err;

	err = read_cols(c, h->n, 4 + t, &k);
	if (!err)
		err = undelta(c, &k, 0, false, false);
	if (!err)
		err = check_range(c, &k, 0, 0, UINT32_MAX, "pid");
	if (!err && t)
		err = check_range(c, &k, 1, 0, UINT32_MAX, "tid");
	if (!err)
		err = scale(c, &k, 1 + t);
	if (!err)
		err = check_range(c, &k, 2 + t, 0, PDB_EV_MAX - 1, "event");
	if (!err)
		err = check_range(c, &k, 3 + t, 1, UINT64_MAX, "count");
	for (i = 0; !err && i < k.n; i++) {
		const uint64_t *a = k.v + i, n = k.n;
		uint32_t tid = (uint32_t)(t ? a[n] : a[0]);

		/* Strictly increasing (pid, tid, pc, event). */
		if (i > 0 && !row_after(a, n, 3 + t)) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 1, i), "record %llu out of order",
					     (unsigned long long)i);
			break;
		}
		err = added(c, (h->table == PDB_T_TASKS ? pdb_prof_add_task_tid :
							  pdb_prof_add_unknown_tid)(
				       p, (uint32_t)a[0], tid, a[(1 + t) * n],
				       (unsigned int)a[(2 + t) * n], a[(3 + t) * n]));
	}
	free(k.v);
	return err;
}

/* The cnt names of record i of threads.prof into nm: 1..PDB_COMM_MAX bytes, no NUL, distinct. */
static int read_names(struct pctx *c, uint64_t i, uint64_t cnt, char (*nm)[PDB_COMM_MAX + 1])
{
	for (uint64_t j = 0; j < cnt; j++) {
		size_t at = c->pos;
		uint64_t len;

		if (pdb_varint(c->p, c->len, &c->pos, &len) || len < 1 || len > PDB_COMM_MAX ||
		    len > c->len - c->pos || memchr(c->p + c->pos, 0, (size_t)len))
			return PDB_CORRUPT_IN(c, at, "bad name %llu of record %llu",
					      (unsigned long long)j, (unsigned long long)i);
		memset(nm[j], 0, PDB_COMM_MAX + 1);
		memcpy(nm[j], c->p + c->pos, (size_t)len);
		c->pos += (size_t)len;
		for (uint64_t q = 0; q < j; q++)
			if (!strcmp(nm[q], nm[j]))
				return PDB_CORRUPT_IN(c, at, "name %llu of record %llu repeats one",
						      (unsigned long long)j, (unsigned long long)i);
	}
	return 0;
}

/* threads.prof (pdb.h PDB_FT_THREADS). */
static int parse_threads(struct pctx *c, const struct hdr *h, struct pdb_prof *p)
{
	char nm[PDB_THR_NAMES][PDB_COMM_MAX + 1];
	struct cols k;
	uint64_t i, lost = 0;
	size_t at;
	int err;

	if (h->n > PDB_THR_MAX)
		return PDB_CORRUPT_IN(c, 0, "%llu threads, more than the table keeps (%d)",
				      (unsigned long long)h->n, PDB_THR_MAX);
	err = read_cols(c, h->n, 4, &k);
	if (!err)
		err = undelta(c, &k, 0, false, false);
	if (!err)
		err = check_range(c, &k, 0, 0, UINT32_MAX, "pid");
	if (!err)
		err = check_range(c, &k, 1, 0, UINT32_MAX, "tid");
	if (!err)
		err = check_range(c, &k, 2, 0, PDB_THR_FORGOT, "flags");
	if (!err)
		err = check_range(c, &k, 3, 1, PDB_THR_NAMES, "name count");
	for (i = 0; !err && i < k.n; i++) {
		const uint64_t *a = k.v + i, n = k.n;

		if (i > 0 && !row_after(a, n, 2)) {
			err = PDB_CORRUPT_IN(c, col_pos(c, &k, 1, i), "record %llu out of order",
					     (unsigned long long)i);
			break;
		}
		err = read_names(c, i, a[3 * n], nm);
		for (uint64_t j = 0; !err && j < a[3 * n]; j++)
			err = added(c, pdb_thr_name(p, (uint32_t)a[0], (uint32_t)a[n],
						    (uint32_t)a[2 * n], nm[j], strlen(nm[j])));
	}
	at = c->pos;
	if (!err && pdb_varint(c->p, c->len, &c->pos, &lost))
		err = PDB_CORRUPT_IN(c, at, "bad or missing count of threads not kept");
	if (!err)
		p->thr_lost = pdb_add_sat(p->thr_lost, lost);
	free(k.v);
	return err;
}

/*
 * The identity record (PDB_FL_IDENT) at the start of the payload: checked against want (when
 * not NULL), the place the file was read from. Files without one (versions 1 and 2, or written
 * by pdb_encode() for tools) carry no identity to check.
 */
static int parse_ident(struct pctx *c, const struct hdr *h, const struct pdb_ident *want)
{
	char key[PDB_KEY_MAX + 1];
	uint64_t epoch, klen;

	if (!(h->flags & PDB_FL_IDENT))
		return 0;
	if (pdb_varint(c->p, c->len, &c->pos, &epoch) || epoch > PDB_EPOCH_MAX ||
	    pdb_varint(c->p, c->len, &c->pos, &klen) || klen > PDB_KEY_MAX ||
	    klen > c->len - c->pos || memchr(c->p + c->pos, 0, (size_t)klen))
		return PDB_CORRUPT_IN(c, 0, "bad identity record");
	memcpy(key, c->p + c->pos, (size_t)klen);
	key[klen] = 0;
	c->pos += (size_t)klen;
	if (want && (epoch != want->epoch || strcmp(key, want->key)))
		return PDB_CORRUPT_IN(c, 0,
				      "the file claims %s%s%s epoch %llu, but lies in %s%s%s "
				      "epoch %u (swapped, moved or copied here?)",
				      *key ? "image " : "", key, *key ? "," : "the database's",
				      (unsigned long long)epoch, *want->key ? "image " : "",
				      want->key, *want->key ? "," : "the database's", want->epoch);
	return 0;
}

/* Check and decompress a whole file; *payload is malloc'd (or points into buf: *owned false). */
static int open_file(const void *buf, size_t len, const char *name, int want,
		     const struct pdb_ident *id, struct hdr *h, struct pctx *c, uint8_t **owned,
		     struct ax_error *err)
{
	const uint8_t *b = buf;
	int ret;

	*owned = NULL;
	ret = parse_header(b, len, name, want, h, err);
	if (ret)
		return ret;
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->err = err;
	c->len = (size_t)h->ulen;
	c->zlib = h->flags & PDB_FL_ZLIB;
	c->shift = shift_of(h->flags);
	if (!c->zlib) {
		c->p = b + PDB_HEADER_SIZE;
	} else {
		ret = inflate_payload(b + PDB_HEADER_SIZE, (size_t)h->slen, c->len, owned, name,
				      err);
		c->p = *owned;
	}
	if (!ret)
		ret = parse_ident(c, h, id);
	return ret;
}

int pdb_parse_table(const void *buf, size_t len, const char *name, int want,
		    const struct pdb_ident *id, struct pdb_prof *p, struct ax_error *err)
{
	uint8_t *owned;
	struct pctx c;
	struct hdr h;
	int ret;

	ret = open_file(buf, len, name, want, id, &h, &c, &owned, err);
	if (ret)
		goto out_free;
	if (h.table < PDB_EV_MAX || h.table == PDB_T_VCOUNT)
		ret = parse_counts(&c, &h, p);
	else if (h.table == PDB_T_VALUES)
		ret = parse_values(&c, &h, p);
	else if (h.table == PDB_T_LATENCY)
		ret = parse_latency(&c, &h, p);
	else if (h.table == PDB_T_PROFILEME)
		ret = parse_profileme(&c, &h, p);
	else if (h.table == PDB_T_PROCS)
		ret = parse_procs(&c, &h, p);
	else if (h.table == PDB_T_PMPATHS)
		ret = parse_pmpaths(&c, &h, p);
	else if (h.table == PDB_T_ADDRS)
		ret = parse_addrs(&c, &h, p);
	else if (h.table == PDB_T_CONFLICTS)
		ret = parse_conflicts(&c, &h, p);
	else if (h.table == PDB_T_STACKS)
		ret = parse_stacks(&c, &h, p);
	else if (h.table == PDB_T_THREADS)
		ret = parse_threads(&c, &h, p);
	else
		ret = parse_unknown(&c, &h, p);
	if (!ret && c.pos != c.len)
		ret = PDB_CORRUPT_IN(&c, c.pos, "%zu bytes after the last record", c.len - c.pos);
out_free:
	free(owned);
	return ret;
}

int pdb_parse(const void *buf, size_t len, const char *name, struct pdb_prof *p,
	      struct ax_error *err)
{
	return pdb_parse_table(buf, len, name, WANT_ANY, NULL, p, err);
}

/* A length-prefixed byte string of at most max bytes: *ptr points into the payload. */
static int get_bytes(struct pctx *c, size_t max, const char *what, uint64_t row,
		     const uint8_t **ptr, size_t *len)
{
	size_t at = c->pos;
	uint64_t l;

	if (pdb_varint(c->p, c->len, &c->pos, &l) || l > max || l > c->len - c->pos)
		return PDB_CORRUPT_IN(c, at, "bad %s length in row %llu", what,
				      (unsigned long long)row);
	*ptr = c->p + c->pos;
	*len = (size_t)l;
	c->pos += (size_t)l;
	return 0;
}

static int parse_index_rows(struct pctx *c, const struct hdr *h, struct pdb_image *list)
{
	const uint8_t *s;
	size_t at, len;
	uint64_t i, x[4];
	char *path;
	int j, err;

	for (i = 0; i < h->n; i++) {
		struct pdb_image *im = &list[i];

		at = c->pos;
		err = get_bytes(c, PDB_KEY_MAX, "key", i, &s, &len);
		if (err)
			return err;
		memcpy(im->key, s, len);
		im->key[len] = 0;
		if (memchr(s, 0, len) || !pdb_key_is_valid(im->key) ||
		    (i > 0 && strcmp(list[i - 1].key, im->key) >= 0))
			return PDB_CORRUPT_IN(c, at, "key of row %llu invalid or out of order",
					      (unsigned long long)i);
		at = c->pos;
		err = get_bytes(c, PDB_PATH_MAX, "path", i, &s, &len);
		if (err)
			return err;
		if (memchr(s, 0, len))
			return PDB_CORRUPT_IN(c, at, "NUL inside the path of row %llu",
					      (unsigned long long)i);
		path = pdb_malloc(len + 1);
		if (!path)
			return ax_fail(c->err, -ENOMEM, "%s: out of memory", c->name);
		memcpy(path, s, len);
		path[len] = 0;
		im->path = path;
		err = get_bytes(c, PDB_BUILD_ID_MAX, "build-id", i, &s, &len);
		if (err)
			return err;
		memcpy(im->build_id, s, len);
		im->build_id_len = (uint32_t)len;
		for (j = 0; j < 4; j++) {
			at = c->pos;
			if (pdb_varint(c->p, c->len, &c->pos, &x[j]))
				return PDB_CORRUPT_IN(c, at, "bad varint in row %llu",
						      (unsigned long long)i);
		}
		if (x[3] != 0)
			return PDB_CORRUPT_IN(c, at, "flags 0x%llx in row %llu",
					      (unsigned long long)x[3], (unsigned long long)i);
		im->size = x[0];
		im->mtime_ns = (int64_t)((x[1] >> 1) ^ (0 - (x[1] & 1)));
		im->text_size = x[2];
		im->flags = PDB_IMG_INDEXED;
	}
	return 0;
}

int pdb_parse_index(const void *buf, size_t len, const char *name, struct pdb_image **list,
		    size_t *n, struct ax_error *err)
{
	return pdb_parse_index_id(buf, len, name, NULL, list, n, err);
}

int pdb_parse_index_id(const void *buf, size_t len, const char *name, const struct pdb_ident *id,
		       struct pdb_image **list, size_t *n, struct ax_error *err)
{
	struct pdb_image *l = NULL;
	uint8_t *owned;
	struct pctx c;
	struct hdr h;
	int ret;

	*list = NULL;
	*n = 0;
	ret = open_file(buf, len, name, WANT_INDEX, id, &h, &c, &owned, err);
	if (ret)
		goto out_free;
	/* A row takes at least 7 bytes (a 1-byte key and six varints). */
	if (h.n > c.len / 7) {
		ret = PDB_CORRUPT_IN(&c, 0, "%llu index rows cannot fit %zu bytes",
				     (unsigned long long)h.n, c.len);
		goto out_free;
	}
	l = pdb_calloc((size_t)h.n, sizeof(*l));
	if (!l) {
		ret = ax_fail(err, -ENOMEM, "%s: out of memory", name);
		goto out_free;
	}
	ret = parse_index_rows(&c, &h, l);
	if (!ret && c.pos != c.len)
		ret = PDB_CORRUPT_IN(&c, c.pos, "%zu bytes after the last row", c.len - c.pos);
	if (ret) {
		pdb_image_list_free(l, (size_t)h.n);
		goto out_free;
	}
	*list = l;
	*n = (size_t)h.n;
out_free:
	free(owned);
	return ret;
}

int pdb_parse_origins(const void *buf, size_t len, const char *name, struct pdb_origin **list,
		      size_t *n, struct ax_error *err)
{
	return pdb_parse_origins_id(buf, len, name, NULL, list, n, err);
}

int pdb_parse_origins_id(const void *buf, size_t len, const char *name, const struct pdb_ident *id,
			 struct pdb_origin **list, size_t *n, struct ax_error *err)
{
	struct pdb_origin *v = NULL;
	struct cols k = { 0 };
	uint8_t *owned;
	struct pctx c;
	struct hdr h;
	uint64_t i;
	int ret;

	*list = NULL;
	*n = 0;
	ret = open_file(buf, len, name, WANT_ORIGINS, id, &h, &c, &owned, err);
	if (!ret)
		ret = read_cols(&c, h.n, 2, &k);
	if (!ret)
		ret = undelta(&c, &k, 0, false, false);
	if (!ret)
		ret = check_range(&c, &k, 1, 1, PDB_EPOCH_MAX, "epoch");
	if (!ret && c.pos != c.len)
		ret = PDB_CORRUPT_IN(&c, c.pos, "%zu bytes after the last record", c.len - c.pos);
	if (!ret) {
		v = pdb_calloc((size_t)k.n, sizeof(*v));
		if (!v)
			ret = ax_fail(err, -ENOMEM, "%s: out of memory", name);
	}
	for (i = 0; !ret && i < k.n; i++) {
		v[i].id = k.v[i];
		v[i].epoch = (uint32_t)k.v[k.n + i];
		if (i && cmp_origin(&v[i - 1], &v[i]) >= 0)
			ret = PDB_CORRUPT_IN(&c, col_pos(&c, &k, 0, i), "record %llu out of order",
					     (unsigned long long)i);
	}
	if (!ret) {
		*list = v;
		*n = (size_t)k.n;
		v = NULL;
	}
	free(v);
	free(k.v);
	free(owned);
	return ret;
}

void pdb_image_list_free(struct pdb_image *list, size_t n)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < n; i++)
		free((char *)list[i].path);
	free(list);
}

static int cmp_mf(const void *a, const void *b)
{
	return strcmp(((const struct pdb_mf *)a)->key, ((const struct pdb_mf *)b)->key);
}

/* The tables a key may hold: the unknown table for PDB_KEY_UNKNOWN, the others otherwise. */
uint64_t pdb_key_tables(const char *key)
{
	return strcmp(key, PDB_KEY_UNKNOWN) ? PDB_T_IMAGE_MASK : PDB_T_EPOCH_MASK;
}

static bool mf_key_ok(const char *key)
{
	return pdb_key_is_valid(key) || !strcmp(key, PDB_KEY_UNKNOWN);
}

int pdb_encode_manifest(const struct pdb_mf *v, size_t n, const struct pdb_ident *id, void **buf,
			size_t *len)
{
	struct enc e;
	size_t i;
	int err;

	*buf = NULL;
	*len = 0;
	if (!n)
		return -ENODATA;
	for (i = 0; i < n; i++)
		if (!mf_key_ok(v[i].key) || !v[i].tables ||
		    (v[i].tables & ~pdb_key_tables(v[i].key)) ||
		    (i && cmp_mf(&v[i - 1], &v[i]) >= 0))
			return -EINVAL;
	memset(&e, 0, sizeof(e));
	e.type = PDB_FT_MANIFEST;
	put_ident(&e, id);
	for (i = 0; i < n; i++) {
		size_t klen = strlen(v[i].key);

		pdb_wbuf_varint(&e.b, klen);
		pdb_wbuf_bytes(&e.b, v[i].key, klen);
		pdb_wbuf_varint(&e.b, v[i].tables);
	}
	e.n = n;
	err = finish(&e, buf, len);
	free(e.b.p);
	return err;
}

static int parse_mf_rows(struct pctx *c, uint64_t n, struct pdb_mf *v)
{
	const uint8_t *s;
	size_t at, len;
	uint64_t i;
	int err;

	for (i = 0; i < n; i++) {
		at = c->pos;
		err = get_bytes(c, PDB_KEY_MAX, "key", i, &s, &len);
		if (err)
			return err;
		memcpy(v[i].key, s, len);
		v[i].key[len] = 0;
		if (memchr(s, 0, len) || !mf_key_ok(v[i].key) ||
		    (i > 0 && cmp_mf(&v[i - 1], &v[i]) >= 0))
			return PDB_CORRUPT_IN(c, at, "key of row %llu invalid or out of order",
					      (unsigned long long)i);
		at = c->pos;
		if (pdb_varint(c->p, c->len, &c->pos, &v[i].tables) || !v[i].tables ||
		    (v[i].tables & ~pdb_key_tables(v[i].key)))
			return PDB_CORRUPT_IN(c, at, "bad table set in row %llu",
					      (unsigned long long)i);
	}
	return 0;
}

int pdb_parse_manifest(const void *buf, size_t len, const char *name, const struct pdb_ident *id,
		       struct pdb_mf **list, size_t *n, struct ax_error *err)
{
	struct pdb_mf *v = NULL;
	uint8_t *owned;
	struct pctx c;
	struct hdr h;
	int ret;

	*list = NULL;
	*n = 0;
	ret = open_file(buf, len, name, WANT_MANIFEST, id, &h, &c, &owned, err);
	/* A row takes at least 3 bytes (a 1-byte key and a varint). */
	if (!ret && h.n > (c.len - c.pos) / 3)
		ret = PDB_CORRUPT_IN(&c, c.pos, "%llu manifest rows cannot fit %zu bytes",
				     (unsigned long long)h.n, c.len - c.pos);
	if (!ret) {
		v = pdb_calloc((size_t)h.n, sizeof(*v));
		if (!v)
			ret = ax_fail(err, -ENOMEM, "%s: out of memory", name);
	}
	if (!ret)
		ret = parse_mf_rows(&c, h.n, v);
	if (!ret && c.pos != c.len)
		ret = PDB_CORRUPT_IN(&c, c.pos, "%zu bytes after the last row", c.len - c.pos);
	if (!ret) {
		*list = v;
		*n = (size_t)h.n;
		v = NULL;
	}
	free(v);
	free(owned);
	return ret;
}

/* --- the journal (pdb.h TRANSACTIONS) --- */

/* A journal path: relative, components not empty, not "." or "..", at most PATH_MAX - 256. */
static bool jpath_ok(const char *p, size_t len)
{
	size_t i, start = 0;

	if (!len || len > PATH_MAX - 256 || memchr(p, 0, len))
		return false;
	for (i = 0; i <= len; i++) {
		if (i < len && p[i] != '/')
			continue;
		if (i == start || (i - start == 1 && p[start] == '.') ||
		    (i - start == 2 && p[start] == '.' && p[start + 1] == '.'))
			return false;
		start = i + 1;
	}
	return true;
}

/* tmp is a temporary file name in path's directory. */
static bool jtmp_ok(const char *path, const char *tmp)
{
	const char *ps = strrchr(path, '/'), *ts = strrchr(tmp, '/');
	size_t pd = ps ? (size_t)(ps - path) : 0, td = ts ? (size_t)(ts - tmp) : 0;

	return pd == td && !memcmp(path, tmp, pd) && pdb_is_temp_name(ts ? ts + 1 : tmp);
}

int pdb_encode_journal(const struct pdb_jop *v, size_t n, void **buf, size_t *len)
{
	struct enc e;
	size_t i;
	int err;

	*buf = NULL;
	*len = 0;
	memset(&e, 0, sizeof(e));
	e.type = PDB_FT_JOURNAL;
	for (i = 0; i < n; i++) {
		size_t pl = strlen(v[i].path), tl;

		if (v[i].dead)
			continue;
		if (!jpath_ok(v[i].path, pl) ||
		    (v[i].kind == PDB_J_RENAME && !jtmp_ok(v[i].path, v[i].tmp)) ||
		    (v[i].kind != PDB_J_RENAME && v[i].kind != PDB_J_UNLINK)) {
			free(e.b.p);
			return -EINVAL;
		}
		pdb_wbuf_varint(&e.b, v[i].kind);
		pdb_wbuf_varint(&e.b, pl);
		pdb_wbuf_bytes(&e.b, v[i].path, pl);
		if (v[i].kind == PDB_J_RENAME) {
			tl = strlen(v[i].tmp);
			pdb_wbuf_varint(&e.b, tl);
			pdb_wbuf_bytes(&e.b, v[i].tmp, tl);
		}
		e.n++;
	}
	if (!e.n)
		return -ENODATA;
	err = finish(&e, buf, len);
	free(e.b.p);
	return err;
}

void pdb_jops_free(struct pdb_jop *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].tmp);
	}
	free(v);
}

/* One path of a journal row into a new string (*out). */
static int get_jpath(struct pctx *c, uint64_t row, char **out)
{
	const uint8_t *s;
	size_t at = c->pos, len;
	int err = get_bytes(c, PATH_MAX - 256, "path", row, &s, &len);

	if (err)
		return err;
	if (!jpath_ok((const char *)s, len))
		return PDB_CORRUPT_IN(c, at, "bad path in row %llu", (unsigned long long)row);
	*out = pdb_malloc(len + 1);
	if (!*out)
		return ax_fail(c->err, -ENOMEM, "%s: out of memory", c->name);
	memcpy(*out, s, len);
	(*out)[len] = 0;
	return 0;
}

int pdb_parse_journal(const void *buf, size_t len, const char *name, struct pdb_jop **list,
		      size_t *n, struct ax_error *err)
{
	struct pdb_jop *v = NULL;
	uint8_t *owned;
	struct pctx c;
	struct hdr h = { 0 };
	uint64_t i, kind;
	size_t at;
	int ret;

	*list = NULL;
	*n = 0;
	ret = open_file(buf, len, name, WANT_JOURNAL, NULL, &h, &c, &owned, err);
	/* A row takes at least 3 bytes (kind, a path length and one byte). */
	if (!ret && h.n > (c.len - c.pos) / 3)
		ret = PDB_CORRUPT_IN(&c, c.pos, "%llu journal rows cannot fit %zu bytes",
				     (unsigned long long)h.n, c.len - c.pos);
	if (!ret) {
		v = pdb_calloc((size_t)h.n, sizeof(*v));
		if (!v)
			ret = ax_fail(err, -ENOMEM, "%s: out of memory", name);
	}
	for (i = 0; !ret && i < h.n; i++) {
		at = c.pos;
		if (pdb_varint(c.p, c.len, &c.pos, &kind) ||
		    (kind != PDB_J_RENAME && kind != PDB_J_UNLINK)) {
			ret = PDB_CORRUPT_IN(&c, at, "bad operation in row %llu",
					     (unsigned long long)i);
			break;
		}
		v[i].kind = (unsigned int)kind;
		ret = get_jpath(&c, i, &v[i].path);
		if (!ret && kind == PDB_J_RENAME) {
			at = c.pos;
			ret = get_jpath(&c, i, &v[i].tmp);
			if (!ret && !jtmp_ok(v[i].path, v[i].tmp))
				ret = PDB_CORRUPT_IN(&c, at,
						     "row %llu: not a temporary file beside its "
						     "destination",
						     (unsigned long long)i);
		}
	}
	if (!ret && c.pos != c.len)
		ret = PDB_CORRUPT_IN(&c, c.pos, "%zu bytes after the last row", c.len - c.pos);
	if (!ret) {
		*list = v;
		*n = (size_t)h.n;
		v = NULL;
	}
	pdb_jops_free(v, (size_t)h.n);
	free(owned);
	return ret;
}
