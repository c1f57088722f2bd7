/* workloads/exitcode.c - exit with a chosen status after writing to stdout and stderr. */
/*
 * Checks that a runner passes the exit status through and keeps stdout and stderr apart: a buffered
 * line on stdout (flushed by exit), an unbuffered line on stderr, an atexit handler that prints last.
 *
 * Usage: exitcode [STATUS]   (default 42; 1..255)
 * Output: stdout "exitcode: stdout line" then "exitcode: atexit handler ran"; stderr
 * "exitcode: exiting with status STATUS". Exit status STATUS, nonzero ON PURPOSE.
 * Not instruction-heavy: a few hundred thousand instructions, almost all glibc start-up.
 */
#include "wl.h"

static void at_exit(void)
{
	printf("exitcode: atexit handler ran\n");
}

int main(int argc, char **argv)
{
	long status = wl_arg(argc, argv, 42);

	if (status > 255) {
		fprintf(stderr, "exitcode: status %ld out of range 1..255\n", status);
		return 2;
	}
	atexit(at_exit);
	printf("exitcode: stdout line\n");
	fprintf(stderr, "exitcode: exiting with status %ld\n", status);
	exit((int)status);
}
