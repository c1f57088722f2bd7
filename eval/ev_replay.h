/* eval/ev_replay.h - grading vreplay's named conflicts against the machine's replay traps. */
#ifndef EV_REPLAY_H
#define EV_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mach_truth.h"

/*
 * Issue 13 item 4: the EV6 model takes a replay trap when a load issued before an older store
 * (store-load order) or an older load (load-load order) to the same bytes (21264 HRM §3.2.2,
 * machine/EV6-MODEL.md); the truth file's section 6 records each (load pc, cause pc, kind,
 * count). vreplay's interpreter names, per interpreted load, the earlier store or load it
 * overlapped (pdb conflicts). Both sides are in run pcs here.
 *
 *   recall    = order traps (STLD + LDLD, weighted by trap count) whose (load, cause) pair the
 *               interpreter named at least once / all order traps.
 *               Mbox replays (kind MBOX: a partial store-to-load forward, or a resource trap
 *               with no cause) are not order traps: they are left out of recall and counted
 *               apart (mbox, mbox_named: those with a cause the interpreter named).
 *   precision = named conflicts (weighted by the interpreter's conflict count) whose (load,
 *               prior) pair took at least one replay trap of any kind with that cause (an Mbox
 *               replay caused by that store is a real trap of that pair too) / all named
 *               conflicts. The per-pair figure (each named pair counts once) is kept beside it.
 */

struct ev_rp_named {
	uint64_t load, prior; /* run pcs; unresolved (prior in an image whose load bias is not
			       * known) pairs have prior == 0 and never match */
	uint64_t count; /* conflicts the interpreter recorded */
	uint32_t kind; /* PDB_CNF_* */
};

struct ev_rp_acc {
	double traps, traps_named; /* order traps (STLD+LDLD); of which named */
	double traps_kind[3], named_kind[3]; /* by truth kind (STLD, LDLD, MBOX) */
	double mbox, mbox_named; /* Mbox replays; of which with a named cause */
	double conflicts, conflicts_trapped; /* named conflicts (by count); of which trapped */
	double pairs, pairs_trapped; /* named pairs; of which trapped */
};

/* recall, precision (by count) and per-pair precision; -1 when the denominator is 0. */
double ev_rp_recall(const struct ev_rp_acc *a);
double ev_rp_precision(const struct ev_rp_acc *a);
double ev_rp_pair_precision(const struct ev_rp_acc *a);

/*
 * Grade: tr[] as in the truth file (sorted by (pc, cause, kind)); nm[] in any order (sorted in
 * place; duplicates of a (load, prior) pair are allowed and count once as a pair). Adds into
 * acc. 0, or -EINVAL when tr is not sorted.
 */
int ev_rp_grade(const struct mach_truth_replay *tr, size_t ntr, struct ev_rp_named *nm, size_t nn,
		struct ev_rp_acc *acc);

/* Did the interpreter name (load, prior)? nm sorted (as ev_rp_grade leaves it). */
bool ev_rp_named(const struct ev_rp_named *nm, size_t nn, uint64_t load, uint64_t prior);

void ev_rp_acc_merge(struct ev_rp_acc *a, const struct ev_rp_acc *b);

#endif /* EV_REPLAY_H */
