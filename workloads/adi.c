/* workloads/adi.c - ADI (alternating direction implicit) sweeps over 2-D arrays of doubles. */
/*
 * The heat equation on an N x N grid by the Peaceman-Rachford ADI scheme: each time step solves one
 * tridiagonal system per row (the row pass, unit stride), then one per column (the column pass,
 * stride N: every access a different cache line), by the Thomas algorithm (forward elimination, back
 * substitution). Coefficients are constant, so the sweeps are pure FP loads, multiplies, adds,
 * divides and stores. All values stay well inside the normal range (no denormals, no traps).
 *
 * Usage: adi [STEPS]   (default 16 on a 96 x 96 grid; a step is two passes over 9216 points at
 *                       about 63 instructions per point per pass (explicit half, Thomas solve, copy
 *                       back): about 1.16 M a step, about 19 M in all)
 * Output: the grid size, the step count, the sum and the centre value with printf("%.17g"); exit 0.
 */
#include "wl.h"

#define ADI_N 96

static double u[ADI_N][ADI_N]; /* the field */
static double rhs[ADI_N][ADI_N]; /* right-hand side of the current half step */

/*
 * adi_solve - solve the tridiagonal system (-r, 1 + 2r, -r) x = d in place over @n values spaced
 * @stride apart, with scratch @c (n values). Thomas algorithm.
 */
static __attribute__((noipa)) void adi_solve(double *d, long stride, long n, double r, double *c)
{
	double b = 1.0 + 2.0 * r, m;
	long i;

	c[0] = -r / b;
	d[0] = d[0] / b;
	for (i = 1; i < n; i++) {
		m = 1.0 / (b + r * c[i - 1]);
		c[i] = -r * m;
		d[i * stride] = (d[i * stride] + r * d[(i - 1) * stride]) * m;
	}
	for (i = n - 2; i >= 0; i--)
		d[i * stride] -= c[i] * d[(i + 1) * stride];
}

/* adi_explicit_x - rhs = u + r * (second difference of u along rows), zero boundary. */
static __attribute__((noipa)) void adi_explicit_x(double r)
{
	long i, j;

	for (i = 0; i < ADI_N; i++)
		for (j = 0; j < ADI_N; j++) {
			double w = j > 0 ? u[i][j - 1] : 0.0;
			double e = j < ADI_N - 1 ? u[i][j + 1] : 0.0;

			rhs[i][j] = u[i][j] + r * (w - 2.0 * u[i][j] + e);
		}
}

/* adi_explicit_y - rhs = u + r * (second difference of u along columns), zero boundary. */
static __attribute__((noipa)) void adi_explicit_y(double r)
{
	long i, j;

	for (i = 0; i < ADI_N; i++)
		for (j = 0; j < ADI_N; j++) {
			double n = i > 0 ? u[i - 1][j] : 0.0;
			double s = i < ADI_N - 1 ? u[i + 1][j] : 0.0;

			rhs[i][j] = u[i][j] + r * (n - 2.0 * u[i][j] + s);
		}
}

int main(int argc, char **argv)
{
	long steps = wl_arg(argc, argv, 16);
	static double scratch[ADI_N];
	const double r = 0.25;
	double sum = 0.0;
	long s, i, j;

	for (i = 0; i < ADI_N; i++)
		for (j = 0; j < ADI_N; j++)
			u[i][j] = (double)((i * 7 + j * 13) % 31) / 8.0 + 1.0;
	for (s = 0; s < steps; s++) {
		/* Half step 1: explicit in y, implicit in x (row pass, unit stride). */
		adi_explicit_y(r);
		for (i = 0; i < ADI_N; i++)
			adi_solve(&rhs[i][0], 1, ADI_N, r, scratch);
		for (i = 0; i < ADI_N; i++)
			for (j = 0; j < ADI_N; j++)
				u[i][j] = rhs[i][j];
		/* Half step 2: explicit in x, implicit in y (column pass, stride N). */
		adi_explicit_x(r);
		for (j = 0; j < ADI_N; j++)
			adi_solve(&rhs[0][j], ADI_N, ADI_N, r, scratch);
		for (i = 0; i < ADI_N; i++)
			for (j = 0; j < ADI_N; j++)
				u[i][j] = rhs[i][j];
	}
	for (i = 0; i < ADI_N; i++)
		for (j = 0; j < ADI_N; j++)
			sum += u[i][j];
	printf("adi: n=%d steps=%ld sum=%.17g centre=%.17g corner=%.17g\n", ADI_N, steps, sum,
	       u[ADI_N / 2][ADI_N / 2], u[1][1]);
	return 0;
}
