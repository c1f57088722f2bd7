/* eval/ev_replay.c - grading vreplay's named conflicts against the machine's replay traps. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "ev_replay.h"

/* Replay kinds of the truth file's section 6 (machine/mach_truth.h). */
#define RP_STLD 0u
#define RP_LDLD 1u
#define RP_MBOX 2u
#define RP_NKIND 3u

static int cmp_named(const void *a, const void *b)
{
	const struct ev_rp_named *x = a, *y = b;

	if (x->load != y->load)
		return x->load < y->load ? -1 : 1;
	if (x->prior != y->prior)
		return x->prior < y->prior ? -1 : 1;
	return 0;
}

bool ev_rp_named(const struct ev_rp_named *nm, size_t nn, uint64_t load, uint64_t prior)
{
	struct ev_rp_named key = { .load = load, .prior = prior };

	return prior && bsearch(&key, nm, nn, sizeof(*nm), cmp_named);
}

/* Did (load, prior) take any replay trap with that cause? tr sorted by (pc, cause, kind). */
static bool trapped(const struct mach_truth_replay *tr, size_t ntr, uint64_t load, uint64_t prior)
{
	size_t lo = 0, hi = ntr;

	if (!prior)
		return false;
	while (lo < hi) { /* first record >= (load, prior) */
		size_t mid = lo + (hi - lo) / 2;

		if (tr[mid].pc < load || (tr[mid].pc == load && tr[mid].cause < prior))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ntr && tr[lo].pc == load && tr[lo].cause == prior; lo++)
		if (tr[lo].count)
			return true;
	return false;
}

int ev_rp_grade(const struct mach_truth_replay *tr, size_t ntr, struct ev_rp_named *nm, size_t nn,
		struct ev_rp_acc *acc)
{
	for (size_t i = 1; i < ntr; i++) {
		const struct mach_truth_replay *p = &tr[i - 1], *q = &tr[i];

		if (p->pc > q->pc || (p->pc == q->pc && p->cause > q->cause) ||
		    (p->pc == q->pc && p->cause == q->cause && p->kind >= q->kind))
			return -EINVAL;
	}
	if (nn)
		qsort(nm, nn, sizeof(*nm), cmp_named);
	for (size_t i = 0; i < ntr; i++) {
		double c = (double)tr[i].count;
		bool hit = ev_rp_named(nm, nn, tr[i].pc, tr[i].cause);
		unsigned int k = tr[i].kind < RP_NKIND ? tr[i].kind : RP_MBOX;

		acc->traps_kind[k] += c;
		acc->named_kind[k] += hit ? c : 0;
		if (k == RP_MBOX) {
			acc->mbox += c;
			acc->mbox_named += hit ? c : 0;
		} else {
			acc->traps += c;
			acc->traps_named += hit ? c : 0;
		}
	}
	for (size_t i = 0; i < nn;) {
		size_t j = i;
		double c = 0;
		bool hit = trapped(tr, ntr, nm[i].load, nm[i].prior);

		for (; j < nn && !cmp_named(&nm[i], &nm[j]); j++)
			c += (double)nm[j].count;
		acc->conflicts += c;
		acc->conflicts_trapped += hit ? c : 0;
		acc->pairs += 1;
		acc->pairs_trapped += hit ? 1 : 0;
		i = j;
	}
	return 0;
}

static double share(double num, double den)
{
	return den > 0 ? num / den : -1;
}

double ev_rp_recall(const struct ev_rp_acc *a)
{
	return share(a->traps_named, a->traps);
}

double ev_rp_precision(const struct ev_rp_acc *a)
{
	return share(a->conflicts_trapped, a->conflicts);
}

double ev_rp_pair_precision(const struct ev_rp_acc *a)
{
	return share(a->pairs_trapped, a->pairs);
}

void ev_rp_acc_merge(struct ev_rp_acc *a, const struct ev_rp_acc *b)
{
	a->traps += b->traps;
	a->traps_named += b->traps_named;
	for (unsigned int k = 0; k < RP_NKIND; k++) {
		a->traps_kind[k] += b->traps_kind[k];
		a->named_kind[k] += b->named_kind[k];
	}
	a->mbox += b->mbox;
	a->mbox_named += b->mbox_named;
	a->conflicts += b->conflicts;
	a->conflicts_trapped += b->conflicts_trapped;
	a->pairs += b->pairs;
	a->pairs_trapped += b->pairs_trapped;
}
