/* machine/mach_vhist.c - a bounded exact value histogram (mach_vhist.h). */
#include <stdlib.h>

#include "mach_vhist.h"

static unsigned int slot_of(uint64_t v)
{
	return (unsigned int)((v * 0x9e3779b97f4a7c15ULL) >> 55) & (MACH_VHIST_SLOTS - 1);
}

void mach_vhist_add(struct mach_vhist *h, uint64_t v)
{
	unsigned int k = slot_of(v);

	h->n++;
	for (;;) {
		if (!h->cnt[k]) {
			if (h->used >= MACH_VHIST_VALUES) {
				h->other++;
				return;
			}
			h->used++;
			h->val[k] = v;
			h->cnt[k] = 1;
			return;
		}
		if (h->val[k] == v) {
			h->cnt[k]++;
			return;
		}
		k = (k + 1) & (MACH_VHIST_SLOTS - 1);
	}
}

uint64_t mach_vhist_count(const struct mach_vhist *h, uint64_t v)
{
	for (unsigned int k = slot_of(v); h->cnt[k]; k = (k + 1) & (MACH_VHIST_SLOTS - 1))
		if (h->val[k] == v)
			return h->cnt[k];
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct mach_vhist_item *x = a, *y = b;

	if (x->cnt != y->cnt)
		return x->cnt > y->cnt ? -1 : 1;
	return x->val < y->val ? -1 : x->val > y->val;
}

unsigned int mach_vhist_sorted(const struct mach_vhist *h,
			       struct mach_vhist_item out[MACH_VHIST_VALUES])
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < MACH_VHIST_SLOTS && n < MACH_VHIST_VALUES; k++)
		if (h->cnt[k])
			out[n++] = (struct mach_vhist_item){ h->val[k], h->cnt[k] };
	qsort(out, n, sizeof(*out), item_cmp);
	return n;
}
