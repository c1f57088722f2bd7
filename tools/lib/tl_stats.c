/* tools/lib/tl_stats.c - dcpistats' statistics for `axprof diff`: mean, stddev, two-sample tests. */
#include <math.h>

#include "tl_stats.h"

void tl_mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	m = n ? m / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

/*
 * The continued fraction of the incomplete beta function (Abramowitz & Stegun 26.5.8), evaluated
 * by the modified Lentz method (Lentz 1976; Thompson & Barnett 1986): converges quickly for
 * x < (a + 1) / (a + b + 2); tl_ibeta uses the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) otherwise.
 */
static double beta_cf(double x, double a, double b)
{
	const double tiny = 1e-300, eps = 1e-14;
	double c = 1, d = 1 - (a + b) * x / (a + 1), f;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	f = d;
	for (int m = 1; m <= 300; m++) {
		double num, del;

		/* even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		f *= d * c;
		/* odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		del = d * c;
		f *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return f;
}

double tl_ibeta(double x, double a, double b)
{
	double lfront;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lfront) * beta_cf(x, a, b) / a;
	return 1 - exp(lfront) * beta_cf(1 - x, b, a) / b;
}

double tl_t_p(double t, double df)
{
	/* P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
	if (!isfinite(t))
		return 0;
	return tl_ibeta(df / (df + t * t), df / 2, 0.5);
}

double tl_welch_p(double ma, double sa, size_t na, double mb, double sb, size_t nb)
{
	if (na < 2 || nb < 2)
		return 1;
	return tl_welch_p_var(ma, sa * sa / (double)na, na, mb, sb * sb / (double)nb, nb);
}

double tl_welch_p_var(double ma, double va, size_t na, double mb, double vb, size_t nb)
{
	double se = sqrt(va + vb), df;

	if (na < 2 || nb < 2)
		return 1;
	if (se <= 0)
		return ma == mb ? 1 : 0;
	df = (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	return tl_t_p((mb - ma) / se, df);
}

double tl_prop_p(double ka, double na, double kb, double nb)
{
	double p, se;

	if (na <= 0 || nb <= 0)
		return 1;
	p = (ka + kb) / (na + nb);
	se = sqrt(p * (1 - p) * (1 / na + 1 / nb));
	if (se <= 0)
		return 1;
	return erfc(fabs(kb / nb - ka / na) / se / M_SQRT2);
}

void tl_diff_compute(const uint64_t *const count[2], const uint64_t *const total[2],
		     const size_t nrun[2], size_t m, double alpha, struct tl_diff_row *out)
{
	double sum_k[2] = { 0, 0 }, sum_n[2] = { 0, 0 };

	for (int s = 0; s < 2; s++) {
		double x[TL_DIFF_RUNS_MAX];
		size_t n = nrun[s] < TL_DIFF_RUNS_MAX ? nrun[s] : TL_DIFF_RUNS_MAX;

		for (size_t i = 0; i < n; i++) {
			x[i] = total[s][i] ? (double)count[s][i] / (double)total[s][i] : 0;
			sum_k[s] += (double)count[s][i];
			sum_n[s] += (double)total[s][i];
		}
		tl_mean_sd(x, n, &out->mean[s], &out->sd[s]);
	}
	out->delta = out->mean[1] - out->mean[0];
	out->welch = nrun[0] >= 2 && nrun[1] >= 2;
	if (out->welch) {
		double v[2];

		/* The variance of a side's mean share: the runs' own, but never below the
		 * binomial sampling variance of its pooled samples, p(1 - p) / N (runs that agree
		 * by chance on a few samples are not exact). */
		for (int s = 0; s < 2; s++) {
			double pm = sum_n[s] > 0 ? sum_k[s] / sum_n[s] : 0;
			double vbin = sum_n[s] > 0 ? pm * (1 - pm) / sum_n[s] : 0;

			v[s] = out->sd[s] * out->sd[s] / (double)nrun[s];
			if (v[s] < vbin)
				v[s] = vbin;
		}
		out->p = tl_welch_p_var(out->mean[0], v[0], nrun[0], out->mean[1], v[1], nrun[1]);
	} else {
		out->p = tl_prop_p(sum_k[0], sum_n[0], sum_k[1], sum_n[1]);
	}
	out->significant = out->p < alpha / (double)(m ? m : 1);
}
