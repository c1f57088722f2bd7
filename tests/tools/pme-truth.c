/* tests/tools/pme-truth.c - an EV6 truth file's per-PC counts as text, for check-profileme.sh. */
#include <inttypes.h>
#include <stdio.h>

#include "mach_truth.h"

/*
 * Usage: pme-truth TRUTH
 * One line per PC the EV6 model fetched: "PC FETCHED RETIRED DMISS MISPREDICT REPLAYS" (PC in
 * hex; REPLAYS: the replay traps it took as their target). Exit 1 with a message when the file
 * cannot be read or is not an EV6 one.
 */
int main(int argc, char **argv)
{
	struct mach_truth *t;
	struct ax_error err;

	if (argc != 2) {
		fprintf(stderr, "usage: pme-truth TRUTH\n");
		return 2;
	}
	if (mach_truth_read(argv[1], &t, &err)) {
		fprintf(stderr, "pme-truth: %s\n", err.msg);
		return 1;
	}
	if (!t->ev6) {
		fprintf(stderr, "pme-truth: %s: not an EV6 truth file\n", argv[1]);
		mach_truth_free(t);
		return 1;
	}
	for (size_t i = 0; i < t->nev6; i++) {
		const uint64_t *c = t->ev6[i].c;

		printf("0x%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       "\n",
		       t->ev6[i].pc, c[MACH_T6_FETCH], c[MACH_T6_RETIRE], c[MACH_T6_DMISS],
		       c[MACH_T6_MISPREDICT], c[MACH_T6_AB_REPLAY]);
	}
	mach_truth_free(t);
	return 0;
}
