/* eval/axeval_replay.c - `axeval --replays`: vreplay's named conflicts against the EV6 truth. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axeval.h"
#include "ev_eval.h"
#include "ev_replay.h"
#include "img.h"
#include "pdb.h"

/* The truth file's replay kinds (machine/mach_truth.h section 6). */
#define RP_STLD 0u
#define RP_LDLD 1u
#define RP_MBOX 2u

/* Issue 13's "Done when": recall >= 90% and precision >= 90% on the replay workloads. */
#define TARGET_RECALL 0.90
#define TARGET_PRECISION 0.90

/* The load bias of each image of the epoch (the program at its link addresses). */
struct bias {
	char key[PDB_KEY_MAX + 1];
	uint64_t bias;
	bool known;
};

static const struct bias *bias_of(const struct bias *b, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(b[i].key, key))
			return &b[i];
	return NULL;
}

/* Append image key's conflicts (at its bias) to *nm; unresolved priors get prior 0. */
static int add_conflicts(const struct pdb_prof *prof, const struct bias *self, const struct bias *b,
			 size_t nb, struct ev_rp_named **nm, size_t *nn, size_t *unresolved)
{
	struct pdb_conflict *c = NULL;
	struct ev_rp_named *v;
	size_t n = 0;
	int ret = pdb_prof_conflicts(prof, &c, &n);

	if (ret)
		return ret;
	v = n ? realloc(*nm, (*nn + n) * sizeof(**nm)) : *nm;
	if (n && !v) {
		free(c);
		return -ENOMEM;
	}
	*nm = v;
	for (size_t i = 0; i < n; i++) {
		const struct bias *pb = bias_of(b, nb, c[i].prior_key);
		struct ev_rp_named *x = &v[*nn + i];

		x->load = self->known ? c[i].load_offset + self->bias : 0;
		x->prior = self->known && pb && pb->known ? c[i].prior_offset + pb->bias : 0;
		x->count = c[i].count;
		x->kind = c[i].kind;
		if (!x->prior)
			*unresolved += 1;
	}
	*nn += n;
	free(c);
	return 0;
}

/* The named conflicts of db's current epoch in run pcs. 0 or -Exxx (err). */
static int collect(const char *dbdir, const char *image, const struct mach_truth *t,
		   const struct tl_periods *per, struct ev_rp_named **nm, size_t *nn,
		   size_t *unresolved, struct ax_error *err)
{
	struct pdb_image *list = NULL, me;
	struct pdb_prof **profs = NULL;
	struct bias *b = NULL;
	struct pdb_db *db;
	uint32_t epoch;
	size_t n = 0;
	int ret;

	ret = pdb_open(dbdir, false, &db, err);
	if (ret)
		return ret;
	ret = pdb_image_describe(image, &me, err);
	if (ret)
		goto out;
	ret = pdb_epoch_current(db, &epoch);
	if (!ret)
		ret = pdb_image_list_opt(db, epoch, 0, &list, &n, NULL);
	if (ret) {
		ax_fail(err, ret, "%s: %s", dbdir, pdb_errmsg(db));
		goto out;
	}
	profs = calloc(n + 1, sizeof(*profs));
	b = calloc(n + 1, sizeof(*b));
	if (!profs || !b) {
		ret = ax_fail(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) { /* first every image's bias, then the pairs */
		double period[AN_EV_NR] = { 0 };

		snprintf(b[k].key, sizeof(b[k].key), "%s", list[k].key);
		ret = pdb_load_opt(db, epoch, list[k].key, 0, &profs[k], NULL);
		if (ret == -ENOENT)
			continue;
		if (ret) {
			ax_fail(err, ret, "%s", pdb_errmsg(db));
			goto out;
		}
		if (!strcmp(list[k].key, me.key)) {
			b[k].known = true;
			continue;
		}
		tl_periods_for(per, profs[k], period);
		b[k].known = period[AN_EV_CYCLES] > 0 &&
			     !ev_eval_infer_bias(profs[k], t, period[AN_EV_CYCLES], &b[k].bias);
	}
	for (size_t k = 0; k < n && !ret; k++)
		if (profs[k])
			ret = add_conflicts(profs[k], &b[k], b, n, nm, nn, unresolved);
	if (ret)
		ax_fail(err, ret, "%s: reading the conflicts", dbdir);
out:
	for (size_t k = 0; profs && k < n; k++)
		pdb_prof_free(profs[k]);
	free(profs);
	free(b);
	pdb_image_list_free(list, n);
	pdb_close(db);
	return ret;
}

/* The program's executable segments (at its link addresses): what "program only" keeps. */
struct text {
	uint64_t lo[8], hi[8];
	size_t n;
};

static int text_of(const char *image, struct text *tx, struct ax_error *err)
{
	struct img *im;
	int ret = img_open(image, 0, &im, err);

	if (ret)
		return ret;
	tx->n = 0;
	for (size_t i = 0; i < img_nsegments(im) && tx->n < 8; i++) {
		const struct img_segment *sg = img_segment(im, i);

		if (sg->flags & PF_X) {
			tx->lo[tx->n] = sg->vaddr;
			tx->hi[tx->n++] = sg->vaddr + sg->memsz;
		}
	}
	img_close(im);
	return 0;
}

static bool in_text(const struct text *tx, uint64_t pc)
{
	for (size_t i = 0; i < tx->n; i++)
		if (pc >= tx->lo[i] && pc < tx->hi[i])
			return true;
	return false;
}

/* Grade only the loads in the program's text (tr keeps its order). 0 or -ENOMEM. */
static int grade_program(const struct mach_truth *t, const struct ev_rp_named *nm, size_t nn,
			 const struct text *tx, struct ev_rp_acc *acc)
{
	struct mach_truth_replay *tr = calloc(t->nreplays + 1, sizeof(*tr));
	struct ev_rp_named *pn = calloc(nn + 1, sizeof(*pn));
	size_t ntr = 0, npn = 0;
	int ret = -ENOMEM;

	if (tr && pn) {
		for (size_t i = 0; i < t->nreplays; i++)
			if (in_text(tx, t->replays[i].pc))
				tr[ntr++] = t->replays[i];
		for (size_t i = 0; i < nn; i++)
			if (in_text(tx, nm[i].load))
				pn[npn++] = nm[i];
		ret = ev_rp_grade(tr, ntr, pn, npn, acc);
	}
	free(tr);
	free(pn);
	return ret;
}

static void pct(double share)
{
	if (share < 0)
		printf(" %8s", "-");
	else
		printf(" %7.1f%%", 100 * share);
}

static void print_line(const char *name, const struct ev_rp_acc *a, size_t unresolved)
{
	printf("%-13s %10.0f", name, a->traps);
	pct(ev_rp_recall(a));
	printf(" %8.0f %8.0f %10.0f", a->mbox, a->mbox_named, a->conflicts);
	pct(ev_rp_precision(a));
	printf(" %6.0f/%-6.0f", a->pairs_trapped, a->pairs);
	if (unresolved)
		printf(" (%zu unresolved)", unresolved);
	printf("\n");
}

/* The n order traps with most counts whose cause the interpreter did not name. */
static void print_missed(const struct mach_truth *t, const struct ev_rp_named *nm, size_t nn, int n)
{
	uint64_t done = 0; /* counts already printed are above this bound */

	for (int k = 0; k < n; k++) {
		const struct mach_truth_replay *best = NULL;

		for (size_t i = 0; i < t->nreplays; i++) {
			const struct mach_truth_replay *r = &t->replays[i];

			if (r->kind == RP_MBOX || ev_rp_named(nm, nn, r->pc, r->cause) ||
			    (done && r->count >= done) || (best && r->count <= best->count))
				continue;
			best = r;
		}
		if (!best)
			return;
		printf("    not named: %6" PRIu64 " %s traps of load 0x%" PRIx64
		       " caused by 0x%" PRIx64 "\n",
		       best->count, best->kind == RP_LDLD ? "load-load" : "store-load", best->pc,
		       best->cause);
		done = best->count;
	}
}

static void print_kind(const char *what, double named, double all)
{
	printf("  %-30s %9.0f of %9.0f", what, named, all);
	pct(all > 0 ? named / all : -1);
	printf("\n");
}

static const char *verdict(double share, double target)
{
	return share < 0 ? "no data" : share >= target ? "met" : "not met";
}

int axeval_replays(char **runs, int nargs, const struct tl_periods *per)
{
	struct ev_rp_acc tot = { 0 }, ptot = { 0 };
	int status = 0;

	printf("Replay traps (issue 13 item 4): vreplay's named conflicts against the EV6 truth\n");
	printf("%-13s %10s %9s %8s %8s %10s %9s %13s\n", "run", "traps", "recall", "mbox",
	       "(named)", "conflicts", "precision", "pairs trap/n");
	for (int i = 0; i + 3 < nargs; i += 4) {
		struct ev_rp_named *nm = NULL;
		struct ev_rp_acc a = { 0 }, pa = { 0 };
		struct mach_truth *t = NULL;
		struct text tx;
		size_t nn = 0, unresolved = 0;
		struct ax_error err;
		int ret;

		ret = mach_truth_read(runs[i + 3], &t, &err);
		if (!ret && !t->ev6) /* EV5 truth: no replay section */
			ret = ax_fail(&err, -EINVAL,
				      "%s: not an EV6 truth file (record with --cpu ev6)",
				      runs[i + 3]);
		if (!ret)
			ret = collect(runs[i + 1], runs[i + 2], t, per, &nm, &nn, &unresolved,
				      &err);
		if (!ret)
			ret = text_of(runs[i + 2], &tx, &err);
		if (!ret)
			ret = ev_rp_grade(t->replays, t->nreplays, nm, nn, &a);
		if (!ret)
			ret = grade_program(t, nm, nn, &tx, &pa);
		if (ret == -ENOMEM) {
			fprintf(stderr, "axeval: out of memory\n");
			status = 1;
		} else if (ret) {
			printf("%-13s cannot be graded: %s\n", runs[i], err.msg);
			status = 1;
		} else {
			print_line(runs[i], &a, unresolved);
			print_line("  program", &pa, 0);
			print_missed(t, nm, nn, 3);
			ev_rp_acc_merge(&tot, &a);
			ev_rp_acc_merge(&ptot, &pa);
		}
		free(nm);
		mach_truth_free(t);
	}
	print_line("total", &tot, 0);
	print_line("  program", &ptot, 0);
	printf("\ncolumns: the machine's store-load and load-load order replay traps; recall = share\n"
	       "of them (by trap count) whose causing store/load the interpreter named for that\n"
	       "load; Mbox replays (partial forwards, resource traps) are not order traps: counted\n"
	       "apart, with those whose cause was named; the interpreter's named conflicts;\n"
	       "precision = share of them (by conflict count) whose pair took a replay trap of\n"
	       "any kind with that cause; named pairs that trapped / named pairs. \"program\":\n"
	       "the same for the loads in the program's own text (not its shared objects).\n\n");
	printf("Order traps named, by kind (trap-weighted recall)\n");
	print_kind("store-load order", tot.named_kind[RP_STLD], tot.traps_kind[RP_STLD]);
	print_kind("load-load order", tot.named_kind[RP_LDLD], tot.traps_kind[RP_LDLD]);
	print_kind("Mbox (not graded)", tot.named_kind[RP_MBOX], tot.traps_kind[RP_MBOX]);
	printf("  named pairs that trapped       %9.0f of %9.0f", tot.pairs_trapped, tot.pairs);
	pct(ev_rp_pair_precision(&tot));
	printf(" (per pair, diagnostic)\n\n");
	printf("Summary (every image)            measured   target\n");
	printf("  replay recall                  ");
	pct(ev_rp_recall(&tot));
	printf("   >= %2.0f%%   %s\n", 100 * TARGET_RECALL,
	       verdict(ev_rp_recall(&tot), TARGET_RECALL));
	printf("  replay precision               ");
	pct(ev_rp_precision(&tot));
	printf("   >= %2.0f%%   %s\n", 100 * TARGET_PRECISION,
	       verdict(ev_rp_precision(&tot), TARGET_PRECISION));
	printf("  program only: recall");
	pct(ev_rp_recall(&ptot));
	printf(", precision");
	pct(ev_rp_precision(&ptot));
	printf(" (diagnostic)\n");
	return status;
}
