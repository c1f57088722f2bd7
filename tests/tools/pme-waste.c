/* tests/tools/pme-waste.c - an EV6 truth file's wasted issue slots per PC as text (eval). */
#include <inttypes.h>
#include <stdio.h>

#include "mach_truth.h"

/*
 * Usage: pme-waste TRUTH
 * One line per PC of section 7 (mach_truth.h): "PC WINDOWS CYCLES SLOTS USEFUL WASTED RETIRED
 * LATENCY" (PC in hex; WASTED = SLOTS - USEFUL, signed; RETIRED and LATENCY from section 5: the
 * retired executions and their fetch->retire-ready cycles summed, 0 for bad-path-only PCs).
 * Exit 1 with a message when the file cannot be read or has no section 7.
 */
int main(int argc, char **argv)
{
	struct mach_truth *t;
	struct ax_error err;

	if (argc != 2) {
		fprintf(stderr, "usage: pme-waste TRUTH\n");
		return 2;
	}
	if (mach_truth_read(argv[1], &t, &err)) {
		fprintf(stderr, "pme-waste: %s\n", err.msg);
		return 1;
	}
	if (!t->waste) {
		fprintf(stderr,
			"pme-waste: %s: no wasted-slot section (an EV6 truth file of an older axprof?)\n",
			argv[1]);
		mach_truth_free(t);
		return 1;
	}
	for (size_t i = 0; i < t->nwaste; i++) {
		const struct mach_truth_waste *w = &t->waste[i];
		const struct mach_truth_ev6pc *e = mach_truth_find_ev6(t, w->pc);
		uint64_t ret = 0, lat = 0;

		if (e) {
			ret = e->c[MACH_T6_RETIRE];
			lat = e->c[MACH_T6_FETCH_MAP] + e->c[MACH_T6_MAP_ISSUE] +
			      e->c[MACH_T6_ISSUE_READY];
		}
		printf("0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64
		       " %" PRIu64 " %" PRIu64 "\n",
		       w->pc, w->windows, w->cycles, w->slots, w->useful,
		       (int64_t)(w->slots - w->useful), ret, lat);
	}
	mach_truth_free(t);
	return 0;
}
