/* tests/machine/ev6_truth_check.c - EV6 truth file invariants, and its replay traps as text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mach_truth.h"

/*
 * Usage: ev6_truth_check TRUTH INSNS
 * Checks what must hold in every EV6 truth file (the reader already checked, per PC, fetches ==
 * retires + aborts): the file is an EV6 one; the retires per PC add up to INSNS (the
 * functional instruction count axprof run printed) and to the summary's; every retired
 * instruction's per-PC exec count equals its retires; the aborts add up to the summary's
 * (aborts on the correct path plus bad-path ones); every replay trap has a kind, and the replay
 * records per PC add up to the PC's replay counters. Then prints one line per replay record:
 * "replay PC CAUSE KIND COUNT" (hex PCs; KIND stld, ldld or mbox), and one per load whose data
 * was forwarded from the store queue or that stWait held: "fwd PC FORWARDED HELD", for the
 * calling script.
 * Exit 0 when all holds, 1 with a message otherwise.
 */
int main(int argc, char **argv)
{
	static const char *const kind[] = { "stld", "ldld", "mbox" };
	struct mach_truth *t;
	struct ax_error err;
	uint64_t insns, retires = 0, aborts = 0, badpath = 0, rp = 0, rp_pc = 0;
	int bad = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: ev6_truth_check TRUTH INSNS\n");
		return 2;
	}
	insns = strtoull(argv[2], NULL, 0);
	if (mach_truth_read(argv[1], &t, &err)) {
		fprintf(stderr, "ev6_truth_check: %s\n", err.msg);
		return 1;
	}
	if (t->sum.ext[MACH_TX_CPU] != 6 || !t->ev6) {
		fprintf(stderr, "ev6_truth_check: %s: not an EV6 truth file\n", argv[1]);
		return 1;
	}
	for (size_t i = 0; i < t->nev6; i++) {
		const struct mach_truth_ev6pc *r = &t->ev6[i];
		const struct mach_truth_pc *p = mach_truth_find(t, r->pc);

		retires += r->c[MACH_T6_RETIRE];
		aborts += r->c[MACH_T6_AB_REPLAY] + r->c[MACH_T6_AB_YOUNGER];
		badpath += r->c[MACH_T6_BADPATH];
		rp_pc += r->c[MACH_T6_RP_STLD] + r->c[MACH_T6_RP_LDLD] + r->c[MACH_T6_RP_MBOX];
		if (r->c[MACH_T6_AB_REPLAY] !=
		    r->c[MACH_T6_RP_STLD] + r->c[MACH_T6_RP_LDLD] + r->c[MACH_T6_RP_MBOX]) {
			printf("pc 0x%" PRIx64 ": replay aborts without a replay kind\n", r->pc);
			bad = 1;
		}
		if (r->c[MACH_T6_FWD] || r->c[MACH_T6_STWAIT])
			printf("fwd 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", r->pc,
			       r->c[MACH_T6_FWD], r->c[MACH_T6_STWAIT]);
		if (!p || p->exec != r->c[MACH_T6_RETIRE]) {
			printf("pc 0x%" PRIx64 ": exec count differs from its retires\n", r->pc);
			bad = 1;
		}
	}
	for (size_t i = 0; i < t->nreplays; i++) {
		const struct mach_truth_replay *r = &t->replays[i];

		rp += r->count;
		printf("replay 0x%" PRIx64 " 0x%" PRIx64 " %s %" PRIu64 "\n", r->pc, r->cause,
		       kind[r->kind], r->count);
	}
	if (retires != insns || t->sum.insns != insns) {
		printf("retires %" PRIu64 ", summary %" PRIu64 ", functional %" PRIu64 "\n",
		       retires, t->sum.insns, insns);
		bad = 1;
	}
	if (aborts + badpath != t->sum.ext[MACH_TX_ABORTED] ||
	    badpath != t->sum.ext[MACH_TX_BADPATH]) {
		printf("aborts per pc %" PRIu64 " + bad path %" PRIu64 " != summary %" PRIu64 "\n",
		       aborts, badpath, t->sum.ext[MACH_TX_ABORTED]);
		bad = 1;
	}
	if (rp != rp_pc || rp != t->sum.ext[MACH_TX_REPLAY]) {
		printf("replay records %" PRIu64 ", per pc %" PRIu64 ", summary %" PRIu64 "\n", rp,
		       rp_pc, t->sum.ext[MACH_TX_REPLAY]);
		bad = 1;
	}
	if (retires + aborts + badpath != t->sum.ext[MACH_TX_FETCHED]) {
		printf("fetched %" PRIu64 " != retired + aborted %" PRIu64 "\n",
		       t->sum.ext[MACH_TX_FETCHED], retires + aborts + badpath);
		bad = 1;
	}
	mach_truth_free(t);
	return bad;
}
