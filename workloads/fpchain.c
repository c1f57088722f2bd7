/* workloads/fpchain.c - FP loops whose latencies cross basic blocks: addt chains, divt->cvttq. */
/*
 * Three shapes the EV5 schedule of one block cannot explain alone (21164 HRM §2.4: addt/mult
 * have a 4-cycle latency, divt about 30 to 60 cycles, not pipelined):
 *   fc_chain  - two loop-carried addt chains (s += a[i]; t += s): each iteration waits for the
 *               previous one's add, a result in flight across the loop's back edge;
 *   fc_divcvt - q = x / y in one block, then a branch, then (long)q (cvttq) in the next block:
 *               the conversion waits for the divide started in its predecessor;
 *   fc_poly   - Horner's rule with a data-dependent branch between multiply-adds.
 *
 * Usage: fpchain [REPS]   (default 60; a rep runs each kernel over 4096 doubles)
 * Output: the results printed with %.17g and an integer checksum; exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

#define FC_N 4096

static double fc_a[FC_N], fc_b[FC_N];

static __attribute__((noipa)) double fc_chain(const double *a, long n)
{
	double s = 0.0, t = 0.0;

	for (long i = 0; i < n; i++) {
		s += a[i];
		t += s;
	}
	return s + t;
}

static __attribute__((noipa)) long fc_divcvt(const double *a, const double *b, long n)
{
	long acc = 0;

	for (long i = 0; i < n; i++) {
		double q = a[i] / b[i];

		if (a[i] > 1000.0) /* rarely: keeps the divide and the convert in two blocks */
			acc -= 3;
		acc += (long)q;
	}
	return acc;
}

static __attribute__((noipa)) double fc_poly(const double *a, long n)
{
	double r = 0.0;

	for (long i = 0; i < n; i++) {
		double x = a[i] * 0.001, p = 1.5;

		p = p * x + 0.25;
		if (x > 0.5)
			p = p * x - 0.125;
		p = p * x + 2.0;
		r += p;
	}
	return r;
}

int main(int argc, char **argv)
{
	long reps = wl_arg(argc, argv, 60), cv = 0;
	uint64_t seed = 31;
	double c = 0.0, p = 0.0;

	for (long i = 0; i < FC_N; i++) {
		fc_a[i] = (double)(wl_rand(&seed) % 100000) / 97.0;
		fc_b[i] = 1.0 + (double)(wl_rand(&seed) % 1000) / 31.0;
	}
	for (long r = 0; r < reps; r++) {
		c += fc_chain(fc_a, FC_N);
		cv += fc_divcvt(fc_a, fc_b, FC_N);
		p += fc_poly(fc_a, FC_N);
	}
	printf("fpchain: reps=%ld chain=%.17g poly=%.17g divcvt=%ld\n", reps, c, p, cv);
	return 0;
}
