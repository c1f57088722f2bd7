/* tests/machine/samples_vs_truth.c - do CYCLES samples per PC match truth cycles / period? */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mach_kern.h"
#include "mach_truth.h"

/*
 * DCPI's premise (seeds/dcpi-sosp97-sec4-data-collection.txt §4.1): with the interrupt delivered six
 * cycles after overflow, at the instruction at the head of the issue stage, the CYCLES samples of an
 * instruction are statistically proportional to the cycles it spent there. So for each PC the expected
 * count is head_cycles / mean_period (a system call's pseudo-pc: its kernel cycles, truth section 10,
 * machine/mach_kern.h). Randomised periods make the counts close to Poisson; we accept a
 * PC when |observed - expected| <= 4 sqrt(expected) + 2, and require the chi-square over PCs with
 * expected >= 10 to stay below 2 per degree of freedom, and the total to be within 2%.
 *
 * With few degrees of freedom 2 per degree is no rare event for counts that do follow the truth
 * (P(chi2_3 > 6) = 0.11: EV6 conv3x3 has 3 and failed one run in several). The bound is therefore
 * the larger of 2 df and the chi-square's 99.9% quantile (Wilson and Hilferty's cube-root normal
 * approximation, within 2% of the exact quantile from df = 3 on): from about 30 df on, 2 df.
 *
 * Usage: samples_vs_truth TRUTH SAMPLES MEAN_PERIOD
 */
/* The 99.9% quantile of chi-square with df degrees of freedom (Wilson-Hilferty, z = 3.0902). */
static double chi2_q999(unsigned int df)
{
	double k = (double)df, c = 2.0 / (9.0 * k), x = 1.0 - c + 3.0902 * sqrt(c);

	return k * x * x * x;
}

int main(int argc, char **argv)
{
	struct mach_truth *t;
	struct ax_error terr;
	uint64_t total_obs = 0, total_head = 0;
	double period, chi2 = 0;
	unsigned int df = 0, outliers = 0, checked = 0;
	char line[256];
	FILE *f;
	int err;

	if (argc != 4) {
		fprintf(stderr, "usage: samples_vs_truth TRUTH SAMPLES MEAN_PERIOD\n");
		return 2;
	}
	period = atof(argv[3]);
	err = mach_truth_read(argv[1], &t, &terr);
	if (err) {
		fprintf(stderr, "samples_vs_truth: %s\n", terr.msg);
		return 1;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		fprintf(stderr, "samples_vs_truth: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	/* Observed counts, looked up per truth PC. */
	uint64_t *obs = calloc(t->npcs ? t->npcs : 1, sizeof(*obs));
	uint64_t *kobs = calloc(t->nsyscalls ? t->nsyscalls : 1, sizeof(*kobs));
	uint64_t unmatched = 0;

	while (fgets(line, sizeof(line), f)) {
		unsigned long long pc, n;
		const struct mach_truth_pc *p;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%llx %llu", &pc, &n) != 2) {
			fprintf(stderr, "samples_vs_truth: %s: bad line: %s", argv[2], line);
			return 1;
		}
		total_obs += n;
		if (mach_kern_is_pc(pc)) { /* kernel time: truth section 10 */
			size_t k = 0;

			while (k < t->nsyscalls && mach_kern_pc(t->syscalls[k].nr) != pc)
				k++;
			if (k == t->nsyscalls)
				unmatched += n;
			else
				kobs[k] += n;
			continue;
		}
		p = mach_truth_find(t, pc);
		if (!p) {
			unmatched += n;
			continue;
		}
		obs[p - t->pcs] += n;
	}
	fclose(f);
	for (size_t i = 0; i < t->npcs + t->nsyscalls; i++) {
		const bool k = i >= t->npcs;
		const uint64_t head = k ? t->syscalls[i - t->npcs].cycles : t->pcs[i].head;
		double e = (double)head / period, o = (double)(k ? kobs[i - t->npcs] : obs[i]);

		total_head += head;
		if (e < 10 && o < 10)
			continue;
		checked++;
		if (fabs(o - e) > 4 * sqrt(e) + 2) {
			if (outliers < 10)
				printf("  outlier pc 0x%" PRIx64 ": %.0f samples, expected %.1f\n",
				       k ? mach_kern_pc(t->syscalls[i - t->npcs].nr) : t->pcs[i].pc,
				       o, e);
			outliers++;
		}
		if (e >= 10) {
			chi2 += (o - e) * (o - e) / e;
			df++;
		}
	}
	double etot = (double)total_head / period;

	printf("samples_vs_truth: %" PRIu64 " samples, expected %.1f from %" PRIu64
	       " head-of-issue cycles; %u PCs checked, %u outside 4 sigma; chi2/df = %.2f (df %u);"
	       " %" PRIu64 " samples at PCs without truth\n",
	       total_obs, etot, total_head, checked, outliers, df ? chi2 / df : 0.0, df, unmatched);
	free(obs);
	free(kobs);
	mach_truth_free(t);
	if (!total_obs || fabs((double)total_obs - etot) > 0.01 * etot + 5)
		return 1;
	if (outliers > checked / 100 + 1 || (df && chi2 > fmax(2.0 * df, chi2_q999(df))) ||
	    unmatched)
		return 1;
	return 0;
}
