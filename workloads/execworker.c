/* workloads/execworker.c - the program forkexec's first child execve's: a loop of its own. */
/*
 * Usage: execworker [N]   (default 200000)
 * Output: one checksum line; exit status 6. forkexec includes this file (EXECWORKER_NO_MAIN)
 * to do the same work in place when the execve cannot run an Alpha program (qemu-alpha without
 * binfmt_misc), so its output is the same either way.
 */
#include "wl.h"

static __attribute__((noinline)) uint64_t ew_work(long n)
{
	uint64_t seed = 7 * (uint64_t)n + 1, sum = WL_SUM_INIT;

	for (long i = 0; i < n; i++)
		sum = wl_mix(sum, wl_rand(&seed) >> 3);
	return sum;
}

#ifndef EXECWORKER_NO_MAIN
int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 200000);

	printf("execworker: %ld words, checksum %016llx\n", n, (unsigned long long)ew_work(n));
	return 6;
}
#endif
