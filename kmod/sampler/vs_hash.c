/* kmod/sampler/vs_hash.c - per-CPU 4-way hash of (pid, pc, event) -> count (DCPI §4.2.1). */
#include "vs_core.h"

/*
 * DCPI §4.2.1: hash (PID, PC, EVENT) to a bucket of four 16-byte entries (one 64-byte cache
 * line, so a lookup takes at most one data-cache miss); a match increments its count, otherwise
 * an entry is evicted to the overflow buffer, chosen by a mod-4 counter incremented on each
 * eviction, and replaced by the new sample with a count of one. Two refinements here: a free
 * entry in the bucket is used before anything is evicted, and when the buffers have no room the
 * new sample (count 1) is dropped instead of an entry that may hold thousands.
 */

int vs_hash_init(struct vs_hash *h, void *mem, uint32_t nbuckets, struct vs_buf *buf,
		 struct vs_stats *st)
{
	uint32_t log2n = 0;

	if (!mem || ((uintptr_t)mem & 63) || nbuckets < VS_HASH_MIN_BUCKETS ||
	    nbuckets > VS_HASH_MAX_BUCKETS || (nbuckets & (nbuckets - 1)))
		return -EINVAL;
	while ((1u << log2n) < nbuckets)
		log2n++;
	memset(mem, 0, vs_hash_mem_size(nbuckets));
	h->bucket = mem;
	h->nbuckets = nbuckets;
	h->shift = 64 - log2n;
	h->victim = 0;
	h->count_max = VS_HASH_COUNT_MASK;
	h->cursor = 0;
	h->buf = buf;
	h->st = st;
	return 0;
}

/* Write entry e to the buffer as a sample record; false when there is no room. */
static inline bool emit(struct vs_hash *h, const struct vs_hash_entry *e)
{
	struct vs_rec_sample *r = vs_buf_reserve(h->buf, VS_REC_SAMPLE, sizeof(*r));

	if (!r)
		return false;
	r->pid = e->pid;
	r->pc = e->pc;
	r->count = e->word & VS_HASH_COUNT_MASK;
	r->event = (uint8_t)((e->word >> VS_HASH_COUNT_BITS) & 0x7f);
	r->flags = (e->word & VS_HASH_KERNEL) ? VS_SF_KERNEL : VS_SF_USER;
	r->reserved = 0;
	return true;
}

int vs_hash_sample(struct vs_hash *h, uint32_t pid, uint64_t pc, unsigned int event, bool user)
{
	uint32_t tag = vs_hash_tag(event, user);
	struct vs_hash_bucket *b = vs_hash_bucket_of(h, pid, pc, tag);
	struct vs_hash_entry *e, *free = NULL;
	unsigned int i;

	for (i = 0; i < VS_HASH_WAYS; i++) {
		e = &b->e[i];
		if (e->pc == pc && e->pid == pid && (e->word & ~VS_HASH_COUNT_MASK) == tag &&
		    (e->word & VS_HASH_COUNT_MASK)) {
			if ((e->word & VS_HASH_COUNT_MASK) + 1 < h->count_max) {
				e->word++;
				h->st->hash_hits++;
				return VS_HASH_HIT;
			}
			/* Saturated: the entry, with this sample counted, goes out now. */
			e->word++;
			if (!emit(h, e)) {
				e->word--;
				h->st->drops[VS_DROP_SAMPLE_BUF]++;
				return -ENOSPC;
			}
			e->word = 0;
			h->st->hash_hits++;
			h->st->hash_saturations++;
			return VS_HASH_SATURATED;
		}
		if (!free && !(e->word & VS_HASH_COUNT_MASK))
			free = e;
	}
	if (free) {
		free->pc = pc;
		free->pid = pid;
		free->word = tag | 1;
		h->st->hash_misses++;
		return VS_HASH_NEW;
	}
	e = &b->e[h->victim & (VS_HASH_WAYS - 1)];
	if (!emit(h, e)) {
		h->st->drops[VS_DROP_SAMPLE_BUF]++;
		return -ENOSPC;
	}
	h->victim++;
	e->pc = pc;
	e->pid = pid;
	e->word = tag | 1;
	h->st->hash_misses++;
	h->st->hash_evictions++;
	return VS_HASH_EVICT;
}

int vs_hash_flush(struct vs_hash *h)
{
	for (; h->cursor < h->nbuckets; h->cursor++) {
		struct vs_hash_bucket *b = &h->bucket[h->cursor];
		unsigned int i;

		for (i = 0; i < VS_HASH_WAYS; i++) {
			struct vs_hash_entry *e = &b->e[i];

			if (!(e->word & VS_HASH_COUNT_MASK))
				continue;
			if (!emit(h, e))
				return -ENOSPC; /* resumes at this bucket */
			e->word = 0;
			h->st->hash_flushed++;
		}
	}
	h->cursor = 0;
	return 0;
}

uint32_t vs_hash_used(const struct vs_hash *h)
{
	uint32_t i, j, n = 0;

	for (i = 0; i < h->nbuckets; i++)
		for (j = 0; j < VS_HASH_WAYS; j++)
			n += (h->bucket[i].e[j].word & VS_HASH_COUNT_MASK) != 0;
	return n;
}
