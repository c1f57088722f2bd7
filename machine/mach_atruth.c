/* machine/mach_atruth.c - exact per-load address and stride histograms (truth). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mach_atruth.h"

/* One load pc: its addresses, its strides and its last address. */
struct at_load {
	struct mach_vhist ea, stride;
	uint64_t last;
};

struct mach_atruth {
	uint64_t lo, hi;
	struct at_load **pc; /* by (pc - lo) / 4; NULL: never executed */
	size_t npc;
	bool lost; /* a histogram could not be allocated: the truth is incomplete */
};

int mach_atruth_new(struct mach_atruth **out, uint64_t lo, uint64_t hi)
{
	struct mach_atruth *t;

	*out = NULL;
	if (hi <= lo || (hi - lo) / 4 > (1u << 28))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->npc = (size_t)((hi - lo + 3) / 4);
	t->pc = calloc(t->npc, sizeof(*t->pc));
	if (!t->pc) {
		free(t);
		return -ENOMEM;
	}
	t->lo = lo;
	t->hi = hi;
	*out = t;
	return 0;
}

void mach_atruth_free(struct mach_atruth *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->npc; i++)
		free(t->pc[i]);
	free(t->pc);
	free(t);
}

void mach_atruth_load(struct mach_atruth *t, uint64_t pc, uint64_t ea)
{
	struct at_load *l;
	size_t i;

	if (pc < t->lo || pc >= t->hi || (pc & 3))
		return;
	i = (size_t)((pc - t->lo) >> 2);
	l = t->pc[i];
	if (!l) {
		l = calloc(1, sizeof(*l));
		if (!l) {
			t->lost = true; /* mach_atruth_write refuses to write a wrong truth */
			return;
		}
		t->pc[i] = l;
	}
	if (l->ea.n)
		mach_vhist_add(&l->stride, ea - l->last);
	mach_vhist_add(&l->ea, ea);
	l->last = ea;
}

static void write_hist(FILE *f, const struct mach_vhist *h, bool stride)
{
	struct mach_vhist_item vs[MACH_VHIST_VALUES];
	unsigned int n = mach_vhist_sorted(h, vs);

	for (unsigned int k = 0; k < n; k++) {
		if (stride)
			fprintf(f, " stride %" PRId64 " %" PRIu64 "\n", (int64_t)vs[k].val,
				vs[k].cnt);
		else
			fprintf(f, " ea 0x%" PRIx64 " %" PRIu64 "\n", vs[k].val, vs[k].cnt);
	}
}

int mach_atruth_write(const struct mach_atruth *t, const char *path)
{
	FILE *f;
	int err = 0;

	if (t->lost)
		return -ENOMEM;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "# axprof addr truth 1\n");
	for (size_t i = 0; i < t->npc; i++) {
		const struct at_load *l = t->pc[i];

		if (!l)
			continue;
		fprintf(f,
			"load 0x%" PRIx64 " n %" PRIu64 " distinct %u other %" PRIu64
			" strides %" PRIu64 " sdistinct %u sother %" PRIu64 "\n",
			t->lo + 4 * (uint64_t)i, l->ea.n, l->ea.used, l->ea.other, l->stride.n,
			l->stride.used, l->stride.other);
		write_hist(f, &l->ea, false);
		write_hist(f, &l->stride, true);
	}
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}
