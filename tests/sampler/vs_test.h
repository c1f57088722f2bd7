/* tests/sampler/vs_test.h - shared helpers for the sampler tests: memory, drain loops, records. */
#ifndef VS_TEST_H
#define VS_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vs_sampler.h"

/* A growing byte array of drained records. */
struct recs {
	uint8_t *data;
	size_t len, cap;
};

static inline void recs_free(struct recs *r)
{
	free(r->data);
	memset(r, 0, sizeof(*r));
}

static inline void recs_add(struct recs *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2 + 4096;
		r->data = realloc(r->data, r->cap);
		assert_non_null(r->data);
	}
	memcpy(r->data + r->len, p, n);
	r->len += n;
}

/* Every record in r is valid and whole; returns how many there are. */
static inline size_t recs_check(const struct recs *r)
{
	size_t off = 0, n = 0;

	while (off < r->len) {
		const char *why = NULL;
		int len = vs_abi_check_record(r->data + off, r->len - off, &why);

		if (len < 0)
			fail_msg("record at %zu rejected: %s", off, why);
		assert_true(len > 0 && (size_t)len <= r->len - off);
		off += (size_t)len;
		n++;
	}
	assert_int_equal(off, r->len);
	return n;
}

/* Iterate: for (p = NULL; (p = recs_next(r, p)); ) */
static inline const struct vs_rec_hdr *recs_next(const struct recs *r, const struct vs_rec_hdr *p)
{
	size_t off = p ? (size_t)((const uint8_t *)p - r->data) + p->len : 0;

	return off < r->len ? (const struct vs_rec_hdr *)(r->data + off) : NULL;
}

/* Drain what is ready on a buffer pair into r, `chunk` bytes at a time. */
static inline void drain_buf(struct vs_buf *b, struct recs *r, size_t chunk)
{
	uint8_t tmp[8192];
	size_t rem, n;

	assert_true(chunk <= sizeof(tmp));
	while (vs_buf_swap(b)) {
		do {
			n = vs_drain(b, tmp, chunk, &rem);
			recs_add(r, tmp, n);
		} while (n);
		assert_int_equal(rem, 0);
	}
}

/* The whole drain loop of vs_sampler.h: flush everything and copy it all out. */
static inline void drain_cpu(struct vs_cpu *cpu, struct recs *r)
{
	uint8_t tmp[4096];
	size_t rem, n;
	int err;

	do {
		err = vs_cpu_flush(cpu);
		assert_true(err == 0 || err == -ENOSPC);
		while (vs_cpu_swap(cpu)) {
			do {
				n = vs_cpu_drain(cpu, tmp, sizeof(tmp), &rem);
				recs_add(r, tmp, n);
			} while (n);
			assert_int_equal(rem, 0);
		}
	} while (err == -ENOSPC);
}

/* 64-byte aligned zeroed memory for a CPU under cfg. */
static inline struct vs_cpu *cpu_new(const struct vs_config *cfg, uint32_t cpuno, void **mem)
{
	struct vs_platform plat = { .cpu = cpuno,
				    .amask = AXP_AMASK_BWX | AXP_AMASK_FIX | AXP_AMASK_CIX |
					     AXP_AMASK_MVI | AXP_AMASK_PRECISE_TRAP,
				    .implver = 1 };
	size_t size = vs_cpu_size(cfg);
	struct vs_cpu *cpu = NULL;

	assert_true(size > 0);
	*mem = aligned_alloc(64, (size + 63) & ~(size_t)63);
	assert_non_null(*mem);
	assert_int_equal(vs_cpu_init(*mem, size, cfg, &plat, &cpu), 0);
	assert_ptr_equal(cpu, *mem);
	return cpu;
}

/* A small deterministic generator for test streams (xorshift64*). */
static inline uint64_t trand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

#endif /* VS_TEST_H */
