/* machine/mach_ptruth.c - exact per-procedure argument, return and caller histograms (truth). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mach_ptruth.h"
#include "vs_core.h"

#define PT_ARG 1
#define PT_RET 2
#define PT_CALLER 3

/* One key's exact histogram. */
struct pt_hist {
	uint64_t pc;
	uint8_t kind, reg;
	struct mach_vhist v;
};

struct mach_ptruth {
	uint64_t lo, hi;
	struct pt_hist **h; /* open addressing over keys, cap a power of two */
	size_t cap, n;
	uint64_t prev_pc; /* the last call or ret fetched in [lo, hi) */
	uint8_t prev_kind; /* 0: none pending, PT_ARG: a call, PT_RET: a ret */
};

int mach_ptruth_new(struct mach_ptruth **out, uint64_t lo, uint64_t hi)
{
	struct mach_ptruth *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->cap = 256;
	t->h = calloc(t->cap, sizeof(*t->h));
	if (!t->h) {
		free(t);
		return -ENOMEM;
	}
	t->lo = lo;
	t->hi = hi;
	*out = t;
	return 0;
}

void mach_ptruth_free(struct mach_ptruth *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cap; i++)
		free(t->h[i]);
	free(t->h);
	free(t);
}

static size_t key_slot(uint64_t pc, unsigned int kind, unsigned int reg, size_t cap)
{
	uint64_t k = pc ^ ((uint64_t)kind << 56) ^ ((uint64_t)reg << 48);

	return (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 40) & (cap - 1);
}

static int grow(struct mach_ptruth *t)
{
	size_t cap = 2 * t->cap;
	struct pt_hist **h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct pt_hist *e = t->h[i];
		size_t k;

		if (!e)
			continue;
		for (k = key_slot(e->pc, e->kind, e->reg, cap); h[k]; k = (k + 1) & (cap - 1))
			;
		h[k] = e;
	}
	free(t->h);
	t->h = h;
	t->cap = cap;
	return 0;
}

static struct pt_hist *hist_of(struct mach_ptruth *t, uint64_t pc, unsigned int kind,
			       unsigned int reg)
{
	size_t k;

	if (2 * (t->n + 1) > t->cap && grow(t))
		return NULL;
	for (k = key_slot(pc, kind, reg, t->cap); t->h[k]; k = (k + 1) & (t->cap - 1))
		if (t->h[k]->pc == pc && t->h[k]->kind == kind && t->h[k]->reg == reg)
			return t->h[k];
	t->h[k] = calloc(1, sizeof(struct pt_hist));
	if (!t->h[k])
		return NULL;
	t->h[k]->pc = pc;
	t->h[k]->kind = (uint8_t)kind;
	t->h[k]->reg = (uint8_t)reg;
	t->n++;
	return t->h[k];
}

static void add(struct mach_ptruth *t, uint64_t pc, unsigned int kind, unsigned int reg, uint64_t v)
{
	struct pt_hist *h = hist_of(t, pc, kind, reg);

	if (h)
		mach_vhist_add(&h->v, v);
}

void mach_ptruth_fetch(struct mach_ptruth *t, const struct axp_ctx *ctx, uint64_t va,
		       const struct axp_insn *d)
{
	unsigned int r;

	/* The pending call or ret executed: va is its target (a refetch of it is not). */
	if (t->prev_kind && va != t->prev_pc) {
		if (t->prev_kind == PT_ARG) {
			add(t, va, PT_CALLER, 26, t->prev_pc);
			for (r = 16; r <= 21; r++) {
				add(t, va, PT_ARG, r, ctx->r[r]);
				add(t, va, PT_ARG, 32 + r, ctx->f[r]);
			}
		} else {
			add(t, t->prev_pc, PT_RET, 0, ctx->r[0]);
			add(t, t->prev_pc, PT_RET, 32, ctx->f[0]);
		}
	}
	t->prev_kind = 0;
	if (!d || va < t->lo || va >= t->hi)
		return;
	switch (vs_call_kind_of(d)) {
	case VS_CALL_CALL:
		t->prev_kind = PT_ARG;
		break;
	case VS_CALL_RET:
		t->prev_kind = PT_RET;
		break;
	default:
		break;
	}
	t->prev_pc = va;
}

static int hist_cmp(const void *a, const void *b)
{
	const struct pt_hist *x = *(const struct pt_hist *const *)a;
	const struct pt_hist *y = *(const struct pt_hist *const *)b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->reg < y->reg ? -1 : x->reg > y->reg;
}

int mach_ptruth_write(const struct mach_ptruth *t, const char *path)
{
	struct mach_vhist_item *items = calloc(MACH_VHIST_VALUES, sizeof(*items));
	struct pt_hist **v = calloc(t->n + 1, sizeof(*v));
	size_t n = 0;
	FILE *f = NULL;
	int ret = 0;

	if (!items || !v) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->h[i])
			v[n++] = t->h[i];
	qsort(v, n, sizeof(*v), hist_cmp);
	f = fopen(path, "w");
	if (!f) {
		ret = -errno;
		goto out;
	}
	fprintf(f, "# axprof proc truth 1\n");
	for (size_t i = 0; i < n; i++) {
		unsigned int k = mach_vhist_sorted(&v[i]->v, items);

		fprintf(f,
			"proc 0x%" PRIx64 " kind %u reg %u n %" PRIu64 " distinct %u other %" PRIu64
			"\n",
			v[i]->pc, v[i]->kind, v[i]->reg, v[i]->v.n, v[i]->v.used, v[i]->v.other);
		for (unsigned int j = 0; j < k; j++)
			fprintf(f, " 0x%" PRIx64 " %" PRIu64 "\n", items[j].val, items[j].cnt);
	}
	if (fflush(f) || ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -EIO;
out:
	free(items);
	free(v);
	return ret;
}
