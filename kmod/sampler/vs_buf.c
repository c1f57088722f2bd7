/* kmod/sampler/vs_buf.c - the pair of overflow buffers: fill one, drain the other (DCPI §4.2). */
#include "vs_core.h"

/*
 * The protocol is described at struct vs_buf (vs_core.h). In short: the producer appends to the
 * ACTIVE buffer and, when a record does not fit, hands it over (READY) if the other one is EMPTY,
 * else the record is refused; the consumer picks the READY buffer in vs_buf_swap() on the
 * producer's CPU and copies it out with vs_drain() from anywhere.
 */

int vs_buf_init(struct vs_buf *b, void *mem0, void *mem1, uint32_t size, struct vs_stats *st,
		unsigned int which)
{
	if (!mem0 || !mem1 || size < VS_BUF_MIN || size % VS_REC_ALIGN || which > 1)
		return -EINVAL;
	b->data[0] = mem0;
	b->data[1] = mem1;
	b->size = size;
	b->fill[0] = b->fill[1] = 0;
	b->state[0] = VS_BUF_ACTIVE;
	b->state[1] = VS_BUF_EMPTY;
	b->active = 0;
	b->draining = VS_BUF_NONE;
	b->wake = 0;
	b->which = (uint8_t)which;
	b->cursor = 0;
	b->st = st;
	return 0;
}

void *vs_buf_reserve(struct vs_buf *b, unsigned int type, unsigned int len)
{
	unsigned int a = b->active, o = a ^ 1;
	struct vs_rec_hdr *h;

	if (b->fill[a] + len > b->size) {
		if (b->state[o] != VS_BUF_EMPTY)
			return NULL;
		/* Hand the full buffer to the consumer, start on the other. */
		b->state[a] = VS_BUF_READY;
		b->state[o] = VS_BUF_ACTIVE;
		b->fill[o] = 0;
		b->active = (uint8_t)o;
		b->wake = 1;
		b->st->buf_swaps[b->which]++;
		a = o;
	}
	h = (struct vs_rec_hdr *)(b->data[a] + b->fill[a]);
	b->fill[a] += len;
	h->type = (uint16_t)type;
	h->len = (uint16_t)len;
	if (type < VS_REC_SLOTS)
		b->st->records[type]++;
	return h;
}

uint32_t vs_buf_swap(struct vs_buf *b)
{
	unsigned int a = b->active, o = a ^ 1, d = b->draining;

	/* Retire a buffer the consumer has copied out completely. */
	if (d != VS_BUF_NONE && b->cursor >= b->fill[d]) {
		b->fill[d] = 0;
		b->state[d] = VS_BUF_EMPTY;
		b->draining = VS_BUF_NONE;
	}
	if (b->draining == VS_BUF_NONE) {
		if (b->state[o] == VS_BUF_READY) {
			/* The producer swapped by itself. */
			b->draining = (uint8_t)o;
			b->cursor = 0;
		} else if (b->state[o] == VS_BUF_EMPTY && b->fill[a]) {
			b->state[a] = VS_BUF_READY;
			b->state[o] = VS_BUF_ACTIVE;
			b->fill[o] = 0;
			b->active = (uint8_t)o;
			b->draining = (uint8_t)a;
			b->cursor = 0;
			b->st->buf_swaps[b->which]++;
		}
	}
	d = b->draining;
	return d == VS_BUF_NONE ? 0 : b->fill[d] - b->cursor;
}

size_t vs_drain(struct vs_buf *b, void *out, size_t len, size_t *remaining)
{
	unsigned int d = b->draining;
	const uint8_t *src;
	uint32_t end, cur, n = 0;

	if (d == VS_BUF_NONE) {
		if (remaining)
			*remaining = 0;
		return 0;
	}
	src = b->data[d];
	end = b->fill[d];
	cur = b->cursor;
	while (cur < end) {
		const struct vs_rec_hdr *h = (const struct vs_rec_hdr *)(src + cur);
		uint32_t rl = h->len;

		if (rl < sizeof(*h) || rl > end - cur) {
			/* Cannot happen (the producer writes whole records); never loop on it. */
			cur = end;
			break;
		}
		if (rl > len - n)
			break;
		cur += rl;
		n += rl;
	}
	memcpy(out, src + b->cursor, n);
	b->cursor = cur;
	if (remaining)
		*remaining = end - cur;
	return n;
}
