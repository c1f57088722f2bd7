/* tools/lib/tl_stats.h - dcpistats' statistics for `axprof diff`: mean, stddev, two-sample tests. */
#ifndef TL_STATS_H
#define TL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Mean and sample standard deviation (n - 1 in the denominator; 0 when n < 2) of x[0..n). */
void tl_mean_sd(const double *x, size_t n, double *mean, double *sd);

/*
 * Two-sided p-value of Welch's unequal-variance t-test (B. L. Welch, Biometrika 34, 1947) of two
 * groups given by their means, sample standard deviations and sizes (na, nb >= 2), with the
 * Welch-Satterthwaite degrees of freedom. Equal means with zero variance: 1; different means
 * with zero variance: 0.
 */
double tl_welch_p(double ma, double sa, size_t na, double mb, double sb, size_t nb);

/* The same from the variances of the two means (va = sa^2 / na, ...). */
double tl_welch_p_var(double ma, double va, size_t na, double mb, double vb, size_t nb);

/*
 * Two-sided p-value of the two-proportion z-test: ka of na samples against kb of nb (one run
 * per side: the sampling itself is the noise, each sample landing in the row or not). 1 when
 * na or nb is 0 or both proportions are 0 or 1.
 */
double tl_prop_p(double ka, double na, double kb, double nb);

/* The two-sided p-value of Student's t with df degrees of freedom (df > 0). */
double tl_t_p(double t, double df);

/* The regularised incomplete beta function I_x(a, b), 0 <= x <= 1, a, b > 0. */
double tl_ibeta(double x, double a, double b);

/*
 * One row of `axprof diff` (dcpidiff, with dcpistats' repeated runs): side s has nrun[s] runs,
 * run i with count[s][i] samples in the row out of total[s][i]. Each run's share is count/total
 * (0 for an empty run); mean and sd over the runs of a side; delta = mean[1] - mean[0]. The test:
 * Welch's t-test on the runs' shares when both sides have two runs or more (each mean's variance
 * sd^2 / n, floored at the binomial variance p(1 - p) / N of the side's pooled samples, p their
 * share, N their total), else the two-proportion z-test on the summed counts and totals. significant: p < alpha / m, the
 * Bonferroni correction for the m rows compared at the row's level (m >= 1).
 */
#define TL_DIFF_RUNS_MAX 64 /* runs per side */

struct tl_diff_row {
	double mean[2], sd[2];
	double delta;
	double p;
	bool welch; /* the test was Welch's (else the z-test) */
	bool significant;
};

void tl_diff_compute(const uint64_t *const count[2], const uint64_t *const total[2],
		     const size_t nrun[2], size_t m, double alpha, struct tl_diff_row *out);

#endif /* TL_STATS_H */
