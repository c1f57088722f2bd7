/* workloads/ev6-micro/micro.h - shared driver of the EV6 microbenchmarks: iterations, kernel asm. */
#ifndef MICRO_H
#define MICRO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Each benchmark is one kernel written in assembly (a top-level asm block, so that the
 * compiler cannot reorder or re-align it) called once with the iteration count in a0. The loop
 * body is the steady state whose cycles per iteration EXPECTED.md derives; everything else
 * (setup, the call, the result line) is the same for every iteration count, so the eval step
 * cancels it by running two counts and taking the difference.
 *
 * Kernels use only caller-saved registers ($0-$8, $16-$25, $27, $28; $f10-$f30), keep sp and
 * return with ret. Loop heads are 64-byte aligned (.align 6: one I-cache block, HRM §2.1.1);
 * the padding executes once. Alignment padding inside a loop is "nop" (bis $31,$31,$31).
 */
#define K_BEGIN(name)                                                          \
	".text\n\t.align 6\n\t.globl " name "\n\t.ent " name "\n" name ":\n"   \
	"\t.frame $30,0,$26,0\n\t.prologue 0\n\t.set noreorder\n\t.set noat\n" \
	"\t.arch ev6\n"
#define K_END(name) "\t.set at\n\t.set reorder\n\t.end " name "\n"

/* The iteration count: argv[1] (1..1e9) or def. Exits 2 with a usage line on a bad argument. */
static inline long micro_iters(int argc, char **argv, long def)
{
	char *end;
	long n;

	if (argc < 2)
		return def;
	n = strtol(argv[1], &end, 10);
	if (argc > 2 || *end || n < 1 || n > 1000000000L) {
		fprintf(stderr, "usage: %s [ITERATIONS]  (1..1000000000, default %ld)\n", argv[0],
			def);
		exit(2);
	}
	return n;
}

static inline int micro_report(const char *name, long iters, unsigned long result)
{
	printf("%s: iterations=%ld result=%lx\n", name, iters, result);
	return 0;
}

#endif /* MICRO_H */
