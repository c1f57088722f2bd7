/* workloads/ev6-micro/fp.h - constants and the result for the floating-point EV6 microbenchmarks. */
#ifndef FP_H
#define FP_H

#include "micro.h"

/*
 * The FP kernels take k[] in a1: k[0] = 1.0 (the multiplier / divisor: values stay put, no
 * overflow or inexact trap), k[1] = 0.0 (the addend), k[2] = 1.5 (the chains' start); they
 * store their chains' final value into k[3].
 */
static double fp_k[4] = { 1.0, 0.0, 1.5, 0.0 };

#define FP_SETUP "\tldt $f10,0($17)\n\tldt $f11,8($17)\n\tldt $f12,16($17)\n"

static inline int fp_report(const char *name, long n)
{
	printf("%s: iterations=%ld result=%g\n", name, n, fp_k[3]);
	return 0;
}

#endif /* FP_H */
