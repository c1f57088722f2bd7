/* workloads/fpkernel.c - FP kernels in double and float: daxpy, dot product, matrix multiply. */
/*
 * BLAS-1 and BLAS-3 shaped loops in both IEEE formats (T for double, S for float on Alpha): ldt/lds,
 * mult/muls, addt/adds, stt/sts. Alpha has no fused multiply-add, so every result is exactly defined
 * by IEEE rounding and printf("%.17g") output compares exactly between implementations. Values are
 * kept in a small range so nothing overflows, underflows or goes denormal.
 *
 * Usage: fpkernel [REPS]   (default 10; a rep is daxpy + dot over 4096 elements in both formats
 *                          and a 48 x 48 matrix multiply in both formats, about 2 M instructions:
 *                          about 27 M in all)
 * Output: the results of each kernel with printf("%.17g"); exit status 0.
 */
#include "wl.h"

#define FP_N 4096
#define FP_M 48

static double xd[FP_N], yd[FP_N], ad[FP_M][FP_M], bd[FP_M][FP_M], cd[FP_M][FP_M];
static float xf[FP_N], yf[FP_N], af[FP_M][FP_M], bf[FP_M][FP_M], cf[FP_M][FP_M];

/* daxpy - y += a * x over n doubles. */
static __attribute__((noipa)) void daxpy(long n, double a, const double *x, double *y)
{
	long i;

	for (i = 0; i < n; i++)
		y[i] += a * x[i];
}

/* saxpy - y += a * x over n floats. */
static __attribute__((noipa)) void saxpy(long n, float a, const float *x, float *y)
{
	long i;

	for (i = 0; i < n; i++)
		y[i] += a * x[i];
}

/* ddot - the dot product of n doubles, summed in order. */
static __attribute__((noipa)) double ddot(long n, const double *x, const double *y)
{
	double s = 0.0;
	long i;

	for (i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

/* sdot - the dot product of n floats, summed in order in float. */
static __attribute__((noipa)) float sdot(long n, const float *x, const float *y)
{
	float s = 0.0f;
	long i;

	for (i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

/* dgemm - c = a * b for FP_M x FP_M doubles, i-k-j order (unit-stride inner loop). */
static __attribute__((noipa)) void dgemm(double c[FP_M][FP_M], double a[FP_M][FP_M],
					 double b[FP_M][FP_M])
{
	long i, j, k;

	for (i = 0; i < FP_M; i++) {
		for (j = 0; j < FP_M; j++)
			c[i][j] = 0.0;
		for (k = 0; k < FP_M; k++) {
			double aik = a[i][k];

			for (j = 0; j < FP_M; j++)
				c[i][j] += aik * b[k][j];
		}
	}
}

/* sgemm - c = a * b for FP_M x FP_M floats, i-k-j order. */
static __attribute__((noipa)) void sgemm(float c[FP_M][FP_M], float a[FP_M][FP_M],
					 float b[FP_M][FP_M])
{
	long i, j, k;

	for (i = 0; i < FP_M; i++) {
		for (j = 0; j < FP_M; j++)
			c[i][j] = 0.0f;
		for (k = 0; k < FP_M; k++) {
			float aik = a[i][k];

			for (j = 0; j < FP_M; j++)
				c[i][j] += aik * b[k][j];
		}
	}
}

int main(int argc, char **argv)
{
	long reps = wl_arg(argc, argv, 10);
	double dsum = 0.0, dtrace = 0.0;
	float fsum = 0.0f, ftrace = 0.0f;
	long r, i, j;

	for (i = 0; i < FP_N; i++) {
		xd[i] = (double)(i % 17) / 16.0 - 0.5;
		yd[i] = (double)(i % 29) / 7.0 + 0.125;
		xf[i] = (float)xd[i];
		yf[i] = (float)yd[i];
	}
	for (i = 0; i < FP_M; i++)
		for (j = 0; j < FP_M; j++) {
			ad[i][j] = 1.0 / (double)(i + j + 1); /* Hilbert: inexact everywhere */
			bd[i][j] = (double)((i * 3 + j * 5) % 11) * 0.1 - 0.5;
			af[i][j] = (float)ad[i][j];
			bf[i][j] = (float)bd[i][j];
		}
	for (r = 0; r < reps; r++) {
		double a = 0.5 / (double)(r + 3);

		daxpy(FP_N, a, xd, yd);
		saxpy(FP_N, (float)a, xf, yf);
		dsum += ddot(FP_N, xd, yd);
		fsum += sdot(FP_N, xf, yf);
		dgemm(cd, ad, bd);
		sgemm(cf, af, bf);
		for (i = 0; i < FP_M; i++) {
			dtrace += cd[i][i];
			ftrace += cf[i][i];
		}
		/* Feed the product back so each rep multiplies different matrices. */
		bd[r % FP_M][(r * 7) % FP_M] += cd[(r * 5) % FP_M][r % FP_M] * 0.25;
		bf[r % FP_M][(r * 7) % FP_M] += cf[(r * 5) % FP_M][r % FP_M] * 0.25f;
	}
	printf("fpkernel: n=%d m=%d reps=%ld\n", FP_N, FP_M, reps);
	printf("daxpy y[1000]=%.17g  saxpy y[1000]=%.17g\n", yd[1000], (double)yf[1000]);
	printf("ddot sum=%.17g  sdot sum=%.17g\n", dsum, (double)fsum);
	printf("dgemm trace=%.17g c[3][7]=%.17g\n", dtrace, cd[3][7]);
	printf("sgemm trace=%.17g c[3][7]=%.17g\n", (double)ftrace, (double)cf[3][7]);
	printf("mean square y=%.17g\n", ddot(FP_N, yd, yd) / (double)FP_N);
	return 0;
}
