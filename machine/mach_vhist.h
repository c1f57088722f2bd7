/* machine/mach_vhist.h - a bounded exact value histogram (the machine's ground-truth counters). */
#ifndef MACH_VHIST_H
#define MACH_VHIST_H

#include <stdint.h>

/*
 * The exact histogram the truth writers keep per key (values per pc, arguments per procedure,
 * addresses and strides per load): the first MACH_VHIST_VALUES distinct values are counted
 * exactly, later new ones together as `other`. Open addressing over twice as many slots, so a
 * probe always ends at a free slot. A zeroed struct is an empty histogram.
 */
#define MACH_VHIST_VALUES 256
#define MACH_VHIST_SLOTS (2 * MACH_VHIST_VALUES)

struct mach_vhist {
	uint64_t n; /* values added */
	uint64_t
		other; /* added after MACH_VHIST_VALUES distinct ones were held, and not one of them */
	uint32_t used; /* distinct values held */
	uint64_t val[MACH_VHIST_SLOTS];
	uint64_t cnt[MACH_VHIST_SLOTS]; /* 0: free slot */
};

struct mach_vhist_item {
	uint64_t val, cnt;
};

void mach_vhist_add(struct mach_vhist *h, uint64_t v);
/* The count of v (0: never added, or counted in `other`). */
uint64_t mach_vhist_count(const struct mach_vhist *h, uint64_t v);
/* The held values into out, by count (descending, ties by value ascending); returns how many. */
unsigned int mach_vhist_sorted(const struct mach_vhist *h,
			       struct mach_vhist_item out[MACH_VHIST_VALUES]);

#endif /* MACH_VHIST_H */
