/* eval/axeval_kernel.c - `axeval --kernel`: the [kernel] image's samples against the truth. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axeval.h"
#include "ax_err.h"
#include "mach_kern.h"
#include "mach_truth.h"
#include "pdb.h"

/*
 * On the hosted machine the kernel time of every emulated system call is sampled as the
 * pseudo-image [kernel], one procedure per call (machine/mach_kern.h; DCPI SOSP'97 §4.3: kernel
 * samples belong to the kernel image). CYCLES samples are proportional to time, so the image's
 * share of a run's CYCLES samples estimates the truth's kernel share of its cycles (truth
 * section 10 over the summary's cycles), within sampling error: a share from N samples has a
 * standard deviation of sqrt(p(1 - p) / N). The verdict allows 4 of them (at least one sample's
 * worth), and asks that the procedure with the most samples be the call with the most cycles.
 */

#define KERN_SDS 4.0

struct kcount {
	uint64_t total; /* CYCLES samples of every image of the epoch */
	uint64_t kernel; /* ... of [kernel] */
	uint64_t per_nr[MACH_KERN_NR];
};

static bool is_kernel_image(const struct pdb_image *im)
{
	const char *b = im->path ? strrchr(im->path, '/') : NULL;

	return b && !strcmp(b + 1, MACH_KERN_IMAGE);
}

static int count_db(const char *dir, struct kcount *kc, struct ax_error *err)
{
	struct pdb_image *list = NULL;
	struct pdb_db *db;
	uint32_t epoch;
	size_t n = 0;
	int ret = pdb_open(dir, false, &db, err);

	if (ret)
		return ret;
	ret = pdb_epoch_current(db, &epoch);
	if (!ret)
		ret = pdb_image_list_opt(db, epoch, 0, &list, &n, NULL);
	if (ret) {
		ax_fail(err, ret, "%s: %s", dir, pdb_errmsg(db));
		goto out;
	}
	for (size_t k = 0; k < n && !ret; k++) {
		struct pdb_prof *p = NULL;
		struct pdb_count *c = NULL;
		size_t nc = 0;

		ret = pdb_load_opt(db, epoch, list[k].key, 0, &p, NULL);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret) {
			ax_fail(err, ret, "%s", pdb_errmsg(db));
			break;
		}
		kc->total += pdb_prof_total(p, PDB_EV_CYCLES);
		if (is_kernel_image(&list[k])) {
			kc->kernel += pdb_prof_total(p, PDB_EV_CYCLES);
			ret = pdb_prof_samples(p, PDB_EV_CYCLES, &c, &nc);
			if (ret)
				ax_fail(err, ret, "%s: reading [kernel]'s samples", dir);
			for (size_t i = 0; i < nc; i++)
				if (mach_kern_is_pc(c[i].offset))
					kc->per_nr[(c[i].offset - MACH_KERN_BASE) /
						   MACH_KERN_STRIDE] += c[i].count;
			free(c);
		}
		pdb_prof_free(p);
	}
out:
	pdb_image_list_free(list, n);
	pdb_close(db);
	return ret;
}

/* The truth's call with the most cycles (its index in t->syscalls), or -1. */
static long top_truth(const struct mach_truth *t)
{
	long best = -1;

	for (size_t i = 0; i < t->nsyscalls; i++)
		if (best < 0 || t->syscalls[i].cycles > t->syscalls[best].cycles)
			best = (long)i;
	return best;
}

static unsigned int top_sampled(const struct kcount *kc)
{
	unsigned int best = 0;

	for (unsigned int nr = 1; nr < MACH_KERN_NR; nr++)
		if (kc->per_nr[nr] > kc->per_nr[best])
			best = nr;
	return best;
}

/* One run: 0 graded (*met set), or 1 after a message. */
static int grade(const char *name, const char *dir, const char *truth, bool *met)
{
	struct kcount *kc = calloc(1, sizeof(*kc));
	struct mach_truth *t = NULL;
	struct ax_error e;
	char sname[32];
	double p, q, sd, tol;
	unsigned int top;
	long tt;
	int ret = kc ? 0 : -ENOMEM;

	if (!ret)
		ret = mach_truth_read(truth, &t, &e);
	if (!ret)
		ret = count_db(dir, kc, &e);
	if (ret) {
		fprintf(stderr, "axeval: %s: %s\n", name, ret == -ENOMEM ? "out of memory" : e.msg);
		goto out;
	}
	if (!t->nsyscalls || !t->sum.cycles || !kc->total) {
		fprintf(stderr,
			"axeval: %s: nothing to grade (%zu system calls in %s, %" PRIu64
			" samples in %s): record on the hosted machine with --truth\n",
			name, t->nsyscalls, truth, kc->total, dir);
		ret = -EINVAL;
		goto out;
	}
	q = (double)t->kernel_cycles / (double)t->sum.cycles;
	p = (double)kc->kernel / (double)kc->total;
	sd = sqrt(q * (1 - q) / (double)kc->total);
	tol = fmax(KERN_SDS * sd, 1.0 / (double)kc->total);
	top = top_sampled(kc);
	tt = top_truth(t);
	mach_kern_name(top, sname, sizeof(sname));
	*met = fabs(p - q) <= tol && tt >= 0 && t->syscalls[tt].nr == top && kc->per_nr[top];
	printf("%-12s kernel_share=%.4f truth_share=%.4f tolerance=%.4f samples=%" PRIu64
	       " kernel_samples=%" PRIu64 " top=%s top_samples=%" PRIu64
	       " truth_top=%s truth_top_share=%.4f %s\n",
	       name, p, q, tol, kc->total, kc->kernel, kc->per_nr[top] ? sname : "-",
	       kc->per_nr[top], tt >= 0 ? t->syscalls[tt].name : "-",
	       tt >= 0 ? (double)t->syscalls[tt].cycles / (double)t->sum.cycles : 0.0,
	       *met ? "met" : "MISSED");
out:
	mach_truth_free(t);
	free(kc);
	return ret ? 1 : 0;
}

int axeval_kernel(char **runs, int nargs)
{
	int status = 0, missed = 0, graded = 0;

	for (int i = 0; i + 2 < nargs; i += 3) {
		bool met = false;

		if (grade(runs[i], runs[i + 1], runs[i + 2], &met)) {
			status = 1;
			continue;
		}
		graded++;
		missed += !met;
	}
	printf("kernel time: %d of %d runs within %.0f standard deviations, top procedure right\n",
	       graded - missed, graded, KERN_SDS);
	return status;
}
